/* Bisect (formats/bisect.h, jobs/bisect.h): the next commit, verdicts with
 * noise, the journal, and whole bisects over 50 commits through a fake driver
 * (no git, no builds, no boards): the planted regression found in at most
 * ceil(log2 50) + 2 = 8 measured commits (the two ends included), skipped
 * commits stepped around, and a stopped bisect resumed from its journal
 * without measuring a finished commit again. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/base/buf.h"
#include "espbench/formats/bisect.h"
#include "espbench/jobs/bisect.h"

#define N 50

typedef struct fake {
    char hashes[N][41];
    const char *commits[N];
    int bad_at;             /* first slow commit */
    int broken_lo, broken_hi;
    double noise_pct;
    unsigned long long rng;
    int builds[N], measures[N];
    int stop_after;         /* stop once this many commits were measured (0: never) */
    int measured;
    volatile sig_atomic_t stop;
} fake;

static int index_of(fake *f, const char *c)
{
    for (int i = 0; i < N; i++)
        if (!strcmp(f->hashes[i], c))
            return i;
    return -1;
}

static double gauss(fake *f)
{
    double u[2];
    for (int k = 0; k < 2; k++) {
        f->rng = f->rng * 6364136223846793005ULL + 1442695040888963407ULL;
        u[k] = ((f->rng >> 11) + 0.5) / 9007199254740992.0;
    }
    return sqrt(-2 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

static int fake_build(void *user, const char *commit, char *image, size_t cap, char *version, size_t vcap,
                      eb_error *err)
{
    fake *f = user;
    int i = index_of(f, commit);
    f->builds[i]++;
    if (i >= f->broken_lo && i <= f->broken_hi)
        return eb_fail(err, EB_EIO, "build failed"), 1;
    snprintf(image, cap, "img-%d", i);
    snprintf(version, vcap, "v5.3-dev-%d", i);
    return 0;
}

static int fake_measure(void *user, const char *image, int n, double *mbps, eb_error *err)
{
    (void)err;
    fake *f = user;
    int i = atoi(image + 4);
    if (f->measures[i]++ == 0)
        f->measured++;
    double base = i >= f->bad_at ? 80.0 * 0.85 : 80.0;
    for (int k = 0; k < n; k++)
        mbps[k] = base * (1 + f->noise_pct / 100 * gauss(f));
    if (f->stop_after && f->measured >= f->stop_after)
        f->stop = 1;
    return 0;
}

static void fake_init(fake *f, int bad_at)
{
    memset(f, 0, sizeof *f);
    for (int i = 0; i < N; i++) {
        snprintf(f->hashes[i], sizeof f->hashes[i], "%040x", 0x1000 + i);
        f->commits[i] = f->hashes[i];
    }
    f->bad_at = bad_at;
    f->broken_lo = f->broken_hi = -1;
    f->noise_pct = 2;
    f->rng = 12345 + (unsigned)bad_at;
}

static eb_bisect_req req_for(fake *f, const char *journal)
{
    eb_bisect_req rq = {.commits = f->commits, .n = N, .chip = "esp32s3", .tier = "iperf", .test = "tcp_tx",
                        .threshold_pct = 5, .repeats = 3, .max_repeats = 8, .journal = journal, .stop = &f->stop};
    return rq;
}

static void test_next_midpoint_and_skips(void **state)
{
    (void)state;
    int m[8] = {EB_BISECT_GOOD, 0, 0, 0, 0, 0, 0, EB_BISECT_BAD}, fb, lo, hi;
    assert_int_equal(eb_bisect_next(m, 8, &fb, &lo, &hi), 3);
    m[3] = EB_BISECT_SKIP;
    assert_int_equal(eb_bisect_next(m, 8, &fb, &lo, &hi), 2); /* nearest to the middle, the older first */
    m[2] = EB_BISECT_BAD;
    assert_int_equal(eb_bisect_next(m, 8, &fb, &lo, &hi), 1);
    m[1] = EB_BISECT_GOOD;
    assert_int_equal(eb_bisect_next(m, 8, &fb, &lo, &hi), -1);
    assert_int_equal(fb, 2);
    int s[5] = {EB_BISECT_GOOD, EB_BISECT_SKIP, EB_BISECT_SKIP, EB_BISECT_BAD, 0};
    assert_int_equal(eb_bisect_next(s, 4, &fb, &lo, &hi), -1);
    assert_int_equal(fb, -1);
    assert_int_equal(lo, 1);
    assert_int_equal(hi, 3);
}

static void test_verdicts(void **state)
{
    (void)state;
    const double good[] = {80.1, 79.6, 80.4}, same[] = {79.9, 80.3, 79.7}, slow[] = {68.2, 67.9, 68.5},
                 edge[] = {76.5, 77.9, 75.1};
    bool clear;
    assert_int_equal(eb_bisect_verdict(good, 3, same, 3, 5, &clear), EB_BISECT_GOOD);
    assert_true(clear);
    assert_int_equal(eb_bisect_verdict(good, 3, slow, 3, 5, &clear), EB_BISECT_BAD);
    assert_true(clear);
    /* 4 % down: worse, but under the 5 % asked about and over half of it: unclear, decided good. */
    assert_int_equal(eb_bisect_verdict(good, 3, edge, 3, 5, &clear), EB_BISECT_GOOD);
    assert_false(clear);
}

static void test_journal_round_trip_and_errors(void **state)
{
    (void)state;
    eb_bisect_journal j = {0};
    snprintf(j.good, sizeof j.good, "aa");
    snprintf(j.bad, sizeof j.bad, "bb");
    snprintf(j.chip, sizeof j.chip, "esp32");
    snprintf(j.tier, sizeof j.tier, "iperf");
    snprintf(j.test, sizeof j.test, "udp_rx");
    j.threshold_pct = 5;
    eb_bisect_step *s = eb_bisect_journal_add(&j);
    snprintf(s->commit, sizeof s->commit, "cc");
    snprintf(s->version, sizeof s->version, "v5.3");
    s->mark = EB_BISECT_BAD;
    s->n = 2;
    s->mbps[0] = 61.5;
    s->mbps[1] = 62.25;
    eb_buf b;
    eb_buf_init(&b);
    eb_bisect_journal_to_json(&j, &b);
    eb_bisect_journal k;
    eb_error err = {0};
    assert_int_equal(eb_bisect_journal_parse((const char *)b.data, b.len, "j.json", &k, &err), 0);
    assert_int_equal(eb_bisect_journal_matches(&k, &j, "j.json", &err), 0);
    assert_int_equal(k.n_steps, 1);
    assert_int_equal(k.steps[0].mark, EB_BISECT_BAD);
    assert_float_equal(k.steps[0].mbps[1], 62.25, 1e-9);
    snprintf(k.tier, sizeof k.tier, "minimum");
    assert_int_equal(eb_bisect_journal_matches(&k, &j, "j.json", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "j.json: the journal is of another bisect (its tier differs); give another "
                                 "--journal or delete it");
    eb_bisect_journal_free(&k);
    const char bad[] = "{\"espbench_bisect\": \"1\", \"good\": \"a\", \"bad\": \"b\", \"chip\": \"c\", \"tier\": "
                       "\"t\", \"test\": \"x\", \"threshold_pct\": 5, \"steps\": [{\"commit\": \"c\", \"version\": "
                       "\"v\", \"verdict\": \"maybe\", \"mbps\": []}]}";
    assert_int_equal(eb_bisect_journal_parse(bad, sizeof bad - 1, "j.json", &k, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "j.json: step 1: verdict 'maybe' or its 'mbps' list is not valid");
    assert_int_equal(eb_bisect_journal_parse("[1", 2, "j.json", &k, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "j.json: not a JSON bisect journal; delete it to start the bisect afresh");
    eb_buf_free(&b);
    eb_bisect_journal_free(&j);
}

static void test_finds_the_planted_regression_in_8_measured(void **state)
{
    (void)state;
    for (int bad_at = 1; bad_at < N; bad_at += 3) {
        fake f;
        fake_init(&f, bad_at);
        eb_bisect_driver d = {fake_build, fake_measure, &f};
        eb_bisect_req rq = req_for(&f, NULL);
        eb_bisect_result res;
        eb_error err = {0};
        assert_int_equal(eb_bisect(&rq, &d, &res, &err), 0);
        assert_int_equal(res.first_bad, bad_at);
        assert_true(res.measured <= 8);
        assert_int_equal(res.measured, f.measured);
        for (int i = 0; i < N; i++)
            assert_true(f.builds[i] <= 1);
        eb_bisect_journal_free(&res.journal);
    }
}

static void test_skips_commits_that_do_not_build(void **state)
{
    (void)state;
    fake f;
    fake_init(&f, 30);
    f.broken_lo = 22;
    f.broken_hi = 26; /* the first middle (24) and its neighbours */
    eb_bisect_driver d = {fake_build, fake_measure, &f};
    eb_bisect_req rq = req_for(&f, NULL);
    eb_bisect_result res;
    eb_error err = {0};
    assert_int_equal(eb_bisect(&rq, &d, &res, &err), 0);
    assert_int_equal(res.first_bad, 30);
    int skipped = 0;
    for (int i = 0; i < res.journal.n_steps; i++)
        skipped += res.journal.steps[i].mark == EB_BISECT_SKIP;
    assert_true(skipped >= 1);
    assert_true(res.measured <= 9);
    eb_bisect_journal_free(&res.journal);
    /* The regression inside the broken run: the answer is a range. */
    fake_init(&f, 24);
    f.broken_lo = 22;
    f.broken_hi = 26;
    assert_int_equal(eb_bisect(&rq, &d, &res, &err), 0);
    assert_int_equal(res.first_bad, -1);
    assert_int_equal(res.amb_lo, 22);
    assert_int_equal(res.amb_hi, 27); /* the first measured bad one: it may be the first */
    eb_bisect_journal_free(&res.journal);
}

static void test_stopped_bisect_resumes_from_its_journal(void **state)
{
    (void)state;
    char journal[] = "/tmp/espbench-bisect-XXXXXX";
    int fd = mkstemp(journal);
    assert_true(fd >= 0);
    close(fd);
    unlink(journal);
    fake f;
    fake_init(&f, 37);
    f.stop_after = 4;
    eb_bisect_driver d = {fake_build, fake_measure, &f};
    eb_bisect_req rq = req_for(&f, journal);
    eb_bisect_result res;
    eb_error err = {0};
    assert_int_equal(eb_bisect(&rq, &d, &res, &err), EB_EINTR);
    assert_int_equal(res.measured, 4);
    eb_bisect_journal_free(&res.journal);
    int before[N];
    memcpy(before, f.measures, sizeof before);
    f.stop = 0;
    f.stop_after = 0;
    assert_int_equal(eb_bisect(&rq, &d, &res, &err), 0);
    assert_int_equal(res.first_bad, 37);
    for (int i = 0; i < N; i++)
        if (before[i])
            assert_int_equal(f.measures[i], before[i]); /* a journalled commit is not measured again */
    assert_true(res.measured_total <= 8);
    assert_int_equal(res.measured + 4, res.measured_total);
    eb_bisect_journal_free(&res.journal);
    /* Another bisect's journal is refused. */
    rq.tier = "minimum";
    assert_int_equal(eb_bisect(&rq, &d, &res, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "the journal is of another bisect (its tier differs)"));
    unlink(journal);
}

static void test_no_regression_between_the_ends(void **state)
{
    (void)state;
    fake f;
    fake_init(&f, N + 10); /* never slow */
    eb_bisect_driver d = {fake_build, fake_measure, &f};
    eb_bisect_req rq = req_for(&f, NULL);
    eb_bisect_result res;
    eb_error err = {0};
    assert_int_equal(eb_bisect(&rq, &d, &res, &err), EB_ESHORT);
    assert_non_null(strstr(err.msg, "is not worse than the good end"));
    eb_bisect_journal_free(&res.journal);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_next_midpoint_and_skips),
        cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_journal_round_trip_and_errors),
        cmocka_unit_test(test_finds_the_planted_regression_in_8_measured),
        cmocka_unit_test(test_skips_commits_that_do_not_build),
        cmocka_unit_test(test_stopped_bisect_resumes_from_its_journal),
        cmocka_unit_test(test_no_regression_between_the_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
