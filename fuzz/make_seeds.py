#!/usr/bin/env python3
"""Writes the generated seed inputs under fuzz/seeds/ (committed): SLIP-framed
ROM loader replies, RFC 2217 / Telnet server streams and small ESP images.
The other targets' seeds are the test fixtures themselves (fuzz/corpora.txt).
Usage: python3 fuzz/make_seeds.py BUILD_DIR   (needs BUILD_DIR/espbench-vboard)"""
import os
import struct
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))


def slip(b):
    return b"\xc0" + b.replace(b"\xdb", b"\xdb\xdd").replace(b"\xc0", b"\xdb\xdc") + b"\xc0"


def resp(op, value=0, payload=b"", status=0, error=0, sbytes=4):
    body = payload + bytes([status, error]) + b"\0" * (sbytes - 2)
    return struct.pack("<BBHI", 1, op, len(body), value) + body


def write(target, name, data):
    d = os.path.join(here, "seeds", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    # ROM replies (esptool's protocol: direction 1, op, size, value, data, status)
    write("slip_rom", "sync", b"".join(slip(resp(0x08, 0x20120707)) for _ in range(8)))
    write("slip_rom", "read_reg", slip(resp(0x0A, 0x00F01D83)))
    write("slip_rom", "md5_rom", slip(resp(0x13, 0, b"0123456789abcdef0123456789abcdef")))
    write("slip_rom", "md5_stub", slip(resp(0x13, 0, bytes(range(16)), sbytes=2)))
    write("slip_rom", "security_info", slip(resp(0x14, 0, bytes(20))))
    write("slip_rom", "checksum_error", slip(resp(0x03, 0, b"", 1, 0x07)))
    write("slip_rom", "boot_noise", b"ESP-ROM:esp32c3-api1-20210207\r\nwaiting for download\r\n" +
          slip(resp(0x08, 0x20120707)) + b"\xdb\xc0garbage" + slip(b"\xdb\xdc\xdb\xdd"))
    write("slip_rom", "request", slip(struct.pack("<BBHI", 0, 0x03, 20, 0xEF) + struct.pack("<IIII", 4, 0, 0, 0) +
                                      b"\xc0\xdb\x00\x01"))
    # Telnet / RFC 2217 (ser2net 4.3's opening, acks, escaped data)
    IAC, SB, SE, WILL, DO, WONT, DONT = 255, 250, 240, 251, 253, 252, 254
    write("telnet", "ser2net_open", bytes([IAC, DO, 44, IAC, WILL, 3, IAC, WILL, 0, IAC, DO, 0, IAC, DONT, 1]))
    acks = b"".join(bytes([IAC, SB, 44, 100 + c]) + v + bytes([IAC, SE]) for c, v in
                    ((1, struct.pack(">I", 115200)), (2, b"\x08"), (3, b"\x01"), (4, b"\x01"), (5, b"\x08"),
                     (12, b"\x03")))
    write("telnet", "acks", acks)
    write("telnet", "data_escaped", b"boot: ESP-IDF\xff\xff\r\n" + bytes([IAC, 241, IAC, 249]) + b"\xc0\xff\xff\xc0")
    write("telnet", "sb_escaped", bytes([IAC, SB, 44, 101, IAC, IAC, 0, 0, 1, IAC, SE]))
    write("telnet", "sb_long", bytes([IAC, SB, 44, 105]) + b"x" * 100 + bytes([IAC, SE, IAC, WONT, 44]))
    # ESP images
    vboard = os.path.join(sys.argv[1], "espbench-vboard")
    for chip in ("esp32c3", "esp32", "esp8266"):
        out = os.path.join(here, "seeds", "esp_image", chip + ".bin")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        subprocess.run([vboard, "mkimage", "--chip", chip, "--project", "seed", "--idf", "v5.4", "--size", "4096",
                        "-o", out], check=True, stdout=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
