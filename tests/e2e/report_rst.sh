# espbench report --format rst|md|csv|json over the 7-tier esp32 fixture: the
# list-table has the docs' rows and columns in the docs' order, docutils
# accepts it (halt_level 2 = warnings are errors), zh_CN labels, CSV per RFC 4180.
set -euo pipefail
: "${ESPBENCH:?}" "${FIXTURES_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
IN="$FIXTURES_DIR/results/esp32-sim-all-tiers.json"

"$ESPBENCH" report "$IN" --format rst --chip esp32 -o "$T/en.rst"
"$ESPBENCH" report "$IN" --format rst --lang zh_CN --vs-docs --stat peak > "$T/zh.rst"
"$ESPBENCH" report "$IN" -o "$T/r.md"
"$ESPBENCH" report "$IN" --format csv -o "$T/r.csv"
"$ESPBENCH" report "$IN" --format json > "$T/r.json"

python3 - "$T" <<'PY'
import csv, io, json, sys
import docutils.core, docutils.nodes
T = sys.argv[1]

def tables(path):
    src = open(path, encoding="utf-8").read()
    doc = docutils.core.publish_doctree(src, settings_overrides={"halt_level": 2, "report_level": 2})
    out = []
    for table in doc.findall(docutils.nodes.table):
        rows = []
        for row in table.findall(docutils.nodes.row):
            rows.append([entry.astext() for entry in row.findall(docutils.nodes.entry)])
        out.append(rows)
    return out

en = tables(T + "/en.rst")
assert len(en) == 2, len(en)
rank = en[0]
# The docs' esp32 rank table (ESP-IDF wifi-performance-and-power-save.rst).
assert rank[0] == ["Rank", "Iperf", "TX prior", "High-performance", "RX prior", "Default", "Memory saving", "Minimum"], rank[0]
assert [r[0] for r in rank] == ["Rank", "Available memory (KB)", "WIFI_STATIC_RX_BUFFER_NUM", "WIFI_DYNAMIC_RX_BUFFER_NUM",
    "WIFI_DYNAMIC_TX_BUFFER_NUM", "WIFI_RX_BA_WIN", "TCP_SND_BUF_DEFAULT (KB)", "TCP_WND_DEFAULT (KB)", "WIFI_IRAM_OPT",
    "WIFI_RX_IRAM_OPT", "LWIP_IRAM_OPTIMIZATION", "TCP TX throughput (Mbit/s)", "TCP RX throughput (Mbit/s)",
    "UDP TX throughput (Mbit/s)", "UDP RX throughput (Mbit/s)"], [r[0] for r in rank]
assert rank[5][1:] == ["32", "8", "12", "12", "10", "6", "Disable"], rank[5]
assert rank[1][1:] == ["37.1", "113.8", "123.3", "145.5", "144.5", "170.2", "185.2"], rank[1]
docs = {"TCP TX": [74.6, 50.8, 46.5, 39.9, 44.2, 33.8, 25.6], "TCP RX": [63.6, 35.5, 42.3, 48.5, 40.5, 30.1, 27.8],
        "UDP TX": [76.2, 75.1, 74.1, 72.4, 69.6, 64.1, 36.5], "UDP RX": [83.1, 66.3, 75.1, 75.6, 73.1, 65.3, 54.7]}
for row in rank[11:]:
    ref = docs[row[0][:6]]
    for got, want in zip(row[1:], ref):
        assert abs(float(got) - want) <= want * 0.03, (row[0], got, want)
summary = en[1]
assert [r[0] for r in summary] == ["Type/Throughput", "UDP RX", "UDP TX", "TCP RX", "TCP TX"], summary

zh = tables(T + "/zh.rst")
rank = zh[0]
assert rank[0][:3] == ["等级", "Iperf", "发送数据优先"], rank[0]
labels = [r[0] for r in rank]
for want in ["可用内存 (KB)", "TCP 发送数据吞吐量 (Mbit/s)", "TCP 接收数据吞吐量 (Mbit/s)", "UDP 发送数据吞吐量 (Mbit/s)",
             "UDP 接收数据吞吐量 (Mbit/s)", "TCP 发送数据吞吐量 (Mbit/s), 文档"]:
    assert want in labels, want
assert "禁用" in rank[labels.index("WIFI_RX_BA_WIN")], rank
assert rank[labels.index("WIFI_IRAM_OPT")][1] == "开启"

md = open(T + "/r.md", encoding="utf-8").read()
assert "|Mbits/sec|TCP TX|TCP RX|UDP TX|UDP RX|\n" in md
assert "\n|Memory saving|" in md

raw = open(T + "/r.csv", "rb").read()
assert raw.count(b"\r\n") == 29 and raw.count(b"\n") == 29, "CRLF line ends"
rows = list(csv.reader(io.StringIO(raw.decode(), newline="")))
assert rows[0][:8] == ["board", "chip", "tier", "test", "repeat", "status", "mean_mbps", "peak_mbps"], rows[0]
assert len(rows) == 29 and all(len(r) == len(rows[0]) for r in rows)

j = json.load(open(T + "/r.json"))
assert j["schema"] == "espbench-results" and len(j["entries"]) == 28
print("report rst/md/csv/json ok")
PY

# Bad input: a clear one-line error and exit 2.
set +e
"$ESPBENCH" report "$FIXTURES_DIR/results/bad-mean-type.json" --format rst 2> "$T/err"
rc=$?
set -e
[ "$rc" = 2 ] || { echo "expected exit 2, got $rc"; exit 1; }
grep -qx "espbench: $FIXTURES_DIR/results/bad-mean-type.json: entries\[3\].mean_mbps: expected a number" "$T/err" \
    || { echo "unexpected error text:"; cat "$T/err"; exit 1; }
set +e
"$ESPBENCH" report "$IN" --format pdf 2> "$T/err"; rc=$?
set -e
[ "$rc" = 2 ] && grep -q -- "--format 'pdf'" "$T/err"
echo "PASS"
