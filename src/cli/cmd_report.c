/* espbench report: render results files as CSV, JSON, RST, Markdown or HTML. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "espbench/base/fs.h"
#include "espbench/jobs/merge.h"
#include "espbench/formats/report.h"
#include "espbench/adapters/profile_dirs.h"

const char cmd_report_usage[] =
    "usage: espbench report RESULTS... [--format csv|json|rst|md|html] [--chip CHIP] [--vs-docs]\n"
    "                       [--lang en|zh_CN] [--stat mean|peak] [-o FILE]\n"
    "                       [--performance-lines] [--metrics FILE]\n"
    "\n"
    "Renders one or more results.json files (merged; for a key present twice the\n"
    "newest entry wins) in one of these formats:\n"
    "  rst   the docs' rank table per chip as a '.. list-table::' (Rank, then the tiers\n"
    "        in the profile's order; available memory, buffer and IRAM/cache rows,\n"
    "        TCP/UDP TX/RX throughput), and the per-chip throughput summary table\n"
    "  md    Markdown: |Mbits/sec|TCP TX|TCP RX|UDP TX|UDP RX| per tier, the rank table\n"
    "        and the summary\n"
    "  html  one self-contained page with SVG charts (no network resources)\n"
    "  csv   results.csv rows (RFC 4180);  json  the merged results.json\n"
    "The format defaults to the extension of -o FILE, else rst.\n"
    "\n"
    "  --chip CHIP     only this chip\n"
    "  --vs-docs       add the docs' reference figures and the difference in %\n"
    "  --lang LANG     en (default) or zh_CN (the zh_CN docs page's labels)\n"
    "  --stat STAT     mean (default): mean of the steady receiver-side intervals;\n"
    "                  peak: peak one-second interval (what Espressif's CI reports).\n"
    "                  Repeats are averaged.\n"
    "  -o FILE         write FILE (atomically) instead of standard output\n"
    "  --performance-lines  also print ESP-IDF CI's lines, one per cell:\n"
    "                  [Performance][tcp_tx_throughput]: 74.61 Mbps (peak 1-s)\n"
    "  --metrics FILE  also write the figures as OpenMetrics text (atomically)\n";

static int format_from_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot)
        return -1;
    if (!strcmp(dot, ".htm"))
        return EB_RF_HTML;
    if (!strcmp(dot, ".markdown"))
        return EB_RF_MD;
    return eb_report_format_from_name(dot + 1);
}

static const char *format_name(int f)
{
    static const char *const names[] = {[EB_RF_CSV] = "csv", [EB_RF_JSON] = "json", [EB_RF_RST] = "rst",
                                        [EB_RF_MD] = "md", [EB_RF_HTML] = "html"};
    return f >= 0 && f <= EB_RF_HTML ? names[f] : "?";
}

/* The format -o's name asks for and --format must agree: "out.pdf" would
 * get RST under a name that promises something else. A name with no known
 * extension needs --format; none at all is RST. */
static int check_output(const char *output, int *format)
{
    if (!output) {
        if (*format < 0)
            *format = EB_RF_RST;
        return 0;
    }
    if (!*output)
        return cli_usage_error("report", "-o '': an empty file name");
    const char *slash = strrchr(output, '/');
    const char *base = slash ? slash + 1 : output;
    const char *dot = strrchr(base, '.');
    int by_name = format_from_path(base);
    if (*format < 0 && dot && by_name < 0)
        return cli_usage_error("report", "-o %s: '%s' is not a format espbench writes (csv, json, rst, md, html); name "
                                         "the file so, or give --format",
                               output, dot);
    if (*format >= 0 && by_name >= 0 && by_name != *format)
        return cli_usage_error("report", "-o %s and --format %s disagree; name the file .%s or leave out --format",
                               output, format_name(*format), format_name(*format));
    if (*format < 0)
        *format = by_name >= 0 ? by_name : EB_RF_RST;
    return 0;
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'}, {"chip", required_argument, NULL, 'c'},
        {"vs-docs", no_argument, NULL, 'd'},      {"lang", required_argument, NULL, 'l'},
        {"stat", required_argument, NULL, 's'},   {"output", required_argument, NULL, 'o'},
        {"performance-lines", no_argument, NULL, 'P'}, {"metrics", required_argument, NULL, 'M'},
        {NULL, 0, NULL, 0},
    };
    eb_report_opts ro = {.chip = NULL, .vs_docs = false, .lang = EB_LANG_EN, .stat = EB_STAT_MEAN};
    int format = -1;
    const char *output = NULL, *metrics = NULL;
    bool perf_lines = false;
    int c, rc0;
    optind = 1;
    opterr = 0;
    while ((c = cli_getopt(argc, argv, "f:o:", opts)) != -1) {
        switch (c) {
        case 'f':
            format = eb_report_format_from_name(optarg);
            if (format < 0)
                return cli_usage_error("report", "--format '%s': expected csv, json, rst, md or html", optarg);
            break;
        case 'c': ro.chip = optarg; break;
        case 'd': ro.vs_docs = true; break;
        case 'l':
            ro.lang = eb_lang_from_name(optarg);
            if (ro.lang < 0)
                return cli_usage_error("report", "--lang '%s': expected en or zh_CN", optarg);
            break;
        case 's':
            ro.stat = eb_stat_from_name(optarg);
            if (ro.stat < 0)
                return cli_usage_error("report", "--stat '%s': expected mean or peak", optarg);
            break;
        case 'o': output = optarg; break;
        case 'P': perf_lines = true; break;
        case 'M': metrics = optarg; break;
        default: return cli_option_error("report");
        }
    }
    if (optind >= argc)
        return cli_usage_error("report", "no RESULTS file given");
    if ((rc0 = check_output(output, &format)) != 0)
        return rc0;

    eb_error err = {0};
    eb_results r;
    if (eb_results_load_merged(&r, (const char *const *)argv + optind, argc - optind, EB_MERGE_NEWEST, &err))
        return cli_error(&err);
    eb_profiles p = {0};
    bool need_profiles = format == EB_RF_RST || format == EB_RF_MD || format == EB_RF_HTML || perf_lines || metrics;
    if (need_profiles && eb_profiles_load_default(&p, cli_profiles_dir, &err)) {
        eb_results_free(&r);
        return cli_error(&err);
    }
    eb_buf out;
    eb_buf_init(&out);
    int rc = eb_report_render(&r, need_profiles ? &p : NULL, format, &ro, &out, &err);
    if (!rc) {
        if (output)
            rc = eb_file_write_atomic(output, out.data, out.len, &err);
        else if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0)
            rc = eb_fail(&err, EB_EIO, "cannot write to standard output");
    }
    if (!rc && perf_lines) {
        eb_buf_reset(&out);
        eb_report_performance_lines(&r, &p, &out);
        if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0)
            rc = eb_fail(&err, EB_EIO, "cannot write to standard output");
    }
    if (!rc && metrics) {
        eb_buf_reset(&out);
        eb_report_openmetrics(&r, &p, ro.stat, &out);
        rc = eb_file_write_atomic(metrics, out.data, out.len, &err);
    }
    eb_buf_free(&out);
    if (need_profiles)
        eb_profiles_free(&p);
    eb_results_free(&r);
    return rc ? cli_error(&err) : 0;
}
