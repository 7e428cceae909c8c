/* An end's iperf settings (run_end_ops.config_set of the ends that run
 * iperf: a console, the PC): the values the dimension rows flagged
 * EB_DIM_IPERF give it for the next test, kept behind the end's private
 * pointer and spelled as the rows' iperf options on its command line. A
 * value at its row's default is left out, so the commands (and the logs)
 * of a run that asks for none stay as they were. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "run_internal.h"

typedef struct iperf_settings {
    double v[EB_DIM_MAX];
} iperf_settings;

static iperf_settings *settings(board_ctx *end)
{
    if (!end->priv) {
        iperf_settings *s = calloc(1, sizeof *s);
        if (!s)
            abort();
        for (int d = 0; d < EB_DIM_MAX; d++)
            s->v[d] = NAN;
        end->priv = s;
    }
    return end->priv;
}

int run_iperf_set(board_ctx *end, const eb_dim_desc *d, double v, eb_error *err)
{
    (void)err;
    for (int i = EB_DIM_NONE + 1; i < eb_dim_count(); i++)
        if (eb_dim(i) == d)
            settings(end)->v[i] = v;
    return 0;
}

/* The settings away from their defaults, in table order. */
static int each_set(const board_ctx *end, int from, double *v)
{
    const iperf_settings *s = end ? end->priv : NULL;
    for (int d = from; s && d < eb_dim_count(); d++) {
        const eb_dim_desc *row = eb_dim(d);
        if ((row->flags & EB_DIM_IPERF) && isfinite(s->v[d]) && !eb_dim_is_default(row, s->v[d])) {
            *v = s->v[d];
            return d;
        }
    }
    return -1;
}

void run_iperf_options(const board_ctx *end, char *out, size_t cap)
{
    size_t n = 0;
    double v;
    out[0] = 0;
    for (int d = each_set(end, EB_DIM_NONE + 1, &v); d > 0 && n < cap; d = each_set(end, d + 1, &v))
        n += (size_t)snprintf(out + n, cap - n, " %s %g", eb_dim(d)->iperf_opt, v);
}

int run_iperf_argv(const board_ctx *end, const char **args, char (*bufs)[16], int max)
{
    int n = 0, k = 0;
    double v;
    for (int d = each_set(end, EB_DIM_NONE + 1, &v); d > 0 && n + 2 <= max; d = each_set(end, d + 1, &v)) {
        snprintf(bufs[k], sizeof bufs[k], "%g", v);
        args[n++] = eb_dim(d)->iperf_opt;
        args[n++] = bufs[k++];
    }
    return n;
}
