/* QEMU for an emulated ESP32-C3: the command line, the process, its UART's
 * socket, its flash file. The options are those of Espressif's esp-develop
 * fork (ESP-IDF's own `idf.py qemu` passes the same: tools/idf_py_actions/
 * qemu_ext.py, QemuTarget 'esp32c3' and run_qemu in espressif/esp-idf
 * 102122904ad): `-M esp32c3`, the flash as `-drive if=mtd`, the strap as
 * `-global driver=esp32c3.gpio,property=strap_mode,value=0x02`, the timer
 * group watchdog off, `-nic user,model=open_eth`. */
#include "espbench/adapters/qemu_proc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "espbench/adapters/iperf_proc.h"
#include "espbench/adapters/spawn.h"
#include "espbench/base/clock.h"

#define ROM_FILE "esp32c3-rom.bin"
/* QEMU could not bind the UART's port (taken between our check and its bind): tries. */
#define START_TRIES 3

struct eb_qemu {
    pid_t pid;
    bool reaped;
    uint16_t uart;
    char url[64];
    char program[PATH_MAX];
};

const char *eb_qemu_port(const eb_qemu *q) { return q->url; }
pid_t eb_qemu_pid(const eb_qemu *q) { return q->pid; }
const char *eb_qemu_program_used(const eb_qemu *q) { return q->program; }

void eb_qemu_program(const char *opt, char *out, size_t cap)
{
    const char *e = getenv(EB_QEMU_ENV);
    snprintf(out, cap, "%s", opt && *opt ? opt : e && *e ? e : EB_QEMU_PROGRAM);
}

/* The program's path: as given when it names a folder, else the first on PATH. */
static bool find_program(const char *prog, char *out, size_t cap)
{
    if (strchr(prog, '/')) {
        snprintf(out, cap, "%s", prog);
        return access(out, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        if ((size_t)snprintf(out, cap, "%.*s/%s", (int)n, n ? p : ".", prog) < cap && access(out, X_OK) == 0)
            return true;
        p += n + (p[n] == ':');
    }
    snprintf(out, cap, "%s", prog);
    return false;
}

/* A build that keeps its ROM beside the program (a fork built and copied
 * as is) needs -L; Espressif's release packages find theirs in share/qemu. */
static void rom_dir_of(const char *program, char *out, size_t cap)
{
    out[0] = 0;
    const char *slash = strrchr(program, '/');
    if (!slash)
        return;
    char rom[PATH_MAX];
    if ((size_t)snprintf(rom, sizeof rom, "%.*s/%s", (int)(slash - program), program, ROM_FILE) < sizeof rom &&
        access(rom, R_OK) == 0)
        snprintf(out, cap, "%.*s", (int)(slash - program), program);
}

int eb_qemu_free_port(uint16_t *port, eb_error *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "qemu: socket: %s", strerror(errno));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int rc = bind(fd, (struct sockaddr *)&a, sizeof a) || getsockname(fd, (struct sockaddr *)&a, &len);
    int e = errno;
    close(fd);
    if (rc)
        return eb_fail(err, EB_EIO, "qemu: no free TCP port on 127.0.0.1: %s", strerror(e));
    *port = ntohs(a.sin_port);
    return 0;
}

int eb_qemu_flash_file(const char *path, size_t bytes, eb_error *err)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == bytes)
        return 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "qemu: cannot create the flash file %s: %s", path, strerror(errno));
    static unsigned char ff[65536];
    memset(ff, 0xFF, sizeof ff);
    int rc = 0;
    for (size_t done = 0; done < bytes && !rc;) {
        size_t n = bytes - done < sizeof ff ? bytes - done : sizeof ff;
        ssize_t w = write(fd, ff, n);
        if (w <= 0)
            rc = eb_fail(err, EB_EIO, "qemu: writing the flash file %s: %s", path,
                         w < 0 ? strerror(errno) : "short write");
        else
            done += (size_t)w;
    }
    if (close(fd) != 0 && !rc)
        rc = eb_fail(err, EB_EIO, "qemu: writing the flash file %s: %s", path, strerror(errno));
    return rc;
}

/* The command line; the texts it points to live in a. */
typedef struct qemu_args {
    const char *v[40];
    char drive[PATH_MAX + 40], serial[64], nic[64 + EB_QEMU_MAX_FWD * 64], machine[128];
} qemu_args;

static void build_args(qemu_args *a, const eb_qemu_opts *o, const char *program, const char *rom_dir,
                       uint16_t uart)
{
    const char *m = o->machine && *o->machine ? o->machine : "esp32c3";
    const char *fa = o->fwd_addr && *o->fwd_addr ? o->fwd_addr : "127.0.0.1";
    int n = 0;
    a->v[n++] = program;
    a->v[n++] = "-M";
    a->v[n++] = m;
    if (rom_dir[0]) {
        a->v[n++] = "-L";
        a->v[n++] = rom_dir;
    }
    /* No window, no monitor: UART0 alone, on its socket. wait=on: the guest
     * starts when espbench connects, so not a line of the boot log (its
     * provenance) is printed to nobody. */
    a->v[n++] = "-display";
    a->v[n++] = "none";
    a->v[n++] = "-monitor";
    a->v[n++] = "none";
    snprintf(a->drive, sizeof a->drive, "file=%s,if=mtd,format=raw", o->flash);
    a->v[n++] = "-drive";
    a->v[n++] = a->drive;
    snprintf(a->serial, sizeof a->serial, "tcp:127.0.0.1:%u,server=on,wait=on", uart);
    a->v[n++] = "-serial";
    a->v[n++] = a->serial;
    /* The emulated CPU is slower than a chip and stalls when the host is
     * busy: a timer group's watchdog would reset a healthy app. */
    snprintf(a->machine, sizeof a->machine, "driver=timer.%s.timg,property=wdt_disable,value=true", m);
    a->v[n++] = "-global";
    a->v[n++] = a->machine;
    if (o->download) {
        a->v[n++] = "-global";
        a->v[n++] = "driver=esp32c3.gpio,property=strap_mode,value=0x02";
    }
    /* The guest's clock from the instructions it runs: on a busy host the
     * emulated UART then never outruns the ROM loader, whose FIFO would drop
     * bytes of a long write (auto: kept near the host's clock), and the app's
     * timers keep firing (a fixed 8 ns an instruction: without it, or with
     * auto, the app was seen to stop for good after its first lines on a
     * host at load 10-60). docs/emulator.md. */
    a->v[n++] = "-icount";
    a->v[n++] = o->icount && *o->icount ? o->icount : o->download ? "shift=auto" : "shift=3";
    int k = snprintf(a->nic, sizeof a->nic, "user,model=open_eth");
    for (int i = 0; i < o->n_fwd && i < EB_QEMU_MAX_FWD; i++)
        k += snprintf(a->nic + k, sizeof a->nic - (size_t)k, ",hostfwd=%s:%s:%u-:%u", o->fwd[i].udp ? "udp" : "tcp",
                      fa, o->fwd[i].host_port, o->fwd[i].guest_port);
    a->v[n++] = "-nic";
    a->v[n++] = a->nic;
    a->v[n] = NULL;
}

/* QEMU refused to start: its last line says why ("could not bind", an unknown machine). */
static void last_line(const char *log, char *out, size_t cap)
{
    out[0] = 0;
    FILE *f = log ? fopen(log, "re") : NULL;
    for (char l[400]; f && fgets(l, sizeof l, f);)
        if (l[0] != '\n' && cap) { /* cut to out's size (a Release build's -Wformat-truncation) */
            size_t n = strnlen(l, cap - 1);
            memcpy(out, l, n);
            out[n] = 0;
        }
    if (f)
        fclose(f);
    out[strcspn(out, "\r\n")] = 0;
}

static void reap_now(eb_qemu *q)
{
    int st;
    if (!q->reaped && q->pid > 0 && waitpid(q->pid, &st, WNOHANG) == q->pid)
        q->reaped = true;
}

bool eb_qemu_running(eb_qemu *q)
{
    reap_now(q);
    return q->pid > 0 && !q->reaped;
}

/* One start on a port: 0 when the UART listens, 1 when QEMU ended before
 * (the port may have been taken: try another), else an error. */
static int start_once(eb_qemu *q, const eb_qemu_opts *o, const char *rom_dir, eb_error *err)
{
    qemu_args a;
    build_args(&a, o, q->program, rom_dir, q->uart);
    int fd = open(o->log ? o->log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "qemu: cannot open its log %s: %s", o->log, strerror(errno));
    eb_spawn_spec sp = {.file = q->program, .argv = a.v, .out_fd = fd, .err_fd = fd, .death_signal = SIGTERM};
    q->reaped = false;
    int e = eb_spawn(&sp, &q->pid);
    close(fd);
    if (e) {
        q->pid = 0;
        return eb_fail(err, e == ENOENT || e == EACCES ? EB_ECONFIG : EB_EIO,
                       "qemu: cannot run '%s': %s; give --qemu-bin PATH or set %s (docs/emulator.md)", q->program,
                       strerror(e), EB_QEMU_ENV);
    }
    eb_deadline d = eb_deadline_in((uint64_t)(o->start_ms > 0 ? o->start_ms : 30000));
    while (!eb_deadline_passed(d)) {
        if (eb_net_port_bound("127.0.0.1", q->uart, false) == 1)
            return 0;
        if (!eb_qemu_running(q))
            return 1;
        eb_sleep_ms(20);
    }
    return eb_fail(err, EB_EIO, "qemu: its UART's socket (127.0.0.1:%u) did not listen within %d ms (see %s)",
                   q->uart, o->start_ms > 0 ? o->start_ms : 30000, o->log ? o->log : "no log");
}

int eb_qemu_start(eb_qemu **out, const eb_qemu_opts *o, eb_error *err)
{
    *out = NULL;
    if (!o->flash || !*o->flash)
        return eb_fail(err, EB_ECONFIG, "qemu: no flash file given");
    eb_qemu *q = calloc(1, sizeof *q);
    if (!q)
        abort();
    char prog[PATH_MAX], rom_dir[PATH_MAX];
    eb_qemu_program(o->program, prog, sizeof prog);
    if (!find_program(prog, q->program, sizeof q->program)) {
        free(q);
        return eb_fail(err, EB_ECONFIG,
                       "qemu: '%s' not found%s; install Espressif's QEMU (idf_tools.py install qemu-riscv32), "
                       "give --qemu-bin PATH or set %s (docs/emulator.md)",
                       prog, strchr(prog, '/') ? " or not executable" : " on PATH", EB_QEMU_ENV);
    }
    if (o->rom_dir && *o->rom_dir)
        snprintf(rom_dir, sizeof rom_dir, "%s", o->rom_dir);
    else
        rom_dir_of(q->program, rom_dir, sizeof rom_dir);
    int rc = 1;
    for (int t = 0; t < START_TRIES && rc == 1; t++) {
        if ((rc = eb_qemu_free_port(&q->uart, err)) != 0)
            break;
        rc = start_once(q, o, rom_dir, err);
    }
    if (rc == 1) {
        char why[300];
        last_line(o->log, why, sizeof why);
        rc = eb_fail(err, EB_ECONFIG, "qemu: '%s' ended before its UART listened%s%s (%s)", q->program,
                     why[0] ? ": " : "", why, o->log ? o->log : "no log");
    }
    if (rc) {
        eb_qemu_stop(q);
        return rc;
    }
    snprintf(q->url, sizeof q->url, "socket://127.0.0.1:%u", q->uart);
    *out = q;
    return 0;
}

void eb_qemu_stop(eb_qemu *q)
{
    if (!q)
        return;
    if (q->pid > 0 && !q->reaped) {
        kill(q->pid, SIGTERM);
        eb_deadline d = eb_deadline_in(2000);
        while (eb_qemu_running(q) && !eb_deadline_passed(d))
            eb_sleep_ms(10);
        if (!q->reaped) {
            kill(q->pid, SIGKILL);
            eb_spawn_reap(q->pid, NULL);
        }
    }
    free(q);
}
