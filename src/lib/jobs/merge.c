/* Merging results matrices (runs, hosts, CI shards). The shard function
 * that splits a run lives with the planner (run_plan.c). */
#include "espbench/jobs/merge.h"
#include "espbench/adapters/results_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void widen_range(eb_board_meta *dst, const eb_board_meta *src)
{
    /* ISO 8601 UTC strings of one format compare like the times they stand for. */
    if (src->started[0] && (!dst->started[0] || strcmp(src->started, dst->started) < 0))
        snprintf(dst->started, sizeof dst->started, "%s", src->started);
    if (src->finished[0] && strcmp(src->finished, dst->finished) > 0)
        snprintf(dst->finished, sizeof dst->finished, "%s", src->finished);
}

int eb_results_merge(eb_results *dst, const eb_results *src, const char *src_name, int prefer, eb_error *err)
{
    /* Check every conflict first so a refused merge leaves dst untouched. */
    if (prefer == EB_MERGE_REFUSE) {
        for (int i = 0; i < src->n_entries; i++) {
            const eb_entry *e = &src->entries[i];
            const eb_entry *old = eb_results_find_same(dst, e);
            if (old && !eb_entry_equal(old, e))
                return eb_fail(err, EB_ECONFIG,
                               "%s: entries[%d]: board \"%s\" %s/%s/%s repeat %d is already in the merged results "
                               "with different figures (%.2f vs %.2f Mbit/s); drop one input or pass --prefer newest",
                               src_name, i, e->board, e->chip, e->tier, eb_test_name(e->test), e->repeat,
                               old->mean_mbps, e->mean_mbps);
        }
        for (int i = 0; i < src->n_lat; i++) {
            const eb_latency *l = &src->lat[i];
            const eb_latency *old = eb_results_find_latency_key(dst, l);
            if (old && (strcmp(old->finished, l->finished) || old->received != l->received))
                return eb_fail(err, EB_ECONFIG,
                               "%s: latency[%d]: board \"%s\" %s/%s repeat %d is already in the merged results "
                               "from another run (avg %.2f vs %.2f ms); drop one input or pass --prefer newest",
                               src_name, i, l->board, l->chip, l->tier, l->repeat, old->avg_ms, l->avg_ms);
        }
    }
    for (int i = 0; i < src->n_entries; i++) {
        const eb_entry *e = &src->entries[i];
        eb_entry *old = eb_results_find_same(dst, e);
        if (!old)
            eb_results_add(dst, e);
        else if (!eb_entry_equal(old, e) && strcmp(e->finished, old->finished) > 0)
            eb_results_put(dst, e); /* EB_MERGE_NEWEST: the later run wins */
    }
    /* Latency tests: the same key and the same rule (refused, or the later wins). */
    for (int i = 0; i < src->n_lat; i++) {
        const eb_latency *l = &src->lat[i];
        eb_latency *old = eb_results_find_latency_key(dst, l);
        if (!old || strcmp(l->finished, old->finished) > 0)
            eb_results_put_latency(dst, l);
    }
    for (int i = 0; i < src->n_boards; i++) {
        const eb_board_meta *b = &src->boards[i];
        eb_board_meta *old = eb_results_board(dst, b->board, false);
        if (old)
            widen_range(old, b);
        else
            *eb_results_board(dst, b->board, true) = *b;
    }
    if (!dst->espbench_version[0])
        snprintf(dst->espbench_version, sizeof dst->espbench_version, "%s", src->espbench_version);
    return 0;
}

int eb_results_load_merged(eb_results *out, const char *const *paths, int n, int prefer, eb_error *err)
{
    eb_results_init(out);
    for (int i = 0; i < n; i++) {
        eb_results one;
        int rc = eb_results_load(&one, paths[i], err);
        if (!rc) {
            rc = eb_results_merge(out, &one, paths[i], prefer, err);
            if (!out->generated[0] || strcmp(one.generated, out->generated) > 0)
                snprintf(out->generated, sizeof out->generated, "%s", one.generated);
        }
        eb_results_free(&one);
        if (rc) {
            eb_results_free(out);
            return rc;
        }
    }
    return 0;
}
