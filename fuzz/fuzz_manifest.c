/* The firmware manifest (eb_manifest_lookup: the pure part of `flash
 * --manifest`/`run`), asked for each firmware, chip and tier name the
 * fixtures and the shipped manifest use. */
#include "espbench/jobs/firmware_source.h"
#include "fuzz_common.h"

/* An absolute path or a ".." component. */
static int outside(const char *p)
{
    if (p[0] == '/')
        return 1;
    for (const char *c = p; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return 1;
        c += n + (c[n] == '/');
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const eb_manifest_query qs[] = {
        {.firmware = "demo", .chip = "esp32c3"},
        {.firmware = "demo", .chip = "esp8266", .tier = "iperf"},
        {.firmware = "espbench", .chip = "esp32", .tier = NULL},
        {.firmware = "iperf-example-v5.4", .chip = "esp32s3", .tier = "default"},
    };
    char *text = fuzz_copy(data, size);
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        eb_manifest_image *imgs = NULL;
        int n = 0;
        eb_error err;
        if (eb_manifest_lookup(text, size, "fuzz/manifest.json", &qs[i], &imgs, &n, &err) == EB_OK)
            for (int k = 0; k < n; k++)
                if (!imgs[k].is_url && outside(imgs[k].ref))
                    abort(); /* a path outside the manifest's directory got through */
        free(imgs);
    }
    free(text);
    return 0;
}
