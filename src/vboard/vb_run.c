/* The virtual board's main loop (see vb_run.h and docs/vboard.md).
 *
 * One thread owns the board: it reads the pty, runs the ROM loader, serves the
 * control socket, drives boot timers and performs resets that any thread
 * requested through b->request_reset (signalled over a pipe). Output goes
 * through vb_pty's paced writer thread. */
#include "vb_run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "espbench/base/clock.h"
#include "espbench/formats/slip.h"
#include "vb_boot.h"
#include "vb_control.h"
#include "vb_echo.h"
#include "espbench/formats/sdkconfig.h"
#include "espbench/base/fs.h"
#include "espbench/adapters/udp_echo.h"
#include "espbench/adapters/model_files.h"
#include "espbench/adapters/profile_dirs.h"
#include "vb_faults.h"
#include "vb_flash.h"
#include "vb_hosted.h"
#include "vb_pty.h"
#include "vb_rom.h"

#define MAX_POLL 16

enum boot_timer { T_NONE, T_SLOW_BOOT, T_INVALID_LOOP, T_EN_RELEASE };

/* The EN pin's RC delay on a devkit (10 kOhm x 1 uF, about 10 ms): IO0 is
 * sampled this long after the host releases EN, so a reset sequence that
 * changes DTR and RTS one after the other still lands in download mode. */
#define EN_RC_DELAY_MS 20

typedef struct vb_run_state {
    const vb_opts *o;
    eb_profiles prof;
    bool prof_loaded;
    eb_model model;         /* tier model constants (docs/model.md) */
    bool model_loaded;
    vb_board b;
    vb_flash flash;
    vb_pty *pty;
    vb_rom *rom;
    vb_control *ctl;
    vb_echo *echo; /* UDP echo for the latency test (NULL when the port is taken) */
    int wake[2];
    int sfd;
    bool powered;      /* the first power-on waits for a host to open the port */
    bool host;
    bool quit;
    pthread_mutex_t rlock; /* guards the pending reset */
    bool reset_pending, reset_download;
    char reset_reason[24];
    eb_slip_decoder appdec; /* watches for SYNC outside download mode */
    eb_image_info app;
    bool app_valid;
    enum boot_timer timer;
    uint64_t timer_at;
    int loop_lines;
    vb_reset_cause cause;
    uint32_t seed_state;
    uint64_t rx_free_at_us; /* baud timing: when the UART has taken in the bytes read so far */
    bool dtr, rts;          /* the host's modem lines (control socket `lines`) */
    bool en_held;           /* EN held low by them: the chip is in reset */
} vb_run_state;

/* ---- board callbacks --------------------------------------------------- */

static void board_write(vb_board *b, const void *data, size_t len)
{
    vb_run_state *s = b->impl;
    vb_pty_write(s->pty, data, len);
}

static void board_request_reset(vb_board *b, bool download, const char *reason)
{
    vb_run_state *s = b->impl;
    pthread_mutex_lock(&s->rlock);
    s->reset_pending = true;
    s->reset_download = download;
    snprintf(s->reset_reason, sizeof s->reset_reason, "%s", reason ? reason : "sw");
    pthread_mutex_unlock(&s->rlock);
    ssize_t w = write(s->wake[1], "r", 1);
    (void)w;
}

static void rom_set_baud(void *ctx, uint32_t baud)
{
    vb_run_state *s = ctx;
    vb_pty_set_baud_after_queued(s->pty, baud);
}

static uint32_t rom_current_baud(void *ctx)
{
    vb_run_state *s = ctx;
    return vb_pty_baud(s->pty);
}

static void set_mode(vb_run_state *s, enum vb_mode m)
{
    pthread_mutex_lock(&s->b.lock);
    s->b.mode = m;
    pthread_mutex_unlock(&s->b.lock);
}

static enum vb_mode get_mode(vb_run_state *s)
{
    pthread_mutex_lock(&s->b.lock);
    enum vb_mode m = s->b.mode;
    pthread_mutex_unlock(&s->b.lock);
    return m;
}

static void emit(vb_run_state *s, eb_buf *out)
{
    vb_pty_write(s->pty, out->data, out->len);
    eb_buf_reset(out);
}

/* ---- boot --------------------------------------------------------------- */

static uint32_t next_rand(vb_run_state *s)
{
    s->seed_state = s->seed_state * 1664525u + 1013904223u;
    return s->seed_state >> 8;
}

static void start_app_or_loop(vb_run_state *s)
{
    eb_buf out;
    eb_buf_init(&out);
    s->app_valid = vb_boot_find_app(s->b.chip, s->flash.data, s->flash.size, &s->app);
    if (s->app_valid) {
        vb_boot_rom_load_lines(s->b.chip, &out);
        emit(s, &out);
        vb_fault f;
        if (vb_board_take_fault(&s->b, "garbage", NULL, &f)) {
            long n = vb_fault_arg_long(&f, 64);
            for (long i = 0; i < n; i++)
                eb_buf_append_byte(&out, (uint8_t)next_rand(s));
            emit(s, &out);
        }
        set_mode(s, VB_MODE_APP);
        s->timer = T_NONE;
        vb_console_boot(s->b.console, &s->app, vb_reset_cause_name(s->cause));
    } else {
        set_mode(s, VB_MODE_NO_APP);
        uint32_t word = eb_rd32le(s->flash.data + VB_APP_OFFSET);
        vb_boot_invalid_header_line(s->b.chip, word, &out);
        emit(s, &out);
        s->loop_lines = 1;
        int period = vb_boot_invalid_header_period_ms(s->b.chip);
        s->timer = period > 0 ? T_INVALID_LOOP : T_NONE;
        s->timer_at = eb_now_ms() + (uint64_t)period;
    }
    eb_buf_free(&out);
}

/* A reset: everything the app runs stops, the ROM prints its banner, then
 * either the loader waits for a host (download) or the flash boot proceeds. */
static void do_reset(vb_run_state *s, vb_reset_cause cause, bool download)
{
    if (s->powered)
        vb_console_halt(s->b.console);
    s->powered = true;
    s->cause = cause;
    s->timer = T_NONE;
    vb_rom_reset(s->rom);
    eb_slip_decoder_next(&s->appdec);
    /* The loader detects the host's speed from its SYNC (vb_rom_synced); the
     * ROM's boot messages and the app's console run at 115200
     * (CONFIG_ESP_CONSOLE_UART_BAUDRATE). The forgiving board follows the host. */
    uint32_t host = vb_pty_host_baud(s->pty);
    vb_pty_set_baud(s->pty, (download || s->b.forgiving) && host ? host : 115200);
    eb_buf out;
    eb_buf_init(&out);
    vb_boot_rom_banner(s->b.chip, cause, download, &out);
    emit(s, &out);
    eb_buf_free(&out);
    if (download) {
        set_mode(s, VB_MODE_DOWNLOAD);
        return;
    }
    set_mode(s, VB_MODE_NO_APP); /* until the flash boot finishes */
    vb_fault f;
    if (vb_board_take_fault(&s->b, "slow-boot", NULL, &f)) {
        s->timer = T_SLOW_BOOT;
        s->timer_at = eb_now_ms() + (uint64_t)vb_fault_arg_long(&f, 1000);
        return;
    }
    start_app_or_loop(s);
}

static void on_timer(vb_run_state *s)
{
    enum boot_timer t = s->timer;
    s->timer = T_NONE;
    if (t == T_EN_RELEASE) {
        do_reset(s, VB_RST_POWERON, s->dtr && !s->rts); /* IO0 low: download mode */
        return;
    }
    if (t == T_SLOW_BOOT) {
        start_app_or_loop(s);
        return;
    }
    if (t != T_INVALID_LOOP)
        return;
    eb_buf out;
    eb_buf_init(&out);
    if (s->loop_lines >= vb_boot_invalid_header_burst(s->b.chip)) {
        /* the ROM's watchdog resets the chip and the flash boot starts over */
        vb_boot_rom_banner(s->b.chip, VB_RST_WDT, false, &out);
        s->loop_lines = 0;
    }
    vb_boot_invalid_header_line(s->b.chip, eb_rd32le(s->flash.data + VB_APP_OFFSET), &out);
    s->loop_lines++;
    emit(s, &out);
    eb_buf_free(&out);
    s->timer = T_INVALID_LOOP;
    s->timer_at = eb_now_ms() + (uint64_t)vb_boot_invalid_header_period_ms(s->b.chip);
}

/* ---- input from the host ------------------------------------------------ */

static void on_host_bytes(vb_run_state *s, const uint8_t *data, size_t len)
{
    if (s->en_held)
        return; /* a chip in reset hears nothing */
    /* Host and board at different speeds: the UART receives noise. */
    uint8_t noise_buf[65536];
    if (!s->b.forgiving) {
        enum vb_mode m = get_mode(s);
        if (m == VB_MODE_DOWNLOAD && !vb_rom_synced(s->rom)) {
            uint32_t host = vb_pty_host_baud(s->pty);
            if (host)
                vb_pty_set_baud(s->pty, host); /* the ROM's baud detection (on SYNC's 0x55 bytes) */
        }
        size_t n = vb_pty_rx_garble(s->pty, data, len, noise_buf, sizeof noise_buf);
        if (n) {
            data = noise_buf;
            len = n;
        }
    }
    while (len) {
        enum vb_mode m = get_mode(s);
        if (m == VB_MODE_DOWNLOAD) {
            vb_rom_feed(s->rom, data, len);
            return;
        }
        /* Application mode: text goes to the console. A real board ignores a
         * SYNC here (only the DTR/RTS reset sequence enters the loader); with
         * --sync-resets (or --forgiving) a SYNC frame stands in for that
         * sequence, which a pty cannot carry, and resets into download mode. */
        eb_buf noise;
        eb_buf_init(&noise);
        int done = 0;
        size_t used = eb_slip_decode(&s->appdec, data, len, &done, &noise);
        data += used;
        len -= used;
        if (noise.len && m == VB_MODE_APP)
            vb_console_feed(s->b.console, noise.data, noise.len);
        eb_buf_free(&noise);
        if (!done)
            continue;
        bool sync = vb_rom_is_sync(s->appdec.packet.data, s->appdec.packet.len);
        if (sync && s->powered && (s->b.sync_resets || s->b.forgiving)) {
            eb_buf pkt;
            eb_buf_init(&pkt);
            eb_buf_append(&pkt, s->appdec.packet.data, s->appdec.packet.len);
            do_reset(s, VB_RST_POWERON, true);
            vb_rom_handle(s->rom, pkt.data, pkt.len);
            eb_buf_free(&pkt);
        }
        eb_slip_decoder_next(&s->appdec);
    }
}

/* ---- control socket ------------------------------------------------------ */

static int ctl_reset(void *ctx, bool download, eb_buf *reply, eb_error *err)
{
    (void)err;
    vb_run_state *s = ctx;
    do_reset(s, VB_RST_POWERON, download);
    eb_buf_printf(reply, "%s", download ? "download" : "reset");
    return 0;
}

/* The auto-reset circuit of Espressif's devkits (esptool docs, "Automatic
 * bootloader"): RTS asserted with DTR not pulls EN low (reset); DTR asserted
 * with RTS not pulls IO0 low; both or neither leave both high. The chip
 * starts when EN rises and samples IO0 (download mode when low). */
static int ctl_lines(void *ctx, bool dtr, bool rts, eb_buf *reply, eb_error *err)
{
    (void)err;
    vb_run_state *s = ctx;
    s->dtr = dtr;
    s->rts = rts;
    bool en_low = rts && !dtr;
    if (en_low && !s->en_held) {
        if (s->powered)
            vb_console_halt(s->b.console);
        s->powered = true;
        s->en_held = true;
        s->timer = T_NONE;
        vb_rom_reset(s->rom);
        set_mode(s, VB_MODE_NO_APP);
    } else if (!en_low && s->en_held) {
        s->en_held = false;
        s->timer = T_EN_RELEASE;
        s->timer_at = eb_now_ms() + EN_RC_DELAY_MS;
    }
    eb_buf_printf(reply, "lines dtr=%d rts=%d", dtr, rts);
    return 0;
}

static int ctl_fault(void *ctx, const char *spec, eb_buf *reply, eb_error *err)
{
    vb_run_state *s = ctx;
    vb_fault f;
    if (vb_fault_parse(spec, &f, err) || vb_board_add_fault(&s->b, &f, err))
        return EB_ECONFIG;
    char txt[160];
    vb_fault_format(&f, txt, sizeof txt);
    eb_buf_printf(reply, "armed %s", txt);
    return 0;
}

static const char *mode_name(vb_run_state *s)
{
    if (!s->powered)
        return "off";
    if (s->en_held || s->timer == T_EN_RELEASE)
        return "reset";
    switch (get_mode(s)) {
    case VB_MODE_DOWNLOAD: return vb_rom_stub_running(s->rom) ? "stub" : "download";
    case VB_MODE_APP: return "app";
    case VB_MODE_NO_APP: return s->timer == T_SLOW_BOOT ? "booting" : "no-app";
    }
    return "?";
}

static int ctl_status(void *ctx, eb_buf *reply, eb_error *err)
{
    (void)err;
    vb_run_state *s = ctx;
    int armed = 0;
    pthread_mutex_lock(&s->b.lock);
    for (int i = 0; i < s->b.n_faults; i++)
        armed += s->b.faults[i].armed;
    pthread_mutex_unlock(&s->b.lock);
    bool app = s->app_valid && get_mode(s) == VB_MODE_APP;
    eb_buf_printf(reply, "mode=%s baud=%u chip=%s project=%s idf=%s ip=%s faults=%d", mode_name(s),
                  vb_pty_baud(s->pty), s->b.chip->name, app && s->app.project_name[0] ? s->app.project_name : "-",
                  app && s->app.idf_ver[0] ? s->app.idf_ver : "-", s->b.ip, armed);
    return 0;
}

static int ctl_link(void *ctx, const char *spec, eb_buf *reply, eb_error *err)
{
    vb_run_state *s = ctx;
    return vb_board_link_cmd(&s->b, spec, reply, err);
}

static int ctl_quit(void *ctx, eb_buf *reply, eb_error *err)
{
    (void)err;
    vb_run_state *s = ctx;
    s->quit = true;
    eb_buf_printf(reply, "bye");
    return 0;
}

/* ---- setup and loop ------------------------------------------------------ */

/* The build's settings (its build/config/sdkconfig.json): they act through
 * the model, so the model's constants must be there. */
static int load_build_settings(vb_board *b, const char *path, eb_error *err)
{
    if (!b->model)
        return eb_fail(err, EB_ECONFIG, "--sdkconfig-json: a build's settings act through the model, and there are "
                       "no model constants (profiles/model/model.yaml)");
    eb_buf t;
    eb_buf_init(&t);
    int rc = eb_file_read(path, 4u << 20, "not an sdkconfig.json?", &t, err);
    memset(&b->build, 0, sizeof b->build);
    if (!rc && eb_sdkconfig_json_build_fields((const char *)t.data, t.len, path, &b->build, err) < 0)
        rc = EB_ECONFIG;
    eb_buf_free(&t);
    b->have_build = rc == 0;
    return rc;
}

static int setup(vb_run_state *s, const vb_opts *o, eb_error *err)
{
    int rc = eb_profiles_load_default(&s->prof, o->profiles, err);
    if (rc)
        return rc;
    s->prof_loaded = true;
    const eb_chip *chip = eb_profiles_chip(&s->prof, o->chip);
    if (!chip) {
        char names[512] = "";
        for (int i = 0; i < s->prof.n_chips; i++) {
            if (i)
                strncat(names, ", ", sizeof names - strlen(names) - 1);
            strncat(names, s->prof.chips[i].name, sizeof names - strlen(names) - 1);
        }
        return eb_fail(err, EB_ECONFIG, "--chip %s: no such chip in the profiles (known: %s)", o->chip, names);
    }
    size_t fsize = chip->flash_size ? chip->flash_size : 4u * 1024 * 1024;
    if ((rc = vb_flash_open(&s->flash, o->flash, fsize, err)))
        return rc;
    vb_board *b = &s->b;
    b->profiles = &s->prof;
    b->chip = chip;
    b->flash = s->flash.data;
    b->flash_size = s->flash.size;
    snprintf(b->ip, sizeof b->ip, "%s", o->ip);
    memcpy(b->aps, o->aps, sizeof b->aps);
    b->n_aps = o->n_aps;
    b->seed = o->seed;
    b->noise_pct = o->noise_pct;
    /* The tier model: required when asked for, else published figures only. */
    s->model_loaded = eb_model_load_default(&s->model, err) == 0;
    if (!s->model_loaded && (o->force_model || !eb_model_link_is_published(&o->model_link)))
        return err->code;
    eb_error_clear(err);
    b->model = s->model_loaded ? &s->model : NULL;
    if ((rc = vb_hosted_setup(b, &s->prof, o->profiles, o->coprocessor, o->transport, err)))
        return rc;
    if (b->hosted && !b->model)
        return eb_fail(err, EB_ECONFIG, "--coprocessor: the pair's figures come from the model, and there are no "
                       "model constants (profiles/model/model.yaml)");
    if (o->sdkconfig_json && (rc = load_build_settings(b, o->sdkconfig_json, err)))
        return rc;
    b->force_model = o->force_model;
    b->link = o->model_link;
    b->atten_cdb = -1;
    b->baud_timing = o->baud_timing;
    b->flash_timing = o->flash_timing;
    b->forgiving = o->forgiving;
    b->sync_resets = o->sync_resets;
    b->ethernet = o->ethernet;
    b->baud = 115200;
    memcpy(b->faults, o->faults, sizeof b->faults);
    b->n_faults = o->n_faults;
    pthread_mutex_init(&b->lock, NULL);
    b->mode = VB_MODE_NO_APP;
    b->write = board_write;
    b->request_reset = board_request_reset;
    b->impl = s;
    s->seed_state = o->seed;
    if ((rc = vb_pty_open(&s->pty, o->link, o->baud_timing, 115200, err)))
        return rc;
    vb_pty_follow_host(s->pty, o->forgiving);
    vb_rom_hooks hooks = {.set_baud_after_reply = rom_set_baud, .current_baud = rom_current_baud, .ctx = s};
    s->rom = vb_rom_new(b, &s->flash, &hooks);
    b->console = vb_console_new(b);
    if (!s->rom || !b->console)
        return eb_fail(err, EB_EIO, "out of memory");
    if (o->control) {
        vb_control_target t = {.reset = ctl_reset, .fault = ctl_fault, .status = ctl_status, .quit = ctl_quit,
                               .link = ctl_link, .lines = ctl_lines, .ctx = s};
        if ((rc = vb_control_open(&s->ctl, o->control, &t, err)))
            return rc;
    }
    /* Not fatal: vboards sharing an address (tests) leave the echo to the first. */
    if (vb_echo_start(&s->echo, b, EB_UDP_ECHO_PORT, NULL))
        s->echo = NULL;
    return 0;
}

static void teardown(vb_run_state *s)
{
    if (s->b.console) {
        vb_console_halt(s->b.console);
        vb_console_free(s->b.console);
    }
    if (s->pty)
        vb_pty_close(s->pty);
    vb_rom_free(s->rom);
    vb_control_close(s->ctl);
    vb_echo_stop(s->echo);
    if (s->flash.data)
        vb_flash_close(&s->flash);
    if (s->prof_loaded)
        eb_profiles_free(&s->prof);
    if (s->model_loaded)
        eb_model_free(&s->model);
    eb_slip_decoder_free(&s->appdec);
    if (s->b.write)
        pthread_mutex_destroy(&s->b.lock);
    pthread_mutex_destroy(&s->rlock);
}

static void handle_wake(vb_run_state *s)
{
    char buf[64];
    while (read(s->wake[0], buf, sizeof buf) > 0) {
    }
    pthread_mutex_lock(&s->rlock);
    bool pending = s->reset_pending, download = s->reset_download;
    char reason[24];
    memcpy(reason, s->reset_reason, sizeof reason);
    s->reset_pending = false;
    pthread_mutex_unlock(&s->rlock);
    if (!pending)
        return;
    if (strcmp(reason, "run") == 0 && !download) {
        /* The ROM leaves the loader for the flash boot without a reset
         * (FLASH_END 1, stub RUN_USER_CODE): no banner, the app's console
         * speed. */
        vb_rom_reset(s->rom);
        vb_pty_set_baud(s->pty, s->b.forgiving && vb_pty_host_baud(s->pty) ? vb_pty_host_baud(s->pty) : 115200);
        start_app_or_loop(s);
        return;
    }
    do_reset(s, vb_reset_cause_from_name(reason), download);
}

static int loop(vb_run_state *s)
{
    uint8_t buf[65536];
    while (!s->quit) {
        bool host = vb_pty_host_present(s->pty);
        if (host && !s->powered)
            do_reset(s, VB_RST_POWERON, false); /* power-on when a host first opens the port */
        s->host = host;
        s->b.baud = vb_pty_baud(s->pty);

        struct pollfd fds[MAX_POLL];
        int n = 0, i_pty = -1;
        fds[n++] = (struct pollfd){.fd = s->sfd, .events = POLLIN};
        fds[n++] = (struct pollfd){.fd = s->wake[0], .events = POLLIN};
        /* With baud timing the board takes host bytes no faster than the line
         * delivers them (10 bits a byte): the pty buffer then fills and the
         * host's writes block as they would on a real UART. */
        uint64_t now_us = eb_now_us();
        vb_rom_poll(s->rom, now_us);
        /* The ROM busy with its flash takes no byte meanwhile; the host's wait
         * in the line (flash timing). The stub receives the next command into
         * its buffer while it writes (stub_flasher.c acks a block, then writes
         * it, "allowing next command to buffer"): its bytes keep flowing and
         * the answer waits for the write (vb_rom_poll). */
        uint64_t busy_until = vb_rom_busy_until(s->rom);
        bool rom_busy = get_mode(s) == VB_MODE_DOWNLOAD && busy_until > now_us && !vb_rom_stub_running(s->rom);
        bool rx_ready = (!s->b.baud_timing || now_us >= s->rx_free_at_us) && !rom_busy;
        if (host && rx_ready) {
            i_pty = n;
            fds[n++] = (struct pollfd){.fd = vb_pty_master_fd(s->pty), .events = POLLIN};
        }
        int i_ctl = n;
        if (s->ctl)
            n += vb_control_pollfds(s->ctl, fds + n, MAX_POLL - n);
        int timeout = host ? 1000 : 50; /* without a host, watch for one to open the port */
        uint64_t answer_at = vb_rom_answer_at(s->rom);
        uint64_t wake_at = answer_at && answer_at < busy_until ? answer_at : busy_until;
        if (wake_at > now_us) {
            int wait_ms = (int)((wake_at - now_us + 999) / 1000);
            if (wait_ms < timeout)
                timeout = wait_ms;
        }
        if (host && !rx_ready && s->rx_free_at_us > now_us) {
            int wait_ms = (int)((s->rx_free_at_us - now_us + 999) / 1000);
            if (wait_ms < timeout)
                timeout = wait_ms;
        }
        if (s->timer != T_NONE) {
            uint64_t now = eb_now_ms();
            int left = s->timer_at > now ? (int)(s->timer_at - now) : 0;
            if (left < timeout)
                timeout = left;
        }
        int r = poll(fds, (nfds_t)n, timeout);
        if (r < 0 && errno != EINTR)
            return eb_fail(NULL, EB_EIO, "poll");
        if (fds[0].revents)
            return 0; /* SIGTERM / SIGINT */
        if (fds[1].revents)
            handle_wake(s);
        if (i_pty >= 0 && (fds[i_pty].revents & POLLIN)) {
            size_t cap = sizeof buf;
            uint32_t baud = s->b.baud ? s->b.baud : 115200;
            uint64_t t = eb_now_us();
            if (s->b.baud_timing) {
                /* An idle line starts a new schedule; a late wake-up keeps it, so
                 * the average rate stays the baud rate whatever poll's granularity. */
                if (s->rx_free_at_us + 5000 < t)
                    s->rx_free_at_us = t;
                uint64_t behind_us = t > s->rx_free_at_us ? t - s->rx_free_at_us : 0;
                cap = (size_t)((behind_us + 2000) * baud / 10 / 1000000); /* what is due, plus ~2 ms */
                if (cap < 1)
                    cap = 1;
                if (cap > sizeof buf)
                    cap = sizeof buf;
            }
            ssize_t got = read(vb_pty_master_fd(s->pty), buf, cap);
            if (got > 0) {
                if (s->b.baud_timing)
                    s->rx_free_at_us += (uint64_t)got * 10u * 1000000u / baud;
                on_host_bytes(s, buf, (size_t)got);
            }
        }
        if (s->ctl)
            vb_control_service(s->ctl, fds + i_ctl, n - i_ctl);
        if (s->timer != T_NONE && eb_now_ms() >= s->timer_at)
            on_timer(s);
    }
    return 0;
}

int vb_run(const vb_opts *o, FILE *announce, eb_error *err)
{
    vb_run_state *s = calloc(1, sizeof *s);
    if (!s)
        return eb_fail(err, EB_EIO, "out of memory");
    s->o = o;
    s->sfd = -1;
    s->wake[0] = s->wake[1] = -1;
    pthread_mutex_init(&s->rlock, NULL);
    eb_slip_decoder_init(&s->appdec);
    /* Signals are taken through a signalfd; block them before any thread starts. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    s->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    int rc = 0;
    if (s->sfd < 0 || pipe2(s->wake, O_CLOEXEC | O_NONBLOCK) != 0)
        rc = eb_fail(err, EB_EIO, "cannot set up signal handling: %s", strerror(errno));
    if (!rc)
        rc = setup(s, o, err);
    if (!rc) {
        if (announce) {
            fprintf(announce, "%s\n", vb_pty_slave_path(s->pty));
            fflush(announce);
        }
        rc = loop(s);
    }
    teardown(s);
    if (s->sfd >= 0)
        close(s->sfd);
    for (int i = 0; i < 2; i++)
        if (s->wake[i] >= 0)
            close(s->wake[i]);
    free(s);
    return rc;
}
