/* The compact interval store (intervals.h): the intervals of real iperf2
 * logs read back bit for bit, TCP rows in the narrow layout, a UDP row
 * widening the series once with every earlier row kept; the room held
 * beyond the rows stays within the growth policy (an eighth, at least 64
 * rows) as a long test grows; a borrowed array is read in place. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/intervals.h"
#include "espbench/formats/iperf_parse.h"

/* The interval lines of an iperf2 log, as the parser reads them. */
static int log_intervals(const char *name, eb_interval *out, int max)
{
    char path[512];
    snprintf(path, sizeof path, "%s/logs/iperf2/%s", FIXTURES_DIR, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        eb_iperf_line il;
        eb_iperf_parse_line(line, strcspn(line, "\r\n"), &il);
        if (il.kind == EB_IPL_DATA)
            out[n++] = il.iv;
    }
    fclose(f);
    return n;
}

/* Field by field, bit for bit (NAN as NAN). */
static void assert_same(const eb_interval *a, const eb_interval *b)
{
    const double x[] = {a->start_s, a->end_s, a->bytes, a->mbps, a->jitter_ms};
    const double y[] = {b->start_s, b->end_s, b->bytes, b->mbps, b->jitter_ms};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
        assert_memory_equal(&x[i], &y[i], sizeof x[i]);
    assert_int_equal(a->lost, b->lost);
    assert_int_equal(a->total, b->total);
}

static void test_tcp_rows_narrow_exact(void **state)
{
    (void)state;
    eb_interval iv[64];
    int n = log_intervals("tcp_e.server.log", iv, 64);
    assert_true(n >= 4);
    eb_ivs s = EB_IVS_EMPTY;
    for (int i = 0; i < n; i++)
        eb_ivs_push(&s, &iv[i]);
    assert_int_equal(s.n, n);
    assert_int_equal(s.row_bytes, EB_IVS_NARROW);
    assert_int_equal(EB_IVS_NARROW, 32);
    for (int i = 0; i < n; i++) {
        eb_interval back = eb_ivs_at(&s, i);
        assert_same(&back, &iv[i]);
    }
    eb_ivs copy = eb_ivs_dup(&s);
    assert_int_equal(copy.n, n);
    assert_int_equal(copy.cap, n); /* no room beyond the rows */
    for (int i = 0; i < n; i++) {
        eb_interval a = eb_ivs_at(&copy, i), b = eb_ivs_at(&s, i);
        assert_same(&a, &b);
    }
    eb_ivs_free(&copy);
    eb_ivs_free(&s);
    assert_null(s.rows);
    assert_int_equal(s.n, 0);
}

static void test_udp_row_widens_once(void **state)
{
    (void)state;
    eb_interval tcp[64], udp[64];
    int nt = log_intervals("tcp.server.log", tcp, 64), nu = log_intervals("udp.server.log", udp, 64);
    assert_true(nt >= 2 && nu >= 4);
    assert_false(eb_interval_is_udp(&tcp[0]));
    assert_true(eb_interval_is_udp(&udp[0]));
    assert_int_equal(udp[1].total, 425); /* the log's 0/425 */
    eb_ivs s = EB_IVS_EMPTY;
    for (int i = 0; i < nt; i++)
        eb_ivs_push(&s, &tcp[i]);
    assert_int_equal(s.row_bytes, EB_IVS_NARROW);
    for (int i = 0; i < nu; i++)
        eb_ivs_push(&s, &udp[i]);
    assert_int_equal(s.row_bytes, EB_IVS_WIDE);
    assert_int_equal(s.n, nt + nu);
    for (int i = 0; i < nt; i++) {
        eb_interval back = eb_ivs_at(&s, i);
        assert_same(&back, &tcp[i]);
        assert_true(isnan(back.jitter_ms) && back.lost == -1 && back.total == -1);
    }
    for (int i = 0; i < nu; i++) {
        eb_interval back = eb_ivs_at(&s, nt + i);
        assert_same(&back, &udp[i]);
    }
    eb_ivs_free(&s);
}

/* A long test: 300 000 rows (a day at -i 0.1 is 864 000) grow by an eighth
 * of what is held, at least EB_IVS_MIN_GROW (64) rows, and trimming gives
 * the room back. */
static void test_growth_bounded(void **state)
{
    (void)state;
    eb_interval iv[64];
    int n = log_intervals("tcp_e.server.log", iv, 64);
    eb_ivs s = EB_IVS_EMPTY;
    int grows = 0, last_cap = 0;
    for (int i = 0; i < 300000; i++) {
        eb_interval row = iv[i % n];
        row.start_s += i;
        row.end_s += i;
        eb_ivs_push(&s, &row);
        if (s.cap != last_cap) {
            int room = s.cap - s.n;
            int most = (s.n - 1) / 8 > EB_IVS_MIN_GROW ? (s.n - 1) / 8 : EB_IVS_MIN_GROW;
            if (room > most)
                fail_msg("at %d rows: room for %d more (at most %d)", s.n, room, most);
            grows++;
            last_cap = s.cap;
        }
    }
    assert_true(eb_ivs_bytes(&s) <= (size_t)s.n * EB_IVS_NARROW * 9 / 8 + EB_IVS_MIN_GROW * EB_IVS_NARROW);
    assert_true(grows < 100); /* an eighth at a time: tens of reallocations, not one per row */
    eb_interval back = eb_ivs_at(&s, 299999);
    assert_true(back.start_s == iv[299999 % n].start_s + 299999);
    eb_ivs_trim(&s);
    assert_int_equal(s.cap, s.n);
    assert_int_equal(eb_ivs_bytes(&s), (size_t)300000 * 32);
    eb_ivs_free(&s);
}

static void test_view_and_adopt(void **state)
{
    (void)state;
    eb_interval iv[64];
    int n = log_intervals("udp.server.log", iv, 64);
    eb_ivs v = eb_ivs_view(iv, n);
    assert_ptr_equal(v.rows, iv); /* read in place */
    eb_interval back = eb_ivs_at(&v, n - 1);
    assert_same(&back, &iv[n - 1]);
    eb_interval *owned = malloc(sizeof *owned * (size_t)n);
    assert_non_null(owned);
    memcpy(owned, iv, sizeof *owned * (size_t)n);
    eb_ivs a = eb_ivs_adopt(owned, n);
    assert_ptr_equal(a.rows, owned);
    eb_ivs_push(&a, &iv[0]); /* grows like any series */
    assert_int_equal(a.n, n + 1);
    back = eb_ivs_at(&a, n);
    assert_same(&back, &iv[0]);
    eb_ivs_free(&a);
    eb_ivs none = eb_ivs_adopt(NULL, 0);
    assert_int_equal(none.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tcp_rows_narrow_exact),
        cmocka_unit_test(test_udp_row_widens_once),
        cmocka_unit_test(test_growth_bounded),
        cmocka_unit_test(test_view_and_adopt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
