#!/usr/bin/env bash
# A results folder reused: a --resume with another chip, duration or rate is
# refused naming each difference; a mistyped or empty folder is not resumed;
# two runs into one folder: the second is refused naming the first's pid, and
# the lock goes with a SIGKILLed holder; an --out the run cannot write (a
# file in the way, read-only, full) says why before any board starts; a PC
# iperf port taken is one line naming --iperf-port; logs carry board and chip.
source "$(dirname "$0")/lib/run_helpers.sh"

RUN=(run --sim --tier iperf --tests tcp_tx --duration 2 --interval 1 --warmup 0)

# A C3 folder.
expect_rc 0 "$ESPBENCH" "${RUN[@]}" --chip ESP32-C3 --out "$T/c3"
[ -s "$T/c3/console-sim-esp32c3.log" ] && [ -s "$T/c3/iperf-sim-esp32c3-iperf-tcp_tx-r0.log" ] ||
    { ls "$T/c3"; fail "logs not named by board and chip"; }
json_check "$T/c3" 'r["boards"][0]["chip"] == "esp32c3" and r["entries"][0]["chip"] == "esp32c3"'
# Resumed with another chip, duration and rate: refused, each difference named, nothing touched.
cp "$T/c3/results.json" "$T/before.json"
expect_rc 2 "$ESPBENCH" run --sim --tier iperf --tests tcp_tx --duration 3 --interval 1 --warmup 0 --udp-rate 20 \
    --chip esp32s3 --out "$T/c3" --resume
has "espbench: --resume: $T/c3 was made by another request (boards (--chip, --lab, --sim, --port, --dialect, --peer-*, --coprocessor): sim:esp32c3 then, sim:esp32s3 now; --duration: 2 then, 3 now; --udp-rate: per chip then, 20 now); resume with the same options, or choose another --out"
cmp -s "$T/before.json" "$T/c3/results.json" || fail "a refused resume changed results.json"
# The same request resumes (nothing left to do).
expect_rc 0 "$ESPBENCH" "${RUN[@]}" --chip esp32c3 --out "$T/c3" --resume
has "0 tests done, 1 skipped"
# A folder that is not there, or holds no run.
expect_rc 2 "$ESPBENCH" "${RUN[@]}" --chip esp32c3 --out "$T/c3-typo" --resume
has "espbench run: --resume: there is no folder $T/c3-typo (No such file or directory); check --out, or leave out --resume to start a new run there"
[ ! -e "$T/c3-typo" ] || fail "a resume made the mistyped folder"
mkdir "$T/empty"
expect_rc 2 "$ESPBENCH" "${RUN[@]}" --chip esp32c3 --out "$T/empty" --resume
has "espbench run: --resume: $T/empty holds no results (no results.json, no request.json): nothing to continue"

# Two runs into one folder: the second is refused while the first runs.
"$ESPBENCH" run --sim --tier iperf --tests tcp_tx,tcp_rx --duration 30 --interval 1 --warmup 0 --chip esp32c3 \
    --out "$T/busy" >"$T/first.out" 2>&1 &
FIRST=$!
BG+=($FIRST)
for _ in $(seq 300); do
    grep -q "^pid $FIRST$" "$T/busy/.lock" 2>/dev/null && break
    sleep 0.1
done
grep -q "^pid $FIRST$" "$T/busy/.lock" || { cat "$T/first.out"; fail "the first run did not take the lock"; }
expect_rc 2 "$ESPBENCH" "${RUN[@]}" --chip esp32c3 --out "$T/busy" --resume
has "espbench: $T/busy is in use by another espbench (pid $FIRST: $ESPBENCH run --sim --tier iperf --tests tcp_tx,tcp_rx --duration 30"
has "one run writes into a folder at a time: wait for it to end or choose another --out"
# SIGKILL: the kernel drops the lock with the process; the folder resumes.
kill -KILL $FIRST
wait $FIRST 2>/dev/null || true
expect_rc 2 "$ESPBENCH" "${RUN[@]}" --chip esp32c3 --out "$T/busy" --resume
has "was made by another request (--tests: tcp_tx,tcp_rx then, tcp_tx now; --duration: 30 then, 2 now)"
! grep -q "in use by another espbench" "$T/last.out" || fail "the killed run's lock outlived it"

# An --out that cannot take files: one line with the path and the cause, no board started.
echo x >"$T/afile"
expect_rc 3 "$ESPBENCH" "${RUN[@]}" --chip esp32c3 --out "$T/afile"
has "espbench: --out $T/afile: Not a directory"
! grep -q "starting a virtual" "$T/last.out" || fail "a board started before the folder was checked"
if unshare -m true 2>/dev/null; then
    mkdir -p "$T/mnt"
    unshare -m bash -c "mount -t tmpfs -o size=64k tmpfs '$T/mnt' && mount -o remount,ro '$T/mnt' &&
        '$ESPBENCH' ${RUN[*]} --chip esp32c3 --out '$T/mnt/run'" >"$T/last.out" 2>&1 && fail "read-only --out accepted" || true
    has "espbench: --out $T/mnt/run: cannot create the folder: Read-only file system"
    unshare -m bash -c "mount -t tmpfs -o size=64k tmpfs '$T/mnt' && mkdir '$T/mnt/run' &&
        dd if=/dev/zero of='$T/mnt/fill' bs=4k 2>/dev/null; '$ESPBENCH' ${RUN[*]} --chip esp32c3 --out '$T/mnt/run'" \
        >"$T/last.out" 2>&1 && fail "full --out accepted" || true
    has "espbench: --out $T/mnt/run: cannot "
    has ": No space left on device"
    ! grep -q "mkimage failed" "$T/last.out" || fail "the full disk showed as a vboard failure"
else
    echo "(no mount namespace: the read-only and full-disk cases are left out)"
fi

# The PC's iperf2 port taken: one line naming --iperf-port, before any board.
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$T/port" &
BG+=($!)
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
port=$(cat "$T/port")
expect_rc 2 "$ESPBENCH" "${RUN[@]}" --chip esp32c3 --pc-address 127.0.0.1 --iperf-port "$port" --out "$T/port-run"
has "espbench: PC port $port on 127.0.0.1 (TCP) is taken by another program (an iperf server left running?): pass --iperf-port N with a free port"
echo ok
