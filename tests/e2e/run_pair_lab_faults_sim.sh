#!/usr/bin/env bash
# Board to board under --sim, the other ways in: a peer that reboots mid-test
# (retried like any board), and a lab board's peer named and tiered in the lab
# file. The main path is run_pair_sim.sh.
source "$(dirname "$0")/lib/run_helpers.sh"

# The peer reboots mid-test (its own test is the server's side of tcp_tx, tcp_rx to the vboard):
# seen on its console, classified as a reboot, both boards set up again, the test retried.
expect_rc 0 timeout 90 "$ESPBENCH" run --sim --chip esp32 --peer-chip esp32c3 --tier iperf --tests tcp_tx \
    --duration 3 --interval 1 --warmup 1 --sim-fault reboot@tcp_rx --out "$T/reboot"
has "sim-peer: the board rebooted during tcp_tx"
has "retrying (1 of 2)"
has "1 tests done, 0 skipped, 0 failed of 1"
grep -q "Guru Meditation Error" "$T/reboot/console-sim-peer.log" || fail "the peer's panic is not in its console log"

# A lab board's peer: the same, named and tiered in the lab file (a C6 on its default tier).
ESPBENCH_WIFI_PASSWORD=espbench-sim-wpa2 expect_rc 0 timeout 90 "$ESPBENCH" run --lab "$FIXTURES_DIR/lab/pair-sims.yaml" \
    --sim --tier iperf --tests udp_rx --duration 3 --interval 1 --warmup 1 --out "$T/lab"
has "board to board with c6-b (esp32c6/default)"
json_check "$T/lab" '(len(r["entries"]) == 1 and r["entries"][0]["provenance"]["peer_board"] == "c6-b" and
                      r["entries"][0]["provenance"]["peer_tier"] == "default" and r["entries"][0]["board"] == "s3-a")'
[ -s "$T/lab/console-c6-b.log" ] || fail "no console log of the lab peer"

echo "PASS"
