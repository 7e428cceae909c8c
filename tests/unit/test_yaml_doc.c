/* Every YAML loader refuses a broken document and a parser that cannot
 * start with the same error shape (formats/yaml_doc.c). The test program is
 * linked with --wrap=yaml_parser_initialize (tests/CMakeLists.txt), so a
 * flag here makes libyaml's initialisation fail as it would out of memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include <cmocka.h>

#include "espbench/formats/dialect.h"
#include "espbench/formats/hosted.h"
#include "espbench/formats/lab.h"
#include "espbench/formats/model.h"
#include "espbench/formats/pattern.h"
#include "espbench/formats/profile.h"

int __real_yaml_parser_initialize(yaml_parser_t *parser);
int __wrap_yaml_parser_initialize(yaml_parser_t *parser);

static bool init_fails;

int __wrap_yaml_parser_initialize(yaml_parser_t *parser)
{
    if (init_fails) {
        memset(parser, 0, sizeof *parser);
        return 0;
    }
    return __real_yaml_parser_initialize(parser);
}

typedef int (*load_fn)(const char *text, size_t len, const char *name, eb_error *err);

static int load_profile(const char *text, size_t len, const char *name, eb_error *err)
{
    eb_profiles p;
    int rc = eb_profiles_load_buffer(&p, text, len, name, err);
    if (!rc)
        eb_profiles_free(&p);
    return rc;
}

static int load_dialect(const char *text, size_t len, const char *name, eb_error *err)
{
    return eb_dialect_check_buffer(text, len, name, err);
}

static int load_hosted(const char *text, size_t len, const char *name, eb_error *err)
{
    eb_profiles prof = {0};
    eb_hosted_set s;
    int rc = eb_hosted_load_buffer(&s, text, len, name, &prof, err);
    if (!rc)
        eb_hosted_free(&s);
    return rc;
}

static int load_pattern(const char *text, size_t len, const char *name, eb_error *err)
{
    eb_pattern p;
    int rc = eb_pattern_load_buffer(&p, text, len, name, err);
    if (!rc)
        eb_pattern_free(&p);
    return rc;
}

static int load_lab(const char *text, size_t len, const char *name, eb_error *err)
{
    eb_lab lab;
    int rc = eb_lab_parse(&lab, text, len, name, ".", err);
    if (!rc)
        eb_lab_free(&lab);
    return rc;
}

static int load_model(const char *text, size_t len, const char *name, eb_error *err)
{
    eb_model m;
    int rc = eb_model_load_buffer(&m, text, len, name, err);
    if (!rc)
        eb_model_free(&m);
    return rc;
}

static const struct {
    const char *what;
    load_fn load;
} loaders[] = {
    {"profile", load_profile}, {"dialect", load_dialect}, {"hosted", load_hosted},
    {"pattern", load_pattern}, {"lab", load_lab},         {"model", load_model},
};

static void expect_each(const char *text, int want_rc, const char *want_msg)
{
    for (size_t i = 0; i < sizeof loaders / sizeof loaders[0]; i++) {
        eb_error err = {0};
        int rc = loaders[i].load(text, strlen(text), "f.yaml", &err);
        if (rc != want_rc || strcmp(err.msg, want_msg) != 0)
            fail_msg("%s loader:\n  got  (%d) %s\n  want (%d) %s", loaders[i].what, rc, err.msg, want_rc, want_msg);
    }
}

static void test_a_broken_flow_mapping_reads_the_same_everywhere(void **state)
{
    (void)state;
    expect_each("a:\n  b: {c: 1, d: 2\n  e: 3\n", EB_ECONFIG,
                "f.yaml:3:4: YAML syntax error: did not find expected ',' or '}' while parsing a flow mapping (line 2)");
}

static void test_bytes_that_are_not_utf8_read_the_same_everywhere(void **state)
{
    (void)state;
    expect_each("a: \xff\xfe\n", EB_ECONFIG, "f.yaml:1:1: YAML error: invalid leading UTF-8 octet at byte 3");
}

static void test_an_alias_is_refused_the_same_everywhere(void **state)
{
    (void)state;
    expect_each("a: &x 1\nb: *x\n", EB_ECONFIG,
                "f.yaml:1:4: YAML anchors (&name) are not accepted here; write the value out");
}

static void test_a_parser_that_cannot_start_reads_the_same_everywhere(void **state)
{
    (void)state;
    init_fails = true;
    expect_each("a: 1\n", EB_EIO, "f.yaml: cannot initialise the YAML parser");
    init_fails = false;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_broken_flow_mapping_reads_the_same_everywhere),
        cmocka_unit_test(test_bytes_that_are_not_utf8_read_the_same_everywhere),
        cmocka_unit_test(test_an_alias_is_refused_the_same_everywhere),
        cmocka_unit_test(test_a_parser_that_cannot_start_reads_the_same_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
