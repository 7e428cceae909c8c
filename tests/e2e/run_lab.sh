#!/usr/bin/env bash
# `run --lab`: two boards of a lab file run concurrently (here two virtual
# boards, each with its own address and iperf port) and give the same matrix
# as when run one after the other; `--shard i/N` slices the matrix so that the
# shards together cover it exactly once.
source "$(dirname "$0")/lib/run_helpers.sh"
export ESPBENCH_WIFI_PASSWORD=espbench-sim-wpa2   # the virtual AP's password (docs/run.md)
LAB="$FIXTURES_DIR/lab/two-sims.yaml"
RUN=(run --lab "$LAB" --sim --tier iperf --tests tcp_tx,udp_rx --duration 2 --interval 1 --warmup 0)

expect_rc 0 timeout 240 "$ESPBENCH" "${RUN[@]}" --out "$T/both"
has "4 tests done, 0 skipped, 0 failed of 4"
json_check "$T/both" '[b["board"] for b in r["boards"]] == ["bench-esp32", "bench-s3"] or [b["board"] for b in r["boards"]] == ["bench-s3", "bench-esp32"]'
json_check "$T/both" '[(e["board"], e["test"]) for e in r["entries"]] == [("bench-esp32", "tcp_tx"), ("bench-esp32", "udp_rx"), ("bench-s3", "tcp_tx"), ("bench-s3", "udp_rx")]'
shaped_check "$T/both"
json_check "$T/both" 'len({b["board_ip"] for b in r["boards"]}) == 2'
grep -q -- "-p 5201 " "$T/both/iperf-bench-esp32-iperf-tcp_tx-r0.log" || fail "bench-esp32 iperf port"
grep -q -- "-p 5202 " "$T/both/iperf-bench-s3-esp32s3-iperf-tcp_tx-r0.log" || fail "bench-s3 iperf port"

# One board after the other (--chip picks a lab board) gives the same cells.
expect_rc 0 timeout 240 "$ESPBENCH" "${RUN[@]}" --chip esp32 --out "$T/seq"
json_check "$T/seq" '[(e["board"], e["test"]) for e in r["entries"]] == [("bench-esp32", "tcp_tx"), ("bench-esp32", "udp_rx")]'

# Shards of a four-cell matrix on one board: disjoint, together complete.
for i in 1 2; do
    expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --sim --tier iperf,default --tests tcp_tx,udp_rx \
        --duration 1 --interval 1 --warmup 0 --shard $i/2 --out "$T/shard$i"
done
python3 - "$T/shard1/results.json" "$T/shard2/results.json" <<'PY' || fail "shards overlap or miss cells"
import json, sys
keys = [sorted((e["tier"], e["test"]) for e in json.load(open(f))["entries"]) for f in sys.argv[1:]]
assert not set(keys[0]) & set(keys[1]) and keys[0] and keys[1], keys
assert sorted(keys[0] + keys[1]) == sorted((t, x) for t in ("iperf", "default") for x in ("tcp_tx", "udp_rx")), keys
PY
echo ok
