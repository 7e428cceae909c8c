"""4. Footprint: espbench's own CPU and memory while iperf moves 100 Mbit/s.

`espbench run --sim` over the bench-100 tier (all four tests). A sampler reads
/proc/PID/stat (utime+stime of the espbench process only: its threads, not
the vboard or iperf it spawns) and /proc/PID/status (VmRSS, VmHWM) every
SAMPLE_S. The test windows come from espbench's own progress lines ("started"
and the line with the test's mean), timestamped as they arrive."""
import os
import select
import shutil
import subprocess
import threading
import time

from .common import figure, kill_group, not_measured, target

SECTION = "footprint"
DURATION_S = 8
SAMPLE_S = 0.1
T_CPU = target("<", 0.02, "< 2 %")
T_RSS = target("<", 20.0, "< 20 MB")
NAMES = {
    "footprint.cpu_fraction": "espbench CPU seconds / wall seconds during the 100 Mbit/s tests",
    "footprint.peak_rss_mb": "espbench peak RSS (VmHWM, whole process life), MB = 10^6 bytes",
}
SPEC = {"footprint.cpu_fraction": (T_CPU, "ratio"), "footprint.peak_rss_mb": (T_RSS, "MB")}


def figure_ids():
    return list(SPEC)


def _nm(fid, why, details=None):
    return not_measured(fid, SECTION, NAMES[fid], SPEC[fid][1], SPEC[fid][0], why, details)


class Sampler(threading.Thread):
    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid = pid
        self.samples = []  # (t, cpu_s, rss_bytes, hwm_bytes)
        self.stop = threading.Event()
        self.tick = os.sysconf("SC_CLK_TCK")

    def read(self):
        with open("/proc/%d/stat" % self.pid) as f:
            stat = f.read()
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / self.tick  # utime, stime (fields 14, 15)
        rss = hwm = 0
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1]) * 1024
        return cpu, rss, hwm

    def run(self):
        while not self.stop.is_set():
            try:
                cpu, rss, hwm = self.read()
            except (OSError, ValueError, IndexError):
                break  # exited (or a zombie without status)
            if rss == 0 and hwm == 0:
                break
            self.samples.append((time.monotonic(), cpu, rss, hwm))
            self.stop.wait(SAMPLE_S)


def _at(samples, t):
    """The last sample taken at or before t (the first one if none)."""
    best = samples[0]
    for s in samples:
        if s[0] <= t:
            best = s
        else:
            break
    return best


def _run_once(ctx, args, env, err_name):
    """Runs espbench with the sampler; returns (rc, killed, lines, samples, err)."""
    err_path = os.path.join(ctx.out, err_name)
    with open(err_path, "wb") as err_f:
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=err_f, env=env, start_new_session=True)
    sampler = Sampler(p.pid)
    sampler.start()
    lines = []  # (t, text)
    deadline = time.monotonic() + ctx.cap(4 * (DURATION_S + 20) + 60)
    killed = False
    pending = b""
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                killed = True
                break
            r, _, _ = select.select([p.stdout], [], [], min(left, 0.5))
            if not r:
                continue
            chunk = os.read(p.stdout.fileno(), 65536)
            if not chunk:
                break
            now = time.monotonic()
            pending += chunk
            while b"\n" in pending:
                raw, pending = pending.split(b"\n", 1)
                lines.append((now, raw.decode("utf-8", "replace").rstrip()))
    finally:
        if killed or p.poll() is None:
            try:
                p.wait(timeout=max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                killed = True
                kill_group(p)
        sampler.stop.set()
        sampler.join(timeout=2)
        p.stdout.close()
        with open(err_path, "rb") as f:
            err = f.read().decode("utf-8", "replace")
    return p.returncode, killed, lines, sampler.samples, err


def measure(ctx):
    out = os.path.join(ctx.out, "footprint")
    args = [ctx.espbench, "run", "--sim", "--chip", "esp32", "--tier", "bench-100", "--duration", str(DURATION_S),
            "--interval", "1", "--out", out]
    env = ctx.env(ESPBENCH_PROFILES=ctx.bench_profiles)
    ctx.log("footprint: %s" % " ".join(args[1:]))
    ctx.settings["footprint"] = {"command": "espbench " + " ".join(args[1:]),
                                 "env": "ESPBENCH_PROFILES=bench/profiles", "sample_s": SAMPLE_S}
    first_failure = None
    for attempt in (1, 2):
        rc, killed, lines, samples, err = _run_once(ctx, args, env, "footprint-%d.stderr" % attempt)
        if rc == 0 or killed or attempt == 2 or any(" mean " in text for _, text in lines):
            break
        first_failure = "attempt 1: exit %s before any test: %s" % (
            rc, " | ".join([l for _, l in lines[-1:]] + err.strip().splitlines()[-2:]))
        ctx.log("footprint: " + first_failure)
        shutil.rmtree(out, ignore_errors=True)
    ctx.settings["footprint"].update(rc=rc, attempts=attempt)
    if first_failure:
        ctx.settings["footprint"]["first_attempt_failure"] = first_failure

    windows, start = [], None
    for t, text in lines:
        if text.endswith(": started"):
            start = t
        elif start is not None and (" mean " in text or "FAILED" in text):
            windows.append((start, t, "FAILED" not in text))
            start = None
    why = None
    if killed:
        why = "espbench run did not finish within its deadline"
    elif not samples:
        why = "no /proc samples of the espbench process"
    elif not any(ok for _, _, ok in windows):
        tail = " | ".join([l for _, l in lines[-2:]] + err.strip().splitlines()[-2:])
        why = "no 100 Mbit/s test finished (exit %s: %s)" % (rc, tail or "no output")
    if why:
        return [_nm(i, why) for i in figure_ids()]

    cpu = wall = 0.0
    rss_in_tests = 0
    for t0, t1, ok in windows:
        if not ok:
            continue
        a, b = _at(samples, t0), _at(samples, t1)
        if b[0] <= a[0]:
            continue
        cpu += b[1] - a[1]
        wall += b[0] - a[0]
        rss_in_tests = max([rss_in_tests] + [s[2] for s in samples if a[0] <= s[0] <= b[0]])
    hwm = max(s[3] for s in samples)
    life_cpu = samples[-1][1]
    life_wall = samples[-1][0] - samples[0][0]
    details = {"tests": sum(ok for _, _, ok in windows), "window_wall_s": round(wall, 2),
               "window_cpu_s": round(cpu, 3), "clock_tick_s": 1 / os.sysconf("SC_CLK_TCK"),
               "samples": len(samples), "peak_rss_in_tests_mb": round(rss_in_tests / 1e6, 2),
               "whole_run_cpu_s": round(life_cpu, 3), "whole_run_wall_s": round(life_wall, 2)}
    figs = []
    if wall > 0:
        figs.append(figure("footprint.cpu_fraction", SECTION, NAMES["footprint.cpu_fraction"],
                           round(cpu / wall, 5), "ratio", T_CPU, details))
    else:
        figs.append(_nm("footprint.cpu_fraction", "test windows too short to sample", details))
    figs.append(figure("footprint.peak_rss_mb", SECTION, NAMES["footprint.peak_rss_mb"], round(hwm / 1e6, 2), "MB",
                       T_RSS, details))
    return figs


def placeholder(fid, reason):
    return _nm(fid, reason)
