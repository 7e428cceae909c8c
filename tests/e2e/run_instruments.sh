#!/usr/bin/env bash
# Lab instruments (docs/instruments.md) against a virtual board started by
# hand, without --sim: the run reaches its link only through the
# instrument doubles of tests/doubles/, which tell the board the
# attenuation on its control socket.
#  - an attenuation sweep through ESP-IDF's serial attenuator on a pty, an
#    rssi sweep through a Mini-Circuits unit over HTTP (steered to the
#    board's report, an unreachable point failed with how close it came),
#    an attenuation point over Telnet;
#  - an OpenWrt AP set per channel and bandwidth point and a hostapd AP set
#    for the run, each powered alone (an APC PDU's telnet menu, a Tasmota
#    plug) while the other APs are off;
#  - every bad answer is one line naming the instrument and what it said;
#  - lab file errors at FILE:LINE:COL; the HTML report's charts against the
#    attenuation and the RSSI, rendered in Chromium.
source "$(dirname "$0")/lib/run_helpers.sh"
D="$SOURCE_DIR/tests/doubles"
export LABWIFI=bench-wifi-e2e OWRT_PASS=owrt-e2e-secret APC_PASS=apc-e2e-secret TAS_PASS=tas-e2e-secret

bg() { "$@" & BG+=($!); }
# wait_file PATH: a double is up once it wrote its ready file or made its link.
wait_file() {
    for _ in $(seq 1 100); do [ -e "$1" ] && return 0; sleep 0.1; done
    fail "no $1 after 10 s"
}
port_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }
vb_atten() { # the board's attenuation back to DB, as if the attenuator were set by hand
    python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b'atten '+sys.argv[2].encode()+b'\n'); print(s.recv(200).decode().strip())" "$T/ctl" "$1" >/dev/null
}

# The board: the espbench firmware flashed on a virtual ESP32 seeing one AP at -35 dBm.
"$VBOARD" mkimage --chip esp32 --project espbench --idf v5.3 -o "$T/app.bin" >/dev/null
bg "$VBOARD" --chip esp32 --link "$T/board.tty" --flash "$T/flash.bin" --ip "$(free_address)" \
    --ap "bench-ap:env:LABWIFI:-35" --no-baud-timing --no-flash-timing --sync-resets --control "$T/ctl" --model
wait_file "$T/board.tty"
expect_rc 0 timeout 60 "$ESPBENCH" flash --port "$T/board.tty" --chip esp32 --before no-reset "$T/app.bin@0x10000"

# The instruments.
bg python3 "$D/atten_idf_serial.py" --link "$T/att.tty" --vboard-control "$T/ctl" --log "$T/att.log"
bg python3 "$D/atten_idf_serial.py" --link "$T/att-garbage.tty" --fault garbage
bg python3 "$D/atten_idf_serial.py" --link "$T/att-silent.tty" --fault silent
bg python3 "$D/minicircuits.py" --vboard-control "$T/ctl" --log "$T/mc.log" --ready "$T/mc.json"
bg python3 "$D/minicircuits.py" --fault busy:99 --ready "$T/mc-busy.json"
bg python3 "$D/atten_weinschel.py" --vboard-control "$T/ctl" --log "$T/wein.log" --ready "$T/wein.json"
bg python3 "$D/pdu_apc.py" --password-env APC_PASS --state "$T/apc.state" --log "$T/apc.log" --ready "$T/apc.json"
bg python3 "$D/power_tasmota.py" --password-env TAS_PASS --state "$T/tas.state" --log "$T/tas.log" --ready "$T/tas.json"
wait_file "$T/apc.json"
wait_file "$T/tas.json"
bg python3 "$D/ap_openwrt.py" --name ap1 --password-env OWRT_PASS --power-state "$T/apc.state" --outlet 1 \
    --log "$T/ap1.log" --ready "$T/ap1.json"
bg python3 "$D/ap_openwrt.py" --name ap2 --password-env OWRT_PASS --power-state "$T/tas.state" --outlet 2 \
    --expire-after 3 --log "$T/ap2.log" --ready "$T/ap2.json"
bg python3 "$D/ap_hostapd.py" --socket "$T/hostapd-wlan0" --log "$T/ap3.log"
bg python3 "$D/ap_hostapd.py" --udp 0 --ready "$T/ap4.json" --log "$T/ap4.log"
# misbehaving ones: a channel refused at SET, one that does not come up, a radio netifd leaves down,
# switches whose outlet does not follow
bg python3 "$D/ap_hostapd.py" --socket "$T/hostapd-wlan5" --fault set-fail:1
bg python3 "$D/ap_hostapd.py" --socket "$T/hostapd-wlan6" --fault enable-down:1
bg python3 "$D/ap_openwrt.py" --name ap7 --password-env OWRT_PASS --fault down:6 --ready "$T/ap7.json"
bg python3 "$D/power_tasmota.py" --password-env TAS_PASS --fault stuck:3 --ready "$T/tas-stuck.json"
bg python3 "$D/pdu_apc.py" --password-env APC_PASS --fault stuck:4 --ready "$T/apc-stuck.json"
for f in att.tty att-garbage.tty att-silent.tty mc.json mc-busy.json wein.json ap1.json ap2.json hostapd-wlan0 ap4.json \
    hostapd-wlan5 hostapd-wlan6 ap7.json tas-stuck.json apc-stuck.json; do
    wait_file "$T/$f"
done

kernel_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
IPORT=$(kernel_port)
newport() { # a TCP port the kernel picks per run: the last run's PC iperf server may still hold its
    # own, and a fixed number collides with another test running in parallel
    IPORT=$(kernel_port)
    sed -i "s/^    iperf_port: .*/    iperf_port: $IPORT/" "$T/lab.yaml"
}
lab() { # lab ATTENUATOR-YAML...: the lab file with these instruments besides the APs and switches
    cat > "$T/lab.yaml" <<EOF
ap:
  ssid: bench-ap
  password_env: LABWIFI
pc:
  address: 127.0.0.1
boards:
  - name: dut
    chip: esp32
    port: $T/board.tty
    iperf_port: $IPORT
instruments:
  - {name: pdu1, kind: power, driver: apc, address: "127.0.0.1:$(port_of "$T/apc.json" telnet)", password_env: APC_PASS}
  - {name: plug2, kind: power, driver: tasmota, address: "http://127.0.0.1:$(port_of "$T/tas.json" http)", password_env: TAS_PASS}
  - {name: ap1, kind: ap, driver: openwrt, address: "http://127.0.0.1:$(port_of "$T/ap1.json" http)", password_env: OWRT_PASS, power: "pdu1:1"}
  - {name: ap2, kind: ap, driver: openwrt, address: "http://127.0.0.1:$(port_of "$T/ap2.json" http)", password_env: OWRT_PASS, power: "plug2:2"}
  - {name: ap3, kind: ap, driver: hostapd, address: "$T/hostapd-wlan0", radio: wlan0}
  - {name: ap4, kind: ap, driver: hostapd, address: "udp:127.0.0.1:$(port_of "$T/ap4.json" udp)"}
EOF
    for a in "$@"; do echo "  - $a" >> "$T/lab.yaml"; done
}
RUN=(run --lab "$T/lab.yaml" --tier iperf --tests tcp_tx --duration 1 --interval 1 --warmup 0 --retries 0 --settle 0.3)

# 1. Attenuation sweep through the serial attenuator: each point set, read
# back, the board's RSSI read; the board's link model gives the throughput.
lab "{name: att1, kind: attenuator, driver: idf-serial, address: \"$T/att.tty\", serves: dut}"
newport
expect_rc 0 timeout 120 "$ESPBENCH" "${RUN[@]}" --sweep attenuation=0,30,50 --out "$T/att"
has "dut: sweep attenuation = 30 dB (att1 reads 30 dB), RSSI -65 dBm"
has "3 tests done, 0 skipped, 0 failed of 3"
json_check "$T/att" '[(e["provenance"]["sweep_value"], e["provenance"]["attenuation_db"], e["provenance"]["rssi_before"]) for e in r["entries"]] == [(0, 0, -35), (30, 30, -65), (50, 50, -85)]'
json_check "$T/att" 'all(e["provenance"]["instruments"] == "att1=idf-serial" for e in r["entries"])'
# -85 dBm is below the model's lowest MCS (-82 dBm): the link carries next to nothing
json_check "$T/att" 'r["entries"][2]["mean_mbps"] < r["entries"][0]["mean_mbps"]'
python3 - "$T/att.log" <<'PY' || fail "the serial double did not set the board"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert [e["att"] for e in ev if e["event"] == "set"] == [0, 30, 50], ev
assert ev[-1]["vboard"].startswith("ok rssi=-85 ") and ev[-1]["vboard"].endswith(" atten=50"), ev[-1]
PY

# 2. RSSI sweep on hardware through the Mini-Circuits unit over HTTP: steered
# to the board's report within 2 dB; -30 dBm is stronger than the AP
# without attenuation: that point fails saying so, the others are kept.
lab "{name: mc1, kind: attenuator, driver: minicircuits-http, address: \"http://127.0.0.1:$(port_of "$T/mc.json" http)\"}"
newport
expect_rc 3 timeout 180 "$ESPBENCH" "${RUN[@]}" --sweep rssi=-50,-30,-70 --out "$T/rssi"
has "dut: sweep rssi = -50 dBm: with mc1 at 15 dB the board reports -50 dBm"
has "FAILED: dut: RSSI -30 dBm not reached with mc1: at 0 dB the board reports -35 dBm (tolerance 2 dB, range 0..120 dB)"
json_check "$T/rssi" '[e["status"] for e in r["entries"]] == ["ok", "failed", "ok"]'
json_check "$T/rssi" 'all(abs(e["provenance"]["rssi_before"] - e["provenance"]["sweep_value"]) <= 2 for e in r["entries"] if e["status"] == "ok")'
json_check "$T/rssi" '[e["provenance"]["attenuation_db"] for e in r["entries"] if e["status"] == "ok"] == [15, 35]'
grep -q '"via": "http"' "$T/mc.log" || fail "no HTTP set in the Mini-Circuits double's log"

# 3. The same unit over Telnet.
vb_atten 0
lab "{name: mc1, kind: attenuator, driver: minicircuits-telnet, address: \"127.0.0.1:$(port_of "$T/mc.json" telnet)\", serves: [dut]}"
newport
expect_rc 0 timeout 120 "$ESPBENCH" "${RUN[@]}" --sweep attenuation=20.25 --out "$T/telnet"
has "dut: sweep attenuation = 20.25 dB (mc1 reads 20.25 dB); the board connects next"
json_check "$T/telnet" 'r["entries"][0]["provenance"]["attenuation_db"] == 20.25 and r["entries"][0]["provenance"]["rssi_before"] == -55'
grep -q '"att": 20.25, .*"via": "telnet"' "$T/mc.log" || fail "no Telnet set in the Mini-Circuits double's log"
vb_atten 0

# 3b. A Weinschel 8320 over Telnet: path 1 set, read back; a value off its
# 0.25 dB step is rounded to it.
lab "{name: w1, kind: attenuator, driver: weinschel-telnet, address: \"127.0.0.1:$(port_of "$T/wein.json" telnet)\", channel: 1}"
newport
expect_rc 0 timeout 120 "$ESPBENCH" "${RUN[@]}" --sweep attenuation=10.1,40 --out "$T/wein"
has "dut: sweep attenuation = 40 dB (w1 reads 40 dB), RSSI -75 dBm"
json_check "$T/wein" '[e["provenance"]["attenuation_db"] for e in r["entries"]] == [10, 40]'
grep -q '"att": 10.0, .*"unit_path": 1' "$T/wein.log" || fail "no set in the Weinschel double's log"
vb_atten 0

# 4. The OpenWrt AP ap1, powered alone by the APC PDU, set per channel point;
# the board connects after each change.
lab
newport
expect_rc 0 timeout 120 "$ESPBENCH" "${RUN[@]}" --ap ap1 --sweep channel=1,6,11 --out "$T/chan"
has "plug2: outlet 2 off (access point ap2)"
has "pdu1: outlet 1 on (access point ap1)"
has "dut: sweep channel = 6: ap1 reports band 2g, channel 6, 20 MHz"
json_check "$T/chan" '[e["provenance"]["sweep_value"] for e in r["entries"]] == [1, 6, 11]'
json_check "$T/chan" 'r["entries"][1]["provenance"]["instruments"] == "plug2=tasmota pdu1=apc ap1=openwrt (ap1: 2g channel 6 20 MHz)"'
python3 - "$T/ap1.log" <<'PY' || fail "ap1 was not set per point"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert [e["radio"]["channel"] for e in ev if e["event"] == "reload"] == ["1", "6", "11"], ev
PY

# 5. ap2 through the Tasmota plug: ap1 goes off first, then ap2 on (one AP
# at a time); --ap-set puts it on 5 GHz, the points set its width. ap2's
# session expires after three calls: the driver logs in again.
newport
expect_rc 0 timeout 120 "$ESPBENCH" "${RUN[@]}" --ap ap2 --ap-set band=5g,channel=36 --sweep bandwidth=20,40 --out "$T/bw"
has "dut: sweep bandwidth = 40: ap2 reports band 5g, channel 36, 40 MHz"
python3 - "$T/apc.log" "$T/tas.log" "$T/ap2.log" <<'PY' || fail "not one AP at a time, or ap2 not set"
import json, sys
apc, tas, ap2 = ([json.loads(l) for l in open(f)] for f in sys.argv[1:])
off1 = [e for e in apc if e["event"] == "outlet" and not e["on"]][-1]
on2 = [e for e in tas if e["event"] == "outlet" and e["on"]][-1]
assert off1["outlet"] == 1 and on2["outlet"] == 2 and off1["t"] <= on2["t"], (off1, on2)
assert [(e["radio"]["band"], e["radio"]["htmode"]) for e in ap2 if e["event"] == "reload"] == \
    [("5g", "HT20"), ("5g", "VHT20"), ("5g", "VHT40")], ap2  # --ap-set leaves the width as it was
PY

# 6. hostapd (no power switch: the others go off) set for the run.
newport
expect_rc 0 timeout 120 "$ESPBENCH" "${RUN[@]}" --ap ap3 --ap-set channel=36,bandwidth=40 --out "$T/hostapd"
has "ap3: band 5g, channel 36, 40 MHz"
has "plug2: outlet 2 off (access point ap2)"
grep -q '"channel": "36", "ht_capab": "\[HT40+\]", "hw_mode": "a"' "$T/ap3.log" || fail "hostapd not set"
# hostapd on another machine: its UDP control interface, every command with GET_COOKIE's cookie
newport
expect_rc 0 timeout 120 "$ESPBENCH" "${RUN[@]}" --ap ap4 --sweep channel=1,11 --out "$T/hostapd-udp"
has "dut: sweep channel = 11: ap4 reports band 2g, channel 11, 20 MHz"
[ "$(grep -c '"event": "enable"' "$T/ap4.log")" = 2 ] || fail "the UDP hostapd was not enabled once per point"
! grep -q '"dropped"' "$T/ap4.log" || fail "a command without the cookie"

# 7. Bad answers: one line naming the instrument and what it said; points
# already measured stay.
lab "{name: att9, kind: attenuator, driver: idf-serial, address: \"$T/att-garbage.tty\"}"
newport
expect_rc 3 timeout 60 "$ESPBENCH" "${RUN[@]}" --sweep attenuation=10 --out "$T/bad1"
has "FAILED: attenuator att9 (idf-serial $T/att-garbage.tty): set 10 dB: answered 7E 7E 20 0A 01 2B, not 7E 7E 20 0A 00 2A"
lab "{name: att9, kind: attenuator, driver: idf-serial, address: \"$T/att-silent.tty\"}"
newport
expect_rc 3 timeout 60 "$ESPBENCH" "${RUN[@]}" --sweep attenuation=10 --out "$T/bad2"
has "FAILED: attenuator att9 (idf-serial $T/att-silent.tty): set 10 dB: no answer within 5 s (is it powered and on this port?)"
lab "{name: mc9, kind: attenuator, driver: minicircuits-http, address: \"http://127.0.0.1:$(port_of "$T/mc-busy.json" http)\"}"
newport
expect_rc 3 timeout 60 "$ESPBENCH" "${RUN[@]}" --sweep attenuation=10 --out "$T/bad3"
has "espbench: attenuator mc9 (minicircuits-http http://127.0.0.1:$(port_of "$T/mc-busy.json" http)): no answer: "
lab "{name: mc1, kind: attenuator, driver: minicircuits-http, address: \"http://127.0.0.1:$(port_of "$T/mc.json" http)\"}"
newport
expect_rc 2 timeout 60 "$ESPBENCH" "${RUN[@]}" --sweep attenuation=0,95 --out "$T/bad4"
has "espbench: attenuator mc1 (minicircuits-http http://127.0.0.1:$(port_of "$T/mc.json" http)): the sweep's 95 dB is above this unit's 90 dB"
lab
newport
expect_rc 2 env OWRT_PASS=wrong timeout 60 "$ESPBENCH" "${RUN[@]}" --ap ap1 --out "$T/bad5"
has "espbench: ap ap1 (openwrt http://127.0.0.1:$(port_of "$T/ap1.json" http)): session.login as root: Permission denied (user or password wrong; the password comes from OWRT_PASS)"
newport
expect_rc 2 env APC_PASS=wrong timeout 60 "$ESPBENCH" "${RUN[@]}" --ap ap1 --out "$T/bad6"
has "espbench: power pdu1 (apc 127.0.0.1:$(port_of "$T/apc.json" telnet)): login refused (it asked for the user name again): check the user and the password in APC_PASS"
newport
expect_rc 2 env TAS_PASS=wrong timeout 60 "$ESPBENCH" "${RUN[@]}" --ap ap1 --out "$T/bad7"
has "espbench: power plug2 (tasmota http://127.0.0.1:$(port_of "$T/tas.json" http)): Power2 Off answered {\"WARNING\":\"Need user=<username>&password=<password>\"}"
! grep -rq -e "$OWRT_PASS" -e "$APC_PASS" -e "$TAS_PASS" "$T/chan" "$T/bw" "$T/hostapd" || fail "a password in the results or logs"
! grep -q -e AddressSanitizer -e 'runtime error:' "$T/last.out" || fail "sanitizer report"

# 7b. An instrument that did not take its setting: every AP and power switch
# setting is read back; a mismatch or a refusal fails that point in one line
# naming the instrument, what was asked and what it reports; the sweep goes
# on to the next point; a device failure exits 3 whatever the instrument.
lab "{name: ap5, kind: ap, driver: hostapd, address: \"$T/hostapd-wlan5\"}" \
    "{name: ap6, kind: ap, driver: hostapd, address: \"$T/hostapd-wlan6\"}" \
    "{name: ap7, kind: ap, driver: openwrt, address: \"http://127.0.0.1:$(port_of "$T/ap7.json" http)\", password_env: OWRT_PASS}" \
    "{name: plug9, kind: power, driver: tasmota, address: \"http://127.0.0.1:$(port_of "$T/tas-stuck.json" http)\", password_env: TAS_PASS}" \
    "{name: pdu9, kind: power, driver: apc, address: \"127.0.0.1:$(port_of "$T/apc-stuck.json" telnet)\", password_env: APC_PASS}" \
    "{name: ap8, kind: ap, driver: hostapd, address: \"$T/hostapd-wlan0\", power: \"plug9:3\"}" \
    "{name: ap9, kind: ap, driver: hostapd, address: \"$T/hostapd-wlan0\", power: \"pdu9:4\"}"
newport
expect_rc 3 timeout 120 "$ESPBENCH" "${RUN[@]}" --ap ap5 --sweep channel=1,6 --out "$T/apfail"
has "FAILED: ap ap5 (hostapd $T/hostapd-wlan5): SET channel 1 answered \"FAIL\""
has "dut: sweep channel = 6: ap5 reports band 2g, channel 6, 20 MHz"
has "1 tests done, 0 skipped, 1 failed of 2"
json_check "$T/apfail" '[(e["provenance"]["sweep_value"], e["status"]) for e in r["entries"]] == [(1, "failed"), (6, "ok")]'
json_check "$T/apfail" "r['entries'][0]['error'] == 'ap ap5 (hostapd $T/hostapd-wlan5): SET channel 1 answered \"FAIL\"'"
newport
expect_rc 3 timeout 120 "$ESPBENCH" "${RUN[@]}" --ap ap6 --sweep channel=1,6 --out "$T/apdown"
has "FAILED: ap ap6 (hostapd $T/hostapd-wlan6): asked for band 2g, channel 1; it reports state DISABLED, no band, channel 0"
has "dut: sweep channel = 6: ap6 reports band 2g, channel 6, 20 MHz"
! grep -q "reports band , channel 0" "$T/last.out" || fail "a point measured on an AP that is not on the air"
json_check "$T/apdown" '[(e["provenance"]["sweep_value"], e["status"]) for e in r["entries"]] == [(1, "failed"), (6, "ok")]'
# --ap-set that does not come up stops the run before anything runs; an AP left as it is must be on the air
newport
expect_rc 3 timeout 60 "$ESPBENCH" "${RUN[@]}" --ap ap6 --ap-set channel=1 --out "$T/apdown2"
has "espbench: ap ap6 (hostapd $T/hostapd-wlan6): asked for band 2g, channel 1; it reports state DISABLED, no band, channel 0"
has "0 tests done, 0 skipped, 0 failed, 1 not run of 1"
newport
expect_rc 3 timeout 60 "$ESPBENCH" "${RUN[@]}" --ap ap6 --out "$T/apdown3"
has "espbench: ap ap6 (hostapd $T/hostapd-wlan6): asked for its radio on the air; it reports state DISABLED"
newport
# after a measured point: exit 3 as for an attenuator (not 2)
expect_rc 3 timeout 120 "$ESPBENCH" "${RUN[@]}" --ap ap7 --sweep channel=11,6 --out "$T/owrtdown"
has "FAILED: ap ap7 (openwrt http://127.0.0.1:$(port_of "$T/ap7.json" http)): asked for band 2g, channel 6; it reports state down, band 2g, channel 6"
has "1 tests done, 0 skipped, 1 failed of 2"
json_check "$T/owrtdown" '[(e["provenance"]["sweep_value"], e["status"]) for e in r["entries"]] == [(11, "ok"), (6, "failed")]'
newport
expect_rc 3 timeout 60 "$ESPBENCH" "${RUN[@]}" --ap ap8 --out "$T/stuck1"
has "espbench: power plug9 (tasmota http://127.0.0.1:$(port_of "$T/tas-stuck.json" http)): switched outlet 3 on; it reports it off"
# nothing ran: the plan is said as not run, and the counts add up to it
has "tcp_tx: not run: power plug9 (tasmota http://127.0.0.1:$(port_of "$T/tas-stuck.json" http)): switched outlet 3 on; it reports it off"
has "0 tests done, 0 skipped, 0 failed, 1 not run of 1"
newport
expect_rc 3 timeout 60 "$ESPBENCH" "${RUN[@]}" --ap ap9 --out "$T/stuck2"
has "espbench: power pdu9 (apc 127.0.0.1:$(port_of "$T/apc-stuck.json" telnet)): switched outlet 4 on; it reports it off"
# a point the AP's family cannot take is said before anything runs (exit 2), as an attenuator's range
expect_rc 2 timeout 60 "$ESPBENCH" "${RUN[@]}" --ap ap1 --sweep bandwidth=20,80 --out "$T/nohtmode"
has "espbench: ap ap1 (openwrt http://127.0.0.1:$(port_of "$T/ap1.json" http)): no htmode for 80 MHz on band 2g"

# 8. Lab file errors point at the file, line and column.
lab
cp "$T/lab.yaml" "$T/bad-lab.yaml"
echo "  - {name: att7, kind: attenuator, driver: weinschel, address: /dev/ttyUSB7}" >> "$T/bad-lab.yaml"
expect_rc 2 "$ESPBENCH" run --lab "$T/bad-lab.yaml" --tier iperf --out "$T/x"
has "$T/bad-lab.yaml:18:44: instrument 'att7': no attenuator driver 'weinschel' (idf-serial, minicircuits-http, minicircuits-telnet, weinschel-telnet)"
cp "$T/lab.yaml" "$T/bad-lab.yaml"
echo "  - {name: att7, kind: attenuator, driver: idf-serial, address: /dev/ttyUSB7, password: x}" >> "$T/bad-lab.yaml"
expect_rc 2 "$ESPBENCH" run --lab "$T/bad-lab.yaml" --tier iperf --out "$T/x"
has "$T/bad-lab.yaml:18:79: a password is never written in the lab file: use password_env: VAR or password_file: FILE"
expect_rc 2 "$ESPBENCH" run --lab "$T/lab.yaml" --tier iperf --sweep attenuation=10 --out "$T/x"
has "espbench run: --sweep attenuation needs a lab attenuator in front of board dut: an instruments: entry of kind attenuator in the lab file (docs/instruments.md)"
expect_rc 2 "$ESPBENCH" run --lab "$T/lab.yaml" --tier iperf --sweep channel=1,6 --out "$T/x"
has "espbench run: $T/lab.yaml: several access points: choose one with --ap NAME"

# 9. The report: throughput against the attenuation and against the RSSI.
"$ESPBENCH" report "$T/att" --format html -o "$T/att.html"
grep -q "TCP TX against the sweep" "$T/att.html" && grep -q "attenuation (dB)" "$T/att.html" || fail "no attenuation chart"
grep -q "TCP TX against the RSSI" "$T/att.html" || fail "no RSSI chart"
grep -q "iperf at -65 dBm" "$T/att.html" || fail "the RSSI chart lacks the -65 dBm point"
if command -v chromium >/dev/null; then
    timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --user-data-dir="$T/profile" \
        --enable-logging=stderr --v=0 --screenshot="$T/shot.png" --window-size=1200,1000 \
        "file://$T/att.html" 2> "$T/chrome.log" > /dev/null
    if grep -E 'CONSOLE|Uncaught|ERR_FILE|net::ERR' "$T/chrome.log"; then
        fail "browser console reported errors"
    fi
    test -s "$T/shot.png"
fi
echo ok
