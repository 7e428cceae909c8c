#!/usr/bin/env bash
# bisect --sim finds an sdkconfig-default regression (tests/e2e/lib/fake_idf.sh):
# from commit 4 on, the fake ESP-IDF renames LWIP_TCP_WND_DEFAULT, so the
# firmware's line for it is dropped and the new option's default (5760
# bytes) applies. The test-only efficiency factor stays 1.0: only the
# build's config/sdkconfig.json differs, and the virtual board takes it
# through the throughput model (TCP RX is window-bound). The output says
# that library code cannot be simulated.
source "$(dirname "$0")/lib/run_helpers.sh"
source "$(dirname "$0")/lib/fake_idf.sh"
export VBOARD
export ESPBENCH_VBOARD=$VBOARD

FAKE_IDF_RENAME_AT=4 fake_idf_repo "$T/idf" 6
"$ESPBENCH" bisect --idf-repo "$T/idf" --good fake-1 --bad fake-6 --chip esp32s3 --tier iperf --test tcp_rx --sim \
    --sim-noise 0 --threshold 35 --duration 1 --interval 0.5 --repeats 2 --idf-cache "$T/cache" --out "$T/b" >"$T/o" 2>"$T/e" \
    || fail "bisect: $(cat "$T/e" "$T/o")"
grep -q "^first bad commit: $(fake_idf_commit "$T/idf" 4) " "$T/o" || fail "not commit 4: $(cat "$T/o" "$T/e")"
# What the bisect did, never a rate: each measured commit judged by whether it has the rename
# (commit 4 on), and the board shaped TCP RX to two figures only, the window-bound one (the model
# puts it at 40 % of the other; the 35 % threshold sits between), twice per measured commit.
n_steps=0
while read -r tag mark; do
    n_steps=$((n_steps + 1))
    want=good
    [ "${tag#fake-}" -ge 4 ] && want=bad
    [ "$mark" = "$want" ] || fail "$tag judged $mark, not $want: $(cat "$T/e")"
done < <(sed -n 's/^step [0-9]*: [0-9a-f]* \(fake-[0-9]*\): .* \(good\|bad\)\( (.*)\)\?$/\1 \2/p' "$T/e")
[ "$n_steps" -ge 3 ] && [ "$n_steps" -le 5 ] || fail "$n_steps commits measured: $(cat "$T/e")"
python3 - "$T/b" "$n_steps" <<'PY' || fail "the board's shaping"
import glob, re, sys
v = []
for log in glob.glob(sys.argv[1] + "/**/*-vboard.log", recursive=True):
    v += [float(x) for x in re.findall(r"^vboard: iperf tcp_rx shaped to (\S+) Mbit/s$", open(log).read(), re.M)]
assert len(v) >= 2 * int(sys.argv[2]), v  # a test retried after a stall (a busy machine) measures again
hi, lo = max(v), min(v)
assert set(v) == {hi, lo} and lo < 0.65 * hi, v
PY
grep -q "changes in library code (Wi-Fi blobs, lwIP, drivers) cannot be simulated" "$T/e" || fail "no note: $(cat "$T/e")"
[ -z "$(git -C "$T/idf" worktree list --porcelain | grep '^worktree' | grep -v "^worktree $(cd "$T/idf" && pwd -P)$")" ] \
    || fail "a worktree is left: $(git -C "$T/idf" worktree list)"

# A missing Python environment is the environment's error, not a commit that
# does not build: one line naming install.sh, exit 2, nothing skipped.
rm -rf "$IDF_TOOLS_PATH/python_env"
rc=0
"$ESPBENCH" bisect --idf-repo "$T/idf" --good fake-1 --bad fake-6 --chip esp32s3 --tier iperf --test tcp_rx --sim \
    --duration 1 --repeats 2 --idf-cache "$T/cache2" --out "$T/b2" >"$T/o2" 2>"$T/e2" || rc=$?
[ $rc = 2 ] || fail "exit $rc without a Python environment: $(cat "$T/e2")"
grep -q "^espbench: ESP-IDF v5.3.0 ($T/b2/idf-worktree): its environment is not set up: .*ERROR: ESP-IDF Python virtual environment .* not found\..*; run $T/b2/idf-worktree/install.sh esp32s3$" "$T/e2" \
    || fail "message: $(cat "$T/e2")"
! grep -q "skipped" "$T/e2" || fail "a commit was skipped: $(cat "$T/e2")"
grep -q "the worktree $T/b2/idf-worktree stays registered in $T/idf until this bisect is finished" "$T/e2" \
    || fail "no worktree note: $(cat "$T/e2")"
echo "bisect_sdkconfig: ok"
