#!/usr/bin/env bash
# Round trips under load (run --latency-under-load) against the virtual board:
# the UDP echo probes run beside each throughput test and are recorded as a
# latency set tagged with that test, beside the idle latency test's set;
# results.json matches the schema, the report's latency table has a Load
# column (idle and the test). Structure only: no figure or duration is
# asserted (the vboard's model of the wait behind iperf's traffic and of
# modem sleep is docs/dimensions.md's; bench/ measures).
source "$(dirname "$0")/lib/run_helpers.sh"

OUT="$T/load"
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32c3 --tier iperf --sim --tests latency,tcp_rx \
    --latency-under-load --latency-count 5 --power-save min-modem --duration 2 --interval 1 --warmup 0 --out "$OUT"
has "2 tests done, 0 skipped, 0 failed of 2"
json_check "$OUT" 'len(r["entries"]) == 1 and len(r["latency"]) == 2'
json_check "$OUT" 'sorted(l.get("under_load", "") for l in r["latency"]) == ["", "tcp_rx"]'
json_check "$OUT" 'all(l["method"] == "udp-echo" and l["status"] == "ok" and l["sent"] == 5 for l in r["latency"])'
# the loaded set carries the throughput entry's point (power save) and board facts
json_check "$OUT" '[l for l in r["latency"] if l.get("under_load")][0]["provenance"]["radio_power_save"] == "min_modem"'
json_check "$OUT" '[l for l in r["latency"] if l.get("under_load")][0]["tier"] == r["entries"][0]["tier"]'
ls "$OUT"/latency-*tcp_rx*.log >/dev/null 2>&1 || fail "no log of the loaded probes"
python3 "$SOURCE_DIR/tests/e2e/report_schema_check.py" "$SOURCE_DIR/docs/results-schema.json" "$OUT/results.json"
"$ESPBENCH" report "$OUT/results.json" --format md >"$T/report.md"
grep -q '|Load|' "$T/report.md" || { cat "$T/report.md"; fail "report lacks the Load column"; }
grep -q '|idle|udp-echo|' "$T/report.md" || fail "no idle row"
grep -q '|tcp_rx|udp-echo|' "$T/report.md" || fail "no row under tcp_rx"

# A peer board's traffic has no PC prober: refused up front, one line, exit 2.
expect_rc 2 "$ESPBENCH" run --chip esp32c3 --sim --peer-chip esp32c3 --tests tcp_tx --latency-under-load --out "$T/bad"
has "--latency-under-load probes round trips from the PC"
# Under load needs a load: the idle latency test alone is refused, one line, exit 2, no folder.
expect_rc 2 "$ESPBENCH" run --chip esp32c3 --sim --tests latency --latency-under-load --out "$T/idle"
[ "$(cat "$T/last.out")" = "espbench run: --latency-under-load probes round trips beside a throughput test, and --tests has none (latency alone is the idle test): add tcp_tx, tcp_rx, udp_tx or udp_rx, or drop --latency-under-load; see 'espbench help run'" ] ||
    fail "unexpected: $(cat "$T/last.out")"
[ ! -e "$T/idle" ] || fail "a folder for a refused run"
echo "PASS"
