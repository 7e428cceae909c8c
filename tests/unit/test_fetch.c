/* Downloads into the cache (file:// URLs here; HTTP is covered by
 * tests/e2e/fetch_http.sh against a real server): hash check, deletion on
 * mismatch, size limit, resume of a partial file, cache reuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "espbench/adapters/fetch.h"
#include "espbench/base/sha256.h"

typedef struct {
    char dir[64];
    char src[128];
    char url[160];
    char cache[128];
    char sha[65];
} fx;

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static int setup(void **state)
{
    fx *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/espbench-fetch-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->src, sizeof f->src, "%s/image.bin", f->dir);
    snprintf(f->url, sizeof f->url, "file://%s", f->src);
    snprintf(f->cache, sizeof f->cache, "%s/cache", f->dir);
    uint8_t data[100000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 31 + (i >> 8));
    write_file(f->src, data, sizeof data);
    eb_error err;
    if (eb_sha256_file(f->src, f->sha, &err) != EB_OK)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0)
        return -1;
    free(f);
    return 0;
}

static void test_fetch_and_reuse(void **state)
{
    fx *f = *state;
    eb_error err;
    eb_error_clear(&err);
    char path[1024], want[256];
    eb_fetch_opts o = {.cache_dir = f->cache, .sha256 = f->sha};
    assert_int_equal(eb_fetch(f->url, &o, path, sizeof path, &err), EB_OK);
    snprintf(want, sizeof want, "%s/%s", f->cache, f->sha);
    assert_string_equal(path, want);
    char have[65];
    assert_int_equal(eb_sha256_file(path, have, &err), EB_OK);
    assert_string_equal(have, f->sha);
    /* Cached: works even when the source is gone. */
    unlink(f->src);
    assert_int_equal(eb_fetch(f->url, &o, path, sizeof path, &err), EB_OK);
}

static void test_mismatch_deletes(void **state)
{
    fx *f = *state;
    eb_error err;
    eb_error_clear(&err);
    char path[1024], part[256];
    const char *wrong = "1111111111111111111111111111111111111111111111111111111111111111";
    eb_fetch_opts o = {.cache_dir = f->cache, .sha256 = wrong};
    assert_int_equal(eb_fetch(f->url, &o, path, sizeof path, &err), EB_EIO);
    char msg[512];
    snprintf(msg, sizeof msg, "%s: sha256 %s does not match the expected %s; the download was deleted", f->url, f->sha,
             wrong);
    assert_string_equal(err.msg, msg);
    snprintf(part, sizeof part, "%s/%s.part", f->cache, wrong);
    struct stat st;
    assert_int_not_equal(stat(part, &st), 0);
    assert_int_not_equal(stat(path, &st), 0);
}

static void test_size_limit(void **state)
{
    fx *f = *state;
    eb_error err;
    eb_error_clear(&err);
    char path[1024];
    eb_fetch_opts o = {.cache_dir = f->cache, .sha256 = f->sha, .max_bytes = 50000};
    assert_int_equal(eb_fetch(f->url, &o, path, sizeof path, &err), EB_EIO);
    char msg[512];
    snprintf(msg, sizeof msg, "%s: larger than the 50000-byte limit; refusing it", f->url);
    assert_string_equal(err.msg, msg);
}

static void test_resume_partial(void **state)
{
    fx *f = *state;
    eb_error err;
    eb_error_clear(&err);
    /* The first 30000 bytes are already there from an interrupted download. */
    mkdir(f->cache, 0755);
    FILE *in = fopen(f->src, "rb");
    uint8_t head[30000];
    assert_int_equal(fread(head, 1, sizeof head, in), sizeof head);
    fclose(in);
    char part[256], path[1024];
    snprintf(part, sizeof part, "%s/%s.part", f->cache, f->sha);
    write_file(part, head, sizeof head);
    eb_fetch_opts o = {.cache_dir = f->cache, .sha256 = f->sha};
    assert_int_equal(eb_fetch(f->url, &o, path, sizeof path, &err), EB_OK);
    char have[65];
    assert_int_equal(eb_sha256_file(path, have, &err), EB_OK);
    assert_string_equal(have, f->sha);
}

static void test_bad_arguments(void **state)
{
    fx *f = *state;
    eb_error err;
    eb_error_clear(&err);
    char path[1024];
    eb_fetch_opts o = {.cache_dir = f->cache, .sha256 = "abc"};
    assert_int_equal(eb_fetch(f->url, &o, path, sizeof path, &err), EB_ECONFIG);
    o.sha256 = f->sha;
    assert_int_equal(eb_fetch("ftp://127.0.0.1/x.bin", &o, path, sizeof path, &err), EB_EIO);
    assert_int_equal(eb_fetch("file:///nonexistent/espbench.bin", &o, path, sizeof path, &err), EB_EIO);
    assert_non_null(strstr(err.msg, "file:///nonexistent/espbench.bin: "));
}

static void test_cache_dir_from_env(void **state)
{
    fx *f = *state;
    char dir[1024], want[256];
    eb_error err;
    eb_error_clear(&err);
    setenv("XDG_CACHE_HOME", f->dir, 1);
    assert_int_equal(eb_cache_dir(dir, sizeof dir, &err), EB_OK);
    snprintf(want, sizeof want, "%s/espbench", f->dir);
    assert_string_equal(dir, want);
    setenv("XDG_CACHE_HOME", "relative/not/allowed", 1);
    setenv("HOME", f->dir, 1);
    assert_int_equal(eb_cache_dir(dir, sizeof dir, &err), EB_OK);
    snprintf(want, sizeof want, "%s/.cache/espbench", f->dir);
    assert_string_equal(dir, want);
    struct stat st;
    assert_int_equal(stat(want, &st), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fetch_and_reuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mismatch_deletes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_size_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resume_partial, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_dir_from_env, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
