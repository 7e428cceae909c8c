#!/usr/bin/env python3
"""A double of an APC Switched Rack PDU's Telnet control console on
127.0.0.1, the menus ESP-IDF's shield-box test walks (esp-idf
tools/ci/python_packages/idf_iperf_test_util/PowerControl.py) as the APC
Switched Rack PDU User's Guide lays them out ("Control Console"):

  User Name : / Password  :          a wrong pair asks for the user name again
  Control Console    1- Device Manager  2- Network  3- System  4- Logout
  Device Manager     1- Phase Management  2- Outlet Management  3- Power Supply Status
  Outlet Management  1- Outlet Control/Configuration  2- Outlet Restriction
  Outlet Control/Configuration   1..8 the outlets with their state, 9- Master Control
  Outlet N           1- Control Outlet  2- Configure Outlet
  Control Outlet     1- Immediate On  2- Immediate Off  3- Immediate Reboot ... 7- Cancel
  then "Enter 'YES' to continue or <ENTER> to cancel : ", "Command successfully
  issued." and "Press <ENTER> to continue..."

Every menu ends with the line "<ESC>- Back, <ENTER>- Refresh, <CTRL-L>- Event
Log" and the prompt "> "; ESC goes one menu back, a choice that is not in
the menu shows the menu again. On connecting it offers to echo and to
suppress go-ahead (IAC WILL ECHO, IAC WILL SGA), as the card does.

--fault stuck:N: outlet N says "Command successfully issued." but stays as
it is (its menu's State line shows the truth).

The outlets' states are written to --state (JSON) for the AP doubles it
powers, and each change is logged (--log)."""
import argparse
import os
import socketserver
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dbl_common import log_event, ready, write_power  # noqa: E402

FOOT = "\r\n     <ESC>- Back, <ENTER>- Refresh, <CTRL-L>- Event Log\r\n> "
HEADER = ("\r\n\r\nAmerican Power Conversion               Network Management Card AOS      v3.7.3\r\n"
          "(c) Copyright 2009 All Rights Reserved  Rack PDU APP                     v3.7.3\r\n"
          "-------------------------------------------------------------------------------\r\n"
          "Name      : RackPDU                                   User : Administrator\r\n")

LOCK = threading.Lock()
OUTLETS = {i: False for i in range(1, 9)}


def menu(title, items):
    lines = ["\r\n------- %s " % title + "-" * max(3, 60 - len(title)) + "\r\n"]
    lines += ["     %s\r\n" % it for it in items]
    return "".join(lines) + FOOT


class Console(socketserver.StreamRequestHandler):
    def readline(self):
        """One line, CR or CR LF ended, with telnet commands taken out; None at the end."""
        out = bytearray()
        while True:
            c = self.rfile.read(1)
            if not c:
                return None
            b = c[0]
            if b == 255:  # IAC: the client's answer to our offers
                cmd = self.rfile.read(1)
                if cmd and cmd[0] in (251, 252, 253, 254):
                    self.rfile.read(1)
                continue
            if b == 13:
                return out.decode(errors="replace")
            if b in (10, 0):
                continue
            out.append(b)

    def send(self, text):
        self.wfile.write(text.encode())

    def handle(self):
        try:
            self.session()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client left: the session ends

    def session(self):
        a = self.server.args
        self.wfile.write(bytes([255, 251, 1, 255, 251, 3]))
        password = os.environ.get(a.password_env, "")
        while True:
            self.send("\r\nUser Name : ")
            user = self.readline()
            if user is None:
                return
            self.send("\r\nPassword  : ")
            pw = self.readline()
            if pw is None:
                return
            if user == a.user and pw == password:
                break
            log_event(a.log, device="apc", event="login-refused", user=user)
        self.send(HEADER)
        self.main_menu()

    def choose(self, text, valid):
        """Shows a menu until a valid choice; None for ESC (back) or the end."""
        while True:
            self.send(text)
            line = self.readline()
            if line is None or line.startswith("\x1b"):
                return None
            if line.strip() in valid:
                return line.strip()

    def main_menu(self):
        while True:
            c = self.choose(menu("Control Console", ["1- Device Manager", "2- Network", "3- System", "4- Logout"]),
                            {"1", "2", "3", "4"})
            if c is None or c == "4":
                self.send("\r\nBye.\r\n")
                return
            if c == "1":
                self.device_manager()

    def device_manager(self):
        while True:
            c = self.choose(menu("Device Manager", ["1- Phase Management", "2- Outlet Management",
                                                    "3- Power Supply Status"]), {"1", "2", "3"})
            if c is None:
                return
            if c == "2":
                self.outlet_management()

    def outlet_management(self):
        while True:
            c = self.choose(menu("Outlet Management", ["1- Outlet Control/Configuration", "2- Outlet Restriction"]),
                            {"1", "2"})
            if c is None:
                return
            if c == "1":
                self.outlet_list()

    def outlet_list(self):
        while True:
            with LOCK:
                items = ["%d- Outlet %d                 %s" % (i, i, "ON" if OUTLETS[i] else "OFF") for i in OUTLETS]
            c = self.choose(menu("Outlet Control/Configuration", items + ["9- Master Control/Configuration"]),
                            {str(i) for i in range(1, 10)})
            if c is None:
                return
            if c != "9":
                self.outlet(int(c))

    def outlet(self, n):
        while True:
            with LOCK:
                state = "ON" if OUTLETS[n] else "OFF"
            c = self.choose(menu("Outlet %d" % n, ["Name         : Outlet %d" % n, "Outlet       : %d" % n,
                                                   "State        : %s" % state, "", "1- Control Outlet",
                                                   "2- Configure Outlet"]), {"1", "2"})
            if c is None:
                return
            if c == "1":
                self.control(n)

    def control(self, n):
        actions = ["1- Immediate On", "2- Immediate Off", "3- Immediate Reboot", "4- Delayed On",
                   "5- Delayed Off", "6- Delayed Reboot", "7- Cancel"]
        c = self.choose(menu("Control Outlet", actions), {str(i) for i in range(1, 8)})
        if c is None or c not in ("1", "2"):
            return
        on = c == "1"
        self.send("\r\n        -----------------------------------------------------------------------\r\n"
                  "        Immediate %s\r\n" % ("On" if on else "Off") +
                  "        -----------------------------------------------------------------------\r\n\r\n"
                  "        This command will immediately %s the following outlets:\r\n"
                  "             %d Outlet %d\r\n\r\n"
                  "        Enter 'YES' to continue or <ENTER> to cancel : " % (
                      "apply power to" if on else "remove power from", n, n))
        yes = self.readline()
        if yes is None:
            return
        if yes.strip().upper() == "YES":
            a = self.server.args
            with LOCK:
                if a.fault != "stuck:%d" % n:
                    OUTLETS[n] = on
                write_power(a.state, OUTLETS)
            log_event(a.log, device="apc", event="outlet", outlet=n, on=on)
            self.send("\r\n\r\n        Command successfully issued.\r\n")
        self.send("\r\n        Press <ENTER> to continue...")
        self.readline()


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--user", default="apc")
    p.add_argument("--password-env", required=True)
    p.add_argument("--state")
    p.add_argument("--fault", default="", help="stuck:N")
    p.add_argument("--log")
    p.add_argument("--ready")
    a = p.parse_args()
    write_power(a.state, OUTLETS)
    srv = Server(("127.0.0.1", a.port), Console)
    srv.args = a
    ready(a.ready, telnet=srv.server_address[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
