# espbench parse on reused logs, through the CLI: the unit-base warning on
# stderr and --unit-base settling it, the log's own summary beside the
# converted one, a server that waited for its client, bytes that are not
# UTF-8 in a banner (the JSON and CSV load in Python; the log keeps them),
# and a 1 GB log refused before it is read.
set -eu
B="$FIXTURES_DIR/logs/board"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

L="$B/idf-v5.1_esp32c3_collapsed_mode.log"
"$ESPBENCH" parse -o "$T/c.json" "$L" >"$T/out" 2>"$T/err"
grep -qF "espbench parse: warning: $L:7: ESP-IDF v5.1.2 prints Mbits of 2^20 bits, but $L:9 has the <= v5.0 mode= layout" "$T/err"
grep -qF "log's summary 37.93 Mbits/sec = 39.77 Mbit/s" "$T/out"
grep -qE '^tcp_rx +ok +9 +0 +40\.00 ' "$T/out"
"$ESPBENCH" parse --unit-base 1e6 -o "$T/c1.json" "$L" >"$T/out" 2>"$T/err"
! grep -q warning "$T/err"
grep -qE '^tcp_rx +ok +9 +0 +38\.15 ' "$T/out"
"$ESPBENCH" parse --dialect idf-v5.1 -o "$T/c2.json" "$L" >"$T/out" 2>"$T/err"
! grep -q warning "$T/err"
if "$ESPBENCH" parse --unit-base 1024 "$L" >/dev/null 2>"$T/err"; then exit 1; fi
grep -qF -- "--unit-base '1024': 1e6 or 2^20" "$T/err"

"$ESPBENCH" parse -o "$T/w.json" "$B/idf-v4.2_esp32_server_waited.log" >"$T/out" 2>"$T/err"
grep -qF "idf-v4.2_esp32_server_waited.log:23: the receiver reported only 63.0 s of the 1000 s of tcp_rx" "$T/out"
[ "$(grep -c '^tcp_rx' "$T/out")" = 1 ]

"$ESPBENCH" parse -o "$T/u.json" "$B/idf-v4.4_esp32_banner_bytes.log" >/dev/null 2>&1
"$ESPBENCH" report --format csv "$T/u.json" >"$T/u.csv"
python3 - "$T/u.json" "$T/u.csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert d["boards"][0]["fw_project"] == "iperf\ufffd\ufffd", d["boards"][0]["fw_project"]
open(sys.argv[2], encoding="utf-8").read()
PY
head -c 2 "$B/idf-v4.4_esp32_banner_bytes.log" | od -An -tx1 | grep -q "ff fe"

truncate -s 1G "$T/big.log"
if "$ESPBENCH" parse -o "$T/big.json" "$T/big.log" 2>"$T/err"; then exit 1; fi
grep -qF "$T/big.log: 1024 MB, larger than 256 MB; not a console or iperf log? (split a longer one)" "$T/err"
echo ok
