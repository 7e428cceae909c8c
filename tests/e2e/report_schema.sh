# Every results JSON the suite holds validates against docs/results-schema.json:
# the fixtures (bad-* ones must fail both the schema and espbench's loader),
# what `report --format json` and `merge` write, and any results.json that
# other e2e tests left in the build directory.
set -euo pipefail
: "${ESPBENCH:?}" "${FIXTURES_DIR:?}" "${SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
CHECK="python3 $SOURCE_DIR/tests/e2e/report_schema_check.py $SOURCE_DIR/docs/results-schema.json"

good=() bad=()
while IFS= read -r -d '' f; do
    grep -q '"espbench-results"' "$f" || continue
    case "$(basename "$f")" in bad-*) bad+=("$f") ;; *) good+=("$f") ;; esac
done < <(find "$FIXTURES_DIR" -name '*.json' -print0)
[ "${#good[@]}" -ge 2 ] || { echo "expected results fixtures, found ${#good[@]}"; exit 1; }

"$ESPBENCH" report "${good[@]}" --format json -o "$T/all.json"
"$ESPBENCH" merge "${good[@]}" -o "$T/merged.json" 2> /dev/null
produced=("$T/all.json" "$T/merged.json")
if [ -n "${BUILD_DIR:-}" ] && [ -d "$BUILD_DIR" ]; then
    while IFS= read -r -d '' f; do produced+=("$f"); done \
        < <(find "$BUILD_DIR" -name 'results.json' -print0 2>/dev/null)
fi
$CHECK "${good[@]}" "${produced[@]}"
echo "valid: ${#good[@]} fixtures, ${#produced[@]} produced files"

for f in "${bad[@]}"; do
    if $CHECK "$f" 2> /dev/null; then echo "$f: the schema accepted a bad file"; exit 1; fi
    set +e
    "$ESPBENCH" report "$f" --format json > /dev/null 2>&1; rc=$?
    set -e
    [ "$rc" = 2 ] || { echo "$f: espbench accepted a bad file (exit $rc)"; exit 1; }
done
# The validator itself rejects what the schema forbids.
python3 - "$T" <<'PY'
import json, sys
d = json.load(open(sys.argv[1] + "/all.json"))
d["entries"][0]["loss_pct"] = "0.1"
d["entries"][1]["test"] = "tcp_up"
d["boards"][0]["surprise"] = 1
json.dump(d, open(sys.argv[1] + "/mutated.json", "w"))
PY
if $CHECK "$T/mutated.json" 2> "$T/err"; then echo "validator accepted a mutated file"; exit 1; fi
[ "$(wc -l < "$T/err")" = 3 ] || { cat "$T/err"; exit 1; }
echo "PASS"
