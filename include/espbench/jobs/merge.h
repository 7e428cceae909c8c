/* Merging results of several runs, hosts or CI shards into one matrix (the
 * shard function `run --shard i/N` uses is the planner's: run.h). */
#ifndef ESPBENCH_MERGE_H
#define ESPBENCH_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/error.h"
#include "espbench/formats/results.h"

enum eb_merge_prefer {
    EB_MERGE_REFUSE, /* a conflicting duplicate key is an error (EB_ECONFIG) */
    EB_MERGE_NEWEST, /* keep the entry with the later `finished` time */
};

/* Adds every entry and board of src to dst. A duplicate key (board, chip,
 * tier, test, repeat) with identical figures collapses into one; a
 * conflicting one is refused or resolved per `prefer`. src_name names src in
 * messages. Boards with the same name keep the first metadata, with the
 * started/finished range widened. */
int eb_results_merge(eb_results *dst, const eb_results *src, const char *src_name, int prefer, eb_error *err);

/* Loads and merges several results files (in order) into out. */
int eb_results_load_merged(eb_results *out, const char *const *paths, int n, int prefer, eb_error *err);

#endif
