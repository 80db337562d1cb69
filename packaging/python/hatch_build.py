"""Marks the wheel as platform-specific, with the tag ../build-wheel worked
out from the binary it placed (`platform-tag`, e.g.
`py3-none-manylinux_2_34_x86_64`: the newest glibc symbol version the binary
needs, and its machine)."""

from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class PlatformTag(BuildHookInterface):
    def initialize(self, version, build_data):
        tag_file = Path(self.root) / "platform-tag"
        if not tag_file.is_file():
            raise RuntimeError("no platform-tag: build this package with packaging/build-wheel")
        build_data["pure_python"] = False
        build_data["tag"] = tag_file.read_text().strip()
