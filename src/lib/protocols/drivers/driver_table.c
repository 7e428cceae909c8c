/* The table of console drivers, dialect detection, and helpers the drivers share. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers.h"
#include "espbench/formats/board_parse.h"
#include "espbench/formats/dialect.h"

void eb_board_run_reset(eb_board_run *r)
{
    free(r->iv);
    memset(r, 0, sizeof *r);
    r->summary_mbps = NAN;
}

void eb_board_run_free(eb_board_run *r)
{
    free(r->iv);
    r->iv = NULL;
    r->n = r->cap = 0;
}

void eb_board_run_add(eb_board_run *r, double start_s, double end_s, double bytes, double mbps,
                      double jitter_ms, long lost, long total)
{
    if (r->n == r->cap) {
        int cap = r->cap ? r->cap * 2 : 64;
        eb_interval *p = realloc(r->iv, sizeof *p * (size_t)cap);
        if (!p)
            abort();
        r->iv = p;
        r->cap = cap;
    }
    eb_interval *iv = &r->iv[r->n++];
    iv->start_s = start_s;
    iv->end_s = end_s;
    iv->mbps = mbps;
    iv->bytes = bytes >= 0 ? bytes : mbps * 1e6 / 8 * (end_s - start_s);
    iv->jitter_ms = jitter_ms;
    iv->lost = lost;
    iv->total = total;
}

int eb_board_is_summary(double start_s, double end_s, double interval_s)
{
    return start_s < 1e-9 && end_s - start_s > 1.5 * interval_s;
}

struct expect_ctx {
    eb_console *c;
    const char *const *needles;
    char *line;
    size_t cap;
    void (*on_line)(void *u, const char *line);
    void *u;
    const char *what;
    int *index;
};

static int expect_event(void *u, int ev, const char *line, eb_error *err)
{
    struct expect_ctx *x = u;
    if (ev == EB_CON_TIMEOUT)
        return eb_fail(err, EB_EIO, "console %s: no %s before the deadline", eb_console_port(x->c)->url, x->what);
    if (ev != EB_CON_LINE)
        return 0;
    snprintf(x->line, x->cap, "%s", line);
    for (int i = 0; x->needles[i]; i++) {
        if (strstr(line, x->needles[i])) {
            if (x->index)
                *x->index = i;
            return EB_CON_DONE;
        }
    }
    if (x->on_line)
        x->on_line(x->u, line);
    return 0;
}

int eb_drv_expect(eb_console *c, const char *const *needles, char *line, size_t cap,
                  void (*on_line)(void *u, const char *line), void *u, const char *what,
                  eb_deadline d, eb_error *err, int *index)
{
    struct expect_ctx x = {c, needles, line, cap, on_line, u, what, index};
    char doing[128];
    snprintf(doing, sizeof doing, "waiting for %s", what);
    eb_console_wait wait = {.boots = eb_console_boot(c)->boots, .doing = doing, .on_event = expect_event, .u = &x};
    return eb_console_wait_for(c, &wait, d, err);
}

const eb_console_driver *eb_console_driver_get(int dialect)
{
    if (dialect == eb_driver_espbench.dialect)
        return &eb_driver_espbench;
    return eb_driver_stock_get(dialect);
}

const eb_console_driver *eb_console_driver_by_name(const char *name)
{
    int d = eb_dialect_from_name(name);
    return d == EB_DIALECT_UNKNOWN ? NULL : eb_console_driver_get(d);
}

int eb_console_guess_dialect(const eb_console_boot_info *b, const char *prompt_seen)
{
    /* The boot facts and the prompt go to the one detector (board_parse.h)
     * that `parse` uses for whole logs. */
    eb_board_detect d;
    eb_board_detect_init(&d);
    snprintf(d.project, sizeof d.project, "%s", b->project);
    snprintf(d.idf, sizeof d.idf, "%.31s", b->idf_version);
    snprintf(d.chip, sizeof d.chip, "%s", b->chip);
    d.esp8266 = !strcmp(b->chip, "esp8266");
    if (prompt_seen)
        eb_board_detect_line(&d, prompt_seen, strlen(prompt_seen));
    char why[256];
    return eb_board_detect_result(&d, why, sizeof why);
}

/* "IDF Version:v5.3.1-dirty" (cmd_system `version`) or "idf=v5.3" (#EB:OK). */
static void idf_from_version_line(const char *line, char *out, size_t cap)
{
    const char *p = strstr(line, "IDF Version:");
    if (p)
        p += strlen("IDF Version:");
    else if ((p = strstr(line, "idf=")) != NULL)
        p += 4;
    else
        return;
    p += strspn(p, " ");
    size_t n = strcspn(p, " ,");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, p, n);
    out[n] = 0;
}

int eb_console_detect(eb_console *c, const char *chip, const eb_console_driver **out,
                      eb_deadline d, eb_error *err)
{
    char line[EB_CONSOLE_LINE_MAX];
    char prompt[32] = "";
    eb_console_set_prompts(c, NULL);
    /* Sync on any known prompt, remembering which one answered. */
    while (!prompt[0]) {
        if (eb_deadline_passed(d)) {
            /* the prompts of every row of the dialect table */
            const char *ps[16];
            char list[256] = "";
            for (int i = 0, n = eb_dialect_prompts(ps, 16); i < n; i++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%.*s", i ? ", " : "",
                         (int)strcspn(ps[i], " "), ps[i]);
            return eb_fail(err, EB_EIO,
                           "console %s: no console prompt (%s) before the deadline; is the application "
                           "flashed and the console on this port?",
                           eb_console_port(c)->url, list);
        }
        int rc = eb_console_send(c, "", d, err);
        if (rc)
            return rc;
        eb_deadline step = eb_deadline_in(1000);
        if (step > d)
            step = d;
        int ev;
        while ((ev = eb_console_next(c, line, sizeof line, step, err)) > 0) {
            if (ev == EB_CON_PROMPT) {
                snprintf(prompt, sizeof prompt, "%.31s", line);
                break;
            }
        }
        if (ev < 0)
            return -ev;
    }
    /* Let the other empty lines' prompts go by. */
    int ev;
    while ((ev = eb_console_next(c, line, sizeof line, eb_deadline_in(100), err)) > 0)
        ;
    if (ev < 0)
        return -ev;
    eb_console_boot_info b = *eb_console_boot(c);
    if (chip && !b.chip[0])
        snprintf(b.chip, sizeof b.chip, "%s", chip);
    int dialect = eb_console_guess_dialect(&b, prompt);
    /* The boot log went by before we listened (the board booted while another
     * program held the port, or long ago): ask the firmware. The espbench
     * firmware's driver asks its own `version` (identify). */
    if (dialect == EB_DIALECT_UNKNOWN || (dialect != EB_DIALECT_ESPBENCH && !b.idf_version[0])) {
        int rc = eb_console_send(c, "version", d, err);
        if (rc)
            return rc;
        char idf[33] = "";
        eb_deadline vd = eb_deadline_in(2000);
        if (vd > d)
            vd = d;
        while ((ev = eb_console_next(c, line, sizeof line, vd, err)) > 0) {
            if (ev == EB_CON_PROMPT)
                break;
            idf_from_version_line(line, idf, sizeof idf);
        }
        if (ev < 0)
            return -ev;
        if (idf[0]) {
            /* Kept with the boot information, so the results name the IDF. */
            eb_console_note_app(c, NULL, NULL, idf);
            snprintf(b.idf_version, sizeof b.idf_version, "%s", idf);
            int v = eb_dialect_from_app(b.project, idf, b.chip);
            if (v != EB_DIALECT_UNKNOWN)
                dialect = v;
        }
    }
    const eb_console_driver *drv = eb_console_driver_get(dialect);
    if (!drv)
        return eb_fail(err, EB_EIO,
                       "console %s: cannot tell which firmware answers (prompt '%s', project '%s', "
                       "IDF '%s'); pass --dialect NAME",
                       eb_console_port(c)->url, prompt, b.project, b.idf_version);
    eb_console_set_prompts(c, drv->prompts);
    *out = drv;
    return 0;
}
