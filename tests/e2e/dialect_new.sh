#!/usr/bin/env bash
# A stock console dialect added from data alone (no C):
# tests/fixtures/profiles/newdialect/dialects/idf-v6.2.yaml (base
# iperf-cmd-1.0, its own prompt "wifi> " and Wi-Fi commands wifi_join and
# wifi_scan, ESP-IDF 6.2 only) passed with --profiles. The vboard running an
# ESP-IDF v6.2 iperf image speaks it, the host detects and drives it, and
# results.json names it; without the file the same image speaks iperf-cmd-1.0.
# A bad row in a profiles directory stops with one line and exit 2.
source "$(dirname "$0")/lib/run_helpers.sh"
: "${FIXTURES_DIR:?}"
unset ESPBENCH_PROFILES
DIR="$FIXTURES_DIR/profiles/newdialect"

mkdir -p "$T/fw"
"$VBOARD" mkimage --chip esp32 --project iperf --idf v6.2 --version iperf -o "$T/fw/iperf.bin" >/dev/null
python3 - "$T/fw" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
img = {"offset": "0x10000", "file": "iperf.bin", "sha256": hashlib.sha256(open(d + "/iperf.bin", "rb").read()).hexdigest()}
json.dump({"schema": 1, "firmware": {"iperf-example": {"chips": {"esp32": {"tiers": {"iperf": {"images": [img]}}}}}}},
          open(d + "/manifest.json", "w"))
PY

# The vboard alone: the prompt and command names are the row's.
flash_with_app() { # flash file holding the v6.2 image at 0x10000
    python3 - "$T/fw/iperf.bin" "$1" <<'PY'
import sys
app = open(sys.argv[1], "rb").read()
flash = bytearray(b"\xff" * (4 << 20))
flash[0x10000:0x10000 + len(app)] = app
open(sys.argv[2], "wb").write(flash)
PY
}
cat >"$T/talk.py" <<'PY'
# usage: talk.py PTY PROMPT CMD... -> what the board answers to each command (after its prompt)
import os, select, sys, termios, time, tty
pty, prompt, cmds = sys.argv[1], sys.argv[2].encode(), sys.argv[3:]
fd = os.open(pty, os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd)
def until(text, secs=10):
    buf, end = b"", time.monotonic() + secs
    while text not in buf:
        left = end - time.monotonic()
        if left <= 0:
            sys.exit("no %r within %ss; got %r" % (text, secs, buf[-300:]))
        if select.select([fd], [], [], left)[0]:
            buf += os.read(fd, 4096)
    return buf
until(prompt)
for c in cmds:
    os.write(fd, c.encode() + b"\r\n")
    out = until(prompt).decode(errors="replace")
    print("%s => %s" % (c, " | ".join(l.strip() for l in out.splitlines() if l.strip())))
PY
board() { # profiles-args... -> talks to a fresh vboard; output in $T/talk
    flash_with_app "$T/flash.bin"
    rm -f "$T/tty"
    "$VBOARD" "$@" --chip esp32 --flash "$T/flash.bin" --link "$T/tty" >"$T/vb.out" 2>&1 &
    local pid=$!
    BG+=("$pid")
    for _ in $(seq 600); do [ -e "$T/tty" ] && break; sleep 0.05; done
    [ -e "$T/tty" ] || fail "vboard did not come up: $(cat "$T/vb.out")"
    timeout 240 python3 "$T/talk.py" "$T/tty" "$PROMPT" "sta_connect x" wifi_scan help >"$T/talk" \
        || fail "talking to the vboard: $(cat "$T/talk")"
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
PROMPT="wifi> " board --profiles "$DIR"
grep -q "^sta_connect x => .*Unrecognized command" "$T/talk" || fail "sta_connect not refused: $(cat "$T/talk")"
grep -q "^wifi_scan => .*SCAN_DONE" "$T/talk" || fail "wifi_scan: $(cat "$T/talk")"
grep -q "^help => .*wifi_join |" "$T/talk" || fail "help lacks wifi_join: $(cat "$T/talk")"
echo "ok the vboard speaks idf-v6.2 from the YAML row"
# Without the file the same image is iperf-cmd-1.0's (the test above can fail).
PROMPT="iperf> " board
grep -q "^help => .*sta_connect |" "$T/talk" || fail "without the row: $(cat "$T/talk")"
echo "ok without the row the image speaks iperf-cmd-1.0"

# The whole run: detected from the release, driven with the row's commands.
OUT="$T/out"
expect_rc 0 timeout 240 "$ESPBENCH" --profiles "$DIR" run --chip esp32 --sim --sim-project iperf --sim-idf v6.2 \
    --manifest "$T/fw/manifest.json" --tier iperf --tests tcp_rx,udp_tx --duration 2 --interval 1 --warmup 0 \
    --out "$OUT"
has "speaks idf-v6.2"
has "2 tests done, 0 skipped, 0 failed of 2"
json_check "$OUT" 'r["boards"][0]["dialect"] == "idf-v6.2" and r["boards"][0]["idf_version"] == "v6.2"'
json_check "$OUT" '[e["status"] for e in r["entries"]] == ["ok", "ok"]'
shaped_check "$OUT"
grep -q "^> wifi_scan espbench-sim$" "$OUT/console-sim-esp32.log" || fail "the run did not scan with wifi_scan"
grep -q "^> wifi_join espbench-sim \*\*\*\*$" "$OUT/console-sim-esp32.log" || fail "the run did not join with wifi_join"
! grep -q "sta_connect\|sta_scan" "$OUT/console-sim-esp32.log" || fail "the run used iperf-cmd-1.0's commands"
# iperf-cmd 1.0's lines (the grammar) and its -b with a unit suffix
grep -q "^\[  1\]  0.0- 1.0 sec	.* MBytes	.* Mbits/sec" "$OUT/console-sim-esp32.log" || fail "iperf-cmd 1.0 interval lines"
grep -q "^> iperf -c .* -u -b [0-9.]*m$" "$OUT/console-sim-esp32.log" || fail "-b with the m suffix"
! grep -q "runtime error" "$T/last.out" || { cat "$T/last.out" >&2; fail "sanitizer error"; }
echo "ok espbench run detects and drives idf-v6.2"

# `profiles list` shows the row beside the shipped ones.
"$ESPBENCH" --profiles "$DIR" profiles list >"$T/list"
grep -q '^idf-v6.2 *iperf-cmd-1.0 *6.2-6.2 *"wifi> " *wifi_join .*newdialect/dialects/idf-v6.2.yaml$' "$T/list" \
    || fail "profiles list: $(cat "$T/list")"
grep -q '^iperf-cmd-1.0 *iperf-cmd-1.0 *6.1-latest *"iperf> " *sta_connect *dialects/iperf-cmd-1.0.yaml$' "$T/list" \
    || fail "profiles list (shipped row): $(cat "$T/list")"

# `parse` knows it by name too.
expect_rc 2 "$ESPBENCH" --profiles "$DIR" parse --dialect nosuch x.log
has "--dialect 'nosuch': unknown; one of auto, idf-legacy, esp8266, idf-v4.4, idf-v5.1, iperf-cmd-0.1, iperf-cmd-1.0, espbench, idf-v6.2"

# A bad row: one line naming file:line:col, exit 2, for run and profiles alike.
BAD="$FIXTURES_DIR/profiles/baddialect"
want="$BAD/dialects/idf-v6.2.yaml:8:12: 'connect' = 'wifi join': only printable ASCII without blanks, as the console types it"
expect_rc 2 "$ESPBENCH" --profiles "$BAD" profiles list
[ "$(cat "$T/last.out")" = "espbench: $want" ] || fail "profiles list: $(cat "$T/last.out")"
expect_rc 2 timeout 240 "$ESPBENCH" --profiles "$BAD" run --chip esp32 --sim --tests tcp_rx --duration 2 --warmup 0 --out "$T/bad"
grep -qF "$want" "$T/last.out" || fail "run: $(cat "$T/last.out")"
[ "$(wc -l <"$T/last.out")" -eq 1 ] || fail "run: not one line: $(cat "$T/last.out")"
expect_rc 2 "$ESPBENCH" --profiles "$BAD" parse x.log
[ "$(cat "$T/last.out")" = "espbench: $want" ] || fail "parse: $(cat "$T/last.out")"
echo ok
