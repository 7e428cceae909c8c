# Shared by the run_*.sh e2e scripts (sourced, not run).
# Env from ctest: ESPBENCH, VBOARD, SOURCE_DIR, BUILD_DIR, FIXTURES_DIR.
set -euo pipefail
: "${ESPBENCH:?}" "${VBOARD:?}" "${SOURCE_DIR:?}"
export ESPBENCH_VBOARD="$VBOARD"
unset ESPBENCH_WIFI_PASSWORD ESPBENCH_IPERF

T=$(mktemp -d /tmp/espbench-run-e2e.XXXXXX)
BG=()
cleanup() {
    for p in "${BG[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${BG[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_rc WANT CMD...: runs CMD (stdout+stderr to $T/last.out), checks the exit status.
expect_rc() {
    local want=$1 rc=0
    shift
    "$@" >"$T/last.out" 2>&1 || rc=$?
    [ "$rc" = "$want" ] || { cat "$T/last.out" >&2; fail "exit $rc, wanted $want: $*"; }
}

# has TEXT: the last command's output holds TEXT (fixed string).
has() { grep -qF -- "$1" "$T/last.out" || { cat "$T/last.out" >&2; fail "output lacks: $1"; }; }

# json_check DIR PYTHON-EXPR: evaluates an assertion over results.json as `r`.
json_check() {
    python3 - "$1/results.json" "$2" <<'PY'
import json, math, sys
r = json.load(open(sys.argv[1]))
ok = eval(sys.argv[2], {"r": r, "math": math})
if not ok:
    print("results.json check failed:", sys.argv[2], file=sys.stderr)
    sys.exit(1)
PY
}


source "$(dirname "${BASH_SOURCE[0]}")/shaped.sh"

# A loopback address of this test's own (127.X.Y.Z): boards and PC iperf
# servers of tests running side by side never share an address and port.
loopback_ip() { echo "127.$((RANDOM % 200 + 20)).$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1))"; }
