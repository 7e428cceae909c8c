# Shared by the flash_/detect_/rfc2217_/fetch_ e2e scripts (sourced, not run).
# Env from ctest: ESPBENCH, VBOARD, SOURCE_DIR, BUILD_DIR, FIXTURES_DIR.
set -euo pipefail
: "${ESPBENCH:?}" "${VBOARD:?}" "${SOURCE_DIR:?}"

T=$(mktemp -d /tmp/espbench-e2e.XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# for_each_chip FUNC: runs FUNC CHIP for every chip at once, each in a subshell
# that stops its own boards and servers; fails if any did. Most of a flash is
# waiting on ptys and sockets, so the chips overlap well even on 2 cores.
for_each_chip() {
    local fn=$1 pids=() names=() rc=0
    for chip in $(chips); do
        (
            PIDS=()
            trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait' EXIT
            "$fn" "$chip"
        ) >"$T/$chip.log" 2>&1 &
        pids+=($!)
        names+=("$chip")
    done
    for i in "${!pids[@]}"; do
        if wait "${pids[$i]}"; then
            echo "ok ${names[$i]}"
        else
            cat "$T/${names[$i]}.log" >&2
            rc=1
        fi
    done
    [ $rc = 0 ] || fail "some chips failed"
}

# All chips with a profile, from profiles/*.yaml.
chips() { for f in "$SOURCE_DIR"/profiles/*.yaml; do basename "$f" .yaml; done; }

# start_vboard NAME CHIP [vboard args...]: board on $T/NAME.tty, flash $T/NAME.flash.
# A pty carries no DTR/RTS, so espbench's --before reset cannot reach the board: --sync-resets
# stands in for it (a SYNC while the app runs enters the loader). With VB_STRICT=1 the board is as
# strict as a real one behind a port without lines (SYNC ignored while the app runs); such tests
# enter the loader through the control socket ('download').
start_vboard() {
    local name=$1 chip=$2 entry=(--sync-resets)
    shift 2
    [ "${VB_STRICT:-0}" = 1 ] && entry=()
    "$VBOARD" --chip "$chip" --flash "$T/$name.flash" --link "$T/$name.tty" "${entry[@]}" "$@" \
        >"$T/$name.vb.out" 2>"$T/$name.vb.err" &
    PIDS+=($!)
    eval "VB_PID_$name=$!"
    for _ in $(seq 100); do [ -e "$T/$name.tty" ] && return 0; sleep 0.05; done
    cat "$T/$name.vb.err" >&2
    fail "vboard $name ($chip) did not come up"
}

# A free TCP port on 127.0.0.1.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start_ser2net NAME PORT ACCEPTER: ser2net 4.3 on 127.0.0.1:PORT in front of $T/NAME.tty.
# ACCEPTER is "telnet(rfc2217),tcp" (RFC 2217) or "tcp" (raw).
start_ser2net() {
    local name=$1 port=$2 acc=${3:-"telnet(rfc2217),tcp"}
    local pts
    pts=$(readlink -f "$T/$name.tty")
    cat >"$T/$name.ser2net.yaml" <<YAML
%YAML 1.1
---
connection: &$name
  accepter: $acc,127.0.0.1,$port
  connector: serialdev(nouucplock=true),$pts,115200n81,local
  options:
    kickolduser: true
YAML
    ser2net -n -d -c "$T/$name.ser2net.yaml" -P "$T/$name.ser2net.pid" >"$T/$name.ser2net.log" 2>&1 &
    PIDS+=($!)
    for _ in $(seq 100); do
        python3 -c "import socket; socket.create_connection(('127.0.0.1',$port),0.2).close()" 2>/dev/null && return 0
        sleep 0.05
    done
    cat "$T/$name.ser2net.log" >&2
    fail "ser2net for $name did not listen on $port"
}

# mkimage CHIP FILE SIZE [PROJECT]
mkimage() {
    "$VBOARD" mkimage --chip "$1" --project "${4:-e2e}" --idf v5.4 --size "$3" -o "$2" >/dev/null
}

# flash_matches FLASHFILE OFFSET IMAGE: the board's flash holds IMAGE at OFFSET.
flash_matches() {
    local size
    size=$(stat -c %s "$3")
    cmp -s -n "$size" "$3" <(tail -c +$(($2 + 1)) "$1" | head -c "$size") || fail "flash $1 at $2 differs from $3"
}

# bootloader offset of a chip from its profile.
boot_offset() { sed -n 's/^ *bootloader_offset: *\([0-9A-Fa-fx]*\).*/\1/p' "$SOURCE_DIR/profiles/$1.yaml"; }

# expect_fail CODE "message part" cmd...: exit code and one stderr line containing the text.
expect_fail() {
    local code=$1 want=$2 rc=0
    shift 2
    timeout 240 "$@" >"$T/out" 2>"$T/err" || rc=$?
    [ "$rc" = "$code" ] || { cat "$T/err" >&2; fail "expected exit $code, got $rc: $*"; }
    grep -qF -- "$want" "$T/err" || { cat "$T/err" >&2; fail "expected '$want' in stderr of: $*"; }
}

# vb_ctl NAME COMMAND: one control-socket command to the board started with --control $T/NAME.ctl;
# prints the reply (e.g. "download" puts the board into download mode, as BOOT+EN would).
vb_ctl() {
    python3 - "$T/$1.ctl" "$2" <<'PY'
import socket, sys, time
for _ in range(100):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); break
    except OSError:
        time.sleep(0.05)
else:
    sys.exit("no control socket " + sys.argv[1])
s.sendall(sys.argv[2].encode() + b"\n"); s.settimeout(5)
print(s.recv(4096).decode().strip())
PY
}

# iram_start CHIP: the chip's instruction RAM start from its profile (memory_map iram, or its base's).
iram_start() {
    local f="$SOURCE_DIR/profiles/$1.yaml" v base
    v=$(sed -n 's/^ *memory_map:.*iram: *\(0x[0-9A-Fa-f]*\).*/\1/p' "$f")
    if [ -z "$v" ]; then
        base=$(sed -n 's/^  base: *\([a-z0-9]*\).*/\1/p' "$f")
        [ -n "$base" ] && v=$(iram_start "$base")
    fi
    echo "$v"
}

# stub_upload TTY CHIP: puts the board on TTY into flasher-stub mode as esptool-js does (SYNC, then
# a stub segment in the chip's IRAM over MEM_BEGIN/DATA/END with an entry point inside it; it
# greets with OHAI), and leaves it there.
stub_upload() {
    python3 - "$1" "$(iram_start "$2")" <<'PY' || fail "could not put the board on $1 into stub mode"
import os, struct, sys, termios, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
a = termios.tcgetattr(fd); a[3] &= ~(termios.ICANON | termios.ECHO); a[4] = a[5] = termios.B115200
termios.tcsetattr(fd, termios.TCSANOW, a)
def slip(p): return b"\xc0" + p.replace(b"\xdb", b"\xdb\xdd").replace(b"\xc0", b"\xdb\xdc") + b"\xc0"
def send(op, data=b"", chk=0): os.write(fd, slip(struct.pack("<BBHI", 0, op, len(data), chk) + data))
def drain(t):
    end, got = time.monotonic() + t, b""
    while time.monotonic() < end:
        try:
            os.set_blocking(fd, False); got += os.read(fd, 4096)
        except BlockingIOError:
            time.sleep(0.02)
    return got
send(0x08, b"\x07\x07\x12\x20" + b"\x55" * 32); drain(0.5)
stub = bytes(range(256)) * 16
at = int(sys.argv[2], 16) + 0x1000
send(0x05, struct.pack("<IIII", len(stub), 1, len(stub), at)); drain(0.2)
chk = 0xEF
for b in stub: chk ^= b
send(0x07, struct.pack("<IIII", len(stub), 0, 0, 0) + stub, chk); drain(0.2)
send(0x06, struct.pack("<II", 0, at + 0x100))
if b"OHAI" not in drain(0.5):
    sys.exit("no OHAI: the board did not start the stub")
PY
}

# ms_since START_NS: milliseconds since a `date +%s%N` value.
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# esptool_js_modules: esptool-js (tests/node's pinned package) installed with npm ci into
# $BUILD_DIR/node-esptool-js, reused while the lock file is unchanged; prints its node_modules.
# Tests use its stub JSON files (lib/targets/stub_flasher/) as the installed stub source.
esptool_js_modules() {
    command -v npm >/dev/null || fail "npm is not installed (scripts/install-deps.sh --test)"
    local cache="${BUILD_DIR:?}/node-esptool-js"
    mkdir -p "$cache"
    (
        flock 9
        if ! cmp -s "$SOURCE_DIR/tests/node/package-lock.json" "$cache/package-lock.json" \
            || [ ! -f "$cache/node_modules/esptool-js/package.json" ]; then
            cp "$SOURCE_DIR/tests/node/package.json" "$SOURCE_DIR/tests/node/package-lock.json" "$cache/"
            (cd "$cache" && timeout 240 npm ci --no-audit --no-fund --loglevel=error) >&2
        fi
    ) 9>"$cache.lock" || fail "npm ci of esptool-js failed"
    echo "$cache/node_modules"
}
