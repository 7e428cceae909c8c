#!/usr/bin/env bash
# Documented outcomes around the traffic: iperf missing or iperf3 (exit 2, one
# line naming the fix), AP missing and wrong password (exit 3, one line, the
# failure recorded, the password nowhere), the password refused as a flag. A
# stalled board or a partial test (no figure) is the run loop's logic:
# tests/unit/test_run_loop.c.
source "$(dirname "$0")/lib/run_helpers.sh"

RUN=(run --chip esp32 --tier iperf --tests tcp_tx --duration 2 --interval 1)

# No iperf at all.
expect_rc 2 "$ESPBENCH" "${RUN[@]}" --sim --iperf "$T/no/such/iperf" --out "$T/a"
has "espbench: PC iperf: '$T/no/such/iperf' not found: install iperf2 (Debian/Ubuntu: apt install iperf; not iperf3) or set ESPBENCH_IPERF to its path"
[ ! -e "$T/a" ] || fail "a run without iperf started anyway"
# iperf3 where iperf2 is needed.
printf '#!/bin/sh\necho "iperf 3.12 (cJSON 1.7.15)"\n' >"$T/iperf3"
chmod +x "$T/iperf3"
ESPBENCH_IPERF="$T/iperf3" expect_rc 2 "$ESPBENCH" "${RUN[@]}" --sim --out "$T/b"
has "found iperf 3.12"
has "iperf2"

# The AP is not there (the virtual AP vanishes from scans).
expect_rc 3 timeout 240 "$ESPBENCH" "${RUN[@]}" --sim --sim-fault no-ap --out "$T/c"
has "espbench: AP 'espbench-sim' not found in the scan by the board on /dev/pts/"
has "check the SSID and that the AP is on and in range"
json_check "$T/c" 'r["entries"][0]["status"] == "failed" and "not found in the scan" in r["entries"][0]["error"]'

# Wrong password: from the environment, never echoed, never logged.
ESPBENCH_WIFI_PASSWORD=not-the-pass-42 expect_rc 3 timeout 240 "$ESPBENCH" "${RUN[@]}" --sim --out "$T/d"
has "espbench: Wi-Fi connect to 'espbench-sim' failed on /dev/pts/"
has "wrong password"
! grep -rq "not-the-pass-42" "$T/d" "$T/last.out" || fail "the password reached a log or the results"
grep -q "^> sta_connect espbench-sim -$" "$T/d/console-sim-esp32.log" || fail "console log lacks the connect command"

# A password is never a flag.
expect_rc 2 "$ESPBENCH" "${RUN[@]}" --sim --password hunter2 --out "$T/e"
has "the Wi-Fi password is never a flag"
# A named variable that is not set.
expect_rc 2 "$ESPBENCH" "${RUN[@]}" --sim --password-env NO_SUCH_VAR_EB --out "$T/f"
has "espbench run: the environment variable named by --password-env is not set (the name is not shown, in case it is the password itself)"
# Unknown tier: one line with the choices, before any board is touched.
expect_rc 2 "$ESPBENCH" run --chip esp32 --tier turbo --sim --out "$T/g"
has "chip esp32 has no tier 'turbo' (tiers: iperf, tx-prior"
echo ok
