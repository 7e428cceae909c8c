# run --sweep (issue 17): a --sim run with --repeat 3 --sweep udp-rate=40:80:20
# records every point with its provenance, the offered rate is the point's (the
# PC's iperf2 is told it); a link sweep (rssi) through the virtual board's
# control socket lowers the figure the board's TCP is shaped to, as the model says; the HTML report
# draws throughput against the sweep and renders in Chromium without console
# errors; bad sweeps get one line and exit 2.
set -euo pipefail
: "${ESPBENCH:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
expect_fail() { # want-message args...
    local want=$1; shift
    set +e; "$ESPBENCH" run "$@" > /dev/null 2> "$T/err.txt"; local rc=$?; set -e
    [ "$rc" = 2 ] || { echo "expected exit 2, got $rc: $*"; cat "$T/err.txt"; exit 1; }
    [ "$(wc -l < "$T/err.txt")" = 1 ] || { echo "not one line: $*"; cat "$T/err.txt"; exit 1; }
    grep -qF -- "$want" "$T/err.txt" || { echo "expected: $want"; cat "$T/err.txt"; exit 1; }
}
expect_fail "espbench run: --sweep volume=1:2:1: unknown sweep variable 'volume' (udp-rate, tx-power; under --sim also rssi, loss, rtt; with lab instruments attenuation, rssi, channel, bandwidth)" \
    --chip esp32 --sim --sweep volume=1:2:1
expect_fail "espbench run: --sweep udp-rate=80:40:10: the range has no points: STEP must be > 0 and START <= STOP" \
    --chip esp32 --sim --sweep udp-rate=80:40:10
expect_fail "espbench run: --sweep udp-rate=40:80:0: the range has no points" --chip esp32 --sim --sweep udp-rate=40:80:0
expect_fail "espbench run: --sweep udp-rate needs a UDP test: add udp_tx or udp_rx to --tests" \
    --chip esp32 --sim --tests tcp_tx --sweep udp-rate=40:80:20 --out "$T/x"
expect_fail "espbench run: --sweep rssi sets the virtual board's link and needs --sim (board /dev/ttyUSB9 is not simulated)" \
    --chip esp32 --port /dev/ttyUSB9 --ssid lab --pc-address 192.168.1.2 --sweep rssi=-50,-60 --out "$T/x"
# what would set a row is the fixtures' declarations: rssi a vboard or an attenuator, loss only a vboard
expect_fail "espbench run: --sweep rssi sets the virtual board's link and needs --sim (board /dev/ttyUSB9 is not simulated) or a lab attenuator in front of the board (docs/instruments.md); on hardware sweep udp-rate, or change the link yourself" \
    --chip esp32 --port /dev/ttyUSB9 --ssid lab --pc-address 192.168.1.2 --sweep rssi=-50,-60 --out "$T/x"
expect_fail "espbench run: --sweep loss sets the virtual board's link and needs --sim (board /dev/ttyUSB9 is not simulated); on hardware sweep udp-rate, or change the link yourself" \
    --chip esp32 --port /dev/ttyUSB9 --ssid lab --pc-address 192.168.1.2 --sweep loss=1,2 --out "$T/x"
expect_fail "espbench run: --sweep given twice: one variable per run" --chip esp32 --sim --sweep udp-rate=40 --sweep rssi=-50

# udp-rate: 3 points x 3 repeats of udp_rx, noise on so the repeats differ
"$ESPBENCH" run --chip esp32 --tier iperf --sim --sim-noise 3 --tests udp_rx --repeat 3 \
    --sweep udp-rate=40:80:20 --duration 2 --out "$T/rate" > "$T/rate.log" 2>&1 || { cat "$T/rate.log"; exit 1; }
grep -q "9 tests done, 0 skipped, 0 failed of 9" "$T/rate.log"
python3 - "$T/rate/results.json" "$T/rate" <<'PY'
import glob, json, re, sys
d = json.load(open(sys.argv[1]))
pts = {}
for e in d["entries"]:
    p = e["provenance"]
    assert e["status"] == "ok", e["error"]
    assert p["sweep_var"] == "udp_rate", p
    assert e["settings"]["udp_rate_mbps"] == p["sweep_value"], (e["settings"], p)
    assert e["mean_mbps"] > 0, e
    assert p["pc_iperf_version"] and p["espbench_version"], p
    pts.setdefault(p["sweep_value"], set()).add(e["repeat"])
assert pts == {40: {0, 1, 2}, 60: {0, 1, 2}, 80: {0, 1, 2}}, pts
# the PC's client offered each point's rate, once per repeat (what it receives is the bench's)
offered = sorted(int(re.search(r"^\$ iperf -c .* -u -b (\d+)m ", open(f).read(), re.M).group(1))
                 for f in glob.glob(sys.argv[2] + "/iperf-*.log"))
assert offered == [40] * 3 + [60] * 3 + [80] * 3, offered
PY
# results.csv carries the point too
head -1 "$T/rate/results.csv" | grep -q "prov_sweep_var,prov_sweep_value,prov_concurrent_boards"
[ "$(tr -d "\r" < "$T/rate/results.csv" | grep -c ",udp_rate,80,")" = 3 ]

# rssi through the control socket: the figure TCP TX is shaped to falls with the signal
"$ESPBENCH" run --chip esp32 --tier iperf --sim --tests tcp_tx --sweep rssi=-50,-75 --duration 2 \
    --out "$T/rssi" > "$T/rssi.log" 2>&1 || { cat "$T/rssi.log"; exit 1; }
grep -q "sweep rssi = -75 dBm (link rssi=-75" "$T/rssi.log"
python3 - "$T/rssi/results.json" "$T/rssi/sim-vboard.log" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
m = {e["provenance"]["sweep_value"]: e for e in d["entries"]}
assert set(m) == {-50, -75}, m.keys()
assert all(e["status"] == "ok" and e["mean_mbps"] > 0 for e in m.values()), m
# one test per point, in the plan's order: -50 dBm, then -75 dBm
v = [float(x) for x in re.findall(r"^vboard: iperf tcp_tx shaped to (\S+) Mbit/s$", open(sys.argv[2]).read(), re.M)]
assert len(v) == 2 and v[1] < 0.8 * v[0], v
assert m[-75]["figure_source"].startswith("model"), m[-75]["figure_source"]
PY

# the HTML report: one sweep chart with a line per tier, rendered
"$ESPBENCH" report "$T/rate" --format html -o "$T/report.html"
grep -q "UDP RX against the sweep" "$T/report.html"
grep -q "offered UDP rate (Mbit/s)" "$T/report.html"
grep -q "95 % interval of the mean" "$T/report.html"
[ "$(grep -c '<polyline' "$T/report.html")" -ge 1 ]
if command -v chromium >/dev/null; then
    timeout 240 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --user-data-dir="$T/profile" \
        --enable-logging=stderr --v=0 --screenshot="$T/shot.png" --window-size=1200,1600 \
        "file://$T/report.html" 2> "$T/chrome.log" > /dev/null
    if grep -E 'CONSOLE|Uncaught|ERR_FILE|net::ERR' "$T/chrome.log"; then
        echo "browser console reported errors"; exit 1
    fi
    test -s "$T/shot.png"
fi
echo "sweep ok"
