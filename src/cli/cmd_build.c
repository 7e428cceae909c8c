/* espbench build: the espbench firmware built with each given ESP-IDF checkout
 * for each chip, into the build cache (docs/idf-builds.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "espbench/jobs/idf_build.h"

const char cmd_build_usage[] =
    "usage: espbench build --idf PATH[,PATH...] --chip CHIP[,CHIP...] [--sdkconfig FILE]\n"
    "                      [--cache DIR] [--firmware DIR] [--timeout S]\n"
    "\n"
    "Builds the espbench firmware with each ESP-IDF checkout (its export.sh and\n"
    "idf.py) for each chip, into a cache keyed by the checkout's commit, the chip,\n"
    "the sdkconfig and the firmware sources: a build done once is not done again.\n"
    "The espbench firmware switches buffer tiers at run time, so one build per\n"
    "ESP-IDF and chip serves every tier. Each build's log stays in the cache (also\n"
    "when it fails); a failed build is one line and the other builds go on.\n"
    "stdout gets one line per image: CHIP IDF-VERSION COMMIT BUILD-DIR.\n"
    "\n"
    "  --idf PATH,...     ESP-IDF checkouts (each with export.sh and its version header)\n"
    "  --chip CHIP,...    targets (esp32, esp32s3, ...)\n"
    "  --sdkconfig FILE   extra sdkconfig lines after the firmware's defaults (part of the key)\n"
    "  --cache DIR        build cache (default $XDG_CACHE_HOME/espbench/idf-builds)\n"
    "  --firmware DIR     firmware sources (default the source tree's firmware/)\n"
    "  --timeout S        per build (default 1800)\n"
    "\n"
    "Before building anything, every checkout's version is checked (the firmware needs\n"
    "ESP-IDF " EB_IDF_FIRMWARE_MIN " or later) and its export.sh sourced in an environment without\n"
    "what another export set (IDF_PATH, IDF_PYTHON_ENV_PATH, IDF_TARGET ...), then checked.\n"
    "\n"
    "Exit: 0 every image built or cached, 3 some build failed, 2 usage, a checkout that is\n"
    "not an ESP-IDF or too old, or an environment that is not set up (export.sh, network),\n"
    "4 interrupted.\n";

#define MAX_LIST 32

/* Splits a comma list in place; returns the count or -1 when over cap. */
static int split(char *s, char **out, int cap)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (n == cap)
            return -1;
        out[n++] = tok;
    }
    return n;
}

static void on_progress(void *user, const char *line)
{
    (void)user;
    if (cli_verbose)
        fprintf(stderr, "espbench build: %s\n", line);
}

typedef struct build_args {
    char *idf[MAX_LIST], *chip[MAX_LIST];
    int n_idf, n_chip;
    const char *cache, *firmware, *sdkconfig_file;
    int timeout;
} build_args;

static int parse_args(int argc, char **argv, build_args *a)
{
    static const struct option opts[] = {
        {"idf", required_argument, NULL, 'i'},       {"chip", required_argument, NULL, 'c'},
        {"cache", required_argument, NULL, 'C'},     {"firmware", required_argument, NULL, 'f'},
        {"sdkconfig", required_argument, NULL, 's'}, {"timeout", required_argument, NULL, 't'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    int c;
    char *end;
    optind = 1;
    opterr = 0;
    while ((c = cli_getopt(argc, argv, "", opts)) != -1) {
        switch (c) {
        case 'i':
            if ((a->n_idf = split(optarg, a->idf, MAX_LIST)) < 0)
                return cli_usage_error("build", "--idf: at most %d checkouts", MAX_LIST);
            break;
        case 'c':
            if ((a->n_chip = split(optarg, a->chip, MAX_LIST)) < 0)
                return cli_usage_error("build", "--chip: at most %d chips", MAX_LIST);
            break;
        case 'C': a->cache = optarg; break;
        case 'f': a->firmware = optarg; break;
        case 's': a->sdkconfig_file = optarg; break;
        case 't':
            a->timeout = (int)strtol(optarg, &end, 10);
            if (!*optarg || *end || a->timeout <= 0)
                return cli_usage_error("build", "--timeout '%s': not a number of seconds", optarg);
            break;
        default: return cli_option_error("build");
        }
    }
    if (optind < argc)
        return cli_usage_error("build", "unexpected argument '%s'", argv[optind]);
    if (a->n_idf == 0)
        return cli_usage_error("build", "no ESP-IDF checkout given (--idf PATH[,PATH...])");
    if (a->n_chip == 0)
        return cli_usage_error("build", "no chip given (--chip CHIP[,CHIP...])");
    return 0;
}

int cmd_build(int argc, char **argv)
{
    build_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    eb_error err = {0};
    eb_buf cfg;
    eb_buf_init(&cfg);
    if (a.sdkconfig_file && eb_file_read(a.sdkconfig_file, 1 << 20, NULL, &cfg, &err)) {
        eb_buf_free(&cfg);
        return cli_error(&err);
    }
    eb_idf_checkout *idf = calloc((size_t)a.n_idf, sizeof *idf);
    if (!idf)
        return EB_EIO;
    /* Every checkout's version and environment before anything is built. */
    for (int i = 0; i < a.n_idf && !rc; i++) {
        char who[1100];
        snprintf(who, sizeof who, "--idf %s", a.idf[i]);
        eb_idf_env env;
        if ((rc = eb_idf_probe(a.idf[i], &idf[i], &err)) == 0 &&
            (rc = eb_idf_version_check(idf[i].version, who, &err)) == 0)
            rc = eb_idf_env_probe(&idf[i], a.chip[0], &env, &err);
        if (rc)
            rc = cli_error(&err);
        else if (idf[i].stale_submodules)
            fprintf(stderr, "espbench build: warning: ESP-IDF %s (%s): %d submodule%s not at the commit's, e.g. %s; "
                            "built as checked out (git submodule update --init --recursive to follow HEAD)\n",
                    idf[i].version, idf[i].path, idf[i].stale_submodules, idf[i].stale_submodules == 1 ? "" : "s",
                    idf[i].stale_first);
    }
    int total = a.n_idf * a.n_chip, done = 0, failed = 0, env_failed = 0;
    cli_catch_stop_signals();
    for (int i = 0; i < a.n_idf && !rc; i++) {
        for (int k = 0; k < a.n_chip && !rc; k++) {
            eb_idf_build_req req = {.idf = &idf[i], .chip = a.chip[k], .firmware = EB_IDF_FW_ESPBENCH,
                                    .sdkconfig = a.sdkconfig_file ? eb_buf_cstr(&cfg) : NULL,
                                    .firmware_dir = a.firmware, .cache_dir = a.cache, .timeout_s = a.timeout,
                                    .stop = &cli_stop_flag, .progress = on_progress};
            eb_idf_build_result res;
            char shortc[8];
            snprintf(shortc, sizeof shortc, "%.7s", idf[i].commit[0] ? idf[i].commit : "no-git");
            const char *dirty = idf[i].dirty ? "+changes" : "";
            fprintf(stderr, "build %d/%d: %s with ESP-IDF %s (%s%s)... ", ++done, total, a.chip[k], idf[i].version,
                    shortc, dirty);
            fflush(stderr);
            int b = eb_idf_build_firmware(&req, &res, &err);
            if (b == EB_EINTR) {
                fprintf(stderr, "interrupted\n");
                rc = EB_EINTR;
            } else if (b) {
                fprintf(stderr, "FAILED: %s\n", err.msg);
                failed++;
                env_failed += res.env_error;
            } else {
                if (res.cached)
                    fprintf(stderr, "cached\n");
                else
                    fprintf(stderr, "built in %.1f s\n", res.seconds);
                printf("%s %s %s %s\n", a.chip[k], res.idf_version, res.idf_commit[0] ? res.idf_commit : "-",
                       res.dir);
            }
        }
    }
    fflush(stdout);
    free(idf);
    eb_buf_free(&cfg);
    if (rc)
        return rc;
    return env_failed ? EB_ECONFIG : failed ? EB_EIO : 0;
}
