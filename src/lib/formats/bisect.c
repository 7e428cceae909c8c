/* Bisection over a commit range (bisect.h): the next commit, the verdict on
 * repeats, the journal. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "espbench/formats/bisect.h"
#include "json_writer.h"
#include "espbench/formats/stats.h"

static const char *const mark_names[] = {"untested", "good", "bad", "skip"};

const char *eb_bisect_mark_name(int mark)
{
    return mark >= 0 && mark <= EB_BISECT_SKIP ? mark_names[mark] : "?";
}

static int mark_from_name(const char *s)
{
    for (int i = 0; i <= EB_BISECT_SKIP; i++)
        if (!strcmp(s, mark_names[i]))
            return i;
    return -1;
}

int eb_bisect_next(const int *marks, int n, int *first_bad, int *amb_lo, int *amb_hi)
{
    /* lo: the last good commit; hi: the first bad one after it. */
    int lo = 0, hi = n - 1;
    for (int i = 0; i < n; i++)
        if (marks[i] == EB_BISECT_GOOD)
            lo = i;
    for (int i = n - 1; i > lo; i--)
        if (marks[i] == EB_BISECT_BAD)
            hi = i;
    *first_bad = -1;
    *amb_lo = *amb_hi = -1;
    int mid = lo + (hi - lo) / 2;
    /* The untested commit nearest the middle (ties: the older one). */
    for (int d = 0; d <= hi - lo; d++) {
        int c[2] = {mid - d, mid + d};
        for (int k = 0; k < 2; k++)
            if (c[k] > lo && c[k] < hi && marks[c[k]] == EB_BISECT_UNTESTED)
                return c[k];
    }
    if (hi == lo + 1 || hi <= lo)
        *first_bad = hi;
    else {
        *amb_lo = lo + 1; /* every commit between is skipped: any of them, or hi */
        *amb_hi = hi;
    }
    return -1;
}

int eb_bisect_verdict(const double *good, int n_good, const double *cur, int n_cur, double threshold_pct,
                      bool *clear)
{
    eb_sample_stats g, c;
    eb_sample_stats_compute(good, n_good, &g);
    eb_sample_stats_compute(cur, n_cur, &c);
    double rel = g.mean > 0 ? (c.mean - g.mean) / g.mean * 100.0 : 0;
    eb_welch w;
    eb_welch_interval(&g, &c, 0.95, &w);
    *clear = true;
    if (w.verdict == EB_VERDICT_WORSE && rel <= -threshold_pct)
        return EB_BISECT_BAD;
    if ((w.verdict == EB_VERDICT_NOISE || w.verdict == EB_VERDICT_BETTER) && rel > -threshold_pct)
        return EB_BISECT_GOOD;
    if (w.verdict == EB_VERDICT_WORSE && rel > -threshold_pct / 2)
        return EB_BISECT_GOOD; /* a real but small change: under the threshold asked about */
    *clear = false;
    return rel <= -threshold_pct ? EB_BISECT_BAD : EB_BISECT_GOOD;
}

void eb_bisect_journal_free(eb_bisect_journal *j)
{
    free(j->steps);
    j->steps = NULL;
    j->n_steps = j->cap = 0;
}

eb_bisect_step *eb_bisect_journal_add(eb_bisect_journal *j)
{
    if (j->n_steps == j->cap) {
        int cap = j->cap ? j->cap * 2 : 16;
        eb_bisect_step *s = realloc(j->steps, (size_t)cap * sizeof *s);
        if (!s)
            return NULL;
        j->steps = s;
        j->cap = cap;
    }
    eb_bisect_step *s = &j->steps[j->n_steps++];
    memset(s, 0, sizeof *s);
    return s;
}

const eb_bisect_step *eb_bisect_journal_find(const eb_bisect_journal *j, const char *commit)
{
    for (int i = 0; i < j->n_steps; i++)
        if (!strcmp(j->steps[i].commit, commit))
            return &j->steps[i];
    return NULL;
}

void eb_bisect_journal_to_json(const eb_bisect_journal *j, eb_buf *out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "espbench_bisect", "1");
    cJSON_AddStringToObject(root, "good", j->good);
    cJSON_AddStringToObject(root, "bad", j->bad);
    cJSON_AddStringToObject(root, "chip", j->chip);
    cJSON_AddStringToObject(root, "tier", j->tier);
    cJSON_AddStringToObject(root, "test", j->test);
    cJSON_AddNumberToObject(root, "threshold_pct", j->threshold_pct);
    cJSON *steps = cJSON_AddArrayToObject(root, "steps");
    for (int i = 0; i < j->n_steps; i++) {
        const eb_bisect_step *s = &j->steps[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "commit", s->commit);
        cJSON_AddStringToObject(o, "version", s->version);
        cJSON_AddStringToObject(o, "verdict", eb_bisect_mark_name(s->mark));
        cJSON_AddBoolToObject(o, "unclear", s->unclear);
        cJSON *m = cJSON_AddArrayToObject(o, "mbps");
        for (int k = 0; k < s->n; k++)
            cJSON_AddItemToArray(m, cJSON_CreateNumber(round(s->mbps[k] * 1000) / 1000));
        cJSON_AddItemToArray(steps, o);
    }
    char *txt = cJSON_Print(root);
    if (txt) {
        size_t from = out->len; /* a tag read from git may hold any byte */
        eb_buf_printf(out, "%s\n", txt);
        eb_utf8_fix_from(out, from);
        free(txt);
    }
    cJSON_Delete(root);
}

static int get_str(const cJSON *o, const char *key, char *dst, size_t cap, const char *name, const char *where,
                   eb_error *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= cap)
        return eb_fail(err, EB_ECONFIG, "%s: %s'%s' missing or not a string of at most %zu characters", name,
                       where, key, cap - 1);
    snprintf(dst, cap, "%s", v->valuestring);
    return 0;
}

int eb_bisect_journal_parse(const char *text, size_t len, const char *name, eb_bisect_journal *j, eb_error *err)
{
    memset(j, 0, sizeof *j);
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root)
        return eb_fail(err, EB_ECONFIG, "%s: not a JSON bisect journal; delete it to start the bisect afresh", name);
    int rc = 0;
    const cJSON *tag = cJSON_GetObjectItemCaseSensitive(root, "espbench_bisect");
    const cJSON *thr = cJSON_GetObjectItemCaseSensitive(root, "threshold_pct");
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(root, "steps");
    if (!cJSON_IsString(tag) || strcmp(tag->valuestring, "1"))
        rc = eb_fail(err, EB_ECONFIG, "%s: not an espbench bisect journal (no \"espbench_bisect\": \"1\")", name);
    else if ((rc = get_str(root, "good", j->good, sizeof j->good, name, "", err)) ||
             (rc = get_str(root, "bad", j->bad, sizeof j->bad, name, "", err)) ||
             (rc = get_str(root, "chip", j->chip, sizeof j->chip, name, "", err)) ||
             (rc = get_str(root, "tier", j->tier, sizeof j->tier, name, "", err)) ||
             (rc = get_str(root, "test", j->test, sizeof j->test, name, "", err)))
        ;
    else if (!cJSON_IsNumber(thr) || !cJSON_IsArray(steps))
        rc = eb_fail(err, EB_ECONFIG, "%s: 'threshold_pct' or 'steps' missing", name);
    else {
        j->threshold_pct = thr->valuedouble;
        int i = 0;
        const cJSON *o;
        cJSON_ArrayForEach(o, steps)
        {
            char where[32];
            snprintf(where, sizeof where, "step %d: ", i + 1);
            eb_bisect_step *s = eb_bisect_journal_add(j);
            char verdict[16];
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, "mbps");
            if (!s) {
                rc = eb_fail(err, EB_EIO, "%s: out of memory", name);
                break;
            }
            if ((rc = get_str(o, "commit", s->commit, sizeof s->commit, name, where, err)) ||
                (rc = get_str(o, "version", s->version, sizeof s->version, name, where, err)) ||
                (rc = get_str(o, "verdict", verdict, sizeof verdict, name, where, err)))
                break;
            s->mark = mark_from_name(verdict);
            if (s->mark <= EB_BISECT_UNTESTED || !cJSON_IsArray(m) || cJSON_GetArraySize(m) > EB_BISECT_MAX_REPEATS) {
                rc = eb_fail(err, EB_ECONFIG, "%s: %sverdict '%s' or its 'mbps' list is not valid", name, where,
                             verdict);
                break;
            }
            s->unclear = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "unclear"));
            const cJSON *v;
            cJSON_ArrayForEach(v, m) s->mbps[s->n++] = v->valuedouble;
            i++;
        }
    }
    cJSON_Delete(root);
    if (rc)
        eb_bisect_journal_free(j);
    return rc;
}

int eb_bisect_journal_matches(const eb_bisect_journal *j, const eb_bisect_journal *want, const char *name,
                              eb_error *err)
{
    const char *field = strcmp(j->good, want->good)   ? "good"
                        : strcmp(j->bad, want->bad)   ? "bad"
                        : strcmp(j->chip, want->chip) ? "chip"
                        : strcmp(j->tier, want->tier) ? "tier"
                        : strcmp(j->test, want->test) ? "test"
                        : fabs(j->threshold_pct - want->threshold_pct) > 1e-9 ? "threshold"
                                                                               : NULL;
    if (!field)
        return 0;
    return eb_fail(err, EB_ECONFIG,
                   "%s: the journal is of another bisect (its %s differs); give another --journal or delete it",
                   name, field);
}
