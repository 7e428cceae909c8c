#!/usr/bin/env bash
# A `run --sim` killed with SIGKILL in the middle of a test leaves nothing
# running: the vboard and the PC's iperf2 (PR_SET_PDEATHSIG in spawn.c; iperf2 in its own
# process group) die with it within 10 s,
# instead of the iperf2 living on for its test time + 30 s. One test of each
# direction (PC server, PC client). The 50-round version is the bench's
# killresume section.
source "$(dirname "$0")/lib/run_helpers.sh"
for test in tcp_tx tcp_rx; do
    python3 - "$ESPBENCH" "$T/$test" "$test" <<'PY' || fail "$test: something outlived the killed run"
import os, signal, subprocess, sys, time
sys.path.insert(0, os.path.join(os.environ["SOURCE_DIR"], "bench"))
from benchlib import proctree
espbench, out, test = sys.argv[1:]
p = subprocess.Popen([espbench, "run", "--chip", "esp32", "--tier", "iperf", "--tests", test, "--sim",
                      "--duration", "20", "--interval", "1", "--out", out], stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True, start_new_session=True)
seen, t0 = {}, time.monotonic()
for line in p.stdout:
    if "started" in line:
        break
while time.monotonic() - t0 < 60:
    seen.update(proctree.descendants(p.pid))
    if "iperf" in seen.values() and "espbench-vboard" in seen.values():
        break
    time.sleep(0.05)
time.sleep(0.5)
names = sorted(set(seen.values()))
if "iperf" not in names:
    p.kill()
    sys.exit("no PC iperf seen: %s" % names)
os.kill(p.pid, signal.SIGKILL)  # espbench alone, not its group
p.wait()
left = proctree.wait_gone(seen, 10.0)  # an orphan would live its test time + 30 s
if left:
    proctree.kill_all(left)
    sys.exit("left running after SIGKILL: %s" % sorted(left.values()))
print("ok %s: %s all gone with espbench" % (test, names))
PY
done
echo ok
