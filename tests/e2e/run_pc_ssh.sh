#!/usr/bin/env bash
# The far end on a lab server over SSH (--far-end ssh://..., jobs/run_end_ssh.c and
# adapters/pc_ssh.c), against a real sshd
# this test starts on 127.0.0.1 (its own host key, authorized_keys, port and config, running as
# the current user) and the real iperf2 on the "host" (this machine): a virtual board's tests
# in both directions and its round trips through the host's ping; the host's iperf2 version as
# the board's and its name in every entry; each failure one line with its exit code: a key ssh
# would need a passphrase for (never asked: BatchMode, though an askpass would answer),
# a port with nothing listening, no iperf2 at the given path, a login that never starts anything
# (the start's deadline), the host's iperf2 killed mid-test (the points measured before it are
# kept), and espbench killed mid-test (the host's iperf2 stops too). One sshd serves every case.
source "$(dirname "$0")/lib/run_helpers.sh"
source "$(dirname "$0")/lib/skip.sh"

SSHD=$(command -v sshd || echo /usr/sbin/sshd)
[ -x "$SSHD" ] || skip_test "no sshd (Debian: openssh-server)"
command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || skip_test "no ssh client (openssh-client)"
IPERF=$(command -v iperf) || fail "no iperf2"

# The server: keys, authorized_keys, a free port, a config of its own.
S="$T/sshd"
mkdir -p "$S"
ssh-keygen -q -t ed25519 -N '' -f "$S/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$S/id"
ssh-keygen -q -t ed25519 -N 'espbench-secret' -f "$S/locked_id"
ssh-keygen -q -t ed25519 -N '' -f "$S/hang_id"
cat "$S/id.pub" "$S/locked_id.pub" >"$S/authorized_keys"
# This key logs in to a command that reads its stdin and starts nothing: a login that hangs.
echo "command=\"cat >/dev/null\" $(cat "$S/hang_id.pub")" >>"$S/authorized_keys"
chmod 600 "$S/authorized_keys"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$S/sshd_config" <<EOF
Port $PORT
ListenAddress 127.0.0.1
HostKey $S/host_key
AuthorizedKeysFile $S/authorized_keys
PidFile $S/sshd.pid
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
LogLevel VERBOSE
EOF
# As root, sshd separates privileges into its fixed directory (the system service makes it).
[ "$(id -u)" != 0 ] || [ -d /run/sshd ] || { mkdir -p /run/sshd && chmod 755 /run/sshd; }
"$SSHD" -D -e -f "$S/sshd_config" 2>"$S/sshd.log" &
BG+=($!)
for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 0.2)" 2>/dev/null && break
    sleep 0.1
done
python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 0.2)" ||
    { cat "$S/sshd.log" >&2; fail "sshd did not listen on 127.0.0.1:$PORT"; }

# The client's side: a config naming the host, its key and its known host key.
echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$S/host_key.pub")" >"$S/known_hosts"
client_config() { # FILE PORT KEY
    cat >"$1" <<EOF
Host lab
  HostName 127.0.0.1
  Port $2
  User $(id -un)
  IdentityFile $3
  IdentitiesOnly yes
  UserKnownHostsFile $S/known_hosts
  StrictHostKeyChecking yes
EOF
}
client_config "$S/config" "$PORT" "$S/id"
client_config "$S/config-locked-key" "$PORT" "$S/locked_id"
# An askpass that would unlock that key, and says that it was asked.
printf '#!/bin/sh\ntouch "%s/asked"\necho espbench-secret\n' "$S" >"$S/askpass"
chmod +x "$S/askpass"
client_config "$S/config-hang" "$PORT" "$S/hang_id"
NOPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
client_config "$S/config-no-server" "$NOPORT" "$S/id"
# No agent: the key of the config only.
unset SSH_AUTH_SOCK

PC=$(free_address)
run_ssh() { # RC OUT URL EXTRA...: a --sim run whose far end is the host at URL
    local rc=$1 out=$2 url=$3
    shift 3
    expect_rc "$rc" timeout 240 "$ESPBENCH" run --sim --chip esp32 --tier iperf --duration 3 --interval 1 \
        --warmup 1 --pc-address "$PC" --far-end "$url" --out "$T/$out" "$@"
}
# once TEXT: the last command's output holds TEXT on exactly one line.
once() { has "$1"; [ "$(grep -cF -- "$1" "$T/last.out")" = 1 ] || { cat "$T/last.out" >&2; fail "more than once: $1"; }; }
# No iperf2 of the host is left behind: the servers of this test listen on $PC only.
no_host_iperf() {
    for _ in $(seq 50); do
        pgrep -f "iperf -s -B $PC " >/dev/null || return 0
        sleep 0.2
    done
    pgrep -af "iperf -s -B $PC " >&2
    fail "the host's iperf2 server on $PC still runs"
}

# Both directions (the host's server for tcp_tx, its client for udp_rx) through the real sshd.
run_ssh 0 ok "ssh://lab$IPERF?config=$S/config" --tests tcp_tx,udp_rx
has "2 tests done, 0 skipped, 0 failed of 2"
grep -q "^# on SSH host ssh://lab$" "$T/ok/iperf-sim-esp32-iperf-tcp_tx-r0.log" || fail "the tcp_tx log is not the host's"
grep -q "^\$ $IPERF -s -B $PC -p 5001" "$T/ok/iperf-sim-esp32-iperf-tcp_tx-r0.log" || fail "no server command in the log"
[ "$(grep -c "Accepted publickey" "$S/sshd.log")" -ge 3 ] || fail "sshd saw fewer than 3 logins (probe, 2 tests)"
# The host's iperf2 is the board's (its run-level iperf_version) and every entry's; every entry
# names the host.
json_check "$T/ok" '(sorted(e["test"] for e in r["entries"]) == ["tcp_tx", "udp_rx"] and
                     all(e["status"] == "ok" and e["rx_stats"]["n"] > 0 for e in r["entries"]) and
                     r["boards"][0]["iperf_version"].startswith("iperf version 2.") and
                     all(e["provenance"]["pc_iperf_version"] == r["boards"][0]["iperf_version"] and
                         e["provenance"]["far_end"] == "ssh://lab" for e in r["entries"]))'
no_host_iperf
# The host's log reads as a local iperf2's: parse gives the run's receiver figures.
expect_rc 0 "$ESPBENCH" parse --chip esp32 --tier iperf --interval 1 --warmup 1 -o "$T/parsed.json" \
    "$T/ok/iperf-sim-esp32-iperf-tcp_tx-r0.log"
python3 - "$T/ok/results.json" "$T/parsed.json" <<'PY' || fail "parse of the host's log differs from the run"
import json, sys
run = [e for e in json.load(open(sys.argv[1]))["entries"] if e["test"] == "tcp_tx"][0]
parsed = json.load(open(sys.argv[2]))["entries"][0]
sys.exit(0 if run["rx_stats"] == parsed["rx_stats"] else 1)
PY

# A lab board's far_end: the same host for that board (udp_tx: the host's UDP server), taking a
# dimension that is an iperf option (--len: config_set of the SSH end, -l on the host's iperf2).
cat >"$T/lab.yaml" <<EOF
ap:
  ssid: espbench-sim
boards:
  - name: s3-lab
    chip: esp32s3
    far_end: ssh://lab?config=$S/config
EOF
ESPBENCH_WIFI_PASSWORD=espbench-sim-wpa2 expect_rc 0 timeout 240 "$ESPBENCH" run --lab "$T/lab.yaml" --sim \
    --pc-address "$PC" --tier iperf --tests udp_tx --len 512 --duration 3 --interval 1 --warmup 1 --out "$T/lab"
has "1 tests done, 0 skipped, 0 failed of 1"
LOG="$T/lab/iperf-s3-lab-esp32s3-len512-iperf-udp_tx-r0.log"
grep -q "^# on SSH host ssh://lab$" "$LOG" || fail "the lab board's log is not the host's"
grep -q "^\$ iperf -s -u -B $PC -p 5001 .* -l 512$" "$LOG" || fail "the host's server did not get -l 512"
no_host_iperf

# Round trips from the host: its ping (UDP echo probes are this computer's only: one line).
# The host's iperf2 at a path with a space and a quote: probed through the quoting intact.
mkdir -p "$T/it's here"
ln -s "$IPERF" "$T/it's here/iperf"
run_ssh 0 ping "ssh://lab$T/it's here/iperf?config=$S/config" --tests latency --latency-method icmp \
    --latency-count 3
has "1 tests done, 0 skipped, 0 failed of 1"
json_check "$T/ping" '(r["latency"][0]["provenance"]["pc_iperf_version"].startswith("iperf version 2."))'
# A path that a shell would run as two commands is one program name on the host: not found.
run_ssh 2 inject "ssh://lab/x;touch $T/pwned?config=$S/config"
has "SSH host ssh://lab has no iperf2 '/x;touch $T/pwned'"
[ ! -e "$T/pwned" ] || fail "the host's shell ran a command from the URL"
run_ssh 2 echo "ssh://lab?config=$S/config" --tests latency --latency-method udp-echo --latency-count 3
has "SSH host ssh://lab: UDP echo probes run from this computer only; pass --latency-method icmp (the host's ping)"

# A key the host knows but ssh would have to unlock: never a prompt (BatchMode=yes; without it ssh
# would ask the askpass, which answers, and log in), the login refused before anything starts, exit 2.
SSH_ASKPASS="$S/askpass" SSH_ASKPASS_REQUIRE=force DISPLAY=:0 run_ssh 2 lockedkey "ssh://lab?config=$S/config-locked-key"
once "espbench: SSH host ssh://lab refused the login ("
has "Permission denied (publickey)"
has "espbench logs in with a key or ssh-agent only, never a password; put your public key in the host's authorized_keys, or name the key in the ssh config (?config=FILE)"
[ ! -e "$S/asked" ] || fail "ssh asked for a passphrase"
json_check "$T/lockedkey" '(r.get("entries", []) == [])'

# Nothing listening on the port: exit 3.
run_ssh 3 noserver "ssh://lab?config=$S/config-no-server"
once "espbench: SSH host ssh://lab cannot be reached (ssh: connect to host 127.0.0.1 port $NOPORT: Connection refused): check the address and port, and that sshd runs there"

# No iperf2 at the path given: exit 2.
run_ssh 2 noiperf "ssh://lab/nonexistent/iperf?config=$S/config"
once "espbench: SSH host ssh://lab has no iperf2 '/nonexistent/iperf': install it there (Debian/Ubuntu: apt install iperf) or name its path in the far end's URL (ssh://HOST/PATH/OF/IPERF)"

# Logged in, and then nothing starts (a hung login): the start's deadline (connect_timeout=4: 4 s
# to connect, as long again to start) gives up with one line, exit 3; ssh and the host's command
# are stopped (its stdin closed).
run_ssh 3 hang "ssh://lab?config=$S/config-hang&connect_timeout=4"
once "espbench: SSH host ssh://lab: no iperf2 started within 8 s (connect, log in, start): check the host and the network"

# A destination that would be an ssh option: refused as a usage error.
run_ssh 2 opt "ssh://-oProxyCommand=true"
has "SSH destination 'ssh://-oProxyCommand=true': not [USER@]HOST"

# The host's iperf2 killed (SIGKILL) 2 s into a client run (tcp_rx): that test fails naming the
# host, tcp_tx measured before it stays in the results, exit 3.
cat >"$T/iperf-dies" <<EOF
#!/bin/sh
case " \$* " in *" -c "*) ( sleep 2; kill -9 \$\$ ) </dev/null >/dev/null 2>&1 & ;; esac
exec "$IPERF" "\$@"
EOF
chmod +x "$T/iperf-dies"
run_ssh 3 dies "ssh://lab$T/iperf-dies?config=$S/config" --tests tcp_tx,tcp_rx --retries 0
has "SSH host ssh://lab: its iperf2 (pid "
has ") ended with signal 9 before the test did: see the host's log (out of memory? killed?)"
has "1 tests done, 0 skipped, 1 failed of 2"
json_check "$T/dies" '(sorted((e["test"], e["status"]) for e in r["entries"]) == [("tcp_rx", "failed"), ("tcp_tx", "ok")])'

# espbench killed outright mid-test: ssh dies with it, the host sees the connection close and
# its iperf2 server stops (SIGINT, then SIGKILL 2 s later), long before the server's own -t.
"$ESPBENCH" run --sim --chip esp32 --tier iperf --duration 30 --interval 1 --pc-address "$PC" \
    --far-end "ssh://lab?config=$S/config" --tests tcp_tx --out "$T/killed" >"$T/killed.out" 2>&1 &
RUN=$!
for _ in $(seq 1200); do # up to 120 s on a busy machine
    grep -q "tcp_tx: started" "$T/killed.out" 2>/dev/null && break
    sleep 0.1
done
grep -q "tcp_tx: started" "$T/killed.out" || { cat "$T/killed.out" >&2; fail "the test never started"; }
pgrep -f "iperf -s -B $PC " >/dev/null || fail "no iperf2 server of the host while the test runs"
kill -9 "$RUN"
wait "$RUN" 2>/dev/null || true
no_host_iperf
echo "PASS"
