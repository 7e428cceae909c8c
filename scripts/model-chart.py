#!/usr/bin/env python3
"""Writes docs/model-vs-published.svg: for every chip, each published figure
(x) against the tier model's leave-one-tier-out prediction (y, the fit did not
see that tier), from `espbench model cv --json`. Deterministic output.

usage: scripts/model-chart.py ESPBENCH [OUT.svg]"""
import json
import subprocess
import sys

COLOURS = {"tcp_tx": "#1f77b4", "tcp_rx": "#ff7f0e", "udp_tx": "#2ca02c", "udp_rx": "#d62728"}
W, H, PAD, COLS = 260, 240, 40, 3


def panel(x0, y0, chip, folds):
    pts = [(f[t]["published"], f[t]["predicted"], t, f["tier"]) for f in folds for t in COLOURS
           if f[t]["published"] is not None and f[t]["predicted"] is not None]
    vmax = max([max(a, b) for a, b, _, _ in pts] + [10.0]) * 1.1
    sx = lambda v: x0 + PAD + v / vmax * (W - PAD - 10)
    sy = lambda v: y0 + H - PAD - v / vmax * (H - PAD - 30)
    out = ['<text x="%.0f" y="%.0f" font-weight="bold">%s</text>' % (x0 + PAD, y0 + 18, chip)]
    out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#999"/>' % (
        sx(0), sy(vmax), sx(vmax) - sx(0), sy(0) - sy(vmax)))
    out.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#bbb" stroke-dasharray="4"/>' % (
        sx(0), sy(0), sx(vmax), sy(vmax)))
    out.append('<text x="%.1f" y="%.1f" font-size="10">%.0f</text>' % (sx(vmax) - 14, sy(0) + 12, vmax))
    out.append('<text x="%.1f" y="%.1f" font-size="10">%.0f</text>' % (sx(0) - 24, sy(vmax) + 8, vmax))
    if not pts:
        out.append('<text x="%.1f" y="%.1f" font-size="11">one published tier: no fold</text>' % (
            sx(0) + 10, sy(vmax / 2)))
    for a, b, t, tier in pts:
        out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s %s: published %.1f, predicted '
                   '%.1f Mbit/s</title></circle>' % (sx(a), sy(b), COLOURS[t], tier, t, a, b))
    return out


def main():
    espbench = sys.argv[1]
    path = sys.argv[2] if len(sys.argv) > 2 else "docs/model-vs-published.svg"
    cv = json.loads(subprocess.run([espbench, "model", "cv", "--json"], check=True, capture_output=True,
                                   text=True).stdout)
    chips = sorted(cv["chips"])
    rows = (len(chips) + COLS - 1) // COLS
    width, height = COLS * W + 20, rows * H + 70
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="12">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="20" font-size="14">Tier model %s: leave-one-tier-out prediction (y) against the '
           'published figure (x), Mbit/s; dashed = exact</text>' % cv["model_version"]]
    for i, chip in enumerate(chips):
        out += panel(10 + (i % COLS) * W, 30 + (i // COLS) * H, chip, cv["chips"][chip]["folds"])
    lx = 10
    for t, c in COLOURS.items():
        out.append('<circle cx="%d" cy="%d" r="4" fill="%s"/><text x="%d" y="%d">%s</text>' % (
            lx + 5, height - 15, c, lx + 14, height - 11, t))
        lx += 90
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
