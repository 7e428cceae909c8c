#!/usr/bin/env python3
"""A double of hostapd's control interface (the protocol hostapd_cli speaks,
wpa_ctrl.c / hostapd ctrl_iface.c): a Unix datagram socket at --socket
(hostapd's ctrl_interface=DIR gives DIR/IFACE); one command per datagram,
the answer sent back to the client's own bound socket.

  PING                 PONG
  SET <name> <value>   OK, or FAIL for a name or value hostapd refuses
                       (known here: hw_mode a|b|g|ad, channel 1..14 or
                       36..177, ieee80211n 0|1, ht_capab, vht_oper_chwidth 0..3)
  DISABLE / ENABLE     OK (the interface stops / starts with the settings
                       SET gave: where they take effect); FAIL when already so
  STATUS               state=ENABLED|DISABLED, freq, channel, secondary_channel,
                       ieee80211n, vht_oper_chwidth, ssid[0], ... one per line
  anything else        UNKNOWN COMMAND

With --udp PORT instead of --socket: hostapd built with CONFIG_CTRL_IFACE_UDP
(ctrl_interface=udp:PORT) on 127.0.0.1: GET_COOKIE answers COOKIE=<16 hex
digits> (no newline), and every other command must come as
"COOKIE=<hex> CMD"; one without the right cookie is dropped unanswered
(hostapd ctrl_iface.c).

A disabled interface's STATUS has state=DISABLED, freq=0 and channel=0.
Faults (--fault, comma-separated):
  set-fail:CH      SET channel CH answers FAIL (a channel the driver does not allow)
  enable-down:CH   ENABLE onto channel CH answers OK, but the interface stays
                   DISABLED (hostapd answers before the driver refuses it)

Each ENABLE is logged (--log) with the settings the interface runs."""
import argparse
import os
import secrets
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dbl_common import log_event  # noqa: E402


def freq_of(ch):
    return 2407 + 5 * ch if ch <= 13 else 2484 if ch == 14 else 5000 + 5 * ch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--socket")
    p.add_argument("--udp", type=int, help="a UDP control interface on 127.0.0.1:PORT (0: any free port)")
    p.add_argument("--ready", help="with --udp: file to write the port to")
    p.add_argument("--ssid", default="bench-ap")
    p.add_argument("--log")
    p.add_argument("--fault", default="", help="set-fail:CH,enable-down:CH")
    a = p.parse_args()
    faults = dict(f.split(":", 1) for f in a.fault.split(",") if f)
    conf = {"hw_mode": "g", "channel": "6", "ieee80211n": "1", "ht_capab": "", "vht_oper_chwidth": "0"}
    enabled = True
    cookie = ""
    if a.udp is not None:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", a.udp))
        cookie = "COOKIE=" + secrets.token_hex(8)
        if a.ready:
            with open(a.ready + ".tmp", "w") as f:
                f.write('{"udp": %d}' % s.getsockname()[1])
            os.replace(a.ready + ".tmp", a.ready)
    else:
        if os.path.exists(a.socket):
            os.unlink(a.socket)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        s.bind(a.socket)

    def valid(name, v):
        if name == "hw_mode":
            return v in ("a", "b", "g", "ad")
        if name == "channel":
            return v.isdigit() and (1 <= int(v) <= 14 or 36 <= int(v) <= 177)
        if name == "ieee80211n":
            return v in ("0", "1")
        if name == "vht_oper_chwidth":
            return v in ("0", "1", "2", "3")
        return name == "ht_capab"

    while True:
        data, peer = s.recvfrom(4096)
        cmd = data.decode(errors="replace").strip()
        if cookie:
            if cmd == "GET_COOKIE":
                s.sendto(cookie.encode(), peer)
                continue
            if not cmd.startswith(cookie):
                log_event(a.log, device="hostapd", event="dropped", why="no cookie")
                continue
            cmd = cmd[len(cookie):].lstrip(" ")
        words = cmd.split(" ", 2)
        if cmd == "PING":
            out = "PONG\n"
        elif words[0] == "SET" and len(words) >= 2:
            name, v = words[1], words[2] if len(words) > 2 else ""
            if name == "channel" and faults.get("set-fail") == v:
                out = "FAIL\n"
            elif valid(name, v):
                conf[name] = v
                out = "OK\n"
            else:
                out = "FAIL\n"
        elif cmd in ("DISABLE", "ENABLE"):
            want = cmd == "ENABLE"
            if enabled == want:
                out = "FAIL\n"
            else:
                enabled = want and faults.get("enable-down") != conf["channel"]
                out = "OK\n"
                if want:
                    log_event(a.log, device="hostapd", event="enable", conf=dict(conf), up=enabled)
        elif cmd == "STATUS":
            ch = int(conf["channel"]) if enabled else 0
            sec = 0
            if "[HT40+]" in conf["ht_capab"]:
                sec = 1
            elif "[HT40-]" in conf["ht_capab"]:
                sec = -1
            out = "state=%s\nphy=phy0\nfreq=%d\nnum_sta_non_erp=0\nchannel=%d\nsecondary_channel=%d\n" \
                  "ieee80211n=%s\nieee80211ac=%d\nvht_oper_chwidth=%s\nbss[0]=wlan0\nssid[0]=%s\nnum_sta[0]=0\n" % (
                      "ENABLED" if enabled else "DISABLED", freq_of(ch) if ch else 0, ch, sec, conf["ieee80211n"],
                      1 if conf["hw_mode"] == "a" else 0, conf["vht_oper_chwidth"], a.ssid)
        else:
            out = "UNKNOWN COMMAND\n"
        try:
            s.sendto(out.encode(), peer)
        except OSError:
            pass


if __name__ == "__main__":
    main()
