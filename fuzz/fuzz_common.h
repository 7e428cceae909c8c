/* Shared helpers of the libFuzzer targets (see fuzz/README.md). */
#ifndef ESPBENCH_FUZZ_COMMON_H
#define ESPBENCH_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated heap copy, so a parser that wrongly reads past len is
 * caught by ASan at the exact byte rather than running into the terminator. */
static inline char *fuzz_copy(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Calls fn for every '\n'-terminated line (without the newline), and the
 * tail; each line is its own exact-size heap block. */
static inline void fuzz_lines(const uint8_t *data, size_t size, void (*fn)(const char *, size_t, void *), void *user)
{
    size_t start = 0;
    for (size_t i = 0; i <= size; i++) {
        if (i == size || data[i] == '\n') {
            size_t n = i - start;
            char *line = malloc(n ? n : 1);
            if (!line)
                abort();
            memcpy(line, data + start, n);
            fn(line, n, user);
            free(line);
            start = i + 1;
        }
    }
}

#endif
