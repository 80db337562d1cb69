# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_glovebox_global_optspecs
    string join \n config= h/help V/version
end

function __fish_glovebox_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_glovebox_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_glovebox_using_subcommand
    set -l cmd (__fish_glovebox_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c glovebox -n "__fish_glovebox_needs_command" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_needs_command" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_needs_command" -s V -l version -d 'Print version'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "windows" -d 'List the desktop\'s windows, frontmost first, 30 per page'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "screenshot" -d 'Capture a window or displays to a PNG and print the frame record'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "observe" -d 'Observe through the host: grant, denials, frame, tree (and screenshot)'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "grant" -d 'Create or query grants'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "stop" -d 'Revoke this display\'s grant from any terminal; agent grants are refused for 30 s'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "indicator" -d 'Print the URL of the indicator page (what the agent holds, and Stop) of this display\'s grant holder'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "audit" -d 'Read the audit trail'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "inspect" -d 'Read a window\'s accessibility tree (compact text, or JSON)'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "schema" -d 'Print the JSON schema of an output: window-page, frame, accessibility-tree, error, episode or episode-record'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "doctor" -d 'Check what this environment offers glovebox'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "setup" -d 'Set glovebox up on this desktop, step by step: computer use on, the desktop checked, accessibility for later apps, the MCP clients you pick; each change shown and asked first'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "sandbox" -d 'Run a private headless desktop (Xvfb, session bus, openbox), printing its environment or running a command inside it'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "host" -d 'Keep a warm host on this desktop that one-shot commands (windows, screenshot, inspect, observe) ride, until Ctrl-C, SIGTERM or `glovebox stop`'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "mcp" -d 'Serve the MCP tools over stdin/stdout (for Claude Code, Cursor, VS Code, …)'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "mcp-config" -d 'Print the entry an MCP client (claude-code, cursor, vscode, codex) needs to start glovebox, or add it with --write'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "serve" -d 'Serve the MCP tools over streamable HTTP on 127.0.0.1, behind a bearer token'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "pending" -d 'Native calls waiting for your answer (glovebox serve with "park": true); approve or decline one'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "run" -d 'Run an instruction with the bound model: a bounded observe → decide → act loop, with a summary and an HTML report'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "episode" -d 'Desktop episodes for evaluating agents: one in a fresh desktop, or a directory of them in parallel'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "trajectories" -d 'The recordings of delivered actions that `glovebox replay` can run again'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "replay" -d 'Run a recording again with no model, through the same gate, stopping at the first divergence'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "config" -d 'Read or change the configuration'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "completions" -d 'Print the shell completion script for bash, zsh, fish, elvish or powershell'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "man" -d 'Write the manual pages (glovebox.1 and one per command) into a directory'
complete -c glovebox -n "__fish_glovebox_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand windows" -l query -d 'Case-insensitive filter on app, title and id' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand windows" -l page -d '1-based page of 30 windows' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand windows" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand windows" -l json
complete -c glovebox -n "__fish_glovebox_using_subcommand windows" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand screenshot" -l window -d 'Window to capture: pid/xid, or pid/title' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand screenshot" -l display -d 'Display id to capture, or `all` for a composite (default from config)' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand screenshot" -s o -l output -d 'Where to write the PNG; `-` for standard output' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand screenshot" -l max-width -r
complete -c glovebox -n "__fish_glovebox_using_subcommand screenshot" -l max-height -r
complete -c glovebox -n "__fish_glovebox_using_subcommand screenshot" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand screenshot" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand observe" -l window -d 'Bind to this window first (pid/xid or pid/title)' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand observe" -l screenshot -d 'Also take a screenshot and write it here' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand observe" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand observe" -l json
complete -c glovebox -n "__fish_glovebox_using_subcommand observe" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and not __fish_seen_subcommand_from hold status help" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and not __fish_seen_subcommand_from hold status help" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and not __fish_seen_subcommand_from hold status help" -f -a "hold" -d 'Create a user grant and hold it until Ctrl-C or `glovebox stop`'
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and not __fish_seen_subcommand_from hold status help" -f -a "status" -d 'Ask the process holding this display\'s grant what it holds'
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and not __fish_seen_subcommand_from hold status help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and __fish_seen_subcommand_from hold" -l window -d 'Bind to this window (pid/xid or pid/title) instead of the frontmost allowed one' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and __fish_seen_subcommand_from hold" -l scope -d '`window` pins the grant to that window' -r -f -a "desktop\t''
window\t''"
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and __fish_seen_subcommand_from hold" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and __fish_seen_subcommand_from hold" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and __fish_seen_subcommand_from status" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and __fish_seen_subcommand_from help" -f -a "hold" -d 'Create a user grant and hold it until Ctrl-C or `glovebox stop`'
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and __fish_seen_subcommand_from help" -f -a "status" -d 'Ask the process holding this display\'s grant what it holds'
complete -c glovebox -n "__fish_glovebox_using_subcommand grant; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand stop" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand stop" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand indicator" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand indicator" -l open -d 'Also open the page with `xdg-open`'
complete -c glovebox -n "__fish_glovebox_using_subcommand indicator" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand audit" -l since-secs -d 'Only records of the last N seconds' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand audit" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand audit" -l json
complete -c glovebox -n "__fish_glovebox_using_subcommand audit" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand inspect" -l window -d 'Window to read: pid/xid, or pid/title' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand inspect" -l max-nodes -r
complete -c glovebox -n "__fish_glovebox_using_subcommand inspect" -l max-depth -r
complete -c glovebox -n "__fish_glovebox_using_subcommand inspect" -l deadline-ms -d 'Deadline of the whole read, in milliseconds' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand inspect" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand inspect" -l json -d 'Print the structured tree as JSON instead of the compact text'
complete -c glovebox -n "__fish_glovebox_using_subcommand inspect" -l text -d 'Print the compact text tree (the default)'
complete -c glovebox -n "__fish_glovebox_using_subcommand inspect" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand schema" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c glovebox -n "__fish_glovebox_using_subcommand doctor" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand doctor" -l json
complete -c glovebox -n "__fish_glovebox_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and not __fish_seen_subcommand_from accessibility kde-screenshots gnome-extension help" -l clients -d 'The MCP clients to add glovebox to (default: every one found installed)' -r -f -a "claude-code\t'Claude Code: `.mcp.json` in a project (or `claude mcp add`)'
claude-desktop\t'Claude Desktop: `claude_desktop_config.json` in `%APPDATA%\\Claude` (Windows) or `~/Library/Application Support/Claude` (macOS)'
cursor\t'Cursor: `~/.cursor/mcp.json`'
vscode\t'VS Code: `.vscode/mcp.json` in a workspace'
codex\t'OpenAI Codex: `~/.codex/config.toml`'"
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and not __fish_seen_subcommand_from accessibility kde-screenshots gnome-extension help" -l via -d 'How the clients start glovebox: this binary\'s path, or the published package by uvx or npx' -r -f -a "path\t'This binary, by its absolute path'
uvx\t'`uvx glovebox-mcp mcp`'
npx\t'`npx -y glovebox-mcp mcp`'"
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and not __fish_seen_subcommand_from accessibility kde-screenshots gnome-extension help" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and not __fish_seen_subcommand_from accessibility kde-screenshots gnome-extension help" -l yes -d 'Make every change without asking (for scripts, once you have read what it does)'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and not __fish_seen_subcommand_from accessibility kde-screenshots gnome-extension help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and not __fish_seen_subcommand_from accessibility kde-screenshots gnome-extension help" -f -a "accessibility" -d 'Turn accessibility on for the applications you start from now on (Chromium, Firefox, Qt; GNOME\'s switch): shows each change and asks first. Never starts or announces a screen reader'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and not __fish_seen_subcommand_from accessibility kde-screenshots gnome-extension help" -f -a "kde-screenshots" -d 'Let this glovebox take screenshots on KDE Plasma (Wayland): writes the desktop file KWin reads to allow org.kde.KWin.ScreenShot2 for this program (the .deb installs one for /usr/bin/glovebox); shows it and asks first'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and not __fish_seen_subcommand_from accessibility kde-screenshots gnome-extension help" -f -a "gnome-extension" -d 'Let this glovebox list windows and read pixels on GNOME (Wayland): installs glovebox\'s GNOME Shell extension for you, answering only this program, and enables it (loaded at your next login); shows each change and asks first'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and not __fish_seen_subcommand_from accessibility kde-screenshots gnome-extension help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from accessibility" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from accessibility" -l undo -d 'Put back every value an earlier setup changed (a value you changed since stays yours)'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from accessibility" -l yes -d 'Make the changes without asking (once you have read them)'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from accessibility" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from kde-screenshots" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from kde-screenshots" -l undo -d 'Remove the desktop file an earlier run wrote'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from kde-screenshots" -l yes -d 'Write it without asking (once you have read it)'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from kde-screenshots" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from gnome-extension" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from gnome-extension" -l undo -d 'Remove the extension and take it out of the enabled list'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from gnome-extension" -l yes -d 'Make the changes without asking (once you have read them)'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from gnome-extension" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from help" -f -a "accessibility" -d 'Turn accessibility on for the applications you start from now on (Chromium, Firefox, Qt; GNOME\'s switch): shows each change and asks first. Never starts or announces a screen reader'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from help" -f -a "kde-screenshots" -d 'Let this glovebox take screenshots on KDE Plasma (Wayland): writes the desktop file KWin reads to allow org.kde.KWin.ScreenShot2 for this program (the .deb installs one for /usr/bin/glovebox); shows it and asks first'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from help" -f -a "gnome-extension" -d 'Let this glovebox list windows and read pixels on GNOME (Wayland): installs glovebox\'s GNOME Shell extension for you, answering only this program, and enables it (loaded at your next login); shows each change and asks first'
complete -c glovebox -n "__fish_glovebox_using_subcommand setup; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand sandbox" -l width -r
complete -c glovebox -n "__fish_glovebox_using_subcommand sandbox" -l height -r
complete -c glovebox -n "__fish_glovebox_using_subcommand sandbox" -l desktop -d 'Which desktop: `x11` (Xvfb and openbox), `sway` (headless sway on Wayland), `kde` (KDE Plasma\'s KWin on Wayland with XWayland; this glovebox may take screenshots there, as the installed package allows on a real Plasma desktop) or `gnome` (GNOME Shell on Wayland with XWayland and glovebox\'s extension answering this glovebox, as `glovebox setup gnome-extension` sets up a real GNOME desktop)' -r -f -a "x11\t''
sway\t''
kde\t''
gnome\t''"
complete -c glovebox -n "__fish_glovebox_using_subcommand sandbox" -l monitor -d 'Simulate a display (RandR monitor) `WxH+X+Y`; repeat for several. The first one is primary' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand sandbox" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand sandbox" -l no-wm -d 'Start without a window manager'
complete -c glovebox -n "__fish_glovebox_using_subcommand sandbox" -l wayland -d 'A Wayland desktop (headless sway) instead of X11: its applications are native Wayland clients, and glovebox inside it uses the Wayland backend (semantic input only). The same as `--desktop sway`'
complete -c glovebox -n "__fish_glovebox_using_subcommand sandbox" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand host" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand host" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand mcp" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand mcp" -l read-only -d 'Refuse and hide every input tool, whatever the configuration says'
complete -c glovebox -n "__fish_glovebox_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand mcp-config" -l file -d 'The file to add it to, instead of the client\'s usual one' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand mcp-config" -l via -d 'How the client starts glovebox: this binary\'s path, or the published package through uvx (PyPI) or npx (npm)' -r -f -a "path\t'This binary, by its absolute path'
uvx\t'`uvx glovebox-mcp mcp`'
npx\t'`npx -y glovebox-mcp mcp`'"
complete -c glovebox -n "__fish_glovebox_using_subcommand mcp-config" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand mcp-config" -l read-only -d 'Start glovebox with every input tool refused and hidden'
complete -c glovebox -n "__fish_glovebox_using_subcommand mcp-config" -l write -d 'Add the entry to the client\'s configuration file, keeping every other server'
complete -c glovebox -n "__fish_glovebox_using_subcommand mcp-config" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c glovebox -n "__fish_glovebox_using_subcommand serve" -l port -d 'Port on 127.0.0.1 (default: serve.port; 0 picks a free one)' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand serve" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand serve" -l read-only -d 'Refuse and hide every input tool, whatever the configuration says'
complete -c glovebox -n "__fish_glovebox_using_subcommand serve" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and not __fish_seen_subcommand_from approve decline help" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and not __fish_seen_subcommand_from approve decline help" -l json -d 'Print as JSON'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and not __fish_seen_subcommand_from approve decline help" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and not __fish_seen_subcommand_from approve decline help" -f -a "approve" -d 'Show a waiting call\'s questions and approve them (asks y/N on the terminal unless --yes)'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and not __fish_seen_subcommand_from approve decline help" -f -a "decline" -d 'Decline a waiting call: neither it nor the calls after it in its batch run (an unsigned record is removed)'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and not __fish_seen_subcommand_from approve decline help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and __fish_seen_subcommand_from approve" -l digest -d 'The digest `glovebox pending` showed for it: nothing is approved unless the call is still that record' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and __fish_seen_subcommand_from approve" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and __fish_seen_subcommand_from approve" -l yes -d 'Approve without asking: you have read the questions (`glovebox pending`); needs --digest'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and __fish_seen_subcommand_from approve" -l json -d 'Print as JSON'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and __fish_seen_subcommand_from approve" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and __fish_seen_subcommand_from decline" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and __fish_seen_subcommand_from decline" -l json -d 'Print as JSON'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and __fish_seen_subcommand_from decline" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and __fish_seen_subcommand_from help" -f -a "approve" -d 'Show a waiting call\'s questions and approve them (asks y/N on the terminal unless --yes)'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and __fish_seen_subcommand_from help" -f -a "decline" -d 'Decline a waiting call: neither it nor the calls after it in its batch run (an unsigned record is removed)'
complete -c glovebox -n "__fish_glovebox_using_subcommand pending; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand run" -l max-steps -d 'Steps the loop may take (1–50); clamped by the grant\'s action budget' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand run" -l window -d 'Work in this window (`pid/0xXID` from `glovebox windows`); default: the frontmost allowed one' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand run" -l report -d 'Where to write the HTML trajectory report (default: under the state directory)' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand run" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand run" -l observe-only -d 'Look only: the model may answer, never act'
complete -c glovebox -n "__fish_glovebox_using_subcommand run" -l json -d 'Print the summary as JSON on stdout (progress stays on stderr)'
complete -c glovebox -n "__fish_glovebox_using_subcommand run" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and not __fish_seen_subcommand_from run batch summarize inside help" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and not __fish_seen_subcommand_from run batch summarize inside help" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and not __fish_seen_subcommand_from run batch summarize inside help" -f -a "run" -d 'Run one episode in a fresh private desktop; exit 0 passed, 7 failed, 8 errored'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and not __fish_seen_subcommand_from run batch summarize inside help" -f -a "batch" -d 'Run every episode (`*.toml`, `*.json`) of a directory, each in its own desktop; writes OUT/index.html and OUT/junit.xml'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and not __fish_seen_subcommand_from run batch summarize inside help" -f -a "summarize" -d 'Merge the records of many runs (batches, a Job\'s /records/JOB) into index.html and junit.xml; exit 0 all passed, 7 some failed, 8 some errored'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and not __fish_seen_subcommand_from run batch summarize inside help" -f -a "inside" -d '(internal) The episode inside its desktop, started by `run`'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and not __fish_seen_subcommand_from run batch summarize inside help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from run" -l index -d 'Run the N-th spec (from 0) of the directory SPEC, in `batch`\'s order (by file name): one episode per index of an indexed job' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from run" -l out -d 'Where the episode\'s directory, record (`record.json`) and report go (default: `episodes/NAME`)' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from run" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from run" -l json -d 'Print the record as JSON on stdout'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from batch" -l parallel -d 'Episodes at once (1–64), each in its own desktop' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from batch" -l out -d 'Where each episode\'s directory goes (`OUT/NAME`; default `episodes`)' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from batch" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from batch" -l json -d 'Print every record and the summary as one JSON document on stdout'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from batch" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from summarize" -l out -d 'Where `index.html` and `junit.xml` go (default: the one DIR given)' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from summarize" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from summarize" -l json -d 'Print the counts and every record as one JSON document on stdout'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from summarize" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from inside" -l dir -d 'The episode\'s directory: `work/` (its files, the apps\' working directory), the record' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from inside" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from inside" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run one episode in a fresh private desktop; exit 0 passed, 7 failed, 8 errored'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from help" -f -a "batch" -d 'Run every episode (`*.toml`, `*.json`) of a directory, each in its own desktop; writes OUT/index.html and OUT/junit.xml'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from help" -f -a "summarize" -d 'Merge the records of many runs (batches, a Job\'s /records/JOB) into index.html and junit.xml; exit 0 all passed, 7 some failed, 8 some errored'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from help" -f -a "inside" -d '(internal) The episode inside its desktop, started by `run`'
complete -c glovebox -n "__fish_glovebox_using_subcommand episode; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand trajectories" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand trajectories" -l json -d 'Print the list as JSON'
complete -c glovebox -n "__fish_glovebox_using_subcommand trajectories" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand replay" -l window -d 'Replay in this window (`pid/0xXID`); default: the window whose application and title the recording names' -r
complete -c glovebox -n "__fish_glovebox_using_subcommand replay" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand replay" -l yes -d 'Approve the replay\'s input as a whole, as typing `glovebox run` does; without it the replay asks once, listing its steps'
complete -c glovebox -n "__fish_glovebox_using_subcommand replay" -l json -d 'Print the account as JSON'
complete -c glovebox -n "__fish_glovebox_using_subcommand replay" -l model-on-divergence -d 'When the replay diverges, hand the rest to the bound model (`glovebox run`), told where and why it stopped and what the remaining steps did'
complete -c glovebox -n "__fish_glovebox_using_subcommand replay" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and not __fish_seen_subcommand_from get set list help" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and not __fish_seen_subcommand_from get set list help" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and not __fish_seen_subcommand_from get set list help" -f -a "get" -d 'Print a key\'s effective value and the layer it came from'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and not __fish_seen_subcommand_from get set list help" -f -a "set" -d 'Set a key in the user configuration file (or `--project`\'s ./.glovebox.toml)'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and not __fish_seen_subcommand_from get set list help" -f -a "list" -d 'Print every key with its effective value and origin'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and not __fish_seen_subcommand_from get set list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and __fish_seen_subcommand_from get" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and __fish_seen_subcommand_from get" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and __fish_seen_subcommand_from set" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and __fish_seen_subcommand_from set" -l project
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and __fish_seen_subcommand_from set" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and __fish_seen_subcommand_from list" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "get" -d 'Print a key\'s effective value and the layer it came from'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "set" -d 'Set a key in the user configuration file (or `--project`\'s ./.glovebox.toml)'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "list" -d 'Print every key with its effective value and origin'
complete -c glovebox -n "__fish_glovebox_using_subcommand config; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand completions" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand completions" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand man" -l dir -d 'Where the pages go; created when missing' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand man" -l config -d 'An extra configuration file layered over the user and project files' -r -F
complete -c glovebox -n "__fish_glovebox_using_subcommand man" -s h -l help -d 'Print help'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "windows" -d 'List the desktop\'s windows, frontmost first, 30 per page'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "screenshot" -d 'Capture a window or displays to a PNG and print the frame record'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "observe" -d 'Observe through the host: grant, denials, frame, tree (and screenshot)'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "grant" -d 'Create or query grants'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "stop" -d 'Revoke this display\'s grant from any terminal; agent grants are refused for 30 s'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "indicator" -d 'Print the URL of the indicator page (what the agent holds, and Stop) of this display\'s grant holder'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "audit" -d 'Read the audit trail'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "inspect" -d 'Read a window\'s accessibility tree (compact text, or JSON)'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "schema" -d 'Print the JSON schema of an output: window-page, frame, accessibility-tree, error, episode or episode-record'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "doctor" -d 'Check what this environment offers glovebox'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "setup" -d 'Set glovebox up on this desktop, step by step: computer use on, the desktop checked, accessibility for later apps, the MCP clients you pick; each change shown and asked first'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "sandbox" -d 'Run a private headless desktop (Xvfb, session bus, openbox), printing its environment or running a command inside it'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "host" -d 'Keep a warm host on this desktop that one-shot commands (windows, screenshot, inspect, observe) ride, until Ctrl-C, SIGTERM or `glovebox stop`'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "mcp" -d 'Serve the MCP tools over stdin/stdout (for Claude Code, Cursor, VS Code, …)'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "mcp-config" -d 'Print the entry an MCP client (claude-code, cursor, vscode, codex) needs to start glovebox, or add it with --write'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "serve" -d 'Serve the MCP tools over streamable HTTP on 127.0.0.1, behind a bearer token'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "pending" -d 'Native calls waiting for your answer (glovebox serve with "park": true); approve or decline one'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "run" -d 'Run an instruction with the bound model: a bounded observe → decide → act loop, with a summary and an HTML report'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "episode" -d 'Desktop episodes for evaluating agents: one in a fresh desktop, or a directory of them in parallel'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "trajectories" -d 'The recordings of delivered actions that `glovebox replay` can run again'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "replay" -d 'Run a recording again with no model, through the same gate, stopping at the first divergence'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "config" -d 'Read or change the configuration'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "completions" -d 'Print the shell completion script for bash, zsh, fish, elvish or powershell'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "man" -d 'Write the manual pages (glovebox.1 and one per command) into a directory'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and not __fish_seen_subcommand_from windows screenshot observe grant stop indicator audit inspect schema doctor setup sandbox host mcp mcp-config serve pending run episode trajectories replay config completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from grant" -f -a "hold" -d 'Create a user grant and hold it until Ctrl-C or `glovebox stop`'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from grant" -f -a "status" -d 'Ask the process holding this display\'s grant what it holds'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from setup" -f -a "accessibility" -d 'Turn accessibility on for the applications you start from now on (Chromium, Firefox, Qt; GNOME\'s switch): shows each change and asks first. Never starts or announces a screen reader'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from setup" -f -a "kde-screenshots" -d 'Let this glovebox take screenshots on KDE Plasma (Wayland): writes the desktop file KWin reads to allow org.kde.KWin.ScreenShot2 for this program (the .deb installs one for /usr/bin/glovebox); shows it and asks first'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from setup" -f -a "gnome-extension" -d 'Let this glovebox list windows and read pixels on GNOME (Wayland): installs glovebox\'s GNOME Shell extension for you, answering only this program, and enables it (loaded at your next login); shows each change and asks first'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from pending" -f -a "approve" -d 'Show a waiting call\'s questions and approve them (asks y/N on the terminal unless --yes)'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from pending" -f -a "decline" -d 'Decline a waiting call: neither it nor the calls after it in its batch run (an unsigned record is removed)'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from episode" -f -a "run" -d 'Run one episode in a fresh private desktop; exit 0 passed, 7 failed, 8 errored'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from episode" -f -a "batch" -d 'Run every episode (`*.toml`, `*.json`) of a directory, each in its own desktop; writes OUT/index.html and OUT/junit.xml'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from episode" -f -a "summarize" -d 'Merge the records of many runs (batches, a Job\'s /records/JOB) into index.html and junit.xml; exit 0 all passed, 7 some failed, 8 some errored'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from episode" -f -a "inside" -d '(internal) The episode inside its desktop, started by `run`'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "get" -d 'Print a key\'s effective value and the layer it came from'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "set" -d 'Set a key in the user configuration file (or `--project`\'s ./.glovebox.toml)'
complete -c glovebox -n "__fish_glovebox_using_subcommand help; and __fish_seen_subcommand_from config" -f -a "list" -d 'Print every key with its effective value and origin'
