#!/usr/bin/env python3
"""A double of a Mini-Circuits Ethernet programmable attenuator (RCDAT
series) on 127.0.0.1: HTTP and Telnet, the commands of Mini-Circuits'
"Programmable Attenuators Programming Manual" (also what Google Mobly's
attenuator_lib/minicircuits.py sends):

  MN?                   MN=<model>            (the model's last field is its maximum, dB)
  SN?                   SN=<serial>
  SETATT=<dB>           1 set; 2 above the maximum, set to the maximum; 0 failed
  ATT?                  the attenuation, "12.25"
  CHAN:1:SETATT:<dB> / CHAN:1:ATT?   the same, addressed to path 1

HTTP: GET /<command> (a unit with a password: /PWD=<password>;<command>),
the answer as the body. Telnet (port 23 on the unit): one command per CR LF
line, the answer and CR LF. Values are set in the unit's 0.25 dB steps.

Faults (--fault): busy:N (the first N requests are held without an answer
while the unit is busy with another client: the client's deadline runs
out), silent (nothing is ever answered). Every value set goes to the
virtual board (--vboard-control)."""
import argparse
import os
import re
import socket
import socketserver
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dbl_common import log_event, ready, vboard_atten  # noqa: E402


class Unit:
    def __init__(self, a):
        self.a = a
        self.model = a.model
        self.max_db = float(a.model.rsplit("-", 1)[1])
        self.att = 0.0
        self.lock = threading.Lock()
        self.busy = int(a.fault[5:]) if a.fault.startswith("busy:") else 0
        self.password = os.environ.get(a.password_env, "") if a.password_env else ""

    def hold(self):
        """True when this request is not answered (busy or silent)."""
        with self.lock:
            if self.a.fault == "silent":
                return True
            if self.busy > 0:
                self.busy -= 1
                return True
        return False

    def command(self, cmd, via):
        cmd = cmd.strip()
        up = cmd.upper().lstrip(":")
        m = re.fullmatch(r"(?:CHAN:1:)?SETATT[=:](.*)", up)
        if m:
            try:
                v = float(m.group(1))
            except ValueError:
                return "0"
            if v < 0:
                return "0"
            code = "1"
            if v > self.max_db:
                v, code = self.max_db, "2"
            v = round(v * 4) / 4
            with self.lock:
                self.att = v
            reply = vboard_atten(self.a.vboard_control, v)
            log_event(self.a.log, device="minicircuits", via=via, event="set", att=v, code=code, vboard=reply)
            return code
        if re.fullmatch(r"(?:CHAN:1:)?ATT\?", up):
            return "%.2f" % self.att
        if up == "MN?":
            return "MN=" + self.model
        if up == "SN?":
            return "SN=11401010001"
        return ""  # not a command of the manual's list, whose answer it does not give: an empty line


def http_handler(unit):
    class H(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            if unit.hold():
                threading.Event().wait(30)
                return
            path = unquote(self.path.lstrip("/"))
            if unit.password:
                if not path.startswith("PWD=") or path[4:].split(";", 1)[0] != unit.password:
                    body = b"0"  # a command without the right password is not carried out
                    log_event(unit.a.log, device="minicircuits", via="http", event="bad-password")
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                path = path.split(";", 1)[1] if ";" in path else ""
            body = unit.command(path, "http").encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    return H


def telnet_handler(unit):
    class T(socketserver.StreamRequestHandler):
        def handle(self):
            for raw in self.rfile:
                line = raw.decode(errors="replace").strip("\r\n")
                if not line:
                    continue
                if unit.hold():
                    threading.Event().wait(30)
                    return
                self.wfile.write((unit.command(line, "telnet") + "\r\n").encode())
    return T


class TServer(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--http-port", type=int, default=0)
    ap.add_argument("--telnet-port", type=int, default=0)
    ap.add_argument("--model", default="RCDAT-6000-90")
    ap.add_argument("--password-env", help="the unit's password is in this environment variable")
    ap.add_argument("--vboard-control")
    ap.add_argument("--log")
    ap.add_argument("--ready", help="file to write the ports to once listening")
    ap.add_argument("--fault", default="")
    a = ap.parse_args()
    unit = Unit(a)
    httpd = ThreadingHTTPServer(("127.0.0.1", a.http_port), http_handler(unit))
    httpd.daemon_threads = True
    tn = TServer(("127.0.0.1", a.telnet_port), telnet_handler(unit))
    threading.Thread(target=tn.serve_forever, daemon=True).start()
    ready(a.ready, http=httpd.server_address[1], telnet=tn.server_address[1])
    httpd.serve_forever()


if __name__ == "__main__":
    socket.setdefaulttimeout(None)
    main()
