/* run --qemu: one emulated ESP32-C3 as the run's board (docs/emulator.md).
 * Its firmware is written through the genuine ROM loader, the chip booted
 * from its flash, and its UART0 handed to the run job as socket://. The
 * network is Ethernet behind QEMU's NAT (slirp): the board reaches this PC
 * at slirp's host alias, which slirp connects to 127.0.0.1, and the PC
 * reaches the board's iperf server through forwards of the same port
 * number on a loopback address of their own (so they never take the port
 * the PC's server listens on). Every figure is labelled "emulator". */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/adapters/net_port.h"
#include "espbench/base/names.h"
#include "espbench/jobs/qemu_board.h"
#include "espbench/jobs/sim.h"
#include "run_internal.h"

#define QEMU_IMAGE_ENV "ESPBENCH_QEMU_IMAGE"

/* The request's own contradictions, before anything loads (the other
 * sources and the options --qemu refuses: its row's declaration below). */
int run_qemu_request_check(const eb_run_request *rq, eb_run_setup *st, eb_error *err)
{
    if (rq->chip && !eb_name_same(rq->chip, "esp32c3"))
        return run_bad_request(st, err, "--qemu emulates the ESP32-C3 only: pass --chip esp32c3, not '%s'", rq->chip);
    const char *img = rq->qemu_image ? rq->qemu_image : getenv(QEMU_IMAGE_ENV);
    if (!img || !*img)
        return run_bad_request(st, err, "--qemu needs the firmware: --qemu-image DIR (the ESP-IDF build of "
                                        "firmware/ with Ethernet, or a folder with bootloader.bin, "
                                        "partition-table.bin and espbench.bin) or %s; see docs/emulator.md",
                               QEMU_IMAGE_ENV);
    /* the images read now: a wrong folder is one line before the output folder is made */
    eb_image_set set = {0};
    int rc = eb_qemu_images_from_dir(&set, img, 0, err);
    eb_image_set_free(&set);
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

int run_qemu_start(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    eb_run_board *b = &o->boards[0];
    const eb_chip *chip = eb_profiles_chip(&st->profiles, b->chip);
    const char *dir = rq->qemu_image ? rq->qemu_image : getenv(QEMU_IMAGE_ENV);
    eb_image_set set = {0};
    int rc = eb_qemu_images_from_dir(&set, dir, chip ? chip->bootloader_offset : 0, err);
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
    char msg[PATH_MAX + 96];
    snprintf(msg, sizeof msg, "starting an emulated esp32c3 (QEMU), flashing %s through its ROM loader...", dir);
    announce(o, msg);
    rc = eb_qemu_board_start(&st->qemu, &qo, err);
    eb_image_set_free(&set);
    if (rc && o->stop && *o->stop) /* the signal cut a read short: say what happened, not the read's error */
        return eb_fail(err, EB_EINTR, "interrupted while the emulated esp32c3 was flashed; QEMU stopped");
    if (rc)
        return rc;
    int w, u;
    eb_qemu_board_flashed(st->qemu, &w, &u);
    snprintf(msg, sizeof msg, "emulated esp32c3: %d image(s) written, %d unchanged; booted from its flash, UART0 on %s",
             w, u, eb_qemu_board_port(st->qemu));
    announce(o, msg);
    b->qemu = true;
    b->boot_pace = 12; /* a busy host takes QEMU several times a chip's boot time to the first prompt */
    /* The guest's seconds are longer than the host's on a busy host (QEMU's
     * -icount): the board's iperf ends later than --duration says. */
    if (o->grace_s <= 0)
        o->grace_s = 10 * o->duration_s + 5 + 2 * o->interval_s;
    snprintf(b->port, sizeof b->port, "%s", eb_qemu_board_port(st->qemu));
    snprintf(b->fw_sha256, sizeof b->fw_sha256, "%s", eb_qemu_board_app_sha256(st->qemu));
    snprintf(b->pc_ip, sizeof b->pc_ip, "127.0.0.1");
    snprintf(b->nat_pc_ip, sizeof b->nat_pc_ip, "%s", EB_QEMU_HOST_ALIAS);
    snprintf(b->nat_board_ip, sizeof b->nat_board_ip, "%s", fwd_addr);
    return 0;
}

void run_qemu_stop(eb_run_setup *st)
{
    eb_qemu_board_stop(st->qemu);
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
    .claims = {RUN_OPT(QEMU_BIN) | RUN_OPT(QEMU_IMAGE), "--qemu-bin and --qemu-image are for --qemu (an emulated "
                                                        "ESP32-C3)"},
    .refuses = qemu_refuses,
    .needs = RUN_OPT(CHIP),
    .provides = RUN_SRC_OWN_PORTS | RUN_SRC_PC_ADDRESS,
    .board_name = "qemu",
    .ssid = "ethernet", /* no AP: the emulated board's link is Ethernet (docs/emulator.md) */
};
const run_source run_source_qemu = {"qemu", RUN_OPT(QEMU), &qemu_decl, run_qemu_request_check, NULL, NULL,
                                    run_qemu_start, run_qemu_stop};
