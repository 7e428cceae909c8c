# `espbench parse` and pattern files: the built-in udp-example read with no
# flags (golden transcripts: a 60-s downlink, a KB/Kbps uplink), --pattern by
# name and by file, a pattern of one's own under --profiles DIR/patterns, and
# every bad pattern file refused with its exact line and exit 2.
set -u
: "${ESPBENCH:?}" "${FIXTURES_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
L=$FIXTURES_DIR/patterns/logs
BAD=$FIXTURES_DIR/patterns/bad

# 1. No flags: the log is detected as udp-example; intervals and the summary rate.
"$ESPBENCH" parse -o "$tmp/rx.json" "$L/udp-example_rx_60s.log" >"$tmp/out1" 2>"$tmp/err1" \
    || fail "parse rx exited $?: $(cat "$tmp/err1")"
grep -q "(dialect udp-example)" "$tmp/err1" || fail "dialect not detected: $(cat "$tmp/err1")"
grep -q "^udp_rx  ok .*  log's summary 54.86 Mbit/s$" "$tmp/out1" || fail "summary table: $(cat "$tmp/out1")"
"$ESPBENCH" parse "$L/udp-example_tx_kbps.log" >"$tmp/tx.json" 2>"$tmp/err2" || fail "parse tx: $(cat "$tmp/err2")"
python3 - "$tmp/rx.json" "$tmp/tx.json" <<'PY' || fail "results.json content"
import json, sys
rx = json.load(open(sys.argv[1]))
assert rx["boards"][0]["dialect"] == "udp-example", rx["boards"][0]
e = rx["entries"][0]
assert (e["test"], e["status"]) == ("udp_rx", "ok"), e
iv = e["intervals"]["receiver"]
assert len(iv) == 60 and e["intervals"]["sender"] == [], len(iv)
assert iv[0] == {"start_s": 0, "end_s": 1, "bytes": 5210000, "mbps": 41.68, "jitter_ms": None, "lost": None, "total": None}, iv[0]
assert iv[59]["start_s"] == 59 and abs(iv[59]["mbps"] - 54.45) < 1e-9, iv[59]
assert e["summary_mbps"] == 54.86, e.get("summary_mbps")
assert e["settings"]["duration_s"] == 60 and e["settings"]["interval_s"] == 1, e["settings"]
assert 54.5 < e["mean_mbps"] < 55.5, e["mean_mbps"]
tx = json.load(open(sys.argv[2]))["entries"][0]
assert tx["test"] == "udp_tx" and len(tx["intervals"]["sender"]) == 20, tx["test"]
assert abs(tx["intervals"]["sender"][4]["mbps"] - 1.11) < 1e-9            # 138.87 KB, 1.11 Mbps
assert abs(tx["intervals"]["sender"][5]["mbps"] - 0.8343) < 1e-9          # 834.30 Kbps
assert tx["summary_mbps"] == 0.91389, tx.get("summary_mbps")
assert 0.9 < tx["mean_mbps"] < 1.0, tx["mean_mbps"]
PY

# A boot log before the lines still names the chip and the app.
"$ESPBENCH" parse "$L/udp-example_boot_esp32s3.log" >"$tmp/boot.json" 2>"$tmp/errb" || fail "parse boot: $(cat "$tmp/errb")"
python3 - "$tmp/boot.json" <<'PY' || fail "boot log facts"
import json, sys
r = json.load(open(sys.argv[1]))
b, e = r["boards"][0], r["entries"][0]
assert (b["dialect"], b["chip"], b["fw_project"], b["idf_version"]) == ("udp-example", "esp32s3", "udp_test", "v5.2.1"), b
assert e["chip"] == "esp32s3" and e["test"] == "udp_rx" and len(e["intervals"]["receiver"]) == 5, e["chip"]
assert e["summary_mbps"] == 56.26 and e["settings"]["duration_s"] == 5, e
PY

# 2. --pattern by built-in name and by file give the same entry; an iperf2 log
#    is still the iperf2 parser's.
"$ESPBENCH" parse --pattern udp-example "$L/udp-example_rx_60s.log" >"$tmp/byname.json" 2>"$tmp/err3" \
    || fail "--pattern udp-example: $(cat "$tmp/err3")"
cp "$SOURCE_DIR/profiles/patterns/udp-example.yaml" "$tmp/mine.yaml"
"$ESPBENCH" parse --pattern "$tmp/mine.yaml" "$L/udp-example_rx_60s.log" >"$tmp/byfile.json" 2>"$tmp/err4" \
    || fail "--pattern FILE: $(cat "$tmp/err4")"
python3 - "$tmp/rx.json" "$tmp/byname.json" "$tmp/byfile.json" <<'PY' || fail "--pattern entries differ"
import json, sys
a, b, c = (json.load(open(p))["entries"][0] for p in sys.argv[1:])
for k in ("test", "mean_mbps", "peak_mbps", "summary_mbps", "intervals"):
    assert a[k] == b[k] == c[k], k
PY
"$ESPBENCH" parse "$FIXTURES_DIR/logs/iperf2/udp.server.log" >"$tmp/iperf.json" 2>"$tmp/err5" || fail "iperf2 log: $(cat "$tmp/err5")"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["boards"][0]["dialect"] != "udp-example", r["boards"]' \
    "$tmp/iperf.json" || fail "an iperf2 log was read as udp-example"

# 3. A pattern of one's own in --profiles DIR/patterns is detected too.
mkdir -p "$tmp/prof/patterns"
cat >"$tmp/prof/patterns/tput.yaml" <<'YAML'
name: tput-fw
protocol: tcp
side: sender
interval: '^tput \[(?<start>[\d.]+)s\.\.(?<end>[\d.]+)s\] (?<rate>[\d.]+) ?(?<rate_unit>[KMG]bit/s)$'
YAML
printf 'boot\ntput [0.0s..0.5s] 12.5 Mbit/s\ntput [0.5s..1.0s] 13.0 Mbit/s\ntput [1.0s..1.5s] 800 Kbit/s\n' >"$tmp/tput.log"
"$ESPBENCH" --profiles "$tmp/prof" parse --warmup 0 "$tmp/tput.log" >"$tmp/tput.json" 2>"$tmp/err6" \
    || fail "own pattern: $(cat "$tmp/err6")"
python3 - "$tmp/tput.json" <<'PY' || fail "own pattern entry"
import json, sys
r = json.load(open(sys.argv[1]))
e = r["entries"][0]
assert r["boards"][0]["dialect"] == "tput-fw" and e["test"] == "tcp_tx", (r["boards"], e["test"])
assert [i["mbps"] for i in e["intervals"]["sender"]] == [12.5, 13.0, 0.8], e["intervals"]
PY

# 4. Bad pattern files: exit 2 and exactly the expected line (file:line:col).
n=0
while IFS= read -r want; do
    case "$want" in '#'*|'') continue ;; esac
    file=${want%%:*}
    (cd "$BAD" && "$ESPBENCH" parse --pattern "$file" "$L/udp-example_rx_60s.log") >/dev/null 2>"$tmp/bad"; rc=$?
    [ "$rc" = 2 ] || fail "$file: exit $rc, want 2"
    [ "$(cat "$tmp/bad")" = "espbench: $want" ] || fail "$file: got '$(cat "$tmp/bad")', want 'espbench: $want'"
    n=$((n + 1))
done <"$BAD/expected.txt"
[ "$n" -ge 9 ] || fail "only $n bad pattern files checked"
"$ESPBENCH" parse --pattern udp-example --dialect idf-v5.1 "$L/udp-example_rx_60s.log" >/dev/null 2>"$tmp/both"; rc=$?
[ "$rc" = 2 ] || fail "--pattern with --dialect: exit $rc"
"$ESPBENCH" parse --pattern nope "$L/udp-example_rx_60s.log" >/dev/null 2>"$tmp/nope"; rc=$?
[ "$rc" = 2 ] || fail "--pattern nope: exit $rc"
grep -qx "espbench: --pattern 'nope': no such file, and no built-in pattern of that name (built-in: udp-example)" "$tmp/nope" \
    || fail "--pattern nope message: $(cat "$tmp/nope")"
"$ESPBENCH" parse --pattern "$tmp/missing.yaml" "$L/udp-example_rx_60s.log" >/dev/null 2>"$tmp/missing"; rc=$?
[ "$rc" = 3 ] || fail "missing pattern file: exit $rc"

# 5. run --pattern: a pattern without commands, and --sim, are refused (exit 2).
"$ESPBENCH" run --chip esp32 --port fake:///none --pattern udp-example >/dev/null 2>"$tmp/run1"; rc=$?
[ "$rc" = 2 ] || fail "run --pattern udp-example: exit $rc"
grep -q "udp-example.yaml: the pattern has no commands: block, so \`run\` cannot start a test on the board" "$tmp/run1" \
    || fail "run --pattern message: $(cat "$tmp/run1")"
"$ESPBENCH" run --chip esp32 --sim --pattern "$FIXTURES_DIR/patterns/udp-console.yaml" >/dev/null 2>"$tmp/run2"; rc=$?
[ "$rc" = 2 ] || fail "run --pattern --sim: exit $rc"
grep -q "^espbench run: --pattern with --sim: the virtual board speaks the built-in dialects only" "$tmp/run2" \
    || fail "run --pattern --sim message: $(cat "$tmp/run2")"
echo "parse_patterns: ok"
