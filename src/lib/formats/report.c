/* `espbench report`'s entry point: picks the renderer for a format. It sits
 * above the renderers (report_rst/md/html.c), which share only the helpers in
 * report_common.c, so no renderer depends on another or on this file. */
#include <stdio.h>
#include <string.h>

#include "espbench/formats/report.h"
#include "espbench/formats/results.h"

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
        if (format == EB_RF_CSV)
            eb_results_to_csv(&sub, out);
        else
            eb_results_to_json(&sub, out);
        eb_results_free(&sub);
        return 0;
    }
    default: return eb_fail(err, EB_ECONFIG, "unknown report format %d", format);
    }
}
