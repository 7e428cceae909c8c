#!/usr/bin/env bash
# Installs exactly the Debian 12 packages espbench needs that are missing.
# Used by `make demo`, `make test` and .ci/run. Idempotent and quiet when all is present.
set -euo pipefail

# Build and run time.
pkgs=(build-essential cmake pkg-config
      libserialport-dev libcurl4-openssl-dev libcjson-dev libyaml-dev zlib1g-dev libssl-dev
      iperf iputils-ping
      libpcre2-dev)
# Tests: unit tests, RFC 2217 through a real ser2net, HTTP server, esptool-js under Node,
# HTML report rendering in Chromium, RST validation with docutils, fuzzing with clang's
# libFuzzer (clang 14 and its runtime libraries: tests/e2e/fuzz_smoke.sh, make fuzz), strace
# (which output is synced: tests/e2e/parse_logs.sh), iperf3 (parse reads its logs: a live run on
# 127.0.0.1 in tests/e2e/parse_logs.sh), OpenSSH's server and client (a far end over SSH against a
# real sshd on 127.0.0.1: tests/e2e/run_pc_ssh.sh), and the shared libraries of the emulated
# ESP32-C3's QEMU (../shared/tools/qemu-esp32c3, or Espressif's own: tests/e2e/qemu_*.sh,
# docs/emulator.md).
if [ "${1:-}" = "--test" ]; then
  pkgs+=(libcmocka-dev ser2net python3 python3-docutils chromium clang libclang-rt-14-dev strace iperf3
         openssh-server openssh-client)
  pkgs+=(libfdt1 libpixman-1-0 libgcrypt20 libslirp0 libglib2.0-0)
  # Node.js (for esptool-js): the machine image may carry its own build with npm inside;
  # take Debian's only when there is none.
  command -v npm >/dev/null 2>&1 || pkgs+=(nodejs npm)
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ "${#missing[@]}" -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
# iperf asks whether to start a daemon; answer no without a prompt.
echo "iperf iperf/start_daemon boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
echo "iperf3 iperf3/start_daemon boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
