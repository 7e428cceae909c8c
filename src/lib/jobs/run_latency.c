/* The latency test of a run: round trips from the PC to a connected board.
 * Two methods, chosen by what the firmware serves (its dialect row's
 * udp_echo_port) unless --latency-method says otherwise:
 *   udp-echo  the espbench firmware echoes datagrams (firmware/main/fw_echo.c);
 *             espbench times each probe (udp_echo.h). Under --sim the virtual
 *             board answers after its link's modelled round trip.
 *   icmp      the system's ping (ping_proc.h): lwIP answers ICMP echo on any
 *             board with an address, whatever firmware it runs.
 * Both give the same figures (eb_ping_summarize's rule). A test whose probes
 * all went unanswered is recorded as failed with its figures; only a test
 * that could not be run at all (no address, no ping) is an error here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/clock.h"
#include "espbench/formats/dialect.h"
#include "espbench/adapters/udp_echo.h"
#include "run_internal.h"

#define LATENCY_SLACK_MS 5000 /* beyond count x interval: the last reply's wait and ping's start */

/* The key and start of the test; the entry of the result stays empty. */
void run_latency_start(board_ctx *bc, const eb_run_item *it, run_result *r)
{
    const eb_run_opts *o = bc->sh->o;
    eb_latency *l = &r->lat;
    eb_entry_init(&r->e); /* unused; freed like any */
    r->entry = NULL;
    r->prov = &l->prov;
    memset(l, 0, sizeof *l);
    eb_prov_init(&l->prov);
    snprintf(l->board, sizeof l->board, "%s", bc->b->name);
    snprintf(l->chip, sizeof l->chip, "%s", bc->chip->name);
    run_dims_key(o, it, &(run_key){l->tier, sizeof l->tier, &l->repeat, &l->prov});
    l->interval_s = o->latency_interval_s;
    l->loss_pct = l->min_ms = l->avg_ms = l->max_ms = l->mdev_ms = l->p99_ms = NAN;
    eb_iso8601_utc(l->started);
    eb_prov_track_test_start(&bc->prov);
}

/* The echo port to probe, or 0 for ICMP. */
static unsigned echo_port(const board_ctx *bc)
{
    const char *m = bc->sh->o->latency_method;
    const eb_dialect_desc *d = eb_dialect_desc_get(bc->drv->dialect);
    unsigned port = d ? d->udp_echo_port : 0;
    if (!m)
        return port;
    if (strcmp(m, "udp-echo") == 0)
        return port ? port : EB_UDP_ECHO_PORT;
    return 0;
}

static void log_path(const board_ctx *bc, const eb_run_item *it, char *out, size_t cap)
{
    const eb_run_opts *o = bc->sh->o;
    char tag[200];
    run_dims_tag(o, it, NULL, tag, sizeof tag);
    snprintf(out, cap, "%s/latency-%s%s.log", o->out_dir, run_file_label(bc), tag);
}

/* UDP echo has no program output to keep: the log lists each reply's time. */
static void write_echo_log(const char *path, unsigned port, const eb_latency *l, const eb_ping_result *r)
{
    FILE *f = fopen(path, "ae");
    if (!f)
        return;
    fprintf(f, "$ udp-echo %s port %u: %d probes every %g s\n", l->target, port, l->sent, l->interval_s);
    for (int i = 0; i < r->n_rtt; i++)
        fprintf(f, "reply %d time=%.3f ms\n", i + 1, r->rtt_ms[i]);
    fprintf(f, "%d transmitted, %d received, %.1f%% loss\n", r->transmitted, r->received, r->loss_pct);
    fclose(f);
}

/* Measures into r->lat: status "failed" with figures when nothing
 * answered; an error only when the test could not run. */
int run_latency_test(board_ctx *bc, const eb_run_item *it, eb_latency *l, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    unsigned port = echo_port(bc);
    snprintf(l->method, sizeof l->method, "%s", port ? "udp-echo" : "icmp");
    if (!bc->wifi.ip[0])
        return eb_fail(err, EB_EIO, "%s: latency: the board reported no IP address after connecting", bc->label);
    snprintf(l->target, sizeof l->target, "%s", bc->wifi.ip);
    eb_ping_result *r = malloc(sizeof *r);
    if (!r)
        return eb_fail(err, EB_EIO, "latency: out of memory");
    char logp[1200];
    log_path(bc, it, logp, sizeof logp);
    eb_deadline d = eb_deadline_in((uint64_t)(o->latency_count * o->latency_interval_s * 1000) + LATENCY_SLACK_MS);
    run_infof(bc, EB_RUN_EV_INFO, "%s: latency: %d %s probes to %s", bc->label, o->latency_count, l->method,
              l->target);
    eb_pc *pc = bc->sh->pc;
    int rc = port ? pc->ops->udp_echo(pc, l->target, (uint16_t)port, o->latency_count, o->latency_interval_s, d, r,
                                      err)
                  : pc->ops->ping(pc, l->target, o->latency_count, o->latency_interval_s, d, logp, r, err);
    if (rc) {
        free(r);
        eb_error_prefix(err, "%s: ", bc->label);
        return rc;
    }
    l->sent = r->transmitted;
    l->received = r->received;
    l->loss_pct = r->loss_pct;
    l->min_ms = r->min_ms;
    l->avg_ms = r->avg_ms;
    l->max_ms = r->max_ms;
    l->mdev_ms = r->mdev_ms;
    l->p99_ms = r->p99_ms;
    if (port)
        write_echo_log(logp, port, l, r);
    free(r);
    if (l->received > 0) {
        snprintf(l->status, sizeof l->status, "ok");
    } else {
        snprintf(l->status, sizeof l->status, "failed");
        snprintf(l->error, sizeof l->error, "no reply to %d %s probes from %s%s", l->sent, l->method, l->target,
                 port ? " (does the firmware serve UDP echo? try --latency-method icmp)" : "");
    }
    eb_iso8601_utc(l->finished);
    return 0;
}

int run_latency_record(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err)
{
    int rc = run_record_latency(bc, &r->lat, err);
    run_emit_latency(bc, it, &r->lat);
    return rc;
}

void run_latency_failed(run_result *r, const char *why)
{
    snprintf(r->lat.status, sizeof r->lat.status, "failed");
    snprintf(r->lat.error, sizeof r->lat.error, "%.255s", why);
    eb_iso8601_utc(r->lat.finished);
}
