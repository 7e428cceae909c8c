/* The dialect table: the rows of the files of profiles/dialects/ (compiled in) and
 * of the profile directories' dialects/ (dialect_load.c), and the lookups
 * every module uses. Rows are published once and never changed or freed, so
 * a reader holds a row without a lock; a replaced row stays in the pool. */
#include "espbench/formats/dialect.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dialect_table.h"

/* The names of the built-in ids, whose grammar and behaviour code knows
 * (board_parse.c, drv_stock.c, vb_dialect_stock.c). Their facts are YAML. */
static const char *const builtin_names[EB_DIALECT_COUNT] = {
    [EB_DIALECT_IDF_LEGACY] = "idf-legacy",       [EB_DIALECT_ESP8266] = "esp8266",
    [EB_DIALECT_IDF_V44] = "idf-v4.4",            [EB_DIALECT_IDF_V51] = "idf-v5.1",
    [EB_DIALECT_IPERF_CMD_01] = "iperf-cmd-0.1",  [EB_DIALECT_IPERF_CMD_10] = "iperf-cmd-1.0",
    [EB_DIALECT_ESPBENCH] = "espbench",
};

/* Room for every id once plus as many replacements. */
#define POOL_MAX (2 * EB_DIALECT_MAX)

static eb_dialect_row pool[POOL_MAX];
static int n_pool;
static _Atomic(const eb_dialect_desc *) table[EB_DIALECT_MAX];
static atomic_int n_ids = EB_DIALECT_COUNT;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static eb_error builtin_err;
static int builtin_rc;

static void load_builtin(void)
{
    builtin_rc = eb_dialect_load_builtin(&builtin_err);
}

static void ensure_table(void)
{
    pthread_once(&table_once, load_builtin);
}

int eb_dialects_builtin_status(eb_error *err)
{
    ensure_table();
    if (builtin_rc && err)
        *err = builtin_err;
    return builtin_rc;
}

int eb_dialect_builtin_id(const char *name)
{
    for (int d = 0; name && d < EB_DIALECT_COUNT; d++)
        if (!strcmp(builtin_names[d], name))
            return d;
    return EB_DIALECT_UNKNOWN;
}

const char *eb_dialect_builtin_name(int id)
{
    return id >= 0 && id < EB_DIALECT_COUNT ? builtin_names[id] : "unknown";
}

void eb_dialect_row_link(eb_dialect_row *r)
{
    r->d.name = r->name;
    r->d.connect_cmd = r->connect;
    r->d.scan_cmd = r->scan;
    r->d.abort_cmd = r->abort_cmd;
    r->d.bw_fmt = r->bw[0] ? r->bw : NULL;
    r->d.file = r->file;
    int n = 0;
    for (; n < EB_DIALECT_PROMPTS_MAX && r->prompts[n][0]; n++)
        r->prompt_ptrs[n] = r->prompts[n];
    r->prompt_ptrs[n] = NULL;
    r->d.prompts = r->prompt_ptrs;
}

static bool same_row(const eb_dialect_desc *a, const eb_dialect_desc *b)
{
    if (a->grammar != b->grammar || a->mbit_base != b->mbit_base || a->idf_from != b->idf_from ||
        a->idf_to != b->idf_to || strcmp(a->name, b->name) || strcmp(a->connect_cmd, b->connect_cmd) ||
        strcmp(a->scan_cmd, b->scan_cmd) || strcmp(a->abort_cmd, b->abort_cmd) ||
        strcmp(a->bw_fmt ? a->bw_fmt : "", b->bw_fmt ? b->bw_fmt : "") || a->bw_integer != b->bw_integer ||
        a->udp_echo_port != b->udp_echo_port || a->time_max_s != b->time_max_s ||
        a->interval_max_s != b->interval_max_s)
        return false;
    int i = 0;
    for (; a->prompts[i] && b->prompts[i]; i++)
        if (strcmp(a->prompts[i], b->prompts[i]))
            return false;
    return !a->prompts[i] && !b->prompts[i];
}

static int find_locked(const char *name, int n)
{
    for (int d = 0; d < n; d++) {
        const eb_dialect_desc *r = atomic_load(&table[d]);
        if (r && !strcmp(r->name, name))
            return d;
    }
    return EB_DIALECT_UNKNOWN;
}

const eb_dialect_desc *eb_dialect_table_find(const char *name)
{
    pthread_mutex_lock(&table_lock);
    int d = find_locked(name, atomic_load(&n_ids));
    const eb_dialect_desc *r = d == EB_DIALECT_UNKNOWN ? NULL : atomic_load(&table[d]);
    pthread_mutex_unlock(&table_lock);
    return r;
}

int eb_dialect_table_commit(const eb_dialect_row *rows, int n, eb_error *err)
{
    pthread_mutex_lock(&table_lock);
    int ids = atomic_load(&n_ids);
    /* Room first, so that nothing is added when something cannot be. */
    int new_ids = 0, new_rows = 0;
    for (int i = 0; i < n; i++) {
        int id = find_locked(rows[i].name, ids);
        if (id == EB_DIALECT_UNKNOWN && eb_dialect_builtin_id(rows[i].name) == EB_DIALECT_UNKNOWN)
            new_ids++;
        if (id == EB_DIALECT_UNKNOWN || !same_row(atomic_load(&table[id]), &rows[i].d))
            new_rows++;
    }
    if (ids + new_ids > EB_DIALECT_MAX || n_pool + new_rows > POOL_MAX) {
        pthread_mutex_unlock(&table_lock);
        return eb_fail(err, EB_ECONFIG, "%s: too many console dialects (at most %d, replacements included)",
                       n ? rows[n - 1].file : "dialects", EB_DIALECT_MAX - EB_DIALECT_COUNT);
    }
    for (int i = 0; i < n; i++) {
        int id = find_locked(rows[i].name, ids);
        if (id != EB_DIALECT_UNKNOWN && same_row(atomic_load(&table[id]), &rows[i].d))
            continue;
        if (id == EB_DIALECT_UNKNOWN)
            id = eb_dialect_builtin_id(rows[i].name);
        if (id == EB_DIALECT_UNKNOWN)
            id = ids++;
        eb_dialect_row *r = &pool[n_pool++];
        *r = rows[i];
        eb_dialect_row_link(r);
        r->d.dialect = id;
        if (id < EB_DIALECT_COUNT)
            r->d.grammar = id;
        atomic_store(&table[id], &r->d);
    }
    atomic_store(&n_ids, ids);
    pthread_mutex_unlock(&table_lock);
    return 0;
}

int eb_dialect_count(void)
{
    ensure_table();
    return atomic_load(&n_ids);
}

const eb_dialect_desc *eb_dialect_desc_get(int d)
{
    ensure_table();
    return d < 0 || d >= atomic_load(&n_ids) ? NULL : atomic_load(&table[d]);
}

const char *eb_dialect_name(int d)
{
    const eb_dialect_desc *r = eb_dialect_desc_get(d);
    return r ? r->name : "unknown";
}

int eb_dialect_from_name(const char *name)
{
    if (!name)
        return EB_DIALECT_UNKNOWN;
    int n = eb_dialect_count();
    for (int d = 0; d < n; d++) {
        const eb_dialect_desc *r = atomic_load(&table[d]);
        if (r && !strcmp(r->name, name))
            return d;
    }
    return EB_DIALECT_UNKNOWN;
}

double eb_dialect_mbit_base(int d)
{
    const eb_dialect_desc *r = eb_dialect_desc_get(d);
    return r ? r->mbit_base : 1e6;
}

int eb_dialect_prompts(const char **out, int cap)
{
    int n = 0, ids = eb_dialect_count();
    /* espbench first: "espbench> " is no other prompt's prefix, and the stock
     * prompts follow in table order. */
    for (int pass = 0; pass < 2; pass++)
        for (int d = 0; d < ids; d++) {
            const eb_dialect_desc *r = atomic_load(&table[d]);
            if (!r || (pass == 0) != (d == EB_DIALECT_ESPBENCH))
                continue;
            for (int i = 0; r->prompts[i]; i++) {
                bool seen = false;
                for (int k = 0; k < n; k++)
                    seen = seen || !strcmp(out[k], r->prompts[i]);
                if (!seen && n < cap - 1)
                    out[n++] = r->prompts[i];
            }
        }
    if (cap > 0)
        out[n] = NULL;
    return n;
}

int eb_dialect_from_app(const char *project_name, const char *idf_version, const char *chip)
{
    if (project_name && strcmp(project_name, "espbench") == 0)
        return EB_DIALECT_ESPBENCH;
    if (chip && strcmp(chip, "esp8266") == 0)
        return EB_DIALECT_ESP8266;
    if (!idf_version)
        return EB_DIALECT_UNKNOWN;
    const char *v = idf_version;
    if (*v == 'v' || *v == 'V')
        v++;
    /* The version comes from a log or an image and may hold any digits:
     * clamp before major*100+minor so that nothing overflows. */
    char *end;
    long major = strtol(v, &end, 10);
    if (end == v || major < 0)
        return EB_DIALECT_UNKNOWN;
    long minor = *end == '.' ? strtol(end + 1, NULL, 10) : 0;
    if (major > 999)
        major = 999;
    if (minor < 0)
        minor = 0;
    if (minor > 99)
        minor = 99;
    int key = (int)(major * 100 + minor);
    int best = EB_DIALECT_UNKNOWN, best_width = 0, n = eb_dialect_count();
    for (int d = 0; d < n; d++) {
        const eb_dialect_desc *r = atomic_load(&table[d]);
        if (!r || r->idf_to <= 0 || key < r->idf_from || key > r->idf_to)
            continue;
        int width = r->idf_to - r->idf_from;
        if (best == EB_DIALECT_UNKNOWN || width <= best_width) {
            best = d;
            best_width = width;
        }
    }
    return best;
}

int eb_dialect_check_timing(int dialect, double duration_s, double interval_s, const char *label, eb_error *err)
{
    const eb_dialect_desc *r = eb_dialect_desc_get(dialect);
    if (!r)
        return 0;
    const char *file = r->file ? r->file : "its dialect row";
    if (r->time_max_s > 0 && duration_s > r->time_max_s)
        return eb_fail(err, EB_ECONFIG,
                       "%s%s--duration %g s is more than the %s firmware's iperf takes (-t at most %.10g s, %s); shorten "
                       "--duration",
                       label ? label : "", label ? ": " : "", duration_s, r->name, r->time_max_s, file);
    if (r->interval_max_s > 0 && interval_s > r->interval_max_s)
        return eb_fail(err, EB_ECONFIG,
                       "%s%s--interval %g s is more than the %s firmware's iperf takes (-i at most %.10g s, %s); shorten "
                       "--interval",
                       label ? label : "", label ? ": " : "", interval_s, r->name, r->interval_max_s, file);
    return 0;
}
