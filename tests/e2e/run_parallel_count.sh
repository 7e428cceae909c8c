#!/usr/bin/env bash
# run --parallel-count N --parallel-index I (pytest-embedded's spelling, 1-based)
# runs the same slice of the matrix as --shard I/N; both spellings at once,
# or an index out of range, is one usage error.
source "$(dirname "$0")/lib/run_helpers.sh"

expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf,minimum --sim --duration 1 --interval 1 \
    --warmup 0 --parallel-count 2 --parallel-index 1 --out "$T/par"
expect_rc 0 timeout 240 "$ESPBENCH" run --chip esp32 --tier iperf,minimum --sim --duration 1 --interval 1 \
    --warmup 0 --shard 1/2 --out "$T/shard"
python3 - "$T/par/results.json" "$T/shard/results.json" <<'PY'
import json, sys
cells = [sorted((e["tier"], e["test"]) for e in json.load(open(f))["entries"]) for f in sys.argv[1:]]
assert cells[0] == cells[1], cells
assert 0 < len(cells[0]) < 8, cells[0]
PY
expect_rc 2 "$ESPBENCH" run --chip esp32 --sim --shard 1/2 --parallel-count 2 --parallel-index 1
has "--shard and --parallel-count/--parallel-index name the same slice: give one"
expect_rc 2 "$ESPBENCH" run --chip esp32 --sim --parallel-index 3 --parallel-count 2
has "--parallel-index '3': expected 1 to 2 (1-based, as pytest-embedded's)"
expect_rc 2 "$ESPBENCH" run --chip esp32 --sim --parallel-count 2
has "--parallel-count and --parallel-index go together"
echo OK
