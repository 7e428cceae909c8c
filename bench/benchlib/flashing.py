"""3. Flashing: a 1 MiB application image at 921600 baud, baud timing and
flash timing on (the vboard's SPI NOR model: W25Q32JV typical sector/block
erase and page program, the ROM erasing the region inside FLASH_BEGIN /
FLASH_DEFL_BEGIN before it answers, the stub erasing as it writes).

One vboard (esp32) serves every flash of this section, so espbench with
Espressif's flasher stub (esptool-js's stub file, `--stub FILE`: the same
stub esptool-js uploads), espbench through the ROM loader (`--stub off`) and
esptool-js (tests/node's driver, npm-installed into bench/out/node) meet the
same board in the same run; they alternate, REPEATS times each, and the
medians are compared. Every figure names the loader espbench used (the
"loader:" of its output). Times are whole commands (connect, sync, baud switch, write, MD5
verify, reset), as a user waits for them. Each tool starts from a reset into
the loader: esptool-js through its own DTR/RTS reset (forwarded to the board's
auto-reset circuit by the control socket), espbench through the control
socket's 'download' (a pty cannot carry espbench's DTR/RTS).

At the end of a compressed stream the ESP32 ROM programs its whole 32 KiB
inflate buffer past the data (measured on its ROM in Espressif's QEMU;
docs/flashing.md), so through the ESP32 ROM espbench ends the compressed
part one sector short of a window boundary and writes the rest (up to 32 KiB)
plain. What that costs, through the ROM loader (the stub has no such end), at
921600 baud, for an image whose plain tail is the longest (32 764 bytes):
flash.esp32_rom_split_vs_plain is espbench's way / all plain (--no-compress,
esptool's way through a ROM), alternating on one ESP32 board;
flash.esp32_rom_split_vs_c3 is espbench's way on the ESP32 / the same bytes
all compressed on an ESP32-C3 board (same flash model; its ROM ends streams
correctly). Medians of REPEATS, in one run.

ESP8266: its ROM has neither compressed writes nor CHANGE_BAUDRATE, so a
400 000-byte image goes plain at 115200 through the ROM; through the stub it
goes compressed at 921600. flash.esp8266_rom_vs_stub is the ratio of the two
whole commands (one of each: the ROM run alone takes ~40 s)."""
import os
import re
import shutil
import zlib

from .common import Vboard, figure, median, not_measured, run, target

SECTION = "flashing"
BAUD = 921600
OFFSET = "0x10000"
SIZE = 1048576
REPEATS = 3
ESP8266_SIZE = 400000
TAIL_SIZE = SIZE - 4100   # its last sector ends 4 KiB short of a window boundary: the longest plain tail (32 764 B)
T_WIRE = target("<=", 1.15, "≤ 1.15")
T_JS = target("<=", 0.9, "≤ 0.9")
T_REFLASH = target("<=", 2.0, "≤ 2 s")


T_NONE = None
SPEC = {"flash.wire_ratio": (T_WIRE, "ratio"), "flash.vs_esptool_js": (T_JS, "ratio"),
        "flash.rom_wire_ratio": (T_NONE, "ratio"), "flash.reflash_s": (T_REFLASH, "s"),
        "flash.esp32_rom_split_vs_plain": (T_NONE, "ratio"), "flash.esp32_rom_split_vs_c3": (T_NONE, "ratio"),
        "flash.esp8266_rom_vs_stub": (T_NONE, "ratio")}


def figure_ids():
    return list(SPEC)


def _nm(fid, why, details=None):
    return not_measured(fid, SECTION, NAMES[fid], SPEC[fid][1], SPEC[fid][0], why, details)


NAMES = {
    "flash.wire_ratio": "espbench flash time with the flasher stub / wire time of the compressed bytes "
                        "(compressed × 10 / baud)",
    "flash.vs_esptool_js": "espbench flash time with the flasher stub / esptool-js flash time, same vboard, same run",
    "flash.rom_wire_ratio": "espbench flash time through the ROM loader (--stub off) / wire time of its compressed "
                            "bytes",
    "flash.reflash_s": "re-flash of the unchanged image (MD5 matches, region skipped), with the flasher stub",
    "flash.esp8266_rom_vs_stub": "ESP8266, 400 000-byte image: espbench through the ROM loader (plain, 115200) / "
                                 "through the flasher stub (compressed, 921600)",
    "flash.esp32_rom_split_vs_plain": "ESP32 through the ROM loader, 1 044 476-byte image (32 764 bytes plain tail): "
                                      "espbench's way (compressed part + plain tail) / all plain (--no-compress)",
    "flash.esp32_rom_split_vs_c3": "the same image through the ROM loader: espbench's way on the ESP32 / all "
                                   "compressed on an ESP32-C3 (whose ROM ends a stream correctly)",
}


def _wrote(text):
    """espbench: 'wrote 1048576 bytes (609022 compressed) in 1.3 s'."""
    m = re.search(r"wrote (\d+) bytes \((\d+) compressed\) in ([\d.]+) s", text)
    return (int(m.group(1)), int(m.group(2)), float(m.group(3))) if m else None


def _js_wrote(text):
    """esptool-js: 'Wrote 1048576 bytes (609022 compressed) at 0x10000 in 5.507 seconds.'"""
    m = re.search(r"Wrote (\d+) bytes \((\d+) compressed\) at \S+ in ([\d.]+) seconds", text)
    return (int(m.group(1)), int(m.group(2)), float(m.group(3))) if m else None


def _loader(text):
    """espbench flash's first line: '..., 921600 baud, loader: stub: esptool-js 0.7.0 (PATH)'."""
    m = re.search(r"loader: (.*)", text)
    return m.group(1).strip() if m else None


def _stub_file(ctx, chip):
    path = os.path.join(ctx.node_dir, "node_modules", "esptool-js", "lib", "targets", "stub_flasher", chip + ".json")
    return path if os.path.exists(path) else None


def measure(ctx):
    work = os.path.join(ctx.out, "flashing")
    os.makedirs(work, exist_ok=True)
    image = os.path.join(work, "app.bin")
    p = run([ctx.vboard, "mkimage", "--chip", "esp32", "--project", "bench-app", "--idf", "v5.3", "--size",
             str(SIZE), "-o", image], timeout=60)
    if p.rc != 0:
        why = "espbench-vboard mkimage failed (exit %d: %s)" % (p.rc, p.tail())
        return [_nm(i, why) for i in figure_ids()]
    with open(image, "rb") as f:
        data = f.read()
    zdata = zlib.compress(data, 9)
    zlib_bytes = len(zdata)
    ctx.measured["flash_slip_escapes"] = zdata.count(b"\xc0") + zdata.count(b"\xdb")

    node_ok, node_why = ctx.esptool_js_ready()
    stub = _stub_file(ctx, "esp32") if node_ok else None
    if not stub:
        why = "no flasher stub file to give espbench: " + (node_why or "esptool-js has no esp32.json")
        return [_nm(i, why) for i in figure_ids()]
    runs = {"stub": [], "rom": [], "js": [], "reflash": []}
    notes = {"stub": [], "rom": [], "js": []}
    loaders, failures = {}, []
    try:
        vb = Vboard(ctx, os.path.join(work, "vboard"), baud_timing=True)
    except RuntimeError as exc:
        why = str(exc)
        return [_nm(i, why) for i in figure_ids()]
    with vb:
        def espbench(kind, extra):
            vb.ctl("download")
            p = run([ctx.espbench, "flash", "--port", vb.link, "--baud", str(BAUD)] + extra + ["%s@%s" % (image, OFFSET)],
                    timeout=120)
            if p.rc != 0:
                failures.append("espbench flash (%s): exit %d: %s" % (kind, p.rc, p.tail()))
                return None
            loaders.setdefault(kind, _loader(p.out))
            return p

        js_env = dict(os.environ, VBOARD_CONTROL=vb.ctl_path)
        for i in range(REPEATS):
            # Every tool starts from a board reset (esptool-js's own HardReset leaves its stub
            # running, as on a real board): 'download' for espbench, whose DTR/RTS sequence a pty
            # cannot carry; 'reset' for esptool-js, which enters the loader through the lines itself.
            for kind, extra in (("stub", ["--stub", stub]), ("rom", ["--stub", "off"])):
                p = espbench(kind, ["--no-skip"] + extra)
                if p:
                    runs[kind].append(p.wall)
                    w = _wrote(p.out + p.err)
                    if w:
                        notes[kind].append(w)
            vb.ctl("reset")
            p = run(["node", ctx.esptool_js_script, vb.link, image, OFFSET, "ESP32"], timeout=150,
                    env=js_env, cwd=os.path.dirname(ctx.esptool_js_script))
            if p.rc == 0:
                runs["js"].append(p.wall)
                w = _js_wrote(p.out)
                if w:
                    notes["js"].append(w)
            else:
                failures.append("esptool-js: exit %d: %s" % (p.rc, p.tail()))
        # The flash now holds the image: make sure espbench wrote it, then time the skipping re-flashes.
        espbench("stub", ["--stub", stub])
        for i in range(REPEATS):
            p = espbench("reflash", ["--stub", stub])
            if p and "unchanged" in (p.out + p.err):
                runs["reflash"].append(p.wall)
            elif p:
                failures.append("espbench re-flash wrote the region again instead of skipping it")
    shutil.rmtree(os.path.join(work, "vboard"), ignore_errors=True)  # 4 MB flash file
    return _figures(ctx, runs, notes, loaders, failures, zlib_bytes) + _esp32_split(ctx, work) + [_esp8266(ctx, work)]


def _wire_figure(ctx, fid, kind, runs, notes, loaders, failures, zlib_bytes):
    """espbench time / wire time of its compressed bytes, with the check that
    the vboard paces host-to-board bytes at the baud."""
    compressed = notes[kind][0][1] if notes[kind] else zlib_bytes
    wire_s = compressed * 10 / BAUD
    d = {"image_bytes": SIZE, "compressed_bytes": compressed,
         "compressed_bytes_source": "espbench's own report" if notes[kind] else "zlib level 9 (Python)",
         "baud": BAUD, "wire_s": round(wire_s, 3), "repeats": REPEATS, "loader": loaders.get(kind),
         "espbench_s": [round(x, 3) for x in runs[kind]],
         "espbench_write_s_reported": [n[2] for n in notes[kind]],
         "slip_escapes": ctx.measured.get("flash_slip_escapes", 0)}
    if failures:
        d["failures"] = failures[:6]
    if not runs[kind]:
        return _nm(fid, failures[0] if failures else "espbench flash did not run", d), d, wire_s
    line_bps = compressed * 10 / max(notes[kind][0][2], 1e-3) if notes[kind] else 0
    d["espbench_effective_line_bps"] = round(line_bps)
    if line_bps > BAUD * 1.10:
        d["ratio_if_taken"] = round(median(runs[kind]) / wire_s, 3)
        return _nm(fid, "the vboard does not pace host-to-board bytes at the baud (espbench's upload ran at %.1f "
                   "Mbit/s of line time at %d baud)" % (line_bps / 1e6, BAUD), d), d, wire_s
    return figure(fid, SECTION, NAMES[fid], round(median(runs[kind]) / wire_s, 4), "ratio", SPEC[fid][0], d), d, wire_s


def _figures(ctx, runs, notes, loaders, failures, zlib_bytes):
    figs = []
    f, common, wire_s = _wire_figure(ctx, "flash.wire_ratio", "stub", runs, notes, loaders, failures, zlib_bytes)
    figs.append(f)
    ctx.measured["flash_full_s"] = median(runs["stub"])
    ctx.measured["flash_wire_s"] = wire_s
    figs.append(_wire_figure(ctx, "flash.rom_wire_ratio", "rom", runs, notes, loaders, failures, zlib_bytes)[0])
    if not runs["stub"] or not runs["js"]:
        figs.append(_nm("flash.vs_esptool_js", "; ".join(failures[:2]) or "a flasher did not finish", common))
    else:
        d = dict(common, esptool_js_s=[round(x, 3) for x in runs["js"]],
                 esptool_js_write_s_reported=[n[2] for n in notes["js"]],
                 esptool_js_version=ctx.esptool_js_version(),
                 espbench_rom_s=[round(x, 3) for x in runs["rom"]], rom_loader=loaders.get("rom"))
        figs.append(figure("flash.vs_esptool_js", SECTION, NAMES["flash.vs_esptool_js"],
                           round(median(runs["stub"]) / median(runs["js"]), 4), "ratio", T_JS, d))
    if runs["reflash"]:
        figs.append(figure("flash.reflash_s", SECTION, NAMES["flash.reflash_s"], round(median(runs["reflash"]), 3),
                           "s", T_REFLASH, {"espbench_s": [round(x, 3) for x in runs["reflash"]],
                                            "loader": loaders.get("reflash")}))
    else:
        figs.append(_nm("flash.reflash_s", "; ".join(failures[-2:]) or "espbench re-flash did not run"))
    return figs


def _esp8266(ctx, work):
    """One ROM and one stub flash of a 400 000-byte ESP8266 image, same board."""
    fid = "flash.esp8266_rom_vs_stub"
    stub = _stub_file(ctx, "esp8266")
    if not stub:
        return _nm(fid, "esptool-js has no esp8266.json")
    image = os.path.join(work, "esp8266.bin")
    p = run([ctx.vboard, "mkimage", "--chip", "esp8266", "--project", "bench-8266", "--idf", "v3.4", "--size",
             str(ESP8266_SIZE), "-o", image], timeout=60)
    if p.rc != 0:
        return _nm(fid, "espbench-vboard mkimage --chip esp8266 failed: %s" % p.tail())
    try:
        vb = Vboard(ctx, os.path.join(work, "vboard-esp8266"), chip="esp8266", baud_timing=True)
    except RuntimeError as exc:
        return _nm(fid, str(exc))
    d = {"image_bytes": ESP8266_SIZE, "offset": OFFSET, "baud_asked": BAUD}
    with vb:
        for kind, extra in (("rom", ["--stub", "off"]), ("stub", ["--stub", stub])):
            vb.ctl("download")
            p = run([ctx.espbench, "flash", "--port", vb.link, "--baud", str(BAUD), "--no-skip"] + extra +
                    ["%s@%s" % (image, OFFSET)], timeout=150)
            if p.rc != 0:
                return _nm(fid, "espbench flash (%s) on esp8266: exit %d: %s" % (kind, p.rc, p.tail()))
            w = _wrote(p.out + p.err)
            m = re.search(r"(\d+) baud, loader:", p.out)
            d[kind + "_s"] = round(p.wall, 3)
            d[kind + "_loader"] = _loader(p.out)
            d[kind + "_baud"] = int(m.group(1)) if m else None
            d[kind + "_wire_bytes"] = w[1] if w else None
    shutil.rmtree(os.path.join(work, "vboard-esp8266"), ignore_errors=True)
    return figure(fid, SECTION, NAMES[fid], round(d["rom_s"] / d["stub_s"], 3), "ratio", T_NONE, d)


def _esp32_split(ctx, work):
    """ESP32 through its ROM: espbench's split (compressed part, plain tail) and all plain, alternating on one
    board; then the same bytes all compressed on an ESP32-C3 board. Same flash model, baud and run."""
    fids = ("flash.esp32_rom_split_vs_plain", "flash.esp32_rom_split_vs_c3")
    times = {"split": [], "plain": [], "c3": []}
    d = {"image_bytes": TAIL_SIZE, "offset": OFFSET, "baud": BAUD, "repeats": REPEATS,
         "loader": "ROM (--stub off): the stream end is the ROM's"}
    plan = (("esp32", (("split", []), ("plain", ["--no-compress"]))), ("esp32c3", (("c3", []),)))
    for chip, kinds in plan:
        image = os.path.join(work, "tail-%s.bin" % chip)
        p = run([ctx.vboard, "mkimage", "--chip", chip, "--project", "bench-tail", "--idf", "v5.3", "--size",
                 str(TAIL_SIZE), "-o", image], timeout=60)
        if p.rc != 0:
            return [_nm(f, "espbench-vboard mkimage --chip %s failed: %s" % (chip, p.tail())) for f in fids]
        try:
            vb = Vboard(ctx, os.path.join(work, "vboard-" + chip), chip=chip, baud_timing=True)
        except RuntimeError as exc:
            return [_nm(f, str(exc)) for f in fids]
        with vb:
            for _ in range(REPEATS):
                for kind, extra in kinds:
                    vb.ctl("download")
                    p = run([ctx.espbench, "flash", "--port", vb.link, "--baud", str(BAUD), "--no-skip", "--stub",
                             "off"] + extra + ["%s@%s" % (image, OFFSET)], timeout=150)
                    if p.rc != 0:
                        why = "espbench flash (%s) on %s: exit %d: %s" % (kind, chip, p.rc, p.tail())
                        return [_nm(f, why) for f in fids]
                    times[kind].append(p.wall)
                    w = _wrote(p.out + p.err)
                    if w:
                        d["%s_wire_bytes" % kind] = w[1]
        shutil.rmtree(os.path.join(work, "vboard-" + chip), ignore_errors=True)
    for kind in times:
        d["%s_s" % kind] = [round(x, 3) for x in times[kind]]
    split = median(times["split"])
    return [figure(fids[0], SECTION, NAMES[fids[0]], round(split / median(times["plain"]), 3), "ratio", T_NONE, d),
            figure(fids[1], SECTION, NAMES[fids[1]], round(split / median(times["c3"]), 3), "ratio", T_NONE, d)]


def summary_lines(figs):
    """SUMMARY.md: where the time of the stub flash goes (from this run's own figures)."""
    f = figs.get("flash.wire_ratio")
    d = (f or {}).get("details") or {}
    if not f or f.get("value") is None or not d.get("espbench_write_s_reported"):
        return []
    total = median(d["espbench_s"])
    write = median(d["espbench_write_s_reported"])
    wire = d["wire_s"]
    esc = d.get("slip_escapes", 0) * 10 / BAUD
    md5 = SIZE / 10e6  # the vboard reads the flash at 10 MB/s to hash it
    rest = write - wire - esc - md5
    verdict = "meets" if f["status"] == "pass" else "misses"
    return ["", "Where the time of the 1 MiB flash with the stub goes (medians of this run; the figure %s its "
            "target of %.2f × wire):" % (verdict, T_WIRE["value"]), "",
            "| part | s |", "|---|---|",
            "| whole command | %.2f |" % total,
            "| outside the region's write: start, SYNC and detection at 115200, the ROM's baud switch, the stub's "
            "upload and OHAI, SPI set-up; after it the way out of the stub (FLASH_END reboot, SYNC, run) | %.2f |"
            % (total - write),
            "| the compressed bytes on the wire (%s × 10 / %d) | %.2f |" % (
                "{:,}".format(d["compressed_bytes"]).replace(",", " "), BAUD, wire),
            "| SLIP escapes (0xC0/0xDB bytes sent twice; %d in zlib's stream) | %.2f |" % (d.get("slip_escapes", 0), esc),
            "| MD5 verify (the stub reads 1 MiB at the W25Q32JV's 10 MB/s) | %.2f |" % md5,
            "| the rest of the write: compressing (two cores), block headers and turnarounds, and the waits on "
            "the flash — a block's answer waits until the stub has written the block before it, and a 32 KiB "
            "write behind an erase it started ahead (16 × 150 ms block erases, 4 096 × 0.4 ms pages, "
            "esp-flasher-stub's way: docs/vboard.md) | %.2f |" % rest]


def placeholder(fid, reason):
    return _nm(fid, reason)
