#!/usr/bin/env python3
"""The run job's call structure (docs/architecture.md "The run job").

The files src/lib/jobs/run_*.c call down only, and the core runs a board's
ends through the end table. This check fails (exit 1, one line per
problem) on:
  - a call circle among those files;
  - a variant table (run_variant): ends, test kinds and dimensions replace it;
  - a per-end copy: a board's life steps (open, ready, close, tier, the
    dimensions applied) named outside the table that runs them
    for every end (run_ends.c, run_dims.c) and their own file;
  - a core file (run_board.c, run_job.c) naming what one end or test kind
    does (run_pair.c, run_hosted.c, run_latency.c, run_test.c) instead of
    reaching it through the tables;
  - an ops table (run_end_ops, run_kind, run_dim, run_source) of more than ten entries.
A file references a symbol when the symbol's name, defined without `static`
in another run_*.c file, appears in its code.

    python3 scripts/run_calls.py SOURCE_DIR [--graph | --fill]

--fill prints each ops table's rows and how many of its entries each fills.
Bad arguments (no source directory, one that is not espbench's, an unknown
option): one line on stderr, exit 2.
"""
import glob
import os
import re
import sys

CORE = ("run_board.c", "run_job.c")
DOERS = ("run_pair.c", "run_hosted.c", "run_latency.c", "run_test.c")
# A board's life steps and the only files that may name them (besides their own).
END_STEPS = {
    "run_board_open": ("run_ends.c",),
    "run_board_log": ("run_ends.c",),
    "run_board_ready": ("run_ends.c",),
    "run_board_close": ("run_ends.c",),
    "run_dims_apply": ("run_ends.c",),
    "run_apply_tier": ("run_dims.c",),
}
TABLES = ("run_end_ops", "run_kind", "run_dim", "run_source")
MAX_ENTRIES = 10
DEF_FN = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{", re.M)
DEF_ROW = re.compile(r"^(?:static\s+)?const\s+(?:run_end_ops|run_kind|run_dim|run_source)\s+(\w+)", re.M)


def strip_code(text):
    """The text without comments, strings and character literals."""
    pattern = r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
    return re.sub(pattern, lambda m: "\n" * m.group(0).count("\n") if m.group(0).startswith("/*") else " ",
                  text, flags=re.S)


def read_files(src):
    files = {}
    for path in sorted(glob.glob(os.path.join(src, "src/lib/jobs/run_*.c"))):
        with open(path, encoding="utf-8") as f:
            files[os.path.basename(path)] = strip_code(f.read())
    return files


def definitions(files):
    """symbol -> defining file"""
    defined = {}
    for name, code in files.items():
        for m in DEF_FN.finditer(code):
            if m.group(1) not in ("if", "for", "while", "switch", "return", "sizeof"):
                defined[m.group(1)] = name
        for m in DEF_ROW.finditer(code):
            defined[m.group(1)] = name
    return defined


def table_entries(src):
    """ops table -> its entries (members of the struct in run_internal.h)"""
    with open(os.path.join(src, "src/lib/jobs/run_internal.h"), encoding="utf-8") as f:
        code = strip_code(f.read())
    out = {}
    for t in TABLES:
        m = re.search(r"typedef struct %s \{(.*?)\} %s;" % (t, t), code, re.S)
        if m:
            out[t] = len([d for d in m.group(1).split(";") if d.strip()])
    return out


def edges_of(files, defined):
    """file -> {other file: [symbols it uses from there]}"""
    edges = {name: {} for name in files}
    for name, code in files.items():
        words = set(re.findall(r"\b\w+\b", code))
        for sym, where in defined.items():
            if where != name and sym in words:
                edges[name].setdefault(where, []).append(sym)
    return edges


def find_cycle(edges):
    """One call circle as a list of files (first == last), or None."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(edges[n]):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(edges):
        if n not in state:
            c = visit(n)
            if c:
                return c
    return None


def split_top(text, sep=","):
    """text split at sep outside braces, parentheses and strings"""
    parts, depth, cur, quoted = [], 0, "", False
    for i, ch in enumerate(text):
        if ch == '"' and (i == 0 or text[i - 1] != "\\"):
            quoted = not quoted
        if not quoted:
            depth += ch in "{(" and 1 or 0
            depth -= ch in "})" and 1 or 0
        if ch == sep and depth == 0 and not quoted:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def table_rows(src):
    """ops table -> [(row, entries filled)] from the rows' initialisers"""
    rows = {t: [] for t in TABLES}
    empty = ("NULL", "false", "0", "")
    for path in sorted(glob.glob(os.path.join(src, "src/lib/jobs/run_*.c"))):
        with open(path, encoding="utf-8") as f:
            code = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
        for m in re.finditer(r"^(?:static\s+)?const\s+(run_end_ops|run_source)\s+(\w+)\s*=\s*\{(.*?)\};", code,
                             re.M | re.S):
            fields = [f for f in split_top(m.group(3)) if f.split("=", 1)[-1].strip() not in empty]
            rows[m.group(1)].append((m.group(2), len(fields)))
        for m in re.finditer(r"^static\s+const\s+(run_kind|run_dim)\s+\w+\[\]\s*=\s*\{(.*?)\n\};", code, re.M | re.S):
            for row in split_top(m.group(2)):
                items = split_top(row.strip()[1:-1])
                rows[m.group(1)].append((items[0].strip('"'), len([i for i in items if i not in empty])))
    return rows


USAGE = "python3 scripts/run_calls.py SOURCE_DIR [--graph | --fill]"


def parse_args(argv):
    """(source dir, mode), or a one-line error (the caller exits 2)"""
    args = argv[1:]
    bad = [a for a in args if a.startswith("-") and a not in ("--graph", "--fill")]
    if bad:
        return None, None, "unknown option %s; usage: %s" % (bad[0], USAGE)
    modes = [a for a in args if a in ("--graph", "--fill")]
    paths = [a for a in args if not a.startswith("-")]
    if len(modes) > 1:
        return None, None, "give one of --graph and --fill; usage: %s" % USAGE
    if len(paths) != 1:
        return None, None, "give the source directory once (%s); usage: %s" % (
            "none given" if not paths else "%d given" % len(paths), USAGE)
    if not os.path.isfile(os.path.join(paths[0], "src/lib/jobs/run_internal.h")):
        return None, None, "%s: no src/lib/jobs/run_internal.h there: not espbench's source directory" % paths[0]
    return paths[0], modes[0] if modes else None, None


def main(argv):
    if any(a in ("-h", "--help") for a in argv[1:]):
        print(__doc__.strip())
        return 0
    src, mode, why = parse_args(argv)
    if why:
        print("run_calls.py: " + why, file=sys.stderr)
        return 2
    argv = [argv[0], src]
    files = read_files(src)
    defined = definitions(files)
    edges = edges_of(files, defined)
    if mode == "--fill":
        entries = table_entries(argv[1])
        for t, rs in table_rows(argv[1]).items():
            filled = sum(n for _, n in rs)
            print("%s: %d rows x %d entries, %d filled (%s)" % (t, len(rs), entries.get(t, 0), filled,
                                                              ", ".join("%s %d" % r for r in rs)))
        return 0
    if mode == "--graph":
        for a in sorted(edges):
            for b, syms in sorted(edges[a].items()):
                print("%s -> %s: %s" % (a, b, ", ".join(sorted(syms))))
        return 0
    problems = []
    cycle = find_cycle(edges)
    if cycle:
        path = cycle[0]
        for a, b in zip(cycle, cycle[1:]):
            path += " -(%s)-> %s" % (sorted(edges[a][b])[0], b)
        problems.append("run job call circle: " + path)
    for name, code in sorted(files.items()):
        if re.search(r"\brun_variant\b", code):
            problems.append("run job: %s has a variant table (run_variant); an end, a test kind or a dimension "
                            "is a row of its own table (run_internal.h)" % name)
        words = set(re.findall(r"\b\w+\b", code))
        for step, allowed in sorted(END_STEPS.items()):
            # an end's driver in a file of its own (run_end_NAME.c) is a row of the end table
            row_file = "run_ends.c" in allowed and name.startswith("run_end_")
            if step in words and name not in allowed and not row_file and defined.get(step) != name:
                problems.append("run job: per-end copy: %s calls %s, a step the core runs for every end through "
                                "the end table (%s)" % (name, step, ", ".join(allowed)))
    for core in CORE:
        for where, syms in sorted(edges.get(core, {}).items()):
            if where in DOERS:
                problems.append("run job core names what an end or a test kind does: %s uses %s (%s); reach it "
                                "through the end or kind table" % (core, ", ".join(sorted(syms)), where))
    entries = table_entries(argv[1])
    for t in TABLES:
        if t not in entries:
            problems.append("run job: no ops table %s in run_internal.h" % t)
        elif entries[t] > MAX_ENTRIES:
            problems.append("run job: %s has %d entries (at most %d): split it" % (t, entries[t], MAX_ENTRIES))
    print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
