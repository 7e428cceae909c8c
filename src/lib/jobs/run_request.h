/* The request that made a results folder (run_request.c): recorded into
 * OUT/request.json when a run starts there, compared with a --resume's so a
 * folder only ever holds the figures of one request; and the folder checked
 * and locked before any board starts (run_outdir.c). Private to the run job. */
#ifndef ESPBENCH_RUN_REQUEST_H
#define ESPBENCH_RUN_REQUEST_H

#include <stddef.h>

#include "espbench/adapters/pc.h"
#include "espbench/jobs/run.h"

#define EB_RUN_REQUEST_FILE "request.json"

/* The request's fields as JSON text (heap; free it): boards (name, chip,
 * forced dialect, peer, co-processor), firmware, tiers, tests, timing,
 * repeats, rates, sweep, latency settings, shard, --aggregate, --pattern. */
char *run_request_json(const eb_run_opts *o);

/* The differences between a recorded request (JSON text) and o, one
 * "WHAT: A then, B now" per field joined by "; " into out; returns their
 * count (0: the same request). A firmware digest is compared only when both
 * sides know one. Unparsable text: -1. */
int run_request_diff(const char *recorded, size_t len, const eb_run_opts *o, char *out, size_t cap);

/* The same against an older folder's results.json (no request.json): its
 * boards' chips and its entries' duration, interval and offered rate. */
int run_request_diff_results(const eb_results *r, const eb_run_opts *o, char *out, size_t cap);

/* Before any board starts (run_outdir.c): a --resume folder exists and holds
 * a run; the folder takes files (eb_dir_check_writable); it is locked for
 * this run (st->out_lock); a --resume's request matches the folder's
 * (EB_ECONFIG naming each difference). */
int run_out_ready(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err);
/* Once the boards are known (the virtual boards' firmware too): the resume
 * check again, then OUT/request.json written. */
int run_request_record(const eb_run_opts *o, eb_error *err);

/* run_names.c: every required option the request lacks, in one line
 * (EB_ECONFIG, a usage error); the boards' chips (and peers') to their
 * profiles' spellings ("ESP32-C3" -> "esp32c3"), a typo with the nearest
 * name. */
int run_missing_options(const eb_run_request *rq, eb_run_setup *st, eb_error *err);
int run_names_resolve(eb_run_opts *o, eb_run_setup *st, eb_error *err);
/* Once the ends have resolved (an ESP-Hosted pair's tiers are the host's):
 * each tier of the request known to each board's chip, named once, a typo
 * answered with the nearest tier. */
int run_tiers_resolve(eb_run_opts *o, eb_run_setup *st, eb_error *err);
/* --duration and --interval against the iperf limits of each board's
 * dialect when it is known before the board opens (--dialect, a lab file's
 * dialect, the virtual boards' espbench firmware); the others are checked
 * when their console opens (run_steps.c). A usage error. */
int run_limits_precheck(const eb_run_request *rq, const eb_run_opts *o, eb_run_setup *st, eb_error *err);

/* run_retry.c: after the PC's iperf2 failed (rc != 0): a port it could
 * not bind makes the error final (no retry) with the --iperf-port hint;
 * returns rc. Before the run: each board's PC port free for the tests
 * whose server is the PC's (EB_ECONFIG naming --iperf-port). */
struct board_ctx;
int run_pc_iperf_final(const struct board_ctx *bc, eb_pc_iperf *p, uint16_t port, int rc, eb_error *err);
int run_pc_ports_precheck(const eb_run_opts *o, eb_run_setup *st, eb_error *err);

#endif
