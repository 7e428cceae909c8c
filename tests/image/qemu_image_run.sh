#!/usr/bin/env bash
# `run --qemu` on the espbench firmware built with ESP-IDF for the ESP32-C3 with Ethernet
# (docs/emulator.md, docs/firmware.md): the four throughput tests measured against this PC's
# iperf2 through QEMU's NAT, two tiers switched at run time (each visible in the board's
# tier_show), free heap and provenance recorded, every figure labelled "emulator", and the report
# saying so. Registered (ctest label qemu-image) only where the image exists: ESPBENCH_QEMU_IMAGE
# at configure time, else ../idf/out/esp32c3-openeth beside the source tree.
source "$(dirname "$0")/../e2e/lib/flash_helpers.sh"
source "$(dirname "$0")/../e2e/lib/skip.sh"
: "${QEMU_IMAGE:?}"
QEMU=${ESPBENCH_QEMU:-$SOURCE_DIR/../shared/tools/qemu-esp32c3/qemu-system-riscv32}
[ -x "$QEMU" ] || skip_test "no QEMU for the ESP32-C3 at $QEMU (set ESPBENCH_QEMU)"

OUT=$T/run
rc=0
timeout 420 "$ESPBENCH" run --chip esp32c3 --qemu --qemu-bin "$QEMU" --qemu-image "$QEMU_IMAGE" --out "$OUT" \
    --tier iperf,minimum --tests tcp_tx,tcp_rx,udp_tx,udp_rx --duration 3 --interval 1 --udp-rate 5 \
    >"$T/run.out" 2>"$T/run.err" || rc=$?
[ $rc = 0 ] || { cat "$T/run.out" "$T/run.err"; tail -40 "$OUT/console-qemu-esp32c3.log"; fail "run --qemu: exit $rc"; }
! pgrep -f "qemu-system-riscv32 .*file=$OUT/qemu-flash.bin" >/dev/null || fail "QEMU left running"

python3 - "$OUT/results.json" <<'PY' || { cat "$T/run.out"; fail "results"; }
import json, sys
r = json.load(open(sys.argv[1]))
es = r["entries"]
want = {(t, k) for t in ("iperf", "minimum") for k in ("tcp_tx", "tcp_rx", "udp_tx", "udp_rx")}
got = {(e["tier"], e["test"]) for e in es}
assert got == want, f"entries {sorted(got)}"
for e in es:
    assert e["status"] == "ok", (e["tier"], e["test"], e.get("status"), e.get("error"))
    assert e["figure_source"] == "emulator", e.get("figure_source")
    assert e["mean_mbps"] and e["mean_mbps"] > 0, (e["tier"], e["test"], e["mean_mbps"])
    p = e["provenance"]
    assert p.get("idf_version", "").startswith("v6.0"), p.get("idf_version")
    assert p.get("net") == "eth", p.get("net")
    assert e.get("free_heap") and e["free_heap"] > 0, ("no free heap", e["tier"], e["test"])
PY

# The tier switches as the board saw them: tier_set, then its tier_show with the tier's values.
log=$OUT/console-qemu-esp32c3.log
for tier in iperf minimum; do
    grep -q "tier_set name=$tier" "$log" || fail "no tier_set name=$tier in the console log"
    grep -q "^#EB:OK name=$tier .*tcp_wnd_kb=" "$log" || { grep "#EB:OK name=" "$log"; fail "no tier_show of $tier"; }
done
# lwIP's windows are build-time: under the name "minimum" the board keeps the window it was built
# with (docs/firmware.md, "Which tier settings a running ESP-IDF v6.0 accepts").
wnd=$(sed -n 's/^CONFIG_LWIP_TCP_WND_DEFAULT=//p' "$QEMU_IMAGE/sdkconfig" 2>/dev/null)
[ -n "$wnd" ] || fail "no CONFIG_LWIP_TCP_WND_DEFAULT in $QEMU_IMAGE/sdkconfig"
grep -q "^#EB:OK name=minimum .*tcp_wnd_kb=$((wnd / 1024))\b" "$log" ||
    { grep "#EB:OK name=" "$log"; fail "minimum's tcp_wnd_kb not the image's $((wnd / 1024))"; }

"$ESPBENCH" report "$OUT/results.json" --format md >"$T/report.md"
grep -q "Emulated (QEMU's ESP32-C3, Ethernet in place of Wi-Fi), not measured on hardware" "$T/report.md" ||
    { head -20 "$T/report.md"; fail "report does not say emulated"; }
echo ok
