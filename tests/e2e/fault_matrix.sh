#!/usr/bin/env bash
# The fault matrix's short form (the whole matrix is bench/benchlib/faults.py,
# `bash bench/run.sh --only faults,faults_modes`): a board reboot during a test, the pty
# closing while the board connects, the PC's iperf2 crashing and a ser2net killed
# mid-test, on a short plan (one tier, three 1-s tests); and a cell each of an
# ESP-Hosted pair, a sweep and --aggregate. Each cell must end with its whole plan
# measured or a documented exit code and one line, with nothing left running,
# results.json valid and every finished test kept. Signals during a test are
# run_interrupt.sh and run_hangup_tty.sh; a board-to-board reboot is
# run_pair_lab_faults_sim.sh.
set -euo pipefail
: "${BUILD_DIR:?}" "${SOURCE_DIR:?}"
T=$(mktemp -d /tmp/espbench-faults.XXXXXX)
trap 'rm -rf "$T"' EXIT
unset ESPBENCH_WIFI_PASSWORD ESPBENCH_IPERF
cells=sim/reboot@tcp_tx,sim/pty-closed@connect,sim/iperf-crash@tcp_rx
# One cell of each other way a run goes (section faults_modes): an ESP-Hosted pair's raw
# throughput test, a sweep's next point, boards together.
cells=$cells,hosted/sigterm@raw_tx,sweep/reboot@sweep_point,aggregate/pty-closed@udp_rx
command -v ser2net >/dev/null && cells=$cells,ser2net/ser2net-killed@tcp_rx
python3 -B "$SOURCE_DIR/bench/benchlib/faults.py" --short --build "$BUILD_DIR" --work "$T" --cells "$cells"
