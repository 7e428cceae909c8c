#!/usr/bin/env python3
"""ROM-loader exchange with espbench-vboard over its pty (driven by vboard_rom.sh).

usage: vboard_rom.py PTY CONTROL_SOCKET IMAGE
Checks the invalid-header loop on empty flash, SYNC (8 replies), READ_REG magic,
GET_SECURITY_INFO, the SPI RDID flash-id sequence, error codes, CHANGE_BAUDRATE,
a compressed flash with an injected checksum fault, MD5, the control socket's
reset into the flashed app, SYNC in application mode (ignored), baud mismatch noise,
the ROM's erase time, the flash-write fault, the stub (MEM_* upload, OHAI, 2 status
bytes, raw MD5, SPI_ATTACH, 0xFF) and FLASH_END reboot into download mode."""
import hashlib
import os
import select
import socket
import struct
import sys
import termios
import time
import tty
import zlib

PTY, CTL, IMAGE = sys.argv[1:4]
fd = os.open(PTY, os.O_RDWR | os.O_NOCTTY)
tty.setraw(fd, termios.TCSANOW)  # TCSAFLUSH would drop the boot banner


def set_baud(baud):
    attrs = termios.tcgetattr(fd)
    speed = {115200: termios.B115200, 921600: termios.B921600}[baud]
    attrs[4] = attrs[5] = speed
    termios.tcsetattr(fd, termios.TCSANOW, attrs)


set_baud(115200)
rx = bytearray()
seen = bytearray()  # everything read, the text frames() drops around frames included


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def read_some(timeout):
    r, _, _ = select.select([fd], [], [], timeout)
    if r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            return
        rx.extend(data)
        seen.extend(data)


def wait_text(text, timeout=5.0, count=1):
    end = time.monotonic() + timeout
    while rx.count(text) < count:
        left = end - time.monotonic()
        if left <= 0:
            fail("timed out waiting for %r; got %r" % (text, bytes(rx[-300:])))
        read_some(left)


def control(cmd):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(CTL)
    s.sendall(cmd.encode() + b"\n")
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(512)
        if not chunk:
            break
        data += chunk
    s.close()
    return data.decode().strip()


def slip(pkt):
    return b"\xc0" + pkt.replace(b"\xdb", b"\xdb\xdd").replace(b"\xc0", b"\xdb\xdc") + b"\xc0"


def frames(timeout):
    """Decoded frames from rx, reading until timeout passes with none pending."""
    out = []
    end = time.monotonic() + timeout
    while True:
        while True:
            start = rx.find(b"\xc0")
            if start < 0:
                rx.clear()
                break
            stop = rx.find(b"\xc0", start + 1)
            if stop < 0:
                del rx[:start]
                break
            body = bytes(rx[start + 1:stop])
            del rx[:stop + 1]
            if not body:
                rx[0:0] = b"\xc0"
                continue
            out.append(body.replace(b"\xdb\xdc", b"\xc0").replace(b"\xdb\xdd", b"\xdb"))
        if out or time.monotonic() >= end:
            return out
        read_some(end - time.monotonic())


pending = []


def command(op, data=b"", chk=0, timeout=5.0):
    os.write(fd, slip(struct.pack("<BBHI", 0, op, len(data), chk) + data))
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if not pending:
            pending.extend(frames(end - time.monotonic()))
        while pending:
            f = pending.pop(0)
            if len(f) >= 8 and f[0] == 1 and f[1] == op:
                size, val = struct.unpack("<HI", f[2:8])
                return val, f[8:]
    fail("no response to op 0x%02x" % op)


def expect_ok(op, data=b"", chk=0, nstatus=4, payload=0, timeout=5.0):
    val, body = command(op, data, chk, timeout)
    if len(body) != payload + nstatus:
        fail("op 0x%02x: %d bytes of data, expected %d" % (op, len(body), payload + nstatus))
    if body[payload] != 0:
        fail("op 0x%02x failed: status %s" % (op, body[payload:].hex()))
    return val, body[:payload]


def expect_err(op, data, code, chk=0, stub=False):
    _, body = command(op, data, chk)
    got = (body[0], body[1])
    want = (code, 0) if stub else (1, code)  # the stub puts its code first
    if got != want:
        fail("op 0x%02x: status %r, expected %r" % (op, got, want))


def data_pkt(seq, payload):
    return struct.pack("<IIII", len(payload), seq, 0, 0) + payload


def checksum(payload):
    c = 0xEF
    for b in payload:
        c ^= b
    return c


SYNC = b"\x07\x07\x12\x20" + b"\x55" * 32

# 1. empty flash: the ROM's invalid-header loop, with a watchdog reset after 7 lines
wait_text(b"invalid header: 0xffffffff", count=9)
if b"rst:0x1 (POWERON),boot:0x8 (SPI_FAST_FLASH_BOOT)" not in rx:
    fail("no power-on banner: %r" % bytes(rx[:200]))
if b"rst:0x7 (TG0WDT_SYS_RST)" not in rx:
    fail("no watchdog reset in the invalid-header loop")
print("ok invalid-header loop")

# 2. a SYNC does not reset a running chip (only the DTR/RTS sequence does; the
#    control socket's `download` stands in for it): no banner, no answer
rx.clear()
os.write(fd, slip(struct.pack("<BBHI", 0, 8, len(SYNC), 0) + SYNC))
read_some(0.5)
if b"waiting for download" in rx or b"\xc0\x01\x08" in rx:
    fail("SYNC reset a running chip: %r" % bytes(rx[-200:]))
if control("download") != "ok download":
    fail("control download")
wait_text(b"waiting for download")
if b"boot:0x3 (DOWNLOAD(USB/UART0))" not in rx:
    fail("no download banner: %r" % bytes(rx))
rx.clear()
os.write(fd, slip(struct.pack("<BBHI", 0, 8, len(SYNC), 0) + SYNC))
got = []
end = time.monotonic() + 10.0  # the loop ends at the eighth frame
while len(got) < 8 and time.monotonic() < end:
    got += frames(0.3)
time.sleep(0.2)
got += frames(0.1)
syncs = [f for f in got if f[:2] == b"\x01\x08"]
if len(syncs) != 8 or any(f != bytes.fromhex("010804000707122000000000") for f in syncs):
    fail("SYNC answers: %r" % syncs)
print("ok SYNC ignored by a running chip; download mode by the reset lines; SYNC x8")

# 3. chip detection
val, _ = expect_ok(0x0A, struct.pack("<I", 0x40001000))
if val != 0x00000009:
    fail("magic 0x%08x" % val)
_, info = expect_ok(0x14, payload=20)
if struct.unpack("<I", info[12:16])[0] != 9:
    fail("security info chip id %r" % info.hex())
mac_lo, _ = expect_ok(0x0A, struct.pack("<I", 0x60007044))
mac_hi, _ = expect_ok(0x0A, struct.pack("<I", 0x60007048))
mac = struct.pack(">II", mac_hi, mac_lo)[2:]
if mac[:3] != bytes.fromhex("7cdfa1"):
    fail("MAC %s lacks the Espressif OUI" % mac.hex(":"))
print("ok detect: magic, security info, MAC", mac.hex(":"))

# 4. errors: unknown command (eight frames echoing the previous reply, READ_REG
#    0x0A with its value, status 1, error 0x05), bad length, bad checksum,
#    data before begin
time.sleep(0.1)
frames(0.1)
pending.clear()
os.write(fd, slip(struct.pack("<BBHI", 0, 0x77, 0, 0)))
echo = []
end = time.monotonic() + 10.0  # the loop ends at the eighth frame
while len(echo) < 8 and time.monotonic() < end:
    echo += frames(0.3)
want = b"\x01\x0a\x04\x00" + struct.pack("<I", mac_hi) + b"\x01\x05\x00\x00"
if len(echo) != 8 or any(f != want for f in echo):
    fail("unknown command: %r (expected 8 x %r)" % (echo, want))
expect_err(0x0A, b"\x00\x00", 0x05)
expect_err(0x03, data_pkt(0, b"\xff" * 16), 0x06, chk=checksum(b"\xff" * 16))
print("ok error codes")

# 5. flash id through the SPI user-command registers (esptool's RDID sequence)
base = 0x60002000
for addr, value in ((base + 0x18, 0x80000000 | 0x10000000), (base + 0x20, (7 << 28) | 0x9F),
                    (base + 0x58, 0), (base, 1 << 18)):
    expect_ok(0x09, struct.pack("<IIII", addr, value, 0xFFFFFFFF, 0))
cmd, _ = expect_ok(0x0A, struct.pack("<I", base))
flash_id, _ = expect_ok(0x0A, struct.pack("<I", base + 0x58))
if cmd & (1 << 18) or (flash_id >> 16) & 0xFF != 0x17:
    fail("RDID: cmd 0x%08x id 0x%08x (expected capacity 0x17 = 8 MB)" % (cmd, flash_id))
print("ok flash id 0x%06x" % flash_id)

expect_ok(0x0D, b"\x00" * 8)
expect_ok(0x0B, struct.pack("<IIIIII", 0, 8 << 20, 0x10000, 0x1000, 0x100, 0xFFFF))

# 6a. the host changes only its termios speed: both sides see noise until it
#     goes back (a real UART does not follow the host)
set_baud(921600)
time.sleep(0.05)
os.write(fd, slip(struct.pack("<BBHI", 0, 0x0A, 4, 0) + struct.pack("<I", 0x40001000)))
noise = frames(0.5)
if any(len(f) >= 8 and f[:2] == b"\x01\x0a" for f in noise):
    fail("READ_REG answered across a baud mismatch: %r" % noise)
set_baud(115200)
time.sleep(0.05)
frames(0.2)
pending.clear()
expect_ok(0x0A, struct.pack("<I", 0x40001000))
print("ok a termios-only baud change gives noise")

# 6. CHANGE_BAUDRATE: ack at the old speed, then both sides switch
expect_ok(0x0F, struct.pack("<II", 921600, 0))
set_baud(921600)
time.sleep(0.05)
val, _ = expect_ok(0x0A, struct.pack("<I", 0x40001000))
if val != 9:
    fail("no answer after the baud change")
print("ok baud 921600")

# 6b. the board switched but the host stayed: noise until the host follows
os.write(fd, slip(struct.pack("<BBHI", 0, 0x0A, 4, 0) + struct.pack("<I", 0x40001000)))
set_baud(115200)
time.sleep(0.05)
os.write(fd, slip(struct.pack("<BBHI", 0, 0x0A, 4, 0) + struct.pack("<I", 0x40001000)))
noise = frames(0.5)
if any(len(f) >= 8 and f[:2] == b"\x01\x0a" and len(f) == 12 for f in noise[1:]):
    fail("answered at 921600 to a host at 115200: %r" % noise)
set_baud(921600)
time.sleep(0.05)
frames(0.2)
pending.clear()
expect_ok(0x0A, struct.pack("<I", 0x40001000))
print("ok a host left behind by CHANGE_BAUDRATE gets noise")

# 7. compressed flash with one injected checksum error (the host retries);
#    the ROM erases the region before it answers FLASH_DEFL_BEGIN
image = open(IMAGE, "rb").read()
comp = zlib.compress(image, 9)
blocks = [comp[i:i + 0x400] for i in range(0, len(comp), 0x400)]
erase_blocks = (len(image) + 0x3FF) // 0x400
reply = control("fault rom-checksum:1")
if reply != "ok armed rom-checksum:1":
    fail("control fault: %r" % reply)
t0 = time.monotonic()
expect_ok(0x10, struct.pack("<IIIII", erase_blocks * 0x400, len(blocks), 0x400, 0x10000, 0))
erase_s = time.monotonic() - t0
if erase_s < 0.3 + 0.045:  # 120000 bytes: one 64 KiB block (150 ms) and 14 sectors (45 ms each)
    fail("FLASH_DEFL_BEGIN answered after %.3f s; the ROM erases first" % erase_s)
expect_err(0x11, data_pkt(0, blocks[0]), 0x07, chk=checksum(blocks[0]))
for seq, blk in enumerate(blocks):
    expect_ok(0x11, data_pkt(seq, blk), chk=checksum(blk))
_, md5 = expect_ok(0x13, struct.pack("<IIII", 0x10000, len(image), 0, 0), payload=32)
if md5.decode() != hashlib.md5(image).hexdigest():
    fail("MD5 %r != %s" % (md5, hashlib.md5(image).hexdigest()))
print("ok compressed flash of %d bytes (%d blocks), MD5 %s" % (len(image), len(blocks), md5.decode()))

# 8. control-socket reset boots the flashed app
set_baud(115200)
rx.clear()
reply = control("reset")
if reply != "ok reset":
    fail("control reset: %r" % reply)
wait_text(b"entry 0x403c9880")
if b"rst:0x1 (POWERON),boot:0x8 (SPI_FAST_FLASH_BOOT)" not in rx or b"invalid header" in rx:
    fail("boot after reset: %r" % bytes(rx))
status = control("status")
if not status.startswith("ok mode=app baud=115200 chip=esp32s3 project=vbrom-app idf=v5.1.2"):
    fail("status: %r" % status)
print("ok reset into the app:", status)

# 9. SYNC in application mode is console input, not a reset; the control
#    socket's download is
rx.clear()
pending.clear()
os.write(fd, slip(struct.pack("<BBHI", 0, 8, len(SYNC), 0) + SYNC))
read_some(0.5)
if b"waiting for download" in rx:
    fail("SYNC in app mode reset the chip: %r" % bytes(rx))
if not control("status").startswith("ok mode=app"):
    fail("not in app mode after SYNC")
rx.clear()
if control("reset") != "ok reset" or control("download") != "ok download":
    fail("control reset/download")
wait_text(b"waiting for download")
os.write(fd, slip(struct.pack("<BBHI", 0, 8, len(SYNC), 0) + SYNC))
time.sleep(0.1)
frames(0.1)
pending.clear()
rx.clear()
print("ok SYNC in app mode ignored; download mode from the control socket")
if control("fault flash-write") != "ok armed flash-write":
    fail("fault flash-write not armed")
expect_ok(0x02, struct.pack("<IIII", 0x1000, 4, 0x400, 0x200000))
blk = b"\x5a" * 0x400
expect_err(0x03, data_pkt(0, blk), 0x08, chk=checksum(blk))
expect_ok(0x03, data_pkt(0, blk), chk=checksum(blk))
print("ok flash-write fault, then the retry writes")

# 10. the stub: upload (MEM_*), OHAI, 2 status bytes, raw MD5, ERASE_REGION
stub = os.urandom(0x2000)
expect_ok(0x05, struct.pack("<IIII", len(stub), 2, 0x1800, 0x40380000))
for seq in range(2):
    part = stub[seq * 0x1800:(seq + 1) * 0x1800]
    expect_ok(0x07, data_pkt(seq, part), chk=checksum(part))
os.write(fd, slip(struct.pack("<BBHI", 0, 0x06, 8, 0) + struct.pack("<II", 0, 0x40380400)))
got = frames(2.0)
while len(got) < 2:
    more = frames(1.0)
    if not more:
        break
    got += more
if got[-1] != b"OHAI":
    fail("no OHAI after MEM_END: %r" % got)
val, _ = expect_ok(0x08, SYNC, nstatus=2)
if val != 0:
    fail("stub SYNC value 0x%x (expected 0)" % val)
time.sleep(0.1)
frames(0.1)
pending.clear()
_, raw = expect_ok(0x13, struct.pack("<IIII", 0x10000, len(image), 0, 0), nstatus=2, payload=16)
if raw != hashlib.md5(image).digest():
    fail("stub MD5 mismatch")
expect_ok(0xD1, struct.pack("<II", 0x200000, 0x1000), nstatus=2)
_, raw = expect_ok(0x13, struct.pack("<IIII", 0x200000, 0x1000, 0, 0), nstatus=2, payload=16)
if raw != hashlib.md5(b"\xff" * 0x1000).digest():
    fail("ERASE_REGION did not erase")
expect_err(0x03, data_pkt(0, b"\x01"), 0xC6, chk=checksum(b"\x01"), stub=True)
print("ok stub: OHAI, SYNC value 0, raw MD5, ERASE_REGION")

# 11. the stub: SPI_ATTACH takes exactly 4 bytes; unknown command 0xFF
expect_err(0x0D, b"\x00" * 8, 0xC0, stub=True)
expect_ok(0x0D, b"\x00" * 4, nstatus=2)
expect_err(0x0E, struct.pack("<II", 0, 64), 0xFF, stub=True)
print("ok stub: SPI_ATTACH 4 bytes only, 0xFF for READ_FLASH_SLOW")

# 12. FLASH_END "reboot": a software reset, back in download mode with the ROM
#     (the banner may arrive in one read with FLASH_END's reply: looked for in
#     everything read, as frames() drops the text around a frame)
rx.clear()
pending.clear()
mark = len(seen)
expect_ok(0x02, struct.pack("<IIIII", 0, 0, 0x4000, 0, 0), nstatus=2)
expect_ok(0x04, struct.pack("<I", 0), nstatus=2)
end = time.monotonic() + 10
while b"waiting for download" not in seen[mark:] and time.monotonic() < end:
    read_some(end - time.monotonic())
if b"rst:0xc (RTC_SW_CPU_RST),boot:0x3 (DOWNLOAD(USB/UART0))" not in seen[mark:]:
    fail("FLASH_END reboot did not come back in download mode: %r" % bytes(seen[mark:]))
time.sleep(0.1)
frames(0.1)
pending.clear()
val, _ = expect_ok(0x08, SYNC)
if val != 0x20120707:
    fail("after the reboot the ROM answers SYNC, got value 0x%x" % val)
print("ok FLASH_END reboot comes back in download mode")

if control("quit") != "ok bye":
    fail("quit")
print("PASS")
