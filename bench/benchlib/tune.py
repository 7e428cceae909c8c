"""7. Tune: how good `espbench tune`'s search is for its cost, on the model.

`espbench tune --model-run --json` runs the search of a tune (plan, start
points, successive halving, final repeats) with the model itself standing in
for the board: each probe is the model's prediction plus Gaussian noise per
report interval, and costs what the plan says a probe costs. The quality is
the hypervolume (above the free-heap floor, reference throughput 0) of the
tuner's frontier at its true values against the frontier of an exhaustive
search of the same space on the model; the cost is the fraction of the
space's candidates the tuner measured. Cases: noise levels and seeds, a link
the search's own model does not know (weak signal, longer round trip: the
truth moves, the proposals do not), a board slower than the plan assumes
(4 s per test of tier switch and iperf start instead of 1 s), a weighted
objective, other chips.
Goals (issue 18): >= 0.95 of the hypervolume with <= 10 % of the candidates."""
import json

from .common import figure, median, not_measured, run, target

SECTION = "tune"
BUDGET = "8m"
# name: (chip, objective, floor KB, noise %, seed, extra flags)
CASES = {
    "esp32_tcp_tx_exact": ("esp32", "tcp_tx", 100, 0, 0, []),
    "esp32_tcp_tx_noise2_s1": ("esp32", "tcp_tx", 100, 2, 1, []),
    "esp32_tcp_tx_noise2_s2": ("esp32", "tcp_tx", 100, 2, 2, []),
    "esp32_tcp_tx_noise2_s3": ("esp32", "tcp_tx", 100, 2, 3, []),
    "esp32_tcp_tx_noise5": ("esp32", "tcp_tx", 100, 5, 1, []),
    "esp32_tcp_tx_rssi70": ("esp32", "tcp_tx", 100, 2, 1, ["--sim-rssi", "-70"]),
    "esp32_tcp_tx_rtt5": ("esp32", "tcp_tx", 100, 2, 1, ["--sim-rtt", "5"]),
    "esp32_tcp_tx_slow_board": ("esp32", "tcp_tx", 100, 2, 1, ["--model-overhead", "4"]),
    "esp32_weighted": ("esp32", "tcp_tx=2,udp_rx=1", 100, 2, 1, []),
    "esp32c3_udp_rx": ("esp32c3", "udp_rx", 80, 2, 1, []),
    "esp32s3_tcp_rx": ("esp32s3", "tcp_rx", 100, 2, 1, []),
}
T_HV = target(">=", 0.95, "≥ 0.95")
T_PROBED = target("<=", 0.10, "≤ 10 %")
POOLED = {
    "tune.hv_ratio_worst": ("tune on the model: worst hypervolume / exhaustive search's, over the cases", "", T_HV),
    "tune.hv_ratio_median": ("tune on the model: median hypervolume / exhaustive search's", "", None),
    "tune.probed_fraction_worst": ("tune on the model: largest fraction of the candidates probed", "", T_PROBED),
}


def figure_ids():
    ids = list(POOLED)
    for c in CASES:
        ids += ["tune.case.%s.hv_ratio" % c, "tune.case.%s.probed_fraction" % c]
    return ids


def _name(fid):
    if fid in POOLED:
        return POOLED[fid][0]
    _, _, case, what = fid.split(".")
    return "tune %s: %s" % (case, "hypervolume ratio" if what == "hv_ratio" else "fraction of candidates probed")


def placeholder(fid, reason):
    return not_measured(fid, SECTION, _name(fid), "", POOLED.get(fid, (None, None, None))[2], reason)


def measure(ctx):
    figs, got = [], {}
    for case, (chip, obj, floor, noise, seed, extra) in CASES.items():
        args = [ctx.espbench, "tune", "--chip", chip, "--objective", obj, "--min-free-kb", str(floor),
                "--budget", BUDGET, "--model-run", "--noise", str(noise), "--seed", str(seed), "--json"] + extra
        p = run(args, timeout=120)
        if p.rc != 0:
            for what in ("hv_ratio", "probed_fraction"):
                figs.append(placeholder("tune.case.%s.%s" % (case, what), "exit %d: %s" % (p.rc, p.tail(1))))
            continue
        r = json.loads(p.out)
        got[case] = r
        details = {k: r[k] for k in ("chip", "objective", "min_free_kb", "noise_pct", "seed", "candidates",
                                     "probes", "probed", "frontier_points", "exhaustive_points", "hv_tuner",
                                     "hv_exhaustive", "spent_s")}
        details["link"] = " ".join(extra) or "published"  # or the slower board
        figs.append(figure("tune.case.%s.hv_ratio" % case, SECTION, _name("tune.case.%s.hv_ratio" % case),
                           round(r["hv_ratio"], 4), "", None, details))
        figs.append(figure("tune.case.%s.probed_fraction" % case, SECTION,
                           _name("tune.case.%s.probed_fraction" % case), round(r["probed_fraction"], 6), "", None,
                           {"probed": r["probed"], "candidates": r["candidates"], "probes": r["probes"]}))
    if not got:
        return figs + [placeholder(f, "no case ran") for f in POOLED]
    hv = sorted((r["hv_ratio"], c) for c, r in got.items())
    pf = sorted((r["probed_fraction"], c) for c, r in got.items())
    figs.append(figure("tune.hv_ratio_worst", SECTION, POOLED["tune.hv_ratio_worst"][0], round(hv[0][0], 4), "",
                       T_HV, {"case": hv[0][1], "cases": len(got), "budget": BUDGET}))
    figs.append(figure("tune.hv_ratio_median", SECTION, POOLED["tune.hv_ratio_median"][0],
                       round(median([v for v, _ in hv]), 4), "", None, {"cases": len(got)}))
    figs.append(figure("tune.probed_fraction_worst", SECTION, POOLED["tune.probed_fraction_worst"][0],
                       round(pf[-1][0], 6), "", T_PROBED, {"case": pf[-1][1], "probes": got[pf[-1][1]]["probes"],
                                                           "candidates": got[pf[-1][1]]["candidates"]}))
    return figs


def summary_lines(figs):
    """SUMMARY.md: one row per case."""
    rows = []
    for case in CASES:
        h = figs.get("tune.case.%s.hv_ratio" % case)
        f = figs.get("tune.case.%s.probed_fraction" % case)
        if not h or h["value"] is None:
            continue
        d = h["details"]
        rows.append("| %s | %s | %s | %s KB | %s %% | %s | %.4f | %d / %d (%.3f %%) | %d / %d |" % (
            case, d["chip"], d["objective"], d["min_free_kb"], d["noise_pct"], d["link"], h["value"], d["probed"],
            d["candidates"], 100 * f["value"], d["frontier_points"], d["exhaustive_points"]))
    if not rows:
        return []
    worst = figs.get("tune.hv_ratio_worst")
    return ["", "Tune search on the model (`espbench tune --model-run`, budget %s): hypervolume of the tuner's "
            "frontier / the exhaustive search's; candidates measured; frontier points (tuner / exhaustive). "
            "Worst ratio %s (goal ≥ 0.95 with ≤ 10 %% of the candidates):" % (
                BUDGET, worst["value"] if worst else "—"), "",
            "| case | chip | objective | floor | noise | link | hypervolume | probed | frontier |",
            "|---|---|---|---|---|---|---|---|---|"] + rows
