/* espbench profiles: list chips and tiers; show a chip's tiers as the docs'
 * table or as JSON. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include <math.h>

#include "espbench/formats/dims.h"
#include "espbench/formats/dialect.h"
#include "espbench/formats/hosted.h"
#include "espbench/formats/model.h"
#include "espbench/formats/profile.h"
#include "espbench/adapters/hosted_files.h"
#include "espbench/adapters/model_files.h"
#include "espbench/adapters/profile_dirs.h"

const char cmd_profiles_usage[] =
    "usage: espbench [--profiles DIR] profiles list\n"
    "       espbench [--profiles DIR] profiles show CHIP [TIER] [--json] [--predict]\n"
    "       espbench [--profiles DIR] profiles show PAIR\n"
    "\n"
    "list   one line per chip: name, display name, tiers; then the console dialects\n"
    "       (profiles/dialects/ and DIR/dialects/: grammar, ESP-IDF releases, prompt)\n"
    "show   the chip's facts and its tiers in the docs' layout (rows = settings and the\n"
    "       docs' reference figures, columns = tiers); TIER shows one tier; --json prints\n"
    "       the chip facts and every tier's settings, runtime flags and reference figures;\n"
    "       --predict adds the tier model's predictions beside the published figures\n"
    "       (docs/model.md) and lint warnings\n"
    "       PAIR (an ESP-Hosted pair of profiles/hosted/, listed by 'list') shows its\n"
    "       transport, the host's and the co-processor's settings and the published figures;\n"
    "       --predict adds the pair model's figures\n"
    "\n"
    "Profiles come from the installed (or source) profiles/ directory, then\n"
    "$ESPBENCH_PROFILES, then --profiles DIR; see espbench-profiles(5).\n";

static void names_of_chips(const eb_profiles *p, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < p->n_chips && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", p->chips[i].name);
}

static void names_of_tiers(const eb_chip *c, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->n_tiers && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", c->tiers[i].name);
}

static int print_text(char *text)
{
    if (!text) {
        fprintf(stderr, "espbench profiles: out of memory\n");
        return EB_EIO;
    }
    fputs(text, stdout);
    free(text);
    return 0;
}

static void idf_range(const eb_dialect_desc *d, char *out, size_t cap)
{
    if (d->idf_to <= 0)
        snprintf(out, cap, "-");
    else if (d->idf_to >= 99999)
        snprintf(out, cap, "%d.%d-latest", d->idf_from / 100, d->idf_from % 100);
    else
        snprintf(out, cap, "%d.%d-%d.%d", d->idf_from / 100, d->idf_from % 100, d->idf_to / 100, d->idf_to % 100);
}

/* The console dialect table: shipped rows and the profile directories' dialects/. */
static void print_dialects(void)
{
    printf("\nConsole dialects (profiles/dialects/ and the dialects/ of the profile directories):\n");
    printf("%-16s %-14s %-12s %-12s %-13s %s\n", "DIALECT", "GRAMMAR", "ESP-IDF", "PROMPT", "CONNECT", "FILE");
    for (int i = 0; i < eb_dialect_count(); i++) {
        const eb_dialect_desc *d = eb_dialect_desc_get(i);
        if (!d)
            continue;
        char range[32], prompt[40];
        idf_range(d, range, sizeof range);
        snprintf(prompt, sizeof prompt, "\"%s\"", d->prompts[0]);
        printf("%-16s %-14s %-12s %-12s %-13s %s\n", d->name, eb_dialect_name(d->grammar), range, prompt,
               d->connect_cmd, d->file);
    }
}

static int do_list(const eb_profiles *p, const eb_hosted_set *hs)
{
    int w = 4;
    for (int i = 0; i < p->n_chips; i++)
        if ((int)strlen(p->chips[i].display) > w)
            w = (int)strlen(p->chips[i].display);
    printf("%-10s %-*s  %s\n", "CHIP", w, "NAME", "TIERS");
    for (int i = 0; i < p->n_chips; i++) {
        char tiers[1024];
        names_of_tiers(&p->chips[i], tiers, sizeof tiers);
        printf("%-10s %-*s  %s\n", p->chips[i].name, w, p->chips[i].display, tiers);
    }
    print_dialects();
    if (hs->n == 0)
        return 0;
    printf("\nESP-Hosted pairs (profiles/hosted/; 'profiles show PAIR'):\n");
    return print_text(eb_hosted_render_list(hs));
}

/* Published figure and prediction side by side, one row per tier. */
static int print_predictions(const eb_chip *c, const eb_tier *only)
{
    eb_model m;
    eb_error err;
    eb_error_clear(&err);
    if (eb_model_load_default(&m, &err))
        return cli_error(&err);
    const eb_model_chip *mc = eb_model_chip_get(&m, c->name);
    if (!mc) {
        eb_model_free(&m);
        fprintf(stderr, "espbench profiles: no model constants for %s; run 'espbench model fit'\n", c->name);
        return EB_ECONFIG;
    }
    printf("\nModel %s predictions (published / predicted; the fit saw the published tiers, "
           "'espbench model cv' scores it on tiers it did not see):\n", EB_MODEL_VERSION);
    printf("%-26s", "TIER");
    for (int k = 0; k < EB_TEST_COUNT; k++)
        printf(" %15s", eb_test_label(k));
    printf(" %15s\n", "Free heap KB");
    for (int i = 0; i < c->n_tiers; i++) {
        const eb_tier *t = &c->tiers[i];
        if (only && t != only)
            continue;
        eb_prediction pr;
        eb_model_predict_shown(mc, c, t, NULL, &pr);
        printf("%-26s", t->name);
        for (int k = 0; k <= EB_TEST_COUNT; k++) {
            double pub = k < EB_TEST_COUNT ? eb_tier_ref(t, k, NULL) : t->ref_avail_kb;
            double v = k < EB_TEST_COUNT ? pr.mbps[k] : pr.free_kb;
            char cell[32], pred[16] = "-";
            if (!isnan(v))
                snprintf(pred, sizeof pred, "%.1f", v);
            if (isnan(pub))
                snprintf(cell, sizeof cell, "- / %s", pred);
            else
                snprintf(cell, sizeof cell, "%.1f / %s", pub, pred);
            printf(" %15s", cell);
        }
        printf("\n");
        eb_lint lint[8];
        int n = eb_model_lint(t, lint, 8);
        for (int j = 0; j < n && j < 8; j++)
            printf("  %s: %s\n", lint[j].level == EB_LINT_ERROR ? "error" : "warning", lint[j].msg);
    }
    eb_model_free(&m);
    return 0;
}

/* The pair model beside the guide's figures, one row of the guide's table each. */
static int print_pair_predictions(const eb_profiles *p, const eb_hosted_pair *pair)
{
    eb_model m;
    eb_error err;
    eb_error_clear(&err);
    if (eb_model_load_default(&m, &err))
        return cli_error(&err);
    printf("\nPair model %s predictions (published / predicted; docs/model.md, \"ESP-Hosted pairs\"):\n\n",
           EB_MODEL_VERSION);
    printf("| %-10s | %-13s |", "Type", "Direction");
    for (int k = 0; k < pair->n_tiers; k++)
        printf(" %15s |", pair->tiers[k].name);
    printf("\n");
    for (int r = 0; r < EB_HR_COUNT; r++) {
        char type[24], dir[32];
        eb_hosted_row_labels(pair, r, type, sizeof type, dir, sizeof dir);
        printf("| %-10s | %-13s |", type, dir);
        for (int k = 0; k < pair->n_tiers; k++) {
            const eb_tier *t = &pair->tiers[k];
            double pub = eb_hosted_published(pair, t, r);
            double v = eb_hosted_figure(&m, p, pair, t, NULL, eb_hosted_row_test(r));
            char cell[40];
            snprintf(cell, sizeof cell, isnan(pub) ? "- / %.1f" : "%.0f / %.1f", isnan(pub) ? v : pub, v);
            printf(" %15s |", cell);
        }
        printf("\n");
    }
    eb_model_free(&m);
    return 0;
}

static int do_show(const eb_profiles *p, const char *chip, const char *tier, int json, int predict)
{
    const eb_chip *c = eb_profiles_chip(p, chip);
    if (!c) {
        char names[512];
        names_of_chips(p, names, sizeof names);
        const char *near = eb_profiles_chip_nearest(p, chip);
        fprintf(stderr, "espbench profiles: unknown chip '%s'%s%s%s (chips: %s)\n", chip, near ? "; did you mean '" : "",
                near ? near : "", near ? "'?" : "", names);
        return EB_ECONFIG;
    }
    const eb_tier *t = NULL;
    if (tier) {
        t = eb_chip_tier(c, tier);
        if (!t) {
            char names[1024];
            names_of_tiers(c, names, sizeof names);
            const char *near = eb_chip_tier_nearest(c, tier);
            fprintf(stderr, "espbench profiles: unknown tier '%s' for %s%s%s%s (tiers: %s)\n", tier, c->name,
                    near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "", names);
            return EB_ECONFIG;
        }
    }
    char *text = json ? eb_chip_render_json(c, t) : eb_chip_render_table(c, t);
    if (!text) {
        fprintf(stderr, "espbench profiles: out of memory\n");
        return EB_EIO;
    }
    fputs(text, stdout);
    if (json)
        fputc('\n', stdout);
    free(text);
    return predict && !json ? print_predictions(c, t) : 0;
}

int cmd_profiles(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'},
        {"predict", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, predict = 0, c;
    optind = 1;
    opterr = 0; /* one message, ours, naming the option */
    while ((c = cli_getopt(argc, argv, "+jPh", opts)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'P': predict = 1; break;
        case 'h': fputs(cmd_profiles_usage, stdout); return 0;
        default: return cli_option_error("profiles");
        }
    }
    /* Options may also follow the operands: "show esp32 --json". */
    const char *args[4];
    int n = 0;
    for (int i = optind; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--predict"))
            predict = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(cmd_profiles_usage, stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("profiles", "unknown option '%s'", argv[i]);
        else if (n < 4)
            args[n++] = argv[i];
        else
            return cli_usage_error("profiles", "too many arguments");
    }
    if (n == 0)
        return cli_usage_error("profiles", "missing 'list' or 'show CHIP [TIER]'");
    int is_list = !strcmp(args[0], "list"), is_show = !strcmp(args[0], "show");
    if (!is_list && !is_show)
        return cli_usage_error("profiles", "unknown action '%s' (list, show)", args[0]);
    if (is_list && n != 1)
        return cli_usage_error("profiles", "'list' takes no arguments");
    if (is_show && (n < 2 || n > 3))
        return cli_usage_error("profiles", "'show' takes CHIP [TIER]");

    eb_profiles p;
    eb_error err;
    eb_error_clear(&err);
    if (eb_profiles_load_default(&p, cli_profiles_dir, &err))
        return cli_error(&err);
    eb_hosted_set hs;
    if (eb_hosted_load_default(&hs, &p, cli_profiles_dir, &err)) {
        eb_profiles_free(&p);
        return cli_error(&err);
    }
    int rc;
    const eb_hosted_pair *pair = is_show ? eb_hosted_by_name(&hs, args[1]) : NULL;
    if (pair && (n == 3 || json))
        rc = cli_usage_error("profiles", "'show %s' (an ESP-Hosted pair) takes no TIER or --json", args[1]);
    else if (pair)
        rc = print_text(eb_hosted_render_show(pair)) || (predict ? print_pair_predictions(&p, pair) : 0);
    else
        rc = is_list ? do_list(&p, &hs) : do_show(&p, args[1], n == 3 ? args[2] : NULL, json, predict);
    eb_hosted_free(&hs);
    eb_profiles_free(&p);
    return rc;
}
