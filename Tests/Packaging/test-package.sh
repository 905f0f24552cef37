#!/usr/bin/env bash
# The Debian package on a clean Debian bookworm root made by debootstrap, where no Swift is
# installed: apt installs it and resolves its Depends, then it is used as a reader would (the demo
# listed and downloaded, the manual read, a completion run), then removed.
# Usage: test-package.sh newsstand_VERSION_ARCH.deb   (`make test-package` builds it first)
# Needs root (debootstrap and chroot) and Debian's mirror (DEBIAN_MIRROR, default deb.debian.org).
set -euo pipefail
deb=$(realpath "$1")
cd "$(dirname "$0")/../.."
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=$PWD/.build-package
checks=0
fail() { echo "test-package: FAIL: $*" >&2; exit 1; }
ok() { checks=$((checks + 1)); echo "test-package: ok: $*"; }

# The bootstrapped system is kept as a tarball, so that every run starts from a pristine root.
base=$cache/bookworm-minbase.tar
if [ ! -s "$base" ]; then
    mkdir -p "$cache"
    rm -rf "$cache/bootstrap"
    echo "test-package: debootstrap bookworm from $mirror (about a minute)"
    debootstrap --variant=minbase bookworm "$cache/bootstrap" "$mirror" >"$cache/debootstrap.log" 2>&1 \
        || { tail -20 "$cache/debootstrap.log" >&2; fail "debootstrap"; }
    tar -C "$cache/bootstrap" -cf "$base.partial" . && mv "$base.partial" "$base"
    rm -rf "$cache/bootstrap"
fi

root=$(mktemp -d /tmp/newsstand-root.XXXXXX)
cleanup() {
    mountpoint -q "$root/proc" && umount "$root/proc"
    rm -rf "$root"
}
trap cleanup EXIT
tar -C "$root" -xf "$base"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc" 2>/dev/null || echo "test-package: note: /proc not mounted in the root"
cp "$deb" "$root/tmp/"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb "$@"; }

[ ! -e "$root/opt/swift" ] && ! in_root sh -c 'ls /usr/lib/*/libswift* /usr/lib/libswift*' >/dev/null 2>&1 \
    || fail "the clean root has Swift"
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "/tmp/$(basename "$deb")" man-db bash-completion >"$cache/apt-install.log" 2>&1 \
    || { tail -20 "$cache/apt-install.log" >&2; fail "apt-get install"; }
depends=$(in_root dpkg-query -W -f='${Depends}' newsstand)
grep -q "libcurl4" <<<"$depends" && grep -q "libncursesw6" <<<"$depends" && grep -q "libsqlite3-0" <<<"$depends" \
    || fail "Depends lacks a library it links: $depends"
ok "apt installed the package and its Depends: $depends"

version=$(dpkg-deb -f "$deb" Version)
[ "$(in_root newsstand --version)" = "$version" ] || fail "newsstand --version is not $version"
missing=$(in_root ldd /usr/bin/newsstand | grep "not found" || true)
[ -z "$missing" ] || fail "libraries missing in the clean root: $missing"
ok "newsstand $version runs without Swift"

listing=$(in_root newsstand list)
grep -q "Terminal Times — 6 issues" <<<"$listing" || fail "list: $listing"
in_root newsstand download demo/tt-2026-03 >/dev/null || fail "download of the demo's issue"
# Captured before grep reads it: with pipefail, `grep -q` leaving early would fail the pipeline
# through the writer's SIGPIPE whenever newsstand had more lines to write.
listing=$(in_root newsstand list --offline)
grep -q "^tt-2026-03 .* downloaded " <<<"$listing" || fail "the issue is not listed as downloaded: $listing"
ok "the demo lists and an issue downloads and verifies"

# xdg-utils is only recommended, and was not installed: opening says what to do.
if opened=$(in_root newsstand open demo/tt-2026-03 2>&1); then fail "open without an opener succeeded"; fi
[ "$opened" = "newsstand: The PDF opener xdg-open is not installed; install xdg-utils or set NEWSSTAND_OPENER." ] \
    || fail "open without xdg-utils: $opened"
ok "open without xdg-utils: $opened"

page=$(in_root env MANWIDTH=100 man -P cat newsstand 2>/dev/null)
for section in SYNOPSIS ENVIRONMENT FILES "EXIT STATUS"; do
    grep -q "^$section\$" <<<"$page" || fail "man newsstand has no $section"
done
ok "man newsstand ($(wc -l <<<"$page") lines)"

words=$(in_root bash -c '
    source /usr/share/bash-completion/bash_completion
    _completion_loader newsstand
    COMP_WORDS=(newsstand sub); COMP_CWORD=1; COMP_LINE="newsstand sub"; COMP_POINT=${#COMP_LINE}
    _newsstand newsstand sub newsstand
    printf "%s\n" "${COMPREPLY[@]}"' | sort | tr '\n' ' ')
[ "$words" = "subscribe subscriptions " ] || fail "bash completion of 'newsstand sub': $words"
ok "bash completes 'newsstand sub' to: $words"

for file in /usr/lib/systemd/user/newsstand-sync.service /usr/lib/systemd/user/newsstand-sync.timer \
    /usr/share/applications/newsstand.desktop /usr/share/zsh/vendor-completions/_newsstand \
    /usr/share/fish/vendor_completions.d/newsstand.fish /usr/share/doc/newsstand/copyright; do
    [ -s "$root$file" ] || fail "the package did not install $file"
done
grep -qx "ExecStart=/usr/bin/newsstand sync" "$root/usr/lib/systemd/user/newsstand-sync.service" || fail "the unit's ExecStart"
ok "units, desktop entry, zsh and fish completions and copyright are in place"

in_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq newsstand >"$cache/apt-remove.log" 2>&1 \
    || { tail -20 "$cache/apt-remove.log" >&2; fail "apt-get remove"; }
[ ! -e "$root/usr/bin/newsstand" ] && [ ! -e "$root/usr/share/newsstand" ] || fail "files remain after apt-get remove"
ok "apt-get remove takes every file away"
echo "test-package: $checks checks passed ($(stat -c %s "$deb") bytes: $(basename "$deb"))"
