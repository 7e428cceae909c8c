"""espbench benchmark suite helpers (bench/run.sh -> bench/bench.py)."""
