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
# (the build's settings reach the figure through the model, a few % off the docs' one; the factor
# halves it: the figure the board chose, not what its traffic reached)
shaped_check "$T/run" 'ok=abs(v / (0.5 * e["ref_mbps"]) - 1) < 0.05' || fail "the built image's factor is not in its figure"

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
touch "$T/slow"
FAKE_IDF_SLOW_FILE=$T/slow "$ESPBENCH" build --idf "$T/idf-slow" --chip esp32 --cache "$cache" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do [ "$(fake_idf_builds "$T/idf-slow")" = 1 ] && break; sleep 0.1; done
sleep 0.3
kill -TERM $pid
wait $pid || true
rm -f "$T/slow"
"$ESPBENCH" build --idf "$T/idf-slow" --chip esp32 --cache "$cache" >/dev/null 2>"$T/err7" || fail "$(cat "$T/err7")"
grep -q 'built in' "$T/err7" || fail "a killed build left a cache hit: $(cat "$T/err7")"
pgrep -f "$T/idf-slow" >/dev/null && fail "a build process outlived espbench"
# The build runs on a copy of the firmware project: the component manager's
# dependencies.lock and managed_components/ land in the cache, not in the
# sources (and the downloads in CACHE/components), so a second build builds nothing.
fw_sum() { (cd "$SOURCE_DIR/firmware" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum); }
fw0=$(fw_sum)
[ ! -e "$SOURCE_DIR/firmware/dependencies.lock" ] && [ ! -e "$SOURCE_DIR/firmware/managed_components" ] \
    || fail "firmware sources hold component manager output"
[ -f "$(dirname "$dir_b")/project/dependencies.lock" ] || fail "no dependencies.lock in the build's project copy"
grep -q espressif/iperf "$cache/components/downloads" || fail "the component cache was not used"

# Two espbench processes on one key: one builds, the other waits for its lock
# and finds the image.
n=$(fake_idf_builds "$T/idf-b")
"$ESPBENCH" build --idf "$T/idf-b" --chip esp32c3 --cache "$cache" >"$T/race1" 2>&1 &
p1=$!
"$ESPBENCH" build --idf "$T/idf-b" --chip esp32c3 --cache "$cache" >"$T/race2" 2>&1 || fail "race: $(cat "$T/race2")"
wait $p1 || fail "race: $(cat "$T/race1")"
[ "$(fake_idf_builds "$T/idf-b")" = $((n + 1)) ] || fail "two builds of one key"
cmp -s <(grep -v '^build' "$T/race1") <(grep -v '^build' "$T/race2") || fail "race outputs differ"

# The folder a build ran in is the one it stays in: `idf.py -B DIR size` works on it.
( cd "$T/idf-b" && ./tools/idf.py -C "$(dirname "$dir_b")/project" -B "$dir_b" size ) >"$T/size" 2>&1 \
    || fail "idf.py size on the cached build: $(cat "$T/size")"

# From a shell where another version's export.sh was sourced, with IDF_TARGET
# exported: both would stop the build (the fake checks as ESP-IDF does).
(
    . "$T/idf-b/export.sh" >/dev/null 2>&1
    export IDF_TARGET=esp32c3
    [ "$IDF_PYTHON_ENV_PATH" = "$IDF_TOOLS_PATH/python_env/idf5.4_py3.11_env" ] || exit 9
    # The fake reproduces the failure without espbench's clean environment.
    out=$(. "$T/idf-a/export.sh" 2>&1); echo "$out" >"$T/leak-export"
    grep -q "^ERROR: Python environment is set to $IDF_TOOLS_PATH/python_env/idf5.4_py3.11_env which was generated for ESP-IDF 5.4 instead of the current 5.3\." "$T/leak-export" || exit 8
    [ "$("$T/idf-b/tools/idf.py" -C "$T/idf-b" -B "$T/leak-build" -DIDF_TARGET=esp32s3 build 2>&1)" = \
      "Target 'esp32s3' specified on command line is not consistent with target 'esp32c3' in the environment." ] || exit 7
    "$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --cache "$cache" --sdkconfig /dev/null >"$T/out8" 2>"$T/err8"
) || fail "build from a shell with another export: rc $? $(cat "$T/err8" "$T/leak-export" 2>/dev/null)"
grep -q '\.\.\. cached$' "$T/err8" || fail "leaked environment changed the key: $(cat "$T/err8")"

# A dirty ESP-IDF tree is another build; so is another compiler.
n=$(fake_idf_builds "$T/idf-a")
echo "/* local patch */" >> "$T/idf-a/components/esp_common/include/esp_idf_version.h"
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --cache "$cache" >/dev/null 2>"$T/err9" || fail "$(cat "$T/err9")"
grep -Eq '^build 1/1: esp32s3 with ESP-IDF v5\.3\.0 \([0-9a-f]{7}\+changes\)\.\.\. built in' "$T/err9" \
    || fail "a dirty tree was not rebuilt: $(cat "$T/err9")"
git -C "$T/idf-a" checkout -q -- .
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --cache "$cache" >/dev/null 2>"$T/err9a" || fail "$(cat "$T/err9a")"
grep -q 'cached$' "$T/err9a" || fail "the clean tree again was not cached: $(cat "$T/err9a")"
# Another compiler under IDF_TOOLS_PATH (an updated toolchain), the tree unchanged.
gcc=$IDF_TOOLS_PATH/tools/esp-gcc/13.2.0_20240530/bin/xtensa-esp-elf-gcc
sed -i 's/13\.2\.0"/13.2.0 (patched)"/' "$gcc"
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --cache "$cache" >/dev/null 2>"$T/err9b" || fail "$(cat "$T/err9b")"
grep -q 'built in' "$T/err9b" || fail "another compiler was not rebuilt: $(cat "$T/err9b")"
[ "$(fake_idf_builds "$T/idf-a")" = $((n + 2)) ] || fail "builds: $(fake_idf_builds "$T/idf-a")"

# A missing Python environment: one line naming export's error and install.sh, exit 2, nothing built.
rm -rf "$IDF_TOOLS_PATH/python_env/idf5.4_py3.11_env"
rc=0
"$ESPBENCH" build --idf "$T/idf-a,$T/idf-b" --chip esp32s3 --cache "$cache" >"$T/out10" 2>"$T/err10" || rc=$?
[ $rc = 2 ] || fail "exit $rc for a missing Python environment: $(cat "$T/err10")"
[ "$(wc -l <"$T/err10")" = 1 ] || fail "not one line: $(cat "$T/err10")"
idf_b=$(cd "$T/idf-b" && pwd -P)
expect="espbench: ESP-IDF v5.4.0 ($idf_b): its environment is not set up: export.sh did not set IDF_PATH to this checkout (IDF_PATH=unset) (export.sh: ERROR: ESP-IDF Python virtual environment \"$IDF_TOOLS_PATH/python_env/idf5.4_py3.11_env/bin/python\" not found. Please run the install script to set it up before proceeding.); run $idf_b/install.sh esp32s3"
[ "$(cat "$T/err10")" = "$expect" ] || fail "message: $(cat "$T/err10") (expected $expect)"
"$T/idf-b/install.sh" >/dev/null

# Below the firmware's lowest ESP-IDF: refused up front in one line.
FAKE_IDF_MINOR=1 fake_idf_repo "$T/idf-old" 1
rc=0
"$ESPBENCH" build --idf "$T/idf-a,$T/idf-old" --chip esp32s3 --cache "$cache" 2>"$T/err11" || rc=$?
[ $rc = 2 ] && [ "$(cat "$T/err11")" = "espbench: --idf $T/idf-old: ESP-IDF v5.1.0 is older than the firmware supports; the espbench firmware is checked with v5.1.2 to v6.0.x (docs/firmware.md, \"Checking against ESP-IDF\"): use a newer checkout" ] \
    || fail "old version: $rc $(cat "$T/err11")"

# No network and the component not cached: an environment error naming it.
rc=0
FAKE_IDF_OFFLINE=1 "$ESPBENCH" build --idf "$T/idf-a" --chip esp32c6 --cache "$T/cache-offline" 2>"$T/err12" || rc=$?
[ $rc = 2 ] || fail "offline: exit $rc $(cat "$T/err12")"
grep -q "FAILED: build esp32c6 with ESP-IDF v5.3.0 (.*) failed: the component manager needs the network for espressif/iperf and has none (the downloads are kept in $T/cache-offline/components once fetched); see .*failed.log$" "$T/err12" \
    || fail "offline message: $(cat "$T/err12")"
[ "$(fw_sum)" = "$fw0" ] || fail "the firmware sources changed"

# --tier all: an image per tier without PSRAM, each with its settings rendered
# from the profiles (the minimum tier's lwIP window in its sdkconfig), cached.
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --tier all --cache "$cache" >"$T/out13" 2>"$T/err13" \
    || fail "--tier all: $(cat "$T/err13")"
[ "$(awk '{print $5}' "$T/out13" | tr '\n' ' ')" = "iperf default minimum " ] || fail "tiers: $(cat "$T/out13")"
dmin=$(awk '$5 == "minimum" {print $4}' "$T/out13")
grep -qx 'CONFIG_LWIP_TCP_WND_DEFAULT=6144' "$dmin/sdkconfig" || fail "minimum's window: $(grep WND "$dmin/sdkconfig")"
grep -qx '"LWIP_TCP_WND_DEFAULT": 6144,' <(tr -d ' ' <"$dmin/config/sdkconfig.json" | sed 's/:/: /') \
    || fail "sdkconfig.json: $(cat "$dmin/config/sdkconfig.json")"
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --tier all --cache "$cache" >/dev/null 2>"$T/err14" || fail "$(cat "$T/err14")"
[ "$(grep -c 'cached$' "$T/err14")" = 3 ] || fail "tier images not cached: $(cat "$T/err14")"
# --manifest: the stock iperf example per tier, in a firmware manifest that
# `espbench flash --firmware iperf-example --tier T` (and run) read.
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --tier all --project iperf-example --cache "$cache" \
    --manifest "$T/m.json" >"$T/out16" 2>"$T/err16" || fail "--manifest: $(cat "$T/err16")"
grep -q "^espbench build: 3 image sets in the manifest $T/m.json$" "$T/err16" || fail "$(cat "$T/err16")"
dmin=$(awk '$5 == "minimum" {print $4}' "$T/out16")
[ -f "$dmin/iperf.bin" ] || fail "the iperf example's image: $(ls "$dmin")"
"$VBOARD" --chip esp32s3 --flash "$T/m.flash" --link "$T/m.tty" --sync-resets --no-baud-timing --no-flash-timing \
    >/dev/null 2>"$T/m.vb.err" &
vbm=$!
for _ in $(seq 100); do [ -e "$T/m.tty" ] && break; sleep 0.05; done
"$ESPBENCH" flash --port "$T/m.tty" --firmware iperf-example --tier minimum --manifest "$T/m.json" --stub off \
    >"$T/flash16" 2>&1 || fail "flash from the manifest: $(cat "$T/flash16")"
kill $vbm; wait $vbm 2>/dev/null
cmp -s <(dd if="$T/m.flash" bs=4096 skip=16 count=$(( ($(stat -c %s "$dmin/iperf.bin") + 4095) / 4096 )) 2>/dev/null | head -c "$(stat -c %s "$dmin/iperf.bin")") "$dmin/iperf.bin" \
    || fail "the minimum tier's image is not at 0x10000"
rc=0
"$ESPBENCH" build --idf "$T/idf-a" --chip esp32s3 --tier psram-oct-iperf --cache "$cache" 2>"$T/err15" || rc=$?
[ $rc = 2 ] && grep -q "^espbench: --tier psram-oct-iperf: a PSRAM tier; its PSRAM options depend on the board" "$T/err15" \
    || fail "PSRAM tier: $rc $(cat "$T/err15")"
echo "build_idf_cache: ok"
