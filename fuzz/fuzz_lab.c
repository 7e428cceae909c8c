/* The lab file (`run --lab`), from memory. password_file paths resolve below
 * a directory that does not exist, so nothing outside is read. */
#include "espbench/formats/lab.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static eb_lab lab;
    eb_error err;
    char *text = fuzz_copy(data, size);
    if (eb_lab_parse(&lab, text, size, "fuzz-lab.yaml", "/nonexistent-espbench-fuzz", &err) == EB_OK)
        eb_lab_free(&lab);
    free(text);
    return 0;
}
