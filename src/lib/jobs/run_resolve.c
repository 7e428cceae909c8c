/* eb_run_resolve: from what the user asked for (flags, a lab file, --sim) to
 * the boards of a run, in one step the CLI only calls. The policies live
 * here: which lab boards --chip keeps, where the Wi-Fi password may come
 * from (a lab file's source or an environment variable, never a flag), the
 * SSID and output-folder defaults, and the virtual boards of --sim. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "espbench/protocols/console_driver.h"
#include "espbench/formats/dialect.h"
#include "espbench/formats/hosted.h"
#include "espbench/adapters/iperf_proc.h"
#include "espbench/formats/lab.h"
#include "espbench/jobs/run.h"
#include "espbench/jobs/sim.h"
#include "espbench/adapters/lab_file.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/adapters/dir_lock.h"
#include "espbench/base/names.h"
#include "run_internal.h"
#include "run_request.h"

/* The virtual AP's password (the vboard gets it through its environment). */
#define SIM_AP_PASSWORD "espbench-sim-wpa2"

_Static_assert(EB_RUN_MAX_SIM_FAULTS == EB_SIM_MAX_FAULTS, "one limit for --sim-fault");

/* A lab file's boards; with --chip only that chip's. */
static int lab_boards(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    st->lab = calloc(1, sizeof *st->lab);
    if (!st->lab)
        abort();
    eb_lab *lab = st->lab;
    int rc = eb_lab_load(lab, rq->lab_file, err);
    if (rc)
        return rc;
    if (lab->has_password)
        snprintf(st->password, sizeof st->password, "%s", lab->password);
    int k = 0;
    for (int i = 0; i < lab->n_boards; i++) {
        eb_run_board *b = &lab->boards[i];
        if (rq->chip && !eb_name_same(rq->chip, b->chip))
            continue;
        if (!rq->sim && !b->port[0])
            return run_bad_request(st, err, "lab board '%s' has no port", b->name);
        if (rq->dialect)
            snprintf(b->dialect, sizeof b->dialect, "%s", rq->dialect);
        if (rq->dialect && b->peer.chip[0])
            snprintf(b->peer.dialect, sizeof b->peer.dialect, "%s", rq->dialect);
        lab->boards[k++] = *b;
    }
    if (!k)
        return run_bad_request(st, err, "no board of chip '%s' in %s", rq->chip, rq->lab_file);
    o->boards = lab->boards;
    o->n_boards = k;
    return 0;
}

static int lone_board(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    eb_run_board *b = &st->single;
    if (!rq->chip)
        return run_bad_request(st, err, "--chip is required");
    snprintf(b->chip, sizeof b->chip, "%s", rq->chip);
    snprintf(b->name, sizeof b->name, "%s", rq->sim ? "sim" : rq->qemu ? "qemu" : "");
    if (rq->port)
        snprintf(b->port, sizeof b->port, "%s", rq->port);
    if (rq->pc_address)
        snprintf(b->pc_ip, sizeof b->pc_ip, "%s", rq->pc_address);
    b->iperf_port = rq->iperf_port ? rq->iperf_port : 5001;
    if (rq->dialect)
        snprintf(b->dialect, sizeof b->dialect, "%s", rq->dialect);
    o->boards = b;
    o->n_boards = 1;
    return 0;
}

/* The password: the lab file's source, else the environment variable (an
 * explicit --password-env must be set), else none — or the virtual AP's. */
static int password_policy(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    bool have = st->lab && st->lab->has_password;
    if (!have) {
        const char *var = rq->password_env ? rq->password_env : EB_LAB_DEFAULT_PASSWORD_ENV;
        if (getenv(var) || rq->password_env) {
            int rc = eb_password_from_env(var, st->password, sizeof st->password, err);
            if (rc)
                return rc;
            have = true;
        }
    }
    if (rq->sim && !have) {
        snprintf(st->password, sizeof st->password, "%s", SIM_AP_PASSWORD);
        have = true;
    }
    o->password = have ? st->password : NULL;
    return 0;
}

static int network_defaults(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    o->ssid = rq->ssid;
    if (!o->ssid && st->lab && st->lab->ssid[0])
        o->ssid = st->lab->ssid;
    if (!o->ssid && rq->sim)
        o->ssid = EB_SIM_SSID;
    if (!o->ssid && rq->qemu) /* no AP: the emulated board's link is Ethernet (docs/emulator.md) */
        o->ssid = "ethernet";
    if (!o->ssid)
        return run_bad_request(st, err, "--ssid is required (or ap.ssid in the lab file)");
    for (int i = 0; i < o->n_boards && rq->far_end; i++) /* an end driver claims it (run_ends.c) */
        snprintf(o->boards[i].far_end, sizeof o->boards[i].far_end, "%s", rq->far_end);
    for (int i = 0; i < o->n_boards && !rq->sim && !rq->qemu; i++) {
        /* Board to board: the PC drives the consoles only, no iperf end of its own. */
        bool pair = o->boards[i].peer.chip[0] || (!rq->lab_file && (rq->peer_port || rq->peer_chip));
        if (!o->boards[i].pc_ip[0] && !pair)
            return run_bad_request(st, err, "--pc-address is required (or pc.address in the lab file)");
    }
    return 0;
}

/* Whether no board's far end is this PC (a peer board, an end elsewhere):
 * then the PC's iperf2 is not in the data path and need not be installed. */
static bool no_pc_end(const eb_run_opts *o)
{
    for (int i = 0; i < o->n_boards; i++) {
        const run_end_ops *own, *far;
        run_end_rows(&o->boards[i], &own, &far);
        if (far == &run_end_pc)
            return false;
    }
    return o->n_boards > 0;
}

/* Names and addresses checked before any board is touched or any file
 * written, so a typo costs one line and no half-made run folder. */
static int check_plan(const eb_run_request *rq, const eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    if (rq->dialect && !eb_console_driver_by_name(rq->dialect)) {
        char names[256] = "";
        for (int d = 0; d < eb_dialect_count(); d++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", d ? ", " : "", eb_dialect_name(d));
        return run_bad_request(st, err, "--dialect '%s': unknown; one of %s", rq->dialect, names);
    }
    if (o->resume && !rq->out_dir)
        return run_bad_request(st, err, "--resume needs --out DIR: the folder of the run to continue");
    if (o->sweep.n > 0) { /* the link variables need the virtual boards' control sockets */
        eb_run_opts chk = *o;
        eb_run_board sims[1] = {{.sim = true, .sim_control = "-"}};
        if (rq->sim) {
            chk.boards = sims;
            chk.n_boards = 1;
        }
        eb_error e2 = {0};
        if (eb_run_check_sweep(&chk, &e2))
            return run_bad_request(st, err, "%s", e2.msg);
    }
    eb_error e3 = {0}; /* a test its board's ends cannot run (latency with a peer) */
    if (run_kinds_check(o, &e3))
        return run_bad_request(st, err, "%s", e3.msg);
    for (int b = 0; b < o->n_boards; b++) {
        const char *ip = o->boards[b].pc_ip;
        unsigned char addr[16];
        if (ip[0] && inet_pton(AF_INET, ip, addr) != 1 && inet_pton(AF_INET6, ip, addr) != 1)
            return run_bad_request(st, err, "PC address '%s' is not an IPv4 or IPv6 address", ip);
    }
    eb_error e4 = {0}; /* the tiers against each chip's profile (the tier dimension's check) */
    if (run_dims_check(o, false, &e4))
        return run_bad_request(st, err, "%s", e4.msg);
    return 0;
}

static void out_default(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st)
{
    if (rq->out_dir) {
        snprintf(st->out_dir, sizeof st->out_dir, "%s", rq->out_dir);
    } else {
        char ts[32];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(ts, sizeof ts, "%Y%m%d-%H%M%S", &tm);
        snprintf(st->out_dir, sizeof st->out_dir, "espbench-%s-%s", o->boards[0].chip, ts);
    }
    o->out_dir = st->out_dir;
}

static void announce(const eb_run_opts *o, const char *msg)
{
    if (!o->progress)
        return;
    eb_run_progress p = {.event = EB_RUN_EV_INFO, .board = "", .chip = "", .tier = "", .test = -1, .message = msg};
    o->progress(o->user, &p);
}

/* --sim board to board: a second virtual board of the peer's chip, with the
 * board's settings otherwise (its own address, seed and control socket);
 * traffic then goes from one virtual board to the other over loopback, each
 * shaped by its own chip and tier. */
static int start_peer_sim(eb_run_opts *o, eb_run_setup *st, const eb_sim_opts *board_so, eb_run_board *b, int i,
                          eb_error *err)
{
    if (!st->peer_sims) {
        st->peer_sims = calloc((size_t)o->n_boards, sizeof *st->peer_sims);
        if (!st->peer_sims)
            abort();
    }
    eb_sim_opts so = *board_so;
    so.chip = b->peer.chip;
    so.name = b->peer.name;
    so.seed = (uint32_t)(1000 + i);
    char msg[128];
    snprintf(msg, sizeof msg, "starting a virtual %s board %s (the peer)...", b->peer.chip, b->peer.name);
    announce(o, msg);
    int rc = eb_sim_start(&st->peer_sims[i], &so, err);
    if (st->n_peer_sims < i + 1)
        st->n_peer_sims = i + 1;
    if (rc)
        return rc;
    eb_sim *ps = st->peer_sims[i];
    snprintf(b->peer.port, sizeof b->peer.port, "%s", eb_sim_port(ps));
    snprintf(b->peer.fw_sha256, sizeof b->peer.fw_sha256, "%s", eb_sim_app_sha256(ps));
    snprintf(b->peer.sim_control, sizeof b->peer.sim_control, "%s", eb_sim_control(ps));
    b->peer.sim = true;
    return 0;
}

/* --sim: a virtual board per board, flashed, its pty as the board's port. */
static int start_sims(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    st->sims = calloc((size_t)o->n_boards, sizeof *st->sims);
    if (!st->sims)
        abort();
    for (int i = 0; i < o->n_boards && !(o->stop && *o->stop); i++) {
        eb_run_board *b = &o->boards[i];
        eb_sim_opts so = {
            .profiles = &st->profiles, .chip = b->chip, .name = b->name[0] ? b->name : "sim",
            .out_dir = o->out_dir, .ssid = o->ssid, .ap_password = SIM_AP_PASSWORD,
            .noise_pct = rq->sim_noise_pct, .seed = (uint32_t)(i + 1), .n_faults = rq->n_sim_faults,
            .project = rq->sim_project, .idf = rq->sim_idf, .app_image = rq->sim_image,
            .profiles_dir = rq->profiles_dir,
            .force_model = rq->sim_model,
        };
        if (b->hosted) { /* the pair: the host runs the stock iperf example (run_hosted.c) */
            so.coprocessor = b->hosted->coprocessor;
            so.transport = eb_hosted_bus_name(b->hosted->bus);
            so.project = rq->sim_project ? rq->sim_project : "iperf";
            so.idf = rq->sim_idf ? rq->sim_idf : "v5.5";
        }
        if (rq->sim_link_set)
            so.link = rq->sim_link;
        else
            eb_model_link_default(&so.link);
        if (o->aggregate && o->n_boards > 1) /* one simulated AP: its medium is shared */
            so.link.stations = o->n_boards;
        /* Board to board through one AP: every frame crosses the air twice
         * (the sender's uplink, the AP's downlink to the peer), so the pair's
         * two transmitters share the channel (the model's stations term). */
        if (b->peer.chip[0])
            so.link.stations = (so.link.stations > 1 ? so.link.stations : 1) * 2;
        b->sim = true;
        b->sim_model = rq->sim_model;
        b->sim_link = so.link;
        for (int k = 0; k < rq->n_sim_faults; k++)
            so.faults[k] = rq->sim_faults[k];
        char msg[128];
        snprintf(msg, sizeof msg, "starting a virtual %s board%s%s...", b->chip, b->name[0] ? " " : "", b->name);
        announce(o, msg);
        int rc = eb_sim_start(&st->sims[i], &so, err);
        st->n_sims = i + 1;
        if (rc)
            return rc;
        snprintf(b->port, sizeof b->port, "%s", eb_sim_port(st->sims[i]));
        snprintf(b->fw_sha256, sizeof b->fw_sha256, "%s", eb_sim_app_sha256(st->sims[i]));
        snprintf(b->sim_control, sizeof b->sim_control, "%s", eb_sim_control(st->sims[i]));
        if (b->peer.chip[0] && (rc = start_peer_sim(o, st, &so, b, i, err)) != 0)
            return rc;
        /* The PC end gets a loopback address of its own, so parallel runs never collide. */
        if (rq->pc_address)
            snprintf(b->pc_ip, sizeof b->pc_ip, "%s", rq->pc_address);
        else if ((rc = eb_sim_free_address(b->pc_ip, sizeof b->pc_ip, (uint32_t)(7919 * (i + 1)), err)) != 0)
            return rc;
    }
    return 0;
}

int eb_run_resolve(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    memset(st, 0, sizeof *st);
    if (!!rq->port + !!rq->sim > 1 || (rq->port && rq->lab_file))
        return run_bad_request(st, err, "choose one of --port, --sim, --lab (--lab may be combined with --sim)");
    int rc = run_qemu_request_check(rq, st, err);
    if (!rc)
        rc = run_missing_options(rq, st, err); /* every one at once, after the contradictions */
    if (rc)
        return rc;
    if (!rq->port && !rq->sim && !rq->lab_file && !rq->qemu)
        return run_bad_request(st, err, "which board? pass --port URL, --sim or --lab FILE");
    if ((rq->coprocessor || rq->transport || rq->coprocessor_port) && rq->lab_file)
        return run_bad_request(st, err, "--coprocessor, --transport and --coprocessor-port are for one board (--port or "
                                        "--sim); with --lab give the board coprocessor: (transport:, "
                                        "coprocessor_port:) in the lab file");
    rc = eb_run_check_timing(o, err);
    st->bad_request = rc != 0;
    if (!rc)
        rc = rq->lab_file ? lab_boards(rq, o, st, err) : lone_board(rq, o, st, err);
    if (!rc)
        rc = password_policy(rq, o, st, err);
    if (!rc)
        rc = network_defaults(rq, o, st, err);
    if (rc)
        return rc;
    if ((rc = eb_profiles_load_default(&st->profiles, rq->profiles_dir, err)) != 0)
        return rc;
    o->profiles = &st->profiles;
    if ((rc = run_names_resolve(o, st, err)) != 0 || (rc = run_limits_precheck(rq, o, st, err)) != 0)
        return rc;
    /* The ends' flags: --coprocessor (an ESP-Hosted pair), --peer-* (board to board). */
    if ((rc = run_instr_resolve(rq, o, st, err)) != 0 || (rc = run_hosted_resolve(rq, o, st, err)) != 0 ||
        (rc = run_pair_resolve(rq, o, st, err)) != 0 || (rc = run_tiers_resolve(o, st, err)) != 0)
        return rc;
    if ((rc = check_plan(rq, o, st, err)) != 0 || (rc = run_qemu_tiers_check(rq, o, st, err)) != 0)
        return rc;
    out_default(rq, o, st);
    if ((rc = eb_run_check_out(o, err)) != 0)
        return rc;
    /* No iperf2 on this PC, no run: say so before starting anything (board to
     * board runs leave it out: "" keeps pc_iperf_version unknown). */
    eb_iperf_version pv;
    if (no_pc_end(o)) {
        st->iperf_version[0] = 0;
    } else {
        if ((rc = eb_iperf_probe(o->iperf ? o->iperf : eb_iperf_program(), &pv, err)) != 0)
            return rc;
        snprintf(st->iperf_version, sizeof st->iperf_version, "%.63s", pv.text);
    }
    o->iperf_version = st->iperf_version;
    if ((rc = run_out_ready(rq, o, st, err)) != 0) /* the folder: resume, writable, locked */
        return rc;
    if ((rc = run_hosted_images(rq, o, st, err)) != 0)
        return rc;
    if ((rc = run_pc_ports_precheck(o, st, err)) != 0 || (rq->sim && (rc = start_sims(rq, o, st, err)) != 0) ||
        (rq->sim && (rc = run_pc_ports_precheck(o, st, err)) != 0) ||
        (rq->qemu && (rc = run_qemu_start(rq, o, st, err)) != 0))
        return rc;
    return run_request_record(o, err);
}

void eb_run_setup_free(eb_run_setup *st)
{
    for (int i = 0; i < st->n_sims; i++)
        eb_sim_stop(st->sims[i]);
    free(st->sims);
    for (int i = 0; i < st->n_peer_sims; i++)
        eb_sim_stop(st->peer_sims[i]);
    free(st->peer_sims);
    run_qemu_stop(st);
    if (st->lab) {
        eb_lab_free(st->lab);
        free(st->lab);
    }
    run_hosted_setup_free(st);
    eb_profiles_free(&st->profiles);
    eb_dir_lock_release(st->out_lock);
    memset(st->password, 0, sizeof st->password);
    memset(st, 0, sizeof *st);
}
