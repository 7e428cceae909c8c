#include "vb_board.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vb_board_printf(vb_board *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        b->write(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big)
        return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->write(b, big, (size_t)n);
    free(big);
}

bool vb_board_take_fault(vb_board *b, const char *kind, const char *when, vb_fault *out)
{
    bool fired = false;
    pthread_mutex_lock(&b->lock);
    for (int i = 0; i < b->n_faults; i++) {
        vb_fault *f = &b->faults[i];
        if (!f->armed || strcmp(f->kind, kind) != 0)
            continue;
        if (when && f->when[0] && strcmp(f->when, when) != 0)
            continue;
        f->armed = false;
        if (out)
            *out = *f;
        fired = true;
        break;
    }
    pthread_mutex_unlock(&b->lock);
    return fired;
}
