/* espbench compare: the regression gate. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "espbench/formats/compare.h"
#include "espbench/formats/idf_ci.h"
#include "espbench/base/fs.h"
#include "espbench/jobs/merge.h"
#include "espbench/formats/report.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/adapters/results_file.h"

const char cmd_compare_usage[] =
    "usage: espbench compare BASELINE CURRENT... [--max-drop PCT] [--significant] [--stat mean|peak]\n"
    "                        [--chip CHIP] [--tier-map A=B] [--ignore DIM,...] [--confidence PCT]\n"
    "                        [--junit FILE]\n"
    "       espbench compare --baseline docs CURRENT...   (or BASELINE = docs)\n"
    "       espbench compare RESULTS... --idf-base VERSION --idf-new VERSION\n"
    "       espbench compare --idf-thresholds HEADER RESULTS... [--chip CHIP]\n"
    "\n"
    "Compares every chip x tier x test cell of CURRENT (results.json files, merged)\n"
    "with BASELINE (a results.json) or with the profiles' reference figures (docs),\n"
    "point by point: a sweep point or radio setting (band=5) only with the same.\n"
    "A cell's figure is the chosen statistic averaged over its boards and repeats.\n"
    "A cell fails when it dropped by more than --max-drop (default 5%), when its\n"
    "tests failed, or when it is in the baseline but missing from CURRENT; cells\n"
    "without a baseline figure are reported as new and do not fail.\n"
    "\n"
    "  --max-drop PCT   allowed drop in percent, e.g. 5% or 2.5 (default 5%)\n"
    "  --stat STAT      mean (default; steady receiver-side intervals) or peak (one second)\n"
    "  --chip CHIP      only this chip\n"
    "  --significant    a drop beyond --max-drop fails only when the verdict is\n"
    "                   also 'worse' (its whole interval below zero)\n"
    "  --tier-map A=B   pair tier A of BASELINE with tier B of CURRENT\n"
    "  --ignore DIM,... leave dimensions out of the key (band, rssi, power-save ...:\n"
    "                   those a cell is keyed by): a cell averages over their values,\n"
    "                   so a baseline at one band compares with a run at another\n"
    "  --confidence PCT confidence of the verdict's interval (default 95%)\n"
    "  --junit FILE     also write JUnit XML: one testcase per cell, classname\n"
    "                   espbench.CHIP.TIER, name TEST, the figures as properties\n"
    "  --baseline docs  compare with the docs' figures from the profiles\n"
    "  --idf-base A --idf-new B  within RESULTS (merged), the cells measured with\n"
    "                   ESP-IDF A (provenance idf_version, e.g. v5.1) are the\n"
    "                   baseline and those with ESP-IDF B the current ones\n"
    "  --idf-thresholds HEADER  Espressif CI's gate: each chip's best peak 1-s figure per\n"
    "                   test against the header's IDF_PERFORMANCE_MIN_*_THROUGHPUT\n"
    "                   (ESP-IDF components/idf_test/include/<target>/idf_performance_target.h),\n"
    "                   and IperfUtility's 'fall to 0' and 'bad point' flags on sweeps\n"
    "\n"
    "Every cell also gets a verdict: better / worse / within noise, from Welch's\n"
    "t interval of the difference (repeat figures when both sides have >= 2,\n"
    "else the steady interval rates); n/a with fewer than 2 values a side.\n"
    "\n"
    "exit status: 0 no regression, 1 a cell failed, 2 bad input.\n";

/* Prints the comparison (text, JUnit) and frees it; the exit status. */
static int compare_output(eb_compare *cmp, const char *junit, eb_error *err)
{
    eb_buf out;
    eb_buf_init(&out);
    eb_compare_text(cmp, &out);
    fwrite(out.data, 1, out.len, stdout);
    int rc = 0;
    if (junit) {
        eb_buf_reset(&out);
        eb_compare_junit(cmp, &out);
        rc = eb_file_write_atomic(junit, out.data, out.len, err);
    }
    eb_buf_free(&out);
    return rc;
}

/* compare --idf-thresholds HEADER RESULTS...: Espressif CI's rules (idf_ci.h). */
static int compare_idf_ci(int n_files, char **files, const char *header, const char *chip)
{
    if (n_files < 1)
        return cli_usage_error("compare", "no RESULTS given for --idf-thresholds");
    eb_error err = {0};
    eb_buf text, out;
    eb_buf_init(&text);
    eb_buf_init(&out);
    eb_idf_thresholds th;
    eb_results all;
    eb_results_init(&all);
    int rc = eb_file_read(header, 1 << 20, "ESP-IDF's idf_performance_target.h", &text, &err);
    if (rc == EB_EIO && errno == ENOENT) /* a wrong path on the command line: bad input, as a RESULTS file's */
        rc = err.code = EB_ECONFIG;
    if (!rc)
        rc = eb_idf_thresholds_parse((const char *)text.data, text.len, header, &th, &err);
    if (!rc)
        rc = eb_results_load_merged(&all, (const char *const *)files, n_files, EB_MERGE_NEWEST, &err);
    int fails = 0;
    if (!rc) {
        fails = eb_idf_ci_check(&all, &th, chip, &out);
        fwrite(out.data, 1, out.len, stdout);
        printf("%d failed (Espressif CI's rules: %s)\n", fails, header);
    }
    eb_buf_free(&text);
    eb_buf_free(&out);
    eb_results_free(&all);
    if (rc)
        return cli_error(&err) == EB_EIO ? EB_EIO : EB_ECONFIG;
    return fails ? EB_ESHORT : 0;
}

/* compare RESULTS... --idf-base A --idf-new B: the cells of one ESP-IDF
 * version against another's, with the same verdicts. */
static int compare_idf(int n_files, char **files, const char *idf_base, const char *idf_new,
                       const eb_compare_opts *co, const char *junit)
{
    if (n_files < 1)
        return cli_usage_error("compare", "no RESULTS given for --idf-base/--idf-new");
    eb_error err = {0};
    eb_results all, base, cur;
    if (eb_results_load_merged(&all, (const char *const *)files, n_files, EB_MERGE_NEWEST, &err))
        return cli_error(&err) == EB_EIO ? EB_EIO : EB_ECONFIG;
    eb_results_select_idf(&all, idf_base, &base);
    eb_results_select_idf(&all, idf_new, &cur);
    eb_profiles p = {0};
    eb_compare cmp = {0};
    int rc = 0;
    const char *missing = base.n_entries == 0 ? idf_base : cur.n_entries == 0 ? idf_new : NULL;
    if (missing) {
        const char *vers[16];
        char list[256] = "";
        int n = eb_results_idf_versions(&all, NULL, vers, 16);
        for (int i = 0; i < n; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", vers[i]);
        rc = eb_fail(&err, EB_ECONFIG, "%s%s: no entries built with ESP-IDF '%s' (the results hold: %s)", files[0],
                     n_files > 1 ? " ..." : "", missing, n ? list : "no ESP-IDF version");
    }
    if (!rc)
        rc = eb_profiles_load_default(&p, cli_profiles_dir, &err);
    if (!rc)
        rc = eb_compare_results(&base, &cur, &p, co, &cmp, &err);
    if (!rc) {
        snprintf(cmp.baseline_name, sizeof cmp.baseline_name, "ESP-IDF %s", idf_base);
        snprintf(cmp.current_name, sizeof cmp.current_name, "ESP-IDF %s", idf_new);
        rc = compare_output(&cmp, junit, &err);
    }
    int failed = cmp.n_failed;
    eb_compare_free(&cmp);
    eb_profiles_free(&p);
    eb_results_free(&base);
    eb_results_free(&cur);
    eb_results_free(&all);
    if (rc)
        return cli_error(&err);
    return failed ? EB_ESHORT : 0;
}

int cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {
        {"max-drop", required_argument, NULL, 'm'}, {"stat", required_argument, NULL, 's'},
        {"chip", required_argument, NULL, 'c'},     {"junit", required_argument, NULL, 'j'},
        {"baseline", required_argument, NULL, 'b'}, {"significant", no_argument, NULL, 'S'},
        {"tier-map", required_argument, NULL, 't'}, {"confidence", required_argument, NULL, 'C'},
        {"idf-base", required_argument, NULL, 'A'}, {"idf-new", required_argument, NULL, 'B'},
        {"idf-thresholds", required_argument, NULL, 'T'}, {"ignore", required_argument, NULL, 'I'},
        {NULL, 0, NULL, 0},
    };
    eb_compare_opts co = {.max_drop_pct = 5.0, .stat = EB_STAT_MEAN, .chip = NULL};
    const char *junit = NULL, *baseline = NULL, *idf_base = NULL, *idf_new = NULL, *thresholds = NULL;
    char tier_map[64];
    int c;
    optind = 1;
    opterr = 0;
    while ((c = cli_getopt(argc, argv, "", opts)) != -1) {
        switch (c) {
        case 'm':
            co.max_drop_pct = eb_parse_percent(optarg);
            if (co.max_drop_pct < 0)
                return cli_usage_error("compare", "--max-drop '%s': expected a percentage such as 5%%", optarg);
            break;
        case 's':
            co.stat = eb_stat_from_name(optarg);
            if (co.stat < 0)
                return cli_usage_error("compare", "--stat '%s': expected mean or peak", optarg);
            break;
        case 'c': co.chip = optarg; break;
        case 'j': junit = optarg; break;
        case 'b': baseline = optarg; break;
        case 'S': co.significant = true; break;
        case 't':
            if (eb_compare_parse_tier_map(optarg, tier_map, sizeof tier_map, &co) != 0)
                return cli_usage_error("compare", "--tier-map '%s': expected BASELINE_TIER=CURRENT_TIER, e.g. "
                                                  "minimum=iperf", optarg);
            break;
        case 'C': {
            double pct = eb_parse_percent(optarg);
            if (!(pct >= 50 && pct < 100))
                return cli_usage_error("compare", "--confidence '%s': expected a percentage from 50 to 99.9, e.g. 95%%",
                                       optarg);
            co.confidence = pct / 100.0;
            break;
        }
        case 'I': {
            char why[768];
            if (eb_compare_parse_ignore(optarg, &co, why, sizeof why) != 0)
                return cli_usage_error("compare", "%s", why);
            break;
        }
        case 'A': idf_base = optarg; break;
        case 'B': idf_new = optarg; break;
        case 'T': thresholds = optarg; break;
        default: return cli_option_error("compare");
        }
    }
    if (thresholds)
        return baseline || idf_base ? cli_usage_error("compare", "--idf-thresholds is a gate of its own: leave out "
                                                                "--baseline and --idf-base/--idf-new")
                                    : compare_idf_ci(argc - optind, argv + optind, thresholds, co.chip);
    if ((idf_base != NULL) != (idf_new != NULL))
        return cli_usage_error("compare", "--idf-base and --idf-new go together: give both ESP-IDF versions");
    if (idf_base && baseline)
        return cli_usage_error("compare", "--idf-base/--idf-new compare within RESULTS: leave out --baseline");
    if (idf_base)
        return compare_idf(argc - optind, argv + optind, idf_base, idf_new, &co, junit);
    if (baseline && strcmp(baseline, "docs") != 0)
        return cli_usage_error("compare", "--baseline '%s': only 'docs' is a named baseline; give a file as the "
                                          "first argument instead", baseline);
    if (!baseline) {
        if (optind >= argc)
            return cli_usage_error("compare", "no BASELINE given");
        baseline = argv[optind++];
    }
    if (optind >= argc)
        return cli_usage_error("compare", "no CURRENT results given");
    bool docs = strcmp(baseline, "docs") == 0;

    eb_error err = {0};
    eb_results cur, base;
    eb_results_init(&base);
    eb_profiles p = {0};
    eb_compare cmp = {0};
    int rc = eb_results_load_merged(&cur, (const char *const *)argv + optind, argc - optind, EB_MERGE_NEWEST, &err);
    if (rc)
        return cli_error(&err) == EB_EIO ? EB_EIO : EB_ECONFIG;
    if (!docs)
        rc = eb_results_load(&base, baseline, &err);
    if (!rc)
        rc = eb_profiles_load_default(&p, cli_profiles_dir, &err);
    if (!rc)
        rc = docs ? eb_compare_docs(&p, &cur, &co, &cmp, &err) : eb_compare_results(&base, &cur, &p, &co, &cmp, &err);
    if (!rc) {
        snprintf(cmp.baseline_name, sizeof cmp.baseline_name, "%s", baseline);
        snprintf(cmp.current_name, sizeof cmp.current_name, "%s%s", argv[optind], argc - optind > 1 ? " ..." : "");
        rc = compare_output(&cmp, junit, &err);
    }
    int failed = cmp.n_failed;
    eb_compare_free(&cmp);
    eb_profiles_free(&p);
    eb_results_free(&base);
    eb_results_free(&cur);
    if (rc)
        return cli_error(&err);
    return failed ? EB_ESHORT : 0;
}
