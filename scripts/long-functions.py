#!/usr/bin/env python3
"""Lists C functions in src/ longer than a limit (default 120 lines): the
project's rule. A function runs from a line that opens it at column 0
(`type name(...)` ... `{`) to the matching `}` at column 0. Exit 1 if any."""
import re
import sys
from pathlib import Path

LIMIT = int(sys.argv[1]) if len(sys.argv) > 1 else 120
ROOT = Path(__file__).resolve().parent.parent / "src"
head = re.compile(r"^[A-Za-z_][\w \*]*?\b(\w+)\s*\(")
found = []
for path in sorted(ROOT.rglob("*.c")):
    lines = path.read_text(errors="replace").splitlines()
    name, start = None, None
    for i, line in enumerate(lines):
        if name is None:
            m = head.match(line)
            if m and not line.rstrip().endswith(";") and not line.startswith(("static const", "const ")):
                cand = m.group(1)
                # the body opens on this line or a following signature line
                for j in range(i, min(i + 6, len(lines))):
                    if lines[j].startswith("{"):
                        name, start = cand, j
                        break
                    if lines[j].rstrip().endswith(";"):
                        break
        elif line.startswith("}"):
            n = i - start + 1
            if n > LIMIT:
                found.append((n, f"{path.relative_to(ROOT.parent)}:{start + 1}", name))
            name = None
for n, where, fn in sorted(found, reverse=True):
    print(f"{n:5d}  {where}  {fn}")
sys.exit(1 if found else 0)
