/* espbench bisect: the first ESP-IDF commit that made a board slower
 * (docs/bisect.md); the walk is eb_bisect()'s (jobs/bisect.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "espbench/base/fs.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/stats.h"
#include "espbench/jobs/bisect.h"
#include "espbench/jobs/run_idf.h"

const char cmd_bisect_usage[] =
    "usage: espbench bisect --idf-repo PATH --good REV --bad REV --chip CHIP --tier TIER --test TEST\n"
    "                       (--sim | --port URL --ssid SSID --pc-address IP) [options]\n"
    "\n"
    "Walks the first-parent ESP-IDF commits from GOOD to BAD: at each step the espbench firmware\n"
    "is built with that commit (cached; a commit that does not build is skipped), measured with\n"
    "repeats until its verdict against GOOD is clear, and journalled; ends with the first commit\n"
    "slower than GOOD by more than the threshold. A killed bisect resumes from its journal.\n"
    "\n"
    "  --idf-repo PATH       an ESP-IDF git repository (its checkout is not touched: the commits\n"
    "                        are checked out into a worktree in --out)\n"
    "  --good REV, --bad REV the fast and the slow revision (BAD a descendant of GOOD)\n"
    "  --chip CHIP, --tier TIER, --test TEST   the cell that regressed (tcp_tx, tcp_rx, udp_tx, udp_rx)\n"
    "  --threshold PCT       slower by more than this is bad (default 5)\n"
    "  --repeats N           figures per commit at first (default 3); --max-repeats N (default 8)\n"
    "  --journal FILE        the journal (default OUT/bisect.json); resumed when it exists\n"
    "  --out DIR             worktree, runs and journal (default espbench-bisect-CHIP-DATE)\n"
    "  --idf-cache DIR       the build cache (default: espbench's cache folder)\n"
    "  --sim                 measure on a virtual board flashed with each build; --sim-noise PCT\n"
    "                        its noise. The figures follow each build's settings (its\n"
    "                        config/sdkconfig.json: lwIP windows and mailboxes, IRAM options)\n"
    "                        through the throughput model, so a changed default is found;\n"
    "                        library code (Wi-Fi blobs, lwIP, drivers) cannot be simulated:\n"
    "                        bisect that on a board\n"
    "  --port URL            a board: each build flashed with the flash job (unchanged regions\n"
    "                        skipped), then measured; --ssid SSID, --password-env VAR (the Wi-Fi\n"
    "                        password), --pc-address IP, --stub auto|off|FILE as for run\n"
    "  --duration S, --interval S   each test's length and report interval (default 10, 1)\n"
    "\n"
    "exit: 0 the first bad commit found (or its range, when skipped commits hide it), 1 BAD is not\n"
    "slower than GOOD, 2 usage, 3 I/O or build error, 4 interrupted (continue with the same command).\n";

typedef struct bisect_args {
    const char *repo, *good, *bad, *chip, *tier, *test, *journal, *out, *cache;
    const char *port, *ssid, *password_env, *pc_address, *stub;
    double threshold, noise, duration, interval;
    long repeats, max_repeats;
    bool sim;
} bisect_args;

enum { B_REPO = 256, B_GOOD, B_BAD, B_CHIP, B_TIER, B_TEST, B_THR, B_REP, B_MAXREP, B_JOURNAL, B_OUT, B_CACHE,
       B_SIM, B_NOISE, B_DUR, B_INT, B_PORT, B_SSID, B_PWENV, B_PC, B_STUB };

static int parse_args(int argc, char **argv, bisect_args *a)
{
    static const struct option opts[] = {
        {"idf-repo", required_argument, 0, B_REPO},   {"good", required_argument, 0, B_GOOD},
        {"bad", required_argument, 0, B_BAD},         {"chip", required_argument, 0, B_CHIP},
        {"tier", required_argument, 0, B_TIER},       {"test", required_argument, 0, B_TEST},
        {"threshold", required_argument, 0, B_THR},   {"repeats", required_argument, 0, B_REP},
        {"max-repeats", required_argument, 0, B_MAXREP}, {"journal", required_argument, 0, B_JOURNAL},
        {"out", required_argument, 0, B_OUT},         {"idf-cache", required_argument, 0, B_CACHE},
        {"sim", no_argument, 0, B_SIM},               {"sim-noise", required_argument, 0, B_NOISE},
        {"duration", required_argument, 0, B_DUR},    {"interval", required_argument, 0, B_INT},
        {"port", required_argument, 0, B_PORT},       {"ssid", required_argument, 0, B_SSID},
        {"password-env", required_argument, 0, B_PWENV}, {"pc-address", required_argument, 0, B_PC},
        {"stub", required_argument, 0, B_STUB},
        {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    a->threshold = 5;
    a->repeats = 3;
    a->max_repeats = 8;
    a->noise = -1;
    int c, rc = 0;
    optind = 1;
    opterr = 0;
    while (!rc && (c = cli_getopt(argc, argv, ":", opts)) != -1) {
        switch (c) {
        case B_REPO: a->repo = optarg; break;
        case B_GOOD: a->good = optarg; break;
        case B_BAD: a->bad = optarg; break;
        case B_CHIP: a->chip = optarg; break;
        case B_TIER: a->tier = optarg; break;
        case B_TEST: a->test = optarg; break;
        case B_JOURNAL: a->journal = optarg; break;
        case B_OUT: a->out = optarg; break;
        case B_CACHE: a->cache = optarg; break;
        case B_SIM: a->sim = true; break;
        case B_PORT: a->port = optarg; break;
        case B_SSID: a->ssid = optarg; break;
        case B_PWENV: a->password_env = optarg; break;
        case B_PC: a->pc_address = optarg; break;
        case B_STUB: a->stub = optarg; break;
        case B_THR: rc = cli_parse_double("bisect", "--threshold", optarg, 0.1, &a->threshold); break;
        case B_NOISE: rc = cli_parse_double("bisect", "--sim-noise", optarg, 0, &a->noise); break;
        case B_DUR: rc = cli_parse_double("bisect", "--duration", optarg, 1, &a->duration); break;
        case B_INT: rc = cli_parse_double("bisect", "--interval", optarg, 0.1, &a->interval); break;
        case B_REP: rc = cli_parse_long("bisect", "--repeats", optarg, 2, EB_BISECT_MAX_REPEATS, &a->repeats); break;
        case B_MAXREP:
            rc = cli_parse_long("bisect", "--max-repeats", optarg, 2, EB_BISECT_MAX_REPEATS, &a->max_repeats);
            break;
        default: return cli_option_error("bisect");
        }
    }
    if (rc)
        return rc;
    if (optind < argc)
        return cli_usage_error("bisect", "unexpected argument '%s'", argv[optind]);
    const char *missing = !a->repo ? "--idf-repo PATH" : !a->good ? "--good REV" : !a->bad ? "--bad REV"
                          : !a->chip ? "--chip CHIP" : !a->tier ? "--tier TIER" : !a->test ? "--test TEST" : NULL;
    if (missing)
        return cli_usage_error("bisect", "%s is required", missing);
    int t = eb_test_from_name(a->test);
    if (t < 0 || t >= EB_TEST_COUNT)
        return cli_usage_error("bisect", "--test %s: not one of tcp_tx, tcp_rx, udp_tx, udp_rx", a->test);
    if (a->sim == !!a->port)
        return cli_usage_error("bisect", "give --sim (a virtual board) or --port URL (a board), one of them");
    if (a->max_repeats < a->repeats)
        a->max_repeats = a->repeats;
    return 0;
}

static void on_progress(void *user, const char *line)
{
    int *step = user;
    fprintf(stderr, "step %d: %s\n", ++*step, line);
}

static void print_steps(const eb_bisect_journal *j)
{
    printf("%-12s %-20s %10s %8s  %s\n", "commit", "version", "Mbit/s", "repeats", "verdict");
    for (int i = 0; i < j->n_steps; i++) {
        const eb_bisect_step *s = &j->steps[i];
        eb_sample_stats st;
        eb_sample_stats_compute(s->mbps, s->n, &st);
        char fig[32] = "-";
        if (s->n)
            snprintf(fig, sizeof fig, "%.1f", st.mean);
        printf("%-12.10s %-20s %10s %8d  %s%s\n", s->commit, s->version[0] ? s->version : "-", fig, s->n,
               eb_bisect_mark_name(s->mark), s->unclear ? " (unclear)" : "");
    }
}

int cmd_bisect(int argc, char **argv)
{
    bisect_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;
    char out[512], journal[600];
    if (a.out)
        snprintf(out, sizeof out, "%s", a.out);
    else {
        char stamp[32];
        time_t now = time(NULL);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&now));
        snprintf(out, sizeof out, "espbench-bisect-%s-%s", a.chip, stamp);
    }
    if (eb_mkdir_p(out) != 0) {
        fprintf(stderr, "espbench bisect: --out %s: cannot create the folder; check the path\n", out);
        return EB_EIO;
    }
    snprintf(journal, sizeof journal, "%s", a.journal ? a.journal : "");
    if (!a.journal)
        snprintf(journal, sizeof journal, "%s/bisect.json", out);
    eb_error err = {0};
    char **commits = NULL;
    int n = 0;
    eb_bisect_range range;
    if ((rc = eb_bisect_rev_list(a.repo, a.good, a.bad, &commits, &n, &range, &err)) != 0)
        return cli_error(&err);
    if (range.from_merge_base)
        fprintf(stderr, "espbench bisect: --good %s is not an ancestor of --bad %s (a release branch?): bisecting "
                        "from their merge base %.10s (%s), measured first\n", a.good, a.bad, range.start,
                range.start_version);
    cli_catch_stop_signals();
    eb_bisect_real real = {.repo = a.repo, .chip = a.chip, .cache_dir = a.cache, .work_dir = out,
                           .stop = &cli_stop_flag};
    real.rq.chip = a.chip;
    real.rq.sim = a.sim;
    real.rq.port = a.port;
    real.rq.ssid = a.ssid;
    real.rq.password_env = a.password_env;
    real.rq.pc_address = a.pc_address;
    real.rq.profiles_dir = cli_profiles_dir;
    if (a.noise >= 0)
        real.rq.sim_noise_pct = a.noise;
    real.o.stub = a.stub ? a.stub : "auto";
    real.o.warmup_s = -1;
    real.o.retries = -1;
    real.o.tiers[0] = a.tier;
    real.o.n_tiers = 1;
    real.o.tests = 1u << eb_test_from_name(a.test);
    real.o.duration_s = a.duration;
    real.o.interval_s = a.interval;
    eb_bisect_driver d = eb_bisect_real_driver(&real);
    int step = 0;
    eb_bisect_req rq = {.commits = (const char *const *)commits, .n = n, .chip = a.chip, .tier = a.tier,
                        .test = a.test, .threshold_pct = a.threshold, .repeats = (int)a.repeats,
                        .max_repeats = (int)a.max_repeats, .journal = journal, .stop = &cli_stop_flag,
                        .progress = on_progress, .user = &step};
    fprintf(stderr, "espbench bisect: %d commits from %.10s to %.10s, at most %d to measure; journal %s\n", n,
            commits[0], commits[n - 1], eb_bisect_most_measured(n), journal);
    if (a.sim)
        fprintf(stderr, "espbench bisect: --sim: %s\n", EB_SIM_IDF_NOTE);
    eb_bisect_result res;
    rc = eb_bisect(&rq, &d, &res, &err);
    if (!rc || rc == EB_ESHORT)
        print_steps(&res.journal);
    if (!rc) {
        if (res.first_bad >= 0) {
            char subject[256] = "";
            eb_bisect_commit_subject(a.repo, commits[res.first_bad], subject, sizeof subject);
            const eb_bisect_step *s = eb_bisect_journal_find(&res.journal, commits[res.first_bad]);
            printf("first bad commit: %s %s%s%s\n", commits[res.first_bad], s && s->version[0] ? s->version : "",
                   subject[0] ? " " : "", subject);
        } else
            printf("first bad commit: one of %.10s..%.10s (the commits between do not build)\n",
                   commits[res.amb_lo], commits[res.amb_hi]);
        printf("measured %d commits (%d in this run); journal %s\n", res.measured_total, res.measured, journal);
    }
    eb_bisect_journal_free(&res.journal);
    /* The worktree goes with a finished bisect; an unfinished one keeps it to resume. */
    eb_error werr = {0};
    bool unfinished = rc == EB_EINTR || (rc && rc != EB_ESHORT);
    if (real.worktree[0] && unfinished)
        fprintf(stderr, "espbench bisect: the worktree %s stays registered in %s until this bisect is finished\n",
                real.worktree, a.repo);
    else if (real.worktree[0] && eb_bisect_real_cleanup(&real, &werr))
        fprintf(stderr, "espbench bisect: %s\n", werr.msg);
    for (int i = 0; i < n; i++)
        free(commits[i]);
    free(commits);
    if (rc == EB_EINTR) {
        fprintf(stderr, "espbench: interrupted; the journal %s keeps the finished steps (run the same command "
                        "to continue)\n", journal);
        return EB_EINTR;
    }
    if (rc)
        return cli_error(&err);
    return 0;
}
