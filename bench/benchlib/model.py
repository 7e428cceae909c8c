"""6. Model: leave-one-tier-out cross-validation of the tier model.

`espbench model cv --json` refits each chip's constants without each published
tier in turn (the fit never sees the tier it is scored on), predicts that tier
and compares with the docs' figure. Reported per chip and test: the median and
worst absolute error in percent, for the four throughputs and the free heap;
pooled over all chips: the same, against the issue's goals (throughput median
<= 5 %, worst <= 15 %; free heap median <= 5 %). Chips with a single published
tier (esp32c5, esp32c61) cannot be cross-validated and report no folds."""
import glob
import json
import os

from .common import figure, median, not_measured, run, target

SECTION = "model"
COLUMNS = ("tcp_tx", "tcp_rx", "udp_tx", "udp_rx", "free_heap")
T_MED = target("<=", 5.0, "≤ 5 %")
T_WORST = target("<=", 15.0, "≤ 15 %")
POOLED = {
    "model.throughput_median_pct": ("throughput: median |LOO error| over all chips and tests, %", T_MED),
    "model.throughput_worst_pct": ("throughput: worst |LOO error| over all chips and tests, %", T_WORST),
    "model.heap_median_pct": ("free heap: median |LOO error| over all chips, %", T_MED),
    "model.heap_worst_pct": ("free heap: worst |LOO error| over all chips, %", None),
}


def _chips(source=None):
    src = source or os.path.join(os.path.dirname(__file__), "..", "..")
    return sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(src, "profiles", "*.yaml")))


def _cell_ids():
    for chip in _chips():
        for col in COLUMNS:
            for stat in ("median", "worst"):
                yield "model.cv.%s.%s.%s_pct" % (chip, col, stat)


def figure_ids():
    return list(POOLED) + list(_cell_ids())


def _name(fid):
    if fid in POOLED:
        return POOLED[fid][0]
    _, _, chip, col, stat = fid.split(".")
    return "%s %s: %s |LOO error|, %%" % (chip, col, stat.replace("_pct", ""))


def placeholder(fid, reason):
    return not_measured(fid, SECTION, _name(fid), "%", POOLED.get(fid, (None, None))[1], reason)


def measure(ctx):
    p = run([ctx.espbench, "model", "cv", "--json"], timeout=300)
    if p.rc != 0:
        return [placeholder(f, "espbench model cv exit %d: %s" % (p.rc, p.tail(1))) for f in figure_ids()]
    cv = json.loads(p.out)
    with open(os.path.join(ctx.out, "model-cv.json"), "w") as f:
        json.dump(cv, f, indent=1)
    figs, thr, heap = [], [], []
    for chip, d in sorted(cv["chips"].items()):
        for col in COLUMNS:
            errs = [abs(fold[col]["error_pct"]) for fold in d["folds"] if fold[col]["error_pct"] is not None]
            (heap if col == "free_heap" else thr).extend((e, chip, fold_tier) for e, fold_tier in
                                                         zip(errs, [fd["tier"] for fd in d["folds"]
                                                                    if fd[col]["error_pct"] is not None]))
            for stat in ("median", "worst"):
                fid = "model.cv.%s.%s.%s_pct" % (chip, col, stat)
                if not errs:
                    figs.append(placeholder(fid, "no fold: the chip has fewer than two published tiers "
                                                 "with this figure"))
                    continue
                v = median(errs) if stat == "median" else max(errs)
                figs.append(figure(fid, SECTION, _name(fid), round(v, 2), "%", None, {"folds": len(errs)}))
    for fid, pool in (("model.throughput_median_pct", thr), ("model.throughput_worst_pct", thr),
                      ("model.heap_median_pct", heap), ("model.heap_worst_pct", heap)):
        name, tgt = POOLED[fid]
        if not pool:
            figs.append(placeholder(fid, "no folds"))
            continue
        worst = max(pool)
        v = median([e for e, _, _ in pool]) if "median" in fid else worst[0]
        figs.append(figure(fid, SECTION, name, round(v, 2), "%", tgt,
                           {"folds": len(pool), "worst_point": "%s/%s" % (worst[1], worst[2]),
                            "model_version": cv["model_version"]}))
    return figs


def summary_lines(figs):
    """SUMMARY.md: the per-chip, per-test table."""
    chips = sorted({f["id"].split(".")[2] for f in figs.values() if f["id"].startswith("model.cv.")})
    out = ["", "Tier model, leave-one-tier-out cross-validation (refit without the tier, predict it; "
           "median / worst |error| in %, folds = published tiers of the chip; `espbench model cv`):", "",
           "| chip | " + " | ".join(COLUMNS) + " |", "|---|" + "---|" * len(COLUMNS)]
    for chip in chips:
        cells = []
        for col in COLUMNS:
            m = figs.get("model.cv.%s.%s.median_pct" % (chip, col))
            w = figs.get("model.cv.%s.%s.worst_pct" % (chip, col))
            if not m or m["value"] is None:
                cells.append("—")
            else:
                cells.append("%.1f / %.1f (%d)" % (m["value"], w["value"], m["details"].get("folds", 0)))
        out.append("| %s | %s |" % (chip, " | ".join(cells)))
    return out
