/* eb_run_resolve: from what the user asked for (flags, a lab file, --sim) to
 * the boards of a run, in one step the CLI only calls. The boards come from
 * a board source (run_sources.c: --port, --lab, --sim, --qemu), walked here
 * by its entries; the policies live here: where the Wi-Fi password may come
 * from (a lab file's source or an environment variable, never a flag), the
 * SSID and output-folder defaults, the checks before anything starts. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "espbench/protocols/console_driver.h"
#include "espbench/formats/dialect.h"
#include "espbench/adapters/iperf_proc.h"
#include "espbench/formats/lab.h"
#include "espbench/jobs/run.h"
#include "espbench/adapters/lab_file.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/adapters/dir_lock.h"
#include "run_internal.h"
#include "run_request.h"

/* The password: the lab file's source, else the environment variable (an
 * explicit --password-env must be set), else none — or the source's own
 * AP's (the virtual AP's). */
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
    const char *own = run_sources_ap_password(rq);
    if (own && !have) {
        snprintf(st->password, sizeof st->password, "%s", own);
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
    if (!o->ssid) /* the source's own network: the virtual AP, the emulated board's Ethernet */
        o->ssid = run_sources_ssid(rq);
    if (!o->ssid)
        return run_bad_request(st, err, "--ssid is required (or ap.ssid in the lab file)");
    for (int i = 0; i < o->n_boards && rq->far_end; i++) /* an end driver claims it (run_ends.c) */
        snprintf(o->boards[i].far_end, sizeof o->boards[i].far_end, "%s", rq->far_end);
    for (int i = 0; i < o->n_boards && !run_sources_provide(rq, RUN_SRC_PC_ADDRESS); i++) {
        /* Board to board: the PC drives the consoles only, no iperf end of its own
         * (--peer-* are a lone board's: a lab file refuses them). */
        bool pair = o->boards[i].peer.chip[0] || rq->peer_port || rq->peer_chip;
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
        if (far && far->decl->local_iperf)
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
    if (o->sweep.n > 0) { /* the link variables: boards not started yet, as the source will start them */
        eb_run_opts chk = *o;
        eb_run_board standin[1];
        const eb_run_board *sb = run_sources_standin(rq);
        if (sb) {
            standin[0] = *sb;
            chk.boards = standin;
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

int eb_run_resolve(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    memset(st, 0, sizeof *st);
    /* The board sources' declarations: one source (or a lab file under
     * --sim), the options each claims or refuses, each one's own check. */
    int rc = run_sources_check(rq, st, err);
    if (!rc)
        rc = run_missing_options(rq, st, err); /* every one at once, after the contradictions */
    if (rc)
        return rc;
    rc = eb_run_check_timing(o, err);
    st->bad_request = rc != 0;
    if (!rc)
        rc = run_sources_boards(rq, o, st, err);
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
    if ((rc = run_pc_ports_precheck(o, st, err)) != 0 || (rc = run_sources_start(rq, o, st, err)) != 0)
        return rc;
    return run_request_record(o, err);
}

void eb_run_setup_free(eb_run_setup *st)
{
    run_sources_stop(st); /* the virtual and emulated boards, the lab file */
    run_hosted_setup_free(st);
    eb_profiles_free(&st->profiles);
    eb_dir_lock_release(st->out_lock);
    memset(st->password, 0, sizeof st->password);
    memset(st, 0, sizeof *st);
}
