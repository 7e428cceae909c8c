"""Fuzzing campaign: every libFuzzer target of fuzz/ (ASan + UBSan, clang's
libFuzzer) for a stated time, recording per target the executions, the edges
covered (libFuzzer's "cov:" count of instrumented edges) and the crashes.

The targets are built by this section into bench/out/fuzz-build (CC=clang,
-DESPBENCH_FUZZ=ON); each target's corpus grows in bench/out/fuzz-corpus/<t>
(kept between campaigns) from its seeds (fuzz/corpora.txt) and the
regression inputs in tests/fuzz/<t>/. A crash leaves its input in
bench/out/fuzz-crashes/ and counts against the target's figure (0 open
crashes); the fix then adds the input to tests/fuzz/<t>/, which the smoke test
(tests/e2e/fuzz_smoke.sh) replays in every `make test`.

FUZZ_SECONDS (environment) sets the time per target; the default keeps the
section inside the suite's budget. A target run is also stopped at
FUZZ_MAX_EXECS executions (10 million), whichever comes first."""
import os
import re
import shutil

from .common import figure, not_measured, run, target

SECTION = "fuzz"
DEFAULT_SECONDS = 60
MAX_EXECS = 10_000_000
T_CRASH = target("<=", 0, "0 open crashes")


def targets(source):
    out = []
    with open(os.path.join(source, "fuzz", "corpora.txt")) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                out.append((line[0], line[1:]))
    return out


def _names(source):
    return [t for t, _ in targets(source)]


def figure_ids(source=None):
    source = source or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ids = []
    for t in _names(source):
        ids += ["fuzz.%s.crashes" % t, "fuzz.%s.execs" % t, "fuzz.%s.edges" % t]
    return ids + ["fuzz.total_crashes"]


def placeholder(fid, reason):
    unit = "count"
    return not_measured(fid, SECTION, fid, unit, T_CRASH if fid.endswith("crashes") else None, reason)


def build(ctx):
    """(build_dir, error): the clang build with the fuzz targets."""
    bdir = os.path.join(ctx.bench, "out", "fuzz-build")
    if not shutil.which("clang"):
        return bdir, "clang is not installed (scripts/install-deps.sh --test installs it)"
    env = ctx.env(CC="clang")
    p = run(["cmake", "-S", ctx.source, "-B", bdir, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DESPBENCH_FUZZ=ON",
             "-DESPBENCH_TESTS=OFF", "-DESPBENCH_WERROR=ON"], timeout=120, env=env)
    if p.rc == 0:
        p = run(["cmake", "--build", bdir, "-j%d" % (os.cpu_count() or 2), "--target", "fuzz"], timeout=900, env=env)
    return bdir, (None if p.rc == 0 else "fuzz build failed (exit %d): %s" % (p.rc, p.tail(3)))


def parse_stats(text):
    """executions, edges, features from libFuzzer's stderr (-print_final_stats=1)."""
    execs = edges = features = None
    m = re.search(r"stat::number_of_executed_units:\s*(\d+)", text)
    if m:
        execs = int(m.group(1))
    covs = re.findall(r"\bcov: (\d+)", text)
    if covs:
        edges = int(covs[-1])
    fts = re.findall(r"\bft: (\d+)", text)
    if fts:
        features = int(fts[-1])
    if execs is None:
        ms = re.findall(r"^#(\d+)\s", text, re.M)
        execs = int(ms[-1]) if ms else None
    return execs, edges, features


def one(ctx, bdir, name, seeds, seconds):
    exe = os.path.join(bdir, "fuzz", "fuzz_" + name)
    corpus = os.path.join(ctx.bench, "out", "fuzz-corpus", name)
    crashes = os.path.join(ctx.bench, "out", "fuzz-crashes")
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(crashes, exist_ok=True)
    dirs = [os.path.join(ctx.source, d) for d in seeds]
    reg = os.path.join(ctx.source, "tests", "fuzz", name)
    if os.path.isdir(reg):
        dirs.append(reg)
    log = os.path.join(ctx.out, "fuzz-%s.log" % name)
    before = set(os.listdir(crashes))
    args = [exe, corpus] + dirs + ["-max_total_time=%d" % seconds, "-runs=%d" % MAX_EXECS, "-timeout=10",
                                   "-rss_limit_mb=2048", "-print_final_stats=1", "-print_pcs=0",
                                   "-artifact_prefix=%s/%s-" % (crashes, name)]
    p = run(args, timeout=ctx.cap(seconds + 120), env=ctx.env(ASAN_OPTIONS="detect_leaks=1"))
    with open(log, "w") as f:
        f.write(p.err)
    execs, edges, features = parse_stats(p.err)
    new = sorted(set(os.listdir(crashes)) - before)
    n_crash = len(new) if new or p.rc == 0 else 1
    det = {"seconds": seconds, "exit": p.rc, "wall_s": round(p.wall, 1), "artifacts": new,
           "corpus_files": len(os.listdir(corpus)), "seeds": seeds, "features": features,
           "goal_execs": MAX_EXECS, "reached_goal": bool(execs and execs >= MAX_EXECS), "log": os.path.relpath(log, ctx.source)}
    if execs and p.wall:
        det["execs_per_s"] = round(execs / p.wall)
    ctx.log("  fuzz %-10s %10s execs %6s edges %6s features %d crash(es) in %.0f s" % (
        name, execs, edges, features, n_crash, p.wall))
    return [figure("fuzz.%s.crashes" % name, SECTION, "%s: crashes found" % name, n_crash, "count", T_CRASH, det),
            figure("fuzz.%s.execs" % name, SECTION, "%s: executions" % name, execs, "count", None, det),
            figure("fuzz.%s.edges" % name, SECTION, "%s: edges covered" % name, edges, "count", None, det)]


def measure(ctx):
    seconds = int(os.environ.get("FUZZ_SECONDS", DEFAULT_SECONDS))
    ctx.settings["fuzz_seconds_per_target"] = seconds
    ctx.log("fuzz: building the targets (clang, ASan + UBSan)")
    bdir, error = build(ctx)
    if error:
        return [placeholder(fid, error) for fid in figure_ids(ctx.source)]
    figs = []
    for name, seeds in targets(ctx.source):
        figs += one(ctx, bdir, name, seeds, seconds)
    total = sum(f["value"] for f in figs if f["id"].endswith(".crashes"))
    figs.append(figure("fuzz.total_crashes", SECTION, "crashes found, all targets", total, "count", T_CRASH,
                       {"targets": len(targets(ctx.source)), "seconds_per_target": seconds}))
    return figs
