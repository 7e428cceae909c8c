#!/usr/bin/env bash
# espbench bisect on ESP-IDF's branching (tests/e2e/lib/fake_idf.sh
# fake_idf_release): GOOD is a release tag on release/v5.2 (no ancestor of
# master), BAD is master, and the regression is a merge that bumps the Wi-Fi
# library submodule. Run from a shell that sourced another version's
# export.sh with IDF_TARGET exported, on a board: the virtual board on its
# pty, each build flashed with the flash job (the path a real board takes;
# a library regression is what --sim cannot see). The bisect starts from the
# merge base (said so), finds the submodule bump, and leaves the user's
# repository (HEAD, status, config, worktrees, submodule) and the firmware
# sources as they were.
source "$(dirname "$0")/lib/run_helpers.sh"
source "$(dirname "$0")/lib/fake_idf.sh"
export VBOARD
export ESPBENCH_VBOARD=$VBOARD

# The library bump cuts the board's rate to 5 %, and the threshold is 80 %: a commit is bad only
# below a fifth of the good end's figure, which no busy machine brings a good commit to, and a bad
# commit's traffic cannot rise above it. What is asserted is what the bisect did (the commits it
# measured, the one it found) and what the board was told to do, never a rate.
fake_idf_release "$T/idf" 0.05
bad=$FAKE_IDF_REGRESSION
fake_idf_repo "$T/other" 1 # another version whose export the user's shell sourced
repo_state() {
    git -C "$T/idf" rev-parse HEAD
    git -C "$T/idf" status --porcelain
    git -C "$T/idf" submodule status
    git -C "$T/idf" worktree list --porcelain | grep '^worktree'
    sha256sum "$T/idf/.git/config"
    (cd "$SOURCE_DIR/firmware" && find . -type f | LC_ALL=C sort | xargs sha256sum)
}
repo_state >"$T/state0"
export VBPW=lab-secret-1
board_ip=$(free_address) pc_ip=$(free_address) # addresses of their own: no port shared with a parallel test
"$VBOARD" --chip esp32s3 --flash "$T/b.flash" --link "$T/b.tty" --sync-resets --no-baud-timing --no-flash-timing \
    --ip "$board_ip" --ap "lab:env:VBPW:-40" >"$T/b.vb.out" 2>"$T/b.vb.err" &
vb=$!
for _ in $(seq 100); do [ -e "$T/b.tty" ] && break; sleep 0.05; done
(
    . "$T/other/export.sh" >/dev/null 2>&1
    export IDF_TARGET=esp32c3
    [ -n "$IDF_PYTHON_ENV_PATH" ] || exit 9
    "$ESPBENCH" bisect --idf-repo "$T/idf" --good v5.2.1 --bad master --chip esp32s3 --tier iperf --test tcp_tx \
        --port "$T/b.tty" --ssid lab --password-env VBPW --pc-address "$pc_ip" --stub off --threshold 80 \
        --duration 1 --interval 0.5 --repeats 2 --idf-cache "$T/cache" --out "$T/b" >"$T/o" 2>"$T/e"
) || fail "bisect: $(cat "$T/e" "$T/o")"
kill $vb 2>/dev/null; wait $vb 2>/dev/null
base=$(git -C "$T/idf" merge-base v5.2.1 master)
grep -q "^espbench bisect: --good v5.2.1 is not an ancestor of --bad master (a release branch?): bisecting from their merge base ${base:0:10} (v5.2.0), measured first$" "$T/e" \
    || fail "no merge-base line: $(cat "$T/e")"
grep -q "^step 1: ${base:0:10} " "$T/e" || fail "the merge base was not measured first: $(cat "$T/e")"
grep -q "^first bad commit: $bad .*Merge branch 'feature/4' into 'master'$" "$T/o" || fail "not the submodule bump: $(cat "$T/o" "$T/e")"
# Each measured commit's verdict is whether it holds the library bump (never a rate), and the board
# was told two figures only: the good library's and a twentieth of it, twice per measured commit.
n_steps=0
while read -r c mark; do
    n_steps=$((n_steps + 1))
    want=good
    git -C "$T/idf" merge-base --is-ancestor "$bad" "$c" && want=bad
    [ "$mark" = "$want" ] || fail "$c judged $mark, holds the bump: $want: $(cat "$T/e")"
done < <(sed -n 's/^step [0-9]*: \([0-9a-f]*\) .* \(good\|bad\)\( (.*)\)\?$/\1 \2/p' "$T/e")
[ "$n_steps" -ge 3 ] && [ "$n_steps" -le 5 ] || fail "$n_steps commits measured (9 in range: 3..5): $(cat "$T/e")"
python3 - "$T/b.vb.err" "$n_steps" <<'PY' || fail "the board's shaping: $(grep shaped "$T/b.vb.err")"
import re, sys
v = [float(x) for x in re.findall(r"^vboard: iperf tcp_tx shaped to (\S+) Mbit/s$", open(sys.argv[1]).read(), re.M)]
assert len(v) >= 2 * int(sys.argv[2]), v  # a test retried after a stall (a busy machine) measures again
hi, lo = max(v), min(v)
assert set(v) == {hi, lo} and abs(lo - 0.05 * hi) <= 1e-4 * hi, v
PY
repo_state >"$T/state1"
diff "$T/state0" "$T/state1" >&2 || fail "the user's repository or the firmware sources changed"
[ ! -e "$T/b/idf-worktree" ] || fail "the worktree is still there"

# A stale submodule in the user's own checkout (build --idf): ESP-IDF's build
# only warns; espbench says so in one line and keys on what is checked out.
git -C "$T/idf/components/esp_wifi/lib" checkout -q HEAD~1
"$ESPBENCH" build --idf "$T/idf" --chip esp32s3 --cache "$T/cache" >"$T/o2" 2>"$T/e2" || fail "build: $(cat "$T/e2")"
grep -qx "espbench build: warning: ESP-IDF v5.3.0 ($(cd "$T/idf" && pwd -P)): 1 submodule not at the commit's, e.g. components/esp_wifi/lib (out of date); built as checked out (git submodule update --init --recursive to follow HEAD)" "$T/e2" \
    || fail "no stale-submodule warning: $(cat "$T/e2")"
grep -q 'built in' "$T/e2" || fail "the stale tree was a cache hit: $(cat "$T/e2")"
log="$(dirname "$(awk '{print $4}' "$T/o2")")/build.log"
grep -q "Git submodule components/esp_wifi/lib is out of date. Run the following command to fix: git submodule update --init --recursive" "$log" \
    || fail "the fake idf.py did not warn: $(cat "$log")"
echo "bisect_release: ok"
