#!/usr/bin/env bash
# `make install` for real: into a temporary PREFIX, every installed piece used from there as a
# reader's system would use it, the same files staged with DESTDIR, then `make uninstall`.
# Needs `make release` first (`make test-install` does both).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d /tmp/newsstand-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
bin=$prefix/bin/newsstand
checks=0
fail() { echo "test-install: FAIL: $*" >&2; exit 1; }
ok() { checks=$((checks + 1)); echo "test-install: ok: $*"; }
# A reader's environment: no toolchain on PATH, nothing of this checkout's.
clean_env() { env -i HOME="$work/home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$@"; }

make --no-print-directory install-files PREFIX="$prefix" >/dev/null
[ -x "$bin" ] || fail "no binary at $bin"

# Each output is captured before grep reads it: with pipefail, `grep -q` leaving early fails the
# pipeline through the writer's SIGPIPE.
libraries=$(ldd "$bin")
if grep -qi swift <<<"$libraries"; then fail "the binary links Swift's shared libraries: $(ldd "$bin" | grep -i swift)"; fi
ok "the binary links no Swift library ($(stat -c %s "$bin") bytes)"
dynamic=$(readelf -d "$bin")
if grep -qE "RPATH|RUNPATH" <<<"$dynamic"; then fail "the binary has a run path: $(readelf -d "$bin" | grep -E 'RPATH|RUNPATH')"; fi
[ -z "$(readelf -S "$bin" | grep -E '\.debug_|\.symtab')" ] || fail "the binary is not stripped"
ok "no run path, no symbols"

[ "$(clean_env "$bin" --version)" = "$(.build-release/release/newsstand --version)" ] || fail "--version"
listing=$(clean_env "$bin" list)
grep -q "Terminal Times — 6 issues" <<<"$listing" || fail "the installed demo is not listed: $listing"
ok "list shows the demo installed under share/"

# Found on PATH from another folder: argv[0] is then a bare name.
listing=$(cd "$work" && clean_env PATH="$prefix/bin:/usr/bin:/bin" newsstand list --offline)
grep -q "tt-2026-06" <<<"$listing" || fail "the demo is not found when newsstand is run from PATH"
ok "run from PATH in another folder, it finds its share folder"

# Through a symlink in another folder (how /usr/local/bin often points into /opt).
mkdir -p "$work/elsewhere"
ln -s "$bin" "$work/elsewhere/newsstand"
listing=$(clean_env "$work/elsewhere/newsstand" list --offline)
grep -q "tt-2026-06" <<<"$listing" || fail "the demo is not found through a symlink"
ok "a symlinked binary finds its share folder"

# Without the share folder, the message says what to do (and nothing else is read instead).
mv "$prefix/share/newsstand" "$work/moved"
if message=$(clean_env "$bin" list 2>&1); then fail "listed without a demo: $message"; fi
grep -q "demo catalog is missing" <<<"$message" || fail "unclear message without the demo: $message"
mv "$work/moved" "$prefix/share/newsstand"
ok "without share/newsstand the error says so: $message"

clean_env "$bin" download demo/tt-2026-02 >/dev/null
[ -s "$work/home/.local/share/newsstand/demo/tt-2026-02/tt-2026-02.pdf" ] || fail "the demo issue did not download"
ok "an issue of the installed demo downloads"

# A feed over HTTP with the installed (static) binary: read, cached as a snapshot, listed offline.
# The static build's Foundation differs from the test suite's (its property-list writer failed).
feeds="$work/feeds"
mkdir -p "$feeds/pdf" && cp Tests/Fixtures/Feeds/magazine.rss "$feeds/feed.rss"
python3 -c 'import sys; sys.stdout.buffer.write(b"%PDF-1.4\n" + bytes(33000 - 9))' > "$feeds/pdf/zine-42.pdf"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$feeds" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break; sleep 0.1; done
subscribed=$(clean_env "$bin" subscribe "http://127.0.0.1:$port/feed.rss" --name zine 2>&1) || fail "subscribing to an RSS feed: $subscribed"
grep -q "Zine Weekly, 2 issues (RSS 2.0)" <<<"$subscribed" || fail "the RSS feed was not read: $subscribed"
kill $server; wait $server 2>/dev/null || true
offline=$(clean_env "$bin" list --offline --subscription zine 2>&1) || fail "the cached feed does not list offline: $offline"
grep -q "zine-42" <<<"$offline" || fail "the cached feed lost its issues: $offline"
ok "an RSS feed over HTTP subscribes, is cached, and lists offline"

# The manual: found on a MANPATH, every section, every command, and groff has nothing to say.
page=$(MANPATH="$prefix/share/man" MANWIDTH=100 man -P cat newsstand 2>"$work/man.err")
for section in NAME SYNOPSIS DESCRIPTION ENVIRONMENT FILES "EXIT STATUS" EXAMPLES "SEE ALSO"; do
    grep -q "^$section\$" <<<"$page" || fail "the manual has no $section section"
done
for command in shelf list refresh download covers open delete subscribe unsubscribe subscriptions login browse search mark usage sync; do
    grep -q "^ *$command\b" <<<"$page" || fail "the manual does not describe $command"
done
grep -q "^ *75 *Another sync is running" <<<"$page" || fail "the manual's exit statuses: $(grep -A30 '^EXIT STATUS' <<<"$page")"
warnings=$(MANWIDTH=100 man --warnings -l -P cat "$prefix/share/man/man1/newsstand.1" 2>&1 >/dev/null || true)
[ -z "$warnings" ] || fail "groff warns about the manual: $warnings"
ok "man newsstand: $(wc -l <<<"$page") lines, all sections, no groff warnings"

# Completions, each loaded the way its shell finds vendor completions under a data folder.
words=$(XDG_DATA_DIRS="$prefix/share:/usr/share" bash -c '
    source /usr/share/bash-completion/bash_completion
    _completion_loader newsstand
    COMP_WORDS=(newsstand sub); COMP_CWORD=1; COMP_LINE="newsstand sub"; COMP_POINT=${#COMP_LINE}
    _newsstand newsstand sub newsstand
    printf "%s\n" "${COMPREPLY[@]}"')
[ "$(sort <<<"$words" | tr '\n' ' ')" = "subscribe subscriptions " ] || fail "bash completes 'newsstand sub' to: $words"
options=$(XDG_DATA_DIRS="$prefix/share:/usr/share" bash -c '
    source /usr/share/bash-completion/bash_completion
    _completion_loader newsstand
    COMP_WORDS=(newsstand list --j); COMP_CWORD=2; COMP_LINE="newsstand list --j"; COMP_POINT=${#COMP_LINE}
    _newsstand newsstand --j list
    printf "%s\n" "${COMPREPLY[@]}"')
grep -qx -- "--json" <<<"$options" || fail "bash completes 'newsstand list --j' to: $options"
ok "bash completes commands and options"
# fish autoloads a completion only for a command it finds on PATH (and sets its search path only
# with its configuration read, so no --no-config; HOME is empty).
words=$(XDG_DATA_DIRS="$prefix/share:/usr/share" HOME="$work/home" PATH="$prefix/bin:/usr/bin:/bin" fish -c 'complete -C "newsstand sub"' | cut -f1 | sort | tr '\n' ' ')
[ "$words" = "subscribe subscriptions " ] || fail "fish completes 'newsstand sub' to: $words"
ok "fish completes commands"
registered=$(HOME="$work/home" zsh -f -c "fpath=($prefix/share/zsh/site-functions \$fpath); autoload -U compinit; compinit -u -d $work/zcompdump; print -r -- \$_comps[newsstand]")
[ "$registered" = "_newsstand" ] || fail "zsh does not register the completion: '$registered'"
zsh -n "$prefix/share/zsh/site-functions/_newsstand" || fail "the zsh completion does not parse"
ok "zsh registers _newsstand"

# The systemd units name the installed binary and pass systemd's own check.
grep -qx "ExecStart=$bin sync" "$prefix/share/systemd/user/newsstand-sync.service" || fail "ExecStart: $(grep ExecStart "$prefix/share/systemd/user/newsstand-sync.service")"
verify=$(systemd-analyze verify "$prefix/share/systemd/user/newsstand-sync.service" "$prefix/share/systemd/user/newsstand-sync.timer" 2>&1) \
    || fail "systemd-analyze: $verify"
[ -z "$verify" ] || fail "systemd-analyze: $verify"
ok "systemd-analyze verifies the service and the timer"

desktop=$prefix/share/applications/newsstand.desktop
desktop-file-validate "$desktop" || fail "desktop-file-validate"
grep -qx "Terminal=true" "$desktop" && grep -qx "Exec=$bin shelf" "$desktop" || fail "desktop entry: $(cat "$desktop")"
ok "the desktop entry validates and runs the shelf in a terminal"

# DESTDIR stages under another root, and what is inside names the final place.
make --no-print-directory install-files DESTDIR="$work/stage" PREFIX=/usr/local >/dev/null
[ -x "$work/stage/usr/local/bin/newsstand" ] || fail "DESTDIR: no staged binary"
[ "$(find "$work/stage" -mindepth 1 -maxdepth 1)" = "$work/stage/usr" ] || fail "DESTDIR: files outside usr/"
grep -qx "ExecStart=/usr/local/bin/newsstand sync" "$work/stage/usr/local/share/systemd/user/newsstand-sync.service" || fail "DESTDIR leaked into the unit"
if grep -rq "$work/stage" "$work/stage"; then fail "DESTDIR leaked into an installed file"; fi
ok "DESTDIR stages the same files for PREFIX=/usr/local"

make --no-print-directory uninstall PREFIX="$prefix" >/dev/null
left=$(find "$prefix" -type f)
[ -z "$left" ] || fail "uninstall left: $left"
ok "uninstall removes every installed file"
echo "test-install: $checks checks passed"
