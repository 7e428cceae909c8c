#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, moved elsewhere afterwards, with
# the source and build trees hidden (a private mount namespace puts empty
# folders over them): the installed espbench finds its installed profiles,
# model and virtual board, runs a simulated benchmark, and ships its man pages
# and a bash completion that offers the commands and each command's options.
source "$(dirname "$0")/lib/run_helpers.sh"
: "${BUILD_DIR:?}"
unset ESPBENCH_VBOARD ESPBENCH_PROFILES ESPBENCH_MODEL

cmake --install "$BUILD_DIR" --prefix "$T/first" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "cmake --install"; }
mv "$T/first" "$T/prefix"   # relocated: nothing may point at the prefix it was installed to
P=$T/prefix
for f in bin/espbench bin/espbench-vboard share/espbench/profiles/esp32c3.yaml share/espbench/profiles/model/model.yaml \
         share/espbench/profiles/dialects/espbench.yaml share/espbench/profiles/hosted share/espbench/profiles/patterns \
         share/man/man1/espbench.1 share/man/man1/espbench-build.1 share/man/man1/espbench-bisect.1 share/man/man5/espbench-profiles.5 share/man/man5/espbench-patterns.5 \
         share/bash-completion/completions/espbench; do
    [ -e "$P/$f" ] || fail "not installed: $f"
done
for m in "$P"/share/man/man*/*; do
    MANWIDTH=80 man -l "$m" >/dev/null 2>"$T/man.err" || [ ! -s "$T/man.err" ] || { cat "$T/man.err"; fail "man page $m"; }
done

if ! unshare -rm true 2>/dev/null; then
    source "$(dirname "$0")/lib/skip.sh"
    skip_test "no private mount namespace here (unshare -rm): the source tree cannot be hidden"
fi
# Inside: the source and build trees are empty folders; only the prefix and $T are visible.
hidden() {
    unshare -rm bash -ec 'for d in "$BUILD_DIR" "$SOURCE_DIR"; do mount -t tmpfs none "$d"; done; "$@"' hidden "$@"
}
export SOURCE_DIR BUILD_DIR
expect_rc 0 hidden ls "$SOURCE_DIR"
[ ! -s "$T/last.out" ] || fail "the source tree is still visible: $(head -3 "$T/last.out")"
expect_rc 0 hidden "$P/bin/espbench" profiles list
has "esp32c3    ESP32-C3"
has "dialects/espbench.yaml"
expect_rc 0 hidden "$P/bin/espbench" predict --chip esp32c3 --tier iperf
expect_rc 0 hidden "$P/bin/espbench" run --chip esp32c3 --tier iperf --sim --duration 2 --out "$T/run"
has "4 tests done, 0 skipped, 0 failed of 4"
json_check "$T/run" 'len(r["entries"]) == 4 and all(e["status"] == "ok" for e in r["entries"])'

# The completion: every command of `espbench --help`, and `run`'s options from its help.
complete_words() { # LINE...: what <TAB> offers after the words (the last one being completed)
    bash -c 'source "$1/share/bash-completion/completions/espbench"; shift
             COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _espbench; printf "%s\n" "${COMPREPLY[@]}"' c "$P" "$@"
}
PATH=$P/bin:$PATH
cmds=$("$P/bin/espbench" --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
[ "$(echo "$cmds" | wc -l)" -ge 10 ] || fail "espbench --help lists too few commands: $cmds"
got=$(complete_words espbench "")
for c in $cmds; do grep -qx "$c" <<<"$got" || fail "completion lacks the command $c"; done
[ "$(complete_words espbench ru)" = run ] || fail "espbench ru<TAB>: $(complete_words espbench ru)"
got=$(complete_words espbench run --pe)
[ "$got" = "$(printf -- '--peer-chip\n--peer-port\n--peer-tier\n--performance-lines')" ] || fail "espbench run --pe<TAB>: $got"
complete_words espbench run --chip esp32 --tier "" | grep -x psram-iperf >/dev/null || fail "no tiers of --chip esp32 offered"
complete_words espbench run --chip esp32c | grep -x esp32c3 >/dev/null || fail "no chips offered for --chip"
echo ok
