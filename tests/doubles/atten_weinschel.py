#!/usr/bin/env python3
"""A double of an Aeroflex/Weinschel 8320-series attenuator unit over Telnet
on 127.0.0.1, the commands of Weinschel's IM-608 ("Models 8320 & 8321") as
the Android ACTS attenuator_lib/aeroflex driver sends them: one command per
CR LF line, every answer followed by the ">" prompt.

  *CLS                  (clears the status; the prompt only)
  RFCONFIG? CHAN        the number of attenuation paths
  RFCONFIG? ATTN N      "MODEL, MAX_DB, STEP_DB, ..." of path N (ACTS reads the
                        first three fields; the others are not described there:
                        the double answers 0 for them)
  ATTN N DB             sets path N (the prompt only); a value above the
                        maximum, off the step or a path that does not exist:
                        "ERR" before the prompt (the manual's error text is
                        not in the sources: the driver treats any text as a refusal)
  ATTN? N               the attenuation of path N

Every value set on path 1 goes to the virtual board (--vboard-control)."""
import argparse
import os
import socketserver
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dbl_common import log_event, ready, vboard_atten  # noqa: E402

MAX_DB, STEP, PATHS = 95.0, 0.25, 2
LOCK = threading.Lock()
ATT = {n: 0.0 for n in range(1, PATHS + 1)}


class Unit(socketserver.StreamRequestHandler):
    def answer(self, text):
        self.wfile.write(((text + "\r\n") if text else "").encode() + b">")

    def handle(self):
        a = self.server.args
        for raw in self.rfile:
            w = raw.decode(errors="replace").strip().split()
            if not w:
                continue
            cmd = w[0].upper()
            if cmd == "*CLS":
                self.answer("")
            elif cmd == "RFCONFIG?" and w[1:] == ["CHAN"]:
                self.answer(str(PATHS))
            elif cmd == "RFCONFIG?" and len(w) == 3 and w[1] == "ATTN" and w[2].isdigit() and int(w[2]) in ATT:
                self.answer("8320, %.2f, %.2f, 0, 0, 0" % (MAX_DB, STEP))
            elif cmd == "ATTN" and len(w) == 3 and w[1].isdigit() and int(w[1]) in ATT:
                try:
                    v = float(w[2])
                except ValueError:
                    v = -1
                if not 0 <= v <= MAX_DB or abs(v / STEP - round(v / STEP)) > 1e-9:
                    self.answer("ERR")
                    continue
                with LOCK:
                    ATT[int(w[1])] = v
                reply = vboard_atten(a.vboard_control, v) if int(w[1]) == 1 else ""
                log_event(a.log, device="weinschel", event="set", unit_path=int(w[1]), att=v, vboard=reply)
                self.answer("")
            elif cmd == "ATTN?" and len(w) == 2 and w[1].isdigit() and int(w[1]) in ATT:
                self.answer("%.2f" % ATT[int(w[1])])
            else:
                self.answer("ERR")


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--vboard-control")
    p.add_argument("--log")
    p.add_argument("--ready")
    a = p.parse_args()
    srv = Server(("127.0.0.1", a.port), Unit)
    srv.args = a
    ready(a.ready, telnet=srv.server_address[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
