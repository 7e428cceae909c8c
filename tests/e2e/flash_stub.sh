#!/usr/bin/env bash
# --stub: where the flasher stub comes from and what happens without one. esptool-js's stub files
# (npm, tests/node) are the installed stub; an esptool package is laid out as pip installs it
# (targets/stub_flasher/1/CHIP.json) with those files; the pinned esp-flasher-stub download is
# served by a real HTTP server on 127.0.0.1 with a pin list of its own. Bad files: one line, exit 2.
# The ESP8266 ROM path is plain at 115200; through the stub it is compressed at 921600.
source "$(dirname "$0")/lib/flash_helpers.sh"
NM=$(esptool_js_modules)
JS="$NM/esptool-js/lib/targets/stub_flasher"
STUBS="$FIXTURES_DIR/stubs"

mkimage esp32c3 "$T/c3.bin" 150001
start_vboard c3 esp32c3 --no-baud-timing

# A clean environment: no Python or Node package anywhere espbench looks (HOME, venv, ESP-IDF,
# ./node_modules), nothing pinned, an empty cache.
mkdir -p "$T/home" "$T/cache" "$T/cwd"
clean=(env -u NODE_PATH -u VIRTUAL_ENV -u IDF_PYTHON_ENV_PATH HOME="$T/home" XDG_CACHE_HOME="$T/cache"
    ESPBENCH_STUB_PINS="$STUBS/no-pins.txt")

# flash_ok NAME ENV... ESPBENCH: flashes c3.bin (always written; $EXTRA: more flash options) and
# keeps stdout/stderr in $T/NAME.{out,err}.
flash_ok() {
    local name=$1
    shift
    (cd "$T/cwd" && timeout 240 "$@" flash --port "$T/c3.tty" --no-skip ${EXTRA:-} "$T/c3.bin@0x10000") \
        >"$T/$name.out" 2>"$T/$name.err" || { cat "$T/$name.out" "$T/$name.err"; fail "$name: flash"; }
}
want_line() { grep -qF -- "$2" "$T/$1.out" "$T/$1.err" || { cat "$T/$1.out" "$T/$1.err"; fail "$1: no '$2'"; }; }

# 1. Bad stub files: one line, exit 2, before the port is even opened.
expect_fail 2 "$STUBS/not-json.json:4:5: not valid JSON; a flasher stub file is the JSON esptool ships" \
    "$ESPBENCH" flash --port "$T/no-such-port" --stub "$STUBS/not-json.json" "$T/c3.bin@0x10000"
[ "$(wc -l <"$T/err")" = 1 ] || { cat "$T/err"; fail "bad stub file: more than one line"; }
expect_fail 2 "$STUBS/bad-base64.json: \"text\" is not base64 (character 5 is '*')" \
    "$ESPBENCH" flash --port "$T/no-such-port" --stub "$STUBS/bad-base64.json" "$T/c3.bin@0x10000"
expect_fail 2 "--stub $T/none.json: cannot read it: No such file or directory; give a stub JSON file, auto or off" \
    "$ESPBENCH" flash --port "$T/no-such-port" --stub "$T/none.json" "$T/c3.bin@0x10000"
# run takes --stub too: a bad file is refused before any board starts.
expect_fail 2 "$STUBS/not-json.json:4:5: not valid JSON; a flasher stub file is the JSON esptool ships" \
    "$ESPBENCH" run --chip esp32 --sim --tier iperf --stub "$STUBS/not-json.json" --out "$T/run-out"
[ ! -e "$T/run-out" ] || fail "run with a bad --stub started"
# 2. A stub for another chip: refused once the chip is known.
expect_fail 2 "$JS/esp32s3.json: this stub is for the ESP32-S3, but the board is an ESP32-C3; give the ESP32-C3's stub (esp32c3.json)" \
    "$ESPBENCH" flash --port "$T/c3.tty" --stub "$JS/esp32s3.json" "$T/c3.bin@0x10000"
[ "$(wc -l <"$T/err")" -le 2 ] || { cat "$T/err"; fail "wrong chip: more than its line"; }

# 3. Nothing installed: the ROM, and one line on how to get a faster one.
flash_ok none "${clean[@]}" "$ESPBENCH"
want_line none "loader: ROM"
want_line none "no flasher stub for the ESP32-C3 found (esptool, esptool-js or a pinned esp-flasher-stub download): flashing through the ROM loader; 'pip install esptool'"
[ "$(grep -c 'no flasher stub' "$T/none.err")" = 1 ] || fail "the no-stub line more than once"
EXTRA="--stub off" flash_ok off "$ESPBENCH"
want_line off "loader: ROM"
grep -q "no flasher stub" "$T/off.err" && fail "--stub off: no hint expected"

# 4. esptool-js found through NODE_PATH.
flash_ok js "${clean[@]}" NODE_PATH="$T/nothing:$NM" "$ESPBENCH"
want_line js "921600 baud, loader: stub: esptool-js 0.7.0 ($JS/esp32c3.json)"
flash_matches "$T/c3.flash" 0x10000 "$T/c3.bin"

# 5. An esptool package in a virtualenv, and in ESP-IDF's Python environment.
for var in VIRTUAL_ENV IDF_PYTHON_ENV_PATH; do
    pkg="$T/$var/lib/python3.11/site-packages/esptool"
    mkdir -p "$pkg/targets/stub_flasher/1"
    cp "$JS/esp32c3.json" "$pkg/targets/stub_flasher/1/"
    printf '__version__ = "4.8.1"\n' >"$pkg/__init__.py"
    flash_ok "$var" "${clean[@]}" "$var=$T/$var" NODE_PATH="$NM" "$ESPBENCH"
    want_line "$var" "loader: stub: esptool 4.8.1 ($pkg/targets/stub_flasher/1/esp32c3.json)"
done

# 6. The pinned download, served on 127.0.0.1: fetched into the cache, then used from there.
port=$(free_port)
mkdir -p "$T/www/download/v9.9.9"
cp "$JS/esp32c3.json" "$T/www/download/v9.9.9/"
python3 -m http.server --bind 127.0.0.1 --directory "$T/www" "$port" >"$T/http.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 600); do python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),0.2).close()" 2>/dev/null && break; sleep 0.05; done
sha=$(sha256sum "$JS/esp32c3.json" | cut -d' ' -f1)
printf '# chip sha256 url\nesp32c3 %s http://127.0.0.1:%s/download/v9.9.9/esp32c3.json\n' "$sha" "$port" >"$T/pins"
flash_ok dl "${clean[@]}" ESPBENCH_STUB_PINS="$T/pins" "$ESPBENCH"
want_line dl "loader: stub: esp-flasher-stub 9.9.9 ($T/cache/espbench/$sha)"
grep -q 'GET /download/v9.9.9/esp32c3.json' "$T/http.log" || fail "the stub was not downloaded"
rm "$T/www/download/v9.9.9/esp32c3.json"
flash_ok cached "${clean[@]}" ESPBENCH_STUB_PINS="$T/pins" "$ESPBENCH"
want_line cached "loader: stub: esp-flasher-stub 9.9.9"
# a file that is not the pinned one: not used, the ROM flashes, the line says why
cp "$JS/esp32c6.json" "$T/www/download/v9.9.9/esp32c3.json"
printf 'esp32c3 %s http://127.0.0.1:%s/download/v9.9.9/esp32c3.json\n' "$(printf '%064d' 0)" "$port" >"$T/pins-bad"
flash_ok badsha "${clean[@]}" ESPBENCH_STUB_PINS="$T/pins-bad" "$ESPBENCH"
want_line badsha "loader: ROM"
want_line badsha "could not download the pinned esp-flasher-stub file:"

# 7. ESP8266: the ROM writes plain at 115200 (it has neither FLASH_DEFL_* nor CHANGE_BAUDRATE);
# the stub compressed at 921600.
mkimage esp8266 "$T/e8.bin" 60000
start_vboard e8 esp8266 --no-baud-timing
timeout 240 "$ESPBENCH" flash --port "$T/e8.tty" --stub off "$T/e8.bin@0x10000" >"$T/e8rom.out" 2>"$T/e8rom.err" ||
    { cat "$T/e8rom.out" "$T/e8rom.err"; fail "esp8266 rom"; }
grep -qF "115200 baud, loader: ROM" "$T/e8rom.out" || { cat "$T/e8rom.out"; fail "esp8266 rom: not the ROM at 115200"; }
grep -qF "wrote 60000 bytes (60416 compressed)" "$T/e8rom.out" || { cat "$T/e8rom.out"; fail "esp8266 rom: not plain 1 KiB blocks"; }
grep -qF "the ESP8266 ROM cannot change its baud rate: staying at 115200 (a flasher stub can)" "$T/e8rom.err" || fail "esp8266: no baud line"
flash_matches "$T/e8.flash" 0x10000 "$T/e8.bin"
timeout 240 "$ESPBENCH" flash --port "$T/e8.tty" --no-skip --stub "$JS/esp8266.json" "$T/e8.bin@0x10000" \
    >"$T/e8stub.out" 2>"$T/e8stub.err" || { cat "$T/e8stub.out" "$T/e8stub.err"; fail "esp8266 stub"; }
grep -qF "921600 baud, loader: stub: file ($JS/esp8266.json)" "$T/e8stub.out" || { cat "$T/e8stub.out"; fail "esp8266 stub: not at 921600"; }
grep -q "wrote 60000 bytes ([0-9]* compressed)" "$T/e8stub.out" && ! grep -qF "(60416 compressed)" "$T/e8stub.out" ||
    { cat "$T/e8stub.out"; fail "esp8266 stub: not compressed"; }
flash_matches "$T/e8.flash" 0x10000 "$T/e8.bin"
echo ok
