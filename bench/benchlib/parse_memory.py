"""Parse memory: `espbench parse`'s peak RSS on a large generated log, against the log's size.

parse streams a log through a bounded line buffer (docs/results.md, memory): what it holds
grows with the results it will write, never with the log. Two generated ESP-IDF v4.4 board
logs of LOG_MB each (30 s TCP tests at 1 s intervals, the example's exact lines):
 - "noisy": each interval line among NOISE Wi-Fi/heap log lines, as a debug-level capture looks;
   its results fit what espbench reads back, and the figure is peak RSS / log size;
 - "dense": nothing but tests; its results would outgrow EB_RESULTS_MAX_BYTES, so parse stops
   with its message (exit 2) -- the peak RSS there is the bound's worst case.
Peak RSS is the child's ru_maxrss (os.wait4), one run each (memory does not depend on load)."""
import os
import subprocess
import time

from .common import figure, not_measured, target

SECTION = "parse_memory"
LOG_MB = 250
NOISE = 12
T_RATIO = target("<=", 0.25, "peak RSS ≤ 25 % of the log's size")
T_BOUND = target("<=", 256, "≤ 256 MB (the results cap) when parse stops at it")
NAMES = {
    "parse.rss_vs_log": "peak RSS of `espbench parse` / the log's size, %d MB noisy board log" % LOG_MB,
    "parse.rss_dense_mb": "peak RSS of `espbench parse` on a %d MB interval-only log (refused at the results cap)"
                          % LOG_MB,
}


def figure_ids():
    return list(NAMES)


def make_log(path, mb, noise):
    """ESP-IDF v4.4 example lines (../shared/reference/board-console-dialects.md 1.3-1.5)."""
    head = (b"ets Jun  8 2016 00:22:57\n\nrst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\n"
            b"I (29) boot: ESP-IDF v4.4.6 2nd stage bootloader\nI (210) cpu_start: Project name:     iperf\n"
            b"I (226) cpu_start: ESP-IDF:          v4.4.6\n")
    test = [b"iperf> iperf -c 192.168.1.2 -i 1 -t 30\n",
            b"I (9000) iperf: mode=tcp-client sip=192.168.1.79:5001, dip=192.168.1.2:5001, interval=1, time=30\n",
            b"I (9001) iperf: Successfully connected\n\n        Interval Bandwidth\n"]
    filler = b"D (9002) wifi:ampdu: tx ba ok, ssn=1234, win=64, tid=0\n"
    for i in range(30):
        test.append(filler * noise)
        test.append(b"%4d-%4d sec       %.2f Mbits/sec\n" % (i, i + 1, 21.0 + (i % 7) * 0.1))
    test.append(b"   0-  30 sec       21.30 Mbits/sec\nI (40100) iperf: TCP Socket client is closed.\n")
    block = b"".join(test)
    want = mb << 20
    with open(path, "wb") as f:
        f.write(head)
        n = len(head)
        while n + len(block) <= want:
            f.write(block)
            n += len(block)
    return n


def peak_rss(args):
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace").strip().splitlines()
    p.stderr.close()
    return p.returncode, ru.ru_maxrss * 1024, time.monotonic() - t0, err[-1] if err else ""


def measure(ctx):
    work = os.path.join(ctx.out, "parse_memory")
    os.makedirs(work, exist_ok=True)
    figs = []
    for kind, noise in (("noisy", NOISE), ("dense", 0)):
        log = os.path.join(work, kind + ".log")
        size = make_log(log, LOG_MB, noise)
        rc, rss, wall, last = peak_rss([ctx.espbench, "parse", log, "-o", os.path.join(work, kind + ".json")])
        d = {"log_bytes": size, "peak_rss_bytes": rss, "exit": rc, "wall_s": round(wall, 2), "stderr": last}
        if kind == "noisy":
            out = os.path.join(work, kind + ".json")
            d["results_bytes"] = os.path.getsize(out) if rc == 0 else None
            if rc != 0:
                figs.append(not_measured("parse.rss_vs_log", SECTION, NAMES["parse.rss_vs_log"], "ratio", T_RATIO,
                                         "espbench parse exit %d: %s" % (rc, last), d))
                continue
            figs.append(figure("parse.rss_vs_log", SECTION, NAMES["parse.rss_vs_log"], round(rss / size, 4),
                               "ratio", T_RATIO, d))
        else:
            figs.append(figure("parse.rss_dense_mb", SECTION, NAMES["parse.rss_dense_mb"], round(rss / 2**20, 1),
                               "MB", T_BOUND, d))
        os.unlink(log)
    return figs
