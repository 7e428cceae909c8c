/* A build's config/sdkconfig.json (eb_sdkconfig_json_build_fields: what the
 * virtual board reads with --sdkconfig-json), checking that only build-time
 * fields are touched and every value set is one a Kconfig option can hold. */
#include "espbench/formats/sdkconfig.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_copy(data, size);
    eb_tier t;
    memset(&t, 0, sizeof t);
    t.set[EB_F_STATIC_RX] = true;
    t.value[EB_F_STATIC_RX] = 7;
    eb_error err;
    if (eb_sdkconfig_json_build_fields(text, size, "fuzz/sdkconfig.json", &t, &err) >= 0) {
        if (!t.set[EB_F_STATIC_RX] || t.value[EB_F_STATIC_RX] != 7)
            abort(); /* a runtime field changed */
        for (int f = 0; f < EB_F_COUNT; f++)
            if (t.set[f] && !eb_sdkconfig_reads(f) && f != EB_F_STATIC_RX)
                abort(); /* a field the parser does not read */
    }
    free(text);
    return 0;
}
