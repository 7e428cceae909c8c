/* Merging results of several runs, hosts or CI shards into one matrix, and the
 * deterministic shard function `run --shard i/N` uses. */
#ifndef ESPBENCH_MERGE_H
#define ESPBENCH_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/error.h"
#include "espbench/results.h"

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

/* Stable 32-bit hash (FNV-1a) of a matrix cell key "chip/tier/test". */
uint32_t eb_shard_hash(const char *key);
/* True if the cell `key` ("chip/tier/test", e.g. "esp32/iperf/tcp_tx") belongs
 * to shard `index` of `total` (index 1..total, like GitLab's CI_NODE_INDEX).
 * Every key belongs to exactly one shard; the split depends only on the key. */
bool eb_shard_select(int index, int total, const char *key);
/* Writes the cell key into out ("chip/tier/test"). */
void eb_shard_key(char *out, size_t size, const char *chip, const char *tier, int test);
/* Parses "i/N" (1 <= i <= N); EB_ECONFIG with a message otherwise. */
int eb_shard_parse(const char *s, int *index, int *total, eb_error *err);

#endif
