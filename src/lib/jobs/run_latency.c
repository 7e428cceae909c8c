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
 * that could not be run at all (no address, no ping) is an error here.
 *
 * --latency-under-load probes the same way while a throughput test runs
 * (the power-save question: a station in modem sleep answers an idle probe
 * at its next DTIM beacon, a busy one at once, while queues behind iperf's
 * traffic add their own wait): a thread beside the test, started by the
 * test's traffic, records a latency set tagged with the test (under_load). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/clock.h"
#include "espbench/formats/dialect.h"
#include "espbench/adapters/udp_echo.h"
#include "run_internal.h"

#define LATENCY_SLACK_MS 5000 /* beyond count x interval: the last reply's wait and ping's start */

static void latency_init(board_ctx *bc, const eb_run_item *it, eb_latency *l)
{
    const eb_run_opts *o = bc->sh->o;
    memset(l, 0, sizeof *l);
    eb_prov_init(&l->prov);
    snprintf(l->board, sizeof l->board, "%s", bc->b->name);
    snprintf(l->chip, sizeof l->chip, "%s", bc->chip->name);
    run_dims_key(o, it, &(run_key){l->tier, sizeof l->tier, &l->repeat, &l->prov});
    l->interval_s = o->latency_interval_s;
    l->loss_pct = l->min_ms = l->avg_ms = l->max_ms = l->mdev_ms = l->p99_ms = NAN;
    eb_iso8601_utc(l->started);
}

/* The key and start of the test; the entry of the result stays empty. */
void run_latency_start(board_ctx *bc, const eb_run_item *it, run_result *r)
{
    eb_entry_init(&r->e); /* unused; freed like any */
    r->entry = NULL;
    r->prov = &r->lat.prov;
    latency_init(bc, it, &r->lat);
    eb_prov_track_test_start(&bc->prov);
}

/* The echo port to probe, or 0 for ICMP. */
static unsigned echo_port(const board_ctx *bc)
{
    const char *m = bc->sh->o->latency_method;
    const eb_dialect_desc *d = eb_dialect_desc_get(bc->cons->drv->dialect);
    unsigned port = d ? d->udp_echo_port : 0;
    if (!m)
        return port;
    if (strcmp(m, "udp-echo") == 0)
        return port ? port : EB_UDP_ECHO_PORT;
    return 0;
}

/* OUT/latency-LABEL-TAG.log; under load, OUT/latency-LABEL-TAG-TEST.log. */
static void log_path(const board_ctx *bc, const eb_run_item *it, const char *under, char *out, size_t cap)
{
    const eb_run_opts *o = bc->sh->o;
    char tag[200];
    run_dims_tag(o, it, under, tag, sizeof tag);
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

/* count probes into l: status "failed" with figures when nothing
 * answered; an error only when the probes could not run. */
static int probe(board_ctx *bc, const eb_run_item *it, eb_latency *l, int count, eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    unsigned port = echo_port(bc);
    snprintf(l->method, sizeof l->method, "%s", port ? "udp-echo" : "icmp");
    if (!bc->cons->wifi.ip[0])
        return eb_fail(err, EB_EIO, "%s: latency: the board reported no IP address after connecting", bc->label);
    snprintf(l->target, sizeof l->target, "%s", bc->cons->wifi.ip);
    eb_ping_result *r = malloc(sizeof *r);
    if (!r)
        return eb_fail(err, EB_EIO, "latency: out of memory");
    char logp[1200];
    log_path(bc, it, l->under_load[0] ? l->under_load : NULL, logp, sizeof logp);
    eb_deadline d = eb_deadline_in((uint64_t)(count * o->latency_interval_s * 1000) + LATENCY_SLACK_MS);
    run_infof(bc, EB_RUN_EV_INFO, "%s: latency%s%s: %d %s probes to %s", bc->label,
              l->under_load[0] ? " under " : "", l->under_load, count, l->method, l->target);
    eb_pc *pc = run_far_pc(bc);
    int rc = port ? pc->ops->udp_echo(pc, l->target, (uint16_t)port, count, o->latency_interval_s, d, r, err)
                  : pc->ops->ping(pc, l->target, count, o->latency_interval_s, d, logp, r, err);
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

/* Measures into r->lat: status "failed" with figures when nothing
 * answered; an error only when the test could not run. */
int run_latency_test(board_ctx *bc, const eb_run_item *it, eb_latency *l, eb_error *err)
{
    return probe(bc, it, l, bc->sh->o->latency_count, err);
}

/* ------------------------------------------------------------ under load */

#define LOAD_POLL_MS 10

typedef struct load_probe {
    board_ctx *bc;
    const eb_run_item *it;
    eb_latency *l;
    int count;
    atomic_bool test_over;
} load_probe;

/* The prober's thread: waits for the test's traffic (or its end without
 * any), then probes; a failure to probe is the set's, never the test's. */
static void *load_main(void *arg)
{
    load_probe *lp = arg;
    while (!atomic_load(&lp->bc->traffic_on)) {
        if (atomic_load(&lp->test_over) || run_stopped(lp->bc))
            return NULL; /* no traffic: nothing measured under load */
        eb_sleep_ms(LOAD_POLL_MS);
    }
    eb_iso8601_utc(lp->l->started);
    eb_error err = {0};
    if (probe(lp->bc, lp->it, lp->l, lp->count, &err)) {
        snprintf(lp->l->status, sizeof lp->l->status, "failed");
        snprintf(lp->l->error, sizeof lp->l->error, "%.255s", err.msg);
        eb_iso8601_utc(lp->l->finished);
    }
    return NULL;
}

int run_latency_under_load(board_ctx *bc, const eb_run_item *it, run_result *r,
                           int (*test)(board_ctx *, const eb_run_item *, run_result *, eb_error *), eb_error *err)
{
    const eb_run_opts *o = bc->sh->o;
    latency_init(bc, it, &r->lat);
    snprintf(r->lat.under_load, sizeof r->lat.under_load, "%s", eb_run_test_name(it->test));
    /* The probes fit in the traffic: at most one per interval of the test's duration. */
    int fit = (int)(o->duration_s / o->latency_interval_s);
    load_probe lp = {.bc = bc, .it = it, .l = &r->lat, .count = o->latency_count < fit ? o->latency_count : fit};
    if (lp.count < 1)
        lp.count = 1;
    atomic_store(&bc->traffic_on, false);
    atomic_store(&lp.test_over, false);
    pthread_t th;
    bool started = pthread_create(&th, NULL, load_main, &lp) == 0;
    if (!started)
        run_infof(bc, EB_RUN_EV_WARN, "%s: latency under %s: no thread for the probes; the test runs without",
                  bc->label, r->lat.under_load);
    int rc = test(bc, it, r, err);
    atomic_store(&lp.test_over, true);
    if (started)
        pthread_join(th, NULL); /* bounded: the probes' own deadline */
    atomic_store(&bc->traffic_on, false);
    return rc;
}

/* The loaded set of a throughput result, when its probes ran: its key is
 * the entry's (provenance included: the same board, tier and point). */
int run_latency_record_loaded(board_ctx *bc, const eb_run_item *it, run_result *r, eb_error *err)
{
    if (!r->lat.under_load[0] || !r->lat.status[0])
        return 0;
    r->lat.prov = *eb_entry_prov(&r->e);
    return run_latency_record(bc, it, r, err);
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
