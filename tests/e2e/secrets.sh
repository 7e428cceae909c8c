#!/usr/bin/env bash
# The Wi-Fi password never shows: not in the argv of any process of a run
# (espbench, the vboard, the PC's iperf2: /proc/PID/cmdline read every 20 ms
# while `run --sim` goes, password from the environment and, in a second run,
# from a lab file's password_file), and not in results.json/.csv, console and
# iperf captures, the vboard log, espbench's own --verbose log, the JUnit XML
# of compare or any report format (HTML, Markdown, RST, CSV, JSON).
source "$(dirname "$0")/lib/run_helpers.sh"
SECRET=espbench-sim-wpa2   # the virtual AP's password (docs/run.md)

watch_run() { # OUT ARGS...: runs espbench --verbose ARGS, scanning argv of its process tree
    local out=$1
    shift
    python3 - "$SECRET" "$out" "$ESPBENCH" --verbose "$@" <<'PY'
import os, subprocess, sys, time
secret, out, args = sys.argv[1].encode(), sys.argv[2], sys.argv[3:]
log = open(out + ".log", "wb")
p = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
seen, scans = set(), 0
def tree(root):
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                s = open("/proc/%s/stat" % d).read()
                kids.setdefault(int(s[s.rfind(")") + 2:].split()[1]), []).append(int(d))
            except OSError:
                pass
    todo, out = [root], [root]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out
while p.poll() is None:
    for pid in tree(p.pid):
        try:
            argv = open("/proc/%d/cmdline" % pid, "rb").read()
        except OSError:
            continue
        seen.add(os.path.basename(argv.split(b"\0")[0]).decode(errors="replace"))
        if secret in argv:
            p.kill()
            sys.exit("FAIL: the password is in the argv of pid %d: %r" % (pid, argv))
    scans += 1
    time.sleep(0.02)
need = {"espbench", "espbench-vboard", "iperf"}
if not need <= seen:
    log.close()
    sys.exit("FAIL: saw only %s of the run's processes (%d scans; exit %s): %s"
             % (sorted(seen), scans, p.returncode, open(out + ".log", errors="replace").read()[-1500:]))
print("argv clean in %d scans of %s" % (scans, sorted(seen)))
sys.exit(p.returncode)
PY
}

export ESPBENCH_WIFI_PASSWORD=$SECRET
watch_run "$T/env" run --chip esp32 --tier iperf --tests tcp_tx,udp_rx --sim --duration 2 --interval 1 \
    --warmup 0 --out "$T/env" || fail "the run with the password from the environment"
unset ESPBENCH_WIFI_PASSWORD
mkdir -p "$T/lab"
printf '%s\n' "$SECRET" >"$T/lab/wifi.secret"
cat >"$T/lab/lab.yaml" <<'YAML'
ap:
  ssid: espbench-sim
  password_file: wifi.secret
pc:
  address: 127.0.0.1
boards:
  - name: bench-esp32
    chip: esp32
YAML
# udp_rx as in the first run: compare writes JUnit only for cells the two files share.
watch_run "$T/labrun" run --lab "$T/lab/lab.yaml" --sim --tier iperf --tests udp_rx --duration 2 --interval 1 \
    --warmup 0 --out "$T/labrun" || fail "the run with the password from a lab file's password_file"

# Everything the runs wrote, and every report of them.
R="$T/env/results.json"
"$ESPBENCH" compare "$R" "$T/labrun/results.json" --junit "$T/junit.xml" >"$T/compare.out" 2>&1 || true
[ -s "$T/junit.xml" ] || fail "no JUnit written"
for f in html md rst csv json; do
    "$ESPBENCH" report "$R" "$T/labrun/results.json" --format $f --vs-docs -o "$T/report.$f" ||
        fail "report --format $f"
done
ls "$T/env"/console-*.log "$T/env"/iperf-*.log "$T/env"/*-vboard.log >/dev/null || fail "captures missing"
hits=$(grep -rlF -- "$SECRET" "$T/env" "$T/labrun" "$T/env.log" "$T/labrun.log" "$T/junit.xml" "$T"/report.* \
    "$T/compare.out" || true)
[ -z "$hits" ] || fail "the password is in: $hits"
echo ok
