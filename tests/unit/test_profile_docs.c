/* Every figure of the docs' rank tables (fixture: the tables as text) equals
 * the shipped profile's value, and each docs table is exactly one tier group
 * in the docs' column order. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "espbench/formats/profile.h"
#include "espbench/adapters/profile_dirs.h"

static const struct {
    const char *label, *name;
} ranks[] = {
    {"Iperf", "iperf"},     {"TX prior", "tx-prior"},           {"High-performance", "high-performance"},
    {"RX prior", "rx-prior"}, {"Default", "default"},            {"Memory saving", "memory-saving"},
    {"Minimum", "minimum"},
};

static const char *rank_name(const char *label)
{
    for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++)
        if (!strcmp(ranks[i].label, label))
            return ranks[i].name;
    fail_msg("unknown rank '%s'", label);
    return NULL;
}

static char *trim(char *s)
{
    while (*s == ' ')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

static int split(char *vals, char **out, int max)
{
    int n = 0;
    for (char *tok = strtok(vals, "|"); tok && n < max; tok = strtok(NULL, "|"))
        out[n++] = trim(tok);
    return n;
}

typedef struct table_state {
    char key[64];            /* chip + tier prefix */
    const eb_chip *chip;
    const eb_tier *tiers[8];
    int n;
} table_state;

static void check_row(const table_state *ts, const char *row, char **vals, int n, int *checked)
{
    assert_int_equal(n, ts->n);
    int field = -1, test = -1;
    bool avail = !strcmp(row, "Available memory (KB)");
    for (int f = 0; f < EB_F_COUNT && !avail; f++)
        if (!strcmp(eb_field_desc_get(f)->label, row))
            field = f;
    for (int t = 0; t < EB_TEST_COUNT; t++)
        if (!strcmp(eb_test_docs_label(t), row))
            test = t;
    if (!avail && field < 0 && test < 0)
        fail_msg("%s: docs row '%s' has no field", ts->key, row);
    for (int i = 0; i < n; i++) {
        const eb_tier *t = ts->tiers[i];
        if (avail || test >= 0) {
            double want = strtod(vals[i], NULL);
            double got = avail ? t->ref_avail_kb : t->ref_mbps[test];
            if (!(fabs(got - want) < 1e-9))
                fail_msg("%s/%s %s: profile %g, docs %s", ts->chip->name, t->name, row, got, vals[i]);
        } else {
            int want;
            if (!strcmp(vals[i], "ENABLE"))
                want = 1;
            else if (!strcmp(vals[i], "DISABLE") || !strcmp(vals[i], "Disable"))
                want = 0;
            else
                want = atoi(vals[i]);
            if (!t->set[field] || t->value[field] != want)
                fail_msg("%s/%s %s: profile %s%d, docs %s", ts->chip->name, t->name, row,
                         t->set[field] ? "" : "(unset) ", t->value[field], vals[i]);
        }
        (*checked)++;
    }
}

static void test_docs_tables_match_profiles(void **state)
{
    (void)state;
    const char *dirs[] = {SOURCE_DIR "/profiles"};
    eb_profiles p;
    eb_error err;
    eb_error_clear(&err);
    if (eb_profiles_load(&p, dirs, 1, &err))
        fail_msg("%s", err.msg);
    FILE *f = fopen(FIXTURES_DIR "/profiles/docs-rank-tables.txt", "r");
    assert_non_null(f);
    char line[1024];
    table_state ts = {0};
    int checked = 0, tables = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char *s = line;
        bool psram = !strncmp(s, "PSRAM ", 6);
        if (psram)
            s += 6;
        char chip[24];
        int used = 0;
        assert_int_equal(sscanf(s, "[%23[^]]]%n", chip, &used), 1);
        s = trim(s + used);
        char prefix[32] = "";
        if (psram) {
            int lines = 0;
            if (sscanf(s, "**PSRAM with %d lines:**%n", &lines, &used) == 1) {
                s = trim(s + used);
                snprintf(prefix, sizeof prefix, "psram-%s-", lines == 8 ? "oct" : "quad");
            } else {
                snprintf(prefix, sizeof prefix, "psram-");
            }
        }
        char *colon = strstr(s, ": ");
        assert_non_null(colon);
        *colon = '\0';
        char *row = s, *vals[8];
        int n = split(colon + 2, vals, 8);
        if (!strcmp(row, "Rank")) {
            memset(&ts, 0, sizeof ts);
            snprintf(ts.key, sizeof ts.key, "%s/%s", chip, prefix);
            ts.chip = eb_profiles_chip(&p, chip);
            if (!ts.chip)
                fail_msg("no profile for %s", chip);
            for (int i = 0; i < n; i++) {
                char name[64];
                snprintf(name, sizeof name, "%s%s", prefix, rank_name(vals[i]));
                ts.tiers[i] = eb_chip_tier(ts.chip, name);
                if (!ts.tiers[i])
                    fail_msg("%s has no tier %s", chip, name);
                assert_string_equal(ts.tiers[i]->label, vals[i]);
                assert_int_equal(ts.tiers[i]->psram, psram);
                /* Docs' column order = profile order. */
                if (i > 0)
                    assert_true(ts.tiers[i] > ts.tiers[i - 1]);
            }
            ts.n = n;
            tables++;
            continue;
        }
        check_row(&ts, row, vals, n, &checked);
    }
    fclose(f);
    assert_int_equal(tables, 10);
    assert_true(checked > 600);

    /* Each chip with docs tables has no tiers beyond them. */
    static const struct {
        const char *chip;
        int tiers;
    } counts[] = {{"esp32", 11}, {"esp32s2", 9}, {"esp32s3", 11},
                  {"esp32c2", 3}, {"esp32c3", 3}, {"esp32c6", 3}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        assert_int_equal(eb_profiles_chip(&p, counts[i].chip)->n_tiers, counts[i].tiers);
    eb_profiles_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docs_tables_match_profiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
