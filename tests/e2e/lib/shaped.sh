# Sourced by e2e scripts that run --sim (run_helpers.sh sources it).
# shaped_check DIR [want=EXPR] [ok=EXPR] [only=EXPR]: every throughput entry of
# DIR/results.json (folders below too) for which `only` holds finished "ok" with a figure, and
# the virtual board shaped that test to the expected rate: a "vboard: iperf TEST shaped to V
# Mbit/s" line of a *-vboard.log under DIR for which `ok` holds -- by default V is `want`
# (default e["ref_mbps"]) to the line's 6 digits or the 2 decimals `predict --json` gives. Expressions are Python over the entry `e`,
# `want` and `v`. What is asserted is the figure the board chose (published, model, efficiency
# factor); how close a busy machine's traffic comes to it is the bench's to measure
# (bench/benchlib/fidelity.py, simfigures.py).
shaped_check() {
    python3 - "$@" <<'PY'
import glob, json, math, os, re, sys
top = sys.argv[1]
opt = {"want": 'e["ref_mbps"]', "ok": "abs(v - want) <= max(1e-5 * want, 0.0051)", "only": "True"}
for a in sys.argv[2:]:
    k, _, x = a.partition("=")
    assert k in opt, "shaped_check: unknown option " + a
    opt[k] = x
shaped = []
for log in glob.glob(os.path.join(top, "**", "*-vboard.log"), recursive=True):
    for m in re.finditer(r"^vboard: iperf (\w+) shaped to (\S+) Mbit/s$", open(log, errors="replace").read(), re.M):
        shaped.append((m.group(1), float(m.group(2))))
entries = []
for path in glob.glob(os.path.join(top, "**", "results.json"), recursive=True):
    entries += json.load(open(path))["entries"]
bad, n = [], 0
for e in entries:
    if e["test"] not in ("tcp_tx", "tcp_rx", "udp_tx", "udp_rx") or not eval(opt["only"], {"e": e}):
        continue
    n += 1
    want = eval(opt["want"], {"e": e, "math": math})
    good = e["status"] == "ok" and e["mean_mbps"] is not None and e["mean_mbps"] > 0
    if not good or not any(t == e["test"] and eval(opt["ok"], {"e": e, "want": want, "v": v, "math": math})
                           for t, v in shaped):
        bad.append((e.get("board"), e["tier"], e["test"], e["status"], want))
if not n or bad:
    print("shaped_check: %d entries; not ok or not shaped as expected: %s; the vboard shaped: %s"
          % (n, bad, sorted(set(shaped))), file=sys.stderr)
    sys.exit(1)
PY
}
