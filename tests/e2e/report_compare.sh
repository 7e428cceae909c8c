# espbench compare: passes on the same data, fails (exit 1) on an injected
# 10 % drop with a JUnit file that XML parsers accept, exit 2 on bad input,
# and --baseline docs against the profiles' reference figures.
set -euo pipefail
: "${ESPBENCH:?}" "${FIXTURES_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
BASE="$FIXTURES_DIR/results/esp32-sim-all-tiers.json"
cp "$BASE" "$T/rerun.json"
python3 - "$BASE" "$T/drop.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["entries"]:
    if e["tier"] == "default" and e["test"] == "tcp_rx":
        e["mean_mbps"] *= 0.90
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY

expect_rc() { local want=$1; shift; set +e; "$@"; local rc=$?; set -e
    [ "$rc" = "$want" ] || { echo "expected exit $want, got $rc: $*"; exit 1; }; }

expect_rc 0 "$ESPBENCH" compare "$BASE" "$T/rerun.json" --junit "$T/same.xml" > "$T/same.txt"
grep -q "^0 of 28 cells failed (max drop 5.0 %, statistic: mean)$" "$T/same.txt"
expect_rc 1 "$ESPBENCH" compare "$BASE" "$T/drop.json" --max-drop 5% --junit "$T/drop.xml" > "$T/drop.txt"
grep -Eq "^esp32 +default +tcp_rx .* -10\.0  regressed$" "$T/drop.txt"
expect_rc 0 "$ESPBENCH" compare "$BASE" "$T/drop.json" --max-drop 11 > /dev/null
expect_rc 0 "$ESPBENCH" compare "$BASE" "$T/drop.json" --stat peak > /dev/null
expect_rc 0 "$ESPBENCH" compare --baseline docs "$T/rerun.json" > "$T/docs.txt"
expect_rc 1 "$ESPBENCH" compare docs "$T/drop.json" > /dev/null
expect_rc 2 "$ESPBENCH" compare "$BASE" "$T/missing.json" 2> /dev/null
expect_rc 2 "$ESPBENCH" compare "$BASE" "$FIXTURES_DIR/results/bad-mean-type.json" 2> /dev/null
expect_rc 2 "$ESPBENCH" compare "$BASE" "$T/rerun.json" --max-drop lots 2> /dev/null
expect_rc 2 "$ESPBENCH" compare "$BASE" 2> /dev/null
# a missing file is bad input (exit 2) whichever file it is: results or --idf-thresholds' header
expect_rc 2 "$ESPBENCH" compare --idf-thresholds "$T/missing.h" "$BASE" 2> "$T/err.txt"
[ "$(cat "$T/err.txt")" = "espbench: $T/missing.h: cannot read: No such file or directory" ] || { cat "$T/err.txt"; exit 1; }
printf '#define IDF_PERFORMANCE_MIN_TCP_TX_THROUGHPUT 40\n' > "$T/target.h"
expect_rc 2 "$ESPBENCH" compare --idf-thresholds "$T/target.h" "$T/missing.json" 2> "$T/err.txt"
[ "$(cat "$T/err.txt")" = "espbench: $T/missing.json: cannot read: No such file or directory" ] || { cat "$T/err.txt"; exit 1; }

python3 - "$T/same.xml" "$T/drop.xml" <<'PY'
import sys
import xml.etree.ElementTree as ET
for path, failures in ((sys.argv[1], 0), (sys.argv[2], 1)):
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites", root.tag
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert len(cases) == 28 and suite.get("tests") == "28", len(cases)
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == failures and suite.get("failures") == str(failures)
    for c in cases:
        assert c.get("classname").startswith("espbench.esp32."), c.get("classname")
        assert c.get("name") in ("tcp_tx", "tcp_rx", "udp_tx", "udp_rx")
        props = {p.get("name"): p.get("value") for p in c.find("properties")}
        assert {"baseline_mbps", "current_mbps", "diff_pct", "max_drop_pct", "status"} <= set(props), props
    if failures:
        f = failed[0]
        assert f.get("classname") == "espbench.esp32.default" and f.get("name") == "tcp_rx"
        assert "dropped 10.0 %" in f.find("failure").get("message")
print("junit ok")
PY
echo "PASS"
