# run --parallel (iperf's -P as a dimension, docs/dimensions.md "iperf
# options"): a board's console iperf has no -P for both ends of a test (the
# espbench firmware's `iperf` has none; Espressif's iperf-cmd only as a
# client), so more than one stream is refused before anything starts, with
# one line naming the board, the end and the value, exit 2, and no results
# folder; one stream is the default: passed to no end, no key of its own.
set -euo pipefail
: "${ESPBENCH:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
expect_fail() { # want-message args...
    local want=$1; shift
    set +e; "$ESPBENCH" run "$@" > /dev/null 2> "$T/err.txt"; local rc=$?; set -e
    [ "$rc" = 2 ] || { echo "expected exit 2, got $rc: $*"; cat "$T/err.txt"; exit 1; }
    [ "$(cat "$T/err.txt")" = "$want" ] || { echo "expected: $want"; cat "$T/err.txt"; exit 1; }
}
NO_P="the board's console iperf has no -P for both ends of a test (docs/dimensions.md, \"iperf options\"); see 'espbench help run'"
expect_fail "espbench run: board sim: the board end cannot take --parallel 4: $NO_P" \
    --chip esp32 --sim --tests tcp_tx --parallel 4 --out "$T/p4"
[ ! -e "$T/p4" ]
expect_fail "espbench run: board sim: the board end cannot take --parallel 2: $NO_P" \
    --chip esp32 --sim --tests tcp_rx --parallel 1,2 --out "$T/p12"
expect_fail "espbench run: board sim: the board end cannot take --parallel 2: $NO_P" \
    --chip esp32 --sim --tests udp_tx --sweep parallel=1:2:1 --out "$T/sw"
expect_fail "espbench run: --parallel 0: '0' is not a whole number in 1..16 streams; see 'espbench help run'" \
    --chip esp32 --sim --parallel 0

"$ESPBENCH" run --chip esp32 --tier iperf --sim --tests tcp_rx --parallel 1 --duration 2 \
    --out "$T/one" > "$T/one.log" 2>&1 || { cat "$T/one.log"; exit 1; }
grep -q "1 tests done, 0 skipped, 0 failed of 1" "$T/one.log"
! grep -q -- " -P" "$T"/one/iperf-*.log "$T/one/console-sim-esp32.log"
! grep -q "iperf_parallel" "$T/one/results.json" "$T/one/results.csv"
