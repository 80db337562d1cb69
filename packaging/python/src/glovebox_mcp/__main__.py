"""`python -m glovebox_mcp …`: the same as the `glovebox` command."""

from glovebox_mcp import main

main()
