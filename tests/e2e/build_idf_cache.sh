#!/usr/bin/env bash
# espbench build over fake ESP-IDF checkouts (tests/e2e/lib/fake_idf.sh): two
# checkouts build once each, a second invocation builds nothing (the progress
# lines and the fake idf.py's own count say so), the images carry each
# checkout's version and test-only efficiency factor, a checkout that does not
# build is one line with its log's path while the others go on (exit 3), a
# folder that is no ESP-IDF is refused (exit 2), and a killed build leaves no
# cache hit.
source "$(dirname "$0")/lib/flash_helpers.sh"
source "$(dirname "$0")/lib/fake_idf.sh"
source "$(dirname "$0")/lib/shaped.sh"
export VBOARD

fake_idf_repo "$T/idf-a" 2
FAKE_IDF_MINOR=4 fake_idf_repo "$T/idf-b" 3 2 0.5
fake_idf_repo "$T/idf-bad" 1 0 1.0 1 1
cache=$T/cache

"$ESPBENCH" build --idf "$T/idf-a,$T/idf-b" --chip esp32s3 --cache "$cache" >"$T/out1" 2>"$T/err1" \
    || fail "first build: $(cat "$T/err1")"
grep -Eq '^build 1/2: esp32s3 with ESP-IDF v5\.3\.0 \([0-9a-f]{7}\)\.\.\. built in [0-9.]+ s$' "$T/err1" \
    || fail "no 'built' line for A: $(cat "$T/err1")"
grep -Eq '^build 2/2: esp32s3 with ESP-IDF v5\.4\.0 \([0-9a-f]{7}\)\.\.\. built in [0-9.]+ s$' "$T/err1" \
    || fail "no 'built' line for B: $(cat "$T/err1")"
[ "$(fake_idf_builds "$T/idf-a")" = 1 ] && [ "$(fake_idf_builds "$T/idf-b")" = 1 ] || fail "not one build each"
[ "$(wc -l <"$T/out1")" = 2 ] || fail "stdout: $(cat "$T/out1")"
dir_b=$(awk '$2 == "v5.4.0" {print $4}' "$T/out1")
[ -f "$dir_b/flasher_args.json" ] && [ -f "$dir_b/espbench.bin" ] || fail "no image in '$dir_b'"
[ "$(awk '$2 == "v5.4.0" {print $3}' "$T/out1")" = "$(git -C "$T/idf-b" rev-parse HEAD)" ] || fail "commit of B"
# The image B's HEAD built: its version string and its factor (commit 3 >= 2: 0.5) in the descriptor.
python3 - "$dir_b/espbench.bin" <<'PY' || fail "B's image descriptor"
import struct, sys
d = open(sys.argv[1], "rb").read()
desc = d[32:32 + 256]
assert struct.unpack_from("<I", desc, 0)[0] == 0xABCD5432
assert desc[112:144].rstrip(b"\0") == b"v5.4-dev-3", desc[112:144]
magic, ppm = struct.unpack_from("<II", desc, 240)
assert magic == 0x46544245 and ppm == 500000, (hex(magic), ppm)
PY
[ -f "$(dirname "$dir_b")/build.log" ] || fail "no build log kept"

# The built image on a virtual board (run --sim-image): its version in the entry's
# provenance, its factor (0.5) in the figure.
ESPBENCH_VBOARD=$VBOARD "$ESPBENCH" run --chip esp32s3 --tier iperf --tests tcp_tx --sim --sim-image "$dir_b/espbench.bin" \
    --duration 2 --out "$T/run" >"$T/run.out" 2>&1 || fail "run with the built image: $(cat "$T/run.out")"
python3 - "$T/run/results.json" <<'PY' || fail "the built image's run"
import json, sys
e = json.load(open(sys.argv[1]))["entries"][0]
assert e["provenance"]["idf_version"] == "v5.4-dev-3", e["provenance"]
PY
shaped_check "$T/run" 'want=0.5 * e["ref_mbps"]' || fail "the built image's factor is not in its figure"

# Second invocation: everything cached, idf.py not run.
"$ESPBENCH" build --idf "$T/idf-a,$T/idf-b" --chip esp32s3 --cache "$cache" >"$T/out2" 2>"$T/err2" \
    || fail "second build: $(cat "$T/err2")"
[ "$(grep -c '\.\.\. cached$' "$T/err2")" = 2 ] || fail "not all cached: $(cat "$T/err2")"
[ "$(fake_idf_builds "$T/idf-a")" = 1 ] && [ "$(fake_idf_builds "$T/idf-b")" = 1 ] || fail "idf.py ran again"
cmp -s "$T/out1" "$T/out2" || fail "cached results differ"

# Another chip is another key.
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32c3 --cache "$cache" >/dev/null 2>"$T/err3" || fail "$(cat "$T/err3")"
[ "$(fake_idf_builds "$T/idf-a")" = 2 ] || fail "esp32c3 not built"

# A checkout that does not build: one line with IDF, chip and log; the others go on; exit 3.
rc=0
"$ESPBENCH" build --idf "$T/idf-bad,$T/idf-a" --chip esp32s3 --cache "$cache" >"$T/out4" 2>"$T/err4" || rc=$?
[ $rc = 3 ] || fail "exit $rc for a failed build (expected 3): $(cat "$T/err4")"
line=$(grep FAILED "$T/err4") || fail "no FAILED line: $(cat "$T/err4")"
[ "$(grep -c FAILED "$T/err4")" = 1 ] || fail "more than one failure line"
log=${line##*; see }
expect="build 1/2: esp32s3 with ESP-IDF v5.3.0 ($(git -C "$T/idf-bad" rev-parse --short=7 HEAD))... FAILED: build esp32s3 with ESP-IDF v5.3.0 ($(cd "$T/idf-bad" && pwd -P)) failed: idf.py exited with status 1; see $log"
[ "$line" = "$expect" ] || fail "failure line: '$line' (expected '$expect')"
grep -q "this commit does not build" "$log" || fail "the log $log lacks idf.py's error"
grep -q '^build 2/2: .*cached$' "$T/err4" || fail "the other build did not go on"
[ "$(wc -l <"$T/out4")" = 1 ] || fail "stdout after a failure: $(cat "$T/out4")"

# Not an ESP-IDF: exit 2 with the header it looked for.
mkdir -p "$T/empty"
rc=0
"$ESPBENCH" build --idf "$T/empty" --chip esp32 --cache "$cache" 2>"$T/err5" || rc=$?
[ $rc = 2 ] || fail "exit $rc for a folder that is no ESP-IDF"
[ "$(cat "$T/err5")" = "espbench: --idf $T/empty: no components/esp_common/include/esp_idf_version.h there: not an ESP-IDF checkout" ] \
    || fail "message: $(cat "$T/err5")"
rc=0
"$ESPBENCH" build --chip esp32 2>"$T/err6" || rc=$?
[ $rc = 2 ] && grep -q 'no ESP-IDF checkout given' "$T/err6" || fail "usage: $rc $(cat "$T/err6")"

# A killed build leaves no cache hit: idf.py that hangs, espbench killed mid-build.
fake_idf_repo "$T/idf-slow" 1
sed -i 's|^mkdir -p "$build"$|mkdir -p "$build"; [ -e "$top/../slow" ] \&\& sleep 30|' "$T/idf-slow/tools/idf.py"
touch "$T/slow"
git -C "$T/idf-slow" commit -qam slow
"$ESPBENCH" build --idf "$T/idf-slow" --chip esp32 --cache "$cache" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do [ "$(fake_idf_builds "$T/idf-slow")" = 1 ] && break; sleep 0.1; done
sleep 0.3
kill -TERM $pid
wait $pid || true
rm -f "$T/slow"
"$ESPBENCH" build --idf "$T/idf-slow" --chip esp32 --cache "$cache" >/dev/null 2>"$T/err7" || fail "$(cat "$T/err7")"
grep -q 'built in' "$T/err7" || fail "a killed build left a cache hit: $(cat "$T/err7")"
pgrep -f "$T/idf-slow" >/dev/null && fail "a build process outlived espbench"
echo "build_idf_cache: ok"
