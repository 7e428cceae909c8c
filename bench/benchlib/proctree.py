"""Process-tree helpers for the robustness sections: the live descendants of
a process (from /proc, identified by pid and start time so a reused pid is
not mistaken for a survivor), and whether any of them outlived it."""
import os
import time


def _stat(pid):
    """(ppid, starttime, comm) of pid, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
    except OSError:
        return None
    r = s.rfind(")")
    comm = s[s.find("(") + 1:r]
    fields = s[r + 2:].split()
    if fields[0] == "Z":  # a zombie is dead; its parent has not reaped it yet
        return None
    return int(fields[1]), int(fields[19]), comm


def descendants(root):
    """{(pid, starttime): comm} of every live descendant of root."""
    children = {}
    info = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        st = _stat(int(name))
        if st:
            children.setdefault(st[0], []).append(int(name))
            info[int(name)] = st
    out, todo = {}, [root]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out[(c, info[c][1])] = info[c][2]
            todo.append(c)
    return out


def alive(procs):
    """The subset of descendants() results still running (same pid and start)."""
    left = {}
    for (pid, start), comm in procs.items():
        st = _stat(pid)
        if st and st[1] == start:
            left[(pid, start)] = comm
    return left


def wait_gone(procs, timeout):
    """Waits up to timeout s for procs to end; returns those still alive."""
    end = time.monotonic() + timeout
    left = alive(procs)
    while left and time.monotonic() < end:
        time.sleep(0.05)
        left = alive(left)
    return left


def kill_all(procs):
    import signal
    for (pid, _), _ in alive(procs).items():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
