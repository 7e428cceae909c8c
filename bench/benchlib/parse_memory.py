"""Parse memory: `espbench parse`'s peak RSS on large generated logs, against absolute bounds.

parse streams a log through a bounded line buffer and keeps each interval in 32 bytes (56 for a
UDP row; docs/results.md, memory): what it holds grows with the intervals it will write, never
with the rest of the log. Three generated ESP-IDF v4.4 board logs (the example's exact lines):
 - "small": 30 s TCP tests at 1 s intervals, each interval line among NOISE Wi-Fi/heap log lines
   as a debug-level capture looks, SMALL_INTERVALS intervals in all: a log whose tests hold at most
   100 000 intervals stays within 64 MB;
 - "long": one test of LONG_INTERVALS one-second intervals and nothing else (a 78 MB log; a day at
   -i 0.1 is 864 000): within 128 MB;
 - "dense": DENSE_MB of nothing but 30 s tests; its results would outgrow EB_RESULTS_MAX_BYTES, so
   parse stops with its message (exit 2) -- the peak RSS there is the worst case of the bound.
Peak RSS is the child's ru_maxrss (os.wait4), one run each (memory does not depend on load);
MB = 2^20 bytes."""
import os
import subprocess
import time

from .common import figure, not_measured, target

SECTION = "parse_memory"
SMALL_INTERVALS = 100000
LONG_INTERVALS = 2000000
DENSE_MB = 250
NOISE = 12
T_SMALL = target("<=", 64, "≤ 64 MB for a log whose tests hold at most 100 000 intervals in all")
T_LONG = target("<=", 128, "≤ 128 MB for one test of 2 million intervals")
T_DENSE = target("<=", 256, "≤ 256 MB (the results cap) when parse stops at it")
NAMES = {
    "parse.rss_small_mb": "peak RSS of `espbench parse`, board log of %d intervals in 30-interval tests among "
                          "Wi-Fi/heap lines" % SMALL_INTERVALS,
    "parse.rss_long_mb": "peak RSS of `espbench parse`, board log of one test of %d one-second intervals"
                         % LONG_INTERVALS,
    "parse.rss_dense_mb": "peak RSS of `espbench parse` on a %d MB interval-only log (refused at the results cap)"
                          % DENSE_MB,
}
HEAD = (b"ets Jun  8 2016 00:22:57\n\nrst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)\n"
        b"I (29) boot: ESP-IDF v4.4.6 2nd stage bootloader\nI (210) cpu_start: Project name:     iperf\n"
        b"I (226) cpu_start: ESP-IDF:          v4.4.6\n")


def figure_ids():
    return list(NAMES)


def test_block(noise, seconds=30):
    """One TCP TX test of `seconds` one-second intervals (../shared/reference/board-console-dialects.md 1.3-1.5)."""
    test = [b"iperf> iperf -c 192.168.1.2 -i 1 -t %d\n" % seconds,
            b"I (9000) iperf: mode=tcp-client sip=192.168.1.79:5001, dip=192.168.1.2:5001, interval=1, time=%d\n"
            % seconds,
            b"I (9001) iperf: Successfully connected\n\n        Interval Bandwidth\n"]
    filler = b"D (9002) wifi:ampdu: tx ba ok, ssn=1234, win=64, tid=0\n"
    for i in range(seconds):
        test.append(filler * noise)
        test.append(b"%4d-%4d sec       %.2f Mbits/sec\n" % (i, i + 1, 21.0 + (i % 7) * 0.1))
    test.append(b"   0-%4d sec       21.30 Mbits/sec\nI (40100) iperf: TCP Socket client is closed.\n" % seconds)
    return b"".join(test)


def make_tests_log(path, noise, max_bytes=None, max_intervals=None):
    """30-interval tests up to max_bytes of log or max_intervals intervals in all."""
    block = test_block(noise)
    with open(path, "wb") as f:
        f.write(HEAD)
        n, intervals = len(HEAD), 0
        while ((max_bytes is None or n + len(block) <= max_bytes) and
               (max_intervals is None or intervals + 30 <= max_intervals)):
            f.write(block)
            n += len(block)
            intervals += 30
    return n, intervals


def make_long_log(path, seconds):
    """One test of `seconds` one-second intervals, written a chunk at a time."""
    with open(path, "wb") as f:
        f.write(HEAD)
        f.write(b"iperf> iperf -c 192.168.1.2 -i 1 -t %d\n" % seconds)
        f.write(b"I (9000) iperf: mode=tcp-client sip=192.168.1.79:5001, dip=192.168.1.2:5001, interval=1, "
                b"time=%d\n" % seconds)
        f.write(b"I (9001) iperf: Successfully connected\n\n        Interval Bandwidth\n")
        for at in range(0, seconds, 100000):
            f.write(b"".join(b"%4d-%4d sec       %.2f Mbits/sec\n" % (i, i + 1, 21.0 + (i % 7) * 0.1)
                             for i in range(at, min(seconds, at + 100000))))
        f.write(b"   0-%4d sec       21.30 Mbits/sec\nI (40100) iperf: TCP Socket client is closed.\n" % seconds)
        return f.tell(), seconds


TARGETS = {"parse.rss_small_mb": T_SMALL, "parse.rss_long_mb": T_LONG, "parse.rss_dense_mb": T_DENSE}


def placeholder(fid, reason):
    return not_measured(fid, SECTION, NAMES[fid], "MB", TARGETS[fid], reason)


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
    shapes = (
        ("parse.rss_small_mb", "small", T_SMALL, lambda p: make_tests_log(p, NOISE, max_intervals=SMALL_INTERVALS), 0),
        ("parse.rss_long_mb", "long", T_LONG, lambda p: make_long_log(p, LONG_INTERVALS), 0),
        ("parse.rss_dense_mb", "dense", T_DENSE, lambda p: make_tests_log(p, 0, max_bytes=DENSE_MB << 20), 2),
    )
    for fid, kind, tgt, make, want_rc in shapes:
        log = os.path.join(work, kind + ".log")
        out = os.path.join(work, kind + ".json")
        size, intervals = make(log)
        rc, rss, wall, last = peak_rss([ctx.espbench, "parse", log, "-o", out])
        d = {"log_bytes": size, "intervals": intervals, "peak_rss_bytes": rss, "exit": rc, "wall_s": round(wall, 2),
             "stderr": last, "bytes_per_interval": round(rss / intervals, 1) if intervals else None}
        if rc == 0:
            d["results_bytes"] = os.path.getsize(out)
        if rc != want_rc:
            figs.append(not_measured(fid, SECTION, NAMES[fid], "MB", tgt, "espbench parse exit %d: %s" % (rc, last),
                                     d))
        else:
            figs.append(figure(fid, SECTION, NAMES[fid], round(rss / 2**20, 1), "MB", tgt, d))
        for f in (log, out):
            if os.path.exists(f):
                os.unlink(f)
    return figs
