#!/usr/bin/env bash
# The main job on the embedded default: run inside `glovebox sandbox`, it
# opens two apps, lists the windows and captures the desktop and one window.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
glovebox="${GLOVEBOX:-$here/target/release/glovebox}"
out="${OUT_DIR:-$PWD}"
# Computer use is off until the user turns it on; this private desktop is
# where the user tries it.
export GLOVEBOX_ENABLED=true
/usr/bin/python3 "$here/testapps/fixture_gtk3.py" --title "glovebox demo app" &
xterm -title "glovebox demo terminal" -geometry 80x20+60+60 &
for _ in $(seq 100); do
  "$glovebox" windows --query "glovebox demo app" --json | grep -q '"total": 1' && break
  sleep 0.1
done
sleep 0.3
"$glovebox" windows
"$glovebox" doctor || true
"$glovebox" screenshot -o "$out/desktop.png"
id=$("$glovebox" windows --query "glovebox demo app" --json | sed -n 's/.*"id": "\([^"]*\)".*/\1/p' | head -1)
"$glovebox" screenshot --window "$id" -o "$out/window.png"
# What an agent's first call gets: a grant bound to the frontmost allowed
# window, its newest frame and its accessibility tree.
"$glovebox" observe --window "$id"
"$glovebox" inspect --window "$id" --json > "$out/tree.json"
echo "wrote $out/desktop.png, $out/window.png and $out/tree.json"
