#!/usr/bin/env bash
# The IDF matrix end to end: one sim run per ESP-IDF version (--sim-idf),
# merged (the entries of two IDFs stay apart), reported in md, rst, json and
# html (rendered by headless Chromium when installed), and compared between
# the versions with --idf-base/--idf-new.
source "$(dirname "$0")/lib/run_helpers.sh"

for v in v5.1 v5.3; do
    expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf --sim --sim-idf "$v" \
        --tests tcp_tx,udp_rx --duration 2 --interval 1 --warmup 0 --out "$T/$v" \
        --performance-lines --metrics "$T/$v.om"
    grep -Eq '^\[Performance\]\[udp_rx_throughput\]: [0-9]+\.[0-9]{2} Mbps$' "$T/last.out" \
        || fail "run: no performance line"
    grep -q "^espbench_throughput_bits_per_second{chip=\"esp32\",tier=\"iperf\",test=\"tcp_tx\",idf_version=\"$v\"" \
        "$T/$v.om" || fail "run: no OpenMetrics sample"
done
expect_rc 0 "$ESPBENCH" merge "$T/v5.1/results.json" "$T/v5.3/results.json" -o "$T/m.json"
python3 - "$T/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
idfs = sorted(e["provenance"]["idf_version"] for e in d["entries"])
assert idfs == ["v5.1", "v5.1", "v5.3", "v5.3"], idfs
PY

"$ESPBENCH" report "$T/m.json" --format md -o "$T/r.md"
grep -q '^## By ESP-IDF version' "$T/r.md" || fail "md: no IDF section"
grep -q '^|Tier|Test|v5.1 Mbps|v5.1 heap KiB|v5.3 Mbps|v5.3 heap KiB|$' "$T/r.md" || fail "md: no matrix header"
grep -Eq '^\|Iperf\|tcp_tx\|[0-9.]+\|[0-9.]+\|[0-9.]+\|[0-9.]+\|$' "$T/r.md" || fail "md: no tcp_tx row"
"$ESPBENCH" report "$T/m.json" --format rst -o "$T/r.rst"
grep -q '^.. list-table:: ESP32 by ESP-IDF version' "$T/r.rst" || fail "rst: no matrix"
"$ESPBENCH" report "$T/m.json" --format json -o "$T/r.json"
python3 - "$T/r.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["idf_matrix"]
assert m["versions"] == ["v5.1", "v5.3"], m["versions"]
cells = {(c["tier"], c["test"]): c["by_idf"] for c in m["cells"]}
assert set(cells) == {("iperf", "tcp_tx"), ("iperf", "udp_rx")}, cells
for c in cells.values():
    for v in ("v5.1", "v5.3"):
        assert c[v]["mbps"] > 0 and c[v]["runs"] == 1 and c[v]["free_heap"] > 0, c
PY
# One IDF version: no section, and the json report is the results as before.
"$ESPBENCH" report "$T/v5.1/results.json" --format md | grep -q 'By ESP-IDF' && fail "md: IDF section for one version"
"$ESPBENCH" report "$T/v5.1/results.json" --format json | grep -q idf_matrix && fail "json: matrix for one version"

"$ESPBENCH" report "$T/m.json" --format html -o "$T/r.html"
grep -q '<h2>By ESP-IDF version</h2>' "$T/r.html" || fail "html: no IDF section"
grep -q 'TCP TX by ESP-IDF version' "$T/r.html" || fail "html: no IDF chart"
if command -v chromium >/dev/null; then
    timeout 240 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --user-data-dir="$T/profile" \
        --enable-logging=stderr --v=0 --dump-dom "file://$T/r.html" > "$T/dom.html" 2> "$T/chrome.log"
    grep -E 'CONSOLE|Uncaught' "$T/chrome.log" && fail "browser console reported errors"
    grep -q 'ESP-IDF v5.3: [0-9.]* Mbit/s, free heap' "$T/dom.html" || fail "rendered page lacks the IDF bars"
fi

# Two measured runs: their difference is the machine's, so the drop allowed is wide and the
# verdict is one of the three, whichever a busy machine gives.
expect_rc 0 "$ESPBENCH" compare "$T/m.json" --idf-base v5.1 --idf-new v5.3 --max-drop 99% --junit "$T/j.xml"
has "esp32      iperf              tcp_tx"
grep -Eq "within noise|better|worse" "$T/last.out" || fail "no verdict: $(cat "$T/last.out")"
grep -q 'name="baseline" value="ESP-IDF v5.1"' "$T/j.xml" || fail "junit: no baseline name"
expect_rc 2 "$ESPBENCH" compare "$T/m.json" --idf-base v5.1 --idf-new v9.9
has "no entries built with ESP-IDF 'v9.9' (the results hold: v5.1, v5.3)"
expect_rc 2 "$ESPBENCH" compare "$T/m.json" --idf-base v5.1
has "--idf-base and --idf-new go together"
# ESP-IDF CI's performance lines and the OpenMetrics file of the figures.
"$ESPBENCH" report "$T/m.json" -o "$T/again.md" --performance-lines --metrics "$T/m.om" > "$T/perf.out"
grep -Eq '^\[Performance\]\[esp32_iperf_v5\.1_tcp_tx_throughput\]: [0-9]+\.[0-9]{2} Mbps$' "$T/perf.out" \
    || fail "no performance line"
test "$(wc -l < "$T/perf.out")" = 4 || fail "expected 4 performance lines"
test "$(tail -n 1 "$T/m.om")" = "# EOF" || fail "OpenMetrics text lacks # EOF"
grep -Eq '^espbench_throughput_bits_per_second\{chip="esp32",tier="iperf",test="udp_rx",idf_version="v5\.3",stat="mean"\} [0-9]+$' \
    "$T/m.om" || fail "no throughput sample"
grep -q '^# UNIT espbench_free_heap_bytes bytes$' "$T/m.om" || fail "no heap unit"
"$ESPBENCH" report "$T/v5.1/results.json" -o "$T/one.md" --performance-lines > "$T/perf1.out"
grep -Eq '^\[Performance\]\[tcp_tx_throughput\]: [0-9]+\.[0-9]{2} Mbps$' "$T/perf1.out" \
    || fail "one chip, tier and IDF: ESP-IDF's item names"
echo OK
