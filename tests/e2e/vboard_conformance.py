# Conformance of espbench-vboard to the real espbench firmware: replays the commands of each
# transcript in tests/fixtures/firmware-real/ (the firmware built with a real ESP-IDF and run in an
# emulator) against the vboard over its pty, as the CLI talks to it, and compares the replies field
# by field. What is compared and what only by shape: docs/vboard.md, "Conformance".
#
# usage: vboard_conformance.py VBOARD WORKDIR FIXTURE...   (exit 1 on any difference, one line each)
import difflib
import os
import re
import select
import subprocess
import sys
import time
import tty

PROMPT = "espbench> "
SENT = re.compile(r"^<<<SENT: (.*)>>>$")
# Lines that are not the firmware's console replies: ESP-IDF log lines (any task may print them at
# any time; hosts ignore them, docs/console-protocol.md), and the stand-ins' own marker lines.
LOG = re.compile(r"^[IWEDV] \(\d+\) ")
STAND_IN = re.compile(r"^\[realbuild-[a-z]+\] ")

# Run-dependent values, compared by shape only: the chip's MAC and revision, heap figures, addresses,
# ports, the AP's RSSI and BSSID, the bytes an iperf interval moved.
IPV4 = r"\d{1,3}(\.\d{1,3}){3}"
SHAPE = {
    "mac": r"[0-9a-f]{2}(:[0-9a-f]{2}){5}",
    "bssid": r"[0-9a-f]{2}(:[0-9a-f]{2}){5}",
    "chip_rev": r"v\d+\.\d+",
    "free_internal": r"\d+", "min_internal": r"\d+", "largest_internal": r"\d+",
    "free_default": r"\d+", "min_default": r"\d+", "min": r"\d+", "free": r"\d+",
    "rssi": r"-?\d+",
    "ip": IPV4, "mask": IPV4, "gw": IPV4,
    "peer": IPV4 + r":\d+",
    "bytes": r"\d+",
}
# Facts the vboard cannot know and so does not report: the ESP-IDF commit an image was built from
# (its descriptor has only the version). Compared by shape where both have them.
OPTIONAL = {"idf_commit": r"[0-9a-f]{7,40}", "sources": r".+"}
SHAPE.update(OPTIONAL)
# Boot log facts of the app compared exactly (the rest of the boot log is the emulator's and the
# bootloader's: not compared).
BOOT_FACTS = [
    ("bootloader ESP-IDF", re.compile(r"boot: ESP-IDF (\S+) 2nd stage bootloader")),
    ("SPI Speed", re.compile(r"SPI Speed\s*: (\S+)")),
    ("cpu freq", re.compile(r"cpu_start: cpu freq: (\d+) Hz")),
    ("Project name", re.compile(r"app_init: Project name:\s+(\S+)")),
    ("App version", re.compile(r"app_init: App version:\s+(\S+)")),
    ("ESP-IDF", re.compile(r"app_init: ESP-IDF:\s+(\S+)")),
]


def parse_eb(text):
    """'#EB:OK k=v ...' -> (kind, [(k, v), ...]); kind is 'OK', 'ERR' or 'EV name'."""
    m = re.match(r"#EB:(OK|ERR|EV)(?: (\S+))?", text)
    kind = m.group(1)
    rest = text[m.end():]
    if kind == "EV":
        kind = "EV " + (m.group(2) or "")
    elif m.group(2):
        rest = " " + m.group(2) + rest
    kv = []
    for km in re.finditer(r' ([a-z0-9_]+)=("(?:[^"\\]|\\.)*"|\S*)', rest):
        kv.append((km.group(1), km.group(2)))
    return kind, kv


def reply_lines(lines, command):
    """The compared lines of a command's segment: (index, text) without prompts, echo and logs."""
    out = []
    echo_seen = command is None
    for idx, raw in lines:
        text = raw.rstrip("\r\n")
        while text.startswith(PROMPT.rstrip()):
            text = text[len(PROMPT.rstrip()):].lstrip(" ")
        if not text or LOG.match(text) or STAND_IN.match(text):
            continue
        if not echo_seen and text == command:
            echo_seen = True
            continue
        out.append((idx, text))
    return out


def load_fixture(path):
    with open(path, encoding="utf-8", newline="") as f:  # raw line ends: numbers as in an editor
        raw = f.read().split("\n")
    header, i = {}, 0
    while raw[i] != "---":
        k, _, v = raw[i].partition(":")
        header[k.strip()] = v.strip()
        i += 1
    body = [(n + 1, raw[n]) for n in range(i + 1, len(raw))]
    boot, segments, cur = [], [], None
    for n, line in body:
        m = SENT.match(line)
        if m:
            cur = (n, m.group(1), [])
            segments.append(cur)
        elif cur is None:
            boot.append((n, line))
        else:
            cur[2].append((n, line))
    return header, boot, segments


class Board:
    def __init__(self, vboard, work, header):
        img = dict(kv.split("=", 1) for kv in header["image"].split())
        self.chip = img["chip"]
        app = os.path.join(work, "app.bin")
        subprocess.run([vboard, "mkimage", "--chip", self.chip, "--project", img["project"], "--idf", img["idf"],
                        "--version", img["version"], "--size", "60000", "-o", app], check=True)
        flash = os.path.join(work, "flash.bin")
        data = open(app, "rb").read()
        buf = bytearray(b"\xff" * (4 << 20))
        buf[0x10000:0x10000 + len(data)] = data
        open(flash, "wb").write(buf)
        args = [vboard, "--flash", flash, "--no-baud-timing", "--no-flash-timing"] + header["vboard"].split()
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        pty = self.proc.stdout.readline().decode().strip()
        if not pty:
            err = self.proc.stderr.read().decode().strip()
            raise SystemExit(f"FAIL: {header.get('fixture', '?')}: espbench-vboard {' '.join(args[1:])}: {err}")
        self.fd = os.open(pty, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        self.buf = ""

    def read(self, until, secs):
        """Reads until until(text) holds or secs pass; returns what was read."""
        end = time.monotonic() + secs
        while not until(self.buf) and time.monotonic() < end:
            r, _, _ = select.select([self.fd], [], [], 0.05)
            if r:
                self.buf += os.read(self.fd, 65536).decode("utf-8", "replace")
        # Whole lines only: a line still arriving stays for the next read (a prompt too, which
        # precedes what follows it on its line).
        cut = self.buf.rfind("\n") + 1
        text, self.buf = self.buf[:cut], self.buf[cut:]
        if os.environ.get("CONFORMANCE_TRACE"):
            print(f"{time.monotonic():.2f} got {text!r}", file=sys.stderr)
        return text

    def send(self, line):
        if os.environ.get("CONFORMANCE_TRACE"):
            print(f"{time.monotonic():.2f} send {line}", file=sys.stderr)
        os.write(self.fd, (line + "\r\n").encode())

    def close(self):
        os.close(self.fd)
        self.proc.terminate()
        self.proc.wait(timeout=10)


def lines_of(text):
    return [(None, x) for x in text.replace("\r\n", "\n").split("\n")]


def iperf_seconds(command):
    m = re.search(r"-t\s+(\d+(\.\d+)?)", command)
    return float(m.group(1)) if m else 10.0


def line_key(text):
    """What aligns a fixture line with a vboard line: the #EB: kind, or the text without numbers."""
    return parse_eb(text)[0] if text.startswith("#EB:") else re.sub(r"\d+", "N", text)


def compare(name, where, command, want, got, fails):
    """want: [(line, text)] from the fixture; got: [text] from the vboard."""
    label = "boot" if command is None else command
    sm = difflib.SequenceMatcher(None, [line_key(t) for _, t in want], [line_key(t) for t in got], autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal" or (op == "replace" and i2 - i1 == j2 - j1 and
                             all(want[i][1].startswith("#EB:") for i in range(i1, i2))):
            for i, j in zip(range(i1, i2), range(j1, j2)):
                compare_line(name, want[i][0], label, want[i][1], got[j], fails)
            continue
        for i in range(i1, i2):
            fails.append(f"{name}:{want[i][0]}: {label}: the vboard does not send {want[i][1]!r}")
        line = want[i1][0] if i1 < len(want) else (want[-1][0] if want else where)
        for j in range(j1, j2):
            fails.append(f"{name}:{line}: {label}: the vboard sends a line the firmware does not: {got[j]!r}")


def compare_line(name, line, label, wt, gt, fails):
    """One fixture line against the vboard's: #EB: lines field by field."""
    if not wt.startswith("#EB:"):
        return  # text for people (heap, free, help): aligned by line_key, numbers are run-dependent
    wk, wkv = parse_eb(wt)
    gk, gkv = parse_eb(gt)
    if wk != gk:
        fails.append(f"{name}:{line}: {label}: #EB:{wk}, vboard #EB:{gk}")
        return
    gd = dict(gkv)
    for key, val in wkv:
        if key not in gd and key in OPTIONAL:
            continue
        if key not in gd:
            fails.append(f"{name}:{line}: {label}: field {key}: firmware {val}, vboard has none")
        elif key in SHAPE:
            if not re.fullmatch(SHAPE[key], gd[key]):
                fails.append(f"{name}:{line}: {label}: field {key}: vboard {gd[key]} is not shaped {SHAPE[key]}")
        elif gd[key] != val:
            fails.append(f"{name}:{line}: {label}: field {key}: firmware {val}, vboard {gd[key]}")
    wkeys = [k for k, _ in wkv]
    for key, val in gkv:
        if key not in wkeys:
            fails.append(f"{name}:{line}: {label}: field {key}: vboard {val}, firmware has none")
    if [k for k, _ in gkv if k in wkeys] != wkeys and all(k in gd for k in wkeys):
        fails.append(f"{name}:{line}: {label}: field order {' '.join(wkeys)}, vboard {' '.join(k for k, _ in gkv)}")


def boot_facts(lines):
    facts = {}
    for n, text in lines:
        for fact, rx in BOOT_FACTS:
            m = rx.search(text)
            if m and fact not in facts:
                facts[fact] = (n, m.group(1))
    return facts


def run_fixture(vboard, work, path, fails):
    name = os.path.basename(path)
    header, boot, segments = load_fixture(path)
    board = Board(vboard, work, header)
    try:
        has_prompt = any(PROMPT.rstrip() in t for _, t in boot)
        got_boot = board.read(lambda t: PROMPT in t if has_prompt else "#EB:EV boot" in t, 15)
        if not has_prompt:
            got_boot += board.read(lambda t: PROMPT in t, 2)
        gb = lines_of(got_boot)
        want_facts, got_facts = boot_facts(boot), boot_facts(gb)
        for fact, (n, val) in want_facts.items():
            g = got_facts.get(fact, (None, None))[1]
            if g != val:
                fails.append(f"{name}:{n}: boot: {fact}: firmware {val}, vboard {g}")
        # From the boot event on: the firmware's own lines up to its first prompt.
        def after_boot(lines):
            out, on = [], False
            for n, t in lines:
                on = on or "#EB:EV boot" in t
                if on:
                    out.append((n, t))
                if on and PROMPT.rstrip() in t:
                    break
            return out
        wb = reply_lines(after_boot(boot), None)
        if not has_prompt:  # the fixture ends before the prompt: only the boot event is known
            wb = wb[:1]
        gbl = [t for _, t in reply_lines(after_boot(gb), None)][:len(wb) if not has_prompt else None]
        compare(name, boot[-1][0] if boot else 1, None, wb, gbl, fails)
        replay(name, header, board, segments, fails)
    finally:
        board.close()


# Events the firmware prints from other tasks whenever they happen (docs/console-protocol.md): they
# are compared as one sequence per fixture, apart from each command's own reply lines.
ASYNC = re.compile(r"^#EB:EV (iperf\.(connected|interval|summary|done)|eth\.\S+|wifi\.disconnected)( |$)")


def split_async(lines, key=lambda x: x):
    sync = [x for x in lines if not ASYNC.match(key(x))]
    return sync, [x for x in lines if ASYNC.match(key(x))]


def iperf_args(command):
    """The iperf options of a command as a dict ('-s': True, '-p': '5001', ...), or None."""
    words = command.split()
    if not words or words[0] != "iperf":
        return None
    out, k = {}, 1
    while k < len(words):
        w = words[k]
        if w in ("-c", "-p", "-t", "-i", "-b", "-l", "-f") and k + 1 < len(words):
            out[w] = words[k + 1]
            k += 2
        else:
            out[w] = True
            k += 1
    return out


class Peers:
    """The host's iperf2 processes: servers for the board's clients, clients for its servers."""
    def __init__(self):
        self.procs = []

    def start(self, args):
        self.procs.append(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def close(self):
        for p in self.procs:
            p.kill()
            p.wait()


def replied(text, n_status):
    """The reply is complete: its status lines came, then the next prompt (events may follow it)."""
    ends = [m.end() for m in re.finditer(r"#EB:(?:OK|ERR)[^\n]*\n", text)]
    return len(ends) >= n_status and PROMPT in text[ends[-1] if ends else 0:]


def replay(name, header, board, segments, fails):
    hosts = dict(kv.split("=", 1) for kv in header.get("vboard-hosts", "").split())
    opts = header["vboard"].split()
    board_ip = opts[opts.index("--ip") + 1] if "--ip" in opts else "127.0.0.1"

    def mapped(command):
        return " ".join(hosts.get(w, w) for w in command.split())
    peers = Peers()
    try:
        servers = set()
        for _, command, _ in segments:
            a = iperf_args(mapped(command))
            if a and isinstance(a.get("-c"), str) and "-s" not in a and (a["-c"], a.get("-p", "5001"), "-u" in a) not in servers:
                servers.add((a["-c"], a.get("-p", "5001"), "-u" in a))
                peers.start(["iperf", "-s", "-B", a["-c"], "-p", a.get("-p", "5001")] + (["-u"] if "-u" in a else []))
        time.sleep(0.3 if servers else 0)
        want_async, got_async, done_want = [], [], 0

        def dones(lines):
            return sum(1 for x in lines if x.startswith("#EB:EV iperf.done"))

        def take(text, command):
            got_sync, got_ev = split_async([x for _, x in reply_lines(lines_of(text), command)])
            got_async.extend(got_ev)
            return got_sync

        for where, command, seg in segments:
            sync_want, async_want = split_async(reply_lines(seg, command), key=lambda x: x[1])
            # What the real board had printed from its other tasks before this command (a run's
            # intervals, its end), the vboard prints first too.
            if len(got_async) < len(want_async):
                extra = take(board.read(lambda t: len(got_async) + len(split_async(  # whole lines only
                    [x for _, x in reply_lines(lines_of(t[:t.rfind("\n") + 1]), None)])[1]) >= len(want_async),
                    30), None)
                for x in extra:
                    fails.append(f"{name}:{where}: before {command}: the vboard sends {x!r}")
            n_status = sum(1 for _, t in sync_want if t.startswith(("#EB:OK", "#EB:ERR")))
            board.send(mapped(command))
            text = board.read(lambda t: replied(t, n_status), 8)
            a = iperf_args(mapped(command))
            if a and "-s" in a and any(t.startswith("#EB:OK") for _, t in sync_want):
                secs = float(a.get("-t", "10")) + 2
                # the board's server may listen a moment after its #EB:OK: TCP retries its connect
                peers.start(["iperf", "-c", board_ip, "-p", a.get("-p", "5001"), "-i", "1", "-t", str(secs)] +
                            (["-u", "-b", "2M"] if "-u" in a else ["--connect-retries", "20"]))
            text += board.read(lambda t: False, 0.3)  # anything more it sends
            compare(name, where, command, sync_want, take(text, mapped(command)), fails)
            want_async.extend(async_want)
            done_want += dones(t for _, t in async_want)
        if dones(got_async) < done_want:
            take(board.read(lambda t: dones(got_async) + t.count("#EB:EV iperf.done") >= done_want, 30), None)
        take(board.read(lambda t: False, 0.3), None)
        if want_async or got_async:
            compare(name, segments[-1][0] if segments else 1, "events", want_async, got_async, fails)
    finally:
        peers.close()


def main():
    vboard, work, fixtures = sys.argv[1], sys.argv[2], sys.argv[3:]
    fails = []
    for path in fixtures:
        run_fixture(vboard, work, path, fails)
    for f in fails:
        print("FAIL: " + f)
    print(f"{len(fixtures)} fixtures, {len(fails)} differences")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
