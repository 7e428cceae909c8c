/* An emulated ESP32-C3 in QEMU (Espressif's esp-develop fork, or a fork of
 * it with the same machine): the process, its flash file, its UART0 on a
 * loopback TCP port, and slirp's port forwards to the guest's Ethernet
 * (open_eth). The chip's genuine ROM runs inside: download mode is the
 * GPIO strap, so espbench flashes the chip through the ROM loader over
 * socket://127.0.0.1:PORT like a board behind a raw TCP bridge.
 *
 * QEMU is stopped by its pid, always: eb_qemu_stop() on every path, and the
 * kernel sends it SIGTERM if espbench dies outright (spawn.h). docs/emulator.md. */
#ifndef ESPBENCH_QEMU_PROC_H
#define ESPBENCH_QEMU_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "espbench/base/error.h"

#define EB_QEMU_PROGRAM "qemu-system-riscv32"
#define EB_QEMU_ENV "ESPBENCH_QEMU"
#define EB_QEMU_MAX_FWD 8
/* The flash of the emulated chip: a file of this many bytes (QEMU takes 2, 4, 8 or 16 MB). */
#define EB_QEMU_FLASH_BYTES (4u << 20)

/* slirp's view of the network: the guest reaches this computer at the
 * gateway's alias, and this computer reaches the guest through forwards. */
#define EB_QEMU_HOST_ALIAS "10.0.2.2"

typedef struct eb_qemu_fwd {
    bool udp;
    uint16_t host_port;  /* on opts.fwd_addr */
    uint16_t guest_port;
} eb_qemu_fwd;

typedef struct eb_qemu_opts {
    const char *program;   /* NULL = $ESPBENCH_QEMU, else qemu-system-riscv32 on PATH */
    const char *rom_dir;   /* -L; NULL = the program's folder when it holds esp32c3-rom.bin, else none */
    const char *machine;   /* NULL = "esp32c3" */
    const char *flash;     /* the flash file (eb_qemu_flash_file makes one) */
    bool download;         /* the download strap: the ROM waits in its serial loader */
    const char *fwd_addr;  /* loopback address the forwards listen on; NULL = 127.0.0.1 */
    eb_qemu_fwd fwd[EB_QEMU_MAX_FWD];
    int n_fwd;
    const char *log;       /* QEMU's stdout and stderr (appended); NULL = /dev/null */
    const char *icount;    /* QEMU's -icount; NULL = shift=auto (download), shift=3 (app) */
    int start_ms;          /* how long the UART's socket may take to listen; 0 = 30 s (a busy host) */
} eb_qemu_opts;

typedef struct eb_qemu eb_qemu;

/* Starts QEMU and waits, with a deadline, until its UART0 socket listens.
 * Errors: EB_ECONFIG when the program cannot be run or refuses its options
 * (its last line of output quoted), EB_EIO for the rest. */
int eb_qemu_start(eb_qemu **out, const eb_qemu_opts *o, eb_error *err);
const char *eb_qemu_port(const eb_qemu *q); /* "socket://127.0.0.1:PORT" */
pid_t eb_qemu_pid(const eb_qemu *q);
const char *eb_qemu_program_used(const eb_qemu *q); /* the program as found */
/* True while the process lives (reaps it when it has ended). */
bool eb_qemu_running(eb_qemu *q);
/* SIGTERM to its pid, SIGKILL after 2 s, reaped, freed. NULL is fine. */
void eb_qemu_stop(eb_qemu *q);

/* The program: opt, else $ESPBENCH_QEMU, else qemu-system-riscv32 (looked up on PATH when run). */
void eb_qemu_program(const char *opt, char *out, size_t cap);

/* Makes path a flash of `bytes` bytes, all 0xFF (erased), unless it is one
 * of that size already (its contents kept: a re-flash skips what is there). */
int eb_qemu_flash_file(const char *path, size_t bytes, eb_error *err);

/* A TCP port on 127.0.0.1 free now (bound to port 0 and closed). */
int eb_qemu_free_port(uint16_t *port, eb_error *err);

#endif
