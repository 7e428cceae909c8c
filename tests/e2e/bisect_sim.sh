#!/usr/bin/env bash
# espbench bisect over a fake ESP-IDF history (tests/e2e/lib/fake_idf.sh) of 12
# commits with a regression planted at commit 9 (the test-only efficiency
# factor 0.3 from there on: a drop no busy machine makes of a good commit's
# TCP figure) and commits 4-5 that do not build, on virtual boards with noise
# on: a bisect killed after its first steps resumes from its journal without
# measuring a finished commit again and finds the first bad commit in at most
# ceil(log2 12) + 2 = 6 measured commits (the two ends included); bad input is
# one line. The threshold (50 %) is far from both the good commits (0 %) and
# the regression (70 %), so a busy machine's figures cannot flip a verdict. The 50-commit history with a
# 20 % regression (the search's cost at its real size, on measured figures) is
# the bench's `bisect` section.
source "$(dirname "$0")/lib/run_helpers.sh"
source "$(dirname "$0")/lib/fake_idf.sh"
export VBOARD
export ESPBENCH_VBOARD=$VBOARD

fake_idf_repo "$T/idf" 12 9 0.3 4 5
bad9=$(fake_idf_commit "$T/idf" 9)
BISECT=("$ESPBENCH" bisect --idf-repo "$T/idf" --chip esp32s3 --tier iperf --test tcp_tx --sim --sim-noise 2
    --duration 1 --interval 0.5 --repeats 2 --threshold 50 --idf-cache "$T/cache")
bisect() { "${BISECT[@]}" "$@"; }

# Killed after its first steps (SIGTERM), then resumed: finished commits are not measured again.
"${BISECT[@]}" --good fake-1 --bad fake-12 --out "$T/b2" >"$T/o2" 2>"$T/e2" &
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
# What the search did: the good end first, no commit twice, the first bad commit among them.
python3 - "$T/b2/bisect.json" "$(fake_idf_commit "$T/idf" 1)" "$bad9" <<'PY' || fail "journal: $(cat "$T/e2" "$T/e3")"
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
commits = [s["commit"] for s in steps]
assert len(commits) == len(set(commits)), commits
assert commits[0] == sys.argv[2], commits
assert any(c == sys.argv[3] for c in commits), "the first bad commit was not measured"
PY
[ "$(git -C "$T/idf" rev-parse HEAD)" = "$(fake_idf_commit "$T/idf" 12)" ] || fail "the user's checkout moved"
[ -z "$(git -C "$T/idf" status --porcelain)" ] || fail "the user's checkout changed"

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
    --test tcp_tx --sim --out "$T/b2" --threshold 10
has "the journal is of another bisect (its threshold differs)"
