/* The request that made a results folder (run_request.c): recorded into
 * OUT/request.json when a run starts there, compared with a --resume's so a
 * folder only ever holds the figures of one request; and the folder checked
 * and locked before any board starts (run_outdir.c). Private to the run job. */
#ifndef ESPBENCH_RUN_REQUEST_H
#define ESPBENCH_RUN_REQUEST_H

#include <stddef.h>

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

#endif
