#!/usr/bin/env bash
# `espbench parse` reads ESP-Hosted's raw transport throughput report (no
# flags): the host's stats.c lines (kbit of 1024 bits) and the eh_raw_tp
# port's (1000 bits), golden transcripts.
source "$(dirname "$0")/lib/run_helpers.sh"
expect_rc 0 "$ESPBENCH" parse "$FIXTURES_DIR/hosted/raw_tp_stats_float.log" -o "$T/float.json"
has "1 entries from 1 logs"
python3 - "$T/float.json" <<'PY' || fail "stats.c report"
import json, sys
e = json.load(open(sys.argv[1]))["entries"]
assert [x["test"] for x in e] == ["raw_tx"], e
iv = e[0]["intervals"]["receiver"]
# 70312.50 kbps x 1024 = 72.0 Mbit/s; the first interval is the warm-up.
assert [round(i["mbps"], 3) for i in iv] == [72.0, 72.1, 72.05], iv
assert abs(e[0]["mean_mbps"] - 72.075) < 1e-5, e[0]["mean_mbps"]
PY
expect_rc 0 "$ESPBENCH" parse --warmup 0 "$FIXTURES_DIR/hosted/raw_tp_eh_int.log" -o "$T/eh.json"
python3 - "$T/eh.json" <<'PY' || fail "eh_raw_tp report"
import json, sys
e = json.load(open(sys.argv[1]))["entries"]
assert [x["test"] for x in e] == ["raw_rx"], e
# Kbps of 1000 bits, 2-second intervals: (80.112 + 79.85) / 2.
assert abs(e[0]["mean_mbps"] - 79.981) < 1e-6 and e[0]["settings"]["interval_s"] == 2, e[0]
PY
echo ok
