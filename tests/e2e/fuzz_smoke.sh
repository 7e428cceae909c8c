#!/usr/bin/env bash
# Fuzz smoke run (part of `make test`): builds the libFuzzer targets of fuzz/
# with clang (ASan + UBSan) in their own build directory beside the test
# build, replays every regression input in tests/fuzz/<target>/ (inputs that
# once crashed a parser), then fuzzes each target for a few seconds from its
# seeds (fuzz/corpora.txt). Any crash, leak, UB report or timeout fails.
# The long campaign is bench/benchlib/fuzz.py (bash bench/run.sh --only fuzz).
set -euo pipefail
: "${SOURCE_DIR:?}" "${BUILD_DIR:?}"
SECONDS_PER_TARGET=${FUZZ_SMOKE_SECONDS:-3}
FB="$BUILD_DIR/fuzz-smoke"
T=$(mktemp -d /tmp/espbench-fuzz.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

command -v clang >/dev/null || fail "clang is not installed: run 'bash scripts/install-deps.sh --test' (make test does)"
CC=clang cmake -S "$SOURCE_DIR" -B "$FB" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DESPBENCH_FUZZ=ON -DESPBENCH_WERROR=ON \
    -DESPBENCH_TESTS=OFF >"$T/cmake.log" 2>&1 || { cat "$T/cmake.log"; fail "configuring the fuzz build"; }
cmake --build "$FB" -j"$(nproc)" --target fuzz >"$T/build.log" 2>&1 || { tail -30 "$T/build.log"; fail "building the fuzz targets"; }

export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
n=0
while read -r target seeds; do
    case $target in ''|'#'*) continue ;; esac
    exe="$FB/fuzz/fuzz_$target"
    [ -x "$exe" ] || fail "$exe was not built"
    reg="$SOURCE_DIR/tests/fuzz/$target"
    if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
        "$exe" -timeout=10 "$reg"/* >"$T/$target.replay.log" 2>&1 ||
            { tail -40 "$T/$target.replay.log"; fail "$target: a regression input in tests/fuzz/$target crashes again"; }
    fi
    dirs=()
    for d in $seeds; do dirs+=("$SOURCE_DIR/$d"); done
    mkdir -p "$T/corpus-$target"
    "$exe" "$T/corpus-$target" "${dirs[@]}" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$T/$target-" >"$T/$target.log" 2>&1 ||
        { tail -40 "$T/$target.log"; fail "$target: crash while fuzzing (input: $(ls "$T/$target-"* 2>/dev/null))"; }
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/$target.log")
    echo "ok $target: $execs executions, $(grep -o 'cov: [0-9]*' "$T/$target.log" | tail -1)"
    n=$((n + 1))
done <"$SOURCE_DIR/fuzz/corpora.txt"
[ "$n" -ge 9 ] || fail "only $n fuzz targets ran"
echo "fuzz smoke: $n targets ok"
