/* espbench predict: the tier model's throughputs and free heap for a tier,
 * or for settings given on the line, under given link conditions. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "espbench/formats/model.h"
#include "espbench/formats/profile.h"
#include "espbench/adapters/model_files.h"
#include "espbench/adapters/profile_dirs.h"

const char cmd_predict_usage[] =
    "usage: espbench [--profiles DIR] predict --chip CHIP [--tier NAME] [--set KEY=VALUE ...]\n"
    "                [--rssi DBM] [--phy MBPS] [--rtt MS] [--loss PCT] [--stations N] [--as-built] [--model]\n"
    "                [--json]\n"
    "\n"
    "Predicts TCP/UDP TX/RX throughput (Mbit/s) and free heap (KB) of a tier with the\n"
    "tier model (docs/model.md): --tier starts from a profile tier (an overlay's too),\n"
    "--set changes or adds settings (tier field keys of espbench-profiles(5), and psram).\n"
    "The link defaults to the published conditions; --rssi -100..-10 dBm picks the MCS,\n"
    "--phy 1..600 Mbit/s forces the PHY rate, --rtt 0..2000 ms adds round trip, --loss\n"
    "0..50 % random loss, --stations 1..64 transmitters sharing the AP's channel (boards\n"
    "together, or 2 for a board-to-board pair through one AP). Lint findings and settings the\n"
    "model has no term for are listed.\n"
    "--json keys: tcp_tx_mbps, tcp_rx_mbps, udp_tx_mbps, udp_rx_mbps, free_kb, unmodelled,\n"
    "lint; the free heap is unknown (null) for a chip with no published free heap (ESP32-C5).\n"
    "--as-built replaces the build-time settings with those of the espbench\n"
    "firmware image (one image for every tier, as `run` and `run --sim` run a tier).\n"
    "--model is accepted for symmetry with the vboard: predict always uses the model.\n"
    "Exit 2 on a bad setting, link value or a tier that fails validation.\n";

typedef struct predict_args {
    const char *chip, *tier;
    const char *sets[64];
    int n_sets;
    eb_model_link link;
    int json, as_built;
} predict_args;

static int parse_args(int argc, char **argv, predict_args *a)
{
    static const struct option opts[] = {
        {"chip", required_argument, NULL, 'c'}, {"tier", required_argument, NULL, 't'},
        {"set", required_argument, NULL, 's'},  {"rssi", required_argument, NULL, 'r'},
        {"phy", required_argument, NULL, 'p'},  {"rtt", required_argument, NULL, 'R'},
        {"loss", required_argument, NULL, 'l'}, {"json", no_argument, NULL, 'j'},
        {"stations", required_argument, NULL, 'n'},
        {"as-built", no_argument, NULL, 'a'},   {"model", no_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    static const char *const link_name[] = {['r'] = "rssi", ['p'] = "phy", ['R'] = "rtt",
                                            ['l'] = "loss", ['n'] = "stations"};
    eb_model_link_default(&a->link);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = cli_getopt(argc, argv, "+c:t:s:jh", opts)) != -1) {
        eb_error err;
        switch (c) {
        case 'c': a->chip = optarg; break;
        case 't': a->tier = optarg; break;
        case 's':
            if (a->n_sets == 64)
                return cli_usage_error("predict", "more than 64 --set options");
            a->sets[a->n_sets++] = optarg;
            break;
        case 'r': case 'p': case 'R': case 'l': case 'n':
            if (eb_model_link_set(&a->link, link_name[c], optarg, &err))
                return cli_usage_error("predict", "--%s: %s", link_name[c], err.msg);
            break;
        case 'j': a->json = 1; break;
        case 'a': a->as_built = 1; break;
        case 'm': break;
        case 'h': fputs(cmd_predict_usage, stdout); return -1;
        default:
            return cli_option_error("predict");
        }
    }
    if (optind < argc)
        return cli_usage_error("predict", "unexpected argument '%s'", argv[optind]);
    if (!a->chip)
        return cli_usage_error("predict", "--chip is required");
    if (!a->tier && !a->n_sets)
        return cli_usage_error("predict", "give --tier NAME or --set KEY=VALUE");
    return 0;
}

static int build_tier(const eb_chip *c, const predict_args *a, eb_tier *t)
{
    memset(t, 0, sizeof *t);
    for (int k = 0; k < EB_TEST_COUNT; k++)
        t->ref_mbps[k] = NAN;
    t->ref_avail_kb = NAN;
    snprintf(t->name, sizeof t->name, "%s", "custom");
    if (a->tier) {
        const eb_tier *base = eb_chip_tier(c, a->tier);
        if (!base)
            return cli_usage_error("predict", "unknown tier '%s' for %s (see 'espbench profiles show %s')",
                                   a->tier, c->name, c->name);
        *t = *base;
    }
    for (int i = 0; i < a->n_sets; i++) {
        char key[64];
        const char *eq = strchr(a->sets[i], '=');
        if (!eq || eq == a->sets[i] || (size_t)(eq - a->sets[i]) >= sizeof key)
            return cli_usage_error("predict", "--set '%s' is not KEY=VALUE", a->sets[i]);
        memcpy(key, a->sets[i], (size_t)(eq - a->sets[i]));
        key[eq - a->sets[i]] = '\0';
        eb_error err;
        if (eb_model_tier_set(t, key, eq + 1, &err))
            return cli_usage_error("predict", "--set %s: %s", a->sets[i], err.msg);
    }
    if (a->as_built)
        eb_model_as_built(c, t);
    eb_error err;
    if (eb_tier_validate(t, &err))
        return cli_usage_error("predict", "tier %s fails validation: %s", t->name, err.msg);
    return 0;
}

static void print_json(const eb_chip *c, const eb_tier *t, const eb_model_link *l,
                       const eb_prediction *p, const eb_lint *lint, int n_lint)
{
    eb_buf out;
    eb_buf_init(&out);
    eb_prediction_render_json(c, t, l, p, lint, n_lint, &out);
    fwrite(out.data, 1, out.len, stdout);
    eb_buf_free(&out);
}

static void print_table(const eb_chip *c, const eb_tier *t, const eb_model_link *l,
                        const eb_prediction *p, const eb_lint *lint, int n_lint)
{
    printf("%s tier %s: model %s prediction, %s (PHY %.1f Mbit/s", c->name, t->name,
           EB_MODEL_VERSION, eb_model_link_is_published(l) ? "published conditions" : "link",
           p->phy_mbps);
    if (!isnan(l->rssi_dbm))
        printf(", RSSI %g dBm", l->rssi_dbm);
    printf(", +%g ms RTT, %g %% loss", l->rtt_ms, l->loss_pct);
    if (l->stations > 1)
        printf(", %g stations on the channel", l->stations);
    printf(")\n");
    printf("%-10s %10s  %s\n", "TEST", "Mbit/s", "BOUND");
    for (int k = 0; k < EB_TEST_COUNT; k++)
        printf("%-10s %10.2f  %s\n", eb_test_label(k), p->mbps[k], eb_model_bound_name(p->bound[k]));
    if (isnan(p->free_kb)) /* no published free heap of the chip fitted the model's */
        printf("%-10s %10s  KB\n", "Free heap", "unknown");
    else
        printf("%-10s %10.1f  KB\n", "Free heap", p->free_kb);
    unsigned um = eb_model_unmodelled(t);
    if (um) {
        printf("unmodelled:");
        for (int f = 0; f < EB_F_COUNT; f++)
            if (um & (1u << f))
                printf(" %s", eb_field_desc_get(f)->key);
        printf(" (no model term; not reflected in the figures)\n");
    }
    for (int i = 0; i < n_lint; i++)
        printf("%s: %s\n", lint[i].level == EB_LINT_ERROR ? "error" : "warning", lint[i].msg);
}

int cmd_predict(int argc, char **argv)
{
    predict_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    eb_profiles prof;
    eb_model model;
    eb_error err;
    eb_error_clear(&err);
    if (eb_profiles_load_default(&prof, cli_profiles_dir, &err))
        return cli_error(&err);
    if (eb_model_load_default(&model, &err)) {
        eb_profiles_free(&prof);
        return cli_error(&err);
    }
    const eb_chip *c = eb_profiles_chip(&prof, a.chip);
    const eb_model_chip *mc = c ? eb_model_chip_get(&model, c->name) : NULL;
    eb_tier t;
    if (!c)
        rc = cli_usage_error("predict", "unknown chip '%s' (see 'espbench profiles list')", a.chip);
    else if (!mc)
        rc = cli_usage_error("predict", "no model constants for %s; run 'espbench model fit'", a.chip);
    else
        rc = build_tier(c, &a, &t);
    if (!rc) {
        eb_lint lint[8];
        int n_lint = eb_model_lint(&t, lint, 8);
        n_lint = n_lint > 8 ? 8 : n_lint;
        eb_prediction p;
        eb_model_predict_shown(mc, c, &t, &a.link, &p);
        (a.json ? print_json : print_table)(c, &t, &a.link, &p, lint, n_lint);
    }
    eb_model_free(&model);
    eb_profiles_free(&prof);
    return rc;
}
