#!/usr/bin/env python3
"""The run job's call structure (docs/architecture.md "The run job").

The files src/lib/jobs/run_*.c call down only: core -> variant table ->
variants -> services. This check fails (exit 1, one line per problem) on a
call circle among those files, and on a core file (run_board.c, run_job.c,
run_resolve.c) that names a variant's symbol instead of reaching it through
the table in run_variants.c. A file references a symbol when the symbol's
name, defined without `static` in another run_*.c file, appears in its code.

    python3 scripts/run_calls.py SOURCE_DIR [--graph]
"""
import glob
import os
import re
import sys

CORE = ("run_board.c", "run_job.c", "run_resolve.c")
DEF_FN = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{", re.M)
DEF_VARIANT = re.compile(r"^const\s+run_variant\s+(\w+)\s*=", re.M)
DEF_TABLE = re.compile(r"^const\s+run_variant\s*\*\s*const\s+(\w+)\s*\[", re.M)


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
    """symbol -> defining file; and the files defining a run_variant row."""
    defined, variant_files = {}, set()
    for name, code in files.items():
        for m in DEF_FN.finditer(code):
            if m.group(1) not in ("if", "for", "while", "switch", "return", "sizeof"):
                defined[m.group(1)] = name
        for m in DEF_TABLE.finditer(code):
            defined[m.group(1)] = name
        for m in DEF_VARIANT.finditer(code):
            defined[m.group(1)] = name
            variant_files.add(name)
    return defined, variant_files


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


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip())
        return 2
    files = read_files(argv[1])
    defined, variants = definitions(files)
    edges = edges_of(files, defined)
    if "--graph" in argv:
        for a in sorted(edges):
            for b, syms in sorted(edges[a].items()):
                print("%s -> %s: %s" % (a, b, ", ".join(sorted(syms))))
        return 0
    problems = []
    if len(variants) < 2:
        problems.append("run job: no variant files found (const run_variant run_variant_NAME = {...})")
    cycle = find_cycle(edges)
    if cycle:
        path = cycle[0]
        for a, b in zip(cycle, cycle[1:]):
            path += " -(%s)-> %s" % (sorted(edges[a][b])[0], b)
        problems.append("run job call circle: " + path)
    for core in CORE:
        for where, syms in sorted(edges.get(core, {}).items()):
            if where in variants:
                problems.append("run job core names a variant: %s uses %s (%s); reach it through the variant "
                                "table (run_variants.c)" % (core, ", ".join(sorted(syms)), where))
    print("\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
