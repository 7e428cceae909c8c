#!/usr/bin/env bash
# ESP-Hosted pairs in a lab file: a board's coprocessor:/transport: make it
# a pair (its host chip runs the pair's tiers, every entry records the
# co-processor and transport) beside a board with its own radio; a lab of
# pairs only gets the guide's six tests. Bad lab input: one line with
# FILE:LINE:COL, exit 2, nothing started.
source "$(dirname "$0")/lib/run_helpers.sh"
export ESPBENCH_WIFI_PASSWORD=espbench-sim-wpa2   # the virtual AP's password (docs/run.md)
L="$FIXTURES_DIR/lab"

# A pair beside a plain board: the four iperf tests on both.
OUT="$T/mixed"
expect_rc 0 timeout 240 "$ESPBENCH" run --lab "$L/hosted-mixed.yaml" --sim --tier default --duration 2 --interval 1 \
    --warmup 0 --out "$OUT"
has "8 tests done, 0 skipped, 0 failed of 8"
has "p4-c6 esp32p4/default tcp_tx mean"
has ", no published figure"     # the pair's iperf figures are the pair model's, with no docs figure
has "speaks iperf-cmd-0.1"        # the pair's host runs the stock iperf example
json_check "$OUT" 'sorted((e["board"], e["test"]) for e in r["entries"]) == sorted((b, t) for b in ("p4-c6", "s3")
                   for t in ("tcp_tx", "tcp_rx", "udp_tx", "udp_rx"))'
json_check "$OUT" 'all((e["provenance"]["coprocessor"], e["provenance"]["transport"]) ==
                      (("esp32c6", "sdio") if e["board"] == "p4-c6" else (None, None)) for e in r["entries"])'
json_check "$OUT" 'all(e["figure_source"] == ("model 1" if e["board"] == "p4-c6" else "published") for e in r["entries"])'
# The plain board is the published S3 tier; the pair runs under its transport's payload rate.
shaped_check "$OUT" 'only=e["board"] == "s3"'
shaped_check "$OUT" 'only=e["board"] == "p4-c6"' 'ok=0 < v < 80'
# The images a real pair is flashed with, named by host chip; the plain board runs the espbench firmware.
for f in esp32p4-default.bin esp32p4-guide.bin esp32p4-raw_tx.bin esp32p4-raw_rx.bin esp32c6.bin; do
    [ -s "$OUT/hosted-fw/$f" ] || fail "hosted-fw/$f missing"
done

# Together into one AP (--aggregate): the pair and the S3 start each test at once.
OUT="$T/together"
expect_rc 0 timeout 240 "$ESPBENCH" run --lab "$L/hosted-mixed.yaml" --sim --tier default --tests tcp_tx --aggregate \
    --duration 2 --interval 1 --warmup 0 --out "$OUT"
has "2 tests done, 0 skipped, 0 failed of 2"
json_check "$OUT" 'all(e["provenance"]["concurrent_boards"] == 2 for e in r["entries"])'

# A lab of one pair: the guide's six tests, raw transport both ways.
cat >"$T/one-pair.yaml" <<YAML
ap: {ssid: espbench-sim, password_env: ESPBENCH_WIFI_PASSWORD}
pc: {address: 127.0.0.1}
boards:
  - {name: p4-c5, chip: esp32p4, port: /dev/ttyUSB0, iperf_port: 5231, coprocessor: esp32c5}
YAML
OUT="$T/pair"
expect_rc 0 timeout 240 "$ESPBENCH" run --lab "$T/one-pair.yaml" --sim --tier guide --duration 2 --interval 1 \
    --warmup 0 --out "$OUT"
has "6 tests done, 0 skipped, 0 failed of 6"
json_check "$OUT" 'sorted(e["test"] for e in r["entries"]) == ["raw_rx", "raw_tx", "tcp_rx", "tcp_tx", "udp_rx", "udp_tx"]'
json_check "$OUT" 'all(e["provenance"]["coprocessor"] == "esp32c5" and e["provenance"]["transport"] == "sdio"
                      for e in r["entries"])'

# bad WANT_TEXT ARGS...: exit 2, exactly one stderr line holding WANT_TEXT, no results.
bad() {
    local want=$1 rc=0
    shift
    mkdir -p "$T/bad"
    (cd "$T/bad" && exec timeout 240 "$ESPBENCH" "$@") >"$T/out" 2>"$T/err" || rc=$?
    [ "$rc" = 2 ] || { cat "$T/err" >&2; fail "exit $rc, wanted 2: $*"; }
    [ "$(grep -vc '^starting a virtual' "$T/err")" = 1 ] || { cat "$T/err" >&2; fail "not one line: $*"; }
    grep -qF -- "$want" "$T/err" || { cat "$T/err" >&2; fail "stderr lacks '$want': $*"; }
    [ -z "$(find "$T/bad" -name results.json)" ] || fail "results left behind: $*"
}
bad "hosted-bad-transport.yaml:10:5: board 'p4': transport belongs to an ESP-Hosted pair: add coprocessor: CHIP" \
    run --lab "$L/hosted-bad-transport.yaml" --sim --tier default
bad "hosted-bad-cp.yaml:10:18: board 'p4': coprocessor: esp32s3: no ESP-Hosted pair profile with host esp32p4 (co-processors: esp32c2, esp32c3, esp32c5, esp32c6, esp32c61, esp32s2)" \
    run --lab "$L/hosted-bad-cp.yaml" --sim --tier default
bad "hosted-pairs.yaml:18:18: boards 'p4-c6' and 'p4-c5' are both esp32p4 hosts, with different co-processors or transports: a run gives a host chip one pair's tiers; run them in two runs (one lab file each)" \
    run --lab "$L/hosted-pairs.yaml" --sim --tier default
bad "--tests raw_tx/raw_rx measure an ESP-Hosted transport: lab board 's3' has no coprocessor:; run the pairs in a lab file of their own" \
    run --lab "$L/hosted-mixed.yaml" --sim --tier default --tests raw_tx
cat >"$T/peer.yaml" <<YAML
ap: {ssid: espbench-sim, password_env: ESPBENCH_WIFI_PASSWORD}
pc: {address: 127.0.0.1}
boards:
  - {name: p4-c6, chip: esp32p4, port: /dev/ttyUSB0, coprocessor: esp32c6, peer: {chip: esp32c3}}
YAML
bad "peer.yaml:4:67: board 'p4-c6': a board-to-board test (peer:) takes boards with their own radio, not an ESP-Hosted pair: drop coprocessor: or peer:" \
    run --lab "$T/peer.yaml" --sim --tier default
echo ok
