/* Replays inputs through a fuzz target's LLVMFuzzerTestOneInput without
 * libFuzzer: the test build compiles each fuzz/fuzz_<target>.c with this
 * main, under the test build's AddressSanitizer and UBSan, and `make test`
 * feeds it the inputs that once crashed (tests/fuzz/<target>/) and the
 * target's seeds (fuzz/corpora.txt). The same idea as libFuzzer's own
 * StandaloneFuzzTargetMain: a crash, leak or UB report fails the test;
 * fuzzing itself (random inputs for a while) is the bench's `fuzz` section.
 * Arguments: files or folders (walked recursively, in sorted order). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

#define REPLAY_MAX_INPUT (8u << 20) /* larger files are not inputs (libFuzzer's -max_len is far less) */

static int replay_file(const char *path, unsigned *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    uint8_t *buf = malloc(REPLAY_MAX_INPUT);
    if (!buf)
        abort();
    size_t len = fread(buf, 1, REPLAY_MAX_INPUT, f);
    fclose(f);
    /* An exact-size copy, so reading one byte past the input is an ASan error. */
    uint8_t *in = malloc(len ? len : 1);
    if (!in)
        abort();
    memcpy(in, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(in, len);
    free(in);
    (*n)++;
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b) { return strcmp((*a)->d_name, (*b)->d_name); }

static int replay(const char *path, unsigned *n)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s does not exist\n", path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return S_ISREG(st.st_mode) ? replay_file(path, n) : 0;
    struct dirent **list;
    int k = scandir(path, &list, NULL, by_name);
    if (k < 0) {
        fprintf(stderr, "replay: cannot read the folder %s\n", path);
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < k; i++) {
        if (list[i]->d_name[0] != '.' && !rc) {
            size_t len = strlen(path) + strlen(list[i]->d_name) + 2;
            char *sub = malloc(len);
            if (!sub)
                abort();
            snprintf(sub, len, "%s/%s", path, list[i]->d_name);
            rc = replay(sub, n);
            free(sub);
        }
        free(list[i]);
    }
    free(list);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned n = 0;
    for (int i = 1; i < argc; i++)
        if (replay(argv[i], &n))
            return 1;
    printf("%s: %u inputs replayed\n", argv[0], n);
    return n > 0 ? 0 : 1;
}
