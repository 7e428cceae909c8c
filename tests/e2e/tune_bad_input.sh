#!/usr/bin/env bash
# espbench tune refuses bad input with one line and exit 2 before touching a
# board (a budget too small for one probe per starting point, a free-heap
# floor no candidate reaches, contradictory --fix), refuses stock firmware
# naming the espbench firmware, and --dry-run prints the plan.
source "$(dirname "$0")/lib/run_helpers.sh"

# exact_line WANT: the last command printed exactly this one line.
exact_line() {
    [ "$(wc -l < "$T/last.out")" = 1 ] || { cat "$T/last.out" >&2; fail "not one line"; }
    [ "$(cat "$T/last.out")" = "$1" ] || { cat "$T/last.out" >&2; fail "wanted: $1"; }
}

expect_rc 2 "$ESPBENCH" tune --chip esp32 --sim --min-free-kb 100 --budget 5s --out "$T/a"
exact_line "espbench tune: --budget 5s is too small: one probe of each of the 9 starting points (6 published ranks, 3 model frontier points) takes 22.5 s; give --budget 24s or more; see 'espbench help tune'"

expect_rc 2 "$ESPBENCH" tune --chip esp32 --sim --min-free-kb 400 --out "$T/a"
exact_line "espbench tune: --min-free-kb 400: no tier reaches it: the most any candidate leaves free is 144.4 KB (static_rx=2 dynamic_rx=1 dynamic_tx=1 rx_ba_win=Disable, by the model); lower --min-free-kb; see 'espbench help tune'"

expect_rc 2 "$ESPBENCH" tune --chip esp32 --sim --fix static_rx=2 --fix rx_ba_win=16 --out "$T/a"
exact_line "espbench tune: --fix static_rx=2 and --fix rx_ba_win=16 contradict: rx_ba_win = 16 exceeds min(dynamic_rx, 2*static_rx) = min(unset, 4) = 4; ESP-IDF requires WIFI_RX_BA_WIN <= min(WIFI_DYNAMIC_RX_BUFFER_NUM, 2*WIFI_STATIC_RX_BUFFER_NUM); see 'espbench help tune'"

expect_rc 2 "$ESPBENCH" tune --chip esp32 --sim --fix static_rx=4 --fix static_rx=6 --out "$T/a"
exact_line "espbench tune: --fix static_rx=4 and --fix static_rx=6 contradict: static_rx can have only one value; see 'espbench help tune'"

expect_rc 2 "$ESPBENCH" tune --chip esp32 --sim --fix tcp_wnd_kb=20 --out "$T/a"
exact_line "espbench tune: --fix tcp_wnd_kb=20: tcp_wnd_kb (TCP_WND_DEFAULT) is a build-time setting: the image keeps its own value; fix only runtime settings (static_rx, dynamic_rx, dynamic_tx, rx_ba_win); see 'espbench help tune'"
[ ! -e "$T/a" ] || fail "a refused tune created its output folder"

# The plan: starting points, rungs, predicted duration within the budget.
expect_rc 0 "$ESPBENCH" tune --chip esp32 --sim --objective tcp_tx --min-free-kb 100 --budget 8m --dry-run
has "start: 23 points (6 published ranks, 17 on the model's frontier)"
has "= tx-prior"
has "rung 2: 7 candidates x 1 test x 6.0 s"
has "predicted duration: 456 s (budget 480 s)"
[ ! -e "$T/a" ] || fail "--dry-run touched the output folder"

# A fixed setting holds in every starting point.
expect_rc 0 "$ESPBENCH" tune --chip esp32 --objective tcp_tx=2,udp_rx=1 --fix dynamic_tx=16 --dry-run
grep -E '^  tune-' "$T/last.out" | grep -vq 'dynamic_tx=16 ' && fail "a starting point ignores --fix dynamic_tx=16"
has "x 2 tests x 1.5 s"

# Stock firmware cannot switch tiers at run time.
expect_rc 2 timeout 240 "$ESPBENCH" tune --chip esp32 --sim --sim-project iperf --budget 1m --out "$T/stock"
grep -F "runs iperf-cmd-0.1 (stock firmware), which cannot switch tiers at run time; flash the espbench firmware" "$T/last.out" >/dev/null ||
    { cat "$T/last.out" >&2; fail "no stock-firmware refusal"; }
[ "$(grep -c . "$T/last.out")" = 1 ] || { cat "$T/last.out" >&2; fail "the refusal is not one line"; }
[ ! -e "$T/stock/results.json" ] || fail "a refused tune measured something"
echo "PASS"
