/* Report renderers over a results matrix of all 7 esp32 tiers with the docs'
 * figures ± 2 %: the RST rank table has the docs' rows and columns in the
 * docs' order; zh_CN labels; --vs-docs rows; Markdown; self-contained HTML. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "espbench/formats/report.h"
#include "espbench/adapters/profile_dirs.h"
#include "results_fixture.h"

static eb_profiles profiles;
static const eb_chip *esp32;

static int setup(void **state)
{
    (void)state;
    eb_error err = {0};
    if (eb_profiles_load_file(&profiles, SOURCE_DIR "/profiles/esp32.yaml", &err)) {
        fprintf(stderr, "profiles: %s\n", err.msg);
        return -1;
    }
    esp32 = eb_profiles_chip(&profiles, "esp32");
    return esp32 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    eb_profiles_free(&profiles);
    return 0;
}

/* The rows of a list-table: each "* - " starts a row, "  - " continues it. */
typedef struct lt {
    int n_rows;
    int n_cols[64];
    char cell[64][16][96];
} lt;

static const char *parse_list_table(const char *text, lt *t)
{
    memset(t, 0, sizeof *t);
    const char *p = strstr(text, ".. list-table::");
    assert_non_null(p);
    const char *hdr = strstr(p, "\n   :header-rows: 1\n");
    assert_non_null(hdr);
    p = strchr(hdr + 1, '\n') + 1;
    assert_true(*p == '\n');
    p++;
    while (strncmp(p, "   * -", 6) == 0 || strncmp(p, "     -", 6) == 0) {
        if (p[3] == '*')
            t->n_rows++;
        int r = t->n_rows - 1;
        const char *s = p + 6, *eol = strchr(p, '\n');
        if (*s == ' ')
            s++;
        snprintf(t->cell[r][t->n_cols[r]++], 96, "%.*s", (int)(eol - s), s);
        p = eol + 1;
    }
    return p;
}

static void test_rst_rank_table_matches_docs(void **state)
{
    (void)state;
    eb_results r;
    fixture_build(&r, esp32, 1, 7);
    assert_int_equal(r.n_entries, 7 * 4);
    eb_report_opts o = {.chip = "esp32", .lang = EB_LANG_EN, .stat = EB_STAT_MEAN};
    eb_buf out;
    eb_buf_init(&out);
    eb_error err = {0};
    assert_int_equal(eb_report_render(&r, &profiles, EB_RF_RST, &o, &out, &err), 0);
    const char *text = eb_buf_cstr(&out);
    lt t;
    const char *rest = parse_list_table(text, &t);

    /* The docs' table (docs-rank-tables.txt, [esp32]): columns and rows in order. */
    static const char *const cols[] = {"Rank", "Iperf", "TX prior", "High-performance", "RX prior", "Default",
                                       "Memory saving", "Minimum"};
    static const char *const rows[] = {"Rank", "Available memory (KB)", "WIFI_STATIC_RX_BUFFER_NUM",
                                       "WIFI_DYNAMIC_RX_BUFFER_NUM", "WIFI_DYNAMIC_TX_BUFFER_NUM", "WIFI_RX_BA_WIN",
                                       "TCP_SND_BUF_DEFAULT (KB)", "TCP_WND_DEFAULT (KB)", "WIFI_IRAM_OPT",
                                       "WIFI_RX_IRAM_OPT", "LWIP_IRAM_OPTIMIZATION", "TCP TX throughput (Mbit/s)",
                                       "TCP RX throughput (Mbit/s)", "UDP TX throughput (Mbit/s)",
                                       "UDP RX throughput (Mbit/s)"};
    assert_int_equal(t.n_rows, 15);
    for (int i = 0; i < 15; i++) {
        assert_int_equal(t.n_cols[i], 8);
        assert_string_equal(t.cell[i][0], rows[i]);
    }
    for (int c = 0; c < 8; c++)
        assert_string_equal(t.cell[0][c], cols[c]);
    /* Parameter cells as the docs print them. */
    static const char *const ba[] = {"32", "8", "12", "12", "10", "6", "Disable"};
    static const char *const mem[] = {"37.1", "113.8", "123.3", "145.5", "144.5", "170.2", "185.2"};
    for (int c = 0; c < 7; c++) {
        assert_string_equal(t.cell[5][1 + c], ba[c]);
        assert_string_equal(t.cell[1][1 + c], mem[c]);
        assert_string_equal(t.cell[8][1 + c], "ENABLE");
    }
    assert_string_equal(t.cell[2][1], "16");
    assert_string_equal(t.cell[7][2], "16"); /* TCP_WND_DEFAULT of TX prior */
    /* Throughput cells are the measured means, within the ±2 % of the fixture. */
    for (int test = 0; test < EB_TEST_COUNT; test++)
        for (int c = 0; c < 7; c++) {
            double v = atof(t.cell[11 + test][1 + c]);
            double ref = esp32->tiers[c].ref_mbps[test];
            assert_true(v > ref * 0.97 && v < ref * 1.03);
            char want[16];
            snprintf(want, sizeof want, "%.1f", eb_results_cell(&r, "esp32", esp32->tiers[c].name, test,
                                                                EB_STAT_MEAN, NULL));
            assert_string_equal(t.cell[11 + test][1 + c], want);
        }
    /* Then the summary table: UDP RX first, as in the docs. */
    lt s;
    parse_list_table(rest, &s);
    assert_string_equal(s.cell[0][0], "Type/Throughput");
    assert_string_equal(s.cell[1][0], "UDP RX");
    assert_string_equal(s.cell[4][0], "TCP TX");
    assert_string_equal(s.cell[1][2], "Iperf");
    assert_non_null(strstr(s.cell[1][1], " Mbit/s"));
    assert_string_equal(s.cell[1][4], "v5.5");
    eb_buf_free(&out);
    eb_results_free(&r);
}

static void test_rst_zh_vs_docs_peak(void **state)
{
    (void)state;
    eb_results r;
    fixture_build(&r, esp32, 2, 11);
    eb_report_opts o = {.chip = NULL, .vs_docs = true, .lang = EB_LANG_ZH_CN, .stat = EB_STAT_PEAK};
    eb_buf out;
    eb_buf_init(&out);
    eb_error err = {0};
    assert_int_equal(eb_report_rst(&r, &profiles, &o, &out, &err), 0);
    lt t;
    parse_list_table(eb_buf_cstr(&out), &t);
    assert_string_equal(t.cell[0][0], "等级");
    assert_string_equal(t.cell[0][2], "发送数据优先");
    assert_string_equal(t.cell[1][0], "可用内存 (KB)");
    assert_string_equal(t.cell[2][0], "可用内存 (KB), 文档");
    assert_string_equal(t.cell[3][0], "可用内存 (KB), 与文档的差异 (%)");
    assert_string_equal(t.cell[3][1], "0.0"); /* 37990 B = 37.1 KB */
    assert_string_equal(t.cell[7][7], "禁用"); /* WIFI_RX_BA_WIN of Minimum */
    assert_string_equal(t.cell[10][1], "开启");
    assert_string_equal(t.cell[13][0], "TCP 发送数据吞吐量 (Mbit/s)");
    assert_string_equal(t.cell[14][0], "TCP 发送数据吞吐量 (Mbit/s), 文档");
    assert_string_equal(t.cell[14][1], "74.6");
    assert_string_equal(t.cell[16][0], "TCP 接收数据吞吐量 (Mbit/s)");
    assert_string_equal(t.cell[19][0], "UDP 发送数据吞吐量 (Mbit/s)");
    assert_string_equal(t.cell[22][0], "UDP 接收数据吞吐量 (Mbit/s)");
    assert_int_equal(t.n_rows, 1 + 3 + 9 + 12);
    /* peak = mean * 1.01 in the fixture, averaged over the two repeats */
    char want[16];
    snprintf(want, sizeof want, "%.1f", eb_results_cell(&r, "esp32", "iperf", EB_TEST_TCP_TX, EB_STAT_PEAK, NULL));
    assert_string_equal(t.cell[13][1], want);
    assert_non_null(strstr(eb_buf_cstr(&out), "峰值"));
    eb_buf_free(&out);
    eb_results_free(&r);
}

static void test_psram_tiers_get_their_own_table(void **state)
{
    (void)state;
    eb_results r;
    fixture_build_tiers(&r, esp32, 1, 5, true);
    eb_report_opts o = {.lang = EB_LANG_EN, .stat = EB_STAT_MEAN};
    eb_buf out;
    eb_buf_init(&out);
    eb_error err = {0};
    assert_int_equal(eb_report_rst(&r, &profiles, &o, &out, &err), 0);
    const char *text = eb_buf_cstr(&out);
    lt t;
    const char *rest = parse_list_table(text, &t);
    assert_int_equal(t.n_cols[0], 8);
    const char *psram = strstr(rest, ".. list-table:: ESP32 throughput by rank (with PSRAM)\n");
    assert_non_null(psram);
    parse_list_table(psram, &t);
    /* The docs' "Using PSRAM" esp32 table. */
    static const char *const cols[] = {"Rank", "Iperf", "Default", "Memory saving", "Minimum"};
    static const char *const rows[] = {"Rank", "Available memory (KB)", "WIFI_STATIC_RX_BUFFER_NUM",
                                       "WIFI_DYNAMIC_RX_BUFFER_NUM", "WIFI_STATIC_TX_BUFFER_NUM", "WIFI_RX_BA_WIN",
                                       "TCP_SND_BUF_DEFAULT (KB)", "TCP_WND_DEFAULT (KB)", "WIFI_IRAM_OPT",
                                       "WIFI_RX_IRAM_OPT", "LWIP_IRAM_OPTIMIZATION", "TCP TX throughput (Mbit/s)",
                                       "TCP RX throughput (Mbit/s)", "UDP TX throughput (Mbit/s)",
                                       "UDP RX throughput (Mbit/s)"};
    assert_int_equal(t.n_rows, 15);
    for (int c = 0; c < 5; c++)
        assert_string_equal(t.cell[0][c], cols[c]);
    for (int i = 0; i < 15; i++)
        assert_string_equal(t.cell[i][0], rows[i]);
    assert_string_equal(t.cell[5][4], "Disable");
    assert_string_equal(t.cell[10][1], "ENABLE");
    assert_string_equal(t.cell[10][2], "DISABLE"); /* LWIP_IRAM_OPTIMIZATION of PSRAM Default */
    eb_buf_free(&out);
    eb_results_free(&r);
}

static void test_cell_averages_ok_repeats(void **state)
{
    (void)state;
    eb_results r;
    eb_results_init(&r);
    eb_entry e;
    eb_interval rx[1], tx[1];
    unsigned seed = 1;
    fixture_entry(&e, esp32, &esp32->tiers[0], EB_TEST_TCP_TX, 0, &seed, rx, tx, 1);
    e.mean_mbps = 70;
    eb_results_add(&r, &e);
    e.repeat = 1;
    e.mean_mbps = 80;
    eb_results_add(&r, &e);
    e.repeat = 2;
    e.mean_mbps = 10;
    snprintf(e.status, sizeof e.status, "failed");
    eb_results_add(&r, &e);
    int n = 0;
    assert_true(eb_results_cell(&r, "esp32", "iperf", EB_TEST_TCP_TX, EB_STAT_MEAN, &n) == 75.0);
    assert_int_equal(n, 2);
    assert_true(isnan(eb_results_cell(&r, "esp32", "iperf", EB_TEST_UDP_TX, EB_STAT_MEAN, &n)));
    assert_int_equal(n, 0);
    eb_results_free(&r);
}

static void test_md_and_errors(void **state)
{
    (void)state;
    eb_results r;
    fixture_build(&r, esp32, 1, 3);
    eb_report_opts o = {.lang = EB_LANG_EN, .stat = EB_STAT_MEAN};
    eb_buf out;
    eb_buf_init(&out);
    eb_error err = {0};
    assert_int_equal(eb_report_md(&r, &profiles, &o, &out, &err), 0);
    const char *md = eb_buf_cstr(&out);
    assert_non_null(strstr(md, "## ESP32\n"));
    assert_non_null(strstr(md, "|Mbits/sec|TCP TX|TCP RX|UDP TX|UDP RX|\n|---|---:|---:|---:|---:|\n|Iperf|"));
    assert_non_null(strstr(md, "\n|Minimum|"));
    assert_non_null(strstr(md, "|Rank|Iperf|TX prior|High-performance|RX prior|Default|Memory saving|Minimum|\n"));
    assert_non_null(strstr(md, "|WIFI_RX_BA_WIN|32|8|12|12|10|6|Disable|\n"));

    eb_buf_reset(&out);
    o.chip = "esp32c3";
    assert_int_equal(eb_report_render(&r, &profiles, EB_RF_RST, &o, &out, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "no results for chip 'esp32c3' in the input");
    assert_int_equal(eb_report_render(&r, &profiles, EB_RF_CSV, &o, &out, &err), EB_ECONFIG);
    eb_results empty;
    eb_results_init(&empty);
    o.chip = NULL;
    assert_int_equal(eb_report_rst(&empty, &profiles, &o, &out, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "the input holds no results to report");

    assert_int_equal(eb_report_format_from_name("html"), EB_RF_HTML);
    assert_int_equal(eb_report_format_from_name("pdf"), -1);
    assert_int_equal(eb_stat_from_name("peak"), EB_STAT_PEAK);
    assert_int_equal(eb_lang_from_name("zh_CN"), EB_LANG_ZH_CN);
    assert_int_equal(eb_lang_from_name("zh"), -1);
    eb_buf_free(&out);
    eb_results_free(&r);
}

/* Names from a results file (tiers here) are escaped everywhere in the HTML,
 * the bar charts' tooltips included: markup in them must not reach the page. */
/* A latency set under load (run --latency-under-load) is a row of its own
 * beside the idle one, named by the test it ran beside; without any, the
 * Load column is left out. */
static void add_lat(eb_results *r, const char *under, double avg)
{
    eb_latency l;
    memset(&l, 0, sizeof l);
    eb_prov_init(&l.prov);
    snprintf(l.board, sizeof l.board, "dut");
    snprintf(l.chip, sizeof l.chip, "esp32");
    snprintf(l.tier, sizeof l.tier, "iperf");
    snprintf(l.method, sizeof l.method, "udp-echo");
    snprintf(l.status, sizeof l.status, "ok");
    snprintf(l.under_load, sizeof l.under_load, "%s", under);
    l.sent = l.received = 20;
    l.loss_pct = 0;
    l.min_ms = avg / 2;
    l.avg_ms = l.p99_ms = avg;
    l.max_ms = avg * 2;
    eb_results_put_latency(r, &l);
}

static void test_latency_idle_and_under_load(void **state)
{
    (void)state;
    eb_results r;
    fixture_build(&r, esp32, 1, 1);
    add_lat(&r, "", 2.5);
    eb_report_opts o = {.lang = EB_LANG_EN, .stat = EB_STAT_MEAN};
    eb_buf out;
    eb_buf_init(&out);
    eb_error err = {0};
    assert_int_equal(eb_report_md(&r, &profiles, &o, &out, &err), 0);
    eb_buf_append_byte(&out, 0);
    assert_null(strstr((const char *)out.data, "|Load|"));
    eb_buf_reset(&out);
    add_lat(&r, "tcp_rx", 41.0);
    assert_int_equal(r.n_lat, 2); /* the loaded set has a key of its own */
    assert_int_equal(eb_report_md(&r, &profiles, &o, &out, &err), 0);
    eb_buf_append_byte(&out, 0);
    const char *md = (const char *)out.data;
    assert_non_null(strstr(md, "|Tier|Load|Method|"));
    const char *idle = strstr(md, "|Iperf|idle|udp-echo|1|20/20|0.0|1.25|2.50|"), *load = strstr(md, "|Iperf|tcp_rx|udp-echo|1|20/20|0.0|20.50|41.00|41.00|||41.00|82.00|");
    assert_non_null(idle);
    assert_non_null(load);
    assert_true(idle < load);
    eb_buf_free(&out);
    eb_results_free(&r);
}

static void test_html_escapes_tier_names(void **state)
{
    (void)state;
    eb_results r;
    fixture_build(&r, esp32, 1, 3);
    for (int i = 0; i < r.n_entries; i++)
        if (!strcmp(r.entries[i].tier, "iperf"))
            snprintf(r.entries[i].tier, sizeof r.entries[i].tier, "<b>&x");
    eb_report_opts o = {.lang = EB_LANG_EN, .stat = EB_STAT_MEAN};
    eb_buf out;
    eb_buf_init(&out);
    eb_error err = {0};
    assert_int_equal(eb_report_html(&r, &profiles, &o, &out, &err), 0);
    const char *h = eb_buf_cstr(&out);
    assert_null(strstr(h, "<b>&x"));
    assert_non_null(strstr(h, "<title>&lt;b&gt;&amp;x TCP TX: "));
    eb_buf_free(&out);
    eb_results_free(&r);
}

static void test_html_self_contained(void **state)
{
    (void)state;
    eb_results r;
    fixture_build(&r, esp32, 1, 5);
    snprintf(r.boards[0].ap_ssid, sizeof r.boards[0].ap_ssid, "<lab & \"ap\">");
    eb_report_opts o = {.lang = EB_LANG_EN, .stat = EB_STAT_MEAN, .vs_docs = true};
    eb_buf out;
    eb_buf_init(&out);
    eb_error err = {0};
    assert_int_equal(eb_report_html(&r, &profiles, &o, &out, &err), 0);
    const char *h = eb_buf_cstr(&out);
    assert_true(strncmp(h, "<!DOCTYPE html>", 15) == 0);
    /* No scripts, no links, no network resources: the only URL is the SVG namespace. */
    assert_null(strstr(h, "<script"));
    assert_null(strstr(h, "<link"));
    assert_null(strstr(h, "src="));
    assert_null(strstr(h, "href"));
    assert_null(strstr(h, "url("));
    const char *p = h;
    int urls = 0;
    while ((p = strstr(p, "http")) != NULL) {
        assert_true(strncmp(p, "http://www.w3.org/2000/svg", 26) == 0);
        p++;
        urls++;
    }
    int svgs = 0;
    for (p = h; (p = strstr(p, "<svg")) != NULL; p++)
        svgs++;
    assert_int_equal(svgs, 3 + EB_TEST_COUNT); /* tiers, vs docs, memory, one per test */
    assert_int_equal(urls, svgs);
    assert_non_null(strstr(h, "&lt;lab &amp; &quot;ap&quot;&gt;"));
    assert_non_null(strstr(h, "<polyline"));
    assert_non_null(strstr(h, "class=\"ref\""));
    assert_non_null(strstr(h, "</body></html>\n"));
    eb_buf_free(&out);
    eb_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rst_rank_table_matches_docs),
        cmocka_unit_test(test_rst_zh_vs_docs_peak),
        cmocka_unit_test(test_psram_tiers_get_their_own_table),
        cmocka_unit_test(test_cell_averages_ok_repeats),
        cmocka_unit_test(test_md_and_errors),
        cmocka_unit_test(test_latency_idle_and_under_load),
        cmocka_unit_test(test_html_self_contained),
        cmocka_unit_test(test_html_escapes_tier_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
