/* The run job with an ESP-Hosted pair (--coprocessor CHIP --transport BUS):
 * the board is the host chip running the pair's tiers, its console is the
 * stock iperf example's over esp_wifi_remote (esp-hosted-mcu's examples use
 * ESP-IDF's iperf example with iperf-cmd and wifi-cmd: the iperf-cmd-0.1
 * dialect up to ESP-IDF v6.0), and two more tests measure the transport
 * alone: raw_tx (host to co-processor) and raw_rx, each an image built with
 * CONFIG_ESP_HOSTED_RAW_THROUGHPUT_TRANSPORT and the direction
 * (CONFIG_ESP_HOSTED_RAW_THROUGHPUT_TX_TO_SLAVE / _RX_FROM_SLAVE), which
 * reports from boot on (host/utils/stats.c). Every entry records the
 * co-processor and the transport's bus, width and clock. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "espbench/base/buf.h"
#include "espbench/base/clock.h"
#include "espbench/jobs/firmware_source.h"
#include "espbench/jobs/flash.h"
#include "espbench/base/fs.h"
#include "espbench/formats/hosted.h"
#include "espbench/base/sha256.h"
#include "espbench/jobs/sim.h"
#include "espbench/adapters/hosted_files.h"
#include "espbench/adapters/spawn.h"
#include "run_internal.h"

#define RAW_TESTS ((1u << EB_TEST_RAW_TX) | (1u << EB_TEST_RAW_RX))
/* The manifest firmware of the raw-throughput images (one per direction,
 * named raw_tx / raw_rx where a stock firmware names its tiers). */
#define RAW_FIRMWARE "esp-hosted-raw-tp"
/* The co-processor's firmware (esp-hosted-mcu slave/, project network_adapter). */
#define SLAVE_FIRMWARE "esp-hosted-slave"

static int without_pair(const eb_run_request *rq, const eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    if (rq->transport)
        return run_bad_request(st, err, "--transport %s needs --coprocessor CHIP (an ESP-Hosted pair)", rq->transport);
    if (rq->coprocessor_port)
        return run_bad_request(st, err, "--coprocessor-port needs --coprocessor CHIP (an ESP-Hosted pair)");
    if (o->tests & RAW_TESTS)
        return run_bad_request(st, err, "--tests raw_tx/raw_rx measure an ESP-Hosted transport: pass --coprocessor CHIP");
    return 0;
}

/* A board's pair: --coprocessor/--transport for a lone board, a lab board's
 * coprocessor:/transport: (messages then name the file, line and board). */
static int select_pair(eb_run_setup *st, eb_run_board *b, eb_error *err)
{
    static const eb_hosted_words lab_words = {"coprocessor: ", "transport: ", "set transport:"};
    const char *transport = b->transport[0] ? b->transport : NULL;
    if (!b->hosted_at[0])
        return eb_hosted_select(st->hosted, &st->profiles, b->chip, b->coprocessor, transport, &b->hosted, err);
    int rc = eb_hosted_select_as(st->hosted, &st->profiles, b->chip, b->coprocessor, transport, &lab_words,
                                 &b->hosted, err);
    if (rc)
        eb_error_prefix(err, "%s: board '%s': ", b->hosted_at, b->name);
    return rc;
}

/* One run gives a host chip one set of tiers: two boards of one host chip
 * must be the same pair, or both boards with their own radio. */
static int same_pair_per_chip(const eb_run_opts *o, eb_error *err)
{
    for (int i = 0; i < o->n_boards; i++)
        for (int j = 0; j < i; j++) {
            const eb_run_board *a = &o->boards[j], *b = &o->boards[i];
            if (strcmp(a->chip, b->chip) || a->hosted == b->hosted)
                continue;
            const eb_run_board *h = b->hosted ? b : a;
            return eb_fail(err, EB_ECONFIG, "%s: boards '%s' and '%s' are both %s hosts, %s: a run gives a host "
                           "chip one pair's tiers; run them in two runs (one lab file each)",
                           h->hosted_at, a->name, b->name, a->chip,
                           a->hosted && b->hosted ? "with different co-processors or transports"
                                                  : "one with a co-processor and one without");
        }
    return 0;
}

int run_hosted_resolve(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    if (rq->coprocessor) { /* a lone board */
        eb_run_board *b = &o->boards[0];
        snprintf(b->coprocessor, sizeof b->coprocessor, "%s", rq->coprocessor);
        snprintf(b->transport, sizeof b->transport, "%s", rq->transport ? rq->transport : "");
        if (rq->coprocessor_port)
            snprintf(b->coprocessor_port, sizeof b->coprocessor_port, "%s", rq->coprocessor_port);
    }
    int n_hosted = 0;
    for (int i = 0; i < o->n_boards; i++)
        n_hosted += o->boards[i].coprocessor[0] != 0;
    if (n_hosted == 0)
        return without_pair(rq, o, st, err);
    st->hosted = calloc(1, sizeof *st->hosted);
    if (!st->hosted)
        abort();
    int rc = eb_hosted_load_default(st->hosted, &st->profiles, rq->profiles_dir, err);
    if (rc)
        return rc;
    for (int i = 0; i < o->n_boards; i++)
        if (o->boards[i].coprocessor[0] && select_pair(st, &o->boards[i], err)) {
            st->bad_request = true; /* a usage error, with the selection's own words */
            return EB_ECONFIG;
        }
    if (same_pair_per_chip(o, err)) {
        st->bad_request = true;
        return EB_ECONFIG;
    }
    /* The host chip runs the pair's tiers: its settings and published figures. */
    for (int i = 0; i < o->n_boards; i++) {
        const eb_run_board *b = &o->boards[i];
        bool first = true; /* each host chip once */
        for (int j = 0; j < i; j++)
            first = first && strcmp(o->boards[j].chip, b->chip) != 0;
        for (int c = 0; b->hosted && first && c < st->profiles.n_chips; c++)
            if (!strcmp(st->profiles.chips[c].name, b->chip) &&
                (rc = eb_hosted_apply(&st->profiles.chips[c], b->hosted, err)) != 0)
                return rc;
    }
    if (n_hosted < o->n_boards) { /* a lab of pairs and boards with their own radio */
        if (o->tests & RAW_TESTS)
            for (int i = 0; i < o->n_boards; i++)
                if (!o->boards[i].hosted)
                    return run_bad_request(st, err, "--tests raw_tx/raw_rx measure an ESP-Hosted transport: lab "
                                           "board '%s' has no coprocessor:; run the pairs in a lab file of their own",
                                           o->boards[i].name);
        return 0; /* the iperf tests, on every board */
    }
    if (!o->tests) /* the guide's six figures */
        o->tests = EB_RUN_THROUGHPUT_TESTS | RAW_TESTS;
    return 0;
}

void run_hosted_setup_free(eb_run_setup *st)
{
    if (st->hosted) {
        eb_hosted_free(st->hosted);
        free(st->hosted);
        st->hosted = NULL;
    }
}

/* ------------------------------------------------------------ --sim images */

static int mkimage(const char *prog, const char *chip, const char *project, const char *version, const char *path,
                   const char *log, eb_error *err)
{
    const char *args[] = {prog, "mkimage", "--chip", chip, "--project", project, "--idf", "v5.5",
                          "--version", version, "-o", path, NULL};
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "sim: cannot write %s: %s", log, strerror(errno));
    eb_spawn_spec sp = {.file = prog, .argv = args, .out_fd = fd, .err_fd = fd};
    pid_t pid;
    int rc = eb_spawn(&sp, &pid);
    close(fd);
    if (rc)
        return eb_fail(err, EB_ECONFIG, "sim: cannot run '%s': %s; build espbench-vboard or set ESPBENCH_VBOARD",
                       prog, strerror(rc));
    int st;
    eb_spawn_reap(pid, &st);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return eb_fail(err, EB_EIO, "sim: '%s mkimage --version %s' failed (see %s)", prog, version, log);
    return 0;
}

/* One manifest entry "NAME": {"images": [dir/NAME.bin]} of the host's iperf
 * example (project NULL) or another project. */
static int add_image(eb_buf *m, const char *prog, const char *chip, const char *project, const char *dir,
                     const char *name, const char *log, bool first, eb_error *err)
{
    /* A host chip's images are named after it too (a lab may hold several);
     * a co-processor's slave image is its chip's name. */
    char file[200], path[760], sha[65];
    if (project)
        snprintf(file, sizeof file, "%s.bin", name);
    else
        snprintf(file, sizeof file, "%s-%s.bin", chip, name);
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int rc = mkimage(prog, chip, project ? project : "iperf", project ? "1" : name, path, log, err);
    if (!rc)
        rc = eb_sha256_file(path, sha, err);
    if (!rc)
        eb_buf_printf(m, "%s\"%s\": {\"images\": [{\"offset\": \"0x10000\", \"file\": \"%s\", \"sha256\": \"%s\"}]}",
                      first ? "" : ", ", name, file, sha);
    return rc;
}

/* The first hosted board of each distinct value of key (its host chip, or its co-processor). */
static bool first_of_kind(const eb_run_opts *o, int i, bool by_coprocessor)
{
    const eb_run_board *b = &o->boards[i];
    if (!b->hosted)
        return false;
    for (int j = 0; j < i; j++) {
        const eb_run_board *a = &o->boards[j];
        if (a->hosted && !strcmp(by_coprocessor ? a->hosted->coprocessor : a->chip,
                                 by_coprocessor ? b->hosted->coprocessor : b->chip))
            return false;
    }
    return true;
}

/* A source whose images are made (--sim), without --manifest: the stock
 * images a real pair would be flashed with, made by the vboard (the host's iperf example per tier, its app
 * version naming the tier; the raw-throughput images per direction), in
 * OUT/hosted-fw/manifest.json. */
int run_hosted_images(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    bool any = false;
    for (int i = 0; i < o->n_boards; i++)
        any = any || o->boards[i].hosted;
    if (!any || !run_sources_provide(rq, RUN_SRC_MKIMAGE) || o->manifest)
        return 0;
    char dir[400], log[450], prog[512];
    snprintf(dir, sizeof dir, "%s/hosted-fw", o->out_dir);
    snprintf(log, sizeof log, "%s/mkimage.log", dir);
    if (eb_mkdir_p(dir) != 0)
        return eb_fail(err, EB_EIO, "cannot create %s: %s; check --out and its permissions", dir, strerror(errno));
    eb_sim_vboard_path(prog, sizeof prog);
    eb_buf m;
    eb_buf_init(&m);
    /* Every host chip's tier images and raw-throughput images (a chip once:
     * its boards share one pair), every co-processor's slave firmware. */
    int rc = 0;
    for (int fw = 0; fw < 2; fw++) { /* the tiers' iperf example, then the raw-throughput images */
        eb_buf_printf(&m, fw ? "}}, \"%s\": {\"chips\": {" : "{\"schema\": 1, \"firmware\": {\"%s\": {\"chips\": {",
                      fw ? RAW_FIRMWARE : "iperf-example");
        bool sep = false;
        for (int i = 0; !rc && i < o->n_boards; i++) {
            if (!first_of_kind(o, i, false))
                continue;
            const char *chip = o->boards[i].chip;
            const eb_chip *c = eb_profiles_chip(&st->profiles, chip);
            int n = fw ? EB_TEST_ALL_COUNT - EB_TEST_RAW_TX : c->n_tiers;
            eb_buf_printf(&m, "%s\"%s\": {\"tiers\": {", sep ? ", " : "", chip);
            for (int k = 0; !rc && k < n; k++)
                rc = add_image(&m, prog, chip, NULL, dir, fw ? eb_test_name(EB_TEST_RAW_TX + k) : c->tiers[k].name, log,
                               k == 0, err);
            eb_buf_printf(&m, "}}");
            sep = true;
        }
    }
    /* The co-processors' slave firmware, flashed over a coprocessor port when given. */
    eb_buf_printf(&m, "}}, \"%s\": {\"chips\": {", SLAVE_FIRMWARE);
    bool sep = false;
    for (int i = 0; !rc && i < o->n_boards; i++) {
        if (!first_of_kind(o, i, true))
            continue;
        const char *cp = o->boards[i].hosted->coprocessor;
        eb_buf_printf(&m, "%s", sep ? ", " : "");
        rc = add_image(&m, prog, cp, "network_adapter", dir, cp, log, true, err);
        sep = true;
    }
    eb_buf_printf(&m, "}}}}\n");
    snprintf(st->hosted_manifest, sizeof st->hosted_manifest, "%s/manifest.json", dir);
    if (!rc)
        rc = eb_file_write_atomic(st->hosted_manifest, m.data, m.len, err);
    eb_buf_free(&m);
    o->manifest = st->hosted_manifest;
    return rc;
}

/* ------------------------------------------------------------ the co-processor's port */

/* --coprocessor-port: the co-processor's firmware from the manifest, over its own port. */
int run_hosted_flash_coprocessor(board_ctx *bc, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    const eb_hosted_pair *p = bc->b->hosted;
    if (!p || !bc->b->coprocessor_port[0])
        return 0;
    eb_image_set set = {0};
    eb_manifest_query q = {.manifest = o->manifest, .firmware = SLAVE_FIRMWARE, .chip = p->coprocessor};
    int rc = eb_image_set_from_manifest(&set, &q, err);
    if (rc) {
        eb_error_prefix(err, "the co-processor's firmware: ");
        return rc;
    }
    run_infof(bc, EB_RUN_EV_INFO, "%s: flashing the %s image for the %s co-processor on %s", bc->label,
              SLAVE_FIRMWARE, p->coprocessor, bc->b->coprocessor_port);
    /* The chip check refuses a port with another chip on it. */
    eb_flash_opts fo = {.profiles = o->profiles, .expect_chip = p->coprocessor};
    eb_flash_session *fs = NULL;
    rc = eb_flash_open(&fs, bc->b->coprocessor_port, &fo, err);
    if (!rc)
        rc = eb_flash_write(fs, set.regions, set.n, NULL, err);
    if (!rc)
        rc = eb_flash_reset_after(fs, err);
    eb_flash_close(fs);
    eb_image_set_free(&set);
    const char *has = rc ? strstr(err->msg, " has an ") : NULL;
    if (rc && strstr(err->msg, "wrong chip") && has) { /* the flasher's words name --chip and --port */
        char found[64];
        snprintf(found, sizeof found, "%s", has + 8);
        found[strcspn(found, ";")] = 0;
        return eb_fail(err, rc, "--coprocessor-port %s has an %s, not the co-processor (--coprocessor %s); "
                       "check the port", bc->b->coprocessor_port, found, p->coprocessor);
    }
    if (rc)
        eb_error_prefix(err, "--coprocessor-port: ");
    return rc;
}

/* ------------------------------------------------------------ entries */

/* The pair's part of an entry: transport provenance, raw reference (a
 * virtual pair's figure source: run_end_vboard.c). */
static void hosted_entry(board_ctx *bc, const eb_run_item *it, eb_entry *e)
{
    const eb_hosted_pair *p = bc->b->hosted;
    eb_provenance *v = eb_entry_prov_mut(e);
    snprintf(v->coprocessor, sizeof v->coprocessor, "%s", p->coprocessor);
    snprintf(v->transport, sizeof v->transport, "%s", eb_hosted_bus_name(p->bus));
    v->transport_width = p->width;
    v->transport_clock_mhz = p->clock_mhz;
    bool raw = EB_TEST_IS_RAW(it->test);
    if (raw)
        e->ref_mbps = p->raw_mbps[it->test == EB_TEST_RAW_RX];
}

/* Reads the console until the report covers the test's duration (or the
 * deadline: one report interval of 5 s, the Kconfig default, past it). */
static int read_report(board_ctx *bc, double duration_s, eb_raw_tp_result *res, eb_error *err)
{
    eb_buf text;
    eb_buf_init(&text);
    eb_deadline d = eb_deadline_in((int)((duration_s + 6) * 1000));
    int rc = 0;
    for (;;) {
        char line[512];
        int r = eb_console_next(bc->con, line, sizeof line, d, err);
        if (r < 0) {
            rc = -r;
            break;
        }
        if (r == EB_CON_TIMEOUT)
            break;
        if (r != EB_CON_LINE)
            continue;
        eb_buf_printf(&text, "%s\n", line);
        eb_error perr = {0};
        if (eb_raw_tp_parse((const char *)text.data, text.len, res, &perr) == 0 &&
            res->iv[res->n - 1].end_s - res->iv[0].start_s >= duration_s - 1e-9)
            break;
    }
    if (!rc)
        rc = eb_raw_tp_parse(text.data ? (const char *)text.data : "", text.len, res, err);
    eb_buf_free(&text);
    return rc;
}

/* raw_tx / raw_rx: flashes the raw-throughput image, reads its report. */
int run_hosted_raw(board_ctx *bc, const eb_run_item *it, eb_entry *e, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    const char *dir = eb_test_name(it->test);
    eb_iso8601_utc(e->started);
    bc->tier = NULL; /* the next iperf test flashes its tier's image again */
    int rc = run_flash_manifest(bc, RAW_FIRMWARE, dir, dir, err);
    eb_raw_tp_result *res = calloc(1, sizeof *res);
    if (!res)
        abort();
    if (!rc)
        rc = read_report(bc, o->duration_s, res, err);
    if (rc) {
        free(res);
        if (rc == EB_ECONFIG) /* no report line: the image, not the request */
            rc = err->code = EB_EIO;
        return rc;
    }
    /* The report's own seconds, from the first interval seen; only as many as the test lasts. */
    eb_interval *iv = calloc((size_t)res->n, sizeof *iv);
    if (!iv)
        abort();
    int n = 0;
    double t0 = res->iv[0].start_s;
    for (int i = 0; i < res->n && res->iv[i].end_s - t0 <= o->duration_s + 1e-9; i++, n++) {
        double mbps = it->test == EB_TEST_RAW_TX ? res->iv[i].tx_mbps : res->iv[i].rx_mbps;
        iv[n] = (eb_interval){res->iv[i].start_s - t0, res->iv[i].end_s - t0, mbps * 1e6 / 8 * (res->iv[i].end_s -
                              res->iv[i].start_s), mbps, NAN, -1, -1};
    }
    e->interval_s = n ? iv[0].end_s - iv[0].start_s : o->interval_s; /* a build setting of the image */
    e->warmup_s = e->warmup_s > 0 ? e->interval_s : 0;
    e->receiver = eb_ivs_adopt(iv, n);
    free(res);
    eb_entry_figures(e, NULL);
    if (e->rx_stats.n == 0)
        return eb_fail(err, EB_EIO, "%s: %s: no steady report interval in %g s: lengthen --duration", bc->label, dir,
                       o->duration_s);
    eb_iso8601_utc(e->finished);
    return 0;
}

/* ------------------------------------------------------------ the host end */

/* The pair's part of every result of the host (transport provenance). */
void run_hosted_stamp(board_ctx *bc, const eb_run_item *it, run_result *r)
{
    if (r->entry)
        hosted_entry(bc, it, r->entry);
}
