#!/usr/bin/env python3
"""A double of a Tasmota power switch's web command interface on
127.0.0.1 (Tasmota documentation, "Commands": over HTTP as
/cm?cmnd=<command>, with user=<user>&password=<password> when a web
password is set):

  Power<N> On|Off|Toggle|(none)   {"POWER<N>":"ON"} ({"POWER":"ON"} on a one-relay device)
  an unknown command              {"Command":"Unknown"}
  a wrong or missing password     {"WARNING":"Need user=<username>&password=<password>"}

--fault stuck:N: relay N stays as it is whatever the command (a welded
contact); every answer reports its real state.

The relays' states go to --state (JSON) for the AP doubles it powers; each
change is logged (--log)."""
import argparse
import json
import os
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dbl_common import log_event, ready, write_power  # noqa: E402


def handler(a, relays, lock):
    password = os.environ.get(a.password_env, "") if a.password_env else ""

    class H(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, obj):
            body = json.dumps(obj, separators=(",", ":")).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            u = urlparse(self.path)
            q = parse_qs(u.query)
            if u.path != "/cm":
                self.send_error(404)
                return
            if password and (q.get("user", [""])[0] != "admin" or q.get("password", [""])[0] != password):
                log_event(a.log, device="tasmota", event="refused")
                return self.reply({"WARNING": "Need user=<username>&password=<password>"})
            m = re.fullmatch(r"power(\d*)(?:\s+(on|off|toggle|1|0))?", q.get("cmnd", [""])[0].strip(), re.I)
            n = int(m.group(1) or 1) if m else 0
            if not m or n < 1 or n > a.relays:
                return self.reply({"Command": "Unknown"})
            with lock:
                act = (m.group(2) or "").lower()
                if a.fault == "stuck:%d" % n:
                    pass
                elif act in ("on", "1"):
                    relays[n] = True
                elif act in ("off", "0"):
                    relays[n] = False
                elif act == "toggle":
                    relays[n] = not relays[n]
                if act:
                    write_power(a.state, relays)
                    log_event(a.log, device="tasmota", event="outlet", outlet=n, on=relays[n])
                key = "POWER" if a.relays == 1 else "POWER%d" % n
                self.reply({key: "ON" if relays[n] else "OFF"})
    return H


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--relays", type=int, default=4)
    p.add_argument("--password-env")
    p.add_argument("--state")
    p.add_argument("--fault", default="", help="stuck:N")
    p.add_argument("--log")
    p.add_argument("--ready")
    a = p.parse_args()
    relays = {i: False for i in range(1, a.relays + 1)}
    write_power(a.state, relays)
    httpd = ThreadingHTTPServer(("127.0.0.1", a.port), handler(a, relays, threading.Lock()))
    httpd.daemon_threads = True
    ready(a.ready, http=httpd.server_address[1])
    httpd.serve_forever()


if __name__ == "__main__":
    main()
