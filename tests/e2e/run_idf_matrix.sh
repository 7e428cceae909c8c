#!/usr/bin/env bash
# run --idf over two fake ESP-IDF checkouts (tests/e2e/lib/fake_idf.sh): each
# checkout's firmware is built once, measured on a virtual board in a run
# folder of its own, and the runs merged into one results.json whose entries
# carry each IDF's version and commit; the test-only efficiency factor of B
# (0.5) shows in B's figures; the report shows the By ESP-IDF version matrix;
# a second run builds nothing; a checkout that does not build is one line and
# the other IDF is still measured (exit 3); on a board (the virtual board over
# its pty, the hardware path) each build is flashed with the flash job.
source "$(dirname "$0")/lib/run_helpers.sh"
LO=$(loopback_ip) # the board and the PC side on an address of this test's own
source "$(dirname "$0")/lib/fake_idf.sh"
export VBOARD
export ESPBENCH_VBOARD=$VBOARD

fake_idf_repo "$T/idf-a" 2
FAKE_IDF_MINOR=4 fake_idf_repo "$T/idf-b" 2 1 0.5
fake_idf_repo "$T/idf-bad" 1 0 1.0 1 1
cache=$T/cache
run() { "$ESPBENCH" run --chip esp32s3 --tier iperf --tests tcp_tx,udp_rx --sim --duration 2 --interval 1 \
    --warmup 0 --idf-cache "$cache" "$@"; }

run --idf "$T/idf-a,$T/idf-b" --out "$T/m1" >"$T/o1" 2>"$T/e1" || fail "run --idf: $(cat "$T/e1" "$T/o1")"
grep -Eq '^build 1/2: esp32s3 with ESP-IDF .*idf-a\.\.\. v5\.3\.0 \([0-9a-f]{7}\) built in' "$T/e1" || fail "A built: $(cat "$T/e1")"
grep -Eq '^build 2/2: esp32s3 with ESP-IDF .*idf-b\.\.\. v5\.4\.0 \([0-9a-f]{7}\) built in' "$T/e1" || fail "B built: $(cat "$T/e1")"
grep -q '^2 ESP-IDF runs merged into' "$T/o1" || fail "no merge line: $(cat "$T/o1")"
[ "$(fake_idf_builds "$T/idf-a")" = 1 ] && [ "$(fake_idf_builds "$T/idf-b")" = 1 ] || fail "not one build each"
python3 - "$T/m1/results.json" "$(git -C "$T/idf-a" rev-parse HEAD)" "$(git -C "$T/idf-b" rev-parse HEAD)" <<'PY' \
    || fail "merged IDF matrix"
import json, sys
r = json.load(open(sys.argv[1]))
by = {}
for e in r["entries"]:
    p = e["provenance"]
    by.setdefault(p["idf_version"], []).append(e)
    want = sys.argv[2] if p["idf_version"] == "v5.3-dev-2" else sys.argv[3]
    assert p["idf_commit"] == want, (p["idf_version"], p["idf_commit"], want)
assert sorted(by) == ["v5.3-dev-2", "v5.4-dev-2"], sorted(by)
for v, es in by.items():
    assert len(es) == 2 and all(e["status"] == "ok" for e in es), (v, [(e["test"], e["status"]) for e in es])
PY
# B's efficiency factor is in the figure its board was shaped to: half A's, test by test (how the
# traffic follows is the bench's).
shaped_check "$T/m1" 'ok=v > 0' || fail "a test without a figure"
python3 - "$T/m1" <<'PY' || fail "B's board was not shaped to half A's figures"
import glob, json, os, re, sys
by = {}
for res in glob.glob(sys.argv[1] + "/*/results.json"):
    v = json.load(open(res))["entries"][0]["provenance"]["idf_version"]
    log = open(os.path.join(os.path.dirname(res), "sim-vboard.log")).read()
    by[v] = dict(re.findall(r"^vboard: iperf (\w+) shaped to (\S+) Mbit/s$", log, re.M))
a, b = by["v5.3-dev-2"], by["v5.4-dev-2"]
assert sorted(a) == sorted(b) == ["tcp_tx", "udp_rx"], (a, b)
for t in a:
    assert abs(float(b[t]) - 0.5 * float(a[t])) <= 1e-5 * float(a[t]), (t, a[t], b[t])
PY
"$ESPBENCH" report "$T/m1/results.json" --format md >"$T/r.md" 2>&1 || fail "report: $(cat "$T/r.md")"
grep -q '^## By ESP-IDF version' "$T/r.md" || fail "no IDF section: $(cat "$T/r.md")"
grep -q 'v5.3-dev-2.*v5.4-dev-2' "$T/r.md" || fail "IDF columns: $(grep -A4 'By ESP-IDF' "$T/r.md")"

# A second run (new folder): nothing built.
run --idf "$T/idf-a,$T/idf-b" --out "$T/m2" >"$T/o2" 2>"$T/e2" || fail "second run: $(cat "$T/e2")"
[ "$(grep -c ') cached$' "$T/e2")" = 2 ] || fail "not cached: $(cat "$T/e2")"
[ "$(fake_idf_builds "$T/idf-a")" = 1 ] && [ "$(fake_idf_builds "$T/idf-b")" = 1 ] || fail "idf.py ran again"

# A checkout that does not build: one line with its log, the other IDF measured, exit 3.
expect_rc 3 run --idf "$T/idf-bad,$T/idf-a" --out "$T/m3"
grep -Eq '^build 1/2: .*FAILED: build esp32s3 with ESP-IDF v5\.3\.0 \(.*idf-bad\) failed: .*; see .*\.log$' "$T/last.out" \
    || fail "failed build line: $(cat "$T/last.out")"
grep -q '^1 ESP-IDF run merged into' "$T/last.out" || fail "A not measured: $(cat "$T/last.out")"
has "1 of 2 ESP-IDF builds failed"

# A board (the virtual board on its pty, the path a real board takes): each
# build flashed with the flash job, then measured.
export VBPW=lab-secret-1
"$VBOARD" --chip esp32s3 --flash "$T/b.flash" --link "$T/b.tty" --sync-resets --no-baud-timing --no-flash-timing \
    --ip "$LO" --ap "lab:env:VBPW:-40" >"$T/b.vb.out" 2>"$T/b.vb.err" &
vb=$!
for _ in $(seq 100); do [ -e "$T/b.tty" ] && break; sleep 0.05; done
board() { "$ESPBENCH" run --chip esp32s3 --tier iperf --tests tcp_tx --duration 2 --idf "$T/idf-b" \
    --idf-cache "$T/cache" --port "$T/b.tty" --ssid lab --password-env VBPW --pc-address "$LO" --stub off "$@"; }
board --out "$T/m5" >"$T/o5" 2>"$T/e5" || fail "run --idf on a board: $(cat "$T/e5" "$T/o5")"
grep -q "^ESP-IDF v5.4.0: $T/b.tty flashed$" "$T/e5" || fail "not flashed: $(cat "$T/e5")"
grep -q "speaks espbench (espbench [0-9.]*, IDF v5.4-dev-2)" "$T/o5" "$T/e5" || fail "not the built image: $(cat "$T/o5")"
python3 - "$T/m5/results.json" <<'PY' || fail "board results"
import json, sys
e = json.load(open(sys.argv[1]))["entries"]
assert len(e) == 1 and e[0]["status"] == "ok" and e[0]["provenance"]["idf_version"] == "v5.4-dev-2", e
PY
kill $vb 2>/dev/null; wait $vb 2>/dev/null

# Usage: --idf needs one chip.
expect_rc 2 "$ESPBENCH" run --chip esp32s3,esp32 --tier iperf --idf "$T/idf-a" --sim --out "$T/m4"
has "--idf needs one --chip to build the firmware for"
