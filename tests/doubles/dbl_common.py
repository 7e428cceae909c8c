"""Shared by the lab instrument doubles (tests/doubles/*.py): telling the
virtual board the attenuation (its control socket, docs/vboard.md "atten"),
the power state file the power-switch doubles write and the AP doubles
read, and the event log every double appends to (one JSON object a line)."""
import json
import os
import socket
import time


def vboard_atten(control, db):
    """'atten DB' to espbench-vboard's control socket; its reply line."""
    if not control:
        return ""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(control)
    s.sendall(("atten %g\n" % db).encode())
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = s.recv(512)
        if not chunk:
            break
        reply += chunk
    s.close()
    return reply.decode().strip()


def log_event(path, **event):
    if not path:
        return
    event["t"] = round(time.time(), 3)
    with open(path, "a") as f:
        f.write(json.dumps(event, sort_keys=True) + "\n")


def write_power(path, outlets):
    """The outlets' states, written whole (rename) so a reader never sees half."""
    if not path:
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({str(k): v for k, v in outlets.items()}, f)
    os.replace(tmp, path)


def powered(path, outlet):
    """Whether the outlet feeding this device is on (no file: always on)."""
    if not path:
        return True
    try:
        with open(path) as f:
            return bool(json.load(f).get(str(outlet), False))
    except (OSError, ValueError):
        return False


def ready(path, **info):
    """Writes the ports a double listens on, for the test that started it."""
    if path:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(info, f)
        os.replace(tmp, path)
