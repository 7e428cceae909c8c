#!/usr/bin/env bash
# A run on a terminal that closes (ssh dropped, the window shut): the kernel
# sends SIGHUP to the terminal's foreground process group. The run stops as
# on Ctrl-C: exit 4, the finished test kept in results.json, the virtual board
# and the PC's iperf2 gone within 10 s (an orphaned iperf2 would live its test time + 30 s),
# though nothing can be printed any more.
source "$(dirname "$0")/lib/run_helpers.sh"

python3 - "$ESPBENCH" "$T/out" <<'PY' || fail "a closed terminal did not stop the run cleanly"
import json, os, pty, sys, time
sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "bench"))
from benchlib import proctree
espbench, out = sys.argv[1:]
pid, master = pty.fork()  # the child: a new session with the pty as its controlling terminal
if pid == 0:
    os.execv(espbench, [espbench, "run", "--chip", "esp32", "--tier", "iperf", "--sim", "--duration", "3",
                        "--interval", "1", "--out", out])
buf, t0, seen = b"", time.monotonic(), {}
while b"[2/4]" not in buf:  # the progress line of the second test: the first is done
    if time.monotonic() - t0 > 60:
        sys.exit("the second test did not start: %r" % buf[-500:])
    try:
        buf += os.read(master, 4096)
    except OSError:
        sys.exit("terminal closed early: %r" % buf[-500:])
    seen.update(proctree.descendants(pid))
time.sleep(0.8)
seen.update(proctree.descendants(pid))
if "espbench-vboard" not in seen.values():
    sys.exit("no vboard seen: %s" % sorted(seen.values()))
os.close(master)  # the hang-up
deadline = time.monotonic() + 60
while True:
    wpid, status = os.waitpid(pid, os.WNOHANG)
    if wpid:
        break
    if time.monotonic() > deadline:
        os.kill(pid, 9)
        sys.exit("espbench still running 60 s after the hang-up")
    time.sleep(0.05)
rc = os.waitstatus_to_exitcode(status)
if rc != 4:
    sys.exit("exit %d after the hang-up, wanted 4" % rc)
left = proctree.wait_gone(seen, 10.0)  # an orphan would live its test time + 30 s
if left:
    proctree.kill_all(left)
    sys.exit("left running after the hang-up: %s" % sorted(left.values()))
r = json.load(open(os.path.join(out, "results.json")))
ok = [e for e in r["entries"] if e["status"] == "ok"]
if len(ok) != 1:
    sys.exit("wanted the one finished test kept, got %s" % [(e["test"], e["status"]) for e in r["entries"]])
print("ok: exit 4, %s kept, %s gone" % (ok[0]["test"], sorted(set(seen.values()))))
PY
echo ok
