# espbench merge: two shards (split with the same key the run's --shard uses)
# merge back into exactly the unsharded entries; a conflicting duplicate is
# refused (exit 2) unless --prefer newest; identical duplicates collapse.
set -euo pipefail
: "${ESPBENCH:?}" "${FIXTURES_DIR:?}" "${SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ALL="$FIXTURES_DIR/results/esp32-sim-all-tiers.json"
python3 - "$ALL" "$T" <<'PY'
import json, sys
def fnv1a(s):
    h = 0x811c9dc5
    for b in s.encode():
        h = ((h ^ b) * 0x01000193) & 0xffffffff
    return h
d = json.load(open(sys.argv[1]))
for i in (1, 2):
    part = dict(d, entries=[e for e in d["entries"]
                            if fnv1a("%s/%s/%s" % (e["chip"], e["tier"], e["test"])) % 2 == i - 1])
    assert part["entries"], "empty shard"
    json.dump(part, open("%s/shard%d.json" % (sys.argv[2], i), "w"))
conflict = json.loads(json.dumps(d))
conflict["entries"][5]["mean_mbps"] = 1.0
conflict["entries"][5]["finished"] = "2026-12-03T00:00:00Z"
json.dump(conflict, open(sys.argv[2] + "/conflict.json", "w"))
PY

"$ESPBENCH" merge "$T/shard2.json" "$T/shard1.json" "$T/shard1.json" -o "$T/merged.json" --csv "$T/merged.csv" 2> "$T/log"
grep -q "28 entries from 3 files" "$T/log"
python3 "$SOURCE_DIR/tests/e2e/report_schema_check.py" "$SOURCE_DIR/docs/results-schema.json" "$T/merged.json"
python3 - "$ALL" "$T/merged.json" <<'PY'
import json, sys
key = lambda e: (e["board"], e["chip"], e["tier"], e["test"], e["repeat"])
def norm(e):
    # written by newer versions: derived "noise", and "provenance" (all null for an older input)
    e = dict(e)
    e.pop("noise", None)
    if all(v is None for v in e.get("provenance", {}).values()):
        e.pop("provenance", None)
    return e
a = sorted(map(norm, json.load(open(sys.argv[1]))["entries"]), key=key)
b = sorted(map(norm, json.load(open(sys.argv[2]))["entries"]), key=key)
assert a == b, "merged shards differ from the unsharded results"
print("merge of shards == unsharded (%d entries)" % len(a))
PY

set +e
"$ESPBENCH" merge "$ALL" "$T/conflict.json" -o "$T/bad.json" 2> "$T/err"; rc=$?
set -e
[ "$rc" = 2 ] || { echo "conflict: expected exit 2, got $rc"; exit 1; }
grep -q "conflict.json: entries\[5\]: board \"sim\" esp32/tx-prior/tcp_rx repeat 0 is already in the merged results with different figures" "$T/err" \
    || { cat "$T/err"; exit 1; }
grep -q -- "--prefer newest" "$T/err"
[ ! -e "$T/bad.json" ]
"$ESPBENCH" merge "$ALL" "$T/conflict.json" -o "$T/newest.json" --prefer newest 2> /dev/null
python3 -c "
import json,sys
d=json.load(open('$T/newest.json'))
e=[e for e in d['entries'] if e['tier']=='tx-prior' and e['test']=='tcp_rx']
assert len(e)==1 and e[0]['mean_mbps']==1.0, e
"
set +e
"$ESPBENCH" merge "$ALL" 2> /dev/null; rc=$?
set -e
[ "$rc" = 2 ]
echo "PASS"
