#!/usr/bin/env bash
# The benchmark suite (`make bench` builds, then runs this). Writes
# bench/results.json and bench/SUMMARY.md; scratch in bench/out/.
# BUILD (or ESPBENCH_BUILD) names the build directory, default build/.
# Extra arguments go to bench/bench.py (e.g. --only flashing,parsing).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${ESPBENCH_BUILD:-${BUILD:-build}}
case $build in /*) ;; *) build=$root/$build ;; esac
for prog in espbench espbench-vboard; do
    if [ ! -x "$build/$prog" ]; then
        echo "bench: $build/$prog is missing: run 'make build' first (or set BUILD=DIR)" >&2
        exit 3
    fi
done
for need in python3 iperf; do
    command -v "$need" >/dev/null || { echo "bench: $need is not installed (make deps)" >&2; exit 3; }
done
exec python3 -B "$here/bench.py" --source "$root" --build "$build" "$@"
