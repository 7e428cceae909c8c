/* iperf2 output on the PC, all styles: the line classifier, the collector fed
 * in uneven chunks, the version check, and the whole input as a PC log
 * through `espbench parse`. */
#include "espbench/formats/iperf_parse.h"
#include "espbench/jobs/parse_job.h"
#include "fuzz_common.h"

static void one_line(const char *line, size_t len, void *user)
{
    (void)user;
    eb_iperf_line l;
    eb_iperf_parse_line(line, len, &l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_lines(data, size, one_line, NULL);

    eb_iperf_run r;
    eb_iperf_run_init(&r);
    /* chunk sizes from the data itself, so line splits land anywhere */
    size_t off = 0, step = size ? (size_t)(data[0] % 97) + 1 : 1;
    while (off < size) {
        size_t n = size - off < step ? size - off : step;
        eb_iperf_feed(&r, data + off, n);
        off += n;
        step = (step * 7 + 3) % 113 + 1;
    }
    eb_iperf_finish(&r);
    eb_iperf_finish(&r); /* idempotent */
    eb_iperf_run_free(&r);

    eb_iperf_version v;
    eb_error err;
    (void)eb_iperf_version_parse((const char *)data, size, &v, &err);

    eb_parse_opts o;
    eb_parse_opts_init(&o);
    o.side = EB_SIDE_PC;
    eb_parse_out out;
    eb_parse_out_init(&out);
    char *text = fuzz_copy(data, size);
    (void)eb_parse_log_buffer(&out, "fuzz.log", text, size, &o, &err);
    eb_parse_out_free(&out);
    free(text);
    return 0;
}
