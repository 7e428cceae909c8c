/* ESP-IDF version order (idf_version.h). Tags as ESP-IDF names them:
 * vMAJOR.MINOR[.PATCH][-dev|-alphaN|-betaN|-rcN], and git describe's
 * suffix "-N-gHASH" for a commit N commits after a tag. */
#include "espbench/formats/idf_version.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/error.h"

#define PARTS 4

typedef struct idf_ver {
    bool valid;
    long num[PARTS];
    int pre_rank;   /* 0 dev, 1 alpha, 2 beta, 3 rc, 4 another pre-release word, 5 the release itself */
    long pre_num;   /* beta2 -> 2 */
    long after;     /* git describe's commits after the tag; 0 at the tag */
} idf_ver;

/* Pre-release words in ESP-IDF's order (master's "-dev" comes first). */
static const struct { const char *word; int rank; } pre_words[] = {
    {"dev", 0}, {"alpha", 1}, {"beta", 2}, {"rc", 3},
};

static idf_ver parse(const char *s)
{
    idf_ver v = {.pre_rank = 5};
    if (*s == 'v' || *s == 'V')
        s++;
    if (!isdigit((unsigned char)*s))
        return v;
    for (int i = 0; i < PARTS && isdigit((unsigned char)*s); i++) {
        char *end;
        v.num[i] = strtol(s, &end, 10);
        s = end;
        if (*s != '.')
            break;
        s++;
    }
    v.valid = true;
    if (*s == '-' && isalpha((unsigned char)s[1])) {
        s++;
        v.pre_rank = 4;
        for (size_t i = 0; i < sizeof pre_words / sizeof pre_words[0]; i++) {
            size_t n = strlen(pre_words[i].word);
            if (!strncmp(s, pre_words[i].word, n)) {
                v.pre_rank = pre_words[i].rank;
                v.pre_num = isdigit((unsigned char)s[n]) ? strtol(s + n, NULL, 10) : 0;
                break;
            }
        }
        while (*s && *s != '-')
            s++;
    }
    if (*s == '-' && isdigit((unsigned char)s[1]))
        v.after = strtol(s + 1, NULL, 10);
    return v;
}

static int cmp_long(long a, long b)
{
    return (a > b) - (a < b);
}

int eb_idf_version_cmp(const char *a, const char *b)
{
    if (!a[0] || !b[0])
        return a[0] ? 1 : b[0] ? -1 : 0;
    idf_ver x = parse(a), y = parse(b);
    if (x.valid != y.valid)
        return x.valid ? -1 : 1;
    if (x.valid) {
        for (int i = 0; i < PARTS; i++)
            if (x.num[i] != y.num[i])
                return cmp_long(x.num[i], y.num[i]);
        if (x.pre_rank != y.pre_rank)
            return x.pre_rank - y.pre_rank;
        if (x.pre_num != y.pre_num)
            return cmp_long(x.pre_num, y.pre_num);
        if (x.after != y.after)
            return cmp_long(x.after, y.after);
    }
    int c = strcmp(a, b);
    return (c > 0) - (c < 0);
}

/* The line after v6.0 starts with its first pre-release: "v6.1-dev". */
static bool beyond_last_line(const idf_ver *v)
{
    idf_ver last = parse(EB_IDF_FIRMWARE_LAST_LINE);
    if (v->num[0] != last.num[0])
        return v->num[0] > last.num[0];
    return v->num[1] > last.num[1];
}

int eb_idf_firmware_supported(const char *version, eb_error *err)
{
    const char *v = version ? version : "";
    idf_ver x = parse(v);
    const char *range = "the espbench firmware is checked with " EB_IDF_FIRMWARE_MIN " to " EB_IDF_FIRMWARE_LAST_LINE
                        ".x (docs/firmware.md, \"Checking against ESP-IDF\")";
    if (!x.valid)
        return eb_fail(err, EB_ECONFIG, "ESP-IDF version '%s' is not a release version; %s: use a release's checkout",
                       v, range);
    if (x.pre_rank != 5 && !strstr(v, "-dirty")) /* git describe --dirty: still that release */
        return eb_fail(err, EB_ECONFIG, "ESP-IDF %s is a pre-release, not checked; %s: use a release's checkout", v,
                       range);
    if (eb_idf_version_cmp(v, EB_IDF_FIRMWARE_MIN) < 0)
        return eb_fail(err, EB_ECONFIG, "ESP-IDF %s is older than the firmware supports; %s: use a newer checkout",
                       v, range);
    if (beyond_last_line(&x))
        return eb_fail(err, EB_ECONFIG,
                       "ESP-IDF %s is newer than the firmware was checked with; %s: use a checkout of that range, or "
                       "check the firmware with the newer release first",
                       v, range);
    return 0;
}
