/* espbench tune: flags, progress and the frontier table. The search and the
 * outputs are libespbench's (tune.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "espbench/formats/model.h"
#include "espbench/jobs/tune.h"
#include "espbench/adapters/model_files.h"
#include "espbench/adapters/profile_dirs.h"

const char cmd_tune_usage[] =
    "usage: espbench tune --chip CHIP (--port URL | --sim) --out DIR [options]\n"
    "\n"
    "Searches the runtime Wi-Fi buffer settings (static/dynamic RX, dynamic TX, RX BA window) for\n"
    "the tiers on the throughput / free-heap frontier of this board and AP, measuring every\n"
    "candidate through the espbench firmware's runtime tier switch (docs/tune.md).\n"
    "\n"
    "  --objective SPEC      a test (tcp_tx, default) or weights: tcp_tx=2,udp_rx=1\n"
    "  --min-free-kb N       free-heap floor in KB (default 0)\n"
    "  --budget TIME         time for the probes: 8m, 90s or seconds (default 8m)\n"
    "  --fix KEY=VALUE       hold a runtime setting fixed (repeatable)\n"
    "  --out DIR             results.json, frontier.yaml/.html/.txt, sdkconfig.* (required)\n"
    "  --resume              continue a killed tune in --out DIR (finished probes are kept)\n"
    "  --dry-run             print the plan and its predicted duration; touch no board\n"
    "  --max-cost PCT        flag a frontier point more than PCT % below the chip's default tier on\n"
    "                        a test outside the objective (default 20); every point is shown on all\n"
    "                        four tests, measured or predicted, and marked tentative on one probe\n"
    "  --model-run           run the search against the model itself (probes = predictions with\n"
    "                        --noise PCT per interval, default 2; --seed N): no board; prints the\n"
    "                        frontier's hypervolume against the exhaustive search (--json: figures);\n"
    "                        --model-overhead S: each probe's tests cost S s more than planned\n"
    "  --sim-rssi DBM, --sim-rtt MS, --sim-loss PCT   the link of the virtual board (or of the\n"
    "                        model run's truth); the search still proposes from the published link\n"
    "  --chip CHIP, --port URL, --sim, --sim-noise PCT, --sim-project NAME,\n"
    "  --ssid SSID, --password-env VAR, --pc-address IP   as for espbench run\n"
    "\n"
    "exit: 0 done; 2 usage/config (a budget too small, a floor no tier reaches, contradictory\n"
    "--fix, stock firmware); 3 device or iperf error; 4 interrupted (continue with --resume).\n";


typedef struct view {
    bool tty, line_open;
    const eb_tune_space *s;
    const char *phase;
} view;

static void end_line(view *v)
{
    if (v->line_open) {
        fputs("\r\033[K", stdout);
        v->line_open = false;
    }
}

static void on_progress(void *user, const eb_tune_progress *p)
{
    view *v = user;
    char best[160] = "none yet";
    if (p->best >= 0) {
        char name[64];
        snprintf(best, sizeof best, "%.2f Mbit/s at %.1f KB free (%s)", p->best_score, p->best_free_kb,
                 eb_tune_cand_name(v->s, p->best, name, sizeof name));
    }
    if (v->tty) {
        printf("\r\033[K[tune %s] %.0f/%.0f s of the budget, %d probes; best %s", p->phase, p->spent_s, p->budget_s,
               p->probes, best);
        v->line_open = true;
    } else if (!v->phase || strcmp(v->phase, p->phase) != 0 || cli_verbose) {
        printf("tune %s: %.0f/%.0f s of the budget, %d probes; best %s\n", p->phase, p->spent_s, p->budget_s,
               p->probes, best);
    }
    v->phase = p->phase;
    fflush(stdout);
}

static void on_info(void *user, const char *msg)
{
    view *v = user;
    if (cli_verbose) {
        end_line(v);
        printf("%s\n", msg);
    }
}

/* "8m", "90s", "1h", "300" → seconds. */
static int parse_budget(const char *t, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(t, &end);
    double mul = 1;
    if (*end == 'm')
        mul = 60, end++;
    else if (*end == 'h')
        mul = 3600, end++;
    else if (*end == 's')
        end++;
    if (errno || end == t || *end || !(x > 0))
        return cli_usage_error("tune", "--budget needs a time such as 8m, 90s or 300, not '%s'", t);
    *out = x * mul;
    return 0;
}

enum { O_CHIP = 256, O_PORT, O_SIM, O_SIM_NOISE, O_SIM_PROJECT, O_OBJECTIVE, O_FLOOR, O_BUDGET, O_FIX, O_OUT,
       O_RESUME, O_DRY, O_SSID, O_PWENV, O_PC, O_MODEL_RUN, O_NOISE, O_SEED, O_JSON, O_SIM_RSSI, O_SIM_RTT,
       O_SIM_LOSS, O_MODEL_OVH, O_PASSWORD, O_MAX_COST };

static const struct option opts[] = {
    {"chip", required_argument, 0, O_CHIP},         {"port", required_argument, 0, O_PORT},
    {"sim", no_argument, 0, O_SIM},                 {"sim-noise", required_argument, 0, O_SIM_NOISE},
    {"sim-project", required_argument, 0, O_SIM_PROJECT},
    {"objective", required_argument, 0, O_OBJECTIVE}, {"min-free-kb", required_argument, 0, O_FLOOR},
    {"budget", required_argument, 0, O_BUDGET},     {"fix", required_argument, 0, O_FIX},
    {"out", required_argument, 0, O_OUT},           {"resume", no_argument, 0, O_RESUME},
    {"dry-run", no_argument, 0, O_DRY},             {"ssid", required_argument, 0, O_SSID},
    {"password-env", required_argument, 0, O_PWENV}, {"password", required_argument, 0, O_PASSWORD},
    {"max-cost", required_argument, 0, O_MAX_COST},
    {"pc-address", required_argument, 0, O_PC},
    {"model-run", no_argument, 0, O_MODEL_RUN},     {"noise", required_argument, 0, O_NOISE},
    {"seed", required_argument, 0, O_SEED},         {"json", no_argument, 0, O_JSON},
    {"sim-rssi", required_argument, 0, O_SIM_RSSI}, {"sim-rtt", required_argument, 0, O_SIM_RTT},
    {"sim-loss", required_argument, 0, O_SIM_LOSS}, {"model-overhead", required_argument, 0, O_MODEL_OVH},
    {0, 0, 0, 0},
};

static int parse_num(const char *opt, const char *v, double *out)
{
    return cli_parse_double("tune", opt, v, 0, out);
}

/* --max-cost PCT (or PCT%): the share a frontier point may give up on a test
 * outside the objective before it is flagged. */
static int parse_max_cost(const char *v, double *out)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%s", v);
    size_t n = strlen(buf);
    if (n && buf[n - 1] == '%')
        buf[n - 1] = 0;
    char *end;
    errno = 0;
    double x = strtod(buf, &end);
    if (errno || end == buf || *end || !(x > 0 && x < 100))
        return cli_usage_error("tune", "--max-cost needs a share between 0 and 100 %%, such as 20 or 20%%, not '%s'", v);
    *out = x;
    return 0;
}

typedef struct model_run {
    bool on, json;
    double noise_pct, seed, overhead_s;
} model_run;

static int parse_link(int c, eb_tune_request *rq)
{
    static const char *const names[] = {"rssi", "rtt", "loss"};
    const char *name = names[c - O_SIM_RSSI];
    eb_error e;
    if (!rq->sim_link_set)
        eb_model_link_default(&rq->sim_link);
    rq->sim_link_set = true;
    if (eb_model_link_set(&rq->sim_link, name, optarg, &e))
        return cli_usage_error("tune", "--sim-%s: %s", name, e.msg);
    return 0;
}

static int parse_args(int argc, char **argv, eb_tune_request *rq, const char **objective, bool *dry,
                      model_run *mr)
{
    int c;
    optind = 1;
    opterr = 0;
    eb_error e;
    while ((c = cli_getopt(argc, argv, ":", opts)) != -1) {
        int rc = 0;
        switch (c) {
        case O_CHIP: rq->chip = optarg; break;
        case O_PORT: rq->port = optarg; break;
        case O_SIM: rq->sim = true; break;
        case O_SIM_NOISE: rc = parse_num("--sim-noise", optarg, &rq->sim_noise_pct); break;
        case O_SIM_PROJECT: rq->sim_project = optarg; break;
        case O_OBJECTIVE: *objective = optarg; break;
        case O_FLOOR: rc = parse_num("--min-free-kb", optarg, &rq->cfg.min_free_kb); break;
        case O_MAX_COST: rc = parse_max_cost(optarg, &rq->cfg.max_cost_pct); break;
        case O_BUDGET: rc = parse_budget(optarg, &rq->cfg.budget_s); break;
        case O_FIX:
            if (eb_tune_fix_add(rq->fix, &rq->n_fix, optarg, &e))
                return cli_usage_error("tune", "%s", e.msg);
            break;
        case O_OUT: rq->out_dir = optarg; break;
        case O_RESUME: rq->resume = true; break;
        case O_DRY: *dry = true; break;
        case O_SSID: rq->ssid = optarg; break;
        case O_PWENV: rq->password_env = optarg; break;
        case O_PASSWORD:
            return cli_usage_error("tune", "the Wi-Fi password is never a flag (it would show in ps and shell "
                                           "history): put it in an environment variable (--password-env VAR)");
        case O_PC: rq->pc_address = optarg; break;
        case O_MODEL_RUN: mr->on = true; break;
        case O_NOISE: rc = parse_num("--noise", optarg, &mr->noise_pct); break;
        case O_SEED: rc = parse_num("--seed", optarg, &mr->seed); break;
        case O_MODEL_OVH: rc = parse_num("--model-overhead", optarg, &mr->overhead_s); break;
        case O_JSON: mr->json = true; break;
        case O_SIM_RSSI: case O_SIM_RTT: case O_SIM_LOSS: rc = parse_link(c, rq); break;
        default: return cli_option_error("tune");
        }
        if (rc)
            return rc;
    }
    if (optind < argc)
        return cli_usage_error("tune", "unexpected argument '%s'", argv[optind]);
    if (cli_check_secret_env("tune", "--password-env", rq->password_env))
        return EB_ECONFIG;
    if (!rq->chip)
        return cli_usage_error("tune", "give --chip CHIP (see 'espbench profiles')");
    if (mr->on && (rq->sim || rq->port))
        return cli_usage_error("tune", "--model-run needs no board: leave out --sim and --port");
    if (mr->on)
        return 0;
    if (!*dry && !rq->sim && !rq->port)
        return cli_usage_error("tune", "give --port URL or --sim");
    if (!*dry && !rq->out_dir)
        return cli_usage_error("tune", "give --out DIR");
    return 0;
}

/* Profiles, model, space and plan: everything --dry-run needs. */
static int prepare(eb_tune_request *rq, const char *objective, eb_profiles *p, eb_model *m, eb_tune_space *s,
                   eb_tune_plan *plan)
{
    eb_error e;
    if (eb_tune_objective_parse(objective, &rq->obj, &e))
        return cli_usage_error("tune", "%s", e.msg);
    if (eb_profiles_load_default(p, cli_profiles_dir, &e))
        return cli_error(&e);
    const eb_chip *chip = eb_profiles_chip(p, rq->chip);
    if (!chip) {
        const char *near = eb_profiles_chip_nearest(p, rq->chip);
        return cli_usage_error("tune", "no profile for chip '%s'%s%s%s (see 'espbench profiles')", rq->chip,
                               near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    }
    rq->chip = chip->name; /* "ESP32-C3" as the profile spells it */
    if (eb_model_load_default(m, &e))
        return cli_error(&e);
    const eb_model_chip *mc = eb_model_chip_get(m, rq->chip);
    if (!mc)
        return cli_usage_error("tune", "the tier model has no constants for %s (espbench model fit)", rq->chip);
    if (eb_tune_space_build(s, mc, chip, &rq->obj, rq->fix, rq->n_fix, &e))
        return cli_usage_error("tune", "%s", e.msg);
    if (eb_tune_make_plan(s, &rq->cfg, plan, &e))
        return cli_usage_error("tune", "%s", e.msg);
    return 0;
}

/* The search against the model: what bench/ measures. */
static int run_on_model(const eb_tune_request *rq, const eb_tune_space *s, const eb_tune_plan *plan,
                        const model_run *mr)
{
    eb_tune_model_probe mp = {.s = s, .cfg = rq->cfg, .noise_pct = mr->noise_pct, .overhead_s = mr->overhead_s,
                              .rng = 0x2545F4914F6CDD1DULL + (unsigned long long)mr->seed * 0x9E3779B97F4A7C15ULL};
    if (rq->sim_link_set)
        mp.truth = rq->sim_link;
    else
        eb_model_link_default(&mp.truth);
    eb_tune_result r;
    eb_error e;
    if (eb_tune_search(s, &rq->cfg, plan, eb_tune_model_probe_fn, &mp, NULL, NULL, NULL, &r, &e)) {
        eb_tune_result_free(&r);
        return cli_error(&e);
    }
    eb_tune_quality q;
    eb_tune_quality_of(s, &r, &mp.truth, rq->cfg.min_free_kb, &q);
    char obj[128];
    eb_tune_objective_format(&s->obj, obj, sizeof obj);
    if (mr->json) {
        printf("{\"chip\": \"%s\", \"objective\": \"%s\", \"min_free_kb\": %g, \"budget_s\": %g, "
               "\"noise_pct\": %g, \"seed\": %g, \"candidates\": %d, \"probes\": %d, \"probed\": %d, "
               "\"probed_fraction\": %.6f, \"spent_s\": %.1f, \"frontier_points\": %d, "
               "\"exhaustive_points\": %d, \"hv_tuner\": %.3f, \"hv_exhaustive\": %.3f, \"hv_ratio\": %.5f}\n",
               s->chip->name, obj, rq->cfg.min_free_kb, rq->cfg.budget_s, mr->noise_pct, mr->seed, s->n, r.probes,
               r.probed, q.probed_fraction, r.spent_s, r.n_frontier, q.exhaustive_points, q.hv_tuner,
               q.hv_exhaustive, q.hv_ratio);
    } else {
        char *t = eb_tune_frontier_table(s, &r, rq->cfg.max_cost_pct);
        printf("%s", t ? t : "");
        free(t);
        printf("on the model (noise %g %%): %d probes of %d candidates (%d measured, %.4f %%), %.0f s; hypervolume "
               "%.1f of the exhaustive search's %.1f (%.3f); frontier of %d points (exhaustive: %d)\n",
               mr->noise_pct, r.probes, s->n, r.probed, 100 * q.probed_fraction, r.spent_s, q.hv_tuner,
               q.hv_exhaustive, q.hv_ratio, r.n_frontier, q.exhaustive_points);
    }
    eb_tune_result_free(&r);
    return 0;
}

int cmd_tune(int argc, char **argv)
{
    eb_tune_request rq = {.profiles_dir = cli_profiles_dir};
    rq.cfg.budget_s = 480;
    const char *objective = "tcp_tx";
    bool dry = false;
    model_run mr = {.noise_pct = 2};
    int rc = parse_args(argc, argv, &rq, &objective, &dry, &mr);
    if (rc)
        return rc;
    eb_profiles prof = {0};
    eb_model model = {0};
    eb_tune_space s = {0};
    eb_tune_plan plan;
    eb_tune_result r = {0};
    rc = prepare(&rq, objective, &prof, &model, &s, &plan);
    if (!rc && mr.on) {
        rc = run_on_model(&rq, &s, &plan, &mr);
    } else if (!rc && dry) {
        char *t = eb_tune_plan_text(&s, &plan, &rq.cfg);
        fputs(t ? t : "", stdout);
        free(t);
    } else if (!rc) {
        cli_catch_stop_signals();
        view v = {.tty = cli_stdout_is_tty(), .s = &s};
        rq.stop = &cli_stop_flag;
        rq.progress = on_progress;
        rq.info = on_info;
        rq.user = &v;
        eb_error e = {0};
        rc = eb_tune_run(&rq, &s, &plan, &r, &e);
        end_line(&v);
        if (!rc || rc == EB_EINTR) {
            char *t = eb_tune_frontier_table(&s, &r, rq.cfg.max_cost_pct);
            printf("\n%s", t ? t : "");
            free(t);
            printf("%d probes of %d candidates (%d measured), %.0f s of %.0f s%s. Results: %s/results.json; "
                   "frontier: %s/frontier.yaml, frontier.html, sdkconfig.tune-*\n",
                   r.probes, s.n, r.probed, r.spent_s, rq.cfg.budget_s,
                   r.budget_out ? " (the budget ended the repeats)" : "", rq.out_dir, rq.out_dir);
        }
        if (rc == EB_EINTR)
            fprintf(stderr, "espbench: interrupted; finished probes are kept in %s (continue with --resume)\n",
                    rq.out_dir);
        else if (rc)
            cli_error(&e);
    }
    eb_tune_result_free(&r);
    eb_tune_space_free(&s);
    eb_model_free(&model);
    eb_profiles_free(&prof);
    return rc;
}
