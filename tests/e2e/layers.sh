#!/usr/bin/env bash
# The house keeps its plan (docs/architecture.md "Layers"): formats are pure
# functions over bytes — no file system, environment, process or socket call
# in src/lib/formats (the adapters read the files) —, the library never
# prints or exits on its own, and no include runs up the layers. A new call
# or include of that kind fails this test, as does linking libcurl or libcrypto
# into the espbench program (both are loaded on first use).
set -euo pipefail
: "${SOURCE_DIR:?}"
cd "$SOURCE_DIR/src/lib"
fail=0
io='\b(fopen|fdopen|open|openat|opendir|readdir|stat|lstat|fstat|access|getenv|setenv|unlink|rename|mkdir|socket|connect|fork|execv|execvp|popen|system|readlink|yaml_parser_set_input_file)\s*\('
if grep -nE "$io" formats/*.c formats/*.h | grep -v '^\S*:\s*[0-9]*:\s*/\?\*' ; then
    echo "FAIL: file-system, environment or process calls in src/lib/formats (move them to an adapter)" >&2
    fail=1
fi
out='\b(printf|puts|putchar|exit|abort_with_message)\s*\(|\bfprintf\s*\(\s*std(out|err)'
if grep -nE "$out" $(find . -name '*.c') | grep -vE 'snprintf|vsnprintf|eb_buf_printf|vfprintf|fprintf\(f,|fprintf\(bc->console_log' ; then
    echo "FAIL: the library prints or exits on its own (return an eb_error; the CLI prints)" >&2
    fail=1
fi
# Headers sit in the folder of their layer (include/espbench/LAYER/); a source
# file of src/lib/LAYER, and a public header, includes headers of its own layer
# or below only: base < formats < adapters < protocols < jobs.
if ! python3 - "$SOURCE_DIR" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
rank = {"base": 0, "formats": 1, "adapters": 2, "protocols": 3, "jobs": 4}
bad = []
def check(path, layer):
    for m in re.finditer(r'#include "espbench/(\w+)/(\w+)\.h"', open(path).read()):
        if m.group(1) not in rank:
            bad.append("%s: espbench/%s/ is no layer" % (path, m.group(1)))
        elif rank[m.group(1)] > rank[layer]:
            bad.append("%s (%s) includes %s/%s.h" % (os.path.relpath(path, root), layer, m.group(1), m.group(2)))
    for m in re.finditer(r'#include "espbench/(\w+)\.h"', open(path).read()):
        bad.append("%s: espbench/%s.h is in no layer folder" % (os.path.relpath(path, root), m.group(1)))
for layer in rank:
    for f in glob.glob(os.path.join(root, "src/lib", layer, "**/*.[ch]"), recursive=True):
        check(f, layer)
    for f in glob.glob(os.path.join(root, "include/espbench", layer, "*.h")):
        check(f, layer)
loose = glob.glob(os.path.join(root, "include/espbench/*.h"))
bad += ["%s: a public header outside the layer folders" % os.path.relpath(f, root) for f in loose]
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then
    echo "FAIL: an include runs up the layers (docs/architecture.md)" >&2
    fail=1
fi
# The run job calls down only and runs every end of a test through its end
# table (docs/architecture.md "The run job"): no call circle among run_*.c,
# no variant table, no per-end copy of a board's steps, no core file naming
# what one end or test kind does, no ops table over ten entries.
if ! python3 "$SOURCE_DIR/scripts/run_calls.py" "$SOURCE_DIR"; then
    echo "FAIL: the run job's layers (see the lines above)" >&2
    fail=1
fi
# ... and the check can fail: a copy of the sources where the pair's file
# readies its peer by hand, as it once did, is refused.
copy=$(mktemp -d)
mkdir -p "$copy/src/lib/jobs"
cp "$SOURCE_DIR"/src/lib/jobs/run_*.[ch] "$copy/src/lib/jobs/"
echo 'static int again(board_ctx *p, eb_error *e) { return run_board_ready(p, e); }' >>"$copy/src/lib/jobs/run_pair.c"
said=$(python3 "$SOURCE_DIR/scripts/run_calls.py" "$copy" || true)
if ! grep -q "per-end copy: run_pair.c calls run_board_ready" <<<"$said"; then
    echo "FAIL: scripts/run_calls.py does not refuse a per-end copy" >&2
    fail=1
fi
rm -rf "$copy"
# Bad arguments: one line naming what is wrong, exit 2, no traceback.
for args in "--fill" "--fill /nonexistent"; do
    set +e
    said=$(python3 "$SOURCE_DIR/scripts/run_calls.py" $args 2>&1); rc=$?
    set -e
    case "$args" in
    --fill) want="run_calls.py: give the source directory once (none given); usage: python3 scripts/run_calls.py SOURCE_DIR [--graph | --fill]" ;;
    *) want="run_calls.py: /nonexistent: no src/lib/jobs/run_internal.h there: not espbench's source directory" ;;
    esac
    if [ "$rc" -ne 2 ] || [ "$said" != "$want" ]; then
        echo "FAIL: run_calls.py $args: exit $rc, said: $said" >&2
        fail=1
    fi
done
# Start-up: libcurl and libcrypto are loaded on first use (adapters/http_fetch.c,
# base/digest.c), not by every command: the espbench program must not need them.
if [ -n "${ESPBENCH:-}" ]; then
    dyn=$(readelf -d "$ESPBENCH") || { echo "FAIL: readelf -d $ESPBENCH" >&2; exit 1; }
    needed=$(grep -E 'NEEDED.*(libcurl|libcrypto)' <<<"$dyn" || true)
    if [ -n "$needed" ]; then
        echo "FAIL: espbench links at start-up what it loads on first use: $needed" >&2
        fail=1
    fi
fi
[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
