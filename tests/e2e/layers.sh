#!/usr/bin/env bash
# The house keeps its plan (docs/architecture.md "Layers"): formats are pure
# functions over bytes — no file system, environment, process or socket call
# in src/lib/formats (the adapters read the files) — and the library never
# prints or exits on its own. A new call of that kind fails this test.
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
[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
