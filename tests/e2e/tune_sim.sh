#!/usr/bin/env bash
# A short espbench tune against the virtual board, killed (SIGKILL) part way
# and resumed: no finished probe is measured again, every probe is in
# results.json (report reads it), frontier.yaml loads as a profile overlay,
# an sdkconfig fragment per frontier point, and frontier.html renders in
# headless Chromium without console errors; on a terminal, progress shows
# the budget used and the best so far.
source "$(dirname "$0")/lib/run_helpers.sh"

OUT="$T/tune"
ARGS=(tune --chip esp32 --sim --objective tcp_tx --min-free-kb 130 --budget 22s --out "$OUT")
"$ESPBENCH" "${ARGS[@]}" > "$T/first.out" 2>&1 &
PID=$!
BG+=("$PID")
# Kill it once three probes are journalled.
for _ in $(seq 1 1200); do  # a generous deadline: a busy machine is slow to get there
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["probes"]))' "$OUT/tune-journal.json" 2>/dev/null || echo 0)
    [ "$n" -ge 3 ] && break
    sleep 0.1
done
[ "$n" -ge 3 ] || { cat "$T/first.out" >&2; fail "no probes journalled"; }
kill -KILL "$PID"
wait "$PID" 2>/dev/null || true
cp "$OUT/results.json" "$T/before.json"

# The resumed tune runs on a terminal (script(1)): one progress line with
# the budget used and the best so far, rewritten in place.
expect_rc 0 timeout 240 script -qec "$(printf '%q ' "$ESPBENCH" "${ARGS[@]}" --resume)" "$T/tty.log"
has "probes of"
tr '\r' '\n' < "$T/tty.log" | grep -Eq '^.*\[tune (start|explore|rung [12]|final)\] [0-9]+/22 s of the budget, [0-9]+ probes; best [0-9.]+ Mbit/s at [0-9.]+ KB free \(tune-s' ||
    { cat "$T/tty.log" >&2; fail "no progress line on the terminal"; }
has "frontier: $OUT/frontier.yaml"
python3 - "$T/before.json" "$OUT" <<'PY'
import json, sys
before = json.load(open(sys.argv[1]))["entries"]
out = sys.argv[2]
after = json.load(open(out + "/results.json"))["entries"]
journal = json.load(open(out + "/tune-journal.json"))["probes"]
keys = [(e["tier"], e["repeat"]) for e in after]
assert len(keys) == len(set(keys)), "a probe was measured twice"
# Probes finished before the kill kept their measurement (no re-measuring).
stamp = {(e["tier"], e["repeat"]): e["started"] for e in after}
for e in before:
    assert stamp[(e["tier"], e["repeat"])] == e["started"], ("re-measured", e["tier"])
assert len(before) >= 3 and len(after) > len(before), (len(before), len(after))
assert sorted(keys) == sorted((p["tier"], p["k"]) for p in journal), "journal and results.json disagree"
for e in after:
    assert e["status"] == "ok" and e["free_heap"] > 130 * 1024 * 0.5, e["tier"]
    assert e["figure_source"].startswith("model"), e["figure_source"]
PY

# The frontier: a table, the overlay profile, sdkconfig fragments.
# (The first table's rows end with "yes" or "no (...)"; the second shows the same points on all
# four tests, "m" measured or "p" predicted, with their costs.)
n_front=$(tr -d '\r' <"$T/last.out" | grep -c '^tune-s.* \(yes\|no (.*)\)$' || true)
# How many points are on it follows from measured rates (a busy machine may let one tier
# dominate): its structure is asserted, not its size. Every point is a tier that was measured.
[ "$n_front" -ge 1 ] || { cat "$T/last.out" >&2; fail "an empty frontier"; }
python3 - "$OUT" <<'PY' || { cat "$T/last.out" >&2; fail "a frontier point that was not measured"; }
import json, re, sys
out = sys.argv[1]
measured = {e["tier"] for e in json.load(open(out + "/results.json"))["entries"]}
front = set(re.findall(r"tune-s[0-9a-z-]*", open(out + "/frontier.yaml").read()))
assert front and front <= measured, (sorted(front - measured), sorted(measured))
PY
[ "$(tr -d '\r' <"$T/last.out" | grep -c '^tune-s[0-9a-z-]* *[0-9.]* m  *[0-9.]* p  *[0-9.]* p  *[0-9.]* p' || true)" = "$n_front" ] ||
    { cat "$T/last.out" >&2; fail "the frontier points not shown on all four tests (tcp_tx measured, the rest predicted)"; }
[ "$(ls "$OUT"/sdkconfig.tune-* | wc -l)" = "$n_front" ] || fail "not one sdkconfig fragment per frontier point"
grep -q '^CONFIG_ESP_WIFI_DYNAMIC_TX_BUFFER_NUM=' "$OUT"/sdkconfig.tune-* || fail "sdkconfig fragment lacks the TX buffers"
mkdir "$T/prof" && cp "$OUT/frontier.yaml" "$T/prof/"
expect_rc 0 "$ESPBENCH" --profiles "$T/prof" profiles list
[ "$(grep -o 'tune-s[0-9a-z-]*' "$T/last.out" | wc -l)" = "$n_front" ] || { cat "$T/last.out" >&2; fail "overlay tiers not listed"; }
first=$(grep -m1 -o 'tune-s[0-9a-z-]*' "$OUT/frontier.yaml")
expect_rc 0 "$ESPBENCH" --profiles "$T/prof" predict --chip esp32 --tier "$first"
expect_rc 0 "$ESPBENCH" report "$OUT" --format md -o "$T/report.md"
grep -q "$first" "$T/report.md" || fail "report lacks the frontier tier"
expect_rc 0 "$ESPBENCH" compare "$OUT/results.json" "$OUT/results.json"
expect_rc 0 "$ESPBENCH" merge "$OUT/results.json" -o "$T/merged.json"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["entries"]; b=json.load(open(sys.argv[2]))["entries"]; assert len(a)==len(b)' \
    "$OUT/results.json" "$T/merged.json" || fail "merge lost probes"

# The chart renders without console errors.
if ! command -v chromium >/dev/null; then
    source "$(dirname "$0")/lib/skip.sh"
    skip_test "chromium not installed (the search and its outputs passed; the chart was not rendered)"
fi
grep -q '<svg' "$OUT/frontier.html" || fail "no chart"
if grep -Eq '<script|<link|src=|url\(' "$OUT/frontier.html"; then fail "the page refers to outside resources"; fi
timeout 240 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$T/chrome" \
    --enable-logging=stderr --v=0 --dump-dom "file://$OUT/frontier.html" > "$T/dom.html" 2> "$T/chrome.log"
if grep -E 'CONSOLE|Uncaught|ERR_FILE|net::ERR' "$T/chrome.log"; then fail "browser console reported errors"; fi
grep -q '<circle' "$T/dom.html" || fail "the rendered page has no chart points"
echo "PASS"
