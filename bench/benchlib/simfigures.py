"""8. Sim figures: how close `run --sim` comes to the figure the virtual board was shaped to.

The test suite checks the figure each board was shaped to (every iperf test
writes "vboard: iperf TEST shaped to V Mbit/s" to the vboard's log, kept by
`run --sim` as NAME-vboard.log; tests/e2e/lib/shaped.sh) and what espbench did
with the bytes it saw; what a machine's traffic reaches against that figure is
a measurement and is made here, on the runs the tests make:

  espbench  the espbench firmware, published tiers (run_sim.sh, report_sim.sh)
  stock     Espressif's iperf example (ESP-IDF v5.3, 2^20-bit "Mbits"), a tier
            image per tier from a manifest (run_stock_sim.sh)
  model     overlay tiers between and below the published ranks, shaped to the
            tier model's figures (model_sim.sh)
  pair      board to board, ESP32 and ESP32-C3 (minimum): the slower end's figure
            (run_pair_sim.sh)
  sweep     a udp-rate sweep: the board receives what the PC offers (run_sweep_sim.sh)
  latency   UDP echo at a modelled 20 ms RTT: what the PC adds (run_latency_sim.sh)
  bisect    espbench bisect over a 50-commit fake ESP-IDF with a 20 % regression at
            commit 37 and commits 12-14 unbuildable: found, and in how many measured
            commits (at most ceil(log2 50) + 2 = 8) (bisect_sim.sh walks a 12-commit one)

Per throughput case the figure is the largest |steady mean / expected - 1|
over its tests, the points in details."""
import glob
import hashlib
import json
import os
import re
import shutil

from .common import figure, not_measured, run, target

SECTION = "simfigures"
RATIO_CASES = {
    "espbench": target("<=", 0.03, "≤ 3 %"),
    "stock": target("<=", 0.03, "≤ 3 %"),
    "model": target("<=", 0.03, "≤ 3 %"),
    "pair": target("<=", 0.05, "≤ 5 %"),
    "sweep": target("<=", 0.08, "≤ 8 %"),
}
T_LATENCY = target("<=", 15.0, "≤ 15 ms")
T_BISECT_FOUND = target(">=", 1, "found")
T_BISECT_COMMITS = target("<=", 8, "≤ 8")
NAMES = {
    "simfigures.espbench.worst": "espbench firmware, 2 published esp32 tiers: worst |mean / shaped - 1|",
    "simfigures.stock.worst": "stock iperf example v5.3, 2 tier images: worst |mean / shaped - 1|",
    "simfigures.model.worst": "model overlay tiers (middle, lean): worst |mean / shaped - 1|",
    "simfigures.pair.worst": "board to board esp32 + esp32c3: worst |mean / slower end - 1|",
    "simfigures.sweep.worst": "udp-rate sweep 40:80:20, udp_rx: worst |mean / offered - 1|",
    "simfigures.latency.excess_ms": "UDP echo at a modelled 20 ms: mean RTT - 20 ms",
    "simfigures.bisect.found": "bisect, 50 commits, 20 % regression: first bad commit found (1) or not (0)",
    "simfigures.bisect.measured_commits": "bisect, 50 commits: commits measured (ends included)",
}
TARGETS = dict({"simfigures.%s.worst" % c: t for c, t in RATIO_CASES.items()},
               **{"simfigures.latency.excess_ms": T_LATENCY, "simfigures.bisect.found": T_BISECT_FOUND,
                  "simfigures.bisect.measured_commits": T_BISECT_COMMITS})
UNITS = {"simfigures.latency.excess_ms": "ms", "simfigures.bisect.found": "count",
         "simfigures.bisect.measured_commits": "count"}
SHAPED = re.compile(r"^vboard: iperf (\w+) shaped to (\S+) Mbit/s$", re.M)
DURATION_S = 4


def figure_ids():
    return list(NAMES)


def placeholder(fid, reason):
    return not_measured(fid, SECTION, NAMES[fid], UNITS.get(fid, "ratio"), TARGETS[fid], reason)


def _shaped(path):
    try:
        with open(path, errors="replace") as f:
            return [(t, float(v)) for t, v in SHAPED.findall(f.read())]
    except OSError:
        return []


def _entries(out):
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)


def _in_order(entries, shaped):
    """Each entry's shaped figure: the vboard's lines in plan order, a retried test's last line."""
    got, i = [], 0
    for e in entries:
        v = None
        while i < len(shaped) and shaped[i][0] != e["test"]:
            i += 1
        while i < len(shaped) and shaped[i][0] == e["test"]:
            v = shaped[i][1]
            i += 1
        got.append(v)
    return got


def _worst(fid, points):
    """points: [(label, mean, expected)]."""
    ok = [(abs(m / w - 1), lab, m, w) for lab, m, w in points if m is not None and w]
    if not ok or len(ok) < len(points):
        missing = [lab for lab, m, w in points if m is None or not w]
        return placeholder(fid, "no figure or no shaped rate for %s" % (", ".join(missing) or "any test"))
    worst = max(ok)
    details = {"points": {lab: {"mean_mbps": round(m, 4), "expected_mbps": round(w, 4), "error": round(err, 5)}
                          for err, lab, m, w in ok},
               "worst_point": worst[1]}
    return figure(fid, SECTION, NAMES[fid], round(worst[0], 5), "ratio", TARGETS[fid], details)


def _sim_run(ctx, name, args, timeout, env=None):
    out = os.path.join(ctx.out, "simfigures", name)
    shutil.rmtree(out, ignore_errors=True)
    full = [ctx.espbench] + args + ["--out", out]
    ctx.log("simfigures %s: %s" % (name, " ".join(full[1:])))
    p = run(full, timeout=ctx.cap(timeout), env=env or ctx.env())
    ctx.settings.setdefault(SECTION, {})[name] = {"command": "espbench " + " ".join(full[1:]), "rc": p.rc,
                                                  "wall_s": round(p.wall, 1)}
    return out, p


def _plain_case(ctx, name, args, timeout, env=None):
    fid = "simfigures.%s.worst" % name
    out, p = _sim_run(ctx, name, args, timeout, env)
    try:
        entries = _entries(out)["entries"]
    except (OSError, ValueError) as exc:
        return placeholder(fid, "no results.json (%s; exit %d: %s)" % (exc, p.rc, p.tail()))
    shaped = _in_order(entries, _shaped(os.path.join(out, "sim-vboard.log")))
    return _worst(fid, [("%s/%s" % (e["tier"], e["test"]), e["mean_mbps"] if e["status"] == "ok" else None, w)
                        for e, w in zip(entries, shaped)])


def _stock_manifest(ctx):
    fw = os.path.join(ctx.out, "simfigures", "stock-fw")
    os.makedirs(fw, exist_ok=True)
    tiers = {}
    for tier in ("iperf", "minimum"):
        path = os.path.join(fw, tier + ".bin")
        run([ctx.vboard, "mkimage", "--chip", "esp32", "--project", "iperf", "--idf", "v5.3", "--version", tier,
             "-o", path], timeout=60)
        with open(path, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        tiers[tier] = {"images": [{"offset": "0x10000", "file": tier + ".bin", "sha256": sha}]}
    m = os.path.join(fw, "manifest.json")
    with open(m, "w") as f:
        json.dump({"schema": 1, "firmware": {"iperf-example": {"chips": {"esp32": {"tiers": tiers}}}}}, f)
    return m


def _pair(ctx):
    fid = "simfigures.pair.worst"
    out, p = _sim_run(ctx, "pair", ["run", "--sim", "--chip", "esp32", "--peer-chip", "esp32c3", "--peer-tier",
                                    "minimum", "--tier", "iperf", "--duration", str(DURATION_S), "--interval", "1",
                                    "--warmup", "1"], 240)
    try:
        entries = _entries(out)["entries"]
    except (OSError, ValueError) as exc:
        return placeholder(fid, "no results.json (%s; exit %d: %s)" % (exc, p.rc, p.tail()))
    board = dict(_shaped(os.path.join(out, "sim-vboard.log")))
    peer = dict(_shaped(os.path.join(out, "sim-peer-vboard.log")))
    points = []
    for e in entries:
        t, kind = e["test"], e["test"][:4]
        if t.endswith("_tx"):  # the ESP32 sends, the C3 receives
            ends = (board.get(kind + "tx"), peer.get(kind + "rx"))
        else:
            ends = (peer.get(kind + "tx"), board.get(kind + "rx"))
        want = min(ends) if None not in ends else None
        points.append((t, e["mean_mbps"] if e["status"] == "ok" else None, want))
    return _worst(fid, points)


def _sweep(ctx):
    fid = "simfigures.sweep.worst"
    out, p = _sim_run(ctx, "sweep", ["run", "--chip", "esp32", "--tier", "iperf", "--sim", "--tests", "udp_rx",
                                     "--sweep", "udp-rate=40:80:20", "--duration", str(DURATION_S)], 240)
    try:
        entries = _entries(out)["entries"]
    except (OSError, ValueError) as exc:
        return placeholder(fid, "no results.json (%s; exit %d: %s)" % (exc, p.rc, p.tail()))
    return _worst(fid, [("%g" % e["provenance"]["sweep_value"], e["mean_mbps"] if e["status"] == "ok" else None,
                         e["provenance"]["sweep_value"]) for e in entries])


def _latency(ctx):
    fid = "simfigures.latency.excess_ms"
    out, p = _sim_run(ctx, "latency", ["run", "--chip", "esp32", "--tier", "iperf", "--sim", "--sim-rtt", "20",
                                       "--tests", "latency", "--latency-count", "20"], 120)
    try:
        lat = _entries(out)["latency"][0]
    except (OSError, ValueError, KeyError, IndexError) as exc:
        return placeholder(fid, "no latency result (%s; exit %d: %s)" % (exc, p.rc, p.tail()))
    if lat.get("avg_ms") is None:
        return placeholder(fid, "the latency test measured nothing: %s" % lat.get("error"))
    return figure(fid, SECTION, NAMES[fid], round(lat["avg_ms"] - 20, 3), "ms", T_LATENCY,
                  {k: lat.get(k) for k in ("min_ms", "avg_ms", "p99_ms", "max_ms", "received", "sent")})


def _bisect(ctx):
    ids = ("simfigures.bisect.found", "simfigures.bisect.measured_commits")
    work = os.path.join(ctx.out, "simfigures", "bisect")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    lib = os.path.join(ctx.source, "tests", "e2e", "lib", "fake_idf.sh")
    env = ctx.env(VBOARD=ctx.vboard)
    script = ('source "$1"; fake_idf_repo "$2/idf" 50 37 0.8 12 14 >/dev/null && fake_idf_commit "$2/idf" 37')
    p = run(["bash", "-c", script, "bash", lib, work], timeout=120, env=env)
    bad = p.out.strip()
    if p.rc != 0 or len(bad) != 40:
        return [placeholder(i, "the fake ESP-IDF history could not be made (exit %d: %s)" % (p.rc, p.tail()))
                for i in ids]
    args = [ctx.espbench, "bisect", "--idf-repo", os.path.join(work, "idf"), "--chip", "esp32s3", "--tier", "iperf",
            "--test", "tcp_tx", "--sim", "--sim-noise", "2", "--duration", "1", "--interval", "0.5", "--repeats",
            "2", "--idf-cache", os.path.join(work, "cache"), "--good", "fake-1", "--bad", "fake-50", "--out",
            os.path.join(work, "b")]
    ctx.log("simfigures bisect: %s" % " ".join(args[1:]))
    p = run(args, timeout=ctx.cap(600), env=env)
    ctx.settings.setdefault(SECTION, {})["bisect"] = {"command": "espbench " + " ".join(args[1:]), "rc": p.rc,
                                                      "wall_s": round(p.wall, 1)}
    m = re.search(r"^first bad commit: ([0-9a-f]{40}) ", p.out, re.M)
    n = re.search(r"^measured (\d+) commits", p.out, re.M)
    if not m or not n:
        return [placeholder(i, "bisect gave no answer (exit %d: %s)" % (p.rc, p.tail())) for i in ids]
    details = {"answer": m.group(1), "planted": bad}
    return [figure(ids[0], SECTION, NAMES[ids[0]], int(m.group(1) == bad), "count", T_BISECT_FOUND, details),
            figure(ids[1], SECTION, NAMES[ids[1]], int(n.group(1)), "count", T_BISECT_COMMITS, details)]


def measure(ctx):
    common = ["--duration", str(DURATION_S), "--interval", "1"]
    figs = [_plain_case(ctx, "espbench", ["run", "--sim", "--chip", "esp32", "--tier", "iperf,minimum"] + common,
                        240)]
    figs.append(_plain_case(ctx, "stock", ["run", "--sim", "--chip", "esp32", "--sim-project", "iperf",
                                           "--sim-idf", "v5.3", "--manifest", _stock_manifest(ctx),
                                           "--tier", "iperf,minimum"] + common, 240))
    overlay = os.path.join(ctx.source, "tests", "fixtures", "profiles", "model-overlay")
    figs.append(_plain_case(ctx, "model", ["--profiles", overlay, "run", "--sim", "--chip", "esp32", "--tier",
                                           "middle,lean"] + common, 240))
    figs.append(_pair(ctx))
    figs.append(_sweep(ctx))
    figs.append(_latency(ctx))
    figs += _bisect(ctx)
    return figs


def summary_lines(figs):
    """SUMMARY.md: the section's figures (the e2e tests check the shaped figures themselves)."""
    rows = [figs.get(i) for i in NAMES]
    if not any(rows):
        return []
    out = ["", "`run --sim` against the figure the virtual board was shaped to (the e2e tests assert the figure, "
           "this section what the traffic reaches on this machine):", "",
           "| case | value | target | result |", "|---|---|---|---|"]
    for fid in NAMES:
        f = figs.get(fid)
        if not f:
            continue
        v = f["value"]
        if v is None:
            val = "not measured"
        elif f["unit"] == "ratio":
            val = "%.2f %%" % (v * 100)
        else:
            val = "%s %s" % (v, "ms" if f["unit"] == "ms" else "")
        res = "not measured" if f["status"] == "not measured" else ("ok" if f["status"] == "pass" else "✗")
        out.append("| %s | %s | %s | %s |" % (NAMES[fid].replace("|", "\\|"), val.strip(),
                                              f["target"]["text"] if f["target"] else "—", res))
    return out
