/* Names as people type them (names.h): folding and the nearest name. */
#include "espbench/base/names.h"

#include <ctype.h>
#include <string.h>

#define NAME_MAX_LEN 63
#define FAR 1000

int eb_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > NAME_MAX_LEN || lb > NAME_MAX_LEN)
        return FAR;
    /* Three rows suffice: the swap looks two rows back. */
    int rows[3][NAME_MAX_LEN + 1];
    int *pp = rows[0], *p = rows[1], *c = rows[2];
    for (size_t j = 0; j <= lb; j++)
        p[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        c[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = p[j] + 1;
            if (c[j - 1] + 1 < v)
                v = c[j - 1] + 1;
            if (p[j - 1] + cost < v)
                v = p[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            c[j] = v;
        }
        int *t = pp;
        pp = p;
        p = c;
        c = t;
    }
    return p[lb];
}

void eb_name_fold(const char *in, char *out, size_t cap)
{
    size_t k = 0;
    for (; in && *in && k + 1 < cap; in++) {
        if (strchr("-_ .", *in))
            continue;
        out[k++] = (char)tolower((unsigned char)*in);
    }
    if (cap)
        out[k] = 0;
}

bool eb_name_same(const char *a, const char *b)
{
    char fa[NAME_MAX_LEN + 1], fb[NAME_MAX_LEN + 1];
    if (!a || !b || strlen(a) > NAME_MAX_LEN || strlen(b) > NAME_MAX_LEN)
        return a && b && strcmp(a, b) == 0;
    eb_name_fold(a, fa, sizeof fa);
    eb_name_fold(b, fb, sizeof fb);
    return strcmp(fa, fb) == 0;
}

const char *eb_name_nearest(const char *typed, const char *const *names, int n)
{
    char ft[NAME_MAX_LEN + 1], fn[NAME_MAX_LEN + 1];
    if (!typed || strlen(typed) > NAME_MAX_LEN)
        return NULL;
    eb_name_fold(typed, ft, sizeof ft);
    if (!ft[0])
        return NULL;
    const char *best = NULL;
    int best_d = FAR;
    bool tie = false;
    for (int i = 0; i < n; i++) {
        if (!names[i] || strlen(names[i]) > NAME_MAX_LEN)
            continue;
        eb_name_fold(names[i], fn, sizeof fn);
        int d = eb_edit_distance(ft, fn);
        if (d == 0)
            return NULL; /* the name itself: nothing to suggest */
        if (d < best_d) {
            best_d = d;
            best = names[i];
            tie = false;
        } else if (d == best_d && best && strcmp(best, names[i]) != 0) {
            tie = true;
        }
    }
    if (!best || tie)
        return NULL;
    int allowed = strlen(best) >= 8 ? 2 : 1;
    return best_d <= allowed ? best : NULL;
}
