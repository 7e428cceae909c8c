"""5. Parsing: board and iperf2 log lines per second through `espbench parse`.

The large logs are real captures (tests/fixtures/logs: board console logs of
each dialect, iperf 2.1.8 output in each format) concatenated until each log
holds about LINES_PER_LOG lines: a long session of many tests, exactly as the
board or iperf printed them. Each log is parsed by its own `espbench parse
LOG -o FILE` (whole command: read, parse, statistics, results JSON written);
the figure is all lines / the summed wall times, each log's best of up to
REPEATS runs (CPU-bound work on a shared machine: the fastest run is the one
least disturbed). A detail records the rate for one log SCALE_FACTOR times
longer, to show whether parsing time grows linearly with the log."""
import json
import os

from .common import figure, not_measured, run, run_timed_cpu, target

SECTION = "parsing"
TOTAL_LINES = 1_200_000
REPEATS = 3
TIME_BUDGET_S = 90
SCALE_FACTOR = 4
T_RATE = target(">=", 1_000_000, "≥ 1 000 000 lines/s")
NAME = "board and iperf2 log lines per second through `espbench parse` (whole command, results JSON written)"
NAMES = {"parse.lines_per_s": NAME,
         "parse.parser_lines_per_s": "the same logs through the parser alone (eb_parse_log_buffer in memory, "
                                     "no file I/O, no JSON)"}
PARSER_MIN_S = 0.5

BOARD = ["idf-v5.1_esp32s3_tcp_rx_udp_tx.log", "idf-legacy_esp32_tcp_rx.log", "iperf-cmd-0.1_esp32c3_tcp_rx.log",
         "iperf-cmd-1.0_esp32c6_tcp_tx.log", "espbench_esp32_udp_rx.log"]
PC = ["tcp.server.log", "tcp.client.log", "udp.server.log", "udp.client.log", "tcp_csv.server.log",
      "udp_csv.server.log", "tcp_e.server.log", "udp_e.client.log", "tcp_fK.client.log", "udp_fb.server.log"]


def figure_ids():
    return list(NAMES)


def measure(ctx):
    fixtures = os.path.join(ctx.source, "tests", "fixtures", "logs")
    work = os.path.join(ctx.out, "parsing")
    os.makedirs(work, exist_ok=True)
    sources = [("board", os.path.join(fixtures, "board", n)) for n in BOARD] + \
              [("pc", os.path.join(fixtures, "iperf2", n)) for n in PC]
    per_log = TOTAL_LINES // len(sources)
    logs, skipped = [], []
    for side, path in sources:
        if not os.path.exists(path):
            skipped.append("%s: missing" % os.path.basename(path))
            continue
        with open(path, "rb") as f:
            capture = f.read()
        if not capture.endswith(b"\n"):
            capture += b"\n"
        # the capture must parse on its own first
        p = run([ctx.espbench, "parse", "--side", side, path, "-o", os.path.join(work, "one.json")], timeout=30)
        if p.rc != 0:
            skipped.append("%s: espbench parse exit %d: %s" % (os.path.basename(path), p.rc, p.tail(1)))
            continue
        copies = max(1, per_log // capture.count(b"\n"))
        big = os.path.join(work, "big-" + os.path.basename(path))
        with open(big, "wb") as f:
            f.write(capture * copies)
        logs.append((side, big, capture.count(b"\n") * copies, os.path.basename(path)))
    if not logs:
        why = "no capture could be parsed: " + "; ".join(skipped[:3])
        return [placeholder(fid, why) for fid in figure_ids()]

    best = {}
    cpu = {}
    failures = []
    spent = 0.0
    for rep in range(REPEATS):
        if rep and spent > TIME_BUDGET_S / 2:
            break
        for side, big, lines, name in logs:
            if name in failures:
                continue
            p = run_timed_cpu([ctx.espbench, "parse", "--side", side, big, "-o", big + ".json"],
                              timeout=TIME_BUDGET_S)
            spent += p.wall
            if p.rc != 0:
                failures.append(name)
                skipped.append("%s ×%d: espbench parse exit %d: %s" % (name, lines, p.rc, p.tail(1)))
                continue
            best[name] = min(best.get(name, p.wall), p.wall)
            cpu[name] = min(cpu.get(name, p.cpu), p.cpu)
            os.remove(big + ".json")
    measured = [(s, n, lines) for s, _, lines, n in logs if n in best]
    if not measured:
        why = "espbench parse failed on every large log: " + "; ".join(skipped[:3])
        return [placeholder(fid, why) for fid in figure_ids()]
    lines = sum(l for _, _, l in measured)
    wall = sum(best[n] for _, n, _ in measured)
    per = {n: {"side": s, "lines": l, "best_wall_s": round(best[n], 3), "cpu_s": round(cpu[n], 3),
               "lines_per_s": round(l / best[n])} for s, n, l in measured}
    board_l = sum(l for s, _, l in measured if s == "board")
    board_w = sum(best[n] for s, n, _ in measured if s == "board")
    pc_l = sum(l for s, _, l in measured if s == "pc")
    pc_w = sum(best[n] for s, n, _ in measured if s == "pc")
    d = {"lines": lines, "wall_s": round(wall, 3), "cpu_s": round(sum(cpu[n] for _, n, _ in measured), 3),
         "board_lines_per_s": round(board_l / board_w) if board_w else None,
         "pc_lines_per_s": round(pc_l / pc_w) if pc_w else None, "logs": per}
    if skipped:
        d["skipped"] = skipped
    # Does the rate hold for a longer log? One board log at SCALE_FACTOR × the size.
    side, big, n1, name = logs[0]
    if name in best and spent < TIME_BUDGET_S:
        with open(big, "rb") as f:
            text = f.read()
        longer = big + ".x%d" % SCALE_FACTOR
        with open(longer, "wb") as f:
            f.write(text * SCALE_FACTOR)
        p = run_timed_cpu([ctx.espbench, "parse", "--side", side, longer, "-o", longer + ".json"],
                          timeout=TIME_BUDGET_S)
        if p.rc == 0:
            rate = n1 * SCALE_FACTOR / p.wall
            d["scaling"] = {"log": name, "lines": n1 * SCALE_FACTOR, "wall_s": round(p.wall, 3),
                            "lines_per_s": round(rate), "vs_base_size": round(rate / (n1 / best[name]), 3)}
        else:
            d["scaling"] = {"log": name, "lines": n1 * SCALE_FACTOR, "error": "exit %d: %s" % (p.rc, p.tail(1))}
        for path in (longer, longer + ".json"):
            if os.path.exists(path):
                os.remove(path)
    figs = [figure("parse.lines_per_s", SECTION, NAME, round(lines / wall), "lines/s", T_RATE, d)]
    figs.append(parser_only(ctx, [(side, big, n) for side, big, n, name in logs if name in best]))
    for _, big, _, _ in logs:
        os.remove(big)
    return figs


def build_parse_rate(ctx):
    """Compiles bench/parse_rate.c against the build's static libraries
    (CMake builds only src/ and tests/). Returns (path, None) or (None, why)."""
    exe = os.path.join(ctx.out, "parse_rate")
    libs = [os.path.join(ctx.build, n) for n in ("libespbench.a", "libespbench_core.a")]
    missing = [l for l in libs if not os.path.exists(l)]
    if missing:
        return None, "%s not found in the build directory" % os.path.basename(missing[0])
    flags = ["-std=c11", "-O2", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror", "-Wshadow", "-Wstrict-prototypes",
             "-Wmissing-prototypes"]
    try:
        with open(os.path.join(ctx.build, "CMakeCache.txt")) as f:
            if "ESPBENCH_SANITIZE:BOOL=ON" in f.read():
                flags.append("-fsanitize=address,undefined")
    except OSError:
        pass
    pc = run(["pkg-config", "--libs", "libserialport", "libcjson", "yaml-0.1", "zlib", "libcrypto",
              "libpcre2-8"],
             timeout=20)
    if pc.rc != 0:
        return None, "pkg-config failed: %s" % pc.tail(1)
    cc = run(["cc"] + flags + ["-I", os.path.join(ctx.source, "include"),
                               os.path.join(ctx.bench, "parse_rate.c")] + libs + pc.out.split() +
             ["-lpthread", "-lm", "-o", exe], timeout=120)
    if cc.rc != 0:
        return None, "bench/parse_rate.c did not build: %s" % cc.tail(2)
    return exe, None


def parser_only(ctx, logs):
    """The same logs through eb_parse_log_buffer alone: in memory, no file
    I/O, no results JSON (best of repeats within PARSER_MIN_S per log)."""
    fid = "parse.parser_lines_per_s"
    exe, why = build_parse_rate(ctx)
    if not exe:
        return placeholder(fid, why)
    lines = 0
    secs = 0.0
    per = {}
    for side, big, _ in logs:
        p = run([exe, side, big, str(PARSER_MIN_S)], timeout=60)
        if p.rc != 0:
            return placeholder(fid, "parse_rate %s: exit %d: %s" % (os.path.basename(big), p.rc, p.tail(1)))
        r = json.loads(p.out)
        lines += r["lines"]
        secs += r["best_s"]
        per[os.path.basename(big)[4:]] = round(r["lines"] / r["best_s"]) if r["best_s"] > 0 else None
    if secs <= 0:
        return placeholder(fid, "parse_rate measured no time")
    return figure(fid, SECTION, NAMES[fid], round(lines / secs), "lines/s", T_RATE,
                  {"lines": lines, "parse_s": round(secs, 4), "logs": per,
                   "program": "bench/parse_rate.c (eb_parse_log_buffer from libespbench, built by the harness)"})


def placeholder(fid, reason):
    return not_measured(fid, SECTION, NAMES[fid], "lines/s", T_RATE, reason)
