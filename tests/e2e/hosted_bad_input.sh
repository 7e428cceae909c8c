#!/usr/bin/env bash
# ESP-Hosted options with a wrong value: one error line that says what to
# pass, exit 2, nothing started and no results left behind.
source "$(dirname "$0")/lib/run_helpers.sh"
UART="$FIXTURES_DIR/profiles/hosted-uart"

# bad WANT_TEXT ARGS...: exit 2, exactly one stderr line holding WANT_TEXT.
bad() {
    local want=$1 rc=0
    shift
    (cd "$T" && exec timeout 240 "$ESPBENCH" "$@") >"$T/out" 2>"$T/err" || rc=$?
    [ "$rc" = 2 ] || { cat "$T/err" >&2; fail "exit $rc, wanted 2: $*"; }
    [ "$(grep -vc '^starting a virtual' "$T/err")" = 1 ] || { cat "$T/err" >&2; fail "not one line: $*"; }
    grep -qF -- "$want" "$T/err" || { cat "$T/err" >&2; fail "stderr lacks '$want': $*"; }
    ! grep -q -e AddressSanitizer -e 'runtime error:' "$T/err" || fail "sanitizer report: $*"
    [ -z "$(find "$T" -name results.json)" ] || fail "results left behind: $*"
}

bad "--coprocessor esp32h9: no chip profile of that name; see 'espbench profiles list'" \
    run --chip esp32p4 --coprocessor esp32h9 --sim
bad "--coprocessor esp32s3: no ESP-Hosted pair profile with host esp32p4 (co-processors: esp32c2, esp32c3, esp32c5, esp32c6, esp32c61, esp32s2)" \
    run --chip esp32p4 --coprocessor esp32s3 --transport sdio --sim
bad "--transport spi: esp32p4 with esp32c6 has no spi pair profile (transports: sdio)" \
    run --chip esp32p4 --coprocessor esp32c6 --transport spi --sim
bad "--transport pcie: unknown transport (sdio, spi, spi-hd, uart)" \
    run --chip esp32p4 --coprocessor esp32c6 --transport pcie --sim
# Two pairs of the same chips: --transport decides.
bad "--coprocessor esp32c6: esp32p4 reaches it over sdio, uart; pass --transport" \
    --profiles "$UART" run --chip esp32p4 --coprocessor esp32c6 --sim
bad "--transport sdio needs --coprocessor CHIP (an ESP-Hosted pair)" run --chip esp32p4 --transport sdio --sim
bad "--coprocessor-port needs --coprocessor CHIP" run --chip esp32 --coprocessor-port /dev/null --sim
bad "--tests raw_tx/raw_rx measure an ESP-Hosted transport: pass --coprocessor CHIP" \
    run --chip esp32 --tests raw_tx --sim
bad "--coprocessor, --transport and --coprocessor-port are for one board (--port or --sim); with --lab give the board coprocessor: (transport:, coprocessor_port:) in the lab file" \
    run --chip esp32 --coprocessor esp32c6 --lab "$FIXTURES_DIR/lab/two-sims.yaml" --sim
bad "chip esp32p4 has no tier 'iperf' (tiers: guide, default; or all, psram)" \
    run --chip esp32p4 --coprocessor esp32c6 --tier iperf --sim
bad "--coprocessor needs a value" run --chip esp32p4 --sim --coprocessor
echo ok
