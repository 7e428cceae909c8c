#!/usr/bin/env python3
"""The espbench benchmark suite (run by bench/run.sh, i.e. `make bench`).

Measures fidelity, overhead, flashing, footprint and parsing against the
vboard, each figure as a ratio within this one run, and writes
bench/results.json (every figure with its target and mark, the machine, date
and git commit) and bench/SUMMARY.md. Scratch files go to bench/out/.
Exit status: 0 every measured figure meets its target, 1 some figure falls
short, 3 nothing could be measured (or the suite could not start)."""
import argparse
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import fidelity, flashing, footprint, overhead, parsing  # noqa: E402
from benchlib.common import run  # noqa: E402

SCHEMA_VERSION = 1
SUITE_BUDGET_S = 13 * 60  # leaves room for the build inside `make bench`'s 15 minutes
# name, module, rough seconds it needs (a section is skipped when the budget cannot hold it)
SECTIONS = [
    ("flashing", flashing, 90),
    ("fidelity", fidelity, 200),
    ("footprint", footprint, 60),
    ("overhead", overhead, 200),
    ("parsing", parsing, 60),
]


class Ctx:
    def __init__(self, source, build, out):
        self.source = source
        self.bench = os.path.join(source, "bench")
        self.build = build
        self.espbench = os.path.join(build, "espbench")
        self.vboard = os.path.join(build, "espbench-vboard")
        self.out = out
        self.bench_profiles = os.path.join(self.bench, "profiles")
        self.node_dir = os.path.join(self.bench, "out", "node")
        self.esptool_js_script = os.path.join(self.node_dir, "esptool_js_flash.mjs")
        self.settings = {}
        self.measured = {}
        self.t0 = time.monotonic()
        self._node = None

    @staticmethod
    def now():
        return time.monotonic()

    def elapsed(self):
        return time.monotonic() - self.t0

    def cap(self, timeout):
        """A child's deadline, cut so the suite ends within its budget (plus a
        minute for the last section to write what it has)."""
        left = SUITE_BUDGET_S + 60 - self.elapsed()
        return max(10.0, min(timeout, left))

    def log(self, msg):
        print("bench [%5.0f s] %s" % (self.elapsed(), msg), file=sys.stderr, flush=True)

    def env(self, **overrides):
        e = dict(os.environ)
        e["ESPBENCH_VBOARD"] = self.vboard
        for k, v in overrides.items():
            if v is None:
                e.pop(k, None)
            else:
                e[k] = v
        return e

    def esptool_js_ready(self):
        """(ok, reason): esptool-js installed with `npm ci` from tests/node's
        package.json and lock into bench/out/node (reused while the lock is
        unchanged), and the vboard test's driver script copied beside it."""
        if self._node is not None:
            return self._node
        src = os.path.join(self.source, "tests", "node")
        lock = os.path.join(src, "package-lock.json")
        script = os.path.join(src, "esptool_js_flash.mjs")
        if not (os.path.exists(lock) and os.path.exists(script)):
            self._node = (False, "tests/node/package-lock.json or esptool_js_flash.mjs is missing")
        elif not shutil.which("node") or not shutil.which("npm"):
            self._node = (False, "node and npm are not installed (scripts/install-deps.sh --test installs them)")
        else:
            os.makedirs(self.node_dir, exist_ok=True)
            have = os.path.join(self.node_dir, "package-lock.json")
            fresh = False
            if os.path.exists(have) and os.path.exists(
                    os.path.join(self.node_dir, "node_modules", "esptool-js", "package.json")):
                with open(have, "rb") as f1, open(lock, "rb") as f2:
                    fresh = f1.read() == f2.read()
            ok, why = True, ""
            if not fresh:
                for n in ("package.json", "package-lock.json"):
                    shutil.copy(os.path.join(src, n), self.node_dir)
                self.log("esptool-js: npm ci into bench/out/node")
                p = run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], timeout=240, cwd=self.node_dir)
                if p.rc != 0:
                    ok, why = False, "npm ci failed (exit %d: %s)" % (p.rc, p.tail(2))
            shutil.copy(script, self.esptool_js_script)
            self._node = (ok, why)
        return self._node

    def esptool_js_version(self):
        try:
            with open(os.path.join(self.node_dir, "node_modules", "esptool-js", "package.json")) as f:
                return json.load(f).get("version")
        except (OSError, ValueError):
            return None


def sh(args, cwd=None):
    try:
        return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine_info():
    info = {"hostname": platform.node(), "kernel": platform.release(), "arch": platform.machine(),
            "cpus": os.cpu_count(), "python": platform.python_version()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            info["mem_total_mb"] = int(f.readline().split()[1]) // 1024
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    info["os"] = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    info["loadavg_start"] = os.getloadavg()[0]
    info["iperf"] = (sh(["iperf", "-v"]) or sh(["sh", "-c", "iperf -v 2>&1"])).splitlines()[0:1]
    info["iperf"] = info["iperf"][0] if info["iperf"] else None
    info["node"] = sh(["node", "--version"]) or None
    return info


def git_info(source):
    commit = sh(["git", "rev-parse", "HEAD"], cwd=source)
    if not commit:
        return {"commit": None, "dirty": None}
    dirty = bool(sh(["git", "status", "--porcelain", "--untracked-files=no"], cwd=source))
    return {"commit": commit, "dirty": dirty, "describe": sh(["git", "describe", "--always", "--dirty"], cwd=source)}


# ---------------------------------------------------------------- summary

PCT_IDS = ("fidelity.", "overhead.espbench_fraction", "overhead.ci_way_fraction", "footprint.cpu_fraction")


def fmt_value(f, v=None):
    v = f["value"] if v is None else v
    if v is None:
        return "—"
    if f["unit"] == "ratio" and f["id"].startswith(PCT_IDS):
        return "%+.2f %%" % (v * 100) if "peak_bias" in f["id"] else "%.2f %%" % (v * 100)
    if f["unit"] == "ratio":
        return "%.3f" % v
    if f["unit"] == "s":
        return "%.2f s" % v
    if f["unit"] == "MB":
        return "%.1f MB" % v
    if f["unit"] == "lines/s":
        return "{:,}".format(int(v)).replace(",", " ")
    return str(v)


def basis(f):
    """A few words on what the figure was computed from (SUMMARY.md)."""
    d = f.get("details") or {}
    fid = f["id"]
    try:
        if fid == "fidelity.worst":
            return "worst point: %s" % d["point"].split(".", 1)[1].replace(".", " at ").replace("mbps", " Mbit/s")
        if fid == "fidelity.peak_bias_max":
            return "at %s" % d["point"].split(".", 1)[1].replace(".", " ").replace("mbps", " Mbit/s")
        if fid == "overhead.espbench_fraction":
            return "%.1f s beyond %d s of tests (%d tiers × %d tests)" % (
                d["overhead_s"], d["test_s"], d["tiers"], d["tests"] // max(1, d["tiers"]))
        if fid == "overhead.ci_way_fraction":
            return "%.1f s: + %d flashes × %.2f s, %d restarts × %.2f s, %d scan+connect × %.3f s" % (
                d["ci_overhead_s"], d["configurations"], d["flash_s"], d["tests"], d["restart_to_prompt_s"],
                d["extra_scan_connects"], d["scan_connect_s"])
        if fid == "flash.wire_ratio":
            return "%.2f s vs %.2f s wire (%s compressed bytes)" % (
                sorted(d["espbench_s"])[len(d["espbench_s"]) // 2], d["wire_s"],
                "{:,}".format(d["compressed_bytes"]).replace(",", " "))
        if fid == "flash.vs_esptool_js":
            return "%.2f s vs %.2f s (medians of %d)" % (
                sorted(d["espbench_s"])[len(d["espbench_s"]) // 2],
                sorted(d["esptool_js_s"])[len(d["esptool_js_s"]) // 2], d["repeats"])
        if fid == "flash.reflash_s":
            return "median of %d" % len(d["espbench_s"])
        if fid == "flash.esp32_tail_cost_s":
            return "ESP32 %.2f s vs ESP32-C3 %.2f s (medians of %d; %s vs %s bytes sent)" % (
                sorted(d["esp32_s"])[len(d["esp32_s"]) // 2], sorted(d["esp32c3_s"])[len(d["esp32c3_s"]) // 2],
                d["repeats"], "{:,}".format(d["esp32_wire_bytes"]).replace(",", " "),
                "{:,}".format(d["esp32c3_wire_bytes"]).replace(",", " "))
        if fid == "footprint.cpu_fraction":
            return "%.2f CPU s in %.1f s of %d tests" % (d["window_cpu_s"], d["window_wall_s"], d["tests"])
        if fid == "footprint.peak_rss_mb":
            return "VmHWM over the whole run; %.1f MB peak VmRSS during tests" % d["peak_rss_in_tests_mb"]
        if fid == "parse.lines_per_s":
            return "%.2f M lines in %.2f s" % (d["lines"] / 1e6, d["wall_s"])
        if fid == "parse.parser_lines_per_s":
            return "%.2f M lines in %.3f s" % (d["lines"] / 1e6, d["parse_s"])
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return ""
    return ""


def mark(f):
    return {"pass": "pass", "falls short": "**falls short**", "not measured": "not measured",
            "reported": "reported (no target)"}[f["status"]]


def summary_md(res):
    figs = {f["id"]: f for f in res["figures"]}
    m = res["machine"]
    g = res["git"]
    out = ["# espbench benchmarks: latest figures", "",
           "Written by `make bench` (bench/run.sh) on %s; commit `%s`%s; %s, %s CPUs, %s; %.0f s." % (
               res["finished"][:16].replace("T", " ") + " UTC", (g.get("commit") or "unknown")[:12],
               " (uncommitted changes)" if g.get("dirty") else "", m.get("cpu_model", "?"), m.get("cpus"),
               m.get("os", "?"), res["duration_s"]),
           "Every figure is a ratio measured within this one run against espbench-vboard; the machine is shared, "
           "so single runs are noisy. Details and raw numbers: [results.json](results.json); method: "
           "[README.md](README.md).", "",
           "| figure | value | target | result | from |", "|---|---|---|---|---|"]
    order = ["fidelity.worst", "fidelity.peak_bias_mean", "fidelity.peak_bias_max", "overhead.espbench_fraction",
             "overhead.ci_way_fraction", "overhead.espbench_vs_ci_way", "flash.wire_ratio", "flash.vs_esptool_js",
             "flash.reflash_s", "flash.esp32_tail_cost_s", "footprint.cpu_fraction", "footprint.peak_rss_mb", "parse.lines_per_s",
             "parse.parser_lines_per_s"]
    short = {
        "fidelity.worst": "Fidelity: worst \\|steady mean − true rate\\| / true rate (20 points)",
        "fidelity.peak_bias_mean": "Peak-1-s method bias vs mean, average",
        "fidelity.peak_bias_max": "Peak-1-s method bias vs mean, largest",
        "overhead.espbench_fraction": "Overhead of `run --sim --tier all` (esp32) / test time",
        "overhead.ci_way_fraction": "Same matrix the ESP-IDF CI way / test time (lower bound, from measured steps)",
        "overhead.espbench_vs_ci_way": "espbench overhead / CI-way overhead",
        "flash.wire_ratio": "Flash 1 MiB @ 921600, W25Q32JV timing: espbench (ROM loader) / wire time of "
                            "its compressed bytes",
        "flash.vs_esptool_js": "Flash 1 MiB, W25Q32JV timing: espbench (ROM loader) / esptool-js (flasher stub), "
                               "same vboard, same run",
        "flash.reflash_s": "Re-flash of an unchanged image (MD5 skip)",
        "flash.esp32_tail_cost_s": "Cost of the ESP32 32 KiB-overrun fix (tail ~28 KiB plain): ESP32 − ESP32-C3 time",
        "footprint.cpu_fraction": "espbench CPU / wall during 100 Mbit/s tests",
        "footprint.peak_rss_mb": "espbench peak RSS",
        "parse.lines_per_s": "`espbench parse` lines per second, whole command (board + iperf2 logs)",
        "parse.parser_lines_per_s": "The same logs, parser alone (in memory, no JSON written)",
    }
    for fid in order:
        f = figs.get(fid)
        if not f:
            continue
        tgt = f["target"]["text"] if f["target"] else "—"
        out.append("| %s | %s | %s | %s | %s |" % (short[fid], fmt_value(f), tgt, mark(f), basis(f)))
    out += ["", "Fidelity per point, |steady mean − true rate| / true rate (target ≤ 1 %; true rate = bytes the "
            "vboard moved in the steady window):", "",
            "| test | " + " | ".join("%d Mbit/s" % r for r in fidelity.RATES) + " |",
            "|---|" + "---|" * len(fidelity.RATES)]
    for t in fidelity.TESTS:
        cells = []
        for r in fidelity.RATES:
            f = figs.get(fidelity.point_id(t, r))
            if not f or f["value"] is None:
                cells.append("not measured")
            else:
                cells.append(fmt_value(f) + ("" if f["status"] == "pass" else " ✗"))
        out.append("| %s | %s |" % (t, " | ".join(cells)))
    out += ["", "TX tests compare the PC's iperf2 count (espbench's headline) with the board's; for RX tests the "
            "headline is the board's own count, so 0 means espbench's parsing and statistics reproduce the bytes "
            "exactly."]
    nm = {}
    for f in res["figures"]:
        if f["status"] == "not measured":
            nm.setdefault(f["reason"], []).append(f["id"])
    if nm:
        out += ["", "Not measured:", ""]
        for reason, ids in nm.items():
            out.append("- %s: %s" % (", ".join("`%s`" % i for i in ids), reason))
    c = res["counts"]
    out += ["", "%d pass, %d fall short, %d not measured, %d reported without a target." % (
        c["pass"], c["falls short"], c["not measured"], c["reported"]), ""]
    return "\n".join(out)


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description="espbench benchmark suite")
    ap.add_argument("--source", required=True, help="the espbench source tree")
    ap.add_argument("--build", required=True, help="build directory with espbench and espbench-vboard")
    ap.add_argument("--only", help="comma-separated sections (flashing,fidelity,footprint,overhead,parsing)")
    ap.add_argument("--results", help="results.json path (default bench/results.json)")
    ap.add_argument("--summary", help="SUMMARY.md path (default bench/SUMMARY.md)")
    a = ap.parse_args()
    source = os.path.abspath(a.source)
    build = os.path.abspath(a.build)
    out = os.path.join(source, "bench", "out", "run")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    ctx = Ctx(source, build, out)
    started = datetime.datetime.now(datetime.timezone.utc)
    machine = machine_info()
    version = sh([ctx.espbench, "--version"])
    only = set(a.only.split(",")) if a.only else None

    figures, sections = [], {}
    for name, mod, need in SECTIONS:
        if only and name not in only:
            continue
        t0 = time.monotonic()
        ids = mod.figure_ids()
        got = []
        error = None
        if ctx.elapsed() + need > SUITE_BUDGET_S:
            error = "skipped: the suite's %d s budget would be exceeded (%.0f s spent)" % (SUITE_BUDGET_S,
                                                                                             ctx.elapsed())
        else:
            ctx.log("section %s" % name)
            try:
                got = mod.measure(ctx)
            except Exception as exc:  # a harness bug must not lose the other sections
                error = "harness error: %s: %s" % (type(exc).__name__, exc)
                traceback.print_exc()
        have = {f["id"] for f in got}
        for fid in ids:
            if fid not in have:
                got.append(mod.placeholder(fid, error or "the section produced no figure"))
        figures += got
        sections[name] = {"wall_s": round(time.monotonic() - t0, 1)}
        if error:
            sections[name]["error"] = error
        for f in got:
            ctx.log("  %-34s %-14s %s%s" % (f["id"], fmt_value(f), f["status"],
                                             (": " + f["reason"]) if f["reason"] else ""))

    finished = datetime.datetime.now(datetime.timezone.utc)
    machine["loadavg_end"] = os.getloadavg()[0]
    counts = {k: sum(1 for f in figures if f["status"] == k) for k in
              ("pass", "falls short", "not measured", "reported")}
    res = {"schema": "espbench-bench", "schema_version": SCHEMA_VERSION, "espbench_version": version or None,
           "started": started.isoformat(timespec="seconds").replace("+00:00", "Z"),
           "finished": finished.isoformat(timespec="seconds").replace("+00:00", "Z"),
           "duration_s": round((finished - started).total_seconds(), 1), "git": git_info(source),
           "machine": machine, "settings": ctx.settings, "sections": sections, "counts": counts,
           "figures": figures}
    results = a.results or os.path.join(source, "bench", "results.json")
    summary = a.summary or os.path.join(source, "bench", "SUMMARY.md")
    # Paths inside the tree are written relative to it (the files are committed).
    rel = source.rstrip("/") + "/"
    write_atomic(results, (json.dumps(res, indent=2, ensure_ascii=False) + "\n").replace(rel, ""))
    write_atomic(summary, summary_md(res).replace(rel, ""))
    ctx.log("wrote %s and %s: %d pass, %d fall short, %d not measured" % (
        os.path.relpath(results, source), os.path.relpath(summary, source), counts["pass"], counts["falls short"],
        counts["not measured"]))
    if counts["falls short"]:
        return 1
    measured = counts["pass"] + counts["reported"]
    return 0 if measured else 3


if __name__ == "__main__":
    sys.exit(main())
