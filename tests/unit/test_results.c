/* The results store: add/find/put, JSON round trip (NAN <-> null), load
 * errors with JSON paths, RFC 4180 CSV, atomic save. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "espbench/formats/results.h"
#include "espbench/adapters/results_file.h"

static void make_entry(eb_entry *e, const char *tier, int test, int repeat, double mean)
{
    eb_entry_init(e);
    snprintf(e->board, sizeof e->board, "sim");
    snprintf(e->chip, sizeof e->chip, "esp32");
    snprintf(e->tier, sizeof e->tier, "%s", tier);
    e->test = test;
    e->repeat = repeat;
    e->mean_mbps = mean;
    e->peak_mbps = mean + 1.5;
    e->rx_stats.n = 3;
    e->rx_stats.mean = mean;
    e->rx_stats.peak_1s = mean + 1.5;
    e->duration_s = 4;
    e->interval_s = 1;
    e->warmup_s = 1;
    snprintf(e->started, sizeof e->started, "2026-12-02T10:00:00Z");
    snprintf(e->finished, sizeof e->finished, "2026-12-02T10:00:05Z");
}

/* The entry at e's key (eb_results_find_done), e standing for a plan item. */
static eb_entry *find_done(eb_results *r, const eb_entry *e)
{
    eb_result_key k = eb_entry_key(e);
    return eb_results_find_done(r, &k);
}

static void test_add_find_put(void **state)
{
    (void)state;
    eb_results r;
    eb_results_init(&r);
    eb_entry e;
    make_entry(&e, "iperf", EB_TEST_TCP_TX, 0, 74.6);
    eb_interval iv[2] = {{0, 1, 9.3e6, 74.4, NAN, -1, -1}, {1, 2, 9.4e6, 75.2, NAN, -1, -1}};
    e.receiver = eb_ivs_view(iv, 2);
    eb_entry *p = eb_results_add(&r, &e);
    assert_non_null(p);
    assert_ptr_not_equal(p->receiver.rows, iv); /* deep copy */
    assert_int_equal(p->receiver.n, 2);
    assert_true(eb_results_find(&r, "sim", "esp32", "iperf", EB_TEST_TCP_TX, 0) != NULL);
    assert_true(eb_results_find(&r, NULL, "esp32", "iperf", EB_TEST_TCP_TX, 0) != NULL);
    assert_null(eb_results_find(&r, "sim", "esp32", "iperf", EB_TEST_TCP_RX, 0));
    assert_null(eb_results_find(&r, "other", "esp32", "iperf", EB_TEST_TCP_TX, 0));

    e.mean_mbps = 70.0;
    e.receiver = EB_IVS_EMPTY;
    p = eb_results_put(&r, &e);
    assert_int_equal(r.n_entries, 1);
    assert_true(p->mean_mbps == 70.0);
    assert_int_equal(p->receiver.n, 0);
    make_entry(&e, "iperf", EB_TEST_TCP_TX, 1, 71.0);
    eb_results_put(&r, &e);
    assert_int_equal(r.n_entries, 2);

    assert_null(eb_results_board(&r, "sim", false));
    eb_board_meta *b = eb_results_board(&r, "sim", true);
    assert_non_null(b);
    snprintf(b->chip, sizeof b->chip, "esp32");
    assert_ptr_equal(eb_results_board(&r, "sim", false), b);
    assert_int_equal(r.n_boards, 1);
    eb_results_free(&r);
    assert_int_equal(r.n_entries, 0);
}

static void build_sample(eb_results *r)
{
    eb_results_init(r);
    snprintf(r->espbench_version, sizeof r->espbench_version, "0.1.0");
    snprintf(r->generated, sizeof r->generated, "2026-12-02T10:01:00Z");
    eb_board_meta *b = eb_results_board(r, "sim", true);
    snprintf(b->chip, sizeof b->chip, "esp32");
    snprintf(b->mac, sizeof b->mac, "24:0a:c4:00:00:01");
    snprintf(b->ap_ssid, sizeof b->ap_ssid, "lab \"ap\"");
    b->rssi = -41;
    eb_entry e;
    make_entry(&e, "iperf", EB_TEST_UDP_RX, 0, 83.1);
    e.loss_pct = 0.25;
    e.jitter_ms = 0.031;
    e.free_heap = 37990;
    e.ref_mbps = 83.1;
    e.udp_rate_mbps = 100;
    e.param_set[EB_F_STATIC_RX] = true;
    e.param[EB_F_STATIC_RX] = 16;
    e.param_set[EB_F_RX_BA_WIN] = true;
    e.param[EB_F_RX_BA_WIN] = 0;
    eb_provenance *pv = eb_entry_prov_mut(&e);
    snprintf(pv->env, sizeof pv->env, "shield, box");
    pv->channel = 6;
    pv->rssi_before = -41;
    eb_interval rx[2] = {{0, 1, 10387500, 83.1, 0.03, 2, 7000}, {1, 2, 10387500, 83.1, NAN, -1, -1}};
    eb_interval tx[1] = {{0, 1, 12500000, 100, NAN, -1, -1}};
    e.receiver = eb_ivs_view(rx, 2);
    e.sender = eb_ivs_view(tx, 1);
    eb_results_add(r, &e);
    e.receiver = e.sender = EB_IVS_EMPTY; /* the stack's, not the entry's to free */
    eb_entry_free(&e);
    make_entry(&e, "minimum", EB_TEST_TCP_TX, 0, NAN);
    snprintf(e.status, sizeof e.status, "failed");
    eb_entry_set_error(&e, "board rebooted, \"twice\"\nretry later, please");
    eb_results_add(r, &e);
    eb_entry_free(&e);
}

/* A board-to-board entry and a test against the PC of the same board, chip,
 * tier and test are two entries: the peer is part of the key. */
static void test_pair_key(void **state)
{
    (void)state;
    eb_results r;
    eb_results_init(&r);
    eb_entry e;
    eb_entry_init(&e);
    snprintf(e.board, sizeof e.board, "a");
    snprintf(e.chip, sizeof e.chip, "esp32");
    snprintf(e.tier, sizeof e.tier, "iperf");
    e.test = EB_TEST_UDP_TX;
    e.mean_mbps = 80;
    eb_results_put(&r, &e);
    eb_entry p;
    eb_entry_copy(&p, &e);
    eb_provenance *pv = eb_entry_prov_mut(&p);
    snprintf(pv->peer_chip, sizeof pv->peer_chip, "esp32c3");
    snprintf(pv->peer_tier, sizeof pv->peer_tier, "iperf");
    assert_true(eb_entry_prov(&e)->peer_chip[0] == 0); /* a copy's provenance is its own */
    p.mean_mbps = 40;
    eb_results_put(&r, &p);
    assert_int_equal(r.n_entries, 2);
    assert_false(eb_entry_same_key(&e, &p));
    p.mean_mbps = 41; /* the same pair again replaces it */
    eb_results_put(&r, &p);
    assert_int_equal(r.n_entries, 2);
    assert_float_equal(eb_results_find_same(&r, &p)->mean_mbps, 41, 1e-9);
    assert_float_equal(eb_results_find_same(&r, &e)->mean_mbps, 80, 1e-9);
    snprintf(pv->peer_tier, sizeof pv->peer_tier, "minimum"); /* another peer tier: another cell */
    eb_results_put(&r, &p);
    assert_int_equal(r.n_entries, 3);
    char label[64];
    eb_entry_pair_label(&p, label, sizeof label);
    assert_string_equal(label, "esp32c3/minimum");
    eb_entry_pair_label(&e, label, sizeof label);
    assert_string_equal(label, "");
    eb_entry_free(&p);
    eb_entry_free(&e);
    eb_results_free(&r);
}

/* The ESP-IDF version keys an entry (two IDFs: two cells), and resume's
 * lookup takes a plan item without a version as any version's entry, one
 * with a version only as that version's. */
static void test_idf_key_and_resume_lookup(void **state)
{
    (void)state;
    eb_results r;
    eb_results_init(&r);
    eb_entry a, b, plan;
    eb_entry_init(&a);
    snprintf(a.board, sizeof a.board, "a");
    snprintf(a.chip, sizeof a.chip, "esp32");
    snprintf(a.tier, sizeof a.tier, "iperf");
    a.test = EB_TEST_TCP_TX;
    a.mean_mbps = 70;
    snprintf(eb_entry_prov_mut(&a)->idf_version, 48, "v5.1");
    eb_results_put(&r, &a);
    eb_entry_copy(&b, &a);
    snprintf(eb_entry_prov_mut(&b)->idf_version, 48, "v5.3");
    b.mean_mbps = 60;
    eb_results_put(&r, &b);
    assert_int_equal(r.n_entries, 2);
    assert_false(eb_entry_same_key(&a, &b));
    eb_entry_init(&plan);
    snprintf(plan.board, sizeof plan.board, "a");
    snprintf(plan.chip, sizeof plan.chip, "esp32");
    snprintf(plan.tier, sizeof plan.tier, "iperf");
    plan.test = EB_TEST_TCP_TX;
    assert_null(eb_results_find_same(&r, &plan));
    assert_non_null(find_done(&r, &plan));
    snprintf(eb_entry_prov_mut(&plan)->idf_version, 48, "v5.3");
    assert_float_equal(find_done(&r, &plan)->mean_mbps, 60, 1e-9);
    snprintf(eb_entry_prov_mut(&plan)->idf_version, 48, "v6.0");
    assert_null(find_done(&r, &plan));
    plan.test = EB_TEST_UDP_RX;
    eb_entry_prov_mut(&plan)->idf_version[0] = 0;
    assert_null(find_done(&r, &plan));
    eb_entry_free(&plan);
    eb_entry_free(&b);
    eb_entry_free(&a);
    eb_results_free(&r);
}

/* An entry holds its provenance out of line: none until a field is set, the
 * shared all-unknown one read in its place, its own copy in a copy, and a
 * results.json entry that knows nothing reads back holding none. */
static void test_entry_provenance(void **state)
{
    (void)state;
    const eb_provenance *u = eb_prov_unknown();
    eb_provenance ref;
    eb_prov_init(&ref);
    assert_true(eb_prov_empty(u));
    for (int i = 0; i < eb_prov_n_fields(); i++) { /* every field of the table, unknown */
        char a[256], b[256];
        eb_prov_format(u, i, a, sizeof a);
        eb_prov_format(&ref, i, b, sizeof b);
        assert_string_equal(a, "");
        assert_string_equal(b, "");
    }
    eb_entry e;
    make_entry(&e, "iperf", EB_TEST_TCP_RX, 0, 50);
    assert_null(e.provenance);
    assert_ptr_equal(eb_entry_prov(&e), u);
    assert_string_equal(eb_entry_tier_note(&e), "");
    eb_entry_prov_mut(&e)->channel = 11;
    eb_entry_set_tier_note(&e, "tcp_snd_buf_kb=65 (tier 28)");
    eb_entry c;
    eb_entry_copy(&c, &e);
    assert_ptr_not_equal(c.provenance, e.provenance);
    assert_ptr_not_equal(c.tier_note, e.tier_note);
    eb_entry_prov_mut(&c)->channel = 1;
    assert_true(eb_entry_prov(&e)->channel == 11);
    assert_string_equal(eb_entry_tier_note(&c), "tcp_snd_buf_kb=65 (tier 28)");
    eb_entry_set_tier_note(&c, "");
    assert_null(c.tier_note);

    eb_results r, back;
    eb_results_init(&r);
    eb_results_add(&r, &e);
    eb_entry_free(&c);
    eb_entry_init(&c);
    snprintf(c.chip, sizeof c.chip, "esp32");
    snprintf(c.tier, sizeof c.tier, "minimum");
    c.test = EB_TEST_TCP_TX;
    eb_results_add(&r, &c);
    eb_buf b;
    eb_buf_init(&b);
    eb_results_to_json(&r, &b);
    eb_error err = {0};
    assert_int_equal(eb_results_parse_json(&back, eb_buf_cstr(&b), b.len, "x.json", &err), 0);
    assert_int_equal(back.n_entries, 2);
    assert_true(eb_entry_prov(&back.entries[0])->channel == 11);
    assert_string_equal(eb_entry_tier_note(&back.entries[0]), "tcp_snd_buf_kb=65 (tier 28)");
    assert_null(back.entries[1].provenance);
    assert_null(back.entries[1].tier_note);
    assert_true(eb_entry_equal(&r.entries[0], &back.entries[0]));
    eb_buf_free(&b);
    eb_results_free(&back);
    eb_results_free(&r);
    eb_entry_free(&e);
    eb_entry_free(&c);
}

static void test_json_round_trip(void **state)
{
    (void)state;
    eb_results r, back;
    build_sample(&r);
    eb_buf b;
    eb_buf_init(&b);
    eb_results_to_json(&r, &b);
    const char *text = eb_buf_cstr(&b);
    assert_non_null(strstr(text, "\"schema\":\t\"espbench-results\""));
    assert_non_null(strstr(text, "\"schema_version\":\t1"));
    assert_non_null(strstr(text, "\"jitter_ms\":\tnull"));   /* NAN -> null */
    assert_non_null(strstr(text, "\"free_heap\":\tnull"));   /* -1 -> null */
    assert_non_null(strstr(text, "\"static_rx\":\t16"));
    assert_non_null(strstr(text, "\"rx_ba_win\":\t0"));
    assert_null(strstr(text, "\tnan"));
    assert_null(strstr(text, ":nan"));
    assert_non_null(strstr(text, "\"provenance\":\t{\"idf_version\":null,"));
    assert_non_null(strstr(text, "\"channel\":6,\"bandwidth_mhz\":null,\"rssi_before\":-41,"));

    eb_error err = {0};
    assert_int_equal(eb_results_parse_json(&back, text, b.len, "x.json", &err), 0);
    assert_string_equal(back.espbench_version, "0.1.0");
    assert_string_equal(eb_entry_prov(&back.entries[0])->env, "shield, box");
    assert_true(eb_entry_prov(&back.entries[0])->channel == 6 && isnan(eb_entry_prov(&back.entries[0])->rssi_after));
    assert_true(isnan(eb_entry_prov(&back.entries[1])->channel) && eb_entry_prov(&back.entries[1])->env[0] == 0);
    assert_int_equal(back.n_boards, 1);
    assert_int_equal(back.boards[0].rssi, -41);
    assert_string_equal(back.boards[0].ap_ssid, "lab \"ap\"");
    assert_int_equal(back.n_entries, 2);
    eb_entry *e = &back.entries[0];
    assert_int_equal(e->test, EB_TEST_UDP_RX);
    assert_true(e->mean_mbps == 83.1);
    assert_true(e->loss_pct == 0.25);
    assert_int_equal(e->free_heap, 37990);
    assert_int_equal(e->min_free_heap, -1);
    assert_true(e->param_set[EB_F_STATIC_RX] && e->param[EB_F_STATIC_RX] == 16);
    assert_true(e->param_set[EB_F_RX_BA_WIN] && e->param[EB_F_RX_BA_WIN] == 0);
    assert_false(e->param_set[EB_F_DYNAMIC_RX]);
    assert_int_equal(e->receiver.n, 2);
    assert_int_equal(eb_ivs_at(&e->receiver, 0).lost, 2);
    assert_true(isnan(eb_ivs_at(&e->receiver, 1).jitter_ms));
    assert_int_equal(eb_ivs_at(&e->receiver, 1).total, -1);
    assert_int_equal(e->sender.n, 1);
    assert_true(eb_ivs_at(&e->sender, 0).mbps == 100);
    assert_true(isnan(e->tx_stats.mean));
    e = &back.entries[1];
    assert_string_equal(e->status, "failed");
    assert_true(isnan(e->mean_mbps));
    assert_string_equal(eb_entry_error(e), "board rebooted, \"twice\"\nretry later, please");
    assert_true(eb_entry_equal(&r.entries[0], &back.entries[0]));
    assert_true(eb_entry_equal(&r.entries[1], &back.entries[1]));
    assert_false(eb_entry_equal(&r.entries[0], &back.entries[1]));

    /* A second serialisation is byte-identical. */
    eb_buf b2;
    eb_buf_init(&b2);
    eb_results_to_json(&back, &b2);
    assert_string_equal(eb_buf_cstr(&b2), text);
    eb_buf_free(&b2);
    eb_buf_free(&b);
    eb_results_free(&back);
    eb_results_free(&r);
}

static void expect_parse_error(const char *json, const char *msg)
{
    eb_results r;
    eb_error err = {0};
    int rc = eb_results_parse_json(&r, json, strlen(json), "x.json", &err);
    assert_int_equal(rc, EB_ECONFIG);
    assert_string_equal(err.msg, msg);
    assert_int_equal(r.n_entries, 0);
}

#define HEAD "{\"schema\":\"espbench-results\",\"schema_version\":1,"
#define E0 "{\"chip\":\"esp32\",\"tier\":\"iperf\",\"test\":\"tcp_tx\",\"repeat\":0,\"status\":\"ok\","

static void test_load_errors(void **state)
{
    (void)state;
    expect_parse_error("[1]", "x.json: expected a JSON object at the top level");
    expect_parse_error("{\"schema\":\"espbench-results\"} {}", "x.json: unexpected text after the JSON document (offset 30)");
    expect_parse_error("", "x.json:1:1: not valid JSON");
    expect_parse_error("{\n  \"schema\": ,", "x.json:2:13: not valid JSON");
    expect_parse_error("{\"schema\":\"flent\",\"schema_version\":1,\"entries\":[]}",
                       "x.json: schema: \"flent\" is not an espbench results file (expected \"espbench-results\")");
    expect_parse_error("{\"schema\":\"espbench-results\",\"schema_version\":2,\"entries\":[]}",
                       "x.json: schema_version: 2 is not supported by this espbench (reads version 1); "
                       "use a matching espbench version");
    expect_parse_error("{\"schema\":\"espbench-results\",\"entries\":[]}", "x.json: schema_version: missing (expected an integer)");
    expect_parse_error(HEAD "\"boards\":[]}", "x.json: entries: missing (expected an array)");
    expect_parse_error(HEAD "\"entries\":{}}", "x.json: entries: expected an array");
    expect_parse_error(HEAD "\"entries\":[" E0 "\"mean_mbps\":1,\"peak_mbps\":2}," E0 "\"mean_mbps\":\"74.6\",\"peak_mbps\":2}]}",
                       "x.json: entries[1].mean_mbps: expected a number");
    expect_parse_error(HEAD "\"entries\":[" E0 "\"peak_mbps\":2}]}", "x.json: entries[0].mean_mbps: missing (expected a number)");
    expect_parse_error(HEAD "\"entries\":[{\"chip\":\"esp32\",\"tier\":\"iperf\",\"test\":\"tcp_up\",\"status\":\"ok\"}]}",
                       "x.json: entries[0].test: expected one of tcp_tx, tcp_rx, udp_tx, udp_rx, raw_tx, raw_rx");
    expect_parse_error(HEAD "\"entries\":[" E0 "\"mean_mbps\":1,\"peak_mbps\":2,\"free_heap\":1.5}]}",
                       "x.json: entries[0].free_heap: expected an integer or null");
    expect_parse_error(HEAD "\"entries\":[" E0 "\"mean_mbps\":1,\"peak_mbps\":2,\"intervals\":{\"receiver\":[{\"start_s\":0,\"end_s\":1,\"mbps\":true}]}}]}",
                       "x.json: entries[0].intervals.receiver[0].mbps: expected a number");
    expect_parse_error(HEAD "\"entries\":[" E0 "\"mean_mbps\":1,\"peak_mbps\":2,\"tier_params\":{\"static_rx\":\"16\"}}]}",
                       "x.json: entries[0].tier_params.static_rx: expected an integer");
    expect_parse_error(HEAD "\"entries\":[" E0 "\"mean_mbps\":1,\"peak_mbps\":2,\"rx_stats\":{\"n\":3,\"mean\":[]}}]}",
                       "x.json: entries[0].rx_stats.mean: expected a number");
    expect_parse_error(HEAD "\"boards\":[{\"board\":\"a\",\"rssi\":\"-40\"}],\"entries\":[]}",
                       "x.json: boards[0].rssi: expected an integer or null");
    expect_parse_error(HEAD "\"entries\":[{\"chip\":\"esp32\",\"tier\":\"iperf\",\"test\":\"tcp_tx\",\"status\":\"meh\",\"mean_mbps\":1,\"peak_mbps\":1}]}",
                       "x.json: entries[0].status: expected \"ok\" or \"failed\"");

    /* Unknown keys are ignored (later versions may add some); null figures become NAN. */
    const char *ok = HEAD "\"future\":1,\"entries\":[" E0 "\"mean_mbps\":null,\"peak_mbps\":2,\"x\":[1],"
                          "\"tier_params\":{\"future_knob\":3}}]}";
    eb_results r;
    eb_error err = {0};
    assert_int_equal(eb_results_parse_json(&r, ok, strlen(ok), "x.json", &err), 0);
    assert_int_equal(r.n_entries, 1);
    assert_true(isnan(r.entries[0].mean_mbps));
    assert_int_equal(r.entries[0].free_heap, -1);
    eb_results_free(&r);
}

static void test_csv_rfc4180(void **state)
{
    (void)state;
    eb_results r;
    build_sample(&r);
    eb_buf b;
    eb_buf_init(&b);
    eb_results_to_csv(&r, &b);
    const char *t = eb_buf_cstr(&b);
    const char *header = "board,chip,tier,test,repeat,status,mean_mbps,peak_mbps,median_mbps,min_mbps,max_mbps,"
                         "stddev_mbps,n_intervals,sender_mean_mbps,loss_pct,jitter_ms,free_heap,min_free_heap,"
                         "largest_block,ref_mbps,duration_s,interval_s,warmup_s,udp_rate_mbps,started,finished,error"
                         ",prov_idf_version,prov_idf_commit,prov_iperf_component,prov_iperf_version,prov_chip_rev,"
                         "prov_mac,prov_flash_mhz,prov_cpu_mhz,prov_band,prov_phy_mode,prov_channel,"
                         "prov_bandwidth_mhz,prov_rssi_before,prov_rssi_after,prov_power_save,prov_ap_ssid,"
                         "prov_ap_bssid,prov_unit_base,prov_espbench_version,prov_pc_iperf_version,prov_env,"
                         "prov_sdkconfig,prov_sweep_var,prov_sweep_value,prov_concurrent_boards,prov_coprocessor,"
                         "prov_transport,prov_transport_width,prov_transport_clock_mhz,prov_peer_board,prov_peer_chip,"
                         "prov_peer_tier,prov_peer_mac,prov_peer_ip,prov_peer_idf_version,prov_peer_dialect,"
                         "prov_flash_loader,prov_attenuation_db,prov_instruments,interval_loss_pct\r\n";
    assert_memory_equal(t, header, strlen(header));
    const char *row1 = "sim,esp32,iperf,udp_rx,0,ok,83.1,84.6,,,,,3,,0.25,0.031,37990,,,83.1,4,1,1,100,"
                       "2026-12-02T10:00:00Z,2026-12-02T10:00:05Z,"
                       ",,,,,,,,,,,6,,-41,,,,,,,,\"shield, box\",,,,,,,,,,,,,,,,,,,\r\n";
    assert_memory_equal(t + strlen(header), row1, strlen(row1));
    const char *row2 = "sim,esp32,minimum,tcp_tx,0,failed,,,,,,,3,,,,,,,,4,1,1,,2026-12-02T10:00:00Z,"
                       "2026-12-02T10:00:05Z,\"board rebooted, \"\"twice\"\"\nretry later, please\""
                       ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\r\n";
    assert_string_equal(t + strlen(header) + strlen(row1), row2);
    eb_buf_free(&b);
    eb_results_free(&r);
}

static int count_dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")))
            n++;
    closedir(d);
    return n;
}

static void test_save_load_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/eb-results-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char json[256], csv[256];
    snprintf(json, sizeof json, "%s/results.json", dir);
    snprintf(csv, sizeof csv, "%s/results.csv", dir);
    eb_results r, back;
    build_sample(&r);
    eb_error err = {0};
    assert_int_equal(eb_results_save_json(&r, json, &err), 0);
    assert_int_equal(eb_results_save_csv(&r, csv, &err), 0);
    /* Saving again replaces in place; no temporary files are left behind. */
    assert_int_equal(eb_results_save_json(&r, json, &err), 0);
    assert_int_equal(count_dir_entries(dir), 2);
    assert_int_equal(eb_results_load(&back, json, &err), 0);
    assert_int_equal(back.n_entries, 2);
    assert_true(eb_entry_equal(&r.entries[0], &back.entries[0]));
    eb_results_free(&back);

    char missing[300];
    snprintf(missing, sizeof missing, "%s/nope.json", dir);
    assert_int_equal(eb_results_load(&back, missing, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "nope.json: cannot read: No such file or directory"));
    char baddir[300];
    snprintf(baddir, sizeof baddir, "%s/no/such/dir/results.json", dir);
    assert_int_equal(eb_results_save_json(&r, baddir, &err), EB_EIO);
    assert_non_null(strstr(err.msg, "cannot create a temporary file next to it"));

    unlink(json);
    unlink(csv);
    rmdir(dir);
    eb_results_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_find_put),
        cmocka_unit_test(test_pair_key),
        cmocka_unit_test(test_idf_key_and_resume_lookup),
        cmocka_unit_test(test_entry_provenance),
        cmocka_unit_test(test_json_round_trip),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_csv_rfc4180),
        cmocka_unit_test(test_save_load_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
