/* espbench model: fit the tier model's constants from the published tables
 * (fit), and score it by leave-one-tier-out cross-validation (cv). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "espbench/formats/model.h"
#include "espbench/formats/profile.h"
#include "espbench/adapters/profile_dirs.h"

const char cmd_model_usage[] =
    "usage: espbench [--profiles DIR] model fit [-o FILE]\n"
    "       espbench [--profiles DIR] model cv [--json]\n"
    "\n"
    "fit   fits every chip's constants from the published tiers of the profiles and\n"
    "      writes the constants file (default: standard output; the shipped file is\n"
    "      profiles/model/model.yaml). The same tables give the same bytes.\n"
    "cv    leave-one-tier-out cross-validation: refits each chip without each published\n"
    "      tier, predicts that tier and prints the median and worst absolute error (%)\n"
    "      per chip and test; --json prints every fold too (published, predicted,\n"
    "      signed error)\n"
    "\n"
    "See docs/model.md.\n";

static int do_fit(const eb_profiles *p, const char *out)
{
    eb_model m;
    eb_error err;
    eb_error_clear(&err);
    if (eb_model_fit(p, &m, &err))
        return cli_error(&err);
    char *text = eb_model_render(&m);
    eb_model_free(&m);
    if (!text) {
        fprintf(stderr, "espbench model: out of memory\n");
        return EB_EIO;
    }
    FILE *f = out && strcmp(out, "-") ? fopen(out, "wb") : stdout;
    if (!f) {
        fprintf(stderr, "espbench model: cannot write %s; check the directory exists\n", out);
        free(text);
        return EB_EIO;
    }
    int bad = fputs(text, f) < 0;
    if (f != stdout)
        bad |= fclose(f) != 0;
    free(text);
    if (bad) {
        fprintf(stderr, "espbench model: writing %s failed\n", out ? out : "stdout");
        return EB_EIO;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and worst of the non-NAN values of column j. */
static int summary(eb_model_cv_row *rows, int n, int j, double *med, double *worst)
{
    double v[256];
    int k = 0;
    for (int i = 0; i < n && k < 256; i++)
        if (!isnan(rows[i][j]))
            v[k++] = fabs(rows[i][j]);
    *med = *worst = NAN;
    if (!k)
        return 0;
    qsort(v, (size_t)k, sizeof v[0], cmp_double);
    *med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    *worst = v[k - 1];
    return k;
}

static const char *col_name(int j)
{
    return j < EB_TEST_COUNT ? eb_test_name(j) : "free_heap";
}

static void json_num(double v)
{
    if (isnan(v))
        printf("null");
    else
        printf("%.2f", v);
}

static int do_cv(const eb_profiles *p, int json)
{
    if (json)
        printf("{\"model_version\": \"%s\", \"chips\": {", EB_MODEL_VERSION);
    else
        printf("%-9s %-10s %6s %8s %8s\n", "CHIP", "TEST", "FOLDS", "MEDIAN%", "WORST%");
    for (int i = 0; i < p->n_chips; i++) {
        const eb_chip *c = &p->chips[i];
        eb_model_cv_row *rows;
        const eb_tier **tiers;
        int n;
        eb_error err;
        eb_error_clear(&err);
        if (eb_model_cv_chip(c, &rows, &tiers, &n, &err))
            return cli_error(&err);
        if (json)
            printf("%s\"%s\": {\"summary\": {", i ? ", " : "", c->name);
        for (int j = 0; j <= EB_TEST_COUNT; j++) {
            double med, worst;
            int k = summary(rows, n, j, &med, &worst);
            if (json) {
                printf("%s\"%s\": {\"folds\": %d, \"median_pct\": ", j ? ", " : "", col_name(j), k);
                json_num(med);
                printf(", \"worst_pct\": ");
                json_num(worst);
                printf("}");
            } else {
                printf("%-9s %-10s %6d %8.1f %8.1f\n", c->name, col_name(j), k, med, worst);
            }
        }
        if (json) {
            printf("}, \"folds\": [");
            for (int k = 0; k < n; k++) {
                printf("%s{\"tier\": \"%s\"", k ? ", " : "", tiers[k]->name);
                for (int j = 0; j <= EB_TEST_COUNT; j++) {
                    double pub = j < EB_TEST_COUNT ? tiers[k]->ref_mbps[j] : tiers[k]->ref_avail_kb;
                    printf(", \"%s\": {\"published\": ", col_name(j));
                    json_num(pub);
                    printf(", \"predicted\": ");
                    json_num(isnan(rows[k][j]) ? NAN : pub * (1 + rows[k][j] / 100));
                    printf(", \"error_pct\": ");
                    json_num(rows[k][j]);
                    printf("}");
                }
                printf("}");
            }
            printf("]}");
        }
        free(rows);
        free(tiers);
    }
    if (json)
        printf("}}\n");
    return 0;
}

int cmd_model(int argc, char **argv)
{
    const char *action = argc > 1 ? argv[1] : NULL, *out = NULL;
    int json = 0;
    if (!action)
        return cli_usage_error("model", "missing 'fit' or 'cv'");
    if (!strcmp(action, "--help") || !strcmp(action, "-h")) {
        fputs(cmd_model_usage, stdout);
        return 0;
    }
    int fit = !strcmp(action, "fit"), cv = !strcmp(action, "cv");
    if (!fit && !cv)
        return cli_usage_error("model", "unknown action '%s' (fit, cv)", action);
    for (int i = 2; i < argc; i++) {
        if (fit && (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--out")) && i + 1 < argc)
            out = argv[++i];
        else if (cv && !strcmp(argv[i], "--json"))
            json = 1;
        else
            return cli_usage_error("model", "unknown or incomplete option '%s' for '%s'", argv[i],
                                   action);
    }
    eb_profiles p;
    eb_error err;
    eb_error_clear(&err);
    if (eb_profiles_load_default(&p, cli_profiles_dir, &err))
        return cli_error(&err);
    int rc = fit ? do_fit(&p, out) : do_cv(&p, json);
    eb_profiles_free(&p);
    return rc;
}
