/* espbench model: fit the tier model's constants from the published tables
 * (fit), and score it by leave-one-tier-out cross-validation (cv). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "espbench/base/buf.h"
#include "espbench/base/fs.h"
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
    int rc = 0;
    if (out && strcmp(out, "-")) {
        /* atomic: a failed fit never leaves half a constants file behind */
        if (eb_file_write_atomic(out, text, strlen(text), &err))
            rc = cli_error(&err);
    } else if (fputs(text, stdout) < 0) {
        fprintf(stderr, "espbench model: writing stdout failed\n");
        rc = EB_EIO;
    }
    free(text);
    return rc;
}

static int print_cv_json(const eb_profiles *p)
{
    eb_buf out;
    eb_buf_init(&out);
    eb_error err;
    eb_error_clear(&err);
    int rc = eb_model_cv_render_json(p, &out, &err);
    if (rc)
        rc = cli_error(&err);
    else
        fwrite(out.data, 1, out.len, stdout);
    eb_buf_free(&out);
    return rc;
}

static int do_cv(const eb_profiles *p, int json)
{
    if (json)
        return print_cv_json(p);
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
        for (int j = 0; j <= EB_TEST_COUNT; j++) {
            double med, worst;
            int k = eb_model_cv_summary(rows, n, j, &med, &worst);
            printf("%-9s %-10s %6d %8.1f %8.1f\n", c->name, eb_model_cv_column(j), k, med, worst);
        }
        free(rows);
        free(tiers);
    }
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
