# run --len (iperf's -l as a dimension, docs/dimensions.md "iperf options"):
# a --sim run crosses a list of lengths with the tests, both ends are told
# each (the board's console command and the PC's iperf2 arguments), every
# entry carries its length in its key (results.json, results.csv) and its
# file names; --resume skips what was measured; --sweep len=... takes it
# too; a length out of range gets one line and exit 2.
set -euo pipefail
: "${ESPBENCH:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
set +e; "$ESPBENCH" run --chip esp32 --sim --len 512,10 --out "$T/x" > /dev/null 2> "$T/err.txt"; rc=$?; set -e
[ "$rc" = 2 ] || { echo "expected exit 2, got $rc"; cat "$T/err.txt"; exit 1; }
[ "$(cat "$T/err.txt")" = "espbench run: --len 512,10: '10' is not a whole number in 64..65507 bytes; see 'espbench help run'" ] ||
    { echo "unexpected:"; cat "$T/err.txt"; exit 1; }

"$ESPBENCH" run --chip esp32 --tier iperf --sim --tests tcp_tx,udp_rx --len 512,1470 --duration 2 \
    --out "$T/len" > "$T/len.log" 2>&1 || { cat "$T/len.log"; exit 1; }
grep -q "4 tests done, 0 skipped, 0 failed of 4" "$T/len.log"
python3 - "$T/len" <<'PY'
import glob, json, os, re, sys
out = sys.argv[1]
d = json.load(open(out + "/results.json"))
got = sorted((e["test"], e["provenance"]["iperf_len"]) for e in d["entries"] if e["status"] == "ok")
assert got == [("tcp_tx", 512), ("tcp_tx", 1470), ("udp_rx", 512), ("udp_rx", 1470)], got
# the PC's iperf2 and the board's command both got the item's length
for f in glob.glob(out + "/iperf-*.log"):
    n = re.search(r"-len(\d+)-", os.path.basename(f)).group(1)
    assert open(f).readline().rstrip().endswith(" -l " + n), (f, open(f).readline())
con = open(out + "/console-sim-esp32.log", errors="replace").read()
assert sorted(re.findall(r"^> iperf .* -l (\d+)$", con, re.M)) == ["1470", "1470", "512", "512"], con
PY
head -1 "$T/len/results.csv" | grep -q ",prov_iperf_len"
# measured before: skipped on --resume
"$ESPBENCH" run --chip esp32 --tier iperf --sim --tests tcp_tx,udp_rx --len 512,1470 --duration 2 \
    --out "$T/len" --resume > "$T/resume.log" 2>&1 || { cat "$T/resume.log"; exit 1; }
grep -q "0 tests done, 4 skipped, 0 failed of 4" "$T/resume.log"

# a sweep of it: the point is the key's sweep_var / sweep_value
"$ESPBENCH" run --chip esp32 --tier iperf --sim --tests udp_tx --sweep len=256,1024 --duration 2 \
    --out "$T/sweep" > "$T/sweep.log" 2>&1 || { cat "$T/sweep.log"; exit 1; }
python3 - "$T/sweep/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((e["provenance"]["sweep_var"], e["provenance"]["sweep_value"]) for e in d["entries"])
assert got == [("iperf_len", 256), ("iperf_len", 1024)], got
PY
[ -f "$T/sweep/iperf-sim-esp32-len256-iperf-udp_tx-r0.log" ]
