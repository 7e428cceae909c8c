/* ESP-Hosted: a pair profile from memory (eb_hosted_load_buffer, checked
 * against the shipped chip profiles) and its renderings, and the same bytes
 * as the host's raw throughput report (eb_raw_tp_parse). */
#include <stdlib.h>

#include "espbench/formats/hosted.h"
#include "espbench/adapters/profile_dirs.h"
#include "fuzz_common.h"

static eb_profiles prof;
static int prof_state; /* 0 unloaded, 1 loaded, -1 failed */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    eb_error err;
    if (prof_state == 0)
        prof_state = eb_profiles_load_default(&prof, NULL, &err) == EB_OK ? 1 : -1;
    char *text = fuzz_copy(data, size);
    if (prof_state == 1) {
        eb_hosted_set s = {0};
        if (eb_hosted_load_buffer(&s, text, size, "fuzz.yaml", &prof, &err) == EB_OK) {
            free(eb_hosted_render_list(&s));
            for (int i = 0; i < s.n; i++)
                free(eb_hosted_render_show(&s.pairs[i]));
        }
        eb_hosted_free(&s);
    }
    eb_raw_tp_result *r = malloc(sizeof *r);
    if (r) {
        eb_raw_tp_parse(text, size, r, &err);
        free(r);
    }
    free(text);
    return 0;
}
