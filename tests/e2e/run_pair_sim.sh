#!/usr/bin/env bash
# Board to board under --sim: two virtual boards (an ESP32 and an ESP32-C3 as
# its peer) test each other over loopback with no PC in the data path. Each
# side is shaped by its own chip and tier (the figure is then the slower
# end's; how close it comes is the bench's to measure): in a *_tx test the
# ESP32 sends and the C3 receives, in a *_rx test the other way round. Results name both sides; the report has a table of
# its own; compare never pairs a board-to-board cell with a PC cell.
source "$(dirname "$0")/lib/run_helpers.sh"

OUT="$T/pair"
expect_rc 0 timeout 240 "$ESPBENCH" run --sim --chip esp32 --peer-chip esp32c3 --peer-tier minimum --tier iperf \
    --duration 3 --interval 1 --warmup 1 --out "$OUT"
has "starting a virtual esp32c3 board sim-peer (the peer)..."
has "4 tests done, 0 skipped, 0 failed of 4"
has "board to board with sim-peer (esp32c3/minimum)"
json_check "$OUT" 'len(r["entries"]) == 4 and all(e["status"] == "ok" for e in r["entries"])'
# Both sides named: chips, tiers, MACs (two different stations), the peer's address.
json_check "$OUT" '
all(e["chip"] == "esp32" and e["tier"] == "iperf" and e["provenance"]["peer_board"] == "sim-peer" and
    e["provenance"]["peer_chip"] == "esp32c3" and e["provenance"]["peer_tier"] == "minimum" and
    len(e["provenance"]["mac"]) == 17 and len(e["provenance"]["peer_mac"]) == 17 and
    e["provenance"]["mac"] != e["provenance"]["peer_mac"] and e["provenance"]["peer_ip"].startswith("127.") and
    e["provenance"]["peer_dialect"] == "espbench" and e["ref_mbps"] is None for e in r["entries"])'
json_check "$OUT" 'sorted(b["board"] for b in r["boards"]) == ["sim", "sim-peer"]'
# Both sides' intervals were recorded: the receiver's as the headline, the sender's beside them.
json_check "$OUT" 'all(len([i for i in e["intervals"]["receiver"]]) >= 3 and len(e["intervals"]["sender"]) >= 3
                       for e in r["entries"])'
# Each end is shaped as the model gives it with the pair's two transmitters on one channel
# (stations 2; every frame crosses the air twice through the AP): the ESP32 sends in
# tcp_tx/udp_tx and the C3 receives, the other way round in tcp_rx/udp_rx.
"$ESPBENCH" predict --chip esp32 --tier iperf --as-built --stations 2 --json >"$T/a.json"
"$ESPBENCH" predict --chip esp32c3 --tier minimum --as-built --stations 2 --json >"$T/b.json"
python3 - "$T/a.json" "$T/b.json" "$OUT/results.json" "$OUT" <<'PY' || fail "pair ends not shaped to their figures"
import json, re, sys
a, b, r = (json.load(open(p)) for p in sys.argv[1:4])
def shaped(name):
    text = open("%s/%s-vboard.log" % (sys.argv[4], name)).read()
    return [(t, float(v)) for t, v in re.findall(r"^vboard: iperf (\w+) shaped to (\S+) Mbit/s$", text, re.M)]
board, peer = shaped("sim"), shaped("sim-peer")
near = lambda got, t, want: any(x == t and abs(v - want) <= 0.0051 for x, v in got)  # predict: 2 decimals
for e in r["entries"]:
    t, kind = e["test"], e["test"][:4]
    assert e["status"] == "ok" and e["mean_mbps"] > 0, e
    if t.endswith("_tx"):   # the ESP32 sends, the C3 receives
        assert near(board, kind + "tx", a[kind + "tx_mbps"]) and near(peer, kind + "rx", b[kind + "rx_mbps"]), (t, board, peer)
    else:                   # the C3 sends, the ESP32 receives
        assert near(peer, kind + "tx", b[kind + "tx_mbps"]) and near(board, kind + "rx", a[kind + "rx_mbps"]), (t, board, peer)
    assert e["figure_source"].startswith("model"), e["figure_source"]
PY
# No PC iperf ran; each board's console sent its client to the other board's address.
ls "$OUT"/iperf-*.log >/dev/null 2>&1 && fail "a PC iperf2 ran in a board-to-board test"
peer_ip=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["entries"][0]["provenance"]["peer_ip"])' \
    "$OUT/results.json")
grep -q -- "-c $peer_ip" "$OUT/console-sim-esp32.log" || fail "the board's client did not go to its peer"
grep -q -- "-c 127\." "$OUT/console-sim-peer-esp32c3.log" || fail "the peer's client did not go to the board"
python3 "$SOURCE_DIR/tests/e2e/report_schema_check.py" "$SOURCE_DIR/docs/results-schema.json" "$OUT/results.json"

# The report: a table of its own, both sides named.
"$ESPBENCH" report "$OUT" --format md >"$T/report.md"
grep -q "^## Board to board" "$T/report.md" || { cat "$T/report.md"; fail "report lacks the board-to-board table"; }
grep -Eq '^\|sim\|esp32\|iperf\|([0-9a-f]{2}:){5}[0-9a-f]{2}\|sim-peer\|esp32c3\|minimum\|([0-9a-f]{2}:){5}[0-9a-f]{2}(\|[0-9.]+){4}\|$' \
    "$T/report.md" || { cat "$T/report.md"; fail "board-to-board row"; }

# compare: the same figures with the peer stripped look like a PC run: no shared cell, exit 2.
mkdir -p "$T/pc"
python3 - "$OUT/results.json" "$T/pc/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for e in r["entries"]:
    for k in list(e["provenance"]):
        if k.startswith("peer_"):
            e["provenance"][k] = None
json.dump(r, open(sys.argv[2], "w"))
PY
expect_rc 2 "$ESPBENCH" compare "$T/pc/results.json" "$OUT/results.json"
has "the inputs share no chip x tier x test cell"
expect_rc 0 "$ESPBENCH" compare "$OUT/results.json" "$OUT/results.json"

# --resume: done against this peer and tier, so nothing runs again.
expect_rc 0 timeout 240 "$ESPBENCH" run --sim --chip esp32 --peer-chip esp32c3 --peer-tier minimum --tier iperf \
    --duration 3 --interval 1 --warmup 1 --out "$OUT" --resume
has "0 tests done, 4 skipped"

# Bad input: one line each, exit 2, nothing started.
expect_rc 2 "$ESPBENCH" run --sim --chip esp32 --peer-port /dev/ttyUSB1 --out "$T/b1"
has "espbench run: --peer-port is a second real board; under --sim pass --peer-chip CHIP (a second virtual board)"
expect_rc 2 "$ESPBENCH" run --sim --chip esp32 --peer-chip esp32c3 --peer-tier fastest --out "$T/b2"
has "espbench run: --peer-tier 'fastest': peer esp32c3 has no such tier (tiers: iperf, default, minimum)"
expect_rc 2 "$ESPBENCH" run --sim --chip esp32 --peer-chip esp32q9 --out "$T/b3"
has "espbench run: no profile for peer chip 'esp32q9' (see 'espbench profiles')"
expect_rc 2 "$ESPBENCH" run --port /dev/ttyUSB0 --chip esp32 --peer-chip esp32c3 --ssid lab --pc-address 127.0.0.1 \
    --out "$T/b4"
has "espbench run: --peer-chip/--peer-tier need the peer board: pass --peer-port URL"
expect_rc 2 "$ESPBENCH" run --port /dev/ttyUSB0 --chip esp32 --peer-port /dev/ttyUSB0 --ssid lab \
    --pc-address 127.0.0.1 --out "$T/b5"
has "espbench run: the peer's port is the board's own (/dev/ttyUSB0): the peer is a second board"
expect_rc 2 "$ESPBENCH" run --sim --chip esp32s3 --peer-chip esp32c3 --tier psram-quad-iperf --out "$T/b6"
has "peer esp32c3 has no tier 'psram-quad-iperf'"
[ ! -e "$T/b1" ] && [ ! -e "$T/b2" ] && [ ! -e "$T/b6" ] || fail "a refused run left a folder"
# The PC is not in the data path: no --pc-address and no iperf2 are asked for; a missing board is
# the port's own error.
ESPBENCH_IPERF=/nonexistent/iperf expect_rc 3 "$ESPBENCH" run --port /dev/ttyNOPE0 --peer-port /dev/ttyNOPE1 \
    --chip esp32 --ssid lab --tests tcp_tx --out "$T/b7"
has "espbench: port /dev/ttyNOPE0: no such device"

echo "PASS"
