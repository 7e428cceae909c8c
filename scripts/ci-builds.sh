#!/usr/bin/env bash
# The build types CI compiles besides `make build` and `make test`: GCC Release and MinSizeRel,
# clang Debug, all with ESPBENCH_WERROR=ON and the tests, each in build-ci-NAME/; then each
# build's unit tests and the simulated run (CI_BUILDS_TESTS, a ctest -R regex) pass in it.
# Usage: bash scripts/ci-builds.sh [NAME...]   (default: all of gcc-release gcc-minsizerel clang-debug)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
declare -A cc=([gcc-release]=gcc [gcc-minsizerel]=gcc [clang-debug]=clang)
declare -A type=([gcc-release]=Release [gcc-minsizerel]=MinSizeRel [clang-debug]=Debug)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(gcc-release gcc-minsizerel clang-debug)
for n in "${names[@]}"; do
    [ -n "${cc[$n]:-}" ] || { echo "ci-builds: unknown build '$n' (gcc-release, gcc-minsizerel, clang-debug)" >&2; exit 2; }
    command -v "${cc[$n]}" >/dev/null || { echo "ci-builds: ${cc[$n]} is not installed (bash scripts/install-deps.sh --test)" >&2; exit 2; }
    echo "ci-builds: $n (${cc[$n]}, ${type[$n]}, warnings as errors)"
    CC=${cc[$n]} cmake -S . -B "build-ci-$n" -DCMAKE_BUILD_TYPE="${type[$n]}" -DESPBENCH_TESTS=ON -DESPBENCH_WERROR=ON >/dev/null
    cmake --build "build-ci-$n" -j"$jobs"
    (cd "build-ci-$n" && ctest -R "${CI_BUILDS_TESTS:-^unit_|^e2e_run_sim\$}" --output-on-failure --timeout 300 -j$((jobs * 2)))
done
