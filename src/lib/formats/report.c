/* `espbench report`'s entry point: picks the renderer for a format. It sits
 * above the renderers (report_rst/md/html.c), which share only the helpers in
 * report_common.c, so no renderer depends on another or on this file. */
#include <stdio.h>
#include <string.h>

#include "espbench/formats/report.h"
#include "espbench/formats/results.h"
#include "report_internal.h"

int eb_report_render(const eb_results *r, const eb_profiles *p, int format, const eb_report_opts *o, eb_buf *out,
                     eb_error *err)
{
    switch (format) {
    case EB_RF_RST: return eb_report_rst(r, p, o, out, err);
    case EB_RF_MD: return eb_report_md(r, p, o, out, err);
    case EB_RF_HTML: return eb_report_html(r, p, o, out, err);
    case EB_RF_CSV:
    case EB_RF_JSON: {
        /* The matrix itself, filtered by chip. */
        eb_results sub;
        eb_results_init(&sub);
        snprintf(sub.espbench_version, sizeof sub.espbench_version, "%s", r->espbench_version);
        snprintf(sub.generated, sizeof sub.generated, "%s", r->generated);
        for (int i = 0; i < r->n_entries; i++)
            if (!o->chip || strcmp(o->chip, r->entries[i].chip) == 0)
                eb_results_add(&sub, &r->entries[i]);
        for (int i = 0; i < r->n_boards; i++)
            if (!o->chip || strcmp(o->chip, r->boards[i].chip) == 0 || !r->boards[i].chip[0])
                *eb_results_board(&sub, r->boards[i].board, true) = r->boards[i];
        if (o->chip && sub.n_entries == 0) {
            eb_results_free(&sub);
            return eb_fail(err, EB_ECONFIG, "no results for chip '%s' in the input", o->chip);
        }
        const char *vers[REP_MAX_IDF];
        if (format == EB_RF_CSV) {
            eb_results_to_csv(&sub, out);
        } else if (rep_idf_section_versions(r, o, vers, REP_MAX_IDF)) {
            /* The results JSON with the IDF matrix as one more key, before
             * its closing brace (a file of one IDF stays as it was). */
            eb_buf json;
            eb_buf_init(&json);
            eb_results_to_json(&sub, &json);
            size_t end = json.len;
            while (end > 0 && json.data[end - 1] != '}')
                end--;
            if (end > 0)
                end--;
            eb_buf_append(out, json.data, end);
            while (out->len > 0 && (out->data[out->len - 1] == '\n' || out->data[out->len - 1] == '\t'))
                out->len--;
            eb_buf_printf(out, ",\n\t\"idf_matrix\":\t");
            rep_idf_json(r, p, o, out);
            eb_buf_printf(out, "\n}\n");
            eb_buf_free(&json);
        } else {
            eb_results_to_json(&sub, out);
        }
        eb_results_free(&sub);
        return 0;
    }
    default: return eb_fail(err, EB_ECONFIG, "unknown report format %d", format);
    }
}
