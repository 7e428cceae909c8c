/* Chip/tier profile YAML from memory (eb_profiles_load_buffer), then the
 * renderers `espbench profiles show` runs over what loaded; the same bytes
 * as a console dialect file (eb_dialect_check_buffer, profiles/dialects/). */
#include "espbench/formats/dialect.h"
#include "espbench/formats/profile.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    eb_profiles p;
    eb_error err;
    char *text = fuzz_copy(data, size);
    if (eb_profiles_load_buffer(&p, text, size, "fuzz.yaml", &err) == EB_OK) {
        for (int i = 0; i < p.n_chips; i++) {
            free(eb_chip_render_table(&p.chips[i], NULL));
            free(eb_chip_render_json(&p.chips[i], NULL));
        }
        eb_profiles_free(&p);
    }
    (void)eb_dialect_check_buffer(text, size, "fuzz.yaml", &err);
    free(text);
    return 0;
}
