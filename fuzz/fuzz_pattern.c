/* Pattern files and the matcher: the input as a pattern file
 * (eb_pattern_load_buffer), matched against itself as a log when it loads;
 * then the input as a log through the built-in udp-example (whole log, line
 * by line, detection) and through `espbench parse`'s pattern path. */
#include "espbench/jobs/parse_job.h"
#include "espbench/formats/pattern.h"
#include "espbench/adapters/pattern_files.h"
#include "fuzz_common.h"

static eb_pattern builtin;
static bool have_builtin;

static void one_line(const char *line, size_t n, void *user)
{
    eb_pattern_line pl;
    eb_pattern_match_line(user, line, n, &pl);
}

static void as_log(const eb_pattern *p, const char *text, size_t size)
{
    eb_pattern_log log;
    eb_pattern_parse_log(p, "fuzz.log", text, size, &log);
    eb_pattern_log_free(&log);
    (void)eb_pattern_detect(p, text, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    eb_error err;
    if (!have_builtin)
        have_builtin = eb_pattern_load_file(&builtin, ESPBENCH_SOURCE_PROFILES "/patterns/udp-example.yaml", &err) == 0;
    char *text = fuzz_copy(data, size);
    eb_pattern p;
    if (eb_pattern_load_buffer(&p, text, size, "fuzz.yaml", &err) == EB_OK) {
        as_log(&p, text, size);
        eb_pattern_free(&p);
    }
    if (have_builtin) {
        as_log(&builtin, text, size);
        fuzz_lines(data, size, one_line, &builtin);
        eb_parse_opts o;
        eb_parse_opts_init(&o);
        o.pattern = &builtin;
        eb_parse_out out;
        eb_parse_out_init(&out);
        eb_parse_log_buffer(&out, "fuzz.log", text, size, &o, &err);
        eb_parse_out_free(&out);
    }
    free(text);
    return 0;
}
