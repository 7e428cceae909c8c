/* run --qemu: one emulated ESP32-C3 as the run's board (docs/emulator.md).
 * Its firmware is written through the genuine ROM loader, the chip booted
 * from its flash, and its UART0 handed to the run job as socket://. The
 * network is Ethernet behind QEMU's NAT (slirp): the board reaches this PC
 * at slirp's host alias, which slirp connects to 127.0.0.1, and the PC
 * reaches the board's iperf server through forwards of the same port
 * number on a loopback address of their own (so they never take the port
 * the PC's server listens on). Every figure is labelled "emulator".
 *
 * A tier's lwIP settings are built in: each tier may have an image of its
 * own (--qemu-image TIER=DIR), written through the ROM before the tier's
 * tests when the flash holds another (unchanged regions skipped: MD5). A
 * tier without one runs on the default image, and the firmware's tier_show
 * names the built-in values that differ (the entry's tier note). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/adapters/net_port.h"
#include "espbench/adapters/proc_run.h"
#include "espbench/base/sha256.h"
#include "espbench/formats/esp_image.h"
#include "espbench/base/names.h"
#include "espbench/jobs/qemu_board.h"
#include "espbench/jobs/sim.h"
#include "run_internal.h"

#define QEMU_IMAGE_ENV "ESPBENCH_QEMU_IMAGE"

/* One image of the run: the default (tier "") or a tier's own. */
typedef struct qemu_image {
    char tier[32];
    char dir[PATH_MAX];
    char spec[PATH_MAX + 40]; /* as given: DIR or TIER=DIR */
    char sha256[72];          /* of its app */
    char version[96];         /* its app descriptor's "project version" */
} qemu_image;

typedef struct eb_run_qemu {
    eb_qemu_board *board;
    qemu_image img[EB_RUN_MAX_TIERS + 1];
    int n;
    int flashed;        /* the image on the emulated flash; -1 none */
    int next;           /* the image being written (run_qemu_tier_image, then run_qemu_write) */
    char emulator[160]; /* QEMU's version line and the program, for the entries */
} eb_run_qemu;

static const char *default_dir(const eb_run_request *rq)
{
    const char *d = rq->qemu_image ? rq->qemu_image : getenv(QEMU_IMAGE_ENV);
    return d && *d ? d : NULL;
}

/* TIER=DIR split; the CLI made sure of its shape. */
static void split_tier_image(const char *spec, char *tier, size_t cap, const char **dir)
{
    const char *eq = strchr(spec, '=');
    snprintf(tier, cap, "%.*s", (int)(eq - spec), spec);
    *dir = eq + 1;
}

/* The request's own contradictions, before anything loads (the other
 * sources and the options --qemu refuses: its row's declaration below). */
int run_qemu_request_check(const eb_run_request *rq, eb_run_setup *st, eb_error *err)
{
    if (rq->chip && !eb_name_same(rq->chip, "esp32c3"))
        return run_bad_request(st, err, "--qemu emulates the ESP32-C3 only: pass --chip esp32c3, not '%s'", rq->chip);
    const char *img = default_dir(rq);
    if (!img && !rq->n_qemu_tier_images)
        return run_bad_request(st, err, "--qemu needs the firmware: --qemu-image DIR (the ESP-IDF build of "
                                        "firmware/ with Ethernet, or a folder with bootloader.bin, "
                                        "partition-table.bin and espbench.bin) or %s; see docs/emulator.md",
                               QEMU_IMAGE_ENV);
    /* the images read now: a wrong folder is one line before the output folder is made */
    for (int i = -1; i < rq->n_qemu_tier_images; i++) {
        char tier[32];
        const char *dir = img;
        if (i >= 0)
            split_tier_image(rq->qemu_tier_images[i], tier, sizeof tier, &dir);
        if (!dir)
            continue;
        eb_image_set set = {0};
        int rc = eb_qemu_images_from_dir(&set, dir, 0, err);
        eb_image_set_free(&set);
        if (rc) {
            if (i >= 0)
                eb_error_prefix(err, "--qemu-image %s: ", rq->qemu_tier_images[i]);
            return rc;
        }
    }
    return 0;
}

/* Once the tiers are known: each TIER of TIER=DIR is the chip's, and every
 * tier of the plan has an image (its own or the default). */
int run_qemu_tiers_check(const eb_run_request *rq, const eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    const eb_chip *chip = o->n_boards ? eb_profiles_chip(o->profiles, o->boards[0].chip) : NULL;
    if (!rq->qemu || !chip)
        return 0;
    for (int i = 0; i < rq->n_qemu_tier_images; i++) {
        char tier[32];
        const char *dir;
        split_tier_image(rq->qemu_tier_images[i], tier, sizeof tier, &dir);
        if (!eb_chip_tier(chip, tier))
            return run_bad_request(st, err, "--qemu-image %s: %s has no tier '%s' (tiers: espbench profiles show %s)",
                                   rq->qemu_tier_images[i], chip->name, tier, chip->name);
    }
    if (default_dir(rq))
        return 0;
    eb_run_item *plan = calloc(EB_RUN_MAX_PLAN, sizeof *plan);
    if (!plan)
        abort();
    eb_error perr = {0};
    eb_run_opts all = *o;
    eb_run_opts_defaults(&all); /* the tests the run will have */
    int np = eb_run_plan(&all, chip, plan, EB_RUN_MAX_PLAN, &perr), rc = 0;
    for (int i = 0; i < np && i < EB_RUN_MAX_PLAN && !rc; i++) {
        bool own = false;
        for (int k = 0; k < rq->n_qemu_tier_images && !own; k++) {
            char tier[32];
            const char *dir;
            split_tier_image(rq->qemu_tier_images[k], tier, sizeof tier, &dir);
            own = eb_run_item_tier(&plan[i]) && eb_name_same(tier, eb_run_item_tier(&plan[i])->name);
        }
        if (!own && eb_run_item_tier(&plan[i]))
            rc = run_bad_request(st, err, "--qemu: tier %s has no image: give --qemu-image %s=DIR, or --qemu-image "
                                          "DIR for the tiers without their own", eb_run_item_tier(&plan[i])->name,
                                 eb_run_item_tier(&plan[i])->name);
    }
    free(plan);
    return rc;
}

/* The iperf port: the one asked for, else a free one (TCP and UDP) on the PC's loopback, not 5001, so
 * runs side by side do not meet. */
static int pick_port(const eb_run_request *rq, eb_run_board *b, eb_error *err)
{
    if (rq->iperf_port)
        return 0;
    for (int tries = 0; tries < 20; tries++) {
        uint16_t p;
        int rc = eb_qemu_free_port(&p, err);
        if (rc)
            return rc;
        eb_error e = {0};
        if (eb_net_port_free("127.0.0.1", p, true, &e) == 0) {
            b->iperf_port = p;
            return 0;
        }
    }
    return eb_fail(err, EB_EIO, "qemu: no port free for TCP and UDP on 127.0.0.1; pass --iperf-port");
}

static void announce(eb_run_opts *o, const char *msg)
{
    if (!o->progress)
        return;
    eb_run_progress p = {.event = EB_RUN_EV_INFO, .board = "", .chip = "", .tier = "", .test = -1, .message = msg};
    o->progress(o->user, &p);
}

/* An image's set, and its app's SHA-256 and descriptor (the region at the
 * highest offset, as run_steps.c reads a flashed set). */
static int load_image(qemu_image *im, uint32_t boot_off, eb_image_set *set, eb_error *err)
{
    int rc = eb_qemu_images_from_dir(set, im->dir, boot_off, err);
    const eb_flash_region *app = NULL;
    for (int i = 0; !rc && i < set->n; i++)
        if (!app || set->regions[i].offset > app->offset)
            app = &set->regions[i];
    if (!rc && app)
        rc = eb_sha256_hex(app->data, app->len, im->sha256, err);
    eb_image_info info;
    eb_error ierr = {0};
    if (!rc && app && eb_image_parse(app->data, app->len, false, &info, &ierr) == 0 && info.has_app_desc)
        snprintf(im->version, sizeof im->version, "%s %s", info.project_name, info.version);
    if (rc)
        eb_error_prefix(err, "--qemu-image %s: ", im->spec);
    return rc;
}

/* The image of a tier: its own, else the default; -1 none. */
static int image_of(const eb_run_qemu *q, const char *tier)
{
    int def = -1;
    for (int i = 0; i < q->n; i++) {
        if (!q->img[i].tier[0])
            def = i;
        else if (tier && eb_name_same(q->img[i].tier, tier))
            return i;
    }
    return def;
}

/* The run's images, each read once: their hashes go into request.json. */
static int collect_images(const eb_run_request *rq, eb_run_qemu *q, eb_run_board *b, uint32_t boot_off, eb_error *err)
{
    const char *def = default_dir(rq);
    if (def) {
        qemu_image *im = &q->img[q->n++];
        snprintf(im->dir, sizeof im->dir, "%s", def);
        snprintf(im->spec, sizeof im->spec, "%s", def);
    }
    for (int i = 0; i < rq->n_qemu_tier_images; i++) {
        qemu_image *im = &q->img[q->n++];
        const char *dir;
        split_tier_image(rq->qemu_tier_images[i], im->tier, sizeof im->tier, &dir);
        snprintf(im->dir, sizeof im->dir, "%s", dir);
        snprintf(im->spec, sizeof im->spec, "%s", rq->qemu_tier_images[i]);
    }
    size_t n = 0;
    b->tier_images[0] = 0;
    for (int i = 0; i < q->n; i++) {
        eb_image_set set = {0};
        int rc = load_image(&q->img[i], boot_off, &set, err);
        eb_image_set_free(&set);
        if (rc)
            return rc;
        int k = snprintf(b->tier_images + n, sizeof b->tier_images - n, "%s%s=%s", n ? "," : "",
                         q->img[i].tier[0] ? q->img[i].tier : "*", q->img[i].sha256);
        if (k > 0 && (size_t)k < sizeof b->tier_images - n)
            n += (size_t)k;
    }
    return 0;
}

/* QEMU's own line for its version ("QEMU emulator version 8.1.3"), with
 * the program and machine: what made the figures. */
static void emulator_text(eb_run_qemu *q, eb_run_board *b)
{
    const char *prog = eb_qemu_board_program(q->board);
    char ver[160] = "";
    eb_error verr = {0};
    const char *argv[] = {prog, "--version", NULL};
    if (eb_proc_output(argv, NULL, 10, ver, sizeof ver, &verr) != 0)
        snprintf(ver, sizeof ver, "QEMU, version unknown");
    ver[strcspn(ver, "\r\n")] = 0;
    snprintf(q->emulator, sizeof q->emulator, "%.60s, %.80s -M esp32c3", ver, prog);
    snprintf(b->emulator, sizeof b->emulator, "%s", q->emulator);
}

/* The image of the plan's first tier: the one written before the console opens. */
static int first_image(const eb_run_opts *o, const eb_chip *chip, const eb_run_qemu *q)
{
    eb_run_item first = {0};
    eb_error perr = {0};
    eb_run_opts all = *o;
    eb_run_opts_defaults(&all);
    if (chip && eb_run_plan(&all, chip, &first, 1, &perr) >= 1 && eb_run_item_tier(&first))
        return image_of(q, eb_run_item_tier(&first)->name);
    return image_of(q, NULL);
}

int run_qemu_start(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    eb_run_board *b = &o->boards[0];
    const eb_chip *chip = eb_profiles_chip(&st->profiles, b->chip);
    uint32_t boot_off = chip ? chip->bootloader_offset : 0;
    eb_run_qemu *q = calloc(1, sizeof *q);
    if (!q)
        abort();
    q->flashed = -1;
    st->qemu = q;
    int rc = collect_images(rq, q, b, boot_off, err);
    int idx = rc ? -1 : first_image(o, chip, q);
    eb_image_set set = {0};
    if (!rc && idx < 0)
        rc = eb_fail(err, EB_ECONFIG, "--qemu: no image for the first tier; give --qemu-image DIR");
    if (!rc)
        rc = eb_qemu_images_from_dir(&set, q->img[idx].dir, boot_off, err);
    char fwd_addr[16];
    if (!rc)
        rc = pick_port(rq, b, err);
    if (!rc)
        rc = eb_sim_free_address(fwd_addr, sizeof fwd_addr, 0x9e3u, err);
    if (rc) {
        eb_image_set_free(&set);
        return rc;
    }
    eb_qemu_board_opts qo = {.profiles = &st->profiles, .name = "qemu", .out_dir = o->out_dir,
                             .program = rq->qemu_bin, .images = &set, .fwd_addr = fwd_addr, .n_fwd = 2};
    qo.fwd[0] = (eb_qemu_fwd){false, b->iperf_port, b->iperf_port};
    qo.fwd[1] = (eb_qemu_fwd){true, b->iperf_port, b->iperf_port};
    char msg[PATH_MAX + 160];
    snprintf(msg, sizeof msg, "starting an emulated esp32c3 (QEMU), flashing %s through its ROM loader...",
             q->img[idx].spec);
    announce(o, msg);
    rc = eb_qemu_board_start(&q->board, &qo, err);
    eb_image_set_free(&set);
    if (rc && o->stop && *o->stop) /* the signal cut a read short: say what happened, not the read's error */
        return eb_fail(err, EB_EINTR, "interrupted while the emulated esp32c3 was flashed; QEMU stopped");
    if (rc)
        return rc;
    q->flashed = idx;
    int w, u;
    eb_qemu_board_flashed(q->board, &w, &u);
    snprintf(msg, sizeof msg, "emulated esp32c3: %d image(s) written, %d unchanged; booted from its flash, UART0 on %s",
             w, u, eb_qemu_board_port(q->board));
    announce(o, msg);
    emulator_text(q, b);
    b->qemu = true;
    b->qemu_ctl = q;
    b->boot_pace = 12; /* a busy host takes QEMU several times a chip's boot time to the first prompt */
    /* The guest's seconds are longer than the host's on a busy host (QEMU's
     * -icount): the board's iperf ends later than --duration says. */
    if (o->grace_s <= 0)
        o->grace_s = 10 * o->duration_s + 5 + 2 * o->interval_s;
    snprintf(b->port, sizeof b->port, "%s", eb_qemu_board_port(q->board));
    snprintf(b->fw_sha256, sizeof b->fw_sha256, "%s", q->img[idx].sha256);
    snprintf(b->pc_ip, sizeof b->pc_ip, "127.0.0.1");
    snprintf(b->nat_pc_ip, sizeof b->nat_pc_ip, "%s", EB_QEMU_HOST_ALIAS);
    snprintf(b->nat_board_ip, sizeof b->nat_board_ip, "%s", fwd_addr);
    return 0;
}

/* The facts of the image the board runs, for every entry that follows. */
static void stamp_image(board_ctx *bc, const eb_run_qemu *q)
{
    const qemu_image *im = &q->img[q->flashed];
    eb_provenance *p = &bc->prov.seen;
    snprintf(p->emulator, sizeof p->emulator, "%s", q->emulator);
    snprintf(p->fw_sha256, sizeof p->fw_sha256, "%s", im->sha256);
    snprintf(p->fw_version, sizeof p->fw_version, "%s", im->version);
    snprintf(p->fw_image, sizeof p->fw_image, "%.*s", (int)sizeof p->fw_image - 1, im->spec);
    snprintf(p->flash_loader, sizeof p->flash_loader, "ROM");
    snprintf(bc->cons->fw_sha256, sizeof bc->cons->fw_sha256, "%s", im->sha256);
}

int run_qemu_tier_image(board_ctx *bc, const eb_tier *t, eb_image_set *set, eb_error *err)
{
    eb_run_qemu *q = bc->b->qemu_ctl;
    int idx = image_of(q, t->name);
    if (idx < 0)
        return eb_fail(err, EB_ECONFIG, "--qemu: tier %s has no image: give --qemu-image %s=DIR", t->name, t->name);
    if (idx == q->flashed) {
        stamp_image(bc, q);
        return 0;
    }
    int rc = eb_qemu_images_from_dir(set, q->img[idx].dir, bc->chip->bootloader_offset, err);
    if (!rc) {
        q->next = idx;
        run_infof(bc, EB_RUN_EV_INFO, "%s: tier %s: writing its image %s through the ROM loader...", bc->label,
                  t->name, q->img[idx].spec);
    }
    return rc;
}

/* QEMU's new UART is the board's port; no QEMU, no console: the board cannot go on. */
static int restarted(board_ctx *bc, const eb_run_qemu *q, int rc, eb_error *err)
{
    if (rc) {
        if (err->kind == EB_KIND_NONE)
            eb_error_kind(err, EB_KIND_BOARD);
        return rc;
    }
    snprintf(bc->b->port, sizeof bc->b->port, "%s", eb_qemu_board_port(q->board));
    return 0;
}

int run_qemu_write(board_ctx *bc, const eb_image_set *set, eb_error *err)
{
    eb_run_qemu *q = bc->b->qemu_ctl;
    q->flashed = -1;
    int rc = restarted(bc, q, eb_qemu_board_reflash(q->board, set, err), err);
    if (rc)
        return rc;
    q->flashed = q->next;
    int w, u;
    eb_qemu_board_flashed(q->board, &w, &u);
    run_infof(bc, EB_RUN_EV_INFO, "%s: %d image(s) written, %d unchanged; booted from its flash", bc->label, w, u);
    stamp_image(bc, q);
    return 0;
}

bool run_qemu_own_image(const board_ctx *bc, const eb_tier *t)
{
    const eb_run_qemu *q = bc->b->qemu_ctl;
    int idx = image_of(q, t->name);
    return idx >= 0 && q->img[idx].tier[0];
}

int run_qemu_reboot(board_ctx *bc, eb_error *err)
{
    eb_run_qemu *q = bc->b->qemu_ctl;
    return restarted(bc, q, eb_qemu_board_reboot(q->board, err), err);
}

void run_qemu_stop(eb_run_setup *st)
{
    if (!st->qemu)
        return;
    eb_qemu_board_stop(st->qemu->board);
    free(st->qemu);
    st->qemu = NULL;
}

/* ------------------------------------------------------------ its board source */

static const run_source_rule qemu_refuses[] = {
    {RUN_OPT(COPROCESSOR) | RUN_OPT(PEER_PORT) | RUN_OPT(PEER_CHIP),
     "--qemu runs against the PC only: leave out --coprocessor and --peer-*"},
    {0, NULL},
};
static const run_source_decl qemu_decl = {
    .conflict = "--qemu is one emulated board: leave out --port, --sim and --lab",
    .claims = {RUN_OPT(QEMU_BIN) | RUN_OPT(QEMU_IMAGE) | RUN_OPT(QEMU_TIER_IMAGE), "--qemu-bin and --qemu-image are for --qemu (an emulated "
                                                        "ESP32-C3)"},
    .refuses = qemu_refuses,
    .needs = RUN_OPT(CHIP),
    .provides = RUN_SRC_OWN_PORTS | RUN_SRC_PC_ADDRESS,
    .board_name = "qemu",
    .ssid = "ethernet", /* no AP: the emulated board's link is Ethernet (docs/emulator.md) */
};
const run_source run_source_qemu = {"qemu", RUN_OPT(QEMU), &qemu_decl, run_qemu_request_check, NULL, NULL,
                                    run_qemu_start, run_qemu_stop};
