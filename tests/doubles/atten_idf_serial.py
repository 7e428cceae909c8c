#!/usr/bin/env python3
"""A double of ESP-IDF's serial programmable attenuator on a pty.

The protocol is the one ESP-IDF's shield-box test drives
(esp-idf tools/ci/python_packages/idf_iperf_test_util/Attenuator.py):
9600 baud 8N1, the command 7E 7E 10 <att> <0x10+att>, the answer
7E 7E 20 <att> 00 <0x20+att>, att 0..62 dB. Attenuator.py never sends a
value outside 0..62 (it asserts first) and treats anything but the exact
answer as failure; the unit's reaction to a bad frame is not published, so
the double answers nothing to it (a frame with a wrong check byte, a value
above 62), which is what a unit that drops the frame looks like.

Faults (--fault): silent (the unit is off: no answer at all), garbage
(answers 7E 7E 20 <att> 01 <0x21+att>: a status byte Attenuator.py does
not accept), slow:MS (the answer after MS milliseconds).

Each accepted value goes to the virtual board (--vboard-control, its
control socket's "atten"), so the board's scans and link model see it."""
import argparse
import os
import select
import sys
import time
import tty

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dbl_common import log_event, vboard_atten  # noqa: E402

MAX_DB = 62


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--link", required=True, help="symlink to the pty the host opens")
    ap.add_argument("--vboard-control")
    ap.add_argument("--log")
    ap.add_argument("--fault", default="")
    a = ap.parse_args()
    master, slave = os.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    if os.path.lexists(a.link):
        os.unlink(a.link)
    os.symlink(name, a.link)
    buf = b""
    while True:
        r, _, _ = select.select([master], [], [], 1.0)
        if not r:
            continue
        try:
            buf += os.read(master, 256)
        except OSError:  # the host closed its side: the pty is kept for the next open
            time.sleep(0.05)
            continue
        while len(buf) >= 5:
            i = buf.find(b"\x7e\x7e")
            if i < 0:
                buf = buf[-1:]
                break
            buf = buf[i:]
            if len(buf) < 5:
                break
            cmd, att, chk = buf[2], buf[3], buf[4]
            if cmd != 0x10 or chk != (0x10 + att) & 0xFF or att > MAX_DB:
                log_event(a.log, device="idf-serial", event="dropped", frame=buf[:5].hex())
                buf = buf[1:]
                continue
            buf = buf[5:]
            if a.fault == "silent":
                log_event(a.log, device="idf-serial", event="silent", att=att)
                continue
            if a.fault.startswith("slow:"):
                time.sleep(int(a.fault[5:]) / 1000)
            status = 1 if a.fault == "garbage" else 0
            answer = bytes([0x7E, 0x7E, 0x20, att, status, (0x20 + att + status) & 0xFF])
            if status == 0:
                reply = vboard_atten(a.vboard_control, att)
                log_event(a.log, device="idf-serial", event="set", att=att, vboard=reply)
            os.write(master, answer)


if __name__ == "__main__":
    main()
