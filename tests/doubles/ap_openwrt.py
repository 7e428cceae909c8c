#!/usr/bin/env python3
"""A double of an OpenWrt access point's JSON-RPC over HTTP on 127.0.0.1
(uhttpd-mod-ubus at POST /ubus, rpcd's session and uci objects, netifd's
network object; OpenWrt's "ubus" and "rpcd" documentation):

  session.login {username, password}  -> [0, {"ubus_rpc_session": SID, "timeout": 300, ...}]
                                          a wrong user or password: [6] (UBUS_STATUS_PERMISSION_DENIED)
  uci.set {config, section, values}    -> [0]  (staged, as uci set)
  uci.get {config, section}            -> [0, {"values": {...}}]  (committed and staged values)
  uci.commit {config}                  -> [0]
  network.reload {}                    -> [0]  (what `wifi reload` runs: the radio restarts with the
                                                committed wireless configuration)
  network.wireless.status {}           -> [0, {"radio0": {"up": true, "pending": false, "autostart": true,
                                                "disabled": false, "config": {...}, "interfaces": [...]}}]
                                                (netifd wireless.c: what the radio runs since the last reload)

A call under an unknown or expired session answers the JSON-RPC error
-32002 "Access denied"; an unknown object -32000 "Object not found", an
unknown method -32601 "Method not found"; a section that does not exist
[4] (UBUS_STATUS_NOT_FOUND); a body that is not JSON -32700 "Parse error".

Power: with --power-state FILE --outlet N the AP answers only while the
power switch double says its outlet is on; unpowered, a connection is
closed without a word (nothing on the other end).
--expire-after N: the session expires after N calls (to test re-login).
--fault down:CH: a reload onto channel CH leaves the radio down (netifd
says up: false, as when the driver refuses the channel); the next reload
onto another channel brings it up.
Each reload is logged (--log) with the radio's settings."""
import argparse
import json
import os
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dbl_common import log_event, powered, ready  # noqa: E402


class AP:
    def __init__(self, a):
        self.a = a
        self.password = os.environ.get(a.password_env, "")
        self.committed = {"radio0": {".type": "wifi-device", "type": "mac80211", "band": "2g", "channel": "1",
                                     "htmode": "HT20", "txpower": "20"}}
        self.staged = {}
        self.running = {k: dict(v) for k, v in self.committed.items()}
        self.up = True
        self.sessions = {}
        self.lock = threading.Lock()

    def call(self, sid, obj, method, args):
        if obj == "session" and method == "login":
            if args.get("username") != "root" or args.get("password") != self.password:
                log_event(self.a.log, device="openwrt", name=self.a.name, event="login-refused")
                return [6]
            sid = secrets.token_hex(16)
            self.sessions[sid] = 0
            return [0, {"ubus_rpc_session": sid, "timeout": 300, "expires": 300,
                        "acls": {"ubus": {"*": ["*"]}, "uci": {"*": ["read", "write"]}},
                        "data": {"username": "root"}}]
        if sid not in self.sessions:
            return {"code": -32002, "message": "Access denied"}
        self.sessions[sid] += 1
        if self.a.expire_after and self.sessions[sid] > self.a.expire_after:
            del self.sessions[sid]
            return {"code": -32002, "message": "Access denied"}
        if obj == "uci":
            return self.uci(method, args)
        if obj == "network":
            if method != "reload":
                return {"code": -32601, "message": "Method not found"}
            self.running = {k: dict(v) for k, v in self.committed.items()}
            fault = self.a.fault or ""
            self.up = not (fault.startswith("down:") and self.running["radio0"].get("channel") == fault[5:])
            log_event(self.a.log, device="openwrt", name=self.a.name, event="reload",
                      radio=self.committed.get("radio0"), up=self.up)
            return [0]
        if obj == "network.wireless":
            if method != "status":
                return {"code": -32601, "message": "Method not found"}
            out = {}
            for sec, conf in self.running.items():
                cfg = {k: v for k, v in conf.items() if not k.startswith(".") and k != "type"}
                if "txpower" in cfg:
                    cfg["txpower"] = int(cfg["txpower"])  # netifd's schema: an int
                out[sec] = {"up": self.up, "pending": False, "autostart": True, "disabled": False,
                            "config": cfg, "interfaces": [{"section": "default_" + sec, "ifname": "wlan0",
                                                           "config": {"mode": "ap", "ssid": "bench-ap"}}]}
            return [0, out]
        return {"code": -32000, "message": "Object not found"}

    def uci(self, method, args):
        if args.get("config") != "wireless":
            return [4]
        sec = args.get("section")
        if method == "set":
            if sec not in self.committed or not isinstance(args.get("values"), dict):
                return [4] if sec not in self.committed else [2]
            self.staged.setdefault(sec, {}).update({k: str(v) for k, v in args["values"].items()})
            return [0]
        if method == "get":
            if sec not in self.committed:
                return [4]
            v = dict(self.committed[sec])
            v.update(self.staged.get(sec, {}))
            v.update({".name": sec, ".anonymous": False})
            return [0, {"values": v}]
        if method == "commit":
            for s, vals in self.staged.items():
                self.committed[s].update(vals)
            self.staged = {}
            return [0]
        return {"code": -32601, "message": "Method not found"}


def handler(ap):
    class H(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            if not powered(ap.a.power_state, ap.a.outlet):
                self.close_connection = True
                self.connection.close()
                return
            n = int(self.headers.get("Content-Length", "0"))
            raw = self.rfile.read(n)
            try:
                req = json.loads(raw)
                sid, obj, method, args = req["params"]
                rid = req.get("id")
                with ap.lock:
                    res = ap.call(sid, obj, method, args)
            except (ValueError, KeyError, TypeError):
                rid, res = None, {"code": -32700, "message": "Parse error"}
            out = {"jsonrpc": "2.0", "id": rid}
            if isinstance(res, dict):
                out["error"] = res
            else:
                out["result"] = res
            body = json.dumps(out).encode()
            self.send_response(200 if self.path == "/ubus" else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    return H


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--name", default="ap")
    p.add_argument("--password-env", required=True)
    p.add_argument("--power-state")
    p.add_argument("--outlet", type=int, default=0)
    p.add_argument("--expire-after", type=int, default=0)
    p.add_argument("--fault", help="down:CH")
    p.add_argument("--log")
    p.add_argument("--ready")
    a = p.parse_args()
    ap = AP(a)
    httpd = ThreadingHTTPServer(("127.0.0.1", a.port), handler(ap))
    httpd.daemon_threads = True
    ready(a.ready, http=httpd.server_address[1])
    httpd.serve_forever()


if __name__ == "__main__":
    main()
