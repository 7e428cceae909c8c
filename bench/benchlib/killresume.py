"""Kill and resume: SIGKILL a `run --sim` at ROUNDS random moments, then
`--resume` it to the end, and check the invariants after every round:

- results.json parses at the moment of the kill (or does not exist yet) and
  after the resume;
- every test finished before the kill is still there, unchanged (same start
  time and figures): nothing finished is lost or measured again;
- after the resume the plan is complete with every test exactly once, so at
  most the test in flight at the kill was redone;
- nothing the killed run started outlives it: the vboard and the PC iperf2
  (PR_SET_PDEATHSIG, src/lib/adapters/iperf_proc.c) are gone within 3 s;
- the resume itself ends within its deadline with exit 0.

The plan is small so the rounds fit in a few minutes: one chip, one tier,
two tests of 1 s. Two rounds run side by side (each its own results folder
and loopback address). Kill moments are uniform over a measured full run's
wall time, from a fixed seed (recorded). Also recorded: the results writer's
system calls on one run under strace (write, fsync, rename, directory fsync)."""
import json
import os
import random
import shutil
import signal
import subprocess
import threading
import time

from . import proctree
from .common import figure, not_measured, run, target

SECTION = "killresume"
ROUNDS = 50
PARALLEL = 2
SEED = 16
PLAN = ["--chip", "esp32", "--tier", "iperf", "--tests", "tcp_tx,udp_rx", "--sim", "--duration", "1", "--interval",
        "1", "--warmup", "0"]
N_PLAN = 2
T_ZERO = target("<=", 0, "0")
T_ROUNDS = target(">=", ROUNDS, "≥ %d" % ROUNDS)
NAMES = {
    "killresume.rounds": "kill-and-resume rounds completed",
    "killresume.violations": "rounds breaking an invariant",
    "killresume.survivors": "processes that outlived a killed run (vboard, PC iperf2)",
    "killresume.redone": "tests finished before a kill that were measured again",
    "killresume.lost": "tests finished before a kill that were lost",
    "killresume.writer_fsyncs_dir": "results writer: write, fsync, rename, then fsync of the directory",
}


def figure_ids():
    return list(NAMES)


def placeholder(fid, reason):
    return not_measured(fid, SECTION, NAMES[fid], "count", None, reason)


def load(path):
    """(entries, error): results.json's entries, [] if absent, error if not JSON."""
    if not os.path.exists(path):
        return [], None
    try:
        with open(path) as f:
            return json.load(f)["entries"], None
    except (OSError, ValueError, KeyError) as exc:
        return None, "results.json unreadable: %s" % exc


def key(e):
    return (e["board"], e["chip"], e["tier"], e["test"], e["repeat"])


def one_round(ctx, i, kill_at):
    out = os.path.join(ctx.out, "kr", "r%02d" % i)
    shutil.rmtree(out, ignore_errors=True)
    args = [ctx.espbench, "run"] + PLAN + ["--out", out]
    rec = {"round": i, "kill_at_s": round(kill_at, 2), "problems": []}
    log = open(os.path.join(ctx.out, "kr", "r%02d.first.log" % i), "wb")
    p = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=ctx.env(), start_new_session=True)
    t0 = time.monotonic()
    seen = {}
    while time.monotonic() - t0 < kill_at and p.poll() is None:
        seen.update(proctree.descendants(p.pid))
        time.sleep(0.05)
    seen.update(proctree.descendants(p.pid))
    finished_first = p.poll() is not None
    if not finished_first:
        os.kill(p.pid, signal.SIGKILL)  # the run only, not its group: what it started must die on its own
    p.wait()
    log.close()
    rec["killed"] = not finished_first
    rec["children"] = sorted(set(seen.values()))
    left = proctree.wait_gone(seen, 3.0)
    if left:
        rec["problems"].append("outlived the killed run: %s" % sorted(set(left.values())))
        rec["survivors"] = len(left)
        proctree.kill_all(left)
    before, err = load(os.path.join(out, "results.json"))
    if err:
        rec["problems"].append("at the kill: " + err)
        before = []
    rec["done_before"] = len(before)
    r = run(args + ["--resume"], timeout=ctx.cap(90), env=ctx.env())
    rec["resume_exit"] = r.rc
    rec["resume_wall_s"] = round(r.wall, 2)
    if r.rc != 0:
        rec["problems"].append("resume exit %d: %s" % (r.rc, r.tail(2)))
    after, err = load(os.path.join(out, "results.json"))
    if err:
        rec["problems"].append("after the resume: " + err)
        after = []
    keys = [key(e) for e in after]
    if len(keys) != len(set(keys)):
        rec["problems"].append("a test appears twice")
    if len(after) != N_PLAN or any(e["status"] != "ok" for e in after):
        rec["problems"].append("plan not finished: %d of %d ok" % (sum(e["status"] == "ok" for e in after), N_PLAN))
    by = {key(e): e for e in after}
    lost = redone = 0
    for e in before:
        a = by.get(key(e))
        if a is None:
            lost += 1
        elif a["started"] != e["started"] or a.get("mean_mbps") != e.get("mean_mbps"):
            redone += 1
    rec["lost"], rec["redone"] = lost, redone
    if lost or redone:
        rec["problems"].append("%d finished test(s) lost, %d measured again" % (lost, redone))
    rec["redo_in_flight"] = max(0, len(after) - len(before)) if rec["killed"] else 0  # the in-flight one + the rest
    return rec


def writer_syscalls(ctx):
    """(ok, details): strace of one short run; the last results.json write is
    followed by fsync of the file, rename onto results.json and an fsync of
    the directory."""
    if not shutil.which("strace"):
        return None, {"reason": "strace is not installed"}
    out = os.path.join(ctx.out, "kr", "strace")
    shutil.rmtree(out, ignore_errors=True)
    trace = os.path.join(ctx.out, "kr", "strace.txt")
    run(["strace", "-f", "-qq", "-e", "trace=openat,fsync,fdatasync,rename,renameat,renameat2,close", "-o", trace,
         ctx.espbench, "run"] + PLAN[:4] + ["--tests", "tcp_tx"] + PLAN[6:] + ["--out", out],
        timeout=ctx.cap(60), env=ctx.env())
    try:
        lines = open(trace).read().splitlines()
    except OSError:
        return None, {"reason": "no strace output"}
    idx = [n for n, l in enumerate(lines) if "rename" in l and "results.json\"" in l.split(",")[-1]]
    if not idx:
        return False, {"reason": "no rename onto results.json seen"}
    last = idx[-1]
    before = lines[max(0, last - 12):last]
    after = lines[last + 1:last + 8]
    ok_file = any("fsync" in l for l in before)
    ok_dir = any("O_DIRECTORY" in l for l in after) and any("fsync" in l for l in after)
    return ok_file and ok_dir, {"file_fsync_before_rename": ok_file, "dir_fsync_after_rename": ok_dir,
                                "trace_excerpt": [l.split(" ", 1)[-1][:160] for l in before[-3:] + lines[last:last + 4]]}


def measure(ctx):
    os.makedirs(os.path.join(ctx.out, "kr"), exist_ok=True)
    # The length of a whole run as the rounds see it: PARALLEL runs side by side.
    walls, errs = [], []

    def full_run(k):
        t = run([ctx.espbench, "run"] + PLAN + ["--out", os.path.join(ctx.out, "kr", "full%d" % k)],
                timeout=ctx.cap(90), env=ctx.env())
        (walls if t.rc == 0 else errs).append(t.wall if t.rc == 0 else "exit %d: %s" % (t.rc, t.tail(2)))

    ths = [threading.Thread(target=full_run, args=(k,)) for k in range(PARALLEL)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    if errs:
        return [placeholder(f, "a full run failed (%s)" % errs[0]) for f in NAMES]
    full = max(walls)
    rng = random.Random(SEED)
    moments = [rng.uniform(0.0, full) for _ in range(ROUNDS)]
    ctx.settings["killresume"] = {"rounds": ROUNDS, "seed": SEED, "full_run_s": round(full, 2), "plan": PLAN}
    ctx.log("killresume: full run %.1f s; %d rounds, kills uniform in [0, %.1f] s" % (full, ROUNDS, full))
    recs = [None] * ROUNDS
    lock = threading.Lock()
    todo = list(range(ROUNDS))

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                i = todo.pop(0)
            recs[i] = one_round(ctx, i, moments[i])
            if recs[i]["problems"]:
                ctx.log("  round %d: %s" % (i, "; ".join(recs[i]["problems"])))

    ths = [threading.Thread(target=worker) for _ in range(PARALLEL)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    recs = [r for r in recs if r]
    bad = [r for r in recs if r["problems"]]
    det = {"full_run_s": round(full, 2), "killed": sum(r["killed"] for r in recs),
           "finished_before_kill": sum(not r["killed"] for r in recs),
           "done_before_kill_hist": {str(k): sum(r["done_before"] == k for r in recs) for k in range(N_PLAN + 1)},
           "resume_wall_s_max": max(r["resume_wall_s"] for r in recs),
           "tests_run_by_resume": sum(r["redo_in_flight"] for r in recs),
           "failed_rounds": bad[:10]}
    ws_ok, ws_det = writer_syscalls(ctx)
    figs = [figure("killresume.rounds", SECTION, NAMES["killresume.rounds"], len(recs), "count", T_ROUNDS, det),
            figure("killresume.violations", SECTION, NAMES["killresume.violations"], len(bad), "count", T_ZERO, det),
            figure("killresume.survivors", SECTION, NAMES["killresume.survivors"],
                   sum(r.get("survivors", 0) for r in recs), "count", T_ZERO),
            figure("killresume.redone", SECTION, NAMES["killresume.redone"], sum(r["redone"] for r in recs), "count",
                   T_ZERO),
            figure("killresume.lost", SECTION, NAMES["killresume.lost"], sum(r["lost"] for r in recs), "count",
                   T_ZERO)]
    if ws_ok is None:
        figs.append(placeholder("killresume.writer_fsyncs_dir", ws_det["reason"]))
    else:
        figs.append(figure("killresume.writer_fsyncs_dir", SECTION, NAMES["killresume.writer_fsyncs_dir"],
                           1 if ws_ok else 0, "count", target(">=", 1, "yes"), ws_det))
    return figs
