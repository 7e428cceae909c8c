/* results.csv: RFC 4180. One row per entry, a header row, CRLF line ends;
 * fields containing a comma, double quote, CR or LF are quoted with inner
 * quotes doubled. Unknown figures (NAN, -1) are empty fields. The columns are
 * fixed and documented in docs/results.md; new columns are only ever appended. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "espbench/formats/results.h"
#include "json_writer.h"

static void csv_text(eb_buf *b, const char *s)
{
    /* a byte that is not valid UTF-8 becomes U+FFFD (json_writer.h): the file is UTF-8 */
    if (strpbrk(s, ",\"\r\n") == NULL) {
        eb_utf8_append(b, s, strlen(s));
        return;
    }
    eb_buf_append_byte(b, '"');
    for (const char *run = s;; s++) {
        if (*s == '"' || *s == '\0') {
            eb_utf8_append(b, run, (size_t)(s - run));
            if (*s == '\0')
                break;
            eb_buf_append(b, "\"\"", 2);
            run = s + 1;
        }
    }
    eb_buf_append_byte(b, '"');
}

static void csv_num(eb_buf *b, double v)
{
    if (isfinite(v))
        eb_buf_printf(b, "%.6g", v);
}

static void csv_long(eb_buf *b, long v)
{
    if (v >= 0)
        eb_buf_printf(b, "%ld", v);
}

enum col_kind { C_TEXT, C_NUM, C_LONG, C_INT, C_TEST, C_ERROR };

typedef struct csv_col {
    const char *name;
    enum col_kind kind;
    size_t off; /* offsetof(eb_entry, field) */
} csv_col;

#define COL(n, k, f) {n, k, offsetof(eb_entry, f)}
static const csv_col columns[] = {
    COL("board", C_TEXT, board),
    COL("chip", C_TEXT, chip),
    COL("tier", C_TEXT, tier),
    COL("test", C_TEST, test),
    COL("repeat", C_INT, repeat),
    COL("status", C_TEXT, status),
    COL("mean_mbps", C_NUM, mean_mbps),
    COL("peak_mbps", C_NUM, peak_mbps),
    COL("median_mbps", C_NUM, rx_stats.median),
    COL("min_mbps", C_NUM, rx_stats.min),
    COL("max_mbps", C_NUM, rx_stats.max),
    COL("stddev_mbps", C_NUM, rx_stats.stddev),
    COL("n_intervals", C_INT, rx_stats.n),
    COL("sender_mean_mbps", C_NUM, tx_stats.mean),
    COL("loss_pct", C_NUM, loss_pct),
    COL("jitter_ms", C_NUM, jitter_ms),
    COL("free_heap", C_LONG, free_heap),
    COL("min_free_heap", C_LONG, min_free_heap),
    COL("largest_block", C_LONG, largest_block),
    COL("ref_mbps", C_NUM, ref_mbps),
    COL("duration_s", C_NUM, duration_s),
    COL("interval_s", C_NUM, interval_s),
    COL("warmup_s", C_NUM, warmup_s),
    COL("udp_rate_mbps", C_NUM, udp_rate_mbps),
    COL("started", C_TEXT, started),
    COL("finished", C_TEXT, finished),
    COL("error", C_ERROR, error_text),
};
#undef COL
#define N_COLUMNS (sizeof columns / sizeof columns[0])

/* An optional provenance field is a column when some entry knows it. */
static bool prov_column(const eb_results *r, int k)
{
    if (!eb_prov_field_get(k)->optional)
        return true;
    for (int i = 0; i < r->n_entries; i++) {
        char v[192];
        eb_prov_format(eb_entry_prov(&r->entries[i]), k, v, sizeof v);
        if (v[0])
            return true;
    }
    return false;
}

void eb_results_to_csv(const eb_results *r, eb_buf *out)
{
    bool opt[128] = {false};
    for (int k = 0; k < eb_prov_n_fields() && k < 128; k++)
        opt[k] = eb_prov_field_get(k)->optional && prov_column(r, k);
    for (size_t c = 0; c < N_COLUMNS; c++) {
        if (c)
            eb_buf_append_byte(out, ',');
        csv_text(out, columns[c].name);
    }
    for (int k = 0; k < eb_prov_n_fields(); k++) {
        if (eb_prov_field_get(k)->optional)
            continue;
        eb_buf_append(out, ",prov_", 6);
        csv_text(out, eb_prov_field_get(k)->key);
    }
    /* columns added later come after the provenance ones: existing columns keep their place */
    eb_buf_append(out, ",interval_loss_pct", 18);
    for (int k = 0; k < eb_prov_n_fields() && k < 128; k++)
        if (opt[k]) {
            eb_buf_append(out, ",prov_", 6);
            csv_text(out, eb_prov_field_get(k)->key);
        }
    eb_buf_append(out, "\r\n", 2);
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        const char *base = (const char *)e;
        for (size_t c = 0; c < N_COLUMNS; c++) {
            if (c)
                eb_buf_append_byte(out, ',');
            const void *f = base + columns[c].off;
            switch (columns[c].kind) {
            case C_TEXT: csv_text(out, (const char *)f); break;
            case C_ERROR: csv_text(out, eb_entry_error(e)); break;
            case C_NUM: { double v; memcpy(&v, f, sizeof v); csv_num(out, v); break; }
            case C_LONG: { long v; memcpy(&v, f, sizeof v); csv_long(out, v); break; }
            case C_INT: { int v; memcpy(&v, f, sizeof v); eb_buf_printf(out, "%d", v); break; }
            case C_TEST: {
                int v; memcpy(&v, f, sizeof v);
                const char *n = eb_test_name(v);
                csv_text(out, n ? n : "");
                break;
            }
            }
        }
        /* provenance columns, appended after the fixed ones (prov_<key>) */
        for (int k = 0; k < eb_prov_n_fields(); k++) {
            if (eb_prov_field_get(k)->optional)
                continue;
            char v[192];
            eb_prov_format(eb_entry_prov(e), k, v, sizeof v);
            eb_buf_append_byte(out, ',');
            csv_text(out, v);
        }
        eb_buf_append_byte(out, ',');
        csv_num(out, e->interval_loss_pct);
        for (int k = 0; k < eb_prov_n_fields() && k < 128; k++)
            if (opt[k]) {
                char v[192];
                eb_prov_format(eb_entry_prov(e), k, v, sizeof v);
                eb_buf_append_byte(out, ',');
                csv_text(out, v);
            }
        eb_buf_append(out, "\r\n", 2);
    }
}
