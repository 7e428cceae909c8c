"""2. Overhead: what a full-tier run costs beyond its configured test time.

espbench: wall time of `espbench run --sim --tier all --chip esp32` minus
tiers × tests × --duration, as a fraction of that test time; target
≤ 5 % + 3 s per tier.

Beside it, the ESP-IDF CI way (pytest-embedded's iperf job): one firmware
build and flash per configuration, and for every test a board restart, a scan
and a connect. Its overhead is computed from costs measured on the vboard in
this run: espbench's own measured overhead (the per-test iperf set-up and
tear-down both ways share), plus per configuration one full flash (the 1 MiB
image of the flashing section, espbench's median time), plus per test one
restart-to-prompt, plus a scan and connect for every test beyond the ones
espbench already does. The build is not included (no ESP-IDF toolchain here;
it only makes the CI way slower), so the CI figure is a lower bound."""
import json
import os
import re
import shutil

from .common import Serial, Vboard, figure, free_loopback_ip, median, not_measured, run, target

SECTION = "overhead"
DURATION_S = 4
REPEATS = 3
SSID = "espbench-sim"
NAMES = {
    "overhead.espbench_fraction": "espbench run --sim --tier all (esp32): (wall − test time) / test time",
    "overhead.ci_way_fraction": "ESP-IDF CI way, computed from measured step costs: overhead / test time "
                                "(lower bound: firmware builds not counted)",
    "overhead.espbench_vs_ci_way": "espbench overhead / ESP-IDF CI way overhead",
}


def figure_ids():
    return list(NAMES)


def measure(ctx):
    out = os.path.join(ctx.out, "overhead")
    args = [ctx.espbench, "run", "--sim", "--chip", "esp32", "--tier", "all", "--duration", str(DURATION_S),
            "--interval", "1", "--out", out]
    env = ctx.env(ESPBENCH_PROFILES=None)  # the shipped tiers only
    ctx.log("overhead: %s" % " ".join(args[1:]))
    first_failure = None
    for attempt in (1, 2):
        p = run(args, timeout=ctx.cap(7 * 4 * (DURATION_S + 25) + 60), env=env)
        done = len(re.findall(r"^\[\d+/\d+\] .* mean [\d.]+ Mbit/s", p.out, re.M))
        if p.rc == 0 or done or attempt == 2:
            break
        # Nothing ran (a start-up failure costs seconds): record it and try once more.
        first_failure = "attempt 1: exit %d before any test: %s" % (p.rc, p.tail())
        ctx.log("overhead: " + first_failure)
        shutil.rmtree(out, ignore_errors=True)
    ctx.settings["overhead"] = {"command": "espbench " + " ".join(args[1:]), "duration_s": DURATION_S,
                                "rc": p.rc, "wall_s": round(p.wall, 2), "attempts": attempt}
    if first_failure:
        ctx.settings["overhead"]["first_attempt_failure"] = first_failure
    # The plan's size from the progress lines ("[i/N] ..."); tiers and tests
    # done from the run's own results.json.
    planned = [int(m) for m in re.findall(r"^\[\d+/(\d+)\]", p.out, re.M)]
    n_tests = max(planned) if planned else 0
    try:
        with open(os.path.join(out, "results.json")) as f:
            entries = json.load(f).get("entries", [])
    except (OSError, ValueError):
        entries = []
    tiers = sorted({e.get("tier") for e in entries})
    done = sum(1 for e in entries if e.get("status") == "ok")
    if p.rc != 0 or not n_tests or done != n_tests:
        why = "espbench run --tier all did not complete (exit %d, %d of %d tests done: %s)" % (
            p.rc, done, n_tests, p.tail())
        return [placeholder(fid, why) for fid in figure_ids()]
    n_tiers = len(tiers)
    test_s = n_tests * DURATION_S
    overhead_s = p.wall - test_s
    allowed = 0.05 + 3.0 * n_tiers / test_s
    tgt = target("<=", round(allowed, 5), "≤ 5 %% + 3 s × %d tiers / %d s = %.1f %%" % (n_tiers, test_s, allowed * 100))
    d = {"wall_s": round(p.wall, 2), "test_s": test_s, "overhead_s": round(overhead_s, 2), "tiers": n_tiers,
         "tests": n_tests, "allowed_overhead_s": round(allowed * test_s, 2), "tier_names": tiers}
    if first_failure:
        d["first_attempt_failure"] = first_failure
    figs = [figure("overhead.espbench_fraction", SECTION, NAMES["overhead.espbench_fraction"],
                   round(overhead_s / test_s, 5), "ratio", tgt, d)]
    ctx.measured["espbench_overhead_s"] = overhead_s

    # --- the CI way, from step costs measured on the vboard
    try:
        steps = measure_ci_steps(ctx, out)
    except (RuntimeError, OSError) as exc:
        why = "CI step costs not measured: %s" % exc
        figs.append(not_measured("overhead.ci_way_fraction", SECTION, NAMES["overhead.ci_way_fraction"], "ratio",
                                 None, why))
        figs.append(not_measured("overhead.espbench_vs_ci_way", SECTION, NAMES["overhead.espbench_vs_ci_way"],
                                 "ratio", None, why))
        return figs
    flash_s = ctx.measured.get("flash_full_s")
    console = ""
    for name in os.listdir(out):
        if name.startswith("console-") and name.endswith(".log"):
            with open(os.path.join(out, name), errors="replace") as f:
                console += f.read()
    eb_connects = len(re.findall(r"#EB:OK ssid=", console))  # successful sta_connect replies
    if flash_s is None:
        why = "no full-flash time (the flashing section did not measure espbench flash)"
        figs.append(not_measured("overhead.ci_way_fraction", SECTION, NAMES["overhead.ci_way_fraction"], "ratio",
                                 None, why, steps))
        figs.append(not_measured("overhead.espbench_vs_ci_way", SECTION, NAMES["overhead.espbench_vs_ci_way"],
                                 "ratio", None, why, steps))
        return figs
    extra_connects = max(0, n_tests - eb_connects)
    ci_overhead = (overhead_s + n_tiers * flash_s + n_tests * steps["restart_to_prompt_s"]
                   + extra_connects * steps["scan_connect_s"])
    cd = dict(steps, flash_s=round(flash_s, 3), configurations=n_tiers, tests=n_tests,
              espbench_connects=eb_connects, extra_scan_connects=extra_connects,
              espbench_overhead_s=round(overhead_s, 2), ci_overhead_s=round(ci_overhead, 2),
              formula="espbench overhead + tiers × flash + tests × restart + (tests − espbench's connects) × "
                      "(scan + connect); firmware build not counted",
              vboard_note="the vboard's Wi-Fi answers scan and connect at once; a real board takes seconds, "
                          "which only widens the gap")
    if not ctx.measured.get("flash_paced", True):
        cd["flash_note"] = ("the vboard does not pace host-to-board bytes, so this flash time is below a real "
                            "line's (see flash.wire_ratio): the CI way's cost is understated")
    figs.append(figure("overhead.ci_way_fraction", SECTION, NAMES["overhead.ci_way_fraction"],
                       round(ci_overhead / test_s, 5), "ratio", None, cd))
    figs.append(figure("overhead.espbench_vs_ci_way", SECTION, NAMES["overhead.espbench_vs_ci_way"],
                       round(overhead_s / ci_overhead, 4) if ci_overhead > 0 else None, "ratio", None,
                       {"espbench_overhead_s": round(overhead_s, 2), "ci_overhead_s": round(ci_overhead, 2)}))
    return figs


def measure_ci_steps(ctx, run_dir):
    """Restart-to-prompt and scan+connect times on a vboard holding the
    espbench firmware the overhead run flashed (median of REPEATS)."""
    src = os.path.join(run_dir, "sim-flash.bin")
    if not os.path.exists(src):
        raise RuntimeError("the overhead run left no flash file (%s) to boot from" % src)
    work = os.path.join(ctx.out, "ci-steps")
    os.makedirs(work, exist_ok=True)
    flash = os.path.join(work, "flash.bin")
    with open(src, "rb") as f, open(flash, "wb") as g:
        g.write(f.read())
    password = "bench-%d-pass" % os.getpid()
    env = ctx.env(ESPBENCH_BENCH_AP_PASSWORD=password)
    ip = free_loopback_ip(3)
    restart, scan_connect = [], []
    with Vboard(ctx, work, flash=flash, baud_timing=True, ip=ip,
                aps=["%s:env:ESPBENCH_BENCH_AP_PASSWORD:-40" % SSID], env=env) as vb:
        with Serial(vb.link, 115200) as ser:
            ser.drain_input(quiet_s=0.3, max_s=5)  # power-on boot when the port opened
            for _ in range(REPEATS):
                t0 = ctx.now()
                reply = vb.ctl("reset")
                if not reply.startswith("ok"):
                    raise RuntimeError("control reset: %s" % reply)
                ser.read_until(rb"#EB:EV boot", 15)
                ser.read_until(rb"espbench> ", 10)
                restart.append(ctx.now() - t0)
                t0 = ctx.now()
                ser.write(b"sta_scan %s\r\n" % SSID.encode())
                ser.read_until(rb"#EB:(OK|ERR)[^\n]*\n", 15)
                ser.write(b"sta_connect %s -\r\n" % SSID.encode())
                ser.read_until(rb"sta_connect[^\n]*\n", 5)  # the echo; then the password line
                ser.write(password.encode() + b"\r\n")
                got = ser.read_until(rb"#EB:(OK ssid|ERR)[^\n]*\n", 20)
                if b"#EB:ERR" in got:
                    raise RuntimeError("sta_connect failed on the vboard: %r" % got[-160:])
                scan_connect.append(ctx.now() - t0)
    return {"restart_to_prompt_s": round(median(restart), 3), "scan_connect_s": round(median(scan_connect), 3),
            "restart_samples_s": [round(x, 3) for x in restart],
            "scan_connect_samples_s": [round(x, 3) for x in scan_connect]}


def placeholder(fid, reason):
    tgt = target("<=", 0.05, "≤ 5 % + 3 s per tier") if fid == "overhead.espbench_fraction" else None
    return not_measured(fid, SECTION, NAMES[fid], "ratio", tgt, reason)
