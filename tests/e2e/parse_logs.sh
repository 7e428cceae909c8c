# `espbench parse`: captured logs (fixtures, and a real iperf2 run on
# 127.0.0.1) into results.json; bad input gives one line and exit 2 or 3.
set -u
: "${ESPBENCH:?}" "${FIXTURES_DIR:?}"
tmp=$(mktemp -d)
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# wait_bound PORT udp|tcp: a server has bound the port (an event, not a sleep: a busy machine starts
# iperf late).
wait_bound() {
    local hex
    hex=$(printf ':%04X ' "$1")
    for _ in $(seq 600); do grep -q "$hex" "/proc/net/$2" && return 0; sleep 0.05; done
    fail "no server bound port $1/$2"
}
B=$FIXTURES_DIR/logs/board
P=$FIXTURES_DIR/logs/iperf2

# 1. A board log and the PC log of the same test pair into one entry.
"$ESPBENCH" parse --tier iperf -o "$tmp/r1.json" "$B/iperf-cmd-1.0_esp32c6_tcp_tx.log" "$P/tcp.server.log" \
    >"$tmp/out1" 2>"$tmp/err1" || fail "parse of fixtures exited $?: $(cat "$tmp/err1")"
grep -q "^tcp_tx  ok" "$tmp/out1" || fail "summary table: $(cat "$tmp/out1")"
python3 - "$tmp/r1.json" <<'EOF' || fail "results.json content (fixtures)"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["schema"] == "espbench-results", r.get("schema")
assert len(r["entries"]) == 1, len(r["entries"])
e = r["entries"][0]
assert (e["chip"], e["tier"], e["test"], e["status"]) == ("esp32c6", "iperf", "tcp_tx", "ok"), e
assert len(e["intervals"]["receiver"]) == 4 and len(e["intervals"]["sender"]) == 4, e["intervals"]
assert abs(e["mean_mbps"] - 19850) < 1e-6, e["mean_mbps"]
assert e["min_free_heap"] == 222222
assert r["boards"][0]["dialect"] == "iperf-cmd-1.0"
EOF

# 2. The machine-readable espbench dialect, JSON on stdout.
"$ESPBENCH" parse "$B/espbench_esp32_udp_rx.log" >"$tmp/r2.json" 2>"$tmp/err2" || fail "espbench log: $(cat "$tmp/err2")"
python3 - "$tmp/r2.json" <<'EOF' || fail "results.json content (espbench dialect)"
import json, sys
r = json.load(open(sys.argv[1]))
e = r["entries"][0]
assert e["test"] == "udp_rx" and e["chip"] == "esp32", e
assert abs(e["loss_pct"] - 100.0 * 15 / 20924) < 1e-9, e["loss_pct"]
assert e["intervals"]["receiver"][1]["bytes"] == 10500000
EOF

# 3. A real iperf2 run on loopback, captured and parsed (UDP server = board TX).
port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
iperf -s -u -B 127.0.0.1 -p "$port" -i 0.5 -P 1 -t 8 >"$tmp/pc.log" 2>&1 &
server_pid=$!
wait_bound "$port" udp
timeout 240 iperf -c 127.0.0.1 -u -p "$port" -i 0.5 -t 1.5 -b 5m >"$tmp/client.log" 2>&1 || fail "iperf client"
wait "$server_pid"
server_pid=
"$ESPBENCH" parse --chip esp32 --warmup 0 -o "$tmp/r3.json" "$tmp/pc.log" >/dev/null 2>"$tmp/err3" \
    || fail "live server log: $(cat "$tmp/err3"; cat "$tmp/pc.log")"
"$ESPBENCH" parse --chip esp32 --warmup 0 -o "$tmp/r4.json" "$tmp/client.log" >/dev/null 2>"$tmp/err4" \
    || fail "live client log: $(cat "$tmp/err4"; cat "$tmp/client.log")"
# What a busy machine's loopback carried is not asserted (that is a measurement): the figures are
# the ones the logs hold -- the mean of the steady intervals (lengths within 10 % of the median
# length, results.h: a busy machine may end the server's last one a little short), the loss of
# the Server Report's counts.
python3 - "$tmp/r3.json" "$tmp/r4.json" "$tmp/client.log" <<'EOF' || fail "results.json content (live run): $(cat "$tmp/pc.log")"
import json, re, statistics, sys
def steady_mean(iv):
    nominal = statistics.median(i["end_s"] - i["start_s"] for i in iv)
    v = [i["mbps"] for i in iv if abs(i["end_s"] - i["start_s"] - nominal) <= 0.1 * nominal]
    return sum(v) / len(v)
s = json.load(open(sys.argv[1]))["entries"][0]
c = json.load(open(sys.argv[2]))["entries"][0]
iv = s["intervals"]["receiver"]
assert s["test"] == "udp_tx" and len(iv) >= 3, s
assert s["mean_mbps"] > 0 and abs(s["mean_mbps"] - steady_mean(iv)) <= 1e-9 * s["mean_mbps"], (s["mean_mbps"], iv)
assert s["loss_pct"] is not None
assert c["test"] == "udp_rx" and len(c["intervals"]["sender"]) >= 3, c
lost, total = (int(x) for x in re.findall(r"(\d+)/ *(\d+) \(", open(sys.argv[3]).read())[-1])
assert c["loss_pct"] is not None and abs(c["loss_pct"] - 100.0 * lost / total) < 1e-9, (c["loss_pct"], lost, total)
EOF

# 4. Bad input: one line naming the file (and line), exit 2; unreadable file, exit 3.
"$ESPBENCH" parse "$B/ambiguous_int_intervals.log" >/dev/null 2>"$tmp/e1"; rc=$?
[ "$rc" = 2 ] || fail "ambiguous dialect: exit $rc"
[ "$(wc -l <"$tmp/e1")" = 1 ] && grep -q "ambiguous_int_intervals.log: cannot tell the board's console dialect: .*pass --dialect" "$tmp/e1" \
    || fail "ambiguous dialect message: $(cat "$tmp/e1")"
"$ESPBENCH" parse "$P/refused.client.log" >/dev/null 2>"$tmp/e2"; rc=$?
[ "$rc" = 2 ] || fail "refused: exit $rc"
grep -qx "espbench: .*refused.client.log:5: iperf failed: tcp connect failed: Connection refused" "$tmp/e2" \
    || fail "refused message: $(cat "$tmp/e2")"
"$ESPBENCH" parse "$tmp/missing.log" >/dev/null 2>"$tmp/e3"; rc=$?
[ "$rc" = 3 ] || fail "missing file: exit $rc"
grep -q "missing.log: cannot read: No such file or directory" "$tmp/e3" || fail "missing message: $(cat "$tmp/e3")"
"$ESPBENCH" parse --dialect nope "$P/tcp.server.log" >/dev/null 2>"$tmp/e4"; rc=$?
[ "$rc" = 2 ] || fail "bad --dialect: exit $rc"
"$ESPBENCH" parse --dialect idf-v4.4 "$B/ambiguous_int_intervals.log" >/dev/null 2>"$tmp/e5"; rc=$?
[ "$rc" = 2 ] && grep -q "ambiguous_int_intervals.log:1: .*pass --test" "$tmp/e5" || fail "no test: $rc $(cat "$tmp/e5")"

# 5. parse and merge replace their output atomically (a temporary file renamed
# over it, so never half a file) without fsync: it is made again from inputs
# that stay. (run's results.json is synced after every test: bench/ killresume.)
# (LeakSanitizer cannot run under ptrace: leaks are checked by the runs above.)
echo '{"old": true}' >"$tmp/r5.json"
ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=fsync,fdatasync,rename,renameat,renameat2 -o "$tmp/st5" \
    "$ESPBENCH" parse -o "$tmp/r5.json" "$P/tcp.server.log" >/dev/null 2>&1 || fail "parse under strace: $?"
grep -qE 'rename(at2?)?\(.*"[^"]*/\.r5\.json\.[^"]+", .*"[^"]*/r5\.json"' "$tmp/st5" || fail "parse did not rename into place: $(cat "$tmp/st5")"
! grep -qE 'fsync|fdatasync' "$tmp/st5" || fail "parse synced its output: $(cat "$tmp/st5")"
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['entries']" "$tmp/r5.json" || fail "parse output after rename"
ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=fsync,fdatasync -o "$tmp/st6" "$ESPBENCH" merge -o "$tmp/m5.json" "$tmp/r5.json" "$tmp/r1.json" \
    >/dev/null 2>&1 || fail "merge under strace: $?"
! grep -qE 'fsync|fdatasync' "$tmp/st6" || fail "merge synced its output: $(cat "$tmp/st6")"
# 6. Logs of the field (fixtures written from the public formats; docs/results.md "What parse reads").
I3=$FIXTURES_DIR/logs/iperf3
#  - the examples' socket lines tell each test; --test names only the tests nothing tells, a list in order
"$ESPBENCH" parse -o "$tmp/r6.json" "$B/idf-v4.4_esp32_socket_roles.log" >"$tmp/out6" 2>"$tmp/err6" \
    || fail "socket roles: $(cat "$tmp/err6")"
[ "$(awk 'NR > 1 {print $1}' "$tmp/out6" | tr '\n' ' ')" = "tcp_tx udp_tx tcp_rx udp_rx " ] || fail "socket roles: $(cat "$tmp/out6")"
"$ESPBENCH" parse --test tcp_rx,udp_rx -o "$tmp/r7.json" "$B/idf-v4.4_esp32_untold_mixed.log" >"$tmp/out7" 2>"$tmp/err7" \
    || fail "--test list: $(cat "$tmp/err7")"
[ "$(awk 'NR > 1 {print $1}' "$tmp/out7" | tr '\n' ' ')" = "udp_tx tcp_rx udp_rx " ] || fail "--test list: $(cat "$tmp/out7")"
"$ESPBENCH" parse --test tcp_rx,udp_xx "$B/idf-v4.4_esp32_untold_mixed.log" >/dev/null 2>"$tmp/e7"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$tmp/e7")" = 1 ] && grep -q -- "--test 'tcp_rx,udp_xx': one of tcp_tx, tcp_rx, udp_tx, udp_rx, or a comma list" "$tmp/e7" \
    || fail "bad --test list: $rc $(cat "$tmp/e7")"
#  - a partial test: failed, the error line and the seconds covered, no figure (JSON null)
"$ESPBENCH" parse -o "$tmp/r8.json" "$B/idf-v4.4_esp32_tcp_tx_reset.log" "$B/idf-v4.4_esp32_tcp_rx_cut.log" >/dev/null 2>"$tmp/err8" \
    || fail "partial tests: $(cat "$tmp/err8")"
#  - UDP server loss: the whole-test line, the intervals' sum beside it
"$ESPBENCH" parse -o "$tmp/r9.json" "$P/udp_2.0_final.server.log" >/dev/null 2>"$tmp/err9" || fail "udp final: $(cat "$tmp/err9")"
python3 - "$tmp/r8.json" "$tmp/r9.json" "$B" <<'EOF2' || fail "results.json content (partial tests, UDP loss)"
import json, sys
a, b = json.load(open(sys.argv[1]))["entries"]
assert (a["test"], a["status"], a["mean_mbps"], a["peak_mbps"]) == ("tcp_tx", "failed", None, None), a
assert a["error"] == sys.argv[3] + "/idf-v4.4_esp32_tcp_tx_reset.log:13: board: tcp client send error, error code: 104, reason: Connection reset by peer; the sender reported only 5.0 s of the 10 s of tcp_tx", a["error"]
assert (b["test"], b["status"], b["mean_mbps"]) == ("tcp_rx", "failed", None), b
assert b["error"].endswith("idf-v4.4_esp32_tcp_rx_cut.log:3: the receiver reported only 63.0 s of the 1000 s of tcp_rx"), b["error"]
e = json.load(open(sys.argv[2]))["entries"][0]
assert e["loss_pct"] == 100.0 * 3 / 792 and e["interval_loss_pct"] == 100.0 * 4 / 760, e
EOF2
#  - iperf3, real runs on 127.0.0.1: the PC client sends (the board's rx), the server receives (tx)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
iperf3 -s -B 127.0.0.1 -p "$port" -i 0.5 -1 >"$tmp/i3s.log" 2>&1 &
server_pid=$!
wait_bound "$port" tcp
timeout 240 iperf3 -c 127.0.0.1 -p "$port" -t 2 -i 0.5 -b 20M >"$tmp/i3c.log" 2>&1 || fail "iperf3 client: $(cat "$tmp/i3c.log")"
wait "$server_pid"
server_pid=
"$ESPBENCH" parse --warmup 0 -o "$tmp/r10.json" "$tmp/i3c.log" >/dev/null 2>"$tmp/err10" || fail "iperf3 client log: $(cat "$tmp/err10")"
"$ESPBENCH" parse --warmup 0 -o "$tmp/r11.json" "$tmp/i3s.log" >/dev/null 2>"$tmp/err11" || fail "iperf3 server log: $(cat "$tmp/err11")"
python3 - "$tmp/r10.json" "$tmp/r11.json" "$tmp/i3c.log" "$tmp/i3s.log" <<'EOF2' || fail "results.json content (live iperf3): $(cat "$tmp/i3c.log" "$tmp/i3s.log")"
import json, re, statistics, sys
def interval_lines(log):
    # the per-interval lines iperf3 printed (a busy machine may add a short last one, 2.00-2.01)
    body = open(log).read().split("- - - -")[0]
    return len(re.findall(r"^\[ *\d+\] +[0-9.]+-[0-9.]+ +sec .*$", body, re.M))
def steady_mean(iv):
    nominal = statistics.median(i["end_s"] - i["start_s"] for i in iv)
    v = [i["mbps"] for i in iv if abs(i["end_s"] - i["start_s"] - nominal) <= 0.1 * nominal]
    return sum(v) / len(v)
c = json.load(open(sys.argv[1]))["entries"][0]
s = json.load(open(sys.argv[2]))["entries"][0]
assert c["test"] == "tcp_rx" and len(c["intervals"]["sender"]) == interval_lines(sys.argv[3]) >= 4, c
assert not c["intervals"].get("receiver"), c
assert s["test"] == "tcp_tx" and len(s["intervals"]["receiver"]) == interval_lines(sys.argv[4]) >= 4, s
for e, side in ((c, "sender"), (s, "receiver")):
    iv = e["intervals"][side]
    assert e["status"] == "ok" and e["mean_mbps"] > 0, e
    assert abs(e["mean_mbps"] - steady_mean(iv)) <= 1e-9 * e["mean_mbps"], (e["mean_mbps"], iv)
EOF2
echo "parse_logs: ok"
