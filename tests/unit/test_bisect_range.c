/* The bisect range on a small repository shaped as ESP-IDF's history
 * (release tags on release/vX.Y, feature branches merged with --no-ff):
 * GOOD on the release branch starts the range at the merge base; an end
 * outside the firmware's ESP-IDF range and BAD before GOOD are one line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/jobs/bisect.h"
#include "espbench/jobs/idf_build.h"

static char repo[256];

/* The repository's history, as git commands run in it (sh -c, no user input). */
static const char history[] =
    "set -e; g() { git -c user.email=t@t.invalid -c user.name=t -c commit.gpgsign=false \"$@\"; }\n"
    "h() { mkdir -p components/esp_common/include; printf '#define ESP_IDF_VERSION_MAJOR 5\\n"
    "#define ESP_IDF_VERSION_MINOR %s\\n#define ESP_IDF_VERSION_PATCH %s\\n' $1 $2 "
    "> components/esp_common/include/esp_idf_version.h; }\n"
    "git init -q -b master .\n"
    "h 1 0; g add -A; g commit -qm m0; g tag too-old\n"
    "h 2 0; g add -A; g commit -qm m1; g tag v5.2-dev\n"
    "echo 2 > f; g add -A; g commit -qm m2; g tag base\n"
    "g checkout -q -b release/v5.2; h 2 1; g add -A; g commit -qm 'v5.2.1'; g tag v5.2.1\n"
    "g checkout -q master; h 3 0; g add -A; g commit -qm 'bump to 5.3'\n"
    "for f in 1 2 3; do g checkout -q -b feature/$f; echo $f > x$f; g add -A; g commit -qm \"feature $f\";"
    " g checkout -q master; g merge -q --no-ff -m \"Merge feature/$f\" feature/$f; done\n"
    "g tag bad\n";

static int setup(void **state)
{
    (void)state;
    snprintf(repo, sizeof repo, "/tmp/espbench-bisect-range-XXXXXX");
    if (!mkdtemp(repo))
        return -1;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd '%s' && { %s } >/dev/null 2>&1", repo, history);
    return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", repo);
    return system(cmd) == 0 ? 0 : -1;
}

static void rev(const char *name, char out[41])
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "git -C '%s' rev-parse '%s^{commit}'", repo, name);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    assert_non_null(fgets(out, 41, p));
    pclose(p);
}

static void free_list(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void test_release_branch_starts_at_merge_base(void **state)
{
    (void)state;
    char **v = NULL, base[41], bad[41];
    int n = 0;
    eb_bisect_range r;
    eb_error e;
    assert_int_equal(eb_bisect_rev_list(repo, "v5.2.1", "bad", &v, &n, &r, &e), 0);
    rev("base", base);
    rev("bad", bad);
    assert_true(r.from_merge_base);
    assert_string_equal(r.start, base);
    assert_string_equal(v[0], base);
    assert_string_equal(v[n - 1], bad);
    assert_string_equal(r.start_version, "v5.2.0");
    assert_string_equal(r.bad_version, "v5.3.0");
    /* first parent: base, the bump, three merges (not the feature commits) */
    assert_int_equal(n, 5);
    free_list(v, n);
    /* An ancestor GOOD: no merge base. */
    assert_int_equal(eb_bisect_rev_list(repo, "v5.2-dev", "bad", &v, &n, &r, &e), 0);
    assert_false(r.from_merge_base);
    assert_int_equal(n, 6);
    free_list(v, n);
}

static void test_bad_input_is_one_line(void **state)
{
    (void)state;
    char **v = NULL;
    int n = 0;
    eb_bisect_range r;
    eb_error e;
    assert_int_equal(eb_bisect_rev_list(repo, "bad", "base", &v, &n, &r, &e), EB_ECONFIG);
    char want[600];
    snprintf(want, sizeof want, "--bad base is an ancestor of --good bad in %s; swap them", repo);
    assert_string_equal(e.msg, want);
    assert_int_equal(eb_bisect_rev_list(repo, "too-old", "bad", &v, &n, &r, &e), EB_ECONFIG);
    assert_non_null(strstr(e.msg, "--good too-old: ESP-IDF v5.1.0 is older than the firmware supports;"));
    assert_int_equal(eb_bisect_rev_list(repo, "nosuch", "bad", &v, &n, &r, &e), EB_ECONFIG);
    snprintf(want, sizeof want, "--good nosuch: not a commit of %s; check the revision", repo);
    assert_string_equal(e.msg, want);
    char ver[64];
    assert_int_equal(eb_idf_version_at(repo, "v5.2.1", ver, sizeof ver, &e), 0);
    assert_string_equal(ver, "v5.2.1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_release_branch_starts_at_merge_base),
        cmocka_unit_test(test_bad_input_is_one_line),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
