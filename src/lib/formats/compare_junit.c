/* JUnit XML for a comparison, in the xunit1 shape that GitLab
 * (artifacts:reports:junit), GitHub test-report actions and Jenkins' junit
 * step all read: <testsuites><testsuite><testcase classname name time>
 * with <properties> per test case (as pytest's record_property writes them)
 * and <failure message type> on a regression. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/formats/compare.h"
#include "espbench/formats/report.h"
#include "espbench/formats/stats.h"

/* Escapes for both text and attribute values; drops characters XML 1.0 forbids. */
static void xml_text(eb_buf *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&': eb_buf_append(out, "&amp;", 5); break;
        case '<': eb_buf_append(out, "&lt;", 4); break;
        case '>': eb_buf_append(out, "&gt;", 4); break;
        case '"': eb_buf_append(out, "&quot;", 6); break;
        case '\'': eb_buf_append(out, "&apos;", 6); break;
        case '\n': eb_buf_append(out, "&#10;", 5); break;
        case '\t': eb_buf_append(out, "&#9;", 4); break;
        case '\r': eb_buf_append(out, "&#13;", 5); break;
        default:
            if (*p >= 0x20)
                eb_buf_append_byte(out, *p);
        }
    }
}

static void property(eb_buf *out, const char *name, double v, const char *fmt)
{
    eb_buf_printf(out, "        <property name=\"%s\" value=\"", name);
    if (isfinite(v))
        eb_buf_printf(out, fmt, v);
    eb_buf_append(out, "\"/>\n", 4);
}

static void failure_message(const eb_compare *c, const eb_compare_row *r, char *msg, size_t size)
{
    switch (r->status) {
    case EB_CMP_REGRESSED:
        snprintf(msg, size, "%s %s %s dropped %.1f %% (%.2f -> %.2f Mbit/s; allowed %.1f %%); verdict %s%s", r->chip,
                 r->tier, eb_test_name(r->test), -r->diff_pct, r->baseline, r->current, c->opts.max_drop_pct,
                 eb_verdict_name(r->verdict), c->opts.significant ? " (significance required)" : "");
        break;
    case EB_CMP_FAILED:
        snprintf(msg, size, "%s %s %s failed: %s", r->chip, r->tier, eb_test_name(r->test), r->error);
        break;
    case EB_CMP_MISSING:
        snprintf(msg, size, "%s %s %s is in the baseline but missing from the current results", r->chip, r->tier,
                 eb_test_name(r->test));
        break;
    default: msg[0] = '\0';
    }
}

void eb_compare_junit(const eb_compare *c, eb_buf *out)
{
    int skipped = 0;
    for (int i = 0; i < c->n_rows; i++)
        skipped += c->rows[i].status == EB_CMP_NEW;
    eb_buf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    eb_buf_printf(out, "<testsuites name=\"espbench\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\">\n",
                  c->n_rows, c->n_failed, skipped);
    eb_buf_printf(out, "  <testsuite name=\"espbench.compare\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"%d\" "
                       "time=\"0\">\n", c->n_rows, c->n_failed, skipped);
    eb_buf_printf(out, "    <properties>\n      <property name=\"baseline\" value=\"");
    xml_text(out, c->baseline_name);
    eb_buf_printf(out, "\"/>\n      <property name=\"current\" value=\"");
    xml_text(out, c->current_name);
    if (c->emulated[0]) /* not hardware: a CI dashboard must not read it as one */
        eb_buf_printf(out, "\"/>\n      <property name=\"emulated\" value=\"%s", c->emulated);
    eb_buf_printf(out, "\"/>\n      <property name=\"statistic\" value=\"%s\"/>\n"
                       "      <property name=\"max_drop_pct\" value=\"%g\"/>\n    </properties>\n",
                  eb_stat_name(c->opts.stat), c->opts.max_drop_pct);
    for (int i = 0; i < c->n_rows; i++) {
        const eb_compare_row *r = &c->rows[i];
        eb_buf_printf(out, "    <testcase classname=\"espbench.");
        xml_text(out, r->chip);
        eb_buf_append_byte(out, '.');
        xml_text(out, r->tier);
        if (r->pair[0]) { /* a board-to-board cell: the peer is part of the name */
            eb_buf_append(out, ".peer.", 6);
            xml_text(out, r->pair);
        }
        if (r->point_label[0]) { /* a point off the defaults: part of the name too */
            eb_buf_append_byte(out, '.');
            xml_text(out, r->point_label);
        }
        eb_buf_printf(out, "\" name=\"%s\" time=\"0\">\n      <properties>\n", eb_test_name(r->test));
        property(out, "baseline_mbps", r->baseline, "%.3f");
        property(out, "current_mbps", r->current, "%.3f");
        property(out, "diff_pct", r->diff_pct, "%.2f");
        property(out, "max_drop_pct", c->opts.max_drop_pct, "%g");
        property(out, "ci_low_mbps", r->ci_lo, "%.3f");
        property(out, "ci_high_mbps", r->ci_hi, "%.3f");
        eb_buf_printf(out, "        <property name=\"verdict\" value=\"%s\"/>\n", eb_verdict_name(r->verdict));
        eb_buf_printf(out, "        <property name=\"sample\" value=\"%d/%d %s\"/>\n", r->n_sample_base,
                      r->n_sample_cur, r->sample_unit ? r->sample_unit : "");
        eb_buf_printf(out, "        <property name=\"status\" value=\"%s\"/>\n      </properties>\n",
                      eb_cmp_status_name(r->status));
        char msg[512];
        failure_message(c, r, msg, sizeof msg);
        if (msg[0]) {
            eb_buf_printf(out, "      <failure type=\"%s\" message=\"", eb_cmp_status_name(r->status));
            xml_text(out, msg);
            eb_buf_append(out, "\">", 2);
            xml_text(out, msg);
            eb_buf_printf(out, "</failure>\n");
        } else if (r->status == EB_CMP_NEW) {
            eb_buf_printf(out, "      <skipped message=\"no baseline figure\"/>\n");
        }
        eb_buf_printf(out, "    </testcase>\n");
    }
    eb_buf_printf(out, "  </testsuite>\n</testsuites>\n");
}
