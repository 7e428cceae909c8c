// Drives esptool-js (npm, 0.7.0) from Node against espbench-vboard over its pty:
// detects the chip, uploads the stub, changes the baud rate, flashes an image
// compressed and verifies its MD5 (esptool-js compares the board's SPI_FLASH_MD5).
//
// usage: node esptool_js_flash.mjs PTY IMAGE ADDRESS EXPECTED_CHIP
//
// esptool-js talks to a Web Serial SerialPort; this file supplies a small port
// object with the members its Transport uses (open, close, readable, writable,
// setSignals, getInfo, setBaudRate) on top of the pty. A pty has no DTR/RTS:
// setSignals sends the lines to the vboard's control socket ($VBOARD_CONTROL,
// command "lines DTR RTS"), where the board's auto-reset circuit turns
// esptool-js's own reset sequences into resets (the board ignores a SYNC
// while its app runs, as a real one does).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import tty from "node:tty";

const controlPath = process.env.VBOARD_CONTROL;

function controlCommand(line) {
  return new Promise((resolve, reject) => {
    const c = net.createConnection(controlPath, () => c.write(line + "\n"));
    let reply = "";
    c.on("data", (d) => {
      reply += d;
      if (reply.includes("\n")) {
        c.end();
        if (reply.startsWith("ok")) resolve(reply.trim());
        else reject(new Error(`vboard control: ${reply.trim()}`));
      }
    });
    c.on("error", reject);
  });
}

import { ESPLoader, Transport } from "esptool-js";

const [ptyPath, imagePath, addressText, expectedChip] = process.argv.slice(2);
if (!ptyPath || !imagePath || !addressText || !expectedChip) {
  console.error("usage: node esptool_js_flash.mjs PTY IMAGE ADDRESS EXPECTED_CHIP");
  process.exit(2);
}

function setLineSpeed(path, baud) {
  // the vboard sees the host's termios speed on the pty master
  execFileSync("stty", ["-F", path, String(baud), "raw", "-echo"]);
}

class PtyPort {
  constructor(path) {
    this.path = path;
    this.fd = null;
    this.writeFd = null;
    this.input = null;
    this.readable = null;
    this.writable = null;
    this.dtr = false;
    this.rts = false;
  }

  async open(options) {
    this.fd = fs.openSync(this.path, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
    setLineSpeed(this.path, options.baudRate || 115200);
    const input = new tty.ReadStream(this.fd);
    this.input = input;
    this.readable = new ReadableStream({
      start(controller) {
        input.on("data", (chunk) => controller.enqueue(new Uint8Array(chunk)));
        input.on("end", () => controller.close());
        input.on("error", (err) => controller.error(err));
      },
      cancel() {
        input.destroy();
      },
    });
    // a second open gives writes their own blocking file description (the
    // tty.ReadStream may switch its descriptor to non-blocking)
    const fd = fs.openSync(this.path, fs.constants.O_WRONLY | fs.constants.O_NOCTTY);
    this.writeFd = fd;
    this.writable = new WritableStream({
      write(chunk) {
        let off = 0;
        while (off < chunk.length) off += fs.writeSync(fd, chunk, off, chunk.length - off);
      },
    });
  }

  async close() {
    if (this.input) this.input.destroy();
    if (this.writeFd !== null) fs.closeSync(this.writeFd);
    this.writeFd = null;
    // tty.ReadStream owns the fd once created; closing it twice would be an error
    this.input = null;
    this.fd = null;
    this.readable = null;
    this.writable = null;
  }

  async setSignals(signals) {
    if ("dataTerminalReady" in signals) this.dtr = signals.dataTerminalReady;
    if ("requestToSend" in signals) this.rts = signals.requestToSend;
    if (controlPath) await controlCommand(`lines ${this.dtr ? 1 : 0} ${this.rts ? 1 : 0}`);
  }

  getInfo() {
    return { usbVendorId: 0x10c4, usbProductId: 0xea60 }; // a CP210x bridge: classic reset
  }

  async setBaudRate(baud) {
    setLineSpeed(this.path, baud);
  }
}

const lines = [];
const terminal = {
  clean() {},
  writeLine(s) {
    lines.push(s);
    console.log(s);
  },
  write(s) {
    process.stdout.write(s);
  },
};

const watchdog = setTimeout(() => {
  console.error("FAIL: esptool-js did not finish within 120 s");
  process.exit(1);
}, 120000);

const image = new Uint8Array(fs.readFileSync(imagePath));
const address = Number(addressText);
const port = new PtyPort(ptyPath);
const transport = new Transport(port, false);
const loader = new ESPLoader({ transport, baudrate: 921600, romBaudrate: 115200, terminal, debugLogging: false });

try {
  const chip = await loader.main("default_reset");
  console.log(`detected: ${chip}`);
  if (!loader.chip || loader.chip.CHIP_NAME !== expectedChip) {
    throw new Error(`expected chip ${expectedChip}, esptool-js detected ${loader.chip && loader.chip.CHIP_NAME}`);
  }
  if (!loader.IS_STUB) throw new Error("the stub is not running after main()");
  await loader.writeFlash({
    fileArray: [{ data: image, address }],
    flashMode: "keep",
    flashFreq: "keep",
    flashSize: "keep",
    eraseAll: false,
    compress: true,
    calculateMD5Hash: (data) => createHash("md5").update(data).digest("hex"),
  });
  const joined = lines.join("\n");
  if (!/Hash of data verified/.test(joined)) throw new Error("esptool-js did not report a verified hash");
  await loader.after("hard_reset");
  await transport.disconnect();
  console.log(`PASS: flashed ${image.length} bytes at 0x${address.toString(16)} with MD5 verified`);
  clearTimeout(watchdog);
  process.exit(0);
} catch (err) {
  console.error(`FAIL: ${err && err.stack ? err.stack : err}`);
  process.exit(1);
}
