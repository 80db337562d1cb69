# Shared by .ci/deb-check and .ci/install-check (sourced, not run): README's
# own lines, and a fresh Debian 12 root to run them in.

# A README line, exactly; failing when README no longer has it.
readme_line() {
  local line
  line=$(grep -m1 -xE "$1" README.md) || { echo "${0##*/}: README.md has no line matching $1" >&2; exit 1; }
  echo "$line"
}

# A fresh Debian 12 at $1 with nothing of glovebox's: apt, and sudo (README's
# lines use it); package lists kept, as on an installed machine (mmdebstrap
# would empty them); apt answers yes as the person typing the line would.
make_debian_root() {
  mmdebstrap --quiet --variant=apt --include=sudo --skip=cleanup/apt/lists bookworm "$1" http://deb.debian.org/debian
  echo 'APT::Get::Assume-Yes "true";' > "$1/etc/apt/apt.conf.d/90-ci"
}

# make_debian_root at $1, or the root .ci/roots-ahead made for the check
# named $2 while the tests ran (waited for; an hour at most), moved there.
fresh_debian_root() {
  local ahead=${CI_ROOTS_AHEAD:-}
  if [ -n "$ahead" ] && [ -n "${2:-}" ]; then
    local waited=0
    while [ ! -e "$ahead/$2.ready" ] && [ ! -e "$ahead/$2.failed" ] && ((waited < 3600)); do
      sleep 1
      waited=$((waited + 1))
    done
    if [ -e "$ahead/$2.ready" ]; then
      mv "$ahead/$2" "$1"
      return
    fi
    echo "${0##*/}: no root made ahead ($(tail -3 "$ahead/$2.log" 2>/dev/null)); making one now" >&2
  fi
  make_debian_root "$1"
}

# Runs the shell line $2 as root inside the root at $1 (bubblewrap: its own
# /tmp and process namespace, the host's network), from /work.
inside() {
  bwrap --bind "$1" / --dev /dev --proc /proc --ro-bind /sys /sys --tmpfs /tmp \
    --ro-bind /etc/resolv.conf /etc/resolv.conf --ro-bind /etc/hosts /etc/hosts --unshare-pid --die-with-parent \
    --dir /work --chdir /work --setenv PATH /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --setenv HOME /root \
    -- /bin/sh -c "$2"
}
