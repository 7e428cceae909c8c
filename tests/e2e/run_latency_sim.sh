#!/usr/bin/env bash
# The latency test (run --tests latency) against the virtual board:
#  - the espbench firmware serves UDP echo: the round trips are the link's
#    modelled RTT (--sim-rtt, and per point of an rtt sweep);
#  - stock firmware serves none: espbench pings the board's address with the
#    system's ping (a real ICMP round trip, here the kernel's loopback), and
#    forcing UDP echo there gets no reply (a failed test with its figures);
#  - finished latency tests are kept by --resume.
source "$(dirname "$0")/lib/run_helpers.sh"

# --- espbench firmware: UDP echo at the modelled RTT, next to a throughput test.
OUT="$T/echo"
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf --sim --sim-rtt 20 --tests latency,tcp_tx \
    --latency-count 10 --duration 2 --interval 1 --warmup 0 --out "$OUT"
has "latency udp-echo 10/10 replies"
has "2 tests done, 0 skipped, 0 failed of 2"
json_check "$OUT" 'len(r["latency"]) == 1 and len(r["entries"]) == 1'
json_check "$OUT" 'r["latency"][0]["method"] == "udp-echo" and r["latency"][0]["status"] == "ok"'
json_check "$OUT" 'r["latency"][0]["target"] == r["boards"][0]["board_ip"]'
json_check "$OUT" 'r["latency"][0]["sent"] == 10 and r["latency"][0]["received"] == 10 and r["latency"][0]["loss_pct"] == 0'
# The modelled 20 ms is the least a reply takes; how much a busy machine adds is not asserted
# (a duration: bench/'s).
json_check "$OUT" '20 <= r["latency"][0]["min_ms"] <= r["latency"][0]["avg_ms"] <= r["latency"][0]["p99_ms"] <= r["latency"][0]["max_ms"]'
json_check "$OUT" 'r["latency"][0]["provenance"]["idf_version"] is not None'
grep -q "^reply 10 time=" "$OUT/latency-sim-esp32-iperf-r0.log" || fail "echo log"
python3 "$SOURCE_DIR/tests/e2e/report_schema_check.py" "$SOURCE_DIR/docs/results-schema.json" "$OUT/results.json"
# The report's latency table: one row, the runs' figures.
"$ESPBENCH" report "$OUT/results.json" --format md >"$T/report.md"
grep -q "^### Latency" "$T/report.md" || fail "report lacks the latency table"
grep -Eq '^\|Iperf\|udp-echo\|1\|10/10\|0\.0\|[0-9]+\.[0-9]{2}\|' "$T/report.md" || { cat "$T/report.md"; fail "latency row"; }

# --resume keeps the finished latency test.
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf --sim --sim-rtt 20 --tests latency,tcp_tx \
    --latency-count 10 --duration 2 --interval 1 --warmup 0 --out "$OUT" --resume
has "latency: done before, skipped"
has "0 tests done, 2 skipped"

# --- an rtt sweep: one latency test per point, each at its point's RTT.
OUT="$T/sweep"
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf --sim --sweep rtt=5,40 --tests latency \
    --latency-count 5 --out "$OUT"
json_check "$OUT" 'sorted(l["provenance"]["sweep_value"] for l in r["latency"]) == [5, 40]'
json_check "$OUT" 'all(l["status"] == "ok" and l["provenance"]["sweep_value"] <= l["min_ms"] <= l["avg_ms"] for l in r["latency"])'

# --- stock firmware (ESP-IDF v5.3 iperf example): ICMP through the system's ping.
mkdir -p "$T/fw"
"$VBOARD" mkimage --chip esp32 --project iperf --idf v5.3 --version iperf -o "$T/fw/iperf.bin" >/dev/null
python3 - "$T/fw" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
sha = hashlib.sha256(open(d + "/iperf.bin", "rb").read()).hexdigest()
m = {"schema": 1, "firmware": {"iperf-example": {"chips": {"esp32": {"tiers": {
    "iperf": {"images": [{"offset": "0x10000", "file": "iperf.bin", "sha256": sha}]}}}}}}}
json.dump(m, open(d + "/manifest.json", "w"))
PY
OUT="$T/icmp"
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf --sim --sim-project iperf --sim-idf v5.3 \
    --manifest "$T/fw/manifest.json" --tests latency --latency-count 5 --out "$OUT"
has "latency icmp 5/5 replies"
# Flashing the tier's image over the virtual board's own pty: no DTR/RTS notice for it.
! grep -q "DTR/RTS" "$T/last.out" || fail "the virtual board's pty drew a DTR/RTS notice"
json_check "$OUT" 'r["latency"][0]["method"] == "icmp" and r["latency"][0]["received"] == 5'
grep -q "5 packets transmitted, 5 received" "$OUT/latency-sim-esp32-iperf-r0.log" || fail "ping log"
# The kernel answers on loopback (no model here): the figures are the ones ping printed.
python3 - "$OUT/results.json" "$OUT/latency-sim-esp32-iperf-r0.log" <<'PY' || fail "latency figures differ from ping's summary"
import json, re, sys
l = json.load(open(sys.argv[1]))["latency"][0]
mn, avg, mx = (float(x) for x in re.search(r"rtt min/avg/max/mdev = ([\d.]+)/([\d.]+)/([\d.]+)/", open(sys.argv[2]).read()).groups())
assert (l["min_ms"], l["avg_ms"], l["max_ms"]) == (mn, avg, mx), (l, mn, avg, mx)
PY

# The stock example serves no UDP echo: forcing it finds nobody answering (a failed test: exit 3).
OUT="$T/noecho"
expect_rc 3 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf --sim --sim-project iperf --sim-idf v5.3 \
    --manifest "$T/fw/manifest.json" --tests latency --latency-count 3 --latency-method udp-echo --out "$OUT"
has "latency FAILED: no reply to 3 udp-echo probes from 127."
json_check "$OUT" 'r["latency"][0]["status"] == "failed" and r["latency"][0]["loss_pct"] == 100 and r["latency"][0]["avg_ms"] is None'
python3 "$SOURCE_DIR/tests/e2e/report_schema_check.py" "$SOURCE_DIR/docs/results-schema.json" "$OUT/results.json"

# Bad input: one line, exit 2.
expect_rc 2 "$ESPBENCH" run --chip esp32 --sim --tests latency --latency-method tcp --out "$T/bad"
has "--latency-method 'tcp': expected udp-echo or icmp"
expect_rc 2 "$ESPBENCH" run --chip esp32 --sim --tests latency,jitter --out "$T/bad"
has "unknown test 'jitter' (tcp_tx, tcp_rx, udp_tx, udp_rx, latency, raw_tx, raw_rx)"
echo "PASS"
