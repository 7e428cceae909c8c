/* Board console lines, every dialect: the line classifier, the stateful
 * parser (summary recognition), dialect detection and line cleaning; then
 * the whole input as a board log through `espbench parse`. */
#include "espbench/formats/board_parse.h"
#include "espbench/formats/dialect.h"
#include "espbench/jobs/parse_job.h"
#include "fuzz_common.h"

typedef struct {
    eb_board_parser parser;
    eb_board_detect detect;
} state;

static void one_line(const char *line, size_t len, void *user)
{
    state *st = user;
    eb_board_line out;
    eb_board_parser_line(&st->parser, line, len, &out);
    eb_board_parse_line(st->parser.dialect, line, len, &out, NULL);
    eb_board_detect_line(&st->detect, line, len);
    char clean[256];
    eb_board_clean_line(line, len, clean, sizeof clean);
    eb_board_clean_line(line, len, clean, 1);
    eb_ebline eb;
    if (eb_ebline_parse(line, len, &eb))
        (void)eb_ebline_get(&eb, "rate");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The dialect comes from the input (every dialect, "unknown" included),
     * picked by its length, so one run costs one parse and mutations still
     * reach all of them. */
    int d = (int)(size % (EB_DIALECT_COUNT + 1)) - 1;
    state st;
    eb_board_parser_init(&st.parser, d);
    eb_board_detect_init(&st.detect);
    fuzz_lines(data, size, one_line, &st);
    char why[128];
    (void)eb_board_detect_result(&st.detect, why, sizeof why);
    /* The same bytes as a captured log, dialect detected from them. */
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    o.side = EB_SIDE_BOARD;
    eb_parse_out out;
    eb_parse_out_init(&out);
    eb_error err;
    char *text = fuzz_copy(data, size);
    (void)eb_parse_log_buffer(&out, "fuzz.log", text, size, &o, &err);
    eb_parse_out_free(&out);
    free(text);
    return 0;
}
