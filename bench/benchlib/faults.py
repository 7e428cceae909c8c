"""Fault matrix: each fault injected during each phase of a run, against the
vboard (`run --sim`) and against a vboard behind a real ser2net (`run --port
rfc2217://`), with the outcome and the invariants recorded per cell.

Phases: flash (the ROM loader is talking), tier_switch (the second tier's
`tier_set`), connect (the first `sta_connect`), and each test (0.4 s into
tcp_tx, tcp_rx, udp_tx, udp_rx of the first tier). The plan: esp32, tiers
iperf and minimum, all four tests, 1 s each.

Faults: the vboard's own (docs/vboard.md: reboot, stall, zero:2,
wifi-disconnect, no-ap, garbage, slow-boot, rom-checksum, flash-write), armed
through its control socket at the phase (ESPBENCH_VBOARD points at a wrapper
that adds --control); the port vanishing (the vboard killed: its pty closes;
ser2net killed); the PC's iperf2 crashing (SIGSEGV) or hanging (SIGSTOP); and
SIGINT / SIGTERM to espbench.

Outcomes: "measured" (exit 0, the whole plan measured: recovered) or
"reported" (a documented exit code with one `espbench:` line). Invariants
checked in every cell: no hang (the run ends within its deadline), nothing it
started left running (vboard, iperf2), results.json valid whenever it exists,
every test finished before the fault still there and unchanged, the exit code
one of the documented ones (SIGINT/SIGTERM: 4), no crash.

Run: bash bench/run.sh --only faults (the whole matrix), or
python3 bench/benchlib/faults.py --build DIR --cells CELL,... (the short form
tests/e2e/fault_matrix.sh runs)."""
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

if __package__ in (None, ""):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchlib import proctree  # noqa: E402
    from benchlib.common import figure, not_measured, target  # noqa: E402
else:
    from . import proctree
    from .common import figure, not_measured, target

SECTION = "faults"
PLAN = ["--chip", "esp32", "--tier", "iperf,minimum", "--tests", "tcp_tx,tcp_rx,udp_tx,udp_rx", "--duration", "1",
        "--interval", "1", "--warmup", "0", "--retries", "1"]
N_PLAN = 8
TESTS = ["tcp_tx", "tcp_rx", "udp_tx", "udp_rx"]
PHASES = ["flash", "tier_switch", "connect"] + TESTS
APP_PHASES = ["tier_switch", "connect"] + TESTS
DEADLINE_S = 120
PARALLEL = 2
DOCUMENTED = {0, 1, 2, 3, 4}
PASSWORD = "espbench-sim-wpa2"  # the virtual AP's (docs/run.md)

# fault -> (phases, how)
FAULTS = {
    "reboot": (PHASES, "vb:reboot"),
    "stall": (APP_PHASES, "vb:stall"),
    "zero": (APP_PHASES, "vb:zero:2"),
    "wifi-disconnect": (APP_PHASES, "vb:wifi-disconnect"),
    "no-ap": (APP_PHASES, "vb:no-ap"),
    "garbage": (["flash"], "vb:garbage:256"),
    "slow-boot": (["flash"], "vb:slow-boot:3000"),
    "rom-checksum": (["flash"], "vb:rom-checksum:3"),
    "flash-write": (["flash"], "vb:flash-write"),
    "pty-closed": (PHASES, "kill-vboard"),
    "iperf-crash": (TESTS, "iperf:SIGSEGV"),
    "iperf-hang": (TESTS, "iperf:SIGSTOP"),
    "sigint": (PHASES, "sig:SIGINT"),
    "sigterm": (PHASES, "sig:SIGTERM"),
    "sighup": (PHASES, "sig:SIGHUP"),
}
# against ser2net (espbench firmware already on the board's flash; no flash phase)
SER2NET_FAULTS = {
    "ser2net-killed": (APP_PHASES, "kill-ser2net"),
    "reboot": (APP_PHASES, "vb:reboot"),
    "pty-closed": (APP_PHASES, "kill-vboard"),
    "sigint": (APP_PHASES, "sig:SIGINT"),
}
T_ZERO = target("<=", 0, "0")

# The other ways a run goes (section faults_modes): board to board (--peer-chip under --sim), an
# ESP-Hosted pair (--coprocessor under --sim), a link sweep (--sweep) and boards together
# (--lab --aggregate with two virtual boards). Each: its plan, how many entries a whole run
# writes, the plan order of the first tier's tests (the test phases), its phases, and the faults
# (each at every phase where it applies). The fault goes to the first board ("sim", or the lab's
# "a"); board to board adds the peer's reboot and its pty closing.
MODE_TIMING = ["--duration", "1", "--interval", "1", "--warmup", "0", "--retries", "1"]
LAB = """ap:
  ssid: espbench-sim
  password_env: ESPBENCH_WIFI_PASSWORD
pc:
  address: 127.0.0.1
boards:
  - name: a
    chip: esp32
    port: /dev/null
    iperf_port: %d
  - name: b
    chip: esp32c3
    port: /dev/null
    iperf_port: %d
"""


def _mode_faults(phases, app, tests, extra=None):
    f = {"reboot": (phases, "vb:reboot"), "stall": (app, "vb:stall"), "wifi-disconnect": (app, "vb:wifi-disconnect"),
         "rom-checksum": (["flash"], "vb:rom-checksum:3"), "pty-closed": (phases, "kill-vboard"),
         "sigint": (phases, "sig:SIGINT"), "sigterm": (phases, "sig:SIGTERM"), "sighup": (phases, "sig:SIGHUP")}
    if tests:
        f["iperf-crash"] = (tests, "iperf:SIGSEGV")
    f.update(extra or {})
    return f


_PT = ["tcp_tx", "udp_rx"]
MODES = {
    "pair": {"args": ["--chip", "esp32", "--peer-chip", "esp32c3", "--sim", "--tier", "iperf,minimum",
                      "--tests", "tcp_tx,udp_rx"], "n": 4, "order": _PT, "board": "sim",
             "phases": ["flash", "tier_switch", "connect"] + _PT,
             # no PC iperf in a board-to-board test
             "faults": _mode_faults(["flash", "tier_switch", "connect"] + _PT, ["tier_switch", "connect"] + _PT, [],
                                    {"peer-reboot": (["tier_switch", "connect"] + _PT, "peer:reboot"),
                                     "peer-pty-closed": (["connect"] + _PT, "kill-peer")})},
    "hosted": {"args": ["--chip", "esp32p4", "--coprocessor", "esp32c6", "--transport", "sdio", "--sim",
                        "--tier", "guide,default", "--tests", "raw_tx,tcp_tx,udp_rx"], "n": 5,
               "order": ["raw_tx"] + _PT, "board": "sim",
               "phases": ["flash", "raw_tx", "tier_switch", "connect"] + _PT,
               "faults": _mode_faults(["flash", "raw_tx", "tier_switch", "connect"] + _PT, ["connect"] + _PT, _PT,
                                      {"rom-checksum": (["flash", "tier_switch"], "vb:rom-checksum:3")})},
    "sweep": {"args": ["--chip", "esp32", "--sim", "--tier", "iperf", "--tests", "tcp_tx,udp_rx",
                       "--sweep", "rtt=5,40"], "n": 4, "order": _PT, "board": "sim",
              "phases": ["flash", "connect"] + _PT + ["sweep_point"],
              "faults": _mode_faults(["flash", "connect"] + _PT + ["sweep_point"], ["connect"] + _PT + ["sweep_point"],
                                     _PT)},
    "aggregate": {"args": ["--sim", "--aggregate", "--tier", "iperf,minimum", "--tests", "tcp_tx,udp_rx"], "n": 8,
                  "order": _PT, "board": "a", "lab": True,
                  "phases": ["flash", "tier_switch", "connect"] + _PT,
                  "faults": _mode_faults(["flash", "tier_switch", "connect"] + _PT, ["tier_switch", "connect"] + _PT,
                                         _PT)},
}


def mode_cells():
    return [(k, f, p) for k, m in MODES.items() for f, (ps, _) in m["faults"].items() for p in ps]


def cells(ser2net=True):
    out = [("sim", f, p) for f, (ps, _) in FAULTS.items() for p in ps]
    if ser2net:
        out += [("ser2net", f, p) for f, (ps, _) in SER2NET_FAULTS.items() for p in ps]
    return out


def cell_id(c):
    return "%s/%s@%s" % c


def figure_ids():
    return ["faults.cells", "faults.measured", "faults.reported", "faults.violations", "faults.hangs",
            "faults.survivors", "faults.lost_tests", "faults.invalid_json"]


def placeholder(fid, reason):
    return not_measured(fid, SECTION, fid, "count", None, reason)


def ctl(path, line, timeout=2.0):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(timeout)
        s.connect(path)
        s.sendall((line + "\n").encode())
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(512)
            if not chunk:
                break
            data += chunk
        s.close()
        return data.decode(errors="replace").strip()
    except OSError as exc:
        return "error %s" % exc


def load(path):
    if not os.path.exists(path):
        return [], None
    try:
        with open(path) as f:
            return json.load(f)["entries"], None
    except (OSError, ValueError, KeyError) as exc:
        return None, str(exc)


class Cell:
    def __init__(self, env, espbench, vboard, work, cell, port_base):
        self.env, self.espbench, self.vboard = env, espbench, vboard
        self.kind, self.fault, self.phase = cell
        self.dir = os.path.join(work, cell_id(cell).replace("/", "_").replace("@", "_"))
        self.port_base = port_base
        self.procs = {}
        self.rec = {"cell": cell_id(cell), "problems": []}
        self.mode = MODES.get(self.kind)
        self.n_plan = self.mode["n"] if self.mode else N_PLAN
        self.order = self.mode["order"] if self.mode else TESTS
        self.board = self.mode["board"] if self.mode else "sim"

    def faults(self):
        if self.mode:
            return self.mode["faults"]
        return FAULTS if self.kind == "sim" else SER2NET_FAULTS

    def recording_wrapper(self):
        """ESPBENCH_VBOARD for the modes: the real vboard, unchanged (espbench gives each its
        own control socket, which sweeps use); the socket's path is noted per chip."""
        w = os.path.join(self.dir, "vboard-wrapper.sh")
        with open(w, "w") as f:
            f.write('#!/bin/sh\nif [ "$1" = mkimage ]; then exec "%s" "$@"; fi\nchip=; ctl=; prev=\n'
                    'for a in "$@"; do case $prev in --chip) chip=$a ;; --control) ctl=$a ;; esac; prev=$a; done\n'
                    'echo "$ctl" > "%s/ctl-$chip"\nexec "%s" "$@"\n' % (self.vboard, self.dir, self.vboard))
        os.chmod(w, 0o755)
        return w

    def mode_ctl(self, which):
        chips = {"pair": ("esp32", "esp32c3"), "hosted": ("esp32p4", None), "sweep": ("esp32", None),
                 "aggregate": ("esp32", "esp32c3")}[self.kind]
        try:
            with open(os.path.join(self.dir, "ctl-%s" % chips[which])) as f:
                return f.read().strip()
        except (OSError, TypeError):
            return ""

    # ---- set-up
    def wrapper(self):
        """ESPBENCH_VBOARD: the real vboard with a control socket."""
        w = os.path.join(self.dir, "vboard-wrapper.sh")
        with open(w, "w") as f:
            f.write('#!/bin/sh\nif [ "$1" = mkimage ]; then exec "%s" "$@"; fi\nexec "%s" "$@" --control "%s"\n' % (
                self.vboard, self.vboard, self.ctl))
        os.chmod(w, 0o755)
        return w

    def start_ser2net_board(self):
        """A vboard with the espbench firmware on its flash, behind ser2net."""
        img = os.path.join(self.dir, "app.bin")
        subprocess.run([self.vboard, "mkimage", "--chip", "esp32", "--project", "espbench", "--idf", "v5.3", "-o",
                        img], check=True, stdout=subprocess.DEVNULL)
        flash = os.path.join(self.dir, "flash.bin")
        with open(img, "rb") as f:
            app = f.read()
        with open(flash, "wb") as f:
            f.write(b"\xff" * 0x10000 + app)
        ip = "127.%d.%d.%d" % (200 + self.port_base % 50, (self.port_base // 7) % 250 + 1, 9)
        tty = os.path.join(self.dir, "b.tty")
        env = dict(self.env, EB_FAULT_AP_PASS=PASSWORD)
        vb = subprocess.Popen([self.vboard, "--chip", "esp32", "--flash", flash, "--link", tty, "--ip", ip, "--ap",
                               "espbench-sim:env:EB_FAULT_AP_PASS:-40", "--no-baud-timing", "--control", self.ctl],
                              stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "vb.err"), "wb"), env=env,
                              start_new_session=True)
        self.procs["vboard"] = vb
        for _ in range(100):
            if os.path.exists(tty):
                break
            time.sleep(0.05)
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        cfg = os.path.join(self.dir, "ser2net.yaml")
        with open(cfg, "w") as f:
            f.write("%%YAML 1.1\n---\nconnection: &b\n  accepter: telnet(rfc2217),tcp,127.0.0.1,%d\n"
                    "  connector: serialdev(nouucplock=true),%s,115200n81,local\n  options:\n    kickolduser: true\n"
                    % (port, os.path.realpath(tty)))
        s2n = subprocess.Popen(["ser2net", "-n", "-d", "-c", cfg, "-P", os.path.join(self.dir, "ser2net.pid")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        self.procs["ser2net"] = s2n
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        return ["--port", "rfc2217://127.0.0.1:%d" % port, "--ssid", "espbench-sim", "--pc-address", "127.0.0.1"]

    # ---- phases
    def console_log(self):
        logs = glob.glob(os.path.join(self.out, "console-%s.log" % self.board)) or \
            glob.glob(os.path.join(self.out, "console-*.log"))
        if not logs:
            return ""
        try:
            with open(logs[0], errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stdout_text(self):
        try:
            with open(self.stdout_path, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def phase_reached(self):
        if self.mode:
            self.ctl = self.mode_ctl(0)
        if self.phase == "flash":
            st = ctl(self.ctl, "status", 0.5) if self.ctl and os.path.exists(self.ctl) else ""
            return "mode=download" in st or "mode=stub" in st
        out = self.stdout_text()
        if self.kind == "hosted" and self.phase in ("raw_tx", "tier_switch"):
            return ("flashing the esp-hosted-raw-tp image for raw_tx" if self.phase == "raw_tx" else
                    "flashing the iperf-example image for tier default") in out
        if self.phase == "sweep_point":
            return "sweep rtt = 40" in out
        con = self.console_log()
        if self.phase == "tier_switch":
            return con.count("> tier_set") >= 2
        if self.phase == "connect":
            return "> sta_connect" in con
        k = self.order.index(self.phase) + 1
        per_board = self.n_plan // 2 if self.kind == "aggregate" else self.n_plan
        mark = "[%d/%d]" % (k, per_board)
        return mark in out and "started" in out.split(mark, 1)[1].split("\n", 1)[0]

    # ---- injection
    def inject(self, run_pid):
        how = self.faults()[self.fault][1]
        if self.phase in TESTS:
            time.sleep(0.4)  # into the traffic
        elif self.phase == "raw_tx":
            time.sleep(1.0)  # past the image's flashing, into the raw throughput report
        if how.startswith("vb:"):
            return ctl(self.ctl, "fault " + how[3:])
        if how.startswith("peer:"):
            return ctl(self.mode_ctl(1), "fault " + how[5:])
        if how == "kill-peer":
            pid = self.sim_vboard_pid("sim-peer")
            if pid:
                os.kill(pid, signal.SIGKILL)
            return "killed the peer's vboard %s" % pid
        if how == "kill-vboard":
            pid = self.procs["vboard"].pid if "vboard" in self.procs else self.sim_vboard_pid()
            if pid:
                os.kill(pid, signal.SIGKILL)
            return "killed vboard %s" % pid
        if how == "kill-ser2net":
            self.procs["ser2net"].kill()
            return "killed ser2net"
        if how.startswith("sig:"):
            os.kill(run_pid, getattr(signal, how[4:]))
            return "sent " + how[4:]
        if how.startswith("iperf:"):
            for (pid, _), comm in proctree.descendants(run_pid).items():
                if comm == "iperf":
                    os.kill(pid, getattr(signal, how[6:]))
                    return "%s to iperf %d" % (how[6:], pid)
            return "no PC iperf running"
        return "?"

    def sim_vboard_pid(self, name=None):
        try:
            with open(os.path.join(self.out, "%s-vboard.pid" % (name or self.board))) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    # ---- one cell
    def run(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.ctl = os.path.join(self.dir, "vb.ctl")
        self.out = os.path.join(self.dir, "out")
        self.stdout_path = os.path.join(self.dir, "run.out")
        env = dict(self.env, ESPBENCH_WIFI_PASSWORD=PASSWORD)
        try:
            if self.mode:
                env["ESPBENCH_VBOARD"] = self.recording_wrapper()
                args = [self.espbench, "run"] + self.mode["args"] + MODE_TIMING
                if self.mode.get("lab"):
                    lab = os.path.join(self.dir, "lab.yaml")
                    with open(lab, "w") as f:
                        f.write(LAB % (self.port_base, self.port_base + 1))
                    args += ["--lab", lab]
                else:
                    args += ["--iperf-port", str(self.port_base)]
                args += ["--out", self.out]
            else:
                if self.kind == "sim":
                    env["ESPBENCH_VBOARD"] = self.wrapper()
                    where = ["--sim"]
                else:
                    where = self.start_ser2net_board()
                args = [self.espbench, "run"] + PLAN + where + ["--iperf-port", str(self.port_base), "--out", self.out]
            out_f = open(self.stdout_path, "wb")
            t0 = time.monotonic()
            p = subprocess.Popen(args, stdout=out_f, stderr=subprocess.STDOUT, env=env, start_new_session=True)
            seen, snap, injected = {}, None, None
            while p.poll() is None and time.monotonic() - t0 < DEADLINE_S:
                seen.update(proctree.descendants(p.pid))
                if injected is None and self.phase_reached():
                    snap, err = load(os.path.join(self.out, "results.json"))
                    injected = self.inject(p.pid)
                    self.rec["injected_at_s"] = round(time.monotonic() - t0, 2)
                    self.rec["injection"] = injected
                time.sleep(0.03)
            hung = p.poll() is None
            if hung:
                self.rec["problems"].append("hang: still running after %d s" % DEADLINE_S)
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            out_f.close()
            self.rec["exit"] = p.returncode
            self.rec["wall_s"] = round(time.monotonic() - t0, 2)
            self.rec["hang"] = hung
            if injected is None:
                self.rec["problems"].append("phase %s never reached" % self.phase)
            # Children of the run: espbench stops them on every way out, or the kernel does.
            for k in ("vboard", "ser2net"):
                if k in self.procs:
                    for pid_start in list(seen):
                        if pid_start[0] == self.procs[k].pid:
                            seen.pop(pid_start)
            left = proctree.wait_gone(seen, 3.0)
            self.rec["survivors"] = sorted(set(left.values()))
            if left:
                self.rec["problems"].append("left running: %s" % self.rec["survivors"])
                proctree.kill_all(left)
            self.check(p.returncode, snap)
        finally:
            for pr in self.procs.values():
                if pr.poll() is None:
                    pr.kill()
                pr.wait()
        return self.rec

    def check(self, rc, snap):
        text = self.stdout_text()
        after, err = load(os.path.join(self.out, "results.json"))
        self.rec["invalid_json"] = err is not None
        if err:
            self.rec["problems"].append("results.json invalid: %s" % err)
            after = []
        def key(e):  # a sweep's points and the boards of a lab share tier, test and repeat
            return (e.get("board"), e["tier"], e["test"], e["repeat"], (e.get("provenance") or {}).get("sweep_value"))
        by = {key(e): e for e in after}
        lost = 0
        for e in snap or []:
            a = by.get(key(e))
            if e["status"] == "ok" and (a is None or a["started"] != e["started"] or a["status"] != "ok"):
                lost += 1
        self.rec["lost"] = lost
        if lost:
            self.rec["problems"].append("%d finished test(s) lost or changed" % lost)
        self.rec["entries_ok"] = sum(e["status"] == "ok" for e in after)
        msgs = [l for l in text.splitlines() if l.startswith("espbench") and ": " in l and "warning:" not in l]
        self.rec["message"] = msgs[-1][:300] if msgs else ""
        if rc is None or rc < 0 or rc not in DOCUMENTED:
            self.rec["problems"].append("exit %s is not a documented code" % rc)
        if "AddressSanitizer" in text or "runtime error:" in text:
            self.rec["problems"].append("sanitizer report")
        if self.fault in ("sigint", "sigterm", "sighup") and rc != 4 and rc != 0:
            self.rec["problems"].append("signal: exit %s, documented 4" % rc)
        if rc == 0 and self.rec["entries_ok"] == self.n_plan:
            self.rec["outcome"] = "measured"
        elif rc in (1, 2, 3, 4) and msgs:
            self.rec["outcome"] = "reported"
        elif rc == 0:
            self.rec["outcome"] = "exit 0 with %d of %d measured" % (self.rec["entries_ok"], self.n_plan)
            self.rec["problems"].append(self.rec["outcome"])
        else:
            self.rec["outcome"] = "exit %s without an espbench: line" % rc
            self.rec["problems"].append(self.rec["outcome"])


def run_matrix(espbench, vboard, work, env, only=None, parallel=PARALLEL, log=print, ser2net=True, modes=False):
    todo = [c for c in (mode_cells() if modes else cells(ser2net and shutil.which("ser2net") is not None))
            if not only or cell_id(c) in only]
    recs, lock = [], threading.Lock()
    queue = list(enumerate(todo))

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                i, c = queue.pop(0)
            r = Cell(env, espbench, vboard, work, c, 21000 + 17 * i).run()
            with lock:
                recs.append(r)
            log("  %-36s exit %-4s %-9s %s" % (r["cell"], r.get("exit"), r.get("outcome", "?"),
                                               "; ".join(r["problems"]) or "ok"))

    ths = [threading.Thread(target=worker) for _ in range(parallel)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    return sorted(recs, key=lambda r: r["cell"])


def summarize(recs):
    out = {"cells": len(recs), "measured": sum(r.get("outcome") == "measured" for r in recs),
           "reported": sum(r.get("outcome") == "reported" for r in recs),
           "violations": sum(bool(r["problems"]) for r in recs), "hangs": sum(bool(r.get("hang")) for r in recs),
           "survivors": sum(len(r.get("survivors", [])) for r in recs), "lost_tests": sum(r.get("lost", 0) for r in recs),
           "invalid_json": sum(bool(r.get("invalid_json")) for r in recs)}
    by_exit = {}
    for r in recs:
        by_exit[str(r.get("exit"))] = by_exit.get(str(r.get("exit")), 0) + 1
    out["by_exit"] = by_exit
    return out


def measure(ctx, section=SECTION, modes=False):
    work = os.path.join(ctx.out, section)
    os.makedirs(work, exist_ok=True)
    recs = run_matrix(ctx.espbench, ctx.vboard, work, ctx.env(), log=ctx.log, modes=modes)
    s = summarize(recs)
    matrix = {r["cell"]: {k: r.get(k) for k in ("exit", "outcome", "wall_s", "injection", "message", "problems")}
              for r in recs}
    det = dict(s, matrix=matrix)
    ctx.settings[section] = {"plan": PLAN, "deadline_s": DEADLINE_S} if not modes else \
        {"plans": {k: m["args"] + MODE_TIMING for k, m in MODES.items()}, "deadline_s": DEADLINE_S}
    figs = [figure(section + ".cells", section, "fault x phase cells run", s["cells"], "count", None, det)]
    for k in ("measured", "reported"):
        figs.append(figure(section + "." + k, section, "cells %s" % k, s[k], "count", None))
    for k in ("violations", "hangs", "survivors", "lost_tests", "invalid_json"):
        figs.append(figure(section + "." + k, section, "cells with %s" % k.replace("_", " "), s[k], "count", T_ZERO))
    return figs


def main():
    import argparse
    ap = argparse.ArgumentParser(description="espbench fault matrix (short form for tests)")
    ap.add_argument("--build", required=True)
    ap.add_argument("--cells", required=True, help="comma-separated cell ids, e.g. sim/reboot@tcp_tx")
    ap.add_argument("--work", required=True)
    ap.add_argument("--short", action="store_true",
                    help="one tier and three tests (tcp_tx, tcp_rx, udp_tx) instead of the matrix's plan; "
                         "for cells not in the tier_switch or udp_rx phase")
    a = ap.parse_args()
    if a.short:
        global PLAN, N_PLAN
        PLAN = [x if x not in ("iperf,minimum", "tcp_tx,tcp_rx,udp_tx,udp_rx") else
                {"iperf,minimum": "iperf", "tcp_tx,tcp_rx,udp_tx,udp_rx": "tcp_tx,tcp_rx,udp_tx"}[x] for x in PLAN]
        N_PLAN = 3
    env = dict(os.environ)
    only = set(a.cells.split(","))
    recs = run_matrix(os.path.join(a.build, "espbench"), os.path.join(a.build, "espbench-vboard"), a.work, env,
                      only=only, parallel=1)
    if any(c.split("/", 1)[0] in MODES for c in only):
        recs += run_matrix(os.path.join(a.build, "espbench"), os.path.join(a.build, "espbench-vboard"), a.work, env,
                           only=only, parallel=1, modes=True)
    s = summarize(recs)
    print(json.dumps(s))
    return 0 if s["violations"] == 0 and s["cells"] == len(a.cells.split(",")) else 1


if __name__ == "__main__":
    sys.exit(main())
