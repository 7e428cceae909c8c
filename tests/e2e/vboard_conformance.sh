#!/bin/bash
# The vboard answers as the real espbench firmware does: every transcript of the firmware built with
# a real ESP-IDF and run in an emulator (tests/fixtures/firmware-real/) is replayed against
# espbench-vboard over its pty and compared field by field (vboard_conformance.py; what is compared
# and what only by shape: docs/vboard.md, "Conformance").
set -euo pipefail
: "${VBOARD:?}" "${BUILD_DIR:?}" "${FIXTURES_DIR:?}"
source "$(dirname "$0")/lib/skip.sh"
for tool in python3 iperf; do
    command -v "$tool" >/dev/null || skip_test "$tool is not installed (the replay and the host's side of the iperf tests)"
done
work=$(mktemp -d "${BUILD_DIR}/vboard_conformance.XXXXXX")
trap 'rm -rf "$work"' EXIT
shopt -s nullglob
fixtures=("$FIXTURES_DIR"/firmware-real/*.txt)
[ "${#fixtures[@]}" -gt 0 ] || { echo "FAIL: no fixtures in $FIXTURES_DIR/firmware-real"; exit 1; }
python3 "$(dirname "$0")/vboard_conformance.py" "$VBOARD" "$work" "${fixtures[@]}"
