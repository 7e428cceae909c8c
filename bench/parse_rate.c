/* bench-only: the parser alone (eb_parse_log_buffer over a log held in
 * memory, no file I/O, no results JSON), for bench/benchlib/parsing.py.
 * Built by the harness against the build's static libraries.
 * usage: parse_rate board|pc LOG MIN_SECONDS
 * prints: {"lines": N, "runs": R, "best_s": S, "entries": E} */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "espbench/jobs/parse_job.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *data = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (cap - n < 65536) {
            cap = cap ? cap * 2 : 1 << 20;
            char *p = realloc(data, cap);
            if (!p) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = p;
        }
        got = fread(data + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *len = n;
    return data;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "board") && strcmp(argv[1], "pc"))) {
        fprintf(stderr, "usage: parse_rate board|pc LOG MIN_SECONDS\n");
        return 2;
    }
    size_t len = 0;
    char *data = slurp(argv[2], &len);
    if (!data) {
        fprintf(stderr, "parse_rate: cannot read %s\n", argv[2]);
        return 3;
    }
    long lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += data[i] == '\n';
    double min_s = atof(argv[3]), total = 0, best = 1e30;
    int runs = 0, entries = 0;
    do {
        eb_parse_opts o;
        eb_parse_opts_init(&o);
        o.side = strcmp(argv[1], "board") ? EB_SIDE_PC : EB_SIDE_BOARD;
        eb_parse_out out;
        eb_parse_out_init(&out);
        eb_error err;
        eb_error_clear(&err);
        double t0 = now_s();
        int rc = eb_parse_log_buffer(&out, argv[2], data, len, &o, &err);
        double dt = now_s() - t0;
        entries = out.n_entries;
        eb_parse_out_free(&out);
        if (rc) {
            fprintf(stderr, "parse_rate: %s\n", err.msg);
            free(data);
            return 1;
        }
        total += dt;
        if (dt < best)
            best = dt;
        runs++;
    } while (total < min_s && runs < 20);
    printf("{\"lines\": %ld, \"runs\": %d, \"best_s\": %.6f, \"entries\": %d}\n", lines, runs, best, entries);
    free(data);
    return 0;
}
