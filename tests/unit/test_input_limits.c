/* Pure functions added for fuzzing and hostile input: YAML limits
 * (yaml_guard), profiles from memory, the manifest lookup's path rule, and
 * the RFC 2217 client's negotiation state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/port_internal.h"
#include "espbench/jobs/firmware_source.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/yaml_guard.h"
#include "espbench/adapters/profile_dirs.h"

static void test_guard_accepts_plain_yaml(void **state)
{
    (void)state;
    const char *y = "chip:\n  name: x\ntiers:\n  - {name: a, settings: {static_rx: 4}}\n";
    eb_error err;
    assert_int_equal(eb_yaml_guard(y, strlen(y), "p.yaml", &err), 0);
}

static void test_guard_refuses_alias_anchor_depth_size(void **state)
{
    (void)state;
    eb_error err;
    const char *anchor = "a: &x 1\nb: 2\n";
    assert_int_equal(eb_yaml_guard(anchor, strlen(anchor), "p.yaml", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "p.yaml:1:4: YAML anchors (&name) are not accepted here; write the value out");
    const char *alias = "a: 1\nb: *x\n"; /* an alias without its anchor: still refused, not loaded */
    assert_int_equal(eb_yaml_guard(alias, strlen(alias), "p.yaml", &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "p.yaml:2:4: YAML aliases (*name) are not accepted here"));
    char deep[200];
    memset(deep, '[', 33);
    memset(deep + 33, ']', 33);
    deep[66] = '\0';
    assert_int_equal(eb_yaml_guard(deep, strlen(deep), "d.yaml", &err), EB_ECONFIG);
    assert_string_equal(err.msg, "d.yaml:1:33: nested deeper than the 32 levels a profile or lab file needs");
    memset(deep, '[', 32);
    memset(deep + 32, ']', 32);
    deep[64] = '\0';
    assert_int_equal(eb_yaml_guard(deep, strlen(deep), "d.yaml", &err), 0);
    size_t n = EB_YAML_MAX_BYTES + 1;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, '#', n);
    assert_int_equal(eb_yaml_guard(big, n, "b.yaml", &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "b.yaml: 1048577 bytes is larger than the 1048576-byte limit"));
    free(big);
}

static void test_profile_from_buffer_matches_file(void **state)
{
    (void)state;
    const char *path = FIXTURES_DIR "/profiles/good_minimal.yaml";
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char text[65536];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    eb_profiles a, b;
    eb_error err;
    assert_int_equal(eb_profiles_load_file(&a, path, &err), 0);
    assert_int_equal(eb_profiles_load_buffer(&b, text, n, "mem.yaml", &err), 0);
    assert_int_equal(a.n_chips, b.n_chips);
    assert_string_equal(a.chips[0].name, b.chips[0].name);
    assert_int_equal(a.chips[0].n_tiers, b.chips[0].n_tiers);
    assert_string_equal(b.chips[0].file, "mem.yaml");
    eb_profiles_free(&a);
    eb_profiles_free(&b);
    assert_int_equal(eb_profiles_load_buffer(&b, "chip: [", 7, "mem.yaml", &err), EB_ECONFIG);
    assert_non_null(strstr(err.msg, "mem.yaml:"));
}

static int lookup_file(const char *file, eb_error *err)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"schema\": 1, \"firmware\": {\"f\": {\"chips\": {\"esp32\": {\"images\": [{\"offset\": \"0x0\", "
             "\"file\": \"%s\", \"sha256\": \"%064d\"}]}}}}}", file, 0);
    eb_manifest_query q = {.firmware = "f", .chip = "esp32"};
    eb_manifest_image *imgs = NULL;
    int n = 0;
    int rc = eb_manifest_lookup(text, strlen(text), "m.json", &q, &imgs, &n, err);
    free(imgs);
    return rc;
}

static void test_manifest_files_stay_below_the_manifest(void **state)
{
    (void)state;
    eb_error err;
    assert_int_equal(lookup_file("a/b.bin", &err), 0);
    assert_int_equal(lookup_file("a..b/c..bin", &err), 0);
    const char *bad[] = {"../x.bin", "a/../../x.bin", "/etc/passwd", "a/..", "..", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(lookup_file(bad[i], &err), EB_ECONFIG);
        assert_non_null(strstr(err.msg, "points outside the manifest's directory; give a path below it"));
    }
}

static void test_rfc2217_negotiation(void **state)
{
    (void)state;
    eb_rfc2217_negot n;
    memset(&n, 0, sizeof n);
    eb_buf reply;
    eb_buf_init(&reply);
    eb_rfc2217_negotiate(&n, EB_TN_DO, EB_TN_COM_PORT, &reply);   /* we will */
    eb_rfc2217_negotiate(&n, EB_TN_DO, EB_TN_COM_PORT, &reply);   /* answered once only */
    eb_rfc2217_negotiate(&n, EB_TN_WILL, 99, &reply);             /* an option we do not want */
    const uint8_t want[] = {EB_TN_IAC, EB_TN_WILL, EB_TN_COM_PORT, EB_TN_IAC, EB_TN_DONT, 99};
    assert_int_equal(reply.len, sizeof want);
    assert_memory_equal(reply.data, want, sizeof want);
    assert_true(n.server_do_com_port);
    const uint8_t ack[] = {EB_TN_COM_PORT, 101, 0, 1, 0xC2, 0x00, 0xFF};
    eb_rfc2217_subneg(&n, ack, sizeof ack);
    assert_int_equal(n.acks[1], 1);
    assert_memory_equal(n.ack_value[1], ack + 2, 4);
    const uint8_t out_of_table[] = {EB_TN_COM_PORT, 255};
    eb_rfc2217_subneg(&n, out_of_table, sizeof out_of_table); /* ignored, no overflow */
    eb_rfc2217_subneg(&n, ack, 1);
    assert_int_equal(n.acks[1], 1);
    eb_buf_free(&reply);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guard_accepts_plain_yaml),
        cmocka_unit_test(test_guard_refuses_alias_anchor_depth_size),
        cmocka_unit_test(test_profile_from_buffer_matches_file),
        cmocka_unit_test(test_manifest_files_stay_below_the_manifest),
        cmocka_unit_test(test_rfc2217_negotiation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
