"""3. Flashing: a 1 MiB application image at 921600 baud, baud timing and
flash timing on (the vboard's SPI NOR model: W25Q32JV typical sector/block
erase and page program, the ROM erasing the region inside FLASH_BEGIN /
FLASH_DEFL_BEGIN before it answers, the stub erasing as it writes).

One vboard (esp32) serves every flash of this section, so espbench (ROM
loader, no stub) and esptool-js (tests/node's driver, npm-installed into
bench/out/node; it uploads Espressif's flasher stub) meet the same board in
the same run; they alternate, REPEATS times each, and the medians are
compared. Times are whole commands (connect, sync, baud switch, write, MD5
verify, reset), as a user waits for them. Each tool starts from a reset into
the loader: esptool-js through its own DTR/RTS reset (forwarded to the board's
auto-reset circuit by the control socket), espbench through the control
socket's 'download' (a pty cannot carry espbench's DTR/RTS).

The ESP32 ROM's compressed write overruns to the next 32 KiB boundary, so
espbench compresses only whole 32 KiB windows there and writes the tail
plain (issue 12). What that costs: flash.esp32_tail_cost_s flashes an image
whose tail is nearly a whole window (the worst case) on an ESP32 and on an
ESP32-C3 board (same flash model, no overrun, all compressed) and takes the
difference of the medians."""
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
TAIL_SIZE = SIZE - 4100   # ends 4100 bytes short of a 32 KiB boundary: a ~28 KiB plain tail on ESP32
T_WIRE = target("<=", 1.15, "≤ 1.15")
T_JS = target("<", 1.0, "< 1")
T_REFLASH = target("<=", 2.0, "≤ 2 s")


T_NONE = None
SPEC = {"flash.wire_ratio": (T_WIRE, "ratio"), "flash.vs_esptool_js": (T_JS, "ratio"),
        "flash.reflash_s": (T_REFLASH, "s"), "flash.esp32_tail_cost_s": (T_NONE, "s")}


def figure_ids():
    return list(SPEC)


def _nm(fid, why, details=None):
    return not_measured(fid, SECTION, NAMES[fid], SPEC[fid][1], SPEC[fid][0], why, details)


NAMES = {
    "flash.wire_ratio": "espbench flash time / wire time of the compressed bytes (compressed × 10 / baud)",
    "flash.vs_esptool_js": "espbench flash time / esptool-js flash time, same vboard, same run",
    "flash.reflash_s": "re-flash of the unchanged image (MD5 matches, region skipped)",
    "flash.esp32_tail_cost_s": "cost of the ESP32 overrun fix: ESP32 − ESP32-C3 flash time, image with a "
                               "~28 KiB tail past its last 32 KiB boundary (tail written plain on ESP32)",
}


def _wrote(text):
    """espbench: 'wrote 1048576 bytes (609022 compressed) in 1.3 s'."""
    m = re.search(r"wrote (\d+) bytes \((\d+) compressed\) in ([\d.]+) s", text)
    return (int(m.group(1)), int(m.group(2)), float(m.group(3))) if m else None


def _js_wrote(text):
    """esptool-js: 'Wrote 1048576 bytes (609022 compressed) at 0x10000 in 5.507 seconds.'"""
    m = re.search(r"Wrote (\d+) bytes \((\d+) compressed\) at \S+ in ([\d.]+) seconds", text)
    return (int(m.group(1)), int(m.group(2)), float(m.group(3))) if m else None


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
    zlib_bytes = len(zlib.compress(data, 9))

    node_ok, node_why = ctx.esptool_js_ready()
    es_full, es_reflash, js_full = [], [], []
    es_notes, js_notes, failures = [], [], []
    try:
        vb = Vboard(ctx, os.path.join(work, "vboard"), baud_timing=True)
    except RuntimeError as exc:
        why = str(exc)
        return [_nm(i, why) for i in figure_ids()]
    with vb:
        flash_args = [ctx.espbench, "flash", "--port", vb.link, "--baud", str(BAUD), "%s@%s" % (image, OFFSET)]
        def hard_reset(mode="reset"):
            # Every tool starts from a board reset (esptool-js's own HardReset
            # leaves its stub running, as on a real board): 'download' for
            # espbench, whose DTR/RTS sequence a pty cannot carry; 'reset' for
            # esptool-js, which enters the loader through the lines itself.
            reply = vb.ctl(mode)
            if not reply.startswith("ok"):
                failures.append("vboard control %s: %s" % (mode, reply))

        js_env = dict(os.environ, VBOARD_CONTROL=vb.ctl_path)
        for i in range(REPEATS):
            hard_reset("download")
            p = run(flash_args[:2] + ["--no-skip"] + flash_args[2:], timeout=120)
            if p.rc == 0:
                es_full.append(p.wall)
                w = _wrote(p.out + p.err)
                if w:
                    es_notes.append(w)
            else:
                failures.append("espbench flash: exit %d: %s" % (p.rc, p.tail()))
            if node_ok:
                hard_reset()
                p = run(["node", ctx.esptool_js_script, vb.link, image, OFFSET, "ESP32"], timeout=150,
                        env=js_env, cwd=os.path.dirname(ctx.esptool_js_script))
                if p.rc == 0:
                    js_full.append(p.wall)
                    w = _js_wrote(p.out)
                    if w:
                        js_notes.append(w)
                else:
                    failures.append("esptool-js: exit %d: %s" % (p.rc, p.tail()))
        # The flash now holds the image (written last by esptool-js or espbench):
        # first make sure espbench wrote it, then time the skipping re-flashes.
        hard_reset("download")
        p = run(flash_args, timeout=120)
        if p.rc != 0:
            failures.append("espbench flash before the re-flashes: exit %d: %s" % (p.rc, p.tail()))
        for i in range(REPEATS):
            hard_reset("download")
            p = run(flash_args, timeout=120)
            if p.rc == 0 and "unchanged" in (p.out + p.err):
                es_reflash.append(p.wall)
            elif p.rc == 0:
                failures.append("espbench re-flash wrote the region again instead of skipping it")
            else:
                failures.append("espbench re-flash: exit %d: %s" % (p.rc, p.tail()))

    compressed = es_notes[0][1] if es_notes else zlib_bytes
    wire_s = compressed * 10 / BAUD
    ctx.measured["flash_full_s"] = median(es_full)
    ctx.measured["flash_wire_s"] = wire_s
    common = {"image_bytes": SIZE, "compressed_bytes": compressed,
              "compressed_bytes_source": "espbench's own report" if es_notes else "zlib level 9 (Python)",
              "baud": BAUD, "wire_s": round(wire_s, 3), "repeats": REPEATS,
              "espbench_s": [round(x, 3) for x in es_full],
              "espbench_write_s_reported": [n[2] for n in es_notes]}
    if failures:
        common["failures"] = failures[:6]
    figs = []

    # Is the line really paced? The upload is host -> board; if the vboard
    # consumes it faster than the baud allows, the wire ratio means nothing.
    paced = True
    if es_notes:
        line_bps = es_notes[0][1] * 10 / max(es_notes[0][2], 1e-3)
        common["espbench_effective_line_bps"] = round(line_bps)
        paced = line_bps <= BAUD * 1.10
    ctx.measured["flash_paced"] = paced
    if not es_full:
        figs.append(_nm("flash.wire_ratio", failures[0] if failures else "espbench flash did not run", common))
    elif not paced:
        d = dict(common, ratio_if_taken=round(median(es_full) / wire_s, 3))
        figs.append(_nm(
            "flash.wire_ratio",
            "the vboard does not pace host-to-board bytes at the baud (espbench's upload ran at %.1f Mbit/s of "
            "line time at %d baud): the wire-time ratio needs input pacing in the vboard" %
            (common["espbench_effective_line_bps"] / 1e6, BAUD), d))
    else:
        figs.append(figure("flash.wire_ratio", SECTION, NAMES["flash.wire_ratio"],
                           round(median(es_full) / wire_s, 4), "ratio", T_WIRE, common))

    if not node_ok:
        figs.append(_nm("flash.vs_esptool_js", node_why, common))
    elif not es_full or not js_full:
        figs.append(_nm("flash.vs_esptool_js", "; ".join(failures[:2]) or "a flasher did not finish", common))
    else:
        d = dict(common, esptool_js_s=[round(x, 3) for x in js_full],
                 esptool_js_write_s_reported=[n[2] for n in js_notes],
                 esptool_js_version=ctx.esptool_js_version())
        if not paced:
            d["note"] = ("host-to-board bytes are not paced by the vboard, so both uploads are bound by CPU and "
                         "round trips, not by the line")
        figs.append(figure("flash.vs_esptool_js", SECTION, NAMES["flash.vs_esptool_js"],
                           round(median(es_full) / median(js_full), 4), "ratio", T_JS, d))

    if es_reflash:
        figs.append(figure("flash.reflash_s", SECTION, NAMES["flash.reflash_s"], round(median(es_reflash), 3), "s",
                           T_REFLASH, {"espbench_s": [round(x, 3) for x in es_reflash]}))
    else:
        figs.append(_nm("flash.reflash_s", "; ".join(failures[-2:]) or "espbench re-flash did not run"))
    figs.append(_tail_cost(ctx, work))
    shutil.rmtree(os.path.join(work, "vboard"), ignore_errors=True)  # 4 MB flash file
    return figs


def _tail_cost(ctx, work):
    """ESP32 (window-aligned part compressed, tail plain) against ESP32-C3 (all
    compressed): same image bytes, same flash model, same baud, same run."""
    fid = "flash.esp32_tail_cost_s"
    times, details = {}, {"image_bytes": TAIL_SIZE, "offset": OFFSET, "baud": BAUD, "repeats": REPEATS}
    for chip in ("esp32", "esp32c3"):
        image = os.path.join(work, "tail-%s.bin" % chip)
        p = run([ctx.vboard, "mkimage", "--chip", chip, "--project", "bench-tail", "--idf", "v5.3", "--size",
                 str(TAIL_SIZE), "-o", image], timeout=60)
        if p.rc != 0:
            return _nm(fid, "espbench-vboard mkimage --chip %s failed: %s" % (chip, p.tail()))
        try:
            vb = Vboard(ctx, os.path.join(work, "vboard-" + chip), chip=chip, baud_timing=True)
        except RuntimeError as exc:
            return _nm(fid, str(exc))
        got = []
        with vb:
            for _ in range(REPEATS):
                vb.ctl("download")
                p = run([ctx.espbench, "flash", "--port", vb.link, "--baud", str(BAUD), "--no-skip",
                         "%s@%s" % (image, OFFSET)], timeout=120)
                if p.rc != 0:
                    return _nm(fid, "espbench flash on %s: exit %d: %s" % (chip, p.rc, p.tail()))
                got.append(p.wall)
                w = _wrote(p.out + p.err)
                if w:
                    details["%s_wire_bytes" % chip] = w[1]
        shutil.rmtree(os.path.join(work, "vboard-" + chip), ignore_errors=True)
        times[chip] = got
        details["%s_s" % chip] = [round(x, 3) for x in got]
    cost = median(times["esp32"]) - median(times["esp32c3"])
    details["note"] = ("the ESP32's wire bytes include the plain tail; the bench's 1 MiB image at 0x10000 ends on a "
                       "32 KiB boundary and pays nothing")
    return figure(fid, SECTION, NAMES[fid], round(cost, 3), "s", T_NONE, details)


def placeholder(fid, reason):
    return _nm(fid, reason)
