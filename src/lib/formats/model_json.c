/* The tier model's JSON renderings (model.h): `model cv --json` and
 * `predict --json`, through the streaming writer (results.json's layout,
 * strings escaped). Figures keep the decimals the commands always printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "espbench/formats/dims.h"
#include "espbench/formats/model.h"
#include "json_writer.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int eb_model_cv_summary(const eb_model_cv_row *rows, int n, int col, double *median, double *worst)
{
    double v[256];
    int k = 0;
    for (int i = 0; i < n && k < 256; i++)
        if (!isnan(rows[i][col]))
            v[k++] = fabs(rows[i][col]);
    *median = *worst = NAN;
    if (!k)
        return 0;
    qsort(v, (size_t)k, sizeof v[0], cmp_double);
    *median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    *worst = v[k - 1];
    return k;
}

const char *eb_model_cv_column(int col) { return col < EB_TEST_COUNT ? eb_test_name(col) : "free_heap"; }

/* A figure with fixed decimals ("%.*f"), null when NAN. */
static void fixed(eb_jw *w, const char *key, double v, int decimals)
{
    if (isnan(v))
        eb_jw_null(w, key);
    else
        eb_buf_printf(eb_jw_raw(w, key), "%.*f", decimals, v);
}

int eb_model_cv_render_json(const eb_profiles *p, eb_buf *out, eb_error *err)
{
    eb_jw w;
    eb_jw_init(&w, out);
    eb_jw_object(&w, NULL);
    eb_jw_str(&w, "model_version", EB_MODEL_VERSION);
    eb_jw_object(&w, "chips");
    for (int i = 0; i < p->n_chips; i++) {
        const eb_chip *c = &p->chips[i];
        eb_model_cv_row *rows;
        const eb_tier **tiers;
        int n;
        if (eb_model_cv_chip(c, &rows, &tiers, &n, err))
            return err->code ? err->code : EB_EIO;
        eb_jw_object(&w, c->name);
        eb_jw_object(&w, "summary");
        for (int j = 0; j <= EB_TEST_COUNT; j++) {
            double med, worst;
            int k = eb_model_cv_summary(rows, n, j, &med, &worst);
            eb_jw_object(&w, eb_model_cv_column(j));
            eb_jw_int(&w, "folds", k);
            fixed(&w, "median_pct", med, 2);
            fixed(&w, "worst_pct", worst, 2);
            eb_jw_end(&w);
        }
        eb_jw_end(&w);
        eb_jw_array(&w, "folds");
        for (int k = 0; k < n; k++) {
            eb_jw_object(&w, NULL);
            eb_jw_str(&w, "tier", tiers[k]->name);
            for (int j = 0; j <= EB_TEST_COUNT; j++) {
                double pub = j < EB_TEST_COUNT ? eb_tier_ref(tiers[k], j, NULL) : tiers[k]->ref_avail_kb;
                eb_jw_object(&w, eb_model_cv_column(j));
                fixed(&w, "published", pub, 2);
                fixed(&w, "predicted", isnan(rows[k][j]) ? NAN : pub * (1 + rows[k][j] / 100), 2);
                fixed(&w, "error_pct", rows[k][j], 2);
                eb_jw_end(&w);
            }
            eb_jw_end(&w);
        }
        eb_jw_end(&w);
        eb_jw_end(&w);
        free(rows);
        free(tiers);
    }
    eb_jw_end(&w);
    eb_jw_end(&w);
    eb_buf_append_byte(out, '\n');
    return 0;
}

/* %g as predict always printed the link */
static void general(eb_jw *w, const char *key, double v)
{
    if (isnan(v))
        eb_jw_null(w, key);
    else
        eb_buf_printf(eb_jw_raw(w, key), "%g", v);
}

void eb_prediction_render_json(const eb_chip *c, const eb_tier *t, const eb_model_link *l, const eb_prediction *p,
                               const eb_lint *lint, int n_lint, eb_buf *out)
{
    eb_jw w;
    eb_jw_init(&w, out);
    eb_jw_object(&w, NULL);
    eb_jw_str(&w, "chip", c->name);
    eb_jw_str(&w, "tier", t->name);
    eb_jw_str(&w, "source", "model");
    eb_jw_str(&w, "model_version", EB_MODEL_VERSION);
    eb_jw_object(&w, "link");
    fixed(&w, "phy_mbps", p->phy_mbps, 1);
    general(&w, "rssi_dbm", l->rssi_dbm);
    general(&w, "rtt_ms", l->rtt_ms);
    general(&w, "loss_pct", l->loss_pct);
    general(&w, "stations", l->stations);
    eb_jw_end(&w);
    for (int k = 0; k < EB_TEST_COUNT; k++) {
        char key[32];
        snprintf(key, sizeof key, "%s_mbps", eb_test_name(k));
        fixed(&w, key, p->mbps[k], 2);
    }
    fixed(&w, "free_kb", p->free_kb, 1);
    fixed(&w, "udp_tx_loss_pct", p->loss[EB_TEST_UDP_TX] * 100, 2);
    fixed(&w, "udp_rx_loss_pct", p->loss[EB_TEST_UDP_RX] * 100, 2);
    eb_jw_object(&w, "bound");
    for (int k = 0; k < EB_TEST_COUNT; k++)
        eb_jw_str(&w, eb_test_name(k), eb_model_bound_name(p->bound[k]));
    eb_jw_end(&w);
    eb_jw_array(&w, "unmodelled");
    unsigned um = eb_model_unmodelled(t);
    for (int f = 0; f < EB_F_COUNT; f++)
        if (um & (1u << f))
            eb_jw_str(&w, NULL, eb_field_desc_get(f)->key);
    eb_jw_end(&w);
    eb_jw_array(&w, "lint");
    for (int i = 0; i < n_lint; i++) {
        eb_jw_object(&w, NULL);
        eb_jw_str(&w, "level", lint[i].level == EB_LINT_ERROR ? "error" : "warning");
        eb_jw_str(&w, "field", eb_field_desc_get(lint[i].field)->key);
        eb_jw_str(&w, "message", lint[i].msg);
        eb_jw_end(&w);
    }
    eb_jw_end(&w);
    eb_jw_end(&w);
    eb_buf_append_byte(out, '\n');
}
