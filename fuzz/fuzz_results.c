/* results.json as `compare`, `merge` and `report` read it: the parser, then
 * merging it into an empty set and into itself, comparing it with itself and
 * with the profiles' reference figures, and writing it back out. */
#include "espbench/formats/compare.h"
#include "espbench/jobs/merge.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/results.h"
#include "espbench/adapters/profile_dirs.h"
#include "fuzz_common.h"

static eb_profiles profiles;
static int have_profiles = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    eb_error err;
    if (have_profiles < 0) {
        const char *dirs[] = {ESPBENCH_SOURCE_PROFILES};
        have_profiles = eb_profiles_load(&profiles, dirs, 1, &err) == EB_OK;
    }
    eb_results r;
    char *text = fuzz_copy(data, size);
    if (eb_results_parse_json(&r, text, size, "fuzz.json", &err) == EB_OK) {
        eb_results m;
        eb_results_init(&m);
        if (eb_results_merge(&m, &r, "a.json", EB_MERGE_REFUSE, &err) == EB_OK)
            (void)eb_results_merge(&m, &r, "b.json", EB_MERGE_NEWEST, &err);
        eb_results_free(&m);
        eb_compare_opts o = {.max_drop_pct = 5, .stat = 0, .chip = NULL};
        eb_compare c;
        if (have_profiles && eb_compare_results(&r, &r, &profiles, &o, &c, &err) == EB_OK) {
            eb_buf b;
            eb_buf_init(&b);
            eb_compare_text(&c, &b);
            eb_compare_junit(&c, &b);
            eb_buf_free(&b);
            eb_compare_free(&c);
        }
        if (have_profiles && eb_compare_docs(&profiles, &r, &o, &c, &err) == EB_OK)
            eb_compare_free(&c);
        eb_buf out;
        eb_buf_init(&out);
        eb_results_to_json(&r, &out);
        eb_results_to_csv(&r, &out);
        eb_buf_free(&out);
        eb_results_free(&r);
    }
    free(text);
    return 0;
}
