#!/usr/bin/env bash
# espbench bisect over a fake ESP-IDF history (tests/e2e/lib/fake_idf.sh) of 12
# commits with a regression planted at commit 9 (the test-only efficiency
# factor 0.3 from there on: a drop no busy machine makes of a good commit's
# TCP figure) and commits 4-5 that do not build, on virtual boards with noise
# on: the first bad commit is found in at most ceil(log2 12) + 2 = 6 measured
# commits (the two ends included); a bisect killed after its first steps
# resumes from its journal without measuring a finished commit again and ends
# with the same answer; bad input is one line. The 50-commit history with a
# 20 % regression (the search's cost at its real size, on measured figures) is
# the bench's `bisect` section.
source "$(dirname "$0")/lib/run_helpers.sh"
source "$(dirname "$0")/lib/fake_idf.sh"
export VBOARD
export ESPBENCH_VBOARD=$VBOARD

fake_idf_repo "$T/idf" 12 9 0.3 4 5
bad9=$(fake_idf_commit "$T/idf" 9)
bisect() { "$ESPBENCH" bisect --idf-repo "$T/idf" --chip esp32s3 --tier iperf --test tcp_tx --sim --sim-noise 2 \
    --duration 1 --interval 0.5 --repeats 2 --idf-cache "$T/cache" "$@"; }

bisect --good fake-1 --bad fake-12 --out "$T/b1" >"$T/o1" 2>"$T/e1" || fail "bisect: $(cat "$T/e1" "$T/o1")"
grep -q "^first bad commit: $bad9 " "$T/o1" || fail "not commit 9: $(cat "$T/o1" "$T/e1")"
measured=$(sed -n 's/^measured \([0-9]*\) commits.*/\1/p' "$T/o1")
[ -n "$measured" ] && [ "$measured" -le 6 ] || fail "measured $measured commits (> 6): $(cat "$T/e1")"
[ "$(git -C "$T/idf" rev-parse HEAD)" = "$(fake_idf_commit "$T/idf" 12)" ] || fail "the user's checkout moved"
[ -z "$(git -C "$T/idf" status --porcelain)" ] || fail "the user's checkout changed"

# Killed after its first steps (SIGTERM), then resumed: finished commits are not measured again.
"$ESPBENCH" bisect --idf-repo "$T/idf" --chip esp32s3 --tier iperf --test tcp_tx --sim --sim-noise 2 \
    --duration 1 --interval 0.5 --repeats 2 --idf-cache "$T/cache" --good fake-1 --bad fake-12 --out "$T/b2" \
    >"$T/o2" 2>"$T/e2" &
pid=$!
for _ in $(seq 1 1800); do
    [ "$(grep -c '^step ' "$T/e2" 2>/dev/null)" -ge 3 ] && break
    sleep 0.1
done
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 4 ] || fail "killed bisect: exit $rc: $(cat "$T/e2")"
grep -q "the journal .*bisect.json keeps the finished steps" "$T/e2" || fail "no resume hint: $(cat "$T/e2")"
python3 - "$T/b2/bisect.json" >"$T/done" <<'PY' || fail "journal after the kill"
import json, sys
j = json.load(open(sys.argv[1]))
assert len(j["steps"]) >= 3, j["steps"]
for s in j["steps"]:
    print(s["commit"])
PY
bisect --good fake-1 --bad fake-12 --out "$T/b2" >"$T/o3" 2>"$T/e3" || fail "resume: $(cat "$T/e3" "$T/o3")"
grep -q "^first bad commit: $bad9 " "$T/o3" || fail "resumed: not commit 9: $(cat "$T/o3")"
while read -r c; do
    ! grep -q "^step [0-9]*: ${c:0:10} " "$T/e3" || fail "commit $c measured again after resume: $(cat "$T/e3")"
done <"$T/done"
total=$(sed -n 's/^measured \([0-9]*\) commits (\([0-9]*\) in this run).*/\1 \2/p' "$T/o3")
set -- $total
[ "$1" -le 6 ] && [ "$2" -lt "$1" ] || fail "resumed counts: $total"

# Bad input: one line each.
expect_rc 2 "$ESPBENCH" bisect --idf-repo "$T/idf" --good fake-1 --bad fake-12 --chip esp32s3 --tier iperf --test tcp_tx
has "give --sim (a virtual board) or --port URL (a board), one of them"
expect_rc 2 "$ESPBENCH" bisect --idf-repo "$T/idf" --good fake-1 --bad nosuchrev --chip esp32s3 --tier iperf \
    --test tcp_tx --sim --out "$T/b4"
has "--bad nosuchrev: not a commit of $T/idf; check the revision"
expect_rc 2 "$ESPBENCH" bisect --idf-repo "$T/idf" --good fake-12 --bad fake-1 --chip esp32s3 --tier iperf \
    --test tcp_tx --sim --out "$T/b5"
has "--bad fake-1 is an ancestor of --good fake-12 in $T/idf; swap them"
expect_rc 2 "$ESPBENCH" bisect --idf-repo "$T/idf" --good fake-1 --bad fake-12 --chip esp32s3 --tier iperf \
    --test tcp_tx --sim --out "$T/b1" --threshold 10
has "the journal is of another bisect (its threshold differs)"
