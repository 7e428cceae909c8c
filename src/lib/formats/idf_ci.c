/* Espressif CI's rules (idf_ci.h). */
#include "espbench/formats/idf_ci.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const define_names[EB_TEST_COUNT] = {
    [EB_TEST_TCP_TX] = "IDF_PERFORMANCE_MIN_TCP_TX_THROUGHPUT",
    [EB_TEST_TCP_RX] = "IDF_PERFORMANCE_MIN_TCP_RX_THROUGHPUT",
    [EB_TEST_UDP_TX] = "IDF_PERFORMANCE_MIN_UDP_TX_THROUGHPUT",
    [EB_TEST_UDP_RX] = "IDF_PERFORMANCE_MIN_UDP_RX_THROUGHPUT",
};

/* "#define NAME VALUE" on one line (spaces or tabs; a trailing comment). */
static int parse_line(const char *l, size_t n, const char *name, int line_no, eb_idf_thresholds *out,
                      eb_error *err)
{
    char buf[256];
    if (n >= sizeof buf)
        n = sizeof buf - 1;
    memcpy(buf, l, n);
    buf[n] = 0;
    char *p = buf;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '#')
        return 0;
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncmp(p, "define", 6) || (p[6] != ' ' && p[6] != '\t'))
        return 0;
    p += 6;
    while (*p == ' ' || *p == '\t')
        p++;
    for (int t = 0; t < EB_TEST_COUNT; t++) {
        size_t k = strlen(define_names[t]);
        if (strncmp(p, define_names[t], k) || (p[k] != ' ' && p[k] != '\t'))
            continue;
        char *v = p + k, *end;
        double x = strtod(v, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r')
            end++;
        if (end == v || (*end && strncmp(end, "//", 2) && strncmp(end, "/*", 2)) || !(x >= 0))
            return eb_fail(err, EB_ECONFIG, "%s:%d: %s: expected a number of Mbit/s, got '%s'", name, line_no,
                           define_names[t], v + strspn(v, " \t"));
        if (isnan(out->min_mbps[t])) { /* the first definition wins (#ifndef defaults come after) */
            out->min_mbps[t] = x;
            out->line[t] = line_no;
        }
    }
    return 0;
}

int eb_idf_thresholds_parse(const char *text, size_t len, const char *name, eb_idf_thresholds *out, eb_error *err)
{
    for (int t = 0; t < EB_TEST_COUNT; t++)
        out->min_mbps[t] = NAN, out->line[t] = 0;
    int line_no = 1;
    for (size_t i = 0; i < len; line_no++) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t n = nl ? (size_t)(nl - (text + i)) : len - i;
        int rc = parse_line(text + i, n, name, line_no, out, err);
        if (rc)
            return rc;
        i += n + (nl ? 1 : 0);
    }
    for (int t = 0; t < EB_TEST_COUNT; t++)
        if (!isnan(out->min_mbps[t]))
            return 0;
    return eb_fail(err, EB_ECONFIG, "%s: no IDF_PERFORMANCE_MIN_*_THROUGHPUT define (ESP-IDF's "
                   "components/idf_test/include/<target>/idf_performance_target.h has them)", name);
}

static int by_index(const void *a, const void *b)
{
    double x = ((const eb_idf_point *)a)->index, y = ((const eb_idf_point *)b)->index;
    return (x > y) - (x < y);
}

int eb_idf_bad_points(const eb_idf_point *pts, int n, bool by_att, const char *ap, eb_buf *out)
{
    if (n < 2)
        return 0;
    eb_idf_point *p = malloc(sizeof *p * (size_t)n);
    if (!p)
        return 0;
    int m = 0; /* one point per index, the larger figure (IperfUtility _save_result) */
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < m && p[j].index != pts[i].index)
            j++;
        if (j == m)
            p[m++] = pts[i];
        else if (pts[i].mbps > p[j].mbps)
            p[j].mbps = pts[i].mbps;
    }
    qsort(p, (size_t)m, sizeof *p, by_index);
    if (by_att) /* attenuation from the largest down: the weaker signal first, as RSSI ascending */
        for (int i = 0; i < m / 2; i++) {
            eb_idf_point t = p[i];
            p[i] = p[m - 1 - i];
            p[m - 1 - i] = t;
        }
    int bad = 0;
    for (int i = 1; i < m; i++) {
        /* IperfUtility compares the index with the RSSI limit for both
         * kinds; an attenuation (>= 0) is never under -75. */
        if (p[i].index < EB_IDF_BAD_POINT_RSSI || p[i - 1].mbps < EB_IDF_BAD_POINT_MIN_MBPS)
            continue;
        double share = p[i].mbps / p[i - 1].mbps;
        if (share < 1 - EB_IDF_BAD_POINT_DROP) {
            eb_buf_printf(out, "[Error][Bad point][%s][%s: %g]: drop %.2f%%\n", ap, by_att ? "att" : "rssi",
                          p[i].index, (1 - share) * 100);
            bad++;
        }
    }
    free(p);
    return bad;
}

bool eb_idf_fall_to_0(const eb_entry *e, double *at)
{
    const eb_provenance *p = eb_entry_prov(e);
    double rssi = isfinite(p->rssi_before) ? p->rssi_before : p->rssi_after;
    if (!(rssi > EB_IDF_ZERO_POINT_RSSI))
        return false;
    for (int i = 0; i < e->receiver.n; i++) {
        const eb_interval iv_at = eb_ivs_at(&e->receiver, i), *iv = &iv_at;
        if ((int)(iv->end_s - iv->start_s) == 1 && iv->mbps == 0) { /* IperfUtility: int(t_end - t_start) == 1 */
            if (at)
                *at = iv->start_s;
            return true;
        }
    }
    return false;
}

static bool chip_in(const char *const *chips, int n, const char *c)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(chips[i], c))
            return true;
    return false;
}

/* The sweep index of an entry: the attenuation or the RSSI it ran at. */
static bool sweep_index(const eb_entry *e, bool by_att, double *index)
{
    const eb_provenance *p = eb_entry_prov(e);
    double v = by_att ? p->attenuation_db : (isfinite(p->rssi_before) ? p->rssi_before : p->sweep_value);
    if (by_att && !isfinite(v) && !strcmp(p->sweep_var, "attenuation"))
        v = p->sweep_value;
    if (!by_att && strcmp(p->sweep_var, "rssi") && strcmp(p->sweep_var, "attenuation"))
        return false;
    *index = v;
    return isfinite(v);
}

static int sweep_flags(const eb_results *r, const char *chip, eb_buf *out)
{
    int fails = 0;
    for (int t = 0; t < EB_TEST_COUNT; t++)
        for (int by_att = 0; by_att < 2; by_att++) {
            eb_idf_point *pts = malloc(sizeof *pts * (size_t)(r->n_entries + 1));
            int n = 0;
            char ap[64] = "";
            for (int i = 0; pts && i < r->n_entries; i++) {
                const eb_entry *e = &r->entries[i];
                double idx;
                if (strcmp(e->chip, chip) || e->test != t || !sweep_index(e, by_att, &idx))
                    continue;
                snprintf(ap, sizeof ap, "%s", eb_entry_prov(e)->ap_ssid[0] ? eb_entry_prov(e)->ap_ssid : "ap");
                pts[n++] = (eb_idf_point){idx, isfinite(e->peak_mbps) ? e->peak_mbps : 0};
            }
            char what[96];
            snprintf(what, sizeof what, "%s %s", chip, eb_test_name(t));
            if (n > 1) {
                eb_buf_printf(out, "%s by %s:\n", what, by_att ? "attenuation" : "RSSI");
                fails += eb_idf_bad_points(pts, n, by_att, ap, out);
            }
            free(pts);
        }
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        double at;
        if (strcmp(e->chip, chip) || !eb_idf_fall_to_0(e, &at))
            continue;
        const eb_provenance *p = eb_entry_prov(e);
        eb_buf_printf(out, "[Error][fall to 0][%s][att: %g][rssi: %g]: 0 throughput interval: %.1f-%.1f (%s %s)\n",
                      p->ap_ssid[0] ? p->ap_ssid : "ap", p->attenuation_db,
                      isfinite(p->rssi_before) ? p->rssi_before : p->rssi_after, at, at + 1, e->chip,
                      eb_test_name(e->test));
        fails++;
    }
    return fails;
}

int eb_idf_ci_check(const eb_results *r, const eb_idf_thresholds *th, const char *chip, eb_buf *out)
{
    const char *chips[64];
    int n_chips = 0, fails = 0;
    for (int i = 0; i < r->n_entries && n_chips < 64; i++)
        if ((!chip || !strcmp(chip, r->entries[i].chip)) && !chip_in(chips, n_chips, r->entries[i].chip))
            chips[n_chips++] = r->entries[i].chip;
    for (int c = 0; c < n_chips; c++) {
        for (int t = 0; th && t < EB_TEST_COUNT; t++) {
            if (isnan(th->min_mbps[t]))
                continue;
            double best = NAN; /* IperfUtility get_best_throughput: the best 1-s figure of any test */
            for (int i = 0; i < r->n_entries; i++) {
                const eb_entry *e = &r->entries[i];
                if (!strcmp(e->chip, chips[c]) && e->test == t && !strcmp(e->status, "ok") &&
                    isfinite(e->peak_mbps) && (isnan(best) || e->peak_mbps > best))
                    best = e->peak_mbps;
            }
            if (isnan(best)) { /* not run here: ESP-IDF checks the tests it ran */
                eb_buf_printf(out, "%-9s %-7s not measured, %s %g: n/a\n", chips[c], eb_test_name(t), define_names[t],
                              th->min_mbps[t]);
                continue;
            }
            bool ok = best >= th->min_mbps[t];
            eb_buf_printf(out, "%-9s %-7s best peak 1-s %.2f Mbit/s, %s %g: %s\n", chips[c], eb_test_name(t), best,
                          define_names[t], th->min_mbps[t], ok ? "pass" : "FAIL");
            fails += !ok;
        }
        fails += sweep_flags(r, chips[c], out);
    }
    return fails;
}
