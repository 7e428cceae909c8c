/* Shipped profiles: every one loads and validates; values match the docs'
 * tables; field table; lookups; inheritance; overlays; renderings. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "espbench/formats/profile.h"
#include "formats/profile_facts.h"
#include "espbench/adapters/profile_dirs.h"

#define SHIPPED SOURCE_DIR "/profiles"
#define FIX FIXTURES_DIR "/profiles"

static eb_profiles shipped;

static int load_shipped(void **state)
{
    (void)state;
    const char *dirs[] = {SHIPPED};
    eb_error err;
    eb_error_clear(&err);
    int rc = eb_profiles_load(&shipped, dirs, 1, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    return rc;
}

static int free_shipped(void **state)
{
    (void)state;
    eb_profiles_free(&shipped);
    return 0;
}

static const eb_tier *tier(const char *chip, const char *name)
{
    const eb_chip *c = eb_profiles_chip(&shipped, chip);
    assert_non_null(c);
    const eb_tier *t = eb_chip_tier(c, name);
    if (!t)
        fail_msg("no tier %s/%s", chip, name);
    return t;
}

static void assert_field(const eb_tier *t, int f, int v)
{
    if (!t->set[f])
        fail_msg("%s: %s not set", t->name, eb_field_desc_get(f)->key);
    assert_int_equal(t->value[f], v);
}

static void assert_near(double got, double want)
{
    if (fabs(got - want) > 1e-9)
        fail_msg("got %g, want %g", got, want);
}

static void test_every_shipped_chip_loads(void **state)
{
    (void)state;
    static const char *const chips[] = {"esp32",   "esp32s2", "esp32s3",  "esp32c2", "esp32c3",
                                        "esp32c5", "esp32c6", "esp32c61", "esp32p4", "esp8266"};
    assert_int_equal(shipped.n_chips, 10);
    for (size_t i = 0; i < sizeof chips / sizeof chips[0]; i++) {
        const eb_chip *c = eb_profiles_chip(&shipped, chips[i]);
        if (!c)
            fail_msg("chip %s missing", chips[i]);
        assert_true(c->n_tiers >= 1);
        assert_true(c->n_magic >= 1);
        assert_true(c->rom_banner[0] != '\0');
        for (int k = 0; k < c->n_tiers; k++) {
            eb_error err;
            eb_error_clear(&err);
            if (eb_tier_validate(&c->tiers[k], &err))
                fail_msg("%s/%s: %s", c->name, c->tiers[k].name, err.msg);
            assert_true(c->tiers[k].label[0] != '\0');
        }
    }
}


/* Chip-level base: facts a chip leaves out come from its base chip; its own
 * win; tiers are not inherited. esp32c5/c61 derive from esp32c6. */
static void test_chip_base(void **state)
{
    (void)state;
    eb_profiles p;
    eb_error err;
    eb_error_clear(&err);
    const char *dirs[] = {SHIPPED, FIXTURES_DIR "/profiles/newchip"};
    if (eb_profiles_load(&p, dirs, 2, &err))
        fail_msg("%s", err.msg);
    const eb_chip *c6 = eb_profiles_chip(&p, "esp32c6"), *c5 = eb_profiles_chip(&p, "esp32c5");
    const eb_chip *t9 = eb_profiles_chip(&p, "esp32t9");
    assert_non_null(c6);
    assert_non_null(c5);
    assert_non_null(t9);
    assert_string_equal(c5->base, "esp32c6");
    assert_int_equal(c5->spi_reg_base, c6->spi_reg_base);
    assert_memory_equal(&c5->spi, &c6->spi, sizeof c5->spi);
    assert_int_equal(c5->arch, EB_ARCH_RISCV);
    assert_int_equal(c5->chip_id, 23);                  /* its own */
    assert_int_equal(c5->mem.drom, 0x42000000u);        /* its own map */
    assert_int_equal(t9->mem.drom, c6->mem.drom);       /* inherited map */
    assert_int_equal(t9->flash_size, 2u << 20);
    assert_int_equal(t9->n_tiers, 1);
    const eb_chip *e8266 = eb_profiles_chip(&p, "esp8266");
    assert_int_equal(e8266->image_format, EB_IMAGE_ESP8266);
    assert_int_equal(e8266->spi.miso_dlen, 0);
    assert_int_equal(eb_profiles_chip(&p, "esp32")->rom_deflate_window, 32768);
    assert_int_equal(eb_profiles_chip(&p, "esp32c3")->rom_deflate_window, 0);
    assert_non_null(eb_chip_spi_regs(c5, &err));
    eb_profiles_free(&p);

    /* a base that is not loaded, and a base chain that loops */
    char dir[] = "/tmp/eb-base-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/a.yaml", dir);
    FILE *f = fopen(path, "w");
    fputs("chip:\n  name: a\n  base: b\n  display: A\ntiers: []\n", f);
    fclose(f);
    const char *one[] = {dir};
    assert_int_equal(eb_profiles_load(&p, one, 1, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "a.yaml:3:9: chip 'a' has unknown base chip 'b' (loaded: a)"));
    snprintf(path, sizeof path, "%s/b.yaml", dir);
    f = fopen(path, "w");
    fputs("chip:\n  name: b\n  base: a\n  display: B\ntiers: []\n", f);
    fclose(f);
    assert_int_equal(eb_profiles_load(&p, one, 1, &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "base chain loops back to itself"));
    unlink(path);
    snprintf(path, sizeof path, "%s/a.yaml", dir);
    unlink(path);
    rmdir(dir);
}

static void test_each_file_loads_alone(void **state)
{
    (void)state;
    static const char *const files[] = {"esp32", "esp32s2", "esp32s3", "esp32c2", "esp32c3",
                                        "esp32c5", "esp32c6", "esp32c61", "esp8266"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.yaml", SHIPPED, files[i]);
        eb_profiles p;
        eb_error err;
        eb_error_clear(&err);
        int rc = eb_profiles_load_file(&p, path, &err);
        if (rc && strstr(err.msg, "has unknown base chip")) {
            /* A chip with a chip-level base (esp32c2, c5, c61) needs its base loaded too. */
            assert_true(!strcmp(files[i], "esp32c2") || !strcmp(files[i], "esp32c5") || !strcmp(files[i], "esp32c61"));
            continue;
        }
        if (rc)
            fail_msg("%s", err.msg);
        assert_int_equal(p.n_chips, 1);
        assert_string_equal(p.chips[0].name, files[i]);
        eb_profiles_free(&p);
    }
}

static void test_esp32_docs_table(void **state)
{
    (void)state;
    const eb_chip *c = eb_profiles_chip(&shipped, "esp32");
    static const char *const order[] = {"iperf",   "tx-prior",      "high-performance", "rx-prior",
                                        "default", "memory-saving", "minimum"};
    int n = 0;
    for (int i = 0; i < c->n_tiers; i++) {
        if (c->tiers[i].psram)
            continue;
        assert_true(n < 7);
        assert_string_equal(c->tiers[i].name, order[n]);
        n++;
    }
    assert_int_equal(n, 7);

    const eb_tier *t = tier("esp32", "iperf");
    assert_field(t, EB_F_STATIC_RX, 16);
    assert_field(t, EB_F_DYNAMIC_RX, 64);
    assert_field(t, EB_F_DYNAMIC_TX, 64);
    assert_false(t->set[EB_F_STATIC_TX]);
    assert_field(t, EB_F_RX_BA_WIN, 32);
    assert_field(t, EB_F_TCP_SND_BUF_KB, 65);
    assert_field(t, EB_F_TCP_WND_KB, 65);
    assert_field(t, EB_F_WIFI_IRAM_OPT, 1);
    assert_near(t->ref_mbps[EB_TEST_TCP_TX], 74.6);
    assert_near(t->ref_mbps[EB_TEST_TCP_RX], 63.6);
    assert_near(t->ref_mbps[EB_TEST_UDP_TX], 76.2);
    assert_near(t->ref_mbps[EB_TEST_UDP_RX], 83.1);
    assert_near(t->ref_avail_kb, 37.1);
    assert_string_equal(t->label, "Iperf");
    assert_true(t->runtime[EB_F_STATIC_RX]);
    assert_false(t->runtime[EB_F_TCP_WND_KB]);
    assert_string_equal(t->image, "");

    t = tier("esp32", "minimum");
    assert_field(t, EB_F_RX_BA_WIN, 0); /* "Disable" */
    assert_field(t, EB_F_STATIC_RX, 4);
    assert_near(t->ref_avail_kb, 185.2);

    t = tier("esp32", "tx-prior");
    assert_string_equal(t->label_zh, "发送数据优先");
    assert_field(t, EB_F_TCP_WND_KB, 16);
    assert_near(t->ref_mbps[EB_TEST_TCP_TX], 50.8);

    t = tier("esp32", "psram-minimum");
    assert_true(t->psram);
    assert_field(t, EB_F_STATIC_TX, 2);
    assert_false(t->set[EB_F_DYNAMIC_TX]);
    assert_field(t, EB_F_RX_BA_WIN, 0);
    assert_field(t, EB_F_WIFI_IRAM_OPT, 0);
    assert_near(t->ref_avail_kb, 202.6);
}

static void test_other_chips_spot_checks(void **state)
{
    (void)state;
    const eb_tier *t = tier("esp32s3", "psram-quad-iperf");
    assert_near(t->ref_mbps[EB_TEST_TCP_TX], 93.1);
    assert_field(t, EB_F_DYNAMIC_RX, 85);
    assert_field(t, EB_F_TCP_WND_KB, 85);
    assert_field(t, EB_F_UDP_MBOX, 16);
    assert_field(t, EB_F_DCACHE_KB, 64);

    /* psram-oct-* inherit their settings from the quad twin, keep their own figures. */
    t = tier("esp32s3", "psram-oct-iperf");
    assert_string_equal(t->base, "psram-quad-iperf");
    assert_true(t->psram);
    assert_field(t, EB_F_STATIC_RX, 24);
    assert_field(t, EB_F_STATIC_TX, 32);
    assert_near(t->ref_mbps[EB_TEST_TCP_TX], 93.3);
    assert_near(t->ref_avail_kb, 49.1);
    t = tier("esp32s3", "psram-oct-minimum");
    assert_field(t, EB_F_RX_BA_WIN, 0);
    assert_near(t->ref_mbps[EB_TEST_UDP_RX], 55.7);

    t = tier("esp32s3", "iperf");
    assert_near(t->ref_mbps[EB_TEST_TCP_TX], 83.93);
    assert_field(t, EB_F_ICACHE_WAYS, 8);

    t = tier("esp32c2", "default");
    assert_field(t, EB_F_STATIC_RX, 7);
    assert_field(t, EB_F_DYNAMIC_RX, 14);
    assert_field(t, EB_F_DYNAMIC_TX, 14);
    assert_field(t, EB_F_RX_BA_WIN, 12);
    assert_field(t, EB_F_TCP_SND_BUF_KB, 14);
    assert_near(t->ref_avail_kb, 56);
    assert_near(t->ref_mbps[EB_TEST_TCP_TX], 21.4);
    assert_string_equal(t->label_zh, "默认");

    t = tier("esp32s2", "minimum");
    assert_field(t, EB_F_ICACHE_KB, 8);
    assert_field(t, EB_F_WIFI_IRAM_OPT, 0);
    assert_near(t->ref_avail_kb, 116.4);

    t = tier("esp32c6", "iperf");
    assert_field(t, EB_F_STATIC_RX, 20);
    assert_near(t->ref_avail_kb, 223);

    /* esp32c5/c61: one tier from the iperf example's sdkconfig, no memory figure. */
    const eb_chip *c = eb_profiles_chip(&shipped, "esp32c5");
    assert_int_equal(c->n_tiers, 1);
    t = tier("esp32c5", "iperf");
    assert_true(isnan(t->ref_avail_kb));
    assert_field(t, EB_F_TCP_SND_BUF_KB, 41);
    assert_field(t, EB_F_TCP_WND_KB, 65);
    assert_field(t, EB_F_RX_BA_WIN, 22);
    assert_near(t->ref_mbps[EB_TEST_TCP_TX], 49);
    assert_near(t->ref_mbps[EB_TEST_UDP_RX], 68);
    t = tier("esp32c61", "iperf");
    assert_field(t, EB_F_STATIC_RX, 14);
    assert_field(t, EB_F_TCP_WND_KB, 37);
    assert_near(t->ref_mbps[EB_TEST_TCP_RX], 45);
}

static void test_esp8266_build_variants(void **state)
{
    (void)state;
    const eb_chip *c = eb_profiles_chip(&shipped, "esp8266");
    assert_int_equal(c->chip_id, -1);
    assert_int_equal(c->rom_status_bytes, 2);
    assert_false(c->rom_security_info);
    assert_int_equal(c->n_tiers, 5);
    for (int i = 0; i < c->n_tiers; i++) {
        const eb_tier *t = &c->tiers[i];
        assert_true(t->image[0] != '\0');
        for (int f = 0; f < EB_F_COUNT; f++)
            assert_false(t->runtime[f]);
    }
    const eb_tier *t = tier("esp8266", "all-off");
    assert_field(t, EB_F_CPU_MHZ, 80);
    assert_field(t, EB_F_AMPDU_RX, 0);
    assert_field(t, EB_F_FULL_CACHE, 0);
    assert_field(t, EB_F_RX_BUF_NUM, 26); /* inherited from default */
    assert_string_equal(t->image, "esp8266-iperf-all-off");
    assert_near(t->ref_mbps[EB_TEST_UDP_RX], 11.25);
    t = tier("esp8266", "ampdu-off");
    assert_field(t, EB_F_CPU_MHZ, 160);
    assert_field(t, EB_F_AMPDU_RX, 0);
    assert_field(t, EB_F_FULL_CACHE, 1);
}

static void test_chip_facts_and_lookups(void **state)
{
    (void)state;
    const eb_chip *c = eb_profiles_chip(&shipped, "esp32s3");
    assert_string_equal(c->display, "ESP32-S3");
    assert_int_equal(c->chip_id, 9);
    assert_int_equal(c->magic[0], 0x9);
    assert_int_equal(c->bootloader_offset, 0);
    assert_int_equal(c->efuse_mac_reg, 0x60007044);
    assert_int_equal(c->spi_reg_base, 0x60002000);
    assert_string_equal(c->rom_banner, "ESP-ROM:esp32s3-20210327");
    assert_true(c->rom_security_info);
    assert_int_equal(c->rom_status_bytes, 4);
    c = eb_profiles_chip(&shipped, "esp32");
    assert_int_equal(c->bootloader_offset, 0x1000);
    assert_int_equal(c->flash_size, 4 * 1024 * 1024);
    assert_false(c->rom_security_info);
    assert_string_equal(c->rom_banner, "ets Jun  8 2016 00:22:57");
    assert_int_equal(eb_profiles_chip(&shipped, "esp32c5")->bootloader_offset, 0x2000);

    assert_string_equal(eb_profiles_chip_by_id(&shipped, 9)->name, "esp32s3");
    assert_string_equal(eb_profiles_chip_by_id(&shipped, 23)->name, "esp32c5");
    assert_string_equal(eb_profiles_chip_by_id(&shipped, 0)->name, "esp32");
    assert_null(eb_profiles_chip_by_id(&shipped, -1));
    assert_null(eb_profiles_chip_by_id(&shipped, 77));
    assert_string_equal(eb_profiles_chip_by_magic(&shipped, 0x1B31506F)->name, "esp32c3");
    assert_string_equal(eb_profiles_chip_by_magic(&shipped, 0xFFF0C101)->name, "esp8266");
    assert_string_equal(eb_profiles_chip_by_magic(&shipped, 0x00F01D83)->name, "esp32");
    assert_string_equal(eb_profiles_chip_by_magic(&shipped, 0x000007C6)->name, "esp32s2");
    assert_null(eb_profiles_chip_by_magic(&shipped, 0xDEADBEEF));
    assert_null(eb_profiles_chip(&shipped, "esp32h2"));
    assert_null(eb_chip_tier(eb_profiles_chip(&shipped, "esp32"), "turbo"));
}

static void test_field_table(void **state)
{
    (void)state;
    for (int f = 0; f < EB_F_COUNT; f++) {
        const eb_field_desc *d = eb_field_desc_get(f);
        assert_non_null(d);
        assert_non_null(d->key);
        assert_non_null(d->kconfig);
        assert_non_null(d->label);
        assert_int_equal(eb_field_from_key(d->key), f);
        assert_true(d->min <= d->max);
    }
    assert_null(eb_field_desc_get(EB_F_COUNT));
    assert_null(eb_field_desc_get(-1));
    assert_int_equal(eb_field_from_key("nope"), -1);
    assert_string_equal(eb_field_desc_get(EB_F_TCP_SND_BUF_KB)->label, "TCP_SND_BUF_DEFAULT (KB)");
    assert_string_equal(eb_field_desc_get(EB_F_TCP_WND_KB)->label, "TCP_WND_DEFAULT (KB)");
    assert_string_equal(eb_field_desc_get(EB_F_LWIP_IRAM_OPT)->label, "LWIP_IRAM_OPTIMIZATION");
    assert_string_equal(eb_field_desc_get(EB_F_ICACHE_KB)->label, "INSTRUCTION_CACHE");
    assert_string_equal(eb_field_desc_get(EB_F_DCACHE_WAYS)->label, "DATA_CACHE_WAYS");
    assert_int_equal(eb_field_desc_get(EB_F_RX_BA_WIN)->kind, EB_FK_BA);
    assert_true(eb_field_desc_get(EB_F_STATIC_RX)->runtime);
    assert_false(eb_field_desc_get(EB_F_TCP_MBOX)->runtime);
    char buf[16];
    assert_string_equal(eb_field_format(EB_F_RX_BA_WIN, 0, buf, sizeof buf), "Disable");
    assert_string_equal(eb_field_format(EB_F_RX_BA_WIN, 12, buf, sizeof buf), "12");
    assert_string_equal(eb_field_format(EB_F_LWIP_IRAM_OPT, 1, buf, sizeof buf), "ENABLE");
    assert_string_equal(eb_field_format(EB_F_LWIP_IRAM_OPT, 0, buf, sizeof buf), "DISABLE");

    assert_string_equal(eb_test_name(EB_TEST_TCP_TX), "tcp_tx");
    assert_string_equal(eb_test_label(EB_TEST_UDP_RX), "UDP RX");
    assert_string_equal(eb_test_docs_label(EB_TEST_TCP_RX), "TCP RX throughput (Mbit/s)");
    assert_int_equal(eb_test_from_name("udp_tx"), EB_TEST_UDP_TX);
    assert_int_equal(eb_test_from_name("sctp"), -1);
    /* ESP-Hosted's raw transport tests follow the four of the docs' tables. */
    assert_null(eb_test_name(EB_TEST_COUNT)); /* the run's latency test, named by run.h */
    assert_string_equal(eb_test_name(EB_TEST_RAW_TX), "raw_tx");
    assert_int_equal(eb_test_from_name("raw_rx"), EB_TEST_RAW_RX);
    assert_null(eb_test_name(EB_TEST_ALL_COUNT));
}

static void test_validate_rules(void **state)
{
    (void)state;
    eb_tier t;
    memset(&t, 0, sizeof t);
    eb_error err;
    eb_error_clear(&err);
    int bad;
    t.set[EB_F_STATIC_RX] = t.set[EB_F_DYNAMIC_RX] = t.set[EB_F_RX_BA_WIN] = true;
    t.value[EB_F_STATIC_RX] = 6;
    t.value[EB_F_DYNAMIC_RX] = 20;
    t.value[EB_F_RX_BA_WIN] = 12; /* = 2*6: allowed */
    assert_int_equal(eb_tier_validate(&t, &err), 0);
    t.value[EB_F_RX_BA_WIN] = 13;
    assert_int_equal(eb_tier_validate_field(&t, &bad, &err), EB_ECONFIG);
    assert_int_equal(bad, EB_F_RX_BA_WIN);
    assert_string_equal(err.msg, "rx_ba_win = 13 exceeds min(dynamic_rx, 2*static_rx) = min(20, 12) "
                                 "= 12; ESP-IDF requires WIFI_RX_BA_WIN <= "
                                 "min(WIFI_DYNAMIC_RX_BUFFER_NUM, 2*WIFI_STATIC_RX_BUFFER_NUM)");
    t.value[EB_F_RX_BA_WIN] = 0; /* disabled: no window rule */
    t.value[EB_F_STATIC_RX] = 2;
    assert_int_equal(eb_tier_validate(&t, &err), 0);
    t.value[EB_F_RX_BA_WIN] = 1; /* neither Disable nor 2..64 */
    assert_int_equal(eb_tier_validate_field(&t, &bad, &err), EB_ECONFIG);
    assert_string_equal(err.msg, "rx_ba_win = 1 is outside the Kconfig range 2..64 or Disable of "
                                 "WIFI_RX_BA_WIN");
    /* dynamic_rx 0 means unlimited and does not bound the window */
    t.value[EB_F_STATIC_RX] = 16;
    t.value[EB_F_DYNAMIC_RX] = 0;
    t.value[EB_F_RX_BA_WIN] = 32;
    assert_int_equal(eb_tier_validate(&t, &err), 0);
    /* above 65 KB needs WND_SCALE, i.e. a PSRAM tier */
    t.set[EB_F_TCP_WND_KB] = true;
    t.value[EB_F_TCP_WND_KB] = 85;
    assert_int_equal(eb_tier_validate_field(&t, &bad, &err), EB_ECONFIG);
    assert_int_equal(bad, EB_F_TCP_WND_KB);
    t.psram = true;
    assert_int_equal(eb_tier_validate(&t, &err), 0);
}

static void test_minimal_fixture_inheritance(void **state)
{
    (void)state;
    eb_profiles p;
    eb_error err;
    eb_error_clear(&err);
    if (eb_profiles_load_file(&p, FIX "/good_minimal.yaml", &err))
        fail_msg("%s", err.msg);
    const eb_chip *c = eb_profiles_chip(&p, "testchip");
    assert_non_null(c);
    assert_int_equal(c->n_magic, 1);
    assert_int_equal(c->magic[0], 0x12345678);
    const eb_tier *t = eb_chip_tier(c, "psram");
    assert_true(t->psram);
    assert_false(t->set[EB_F_DYNAMIC_TX]); /* dropped with "dynamic_tx: null" */
    assert_int_equal(t->value[EB_F_STATIC_TX], 8);
    assert_int_equal(t->value[EB_F_STATIC_RX], 8); /* inherited */
    assert_string_equal(t->base, "default");
    assert_string_equal(t->label, ""); /* labels are not inherited */
    assert_true(isnan(t->ref_avail_kb));
    t = eb_chip_tier(c, "rebuild");
    assert_false(t->runtime[EB_F_TCP_WND_KB]);
    assert_false(t->runtime[EB_F_STATIC_RX]);
    assert_string_equal(t->image, "testchip-rebuild");
    eb_profiles_free(&p);
}

static void test_overlay_dirs(void **state)
{
    (void)state;
    const char *dirs[] = {SHIPPED, FIX "/overlay", FIX "/replace"};
    eb_profiles p;
    eb_error err;
    eb_error_clear(&err);
    if (eb_profiles_load(&p, dirs, 3, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(p.n_chips, 10);
    const eb_chip *c = eb_profiles_chip(&p, "esp32");
    assert_int_equal(c->n_tiers, 12); /* 11 shipped + lab-wide; minimum replaced in place */
    assert_string_equal(c->tiers[6].name, "minimum");
    assert_string_equal(c->tiers[6].label, "Minimum (lab)");
    assert_int_equal(c->tiers[6].value[EB_F_RX_BA_WIN], 6);
    assert_true(isnan(c->tiers[6].ref_avail_kb));
    const eb_tier *t = eb_chip_tier(c, "lab-wide");
    assert_int_equal(t->value[EB_F_STATIC_RX], 20);
    assert_int_equal(t->value[EB_F_RX_BA_WIN], 40);
    assert_int_equal(t->value[EB_F_DYNAMIC_RX], 64); /* from the shipped iperf tier */
    c = eb_profiles_chip(&p, "esp32c3");
    assert_string_equal(c->display, "ESP32-C3 (lab)");
    assert_int_equal(c->n_tiers, 1);
    assert_int_equal(c->flash_size, 2 * 1024 * 1024);
    assert_null(eb_chip_tier(c, "iperf"));
    eb_profiles_free(&p);

    /* An overlay whose chip is not loaded (no shipped dir first). */
    const char *only_overlay[] = {FIX "/overlay"};
    assert_int_equal(eb_profiles_load(&p, only_overlay, 1, &err), EB_ECONFIG);
    assert_string_equal(err.msg, FIX "/overlay/esp32-extra.yaml:2:10: overlay for unknown chip "
                                     "'esp32' (loaded: none)");
}

static void test_load_default_env_and_user_dir(void **state)
{
    (void)state;
    eb_profiles p;
    eb_error err;
    eb_error_clear(&err);
    unsetenv("ESPBENCH_PROFILES");
    if (eb_profiles_load_default(&p, NULL, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(eb_profiles_chip(&p, "esp32")->n_tiers, 11);
    eb_profiles_free(&p);

    setenv("ESPBENCH_PROFILES", FIX "/overlay", 1);
    if (eb_profiles_load_default(&p, FIX "/replace", &err))
        fail_msg("%s", err.msg);
    assert_int_equal(eb_profiles_chip(&p, "esp32")->n_tiers, 12);
    assert_string_equal(eb_profiles_chip(&p, "esp32c3")->display, "ESP32-C3 (lab)");
    eb_profiles_free(&p);
    unsetenv("ESPBENCH_PROFILES");

    assert_int_equal(eb_profiles_load_default(&p, FIX "/no-such-dir", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "profiles directory '" FIX "/no-such-dir': No such file or directory");
}

/* `profiles show --json` writes every fact of the chips' table, for every
 * shipped chip (a fact a chip leaves out is null or absent only where the
 * table says it may be: an empty optional string, an absent block). */
static void test_render_json_has_every_fact(void **state)
{
    (void)state;
    for (int k = 0; k < shipped.n_chips; k++) {
        const eb_chip *c = &shipped.chips[k];
        char *s = eb_chip_render_json(c, NULL);
        cJSON *o = cJSON_Parse(s);
        assert_non_null(o);
        for (size_t i = 0; i < eb_chip_n_facts; i++) {
            const struct fact *f = &eb_chip_facts[i];
            const char *key = strcmp(f->key, "name") ? f->key : "chip";
            bool may_be_absent = (f->type == FT_STR && !f->required) || (f->type == FT_SPI && !c->has_spi_regs) ||
                                 (f->type == FT_MEMMAP && !c->has_memory_map);
            if (!cJSON_GetObjectItem(o, key) && !may_be_absent)
                fail_msg("%s: '%s' missing from profiles show --json", c->name, key);
        }
        cJSON_Delete(o);
        free(s);
    }
    const eb_chip *esp32 = eb_profiles_chip(&shipped, "esp32");
    char *s = eb_chip_render_json(esp32, NULL);
    cJSON *o = cJSON_Parse(s);
    assert_int_equal(cJSON_GetObjectItem(o, "rom_deflate_window")->valueint, (int)esp32->rom_deflate_window);
    assert_true(esp32->rom_deflate_window > 0);
    assert_string_equal(cJSON_GetObjectItem(o, "efuse_mac_reg")->valuestring, "0x3FF5A004");
    cJSON_Delete(o);
    free(s);
}

static void test_render_json_and_table(void **state)
{
    (void)state;
    const eb_chip *c = eb_profiles_chip(&shipped, "esp32");
    char *s = eb_chip_render_json(c, NULL);
    assert_non_null(s);
    cJSON *o = cJSON_Parse(s);
    assert_non_null(o);
    assert_string_equal(cJSON_GetObjectItem(o, "chip")->valuestring, "esp32");
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "magic"), 0)->valuestring,
                        "0x00F01D83");
    cJSON *tiers = cJSON_GetObjectItem(o, "tiers");
    assert_int_equal(cJSON_GetArraySize(tiers), 11);
    cJSON *iperf = cJSON_GetArrayItem(tiers, 0);
    assert_string_equal(cJSON_GetObjectItem(iperf, "name")->valuestring, "iperf");
    cJSON *set = cJSON_GetObjectItem(iperf, "settings");
    assert_int_equal(cJSON_GetObjectItem(set, "static_rx")->valueint, 16);
    assert_int_equal(cJSON_GetObjectItem(set, "rx_ba_win")->valueint, 32);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(set, "wifi_iram_opt")));
    assert_null(cJSON_GetObjectItem(set, "static_tx"));
    cJSON *rt = cJSON_GetObjectItem(iperf, "runtime");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(rt, "static_rx")));
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(rt, "tcp_wnd_kb")));
    cJSON *ref = cJSON_GetObjectItem(iperf, "reference");
    assert_near(cJSON_GetObjectItem(ref, "tcp_tx_mbps")->valuedouble, 74.6);
    assert_near(cJSON_GetObjectItem(ref, "avail_kb")->valuedouble, 37.1);
    cJSON_Delete(o);
    free(s);

    s = eb_chip_render_json(eb_profiles_chip(&shipped, "esp32c61"), NULL);
    o = cJSON_Parse(s);
    ref = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o, "tiers"), 0), "reference");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(ref, "avail_kb")));
    cJSON_Delete(o);
    free(s);

    s = eb_chip_render_table(c, eb_chip_tier(c, "minimum"));
    assert_non_null(s);
    assert_non_null(strstr(s, "\nWIFI_RX_BA_WIN              Disable\n"));
    assert_non_null(strstr(s, "\nTCP_SND_BUF_DEFAULT (KB) *        8\n"));
    assert_non_null(strstr(s, "\nAvailable memory (KB)         185.2\n"));
    free(s);
    s = eb_chip_render_table(c, NULL);
    assert_non_null(strstr(s, "\npsram-* tiers (with PSRAM)\n"));
    assert_non_null(strstr(s, "Rank                         Iperf  TX prior  High-performance"));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_shipped_chip_loads),
        cmocka_unit_test(test_each_file_loads_alone),
        cmocka_unit_test(test_chip_base),
        cmocka_unit_test(test_esp32_docs_table),
        cmocka_unit_test(test_other_chips_spot_checks),
        cmocka_unit_test(test_esp8266_build_variants),
        cmocka_unit_test(test_chip_facts_and_lookups),
        cmocka_unit_test(test_field_table),
        cmocka_unit_test(test_validate_rules),
        cmocka_unit_test(test_minimal_fixture_inheritance),
        cmocka_unit_test(test_overlay_dirs),
        cmocka_unit_test(test_load_default_env_and_user_dir),
        cmocka_unit_test(test_render_json_and_table),
        cmocka_unit_test(test_render_json_has_every_fact),
    };
    return cmocka_run_group_tests(tests, load_shipped, free_shipped);
}
