"""1. Fidelity: espbench's steady mean against the rate the vboard really moved.

One `espbench run --sim` over benchmark-only tiers (bench/profiles/) whose
reference figures make the vboard shape every test to 5, 20, 50, 100 and
150 Mbit/s. The true rate of a test comes from the board's own byte counts:
the espbench firmware dialect prints `#EB:EV iperf.interval start= end=
bytes=` for every interval from bytes actually sent, read or accepted, and the
run keeps the console log. True rate = bytes of the board's intervals in the
steady window (after the warm-up espbench leaves out) / that window's length.
"""
import glob
import json
import os
import re
import shutil

from .common import figure, not_measured, run, target

SECTION = "fidelity"
TESTS = ("tcp_tx", "tcp_rx", "udp_tx", "udp_rx")
RATES = (5, 20, 50, 100, 150)
DURATION_S = 5
NOISE_PCT = 2
TARGET = target("<=", 0.01, "≤ 1 %")
# The vboard's own shaping: the board's true rate against the rate it was shaped to (the claim
# tests/unit/test_vb_traffic.c held the PC's iperf2 to before it became a measurement here).
T_SHAPING = target("<=", 0.02, "≤ 2 %")


def point_id(test, rate):
    return "fidelity.%s.%dmbps" % (test, rate)


def figure_ids():
    ids = [point_id(t, r) for r in RATES for t in TESTS]
    return ids + ["fidelity.worst", "fidelity.peak_bias_mean", "fidelity.peak_bias_max", "fidelity.shaping_worst"]


def _kv(line):
    return dict(re.findall(r"(\w+)=(\S+)", line))


def _test_of(args):
    a = args.split()
    udp = "-u" in a
    server = "-s" in a
    return ("udp_" if udp else "tcp_") + ("rx" if server else "tx")


def board_blocks(console_text):
    """{(tier, test): [intervals...], summary} from an espbench-dialect console
    log; a retried test keeps its last complete run."""
    tier = None
    cur = None
    found = {}
    for raw in console_text.splitlines():
        line = raw.strip()
        m = re.match(r"^(?:\S*> )?tier_set\s+name=(\S+)", line)
        if m and not line.startswith("#"):
            tier = m.group(1)
            continue
        m = re.match(r"^(?:\S*> )?iperf\s+(-.*)$", line)
        if m and not line.startswith("#"):
            test = _test_of(m.group(1))
            if cur is None or cur["intervals"] or cur["test"] != test:
                cur = {"tier": tier, "test": test, "intervals": [], "summary": None}
            continue
        if cur is None or not line.startswith("#EB:EV iperf."):
            continue
        if line.startswith("#EB:EV iperf.interval"):
            kv = _kv(line)
            cur["intervals"].append((float(kv["start"]), float(kv["end"]), int(kv["bytes"])))
        elif line.startswith("#EB:EV iperf.summary"):
            kv = _kv(line)
            cur["summary"] = (float(kv["start"]), float(kv["end"]), int(kv["bytes"]))
        elif line.startswith("#EB:EV iperf.done"):
            if cur["summary"] is not None:
                found[(cur["tier"], cur["test"])] = cur
            cur = None
    return found


def true_rate(block, warmup_s):
    steady = [iv for iv in block["intervals"] if iv[0] >= warmup_s - 1e-6 and iv[1] > iv[0]]
    span = sum(e - s for s, e, _ in steady)
    if not steady or span <= 0:
        return None, 0
    return sum(b for _, _, b in steady) * 8 / span / 1e6, len(steady)


def measure(ctx):
    out = os.path.join(ctx.out, "fidelity")
    tiers = ",".join("bench-%d" % r for r in RATES)
    args = [ctx.espbench, "run", "--sim", "--chip", "esp32", "--tier", tiers, "--duration", str(DURATION_S),
            "--interval", "1", "--sim-noise", str(NOISE_PCT), "--out", out]
    env = ctx.env(ESPBENCH_PROFILES=ctx.bench_profiles)
    ctx.log("fidelity: %s" % " ".join(args[1:]))
    first_failure = None
    for attempt in (1, 2):
        p = run(args, timeout=ctx.cap(len(RATES) * len(TESTS) * (DURATION_S + 20) + 60), env=env)
        if p.rc == 0 or attempt == 2 or re.search(r"^\[\d+/\d+\] .* mean [\d.]+ Mbit/s", p.out, re.M):
            break
        # Nothing ran (a start-up failure costs seconds): record it and try once more.
        first_failure = "attempt 1: exit %d before any test: %s" % (p.rc, p.tail())
        ctx.log("fidelity: " + first_failure)
        shutil.rmtree(out, ignore_errors=True)
    ctx.settings["fidelity"] = {"command": "espbench " + " ".join(args[1:]), "env": "ESPBENCH_PROFILES=bench/profiles",
                                "duration_s": DURATION_S, "interval_s": 1, "vboard_noise_pct": NOISE_PCT,
                                "rc": p.rc, "wall_s": round(p.wall, 2), "attempts": attempt}
    if first_failure:
        ctx.settings["fidelity"]["first_attempt_failure"] = first_failure
    entries = {}
    try:
        with open(os.path.join(out, "results.json")) as f:
            for e in json.load(f).get("entries", []):
                entries[(e["tier"], e["test"])] = e
    except (OSError, ValueError) as exc:
        why = "espbench run left no readable results.json (%s; exit %d: %s)" % (exc, p.rc, p.tail())
        return [placeholder(i, why) for i in figure_ids()]
    console = ""
    for path in glob.glob(os.path.join(out, "console-*.log")):
        with open(path, errors="replace") as f:
            console += f.read()
    blocks = board_blocks(console)

    figs, errors, biases, shaping = [], [], [], []
    for rate in RATES:
        tier = "bench-%d" % rate
        for test in TESTS:
            fid = point_id(test, rate)
            e = entries.get((tier, test))
            if not e or e.get("status") != "ok" or e.get("mean_mbps") is None:
                why = "espbench run did not finish this test" + (": " + e["error"] if e and e.get("error") else
                                                                  " (exit %d: %s)" % (p.rc, p.tail()))
                figs.append(not_measured(fid, SECTION, _name(fid), "ratio", TARGET, why))
                continue
            blk = blocks.get((tier, test))
            warmup = float((e.get("settings") or {}).get("warmup_s") or 1.0)
            truth, n_steady = true_rate(blk, warmup) if blk else (None, 0)
            if truth is None:
                figs.append(not_measured(fid, SECTION, _name(fid), "ratio", TARGET,
                                         "no board byte counts (#EB:EV iperf.interval) for this test in the "
                                         "console log"))
                continue
            mean, peak = e["mean_mbps"], e["peak_mbps"]
            err = abs(mean - truth) / truth
            bias = (peak - mean) / mean if mean else None
            s0, s1, sb = blk["summary"]
            details = {"espbench_mean_mbps": round(mean, 4), "true_rate_mbps": round(truth, 4),
                       "steady_intervals": n_steady, "warmup_s": warmup,
                       "true_rate_whole_test_mbps": round(sb * 8 / (s1 - s0) / 1e6, 4) if s1 > s0 else None,
                       "shaped_mbps": rate, "peak_1s_mbps": round(peak, 4),
                       "peak_bias": round(bias, 5) if bias is not None else None}
            if e.get("loss_pct") is not None:
                details["receiver_loss_pct"] = round(e["loss_pct"], 3)
            figs.append(figure(fid, SECTION, _name(fid), round(err, 6), "ratio", TARGET, details))
            errors.append((err, fid))
            # udp_rx: the board keeps what the PC offers up to the shaped rate (the profile's
            # udp_rx_rate_mbps, 100, is below the 150 point)
            offered = (e.get("settings") or {}).get("udp_rate_mbps") if test == "udp_rx" else None
            shaped = min(rate, offered) if offered else rate
            shaping.append((abs(truth / shaped - 1), fid))
            if bias is not None:
                biases.append((bias, fid))
    if errors:
        worst, wid = max(errors)
        figs.append(figure("fidelity.worst", SECTION, _name("fidelity.worst"), round(worst, 6), "ratio", TARGET,
                           {"point": wid, "points_measured": len(errors),
                            "points_planned": len(RATES) * len(TESTS)}))
    else:
        figs.append(not_measured("fidelity.worst", SECTION, _name("fidelity.worst"), "ratio", TARGET,
                                 "no fidelity point was measured"))
    if shaping:
        worst, wid = max(shaping)
        figs.append(figure("fidelity.shaping_worst", SECTION, _name("fidelity.shaping_worst"), round(worst, 6),
                           "ratio", T_SHAPING, {"point": wid, "points_measured": len(shaping)}))
    else:
        figs.append(not_measured("fidelity.shaping_worst", SECTION, _name("fidelity.shaping_worst"), "ratio",
                                 T_SHAPING, "no fidelity point was measured"))
    if biases:
        vals = [b for b, _ in biases]
        figs.append(figure("fidelity.peak_bias_mean", SECTION, _name("fidelity.peak_bias_mean"),
                           round(sum(vals) / len(vals), 5), "ratio", None, {"points": len(vals)}))
        top, tid = max(biases)
        figs.append(figure("fidelity.peak_bias_max", SECTION, _name("fidelity.peak_bias_max"), round(top, 5),
                           "ratio", None, {"point": tid}))
    else:
        for i in ("fidelity.peak_bias_mean", "fidelity.peak_bias_max"):
            figs.append(not_measured(i, SECTION, _name(i), "ratio", None, "no fidelity point was measured"))
    return figs


def _name(fid):
    if fid == "fidelity.worst":
        return "largest |steady mean − true rate| / true rate over all points"
    if fid == "fidelity.peak_bias_mean":
        return "peak-one-second method vs steady mean: (peak − mean) / mean, average over points"
    if fid == "fidelity.peak_bias_max":
        return "peak-one-second method vs steady mean: (peak − mean) / mean, largest"
    if fid == "fidelity.shaping_worst":
        return "the vboard's shaping: largest |true rate − shaped rate| / shaped rate over all points"
    _, test, rate = fid.split(".")
    return "%s at %s Mbit/s: |steady mean − true rate| / true rate" % (test, rate[:-4])


def placeholder(fid, reason):
    tgt = None if "bias" in fid else T_SHAPING if fid == "fidelity.shaping_worst" else TARGET
    return not_measured(fid, SECTION, _name(fid), "ratio", tgt, reason)
