/* espbench parse: captured board console / PC iperf2 logs into results JSON. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "espbench/base/buf.h"
#include "espbench/formats/dialect.h"
#include "espbench/jobs/parse_job.h"
#include "espbench/formats/pattern.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/results.h"
#include "espbench/base/version.h"
#include "espbench/adapters/dialect_files.h"
#include "espbench/adapters/results_file.h"

const char cmd_parse_usage[] =
    "usage: espbench parse [--dialect auto|NAME] [--side board|pc|auto] [--test TEST[,TEST...]]\n"
    "                      [--pattern FILE|NAME] [--unit-base 1e6|2^20]\n"
    "                      [--chip CHIP] [--tier TIER] [--interval S] [--warmup S]\n"
    "                      [-o results.json] LOG...\n"
    "\n"
    "Turns logs of a run done by hand -- a board's console log and/or the PC's\n"
    "iperf2 output -- into the same results JSON as `espbench run`. Each log's side\n"
    "and the board's dialect are detected; a log is cut into tests at each mode\n"
    "line (board) or banner (PC), and the test is inferred from those lines.\n"
    "A board log and a PC log of the same tests are paired in order, so an entry\n"
    "holds the receiver's intervals (the headline) and the sender's.\n"
    "\n"
    "  --dialect NAME  board console dialect: idf-legacy, esp8266, idf-v4.4, idf-v5.1,\n"
    "                  iperf-cmd-0.1, iperf-cmd-1.0, espbench (default: auto)\n"
    "  --unit-base B   bits per \"Mbit\" in a board log's rates: 1e6 (ESP-IDF <= v5.0,\n"
    "                  iperf-cmd 1.0) or 2^20 (v5.1-v6.0); default: the dialect's. parse\n"
    "                  warns when the log's evidence conflicts or is whitespace only\n"
    "  --side SIDE     board, pc or auto (default)\n"
    "  --pattern FILE  the board log is a firmware of your own, described by this\n"
    "                  pattern file (espbench-patterns(5)), or a built-in one by\n"
    "                  name (udp-example); a log no built-in parser reads is tried\n"
    "                  against the built-in pattern files without this flag\n"
    "  --test TEST[,TEST...]  tcp_tx, tcp_rx, udp_tx or udp_rx for the tests a log does\n"
    "                  not tell (one name: all of them; a list: in the log's order)\n"
    "  --chip CHIP     chip name (default: from the boot log, else 'unknown')\n"
    "  --tier TIER     tier name (default: 'unknown')\n"
    "  --interval S    report interval (default: the mode line's, else the median)\n"
    "  --warmup S      seconds left out of the statistics (default 1)\n"
    "  -o FILE         write results.json there (atomically; not synced: the logs make\n"
    "                  it again); default: JSON on stdout\n"
    "\n"
    "Exit status: 0 ok, 2 input that cannot be understood (with FILE:LINE), 3 a\n"
    "file that cannot be read or written.\n";

static int parse_seconds(const char *opt, const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= 0) || !isfinite(v))
        return cli_usage_error("parse", "%s '%s': expected seconds (a number >= 0)", opt, s);
    *out = v;
    return 0;
}

/* --test T (every test the log does not tell) or --test A,B,... (those
 * tests in the log's order). Returns non-zero for a bad name. */
static int parse_test_list(const char *arg, eb_parse_opts *o)
{
    int n = 0;
    const char *p = arg;
    for (;;) {
        size_t len = strcspn(p, ",");
        char name[16];
        if (len == 0 || len >= sizeof name || n == (int)(sizeof o->test_list / sizeof o->test_list[0]))
            return 1;
        memcpy(name, p, len);
        name[len] = '\0';
        int t = eb_test_from_name(name);
        if (t < 0 || t >= EB_TEST_COUNT) /* raw_tx/raw_rx: ESP-Hosted's report, not iperf */
            return 1;
        o->test_list[n++] = t;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    o->test = n == 1 ? o->test_list[0] : -1;
    o->n_test_list = n > 1 ? n : 0;
    return 0;
}

/* --dialect auto|NAME */
static int parse_dialect(const char *arg, eb_parse_opts *o)
{
    o->dialect = EB_DIALECT_UNKNOWN;
    if (strcmp(arg, "auto") == 0)
        return 0;
    o->dialect = eb_dialect_from_name(arg);
    if (o->dialect != EB_DIALECT_UNKNOWN)
        return 0;
    char names[512] = "";
    for (int d = 0; d < eb_dialect_count(); d++) {
        strncat(names, d ? ", " : "", sizeof names - strlen(names) - 1);
        strncat(names, eb_dialect_name(d), sizeof names - strlen(names) - 1);
    }
    return cli_usage_error("parse", "--dialect '%s': unknown; one of auto, %s", arg, names);
}

static void print_row(FILE *f, const eb_entry *e)
{
    char loss[16] = "-", summary[96] = "";
    if (!isnan(e->loss_pct))
        snprintf(loss, sizeof loss, "%.2f", e->loss_pct);
    if (e->summary_mbps > 0 && e->summary_printed) /* the log's own figure and unit, then converted */
        snprintf(summary, sizeof summary, "%slog's summary %s = %.2f Mbit/s",
                 eb_entry_error(e)[0] || !e->rx_stats.n ? "; " : "", e->summary_printed, e->summary_mbps);
    else if (e->summary_mbps > 0)
        snprintf(summary, sizeof summary, "%slog's summary %.2f Mbit/s", eb_entry_error(e)[0] || !e->rx_stats.n ? "; " : "",
                 e->summary_mbps);
    fprintf(f, "%-7s %-8s %4d %4d %9.2f %9.2f %8s  %s%s\n", eb_test_name(e->test), e->status, e->rx_stats.n,
            e->tx_stats.n, e->mean_mbps, e->peak_mbps, loss,
            eb_entry_error(e)[0] ? eb_entry_error(e) : e->rx_stats.n > 0 ? "" : "sender side only", summary);
}

/* A table row per entry, up to this many: a long capture (thousands of
 * tests) gets its first rows and a count; the file holds them all. */
#define SUMMARY_ROWS 40

static void print_summary(FILE *f, const eb_results *out, int n_failed, const char *file)
{
    fprintf(f, "%-7s %-8s %4s %4s %9s %9s %8s  %s\n", "test", "status", "rx", "tx", "mean", "peak1s", "loss%",
            "note");
    if (out->n_entries > SUMMARY_ROWS) {
        int failed = n_failed; /* counted by the parser: another pass over every entry was measurable */
        for (int i = 0; i < SUMMARY_ROWS; i++) {
            print_row(f, &out->entries[i]);
            failed -= strcmp(out->entries[i].status, "ok") != 0;
        }
        fprintf(f, "... and %d more entries (%d ok, %d failed): see %s\n", out->n_entries - SUMMARY_ROWS,
                out->n_entries - SUMMARY_ROWS - failed, failed, file);
        return;
    }
    for (int i = 0; i < out->n_entries; i++)
        print_row(f, &out->entries[i]);
}

static int write_stdout(void *ctx, const void *data, size_t len, eb_error *err)
{
    if (fwrite(data, 1, len, ctx) != len)
        return eb_fail(err, EB_EIO, "stdout: write failed");
    return 0;
}

int cmd_parse(int argc, char **argv)
{
    static const struct option opts[] = {
        {"dialect", required_argument, NULL, 'd'}, {"side", required_argument, NULL, 's'},
        {"test", required_argument, NULL, 't'},    {"chip", required_argument, NULL, 'c'},
        {"tier", required_argument, NULL, 'T'},    {"interval", required_argument, NULL, 'i'},
        {"warmup", required_argument, NULL, 'w'},  {"output", required_argument, NULL, 'o'},
        {"pattern", required_argument, NULL, 'P'}, {"unit-base", required_argument, NULL, 'u'},
        {NULL, 0, NULL, 0},
    };
    eb_parse_opts o;
    eb_parse_opts_init(&o);
    const char *output = NULL, *pattern = NULL;
    int c;
    /* The profile directories' dialects/ (--profiles, ESPBENCH_PROFILES) join
     * the built-in ones: --dialect names them, a boot log's release picks them. */
    eb_error derr = {0};
    if (eb_dialects_load_default(cli_profiles_dir, &derr))
        return cli_error(&derr);
    optind = 1;
    opterr = 0;
    while ((c = cli_getopt(argc, argv, "o:", opts)) != -1) {
        switch (c) {
        case 'd':
            if (parse_dialect(optarg, &o))
                return EB_ECONFIG;
            break;
        case 's':
            if (strcmp(optarg, "board") == 0)
                o.side = EB_SIDE_BOARD;
            else if (strcmp(optarg, "pc") == 0)
                o.side = EB_SIDE_PC;
            else if (strcmp(optarg, "auto") == 0)
                o.side = EB_SIDE_AUTO;
            else
                return cli_usage_error("parse", "--side '%s': one of board, pc, auto", optarg);
            break;
        case 't':
            if (parse_test_list(optarg, &o))
                return cli_usage_error("parse", "--test '%s': one of tcp_tx, tcp_rx, udp_tx, udp_rx, or a comma "
                                       "list of them (at most %d)", optarg,
                                       (int)(sizeof o.test_list / sizeof o.test_list[0]));
            break;
        case 'c': o.chip = optarg; break;
        case 'T': o.tier = optarg; break;
        case 'i':
            if (parse_seconds("--interval", optarg, &o.interval_s))
                return EB_ECONFIG;
            break;
        case 'w':
            if (parse_seconds("--warmup", optarg, &o.warmup_s))
                return EB_ECONFIG;
            break;
        case 'o': output = optarg; break;
        case 'P': pattern = optarg; break;
        case 'u':
            if (strcmp(optarg, "1e6") == 0 || strcmp(optarg, "1000000") == 0)
                o.unit_base = 1e6;
            else if (strcmp(optarg, "2^20") == 0 || strcmp(optarg, "1048576") == 0)
                o.unit_base = 1048576.0;
            else
                return cli_usage_error("parse", "--unit-base '%s': 1e6 or 2^20 (bits per \"Mbit\")", optarg);
            break;
        default: return cli_option_error("parse");
        }
    }
    if (optind >= argc)
        return cli_usage_error("parse", "no log files given");
    if (pattern && (o.dialect != EB_DIALECT_UNKNOWN || o.side != EB_SIDE_AUTO))
        return cli_usage_error("parse", "--pattern with --dialect or --side: the pattern is the board's dialect; "
                                        "give one");

    eb_error err = {0};
    eb_pattern pat;
    eb_pattern_set builtin;
    int rc = cli_load_patterns(pattern, &pat, &builtin, &err);
    if (rc)
        return cli_error(&err);
    if (pattern)
        o.pattern = &pat;
    else
        o.patterns = &builtin;
    eb_parse_out out;
    eb_parse_out_init(&out);
    for (int i = optind; i < argc && !rc; i++)
        rc = eb_parse_log_file(&out, argv[i], &o, &err);
    for (int i = 0; i < out.n_warnings; i++)
        fprintf(stderr, "espbench parse: warning: %s\n", out.warnings[i]);
    eb_results r;
    eb_results_init(&r);
    if (!rc) {
        snprintf(r.espbench_version, sizeof r.espbench_version, "%s", eb_version());
        rc = eb_parse_move_to_results(&out, &r, &err);
    }
    if (!rc && output) {
        rc = eb_results_save_json_derived(&r, output, &err);
        if (!rc) {
            print_summary(stdout, &r, out.n_failed, output);
            fprintf(stderr, "espbench parse: %d entries from %d logs (dialect %s) -> %s\n", r.n_entries, out.n_logs,
                    out.meta.dialect[0] ? out.meta.dialect : "none", output);
        }
    } else if (!rc) {
        eb_results_sink sink = {write_stdout, stdout};
        rc = eb_results_write_json(&r, &sink, &err);
    }
    eb_results_free(&r);
    eb_parse_out_free(&out);
    eb_pattern_free(&pat);
    eb_patterns_free(&builtin);
    return rc ? cli_error(&err) : 0;
}
