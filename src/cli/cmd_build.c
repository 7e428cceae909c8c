/* espbench build: the espbench firmware built with each given ESP-IDF checkout
 * for each chip, into the build cache (docs/idf-builds.md). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/formats/sdkconfig.h"
#include "espbench/jobs/idf_build.h"

const char cmd_build_usage[] =
    "usage: espbench build --idf PATH[,PATH...] --chip CHIP[,CHIP...] [--sdkconfig FILE]\n"
    "                      [--tier TIER|all] [--project espbench|iperf-example]\n"
    "                      [--manifest FILE] [--cache DIR] [--firmware DIR] [--timeout S]\n"
    "\n"
    "Builds the espbench firmware with each ESP-IDF checkout (its export.sh and\n"
    "idf.py) for each chip, into a cache keyed by the checkout's commit, the chip,\n"
    "the sdkconfig and the firmware sources: a build done once is not done again.\n"
    "The espbench firmware switches buffer tiers at run time, so one build per\n"
    "ESP-IDF and chip serves every tier. Each build's log stays in the cache (also\n"
    "when it fails); a failed build is one line and the other builds go on.\n"
    "stdout gets one line per image: CHIP IDF-VERSION COMMIT BUILD-DIR (and TIER with --tier).\n"
    "\n"
    "Tiers also set lwIP windows, mailboxes and IRAM options that no firmware can change at\n"
    "run time: --tier builds an image per tier with the tier's settings rendered from the\n"
    "profiles (after --sdkconfig's lines), cached like the rest.\n"
    "\n"
    "  --idf PATH,...     ESP-IDF checkouts (each with export.sh and its version header)\n"
    "  --chip CHIP,...    targets (esp32, esp32s3, ...)\n"
    "  --sdkconfig FILE   extra sdkconfig lines after the firmware's defaults (part of the key)\n"
    "  --tier T|all       an image per tier (all: every tier without PSRAM) with its settings\n"
    "  --project P        espbench (default) or iperf-example (the checkout's examples/wifi/iperf)\n"
    "  --manifest FILE    write a firmware manifest of the images (per tier with --tier; the\n"
    "                     last ESP-IDF given wins a chip), for run --manifest FILE --firmware P\n"
    "  --cache DIR        build cache (default $XDG_CACHE_HOME/espbench/idf-builds)\n"
    "  --firmware DIR     firmware sources (default the source tree's firmware/)\n"
    "  --timeout S        per build (default 1800)\n"
    "\n"
    "Before building anything, every checkout's version is checked (the firmware supports\n"
    "ESP-IDF " EB_IDF_FIRMWARE_MIN " to " EB_IDF_FIRMWARE_LAST_LINE ".x) and its export.sh sourced in an\n"
    "environment without what another export set (IDF_PATH, IDF_PYTHON_ENV_PATH,\n"
    "IDF_TARGET ...), then checked.\n"
    "\n"
    "Exit: 0 every image built or cached, 3 some build failed, 2 usage, a checkout that is\n"
    "not an ESP-IDF or out of that range, or an environment that is not set up (export.sh, network),\n"
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
    const char *cache, *firmware, *sdkconfig_file, *tier, *manifest;
    enum eb_idf_firmware project;
    int timeout;
} build_args;

static int parse_args(int argc, char **argv, build_args *a)
{
    static const struct option opts[] = {
        {"idf", required_argument, NULL, 'i'},       {"chip", required_argument, NULL, 'c'},
        {"cache", required_argument, NULL, 'C'},     {"firmware", required_argument, NULL, 'f'},
        {"sdkconfig", required_argument, NULL, 's'}, {"timeout", required_argument, NULL, 't'},
        {"tier", required_argument, NULL, 'T'},      {"project", required_argument, NULL, 'P'},
        {"manifest", required_argument, NULL, 'M'},
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
        case 'T': a->tier = optarg; break;
        case 'M': a->manifest = optarg; break;
        case 'P':
            if (strcmp(optarg, "espbench") && strcmp(optarg, "iperf-example"))
                return cli_usage_error("build", "--project %s: espbench or iperf-example", optarg);
            a->project = strcmp(optarg, "espbench") ? EB_IDF_FW_IPERF_EXAMPLE : EB_IDF_FW_ESPBENCH;
            break;
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

/* One image to build: a checkout, a chip, a tier (NULL without --tier) and
 * its sdkconfig text. */
typedef struct build_job {
    const eb_idf_checkout *idf;
    const char *chip;
    const char *tier;
    eb_buf sdkconfig;
    char dir[1024];   /* the build folder, once built or cached */
} build_job;

/* Every checkout's version and environment before anything is built. */
static int check_checkouts(const build_args *a, eb_idf_checkout *idf, eb_error *err)
{
    for (int i = 0; i < a->n_idf; i++) {
        char who[1100];
        snprintf(who, sizeof who, "--idf %s", a->idf[i]);
        eb_idf_env env;
        int rc = eb_idf_probe(a->idf[i], &idf[i], err);
        if (!rc)
            rc = eb_idf_version_check(idf[i].version, who, err);
        if (!rc)
            rc = eb_idf_env_probe(&idf[i], a->chip[0], &env, err);
        if (rc)
            return rc;
        if (idf[i].stale_submodules)
            fprintf(stderr, "espbench build: warning: ESP-IDF %s (%s): %d submodule%s not at the commit's, e.g. %s; "
                            "built as checked out (git submodule update --init --recursive to follow HEAD)\n",
                    idf[i].version, idf[i].path, idf[i].stale_submodules, idf[i].stale_submodules == 1 ? "" : "s",
                    idf[i].stale_first);
    }
    return 0;
}

/* The jobs: checkout x chip (x tier, each tier's settings rendered from the
 * profiles after --sdkconfig's text). */
static int plan_jobs(const build_args *a, const eb_idf_checkout *idf, const eb_buf *cfg, const eb_profiles *p,
                     build_job **out, int *n, eb_error *err)
{
    int cap = a->n_idf * a->n_chip * (a->tier ? 64 : 1);
    build_job *jobs = calloc((size_t)cap, sizeof *jobs);
    if (!jobs)
        return eb_fail(err, EB_EIO, "out of memory");
    int k = 0, rc = 0;
    for (int c = 0; c < a->n_chip && !rc; c++) {
        const eb_tier *tiers[64] = {NULL};
        int nt = 1;
        const eb_chip *chip = a->tier ? eb_profiles_chip(p, a->chip[c]) : NULL;
        if (a->tier && !chip)
            rc = eb_fail(err, EB_ECONFIG, "--chip %s: no such chip profile", a->chip[c]);
        else if (a->tier && (nt = eb_sdkconfig_tiers(chip, a->tier, tiers, 64, err)) < 0)
            rc = EB_ECONFIG;
        for (int i = 0; i < a->n_idf && !rc; i++)
            for (int t = 0; t < nt; t++, k++) {
                jobs[k].idf = &idf[i];
                jobs[k].chip = a->chip[c];
                jobs[k].tier = tiers[t] ? tiers[t]->name : NULL;
                eb_buf_init(&jobs[k].sdkconfig);
                if (cfg->len)
                    eb_buf_append(&jobs[k].sdkconfig, cfg->data, cfg->len);
                if (tiers[t])
                    eb_sdkconfig_render_tier(chip, tiers[t], &jobs[k].sdkconfig);
            }
    }
    *out = jobs;
    *n = k;
    return rc;
}

/* --manifest: the images built or cached, for run --manifest. */
static int write_manifest(const build_args *a, const build_job *jobs, int n)
{
    eb_idf_manifest_item *items = calloc((size_t)n + 1, sizeof *items);
    int k = 0;
    for (int j = 0; items && j < n; j++)
        if (jobs[j].dir[0])
            items[k++] = (eb_idf_manifest_item){.chip = jobs[j].chip, .tier = jobs[j].tier,
                                                .idf_version = jobs[j].idf->version, .build_dir = jobs[j].dir};
    eb_error err = {0};
    int rc = items ? eb_idf_manifest_write(a->manifest, a->project == EB_IDF_FW_ESPBENCH ? "espbench" : "iperf-example",
                                           items, k, &err)
                   : eb_fail(&err, EB_EIO, "out of memory");
    free(items);
    if (rc)
        return cli_error(&err);
    fprintf(stderr, "espbench build: %d image set%s in the manifest %s\n", k, k == 1 ? "" : "s", a->manifest);
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
    eb_profiles prof = {0};
    eb_idf_checkout *idf = calloc((size_t)a.n_idf, sizeof *idf);
    build_job *jobs = NULL;
    int n = 0;
    if (!idf)
        rc = eb_fail(&err, EB_EIO, "out of memory");
    if (!rc && a.sdkconfig_file)
        rc = eb_file_read(a.sdkconfig_file, 1 << 20, NULL, &cfg, &err);
    if (!rc && a.tier)
        rc = eb_profiles_load_default(&prof, cli_profiles_dir, &err);
    if (!rc)
        rc = check_checkouts(&a, idf, &err);
    if (!rc)
        rc = plan_jobs(&a, idf, &cfg, &prof, &jobs, &n, &err);
    int failed = 0, env_failed = 0;
    if (rc)
        rc = cli_error(&err);
    else
        cli_catch_stop_signals();
    for (int j = 0; j < n && !rc; j++) {
        const build_job *jb = &jobs[j];
        eb_idf_build_req req = {.idf = jb->idf, .chip = jb->chip, .firmware = a.project,
                                .sdkconfig = jb->sdkconfig.len ? eb_buf_cstr(&jobs[j].sdkconfig) : NULL,
                                .firmware_dir = a.firmware, .cache_dir = a.cache, .timeout_s = a.timeout,
                                .stop = &cli_stop_flag, .progress = on_progress};
        eb_idf_build_result res;
        fprintf(stderr, "build %d/%d: %s%s%s with ESP-IDF %s (%.7s%s)... ", j + 1, n, jb->chip,
                jb->tier ? " tier " : "", jb->tier ? jb->tier : "", jb->idf->version,
                jb->idf->commit[0] ? jb->idf->commit : "no-git", jb->idf->dirty ? "+changes" : "");
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
            printf("%s %s %s %s%s%s\n", jb->chip, res.idf_version, res.idf_commit[0] ? res.idf_commit : "-", res.dir,
                   jb->tier ? " " : "", jb->tier ? jb->tier : "");
            snprintf(jobs[j].dir, sizeof jobs[j].dir, "%s", res.dir);
        }
    }
    fflush(stdout);
    if (!rc && a.manifest)
        rc = write_manifest(&a, jobs, n);
    for (int j = 0; j < n; j++)
        eb_buf_free(&jobs[j].sdkconfig);
    free(jobs);
    free(idf);
    eb_buf_free(&cfg);
    eb_profiles_free(&prof);
    if (rc)
        return rc;
    return env_failed ? EB_ECONFIG : failed ? EB_EIO : 0;
}
