"""Shared pieces of the benchmark suite: figure records, child processes with
deadlines, a virtual board started by hand, and a raw serial line on its pty.

Every figure is a dict written to results.json as is:
  id, section, name, value, unit, target {op, value, text}, status, reason, details
status is "pass", "falls short", "not measured" (with reason) or "reported"
(a figure the issue asks for without a target)."""
import os
import re
import select
import signal
import socket
import statistics
import subprocess
import termios
import time
import tty

OPS = {
    "<=": lambda v, t: v <= t,
    "<": lambda v, t: v < t,
    ">=": lambda v, t: v >= t,
}


def target(op, value, text):
    return {"op": op, "value": value, "text": text}


def figure(fid, section, name, value, unit, tgt, details=None):
    """A measured figure, marked against its target (tgt None: reported only)."""
    status = "reported"
    if tgt is not None:
        status = "pass" if OPS[tgt["op"]](value, tgt["value"]) else "falls short"
    return {"id": fid, "section": section, "name": name, "value": value, "unit": unit,
            "target": tgt, "status": status, "reason": "", "details": details or {}}


def not_measured(fid, section, name, unit, tgt, reason, details=None):
    return {"id": fid, "section": section, "name": name, "value": None, "unit": unit,
            "target": tgt, "status": "not measured", "reason": reason, "details": details or {}}


def median(xs):
    return statistics.median(xs) if xs else None


class Proc:
    """Result of a finished child: rc, stdout/stderr text, wall and CPU seconds."""

    def __init__(self, rc, out, err, wall, cpu):
        self.rc, self.out, self.err, self.wall, self.cpu = rc, out, err, wall, cpu

    def tail(self, n=3):
        text = (self.err or "").strip() or (self.out or "").strip()
        lines = [l for l in text.splitlines() if l.strip()]
        return " | ".join(lines[-n:]) if lines else "(no output)"


def run(args, timeout, env=None, cwd=None, stdout_path=None):
    """Runs a child in its own process group with a deadline; the whole group
    is killed on timeout. Returns Proc (rc -9 on timeout; cpu None)."""
    t0 = time.monotonic()
    out_f = open(stdout_path, "wb") if stdout_path else subprocess.PIPE
    try:
        p = subprocess.Popen(args, stdout=out_f, stderr=subprocess.PIPE, env=env, cwd=cwd,
                             start_new_session=True)
    finally:
        if stdout_path:
            out_f.close()
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(p)
        out, err = p.communicate()
        return Proc(-9, dec(out), dec(err) + "\n(killed after %g s)" % timeout, time.monotonic() - t0, None)
    return Proc(p.returncode, dec(out), dec(err), time.monotonic() - t0, None)


def run_timed_cpu(args, timeout, env=None):
    """Like run() but measures the child's own CPU seconds with wait4."""
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                         start_new_session=True)
    deadline = t0 + timeout
    err_chunks = []
    rusage = None
    while True:
        r, _, _ = select.select([p.stderr], [], [], 0.2)
        if r:
            chunk = os.read(p.stderr.fileno(), 65536)
            if chunk:
                err_chunks.append(chunk)
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid == p.pid:
            rusage = ru
            rc = os.waitstatus_to_exitcode(status)
            p.returncode = rc
            break
        if time.monotonic() > deadline:
            kill_group(p)
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = -9
            return Proc(-9, "", dec(b"".join(err_chunks)) + "\n(killed after %g s)" % timeout,
                        time.monotonic() - t0, None)
    wall = time.monotonic() - t0
    rest = p.stderr.read()
    if rest:
        err_chunks.append(rest)
    p.stderr.close()
    return Proc(rc, "", dec(b"".join(err_chunks)), wall, rusage.ru_utime + rusage.ru_stime)


def kill_group(p):
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        p.wait(timeout=3)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()


def dec(b):
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else (b or "")


def free_loopback_ip(salt):
    """A 127.X.Y.Z no listening or connected socket uses (from /proc/net)."""
    used = set()
    for path in ("/proc/net/tcp", "/proc/net/udp"):
        try:
            with open(path) as f:
                for line in f.readlines()[1:]:
                    parts = line.split()
                    for addr in parts[1:3]:
                        used.add(addr.split(":")[0])
        except OSError:
            pass
    seed = (os.getpid() * 7919 + salt * 104729) & 0xFFFFFF
    for i in range(4096):
        v = (seed + i * 2654435761) & 0xFFFFFF
        x, y, z = (v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF
        if x in (0, 255) or z in (0, 255):
            continue
        hexaddr = "%02X%02X%02X7F" % (z, y, x)  # /proc/net is little-endian
        if hexaddr not in used:
            return "127.%d.%d.%d" % (x, y, z)
    raise RuntimeError("no free 127.X.Y.Z address")


class Vboard:
    """An espbench-vboard started by the benchmark (not through `run --sim`),
    with a control socket. Stopped with SIGTERM (then SIGKILL) and reaped."""

    def __init__(self, ctx, workdir, chip="esp32", flash=None, baud_timing=True, ip=None, aps=(), env=None,
                 extra=()):
        self.dir = workdir
        os.makedirs(workdir, exist_ok=True)
        self.link = os.path.join(workdir, "tty")
        self.ctl_path = os.path.join(workdir, "ctl")
        self.flash = flash or os.path.join(workdir, "flash.bin")
        args = [ctx.vboard, "--chip", chip, "--flash", self.flash, "--link", self.link, "--control",
                self.ctl_path, "--baud-timing" if baud_timing else "--no-baud-timing"]
        if ip:
            args += ["--ip", ip]
        for ap in aps:
            args += ["--ap", ap]
        args += list(extra)
        self.log = open(os.path.join(workdir, "vboard.log"), "wb")
        self.p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, env=env, start_new_session=True)
        self.pty = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.p.stdout], [], [], 0.1)
            if r:
                line = self.p.stdout.readline().decode().strip()
                if line:
                    self.pty = line
                    break
            if self.p.poll() is not None:
                break
        while self.pty and time.monotonic() < deadline and not os.path.exists(self.ctl_path):
            time.sleep(0.02)
        if not self.pty or not os.path.exists(self.ctl_path):
            self.stop()
            raise RuntimeError("espbench-vboard did not start: " + self.log_tail())

    def log_tail(self):
        try:
            with open(os.path.join(self.dir, "vboard.log"), "rb") as f:
                lines = dec(f.read()).strip().splitlines()
            return " | ".join(lines[-3:]) or "(no output)"
        except OSError:
            return "(no log)"

    def ctl(self, cmd, timeout=5):
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(timeout)
        try:
            s.connect(self.ctl_path)
            s.sendall(cmd.encode() + b"\n")
            buf = b""
            while not buf.endswith(b"\n"):
                chunk = s.recv(1024)
                if not chunk:
                    break
                buf += chunk
            return buf.decode().strip()
        finally:
            s.close()

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        if self.p.stdout:
            self.p.stdout.close()
        self.log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


BAUD_CONST = {115200: termios.B115200, 921600: getattr(termios, "B921600", termios.B115200)}


class Serial:
    """The host end of a pty, raw, at a termios speed (the vboard paces its
    output at that speed). Every read takes a deadline."""

    def __init__(self, path, baud=115200):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd)
        a = termios.tcgetattr(self.fd)
        a[4] = a[5] = BAUD_CONST[baud]
        termios.tcsetattr(self.fd, termios.TCSANOW, a)
        self.buf = b""

    def write(self, data):
        view = memoryview(data)
        deadline = time.monotonic() + 5
        while view:
            try:
                n = os.write(self.fd, view)
                view = view[n:]
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise RuntimeError("serial write timed out")
                select.select([], [self.fd], [], 0.05)

    def drain_input(self, quiet_s=0.2, max_s=3):
        """Reads and drops input until the line is quiet for quiet_s."""
        end = time.monotonic() + max_s
        last = time.monotonic()
        while time.monotonic() < end and time.monotonic() - last < quiet_s:
            r, _, _ = select.select([self.fd], [], [], 0.02)
            if r:
                try:
                    if os.read(self.fd, 65536):
                        last = time.monotonic()
                except BlockingIOError:
                    pass
        self.buf = b""

    def read_until(self, pattern, timeout):
        """Waits for a regex (bytes) in the input; returns the text up to and
        including the match. Raises RuntimeError on the deadline."""
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        while True:
            m = rx.search(self.buf)
            if m:
                got, self.buf = self.buf[:m.end()], self.buf[m.end():]
                return got
            left = end - time.monotonic()
            if left <= 0:
                raise RuntimeError("no %r within %g s (last bytes: %r)" % (pattern, timeout, self.buf[-120:]))
            r, _, _ = select.select([self.fd], [], [], min(left, 0.05))
            if r:
                try:
                    self.buf += os.read(self.fd, 65536)
                except BlockingIOError:
                    pass

    def close(self):
        os.close(self.fd)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
