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
from benchlib import faults, fidelity, flashing, footprint, fuzz, killresume, model, overhead, parsing  # noqa: E402
from benchlib import parse_memory  # noqa: E402
from benchlib import faultmodes, simfigures, tune  # noqa: E402
from benchlib.common import run  # noqa: E402

SCHEMA_VERSION = 1
SUITE_BUDGET_S = 13 * 60  # leaves room for the build inside `make bench`'s 15 minutes
# name, module, rough seconds it needs (a section is skipped when the budget cannot hold it)
SECTIONS = [
    ("flashing", flashing, 220),
    ("fidelity", fidelity, 200),
    ("footprint", footprint, 60),
    ("overhead", overhead, 200),
    ("parsing", parsing, 60),
    ("parse_memory", parse_memory, 60),
    ("model", model, 120),
    ("tune", tune, 60),
    ("simfigures", simfigures, 360),
]
# Robustness sections (fuzzing campaign, fault matrix, kill-and-resume): long, so `make bench`
# runs them only when named: bash bench/run.sh --only fuzz,faults,killresume. Their figures are
# merged into the committed results.json beside the others (see "--only" below).
ROBUSTNESS = [
    ("fuzz", fuzz, 600),
    ("faults", faults, 300),
    ("faults_modes", faultmodes, 600),
    ("killresume", killresume, 300),
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
        self.budget = SUITE_BUDGET_S
        self._node = None

    @staticmethod
    def now():
        return time.monotonic()

    def elapsed(self):
        return time.monotonic() - self.t0

    def cap(self, timeout):
        """A child's deadline, cut so the suite ends within its budget (plus a
        minute for the last section to write what it has)."""
        left = self.budget + 60 - self.elapsed()
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

PCT_IDS = ("fidelity.", "simfigures.", "overhead.espbench_fraction", "overhead.ci_way_fraction", "footprint.cpu_fraction")


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
    if f["unit"] == "%":
        return "%.1f %%" % v
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
        if fid in ("flash.wire_ratio", "flash.rom_wire_ratio"):
            return "%.2f s vs %.2f s wire (%s compressed bytes); loader: %s" % (
                sorted(d["espbench_s"])[len(d["espbench_s"]) // 2], d["wire_s"],
                "{:,}".format(d["compressed_bytes"]).replace(",", " "), d.get("loader"))
        if fid == "flash.esp8266_rom_vs_stub":
            return "ROM %.1f s at %s baud (%s bytes sent) vs stub %.1f s at %s baud (%s bytes sent)" % (
                d["rom_s"], d["rom_baud"], "{:,}".format(d["rom_wire_bytes"]).replace(",", " "), d["stub_s"],
                d["stub_baud"], "{:,}".format(d["stub_wire_bytes"]).replace(",", " "))
        if fid == "flash.vs_esptool_js":
            return "%.2f s vs %.2f s (medians of %d); espbench's loader: %s" % (
                sorted(d["espbench_s"])[len(d["espbench_s"]) // 2],
                sorted(d["esptool_js_s"])[len(d["esptool_js_s"]) // 2], d["repeats"], d.get("loader"))
        if fid == "flash.reflash_s":
            return "median of %d" % len(d["espbench_s"])
        if fid.startswith("parse.rss_"):
            return "%s intervals in the log (%.0f MB), %s bytes of RSS per interval%s" % (
                "{:,}".format(d["intervals"]).replace(",", " "), d["log_bytes"] / 2**20, d["bytes_per_interval"],
                "; stopped at the results cap (exit %d)" % d["exit"] if d["exit"] else "")
        if fid in ("flash.esp32_rom_split_vs_plain", "flash.esp32_rom_split_vs_c3"):
            other = "plain" if fid.endswith("plain") else "c3"
            return "ESP32 split %.2f s vs %s %.2f s (medians of %d; %s vs %s bytes sent)" % (
                sorted(d["split_s"])[len(d["split_s"]) // 2],
                "ESP32 all plain" if other == "plain" else "ESP32-C3 all compressed",
                sorted(d[other + "_s"])[len(d[other + "_s"]) // 2], d["repeats"],
                "{:,}".format(d.get("split_wire_bytes", 0)).replace(",", " "),
                "{:,}".format(d.get(other + "_wire_bytes", 0)).replace(",", " "))
        if fid == "footprint.cpu_fraction":
            return "%.2f CPU s in %.1f s of %d tests" % (d["window_cpu_s"], d["window_wall_s"], d["tests"])
        if fid == "footprint.peak_rss_mb":
            return "VmHWM over the whole run; %.1f MB peak VmRSS during tests" % d["peak_rss_in_tests_mb"]
        if fid == "parse.lines_per_s":
            return "%.2f M lines in %.2f s" % (d["lines"] / 1e6, d["wall_s"])
        if fid.startswith("model.") and "worst_point" in d:
            return "%d folds%s" % (d["folds"], "; worst: " + d["worst_point"] if "worst" in fid else "")
        if fid == "parse.parser_lines_per_s":
            return "%.2f M lines in %.3f s" % (d["lines"] / 1e6, d["parse_s"])
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return ""
    return ""


def fault_md(figs, prefix, title, where, phases, by_mode=False):
    fc = figs.get(prefix + ".cells")
    if not fc or fc.get("value") is None:
        return []
    d = fc["details"]
    out = ["", "## " + title, "",
           "%d cells (fault × phase, %s): %d recovered and measured, %d reported "
           "with a documented exit code; invariant violations %d (hangs %d, processes left running %d, finished "
           "tests lost %d, invalid results.json %d). Exit codes: %s." % (
               d["cells"], where, d["measured"], d["reported"], d["violations"], d["hangs"], d["survivors"],
               d["lost_tests"], d["invalid_json"],
               ", ".join("%s × %d" % kv for kv in sorted(d.get("by_exit", {}).items()))), ""]
    rows = {}
    for cid, c in d.get("matrix", {}).items():
        kind_fault, phase = cid.split("@")
        if by_mode:
            kind_fault = kind_fault.replace("/", " / ")
        mark_ = {"measured": "M", "reported": "R%s" % c.get("exit")}.get(c.get("outcome"), "✗")
        rows.setdefault(kind_fault, {})[phase] = mark_ + ("" if not c.get("problems") else " ✗")
    used = [p for p in phases if any(p in r for r in rows.values())]
    out += ["M = recovered and measured the whole plan; R*n* = reported with exit *n* and one line; "
            "✗ = an invariant broke.", "",
            "| fault | " + " | ".join(used) + " |", "|---|" + "---|" * len(used)]
    for k in sorted(rows):
        out.append("| %s | %s |" % (k, " | ".join(rows[k].get(p, "") for p in used)))
    return out


def robustness_md(figs):
    """The fuzzing campaign, fault matrix and kill-and-resume figures (bench.py --only ...)."""
    out = []
    names = sorted({fid.split(".")[1] for fid in figs if fid.startswith("fuzz.") and fid.count(".") == 2})
    if names:
        secs = (figs.get("fuzz.total_crashes") or {}).get("details", {}).get("seconds_per_target")
        out += ["", "## Fuzzing campaign", "",
                "libFuzzer with ASan + UBSan, %s s per target on this shared machine (`FUZZ_SECONDS`), corpus kept in "
                "bench/out/fuzz-corpus; crashes must be 0 (each fixed crash adds its input to tests/fuzz/)%s." % (
                    secs, "; from the run of %s" % figs["fuzz.total_crashes"]["from_run"]
                    if figs.get("fuzz.total_crashes", {}).get("from_run") else ""), "",
                "| target | executions | exec/s | edges | features | crashes | 10 M executions |",
                "|---|---|---|---|---|---|---|"]
        reg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fuzz")
        kept = sorted("%s/%s" % (t, f) for t in (os.listdir(reg) if os.path.isdir(reg) else [])
                      if os.path.isdir(os.path.join(reg, t)) for f in os.listdir(os.path.join(reg, t)))
        if kept:
            out[-3:-3] = ["Crashes found by earlier campaigns, fixed, and replayed by every `make test` "
                          "(tests/fuzz/): %s." % ", ".join("`%s`" % k for k in kept)]
            out[-4:-4] = [""]
        for t in names:
            ex, ed, cr = (figs.get("fuzz.%s.%s" % (t, k)) or {} for k in ("execs", "edges", "crashes"))
            d = cr.get("details") or {}
            n, rate = ex.get("value") or 0, d.get("execs_per_s")
            goal = "reached in %s s" % round(d.get("wall_s", 0)) if n >= 10_000_000 else \
                "%.0f %% in %s s (10 M: ~%s at this rate)" % (n / 1e5, round(d.get("wall_s", 0)),
                                                       "%.1f h" % (1e7 / rate / 3600) if rate else "?")
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                t, "{:,}".format(n).replace(",", " "), rate or "—", ed.get("value"), d.get("features", "—"),
                cr.get("value"), goal))
    out += fault_md(figs, "faults", "Fault matrix", "`run --sim` and through ser2net",
                    ["flash", "tier_switch", "connect", "tcp_tx", "tcp_rx", "udp_tx", "udp_rx"])
    out += fault_md(figs, "faults_modes", "Fault matrix: board to board, ESP-Hosted, sweeps, --aggregate",
                    "`run --sim --peer-chip`, `--coprocessor`, `--sweep rtt=5,40`, `--lab --aggregate`",
                    ["flash", "raw_tx", "tier_switch", "connect", "tcp_tx", "udp_rx", "sweep_point"], by_mode=True)
    kr = figs.get("killresume.rounds")
    if kr and kr.get("value") is not None:
        d = kr["details"]
        g = {k: (figs.get("killresume." + k) or {}).get("value") for k in
             ("violations", "survivors", "redone", "lost", "writer_fsyncs_dir")}
        out += ["", "## Kill and resume", "",
                "%d rounds: `run --sim` SIGKILLed at a random moment (uniform over a %.1f s run; %d killed mid-run), "
                "then `--resume` to the end (tests finished before the kill: %s). Rounds breaking an invariant: %s; processes outliving the killed run: "
                "%s; finished tests measured again: %s; lost: %s (the resumes ran %s tests: the one in flight at each kill "
                "and those not yet started). "
                "Results writer (strace): fsync, rename, directory fsync: %s." % (
                    kr["value"], d["full_run_s"], d["killed"],
                    ", ".join("%s in %s rounds" % kv for kv in sorted(d.get("done_before_kill_hist", {}).items())),
                    g["violations"], g["survivors"], g["redone"],
                    g["lost"], d.get("tests_run_by_resume"), "yes" if g["writer_fsyncs_dir"] else "no")]
    return out


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
    order = ["fidelity.worst", "fidelity.peak_bias_mean", "fidelity.peak_bias_max", "fidelity.shaping_worst",
             "overhead.espbench_fraction",
             "overhead.ci_way_fraction", "overhead.espbench_vs_ci_way", "flash.wire_ratio", "flash.vs_esptool_js",
             "flash.rom_wire_ratio", "flash.esp8266_rom_vs_stub", "flash.reflash_s", "flash.esp32_rom_split_vs_plain",
             "flash.esp32_rom_split_vs_c3", "footprint.cpu_fraction", "footprint.peak_rss_mb",
             "parse.lines_per_s", "parse.parser_lines_per_s", "parse.rss_small_mb", "parse.rss_long_mb",
             "parse.rss_dense_mb", "model.throughput_median_pct",
             "model.throughput_worst_pct", "model.heap_median_pct", "model.heap_worst_pct"]
    short = {
        "fidelity.worst": "Fidelity: worst \\|steady mean − true rate\\| / true rate (20 points)",
        "fidelity.peak_bias_mean": "Peak-1-s method bias vs mean, average",
        "fidelity.peak_bias_max": "Peak-1-s method bias vs mean, largest",
        "fidelity.shaping_worst": "The vboard's shaping: worst \\|true rate − shaped rate\\| / shaped rate",
        "overhead.espbench_fraction": "Overhead of `run --sim --tier all` (esp32) / test time",
        "overhead.ci_way_fraction": "Same matrix the ESP-IDF CI way / test time (lower bound, from measured steps)",
        "overhead.espbench_vs_ci_way": "espbench overhead / CI-way overhead",
        "flash.wire_ratio": "Flash 1 MiB @ 921600, W25Q32JV timing: espbench (flasher stub) / wire time of "
                            "its compressed bytes",
        "flash.vs_esptool_js": "Flash 1 MiB, W25Q32JV timing: espbench (flasher stub) / esptool-js (flasher stub), "
                               "same vboard, same run",
        "flash.rom_wire_ratio": "The same through the ROM loader (--stub off) / wire time of its compressed bytes",
        "flash.esp8266_rom_vs_stub": "ESP8266, 400 000-byte image: ROM loader (plain, 115200) / flasher stub "
                                     "(compressed, 921600)",
        "flash.reflash_s": "Re-flash of an unchanged image (MD5 skip; flasher stub)",
        "flash.esp32_rom_split_vs_plain": "ESP32 ROM loader, 32 764-byte plain tail: espbench's split / all plain "
                                          "(esptool's way)",
        "flash.esp32_rom_split_vs_c3": "The same: ESP32 split / ESP32-C3 all compressed (the fix's cost)",
        "footprint.cpu_fraction": "espbench CPU / wall during 100 Mbit/s tests",
        "footprint.peak_rss_mb": "espbench peak RSS",
        "parse.lines_per_s": "`espbench parse` lines per second, whole command (board + iperf2 logs)",
        "parse.parser_lines_per_s": "The same logs, parser alone (in memory, no JSON written)",
        "parse.rss_small_mb": "`espbench parse` peak RSS, tests of 100 000 intervals in all",
        "parse.rss_long_mb": "`espbench parse` peak RSS, one test of 2 000 000 intervals",
        "parse.rss_dense_mb": "`espbench parse` peak RSS, 250 MB of tests (stops at the results cap)",
        "model.throughput_median_pct": "Tier model: throughput median \\|LOO error\\| (all chips, tests)",
        "model.throughput_worst_pct": "Tier model: throughput worst \\|LOO error\\|",
        "model.heap_median_pct": "Tier model: free heap median \\|LOO error\\|",
        "model.heap_worst_pct": "Tier model: free heap worst \\|LOO error\\|",
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
    out += flashing.summary_lines(figs)
    out += model.summary_lines(figs)
    out += tune.summary_lines(figs)
    out += simfigures.summary_lines(figs)
    nm = {}
    for f in res["figures"]:
        if f["id"].startswith("model.cv.") and f["status"] == "not measured":
            continue  # single-tier chips: shown as — in the model table
        if f["status"] == "not measured":
            nm.setdefault(f["reason"], []).append(f["id"])
    if nm:
        out += ["", "Not measured:", ""]
        for reason, ids in nm.items():
            out.append("- %s: %s" % (", ".join("`%s`" % i for i in ids), reason))
    out += robustness_md(figs)
    out += sections_md(res)
    c = res["counts"]
    out += ["", "%d pass, %d fall short, %d not measured, %d reported without a target." % (
        c["pass"], c["falls short"], c["not measured"], c["reported"]), ""]
    return "\n".join(out)


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def load_results(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def recorded_sections(old):
    """{name: section entry with its own "finished" and "git"} of a results file. Files written
    before sections carried their own date and commit take the figures' "from_run" (else the
    file's "finished") and, when the file's run is the one that measured the section, the
    file's commit."""
    out = {}
    for name, v in old.get("sections", {}).items():
        v = dict(v)
        when = v.pop("from_run", None) or v.get("finished") or old.get("finished")
        v["finished"] = v.get("finished") or when
        if "git" not in v:
            same = when == old.get("finished")
            v["git"] = {k: (old.get("git") or {}).get(k) for k in ("commit", "dirty")} if same else \
                {"commit": None, "dirty": None}
        out[name] = v
    return out


def take_sections(old, names, sections, figures, settings):
    """Adds the named sections of results file old (entries, figures marked "from_run" with
    the section's date, settings) to sections, figures and settings."""
    rec = recorded_sections(old)
    for name in names:
        sections[name] = rec[name]
    for f in old.get("figures", []):
        if f.get("section") in names:
            f["from_run"] = sections[f["section"]]["finished"]
            figures.append(f)
    for k, v in (old.get("settings") or {}).items():
        if any(k == n or k.startswith(n + "_") for n in names):
            settings.setdefault(k, v)


def keep_unrun(results, sections, figures, settings):
    """Every run, whole or partial (--only), keeps the last figures of the sections it did not
    run from the results file it replaces, each section with the date and commit of the run
    that measured it (sections[name]["finished"], ["git"]; its figures' "from_run" is that
    date). Returns the settings: this run's and the kept sections'."""
    old = load_results(results)
    settings = dict(settings)
    if old:
        take_sections(old, [n for n in old.get("sections", {}) if n not in sections], sections, figures, settings)
    return settings


def sections_md(res):
    """Each section's date and commit (a partial run keeps the others' last figures)."""
    out = ["", "Each section's figures come from the run that last measured it:", "",
           "| section | measured (UTC) | commit | wall |", "|---|---|---|---|"]
    order = [n for n, _, _ in SECTIONS + ROBUSTNESS]
    names = sorted(res["sections"], key=lambda n: (order.index(n) if n in order else len(order), n))
    for n in names:
        v = res["sections"][n]
        g = v.get("git") or {}
        commit = "`%s`%s" % (g["commit"][:12], " (uncommitted changes)" if g.get("dirty") else "") \
            if g.get("commit") else "not recorded"
        out.append("| %s | %s | %s | %s |" % (n, (v.get("finished") or "?")[:16].replace("T", " "), commit,
                                              "%.0f s" % v["wall_s"] if v.get("wall_s") is not None else "—"))
    return out


def write_record(res, results, summary, source):
    c = res["counts"] = {k: sum(1 for f in res["figures"] if f["status"] == k) for k in
                         ("pass", "falls short", "not measured", "reported")}
    # Paths inside the tree are written relative to it (the files are committed).
    rel = source.rstrip("/") + "/"
    write_atomic(results, (json.dumps(res, indent=2, ensure_ascii=False) + "\n").replace(rel, ""))
    write_atomic(summary, summary_md(res).replace(rel, ""))
    return c


def adopt(a):
    """--adopt FILE:SECTIONS: the results file keeps its own run's fields; the named sections
    come from FILE (replacing those it has)."""
    source = os.path.abspath(a.source)
    results = a.results or os.path.join(source, "bench", "results.json")
    summary = a.summary or os.path.join(source, "bench", "SUMMARY.md")
    path, _, names = a.adopt.rpartition(":")
    names = [n for n in names.split(",") if n]
    other, res = load_results(path), load_results(results)
    if not other or not res:
        print("bench: --adopt: cannot read %s" % (path if not other else results), file=sys.stderr)
        return 3
    missing = [n for n in names if n not in other.get("sections", {})]
    if not names or missing:
        print("bench: --adopt: %s has no section %s" % (path, ", ".join(missing) or "named"), file=sys.stderr)
        return 2
    sections, figures, settings = {}, [], {}
    take_sections(other, names, sections, figures, settings)
    res["settings"] = keep_unrun(results, sections, figures, settings)
    res["sections"], res["figures"] = sections, figures
    c = write_record(res, results, summary, source)
    print("bench: %s: sections %s from %s; %d pass, %d fall short, %d not measured" % (
        os.path.relpath(results, source), ", ".join(names), path, c["pass"], c["falls short"], c["not measured"]),
        file=sys.stderr)
    return 0


def main():
    ap = argparse.ArgumentParser(description="espbench benchmark suite")
    ap.add_argument("--source", required=True, help="the espbench source tree")
    ap.add_argument("--build", required=True, help="build directory with espbench and espbench-vboard")
    ap.add_argument("--only", help="comma-separated sections (flashing,fidelity,footprint,overhead,parsing)")
    ap.add_argument("--results", help="results.json path (default bench/results.json)")
    ap.add_argument("--summary", help="SUMMARY.md path (default bench/SUMMARY.md)")
    ap.add_argument("--adopt", metavar="FILE:SECTION[,SECTION...]",
                    help="measure nothing: put those sections of another results file (a campaign run "
                         "elsewhere, or an earlier record) into the results, with their own date and commit")
    a = ap.parse_args()
    if a.adopt:
        return adopt(a)
    source = os.path.abspath(a.source)
    build = os.path.abspath(a.build)
    # A partial run (--only) gets its own scratch folder, so it can run beside another.
    out = os.path.join(source, "bench", "out", "run" if not a.only else "run-" + "-".join(sorted(a.only.split(","))))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    ctx = Ctx(source, build, out)
    started = datetime.datetime.now(datetime.timezone.utc)
    machine = machine_info()
    git = git_info(source)  # the code the run measures: taken at its start
    version = sh([ctx.espbench, "--version"])
    only = set(a.only.split(",")) if a.only else None

    figures, sections = [], {}
    budget = SUITE_BUDGET_S
    if only and only & {n for n, _, _ in ROBUSTNESS}:
        budget = 3 * 3600  # a campaign states its own time; the 13-minute budget is the default suite's
    ctx.budget = budget
    for name, mod, need in SECTIONS + ROBUSTNESS:
        if (only and name not in only) or (not only and (name, mod, need) in ROBUSTNESS):
            continue
        t0 = time.monotonic()
        ids = mod.figure_ids()
        got = []
        error = None
        if ctx.elapsed() + need > budget:
            error = "skipped: the suite's %d s budget would be exceeded (%.0f s spent)" % (budget, ctx.elapsed())
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

    results = a.results or os.path.join(source, "bench", "results.json")
    summary = a.summary or os.path.join(source, "bench", "SUMMARY.md")
    finished = datetime.datetime.now(datetime.timezone.utc)
    stamp = finished.isoformat(timespec="seconds").replace("+00:00", "Z")
    for v in sections.values():
        v.update(finished=stamp, git={k: git.get(k) for k in ("commit", "dirty")})
    settings = keep_unrun(results, sections, figures, ctx.settings)
    machine["loadavg_end"] = os.getloadavg()[0]
    res = {"schema": "espbench-bench", "schema_version": SCHEMA_VERSION, "espbench_version": version or None,
           "started": started.isoformat(timespec="seconds").replace("+00:00", "Z"),
           "finished": stamp,
           "duration_s": round((finished - started).total_seconds(), 1), "git": git,
           "machine": machine, "settings": settings, "sections": sections, "counts": {},
           "figures": figures}
    counts = write_record(res, results, summary, source)
    ctx.log("wrote %s and %s: %d pass, %d fall short, %d not measured" % (
        os.path.relpath(results, source), os.path.relpath(summary, source), counts["pass"], counts["falls short"],
        counts["not measured"]))
    # The exit status is about this run's figures; kept ones are only reported.
    if any(f["status"] == "falls short" and not f.get("from_run") for f in figures):
        return 1
    measured = counts["pass"] + counts["reported"]
    return 0 if measured else 3


if __name__ == "__main__":
    sys.exit(main())
