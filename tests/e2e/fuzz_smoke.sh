#!/usr/bin/env bash
# Fuzz smoke test (part of `make test`): every fuzz target's entry point,
# built by the test build with AddressSanitizer and UBSan and a plain main
# (tests/fuzz/replay_main.c), replays the inputs that once crashed a parser
# (tests/fuzz/<target>/) and the target's seeds (fuzz/corpora.txt: fixtures,
# profiles, generated protocol streams). A crash, leak or UB report fails.
# Fuzzing itself -- random inputs for a while, with libFuzzer and clang -- is
# the bench's `fuzz` section (bash bench/run.sh --only fuzz): its outcome
# depends on time and luck, so it is measured there, not asserted here.
set -euo pipefail
: "${SOURCE_DIR:?}" "${BUILD_DIR:?}"
T=$(mktemp -d /tmp/espbench-fuzz.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
n=0
while read -r target seeds; do
    case $target in ''|'#'*) continue ;; esac
    exe="$BUILD_DIR/tests/fuzz_replay_$target"
    [ -x "$exe" ] || fail "$exe was not built (fuzz/fuzz_$target.c)"
    reg="$SOURCE_DIR/tests/fuzz/$target"
    if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
        "$exe" "$reg" >"$T/$target.replay.log" 2>&1 ||
            { tail -40 "$T/$target.replay.log"; fail "$target: a regression input in tests/fuzz/$target crashes again"; }
    fi
    dirs=()
    for d in $seeds; do dirs+=("$SOURCE_DIR/$d"); done
    "$exe" "${dirs[@]}" >"$T/$target.log" 2>&1 ||
        { tail -40 "$T/$target.log"; fail "$target: a seed input crashes the target"; }
    echo "ok $(tail -1 "$T/$target.log")"
    n=$((n + 1))
done <"$SOURCE_DIR/fuzz/corpora.txt"
[ "$n" -ge 11 ] || fail "only $n fuzz targets ran"
echo "fuzz smoke: $n targets ok"
