/* `run --sim`: start espbench-vboard for a chip, build the espbench firmware
 * image with `espbench-vboard mkimage`, flash it through the ROM loader, and
 * hand back the pty. From there the run takes the hardware path.
 *
 * The vboard is started through spawn.h, which asks the kernel to stop it
 * when espbench dies (PR_SET_PDEATHSIG, SIGTERM here so that it removes its
 * pty link and control socket): a SIGKILLed run must not leave a board behind
 * holding its address. */
#include "espbench/adapters/spawn.h"
#include "espbench/base/fs.h"
#include "espbench/jobs/sim.h"
#include "espbench/base/sha256.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "espbench/base/buf.h"
#include "espbench/base/clock.h"
#include "espbench/jobs/flash.h"
#include "espbench/protocols/rom_client.h"
#include "espbench/base/log.h"
#include "espbench/jobs/run.h"

#define SIM_APP_OFFSET 0x10000u
#define SIM_AP_ENV "ESPBENCH_SIM_AP_PASSWORD"

struct eb_sim {
    pid_t pid;
    int out_fd;         /* the vboard's stdout, kept open so it never sees EPIPE */
    char pty[256];
    char ip[16];
    char sha256[72];
    char control[108];  /* the vboard's control socket (sun_path fits) */
};

const char *eb_sim_port(const eb_sim *s) { return s->pty; }
const char *eb_sim_app_sha256(const eb_sim *s) { return s->sha256; }
const char *eb_sim_control(const eb_sim *s) { return s->control; }

void eb_sim_vboard_path(char *out, size_t cap)
{
    const char *e = getenv("ESPBENCH_VBOARD");
    if (e && *e) {
        snprintf(out, cap, "%s", e);
        return;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            snprintf(out, cap, "%s/espbench-vboard", self);
            if (access(out, X_OK) == 0)
                return;
        }
    }
    snprintf(out, cap, "espbench-vboard");
}

/* Is any socket bound to this exact address? (/proc/net/{tcp,udp}) */
static bool address_in_use(uint32_t be_addr)
{
    static const char *const files[] = {"/proc/net/tcp", "/proc/net/udp"};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "re");
        if (!f)
            continue;
        char line[512];
        bool used = false;
        while (!used && fgets(line, sizeof line, f)) {
            unsigned la;
            if (sscanf(line, " %*d: %x:", &la) == 1 && la == be_addr)
                used = true;
        }
        fclose(f);
        if (used)
            return true;
    }
    return false;
}

int eb_sim_free_address(char *out, size_t cap, uint32_t salt, eb_error *err)
{
    uint32_t x = (uint32_t)getpid() * 2654435761u ^ salt * 40503u ^ (uint32_t)eb_now_us();
    for (int tries = 0; tries < 256; tries++, x = x * 1103515245u + 12345u) {
        unsigned a = 1 + (x >> 8) % 254, b = 1 + (x >> 16) % 254, c = 2 + (x >> 24) % 252;
        char ip[16];
        snprintf(ip, sizeof ip, "127.%u.%u.%u", a, b, c);
        struct in_addr in;
        inet_pton(AF_INET, ip, &in);
        if (!address_in_use(in.s_addr)) {
            snprintf(out, cap, "%s", ip);
            return 0;
        }
    }
    return eb_fail(err, EB_EIO, "sim: no free 127.X.Y.Z address found");
}

/* Runs the vboard with args to completion (mkimage); output to log. */
static int run_tool(const char *prog, char *const *args, const char *log, eb_error *err)
{
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "sim: cannot open %s: %s", log, strerror(errno));
    eb_spawn_spec sp = {.file = prog, .argv = (const char *const *)args, .out_fd = fd, .err_fd = fd};
    pid_t pid;
    int e = eb_spawn(&sp, &pid);
    close(fd);
    if (e == ENOENT || e == EACCES)
        return eb_fail(err, EB_ECONFIG, "sim: cannot run '%s': build it (espbench-vboard) or set ESPBENCH_VBOARD",
                       prog);
    if (e)
        return eb_fail(err, EB_EIO, "sim: cannot run '%s': %s", prog, strerror(e));
    int st;
    eb_spawn_reap(pid, &st);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return eb_fail(err, EB_EIO, "sim: '%s %s' failed (see %s)", prog, args[1], log);
    return 0;
}

static int read_file(const char *path, eb_buf *b, eb_error *err)
{
    int rc = eb_file_read(path, 64u << 20, "not a firmware image?", b, err);
    if (rc)
        eb_error_prefix(err, "sim: ");
    return rc;
}

static int flash_app(const eb_sim_opts *o, const char *port, const char *image, char sha[65], eb_error *err)
{
    eb_buf img;
    eb_buf_init(&img);
    int rc = read_file(image, &img, err);
    if (rc)
        return rc;
    if ((rc = eb_sha256_hex(img.data, img.len, sha, err))) {
        eb_buf_free(&img);
        return rc;
    }
    /* A pty has no DTR/RTS: the vboard enters download mode on the first SYNC,
     * so no reset sequence is tried before, and after writing the loader is
     * asked to run the app (esptool's soft reset) rather than a hard reset
     * tried and warned about on the sim's own port. */
    eb_flash_opts fo = {.profiles = o->profiles, .expect_chip = o->chip, .before = "no-reset",
                        .after = "no-reset"};
    eb_flash_session *fs = NULL;
    eb_flash_region reg = {SIM_APP_OFFSET, img.data, img.len, image};
    rc = eb_flash_open(&fs, port, &fo, err);
    if (!rc)
        rc = eb_flash_write(fs, &reg, 1, NULL, err);
    if (!rc)
        rc = eb_rom_leave_loader(eb_flash_rom(fs), err);
    eb_flash_close(fs);
    eb_buf_free(&img);
    if (rc)
        eb_error_prefix(err, "sim: flashing the %s firmware: ", o->project ? o->project : "espbench");
    return rc;
}

/* The tier model's inputs (docs/model.md) as vboard flags: overlay tiers,
 * --model and the link; lk holds the numbers' text. Returns the new count. */
static int add_model_args(const eb_sim_opts *o, char **args, int n, char lk[5][32])
{
    if (o->profiles_dir && *o->profiles_dir) {
        args[n++] = "--profiles";
        args[n++] = (char *)o->profiles_dir;
    }
    if (o->force_model)
        args[n++] = "--model";
    /* stations: boards sharing the simulated AP's medium (run --aggregate) */
    const double lv[5] = {o->link.rssi_dbm, o->link.phy_mbps, o->link.rtt_ms, o->link.loss_pct, o->link.stations};
    static const char *const lf[5] = {"--rssi", "--phy", "--rtt", "--loss", "--stations"};
    for (int k = 0; k < 5; k++) {
        if (isnan(lv[k]) || (k >= 2 && lv[k] == 0) || (k == 4 && lv[k] <= 1))
            continue;
        snprintf(lk[k], 32, "%g", lv[k]);
        args[n++] = (char *)lf[k];
        args[n++] = lk[k];
    }
    return n;
}

/* An ESP-Hosted pair: the vboard plays host, co-processor and transport. */
static int add_pair_args(const eb_sim_opts *o, char **args, int n)
{
    if (o->coprocessor) {
        args[n++] = "--coprocessor";
        args[n++] = (char *)o->coprocessor;
        args[n++] = "--transport";
        args[n++] = (char *)o->transport;
    }
    return n;
}

/* A vboard that refused its arguments (a --sim-fault it does not know) said
 * why in the last line of its log: pass that on. */
static int start_failed(const char *prog, const char *log, eb_error *err)
{
    char why[300] = "";
    FILE *logf = fopen(log, "r");
    for (char l[300]; logf && fgets(l, sizeof l, logf);)
        if (l[0] != '\n')
            snprintf(why, sizeof why, "%s", l);
    if (logf)
        fclose(logf);
    why[strcspn(why, "\r\n")] = 0;
    if (!strncmp(why, "espbench-vboard: ", 17))
        return eb_fail(err, EB_ECONFIG, "sim: the virtual board refused its options: %s", why + 17);
    return eb_fail(err, EB_EIO, "sim: %s did not report its pty (see %s)", prog, log);
}

/* The control socket (sweeps change the link through it): in the output
 * folder when the path fits a Unix socket address, else in the temp dir. */
static void control_path(eb_sim *s, const char *out_dir, const char *name)
{
    if ((size_t)snprintf(s->control, sizeof s->control, "%s/vboard-%s.ctl", out_dir, name) < sizeof s->control)
        return;
    const char *tmp = getenv("TMPDIR");
    snprintf(s->control, sizeof s->control, "%s/espbench-%d-%.40s.ctl", tmp && strlen(tmp) < 40 ? tmp : "/tmp",
             (int)getpid(), name);
}

/* The vboard's command line for one board; the numbers' text lives in the struct. */
typedef struct sim_args {
    char *v[64];
    char ap[160], noise[32], seed[32], rssi[16], lk[5][32];
    char cfg[PATH_MAX + 32];
} sim_args;

static void vboard_args(sim_args *a, char *prog, const eb_sim_opts *o, eb_sim *s, char *flashf, char *link)
{
    snprintf(a->rssi, sizeof a->rssi, "%d", o->rssi ? o->rssi : -40);
    snprintf(a->ap, sizeof a->ap, "%s:env:%s:%s", o->ssid ? o->ssid : EB_SIM_SSID, SIM_AP_ENV, a->rssi);
    snprintf(a->noise, sizeof a->noise, "%g", o->noise_pct);
    snprintf(a->seed, sizeof a->seed, "%u", o->seed);
    int n = 0;
    char **v = a->v;
    v[n++] = prog;
    v[n++] = "--chip";
    v[n++] = (char *)o->chip;
    v[n++] = "--flash";
    v[n++] = flashf;
    v[n++] = "--link";
    v[n++] = link;
    v[n++] = "--ip";
    v[n++] = s->ip;
    v[n++] = "--ap";
    v[n++] = a->ap;
    v[n++] = "--noise";
    v[n++] = a->noise;
    v[n++] = "--seed";
    v[n++] = a->seed;
    /* The line is not what is measured: no pacing at the baud rate, so that
     * flashing the image and the console cost no more than they must. */
    v[n++] = "--no-baud-timing";
    n = add_model_args(o, v, n, a->lk);
    v[n++] = "--no-flash-timing";
    /* espbench reaches the sim board through a pty, which carries no DTR/RTS:
     * a SYNC stands in for the reset sequence (docs/vboard.md). */
    v[n++] = "--sync-resets";
    v[n++] = "--control";
    v[n++] = s->control;
    n = add_pair_args(o, v, n);
    /* An image from an ESP-IDF build: the build's settings beside it
     * (BUILD/config/sdkconfig.json) reach the board's figures through the model. */
    struct stat cst;
    const char *slash = o->app_image ? strrchr(o->app_image, '/') : NULL;
    if (slash &&
        snprintf(a->cfg, sizeof a->cfg, "%.*s/config/sdkconfig.json", (int)(slash - o->app_image), o->app_image) > 0 &&
        stat(a->cfg, &cst) == 0) {
        v[n++] = "--sdkconfig-json";
        v[n++] = a->cfg;
    }
    for (int i = 0; i < o->n_faults && i < EB_SIM_MAX_FAULTS; i++) {
        v[n++] = "--fault";
        v[n++] = (char *)o->faults[i];
    }
    v[n] = NULL;
}

/* Starts the vboard (SIGTERM when espbench dies, so that it removes its pty
 * link and control socket; the AP's password in its environment, never in
 * argv), its stderr into the log, its stdout through a pipe kept open (it
 * must never see EPIPE) whose first line is the pty's path. */
static int start_vboard(eb_sim *s, const char *prog, char **args, const char *log, const char *ap_password,
                        eb_error *err)
{
    int po[2];
    if (pipe2(po, O_CLOEXEC) != 0)
        return eb_fail(err, EB_EIO, "sim: pipe: %s", strerror(errno));
    int logfd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    size_t pwlen = strlen(SIM_AP_ENV) + 2 + (ap_password ? strlen(ap_password) : 0);
    char *pw = malloc(pwlen);
    if (!pw)
        abort();
    snprintf(pw, pwlen, "%s=%s", SIM_AP_ENV, ap_password ? ap_password : "");
    const char *env[] = {pw, NULL};
    eb_spawn_spec sp = {.file = prog, .argv = (const char *const *)args, .env = env, .out_fd = po[1],
                        .err_fd = logfd >= 0 ? logfd : STDERR_FILENO, .death_signal = SIGTERM};
    int e = eb_spawn(&sp, &s->pid);
    memset(pw, 0, pwlen);
    free(pw);
    close(po[1]);
    if (logfd >= 0)
        close(logfd);
    if (e) {
        close(po[0]);
        s->pid = 0;
        if (e == ENOENT || e == EACCES)
            return eb_fail(err, EB_ECONFIG,
                           "sim: cannot run '%s': build it (espbench-vboard) or set ESPBENCH_VBOARD", prog);
        return eb_fail(err, EB_EIO, "sim: cannot run '%s': %s", prog, strerror(e));
    }
    s->out_fd = po[0];
    char line[512];
    size_t len = 0;
    eb_deadline d = eb_deadline_in(10000);
    while (len < sizeof line - 1 && !memchr(line, '\n', len) && !eb_deadline_passed(d)) {
        struct pollfd pf = {po[0], POLLIN, 0};
        if (poll(&pf, 1, eb_deadline_left_ms(d)) <= 0)
            continue;
        ssize_t r = read(po[0], line + len, sizeof line - 1 - len);
        if (r <= 0)
            break;
        len += (size_t)r;
    }
    line[len] = 0;
    line[strcspn(line, "\r\n")] = 0;
    if (line[0] != '/')
        return start_failed(prog, log, err);
    snprintf(s->pty, sizeof s->pty, "%.255s", line);
    return 0;
}

int eb_sim_start(eb_sim **out, const eb_sim_opts *o, eb_error *err)
{
    char prog[PATH_MAX];
    if (o->vboard)
        snprintf(prog, sizeof prog, "%s", o->vboard);
    else
        eb_sim_vboard_path(prog, sizeof prog);
    const char *name = o->name && *o->name ? o->name : "sim";
    char image[PATH_MAX], flashf[PATH_MAX], link[PATH_MAX], log[PATH_MAX], pidf[PATH_MAX];
    const char *project = o->project && *o->project ? o->project : "espbench";
    snprintf(image, sizeof image, "%s/%s-%s-%s.bin", o->out_dir, name, project, o->chip);
    snprintf(flashf, sizeof flashf, "%s/%s-flash.bin", o->out_dir, name);
    snprintf(link, sizeof link, "%s/%s.tty", o->out_dir, name);
    snprintf(log, sizeof log, "%s/%s-vboard.log", o->out_dir, name);
    snprintf(pidf, sizeof pidf, "%s/%s-vboard.pid", o->out_dir, name);
    if (eb_mkdir_p(o->out_dir) != 0)
        return eb_fail(err, EB_EIO, "cannot create %s: %s; check --out and its permissions", o->out_dir,
                       strerror(errno));

    /* The espbench firmware image for this chip (or the one given, as built). */
    if (o->app_image) {
        snprintf(image, sizeof image, "%s", o->app_image);
    } else {
        char *args[] = {prog, "mkimage", "--chip", (char *)o->chip, "--project", (char *)project,
                        "--idf", (char *)(o->idf ? o->idf : "v5.3"), "-o", image, NULL};
        int rc = run_tool(prog, args, log, err);
        if (rc)
            return rc;
    }

    eb_sim *s = calloc(1, sizeof *s);
    if (!s)
        abort();
    s->out_fd = -1;
    uint32_t salt = 0;
    for (const char *p = name; *p; p++)
        salt = salt * 31 + (unsigned char)*p;
    int rc = eb_sim_free_address(s->ip, sizeof s->ip, salt, err);
    if (rc) {
        free(s);
        return rc;
    }
    control_path(s, o->out_dir, name);
    sim_args a;
    vboard_args(&a, prog, o, s, flashf, link);
    if ((rc = start_vboard(s, prog, a.v, log, o->ap_password, err)) != 0) {
        eb_sim_stop(s);
        return rc;
    }
    FILE *pf = fopen(pidf, "we");
    if (pf) {
        fprintf(pf, "%d\n", (int)s->pid);
        fclose(pf);
    }
    eb_log(EB_LOG_DEBUG, "sim: %s %s at %s on %s", prog, o->chip, s->ip, s->pty);
    rc = flash_app(o, s->pty, image, s->sha256, err);
    if (rc) {
        eb_sim_stop(s);
        return rc;
    }
    *out = s;
    return 0;
}

void eb_sim_stop(eb_sim *s)
{
    if (!s)
        return;
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        eb_deadline d = eb_deadline_in(2000);
        int st;
        pid_t r;
        while ((r = waitpid(s->pid, &st, WNOHANG)) == 0 && !eb_deadline_passed(d))
            eb_sleep_ms(10);
        if (r == 0) {
            kill(s->pid, SIGKILL);
            eb_spawn_reap(s->pid, NULL);
        }
    }
    if (s->out_fd >= 0)
        close(s->out_fd);
    free(s);
}
