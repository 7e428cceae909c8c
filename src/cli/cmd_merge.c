/* espbench merge: results of several runs, hosts or CI shards into one matrix. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "espbench/jobs/merge.h"
#include "espbench/adapters/results_file.h"

const char cmd_merge_usage[] =
    "usage: espbench merge IN... -o OUT [--csv FILE] [--prefer newest]\n"
    "\n"
    "Merges results.json files (runs, hosts, `run --shard i/N` CI jobs) into one\n"
    "results.json. Entries are keyed by board, chip, tier, test and repeat; an\n"
    "identical duplicate collapses into one; a duplicate with different figures is\n"
    "refused unless --prefer newest (the entry that finished last wins).\n"
    "\n"
    "  -o, --output OUT  the merged results.json (written atomically)\n"
    "  --csv FILE        also write the merged results as CSV\n"
    "  --prefer newest   resolve conflicting duplicates by their finished time\n";

int cmd_merge(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"csv", required_argument, NULL, 'c'},
        {"prefer", required_argument, NULL, 'p'},
        {NULL, 0, NULL, 0},
    };
    const char *output = NULL, *csv = NULL;
    int prefer = EB_MERGE_REFUSE;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = cli_getopt(argc, argv, "o:", opts)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'c': csv = optarg; break;
        case 'p':
            if (strcmp(optarg, "newest") != 0)
                return cli_usage_error("merge", "--prefer '%s': only 'newest' is supported", optarg);
            prefer = EB_MERGE_NEWEST;
            break;
        default: return cli_option_error("merge");
        }
    }
    if (!output)
        return cli_usage_error("merge", "no output file given (-o OUT)");
    if (optind >= argc)
        return cli_usage_error("merge", "no input files given");
    eb_error err = {0};
    eb_results r;
    int rc = eb_results_load_merged(&r, (const char *const *)argv + optind, argc - optind, prefer, &err);
    if (rc)
        return cli_error(&err);
    r.generated[0] = '\0'; /* a new file: stamped now */
    rc = eb_results_save_json_derived(&r, output, &err);
    if (!rc && csv)
        rc = eb_results_save_csv(&r, csv, &err);
    if (!rc)
        fprintf(stderr, "espbench merge: %d entries from %d files -> %s\n", r.n_entries, argc - optind, output);
    eb_results_free(&r);
    return rc ? cli_error(&err) : 0;
}
