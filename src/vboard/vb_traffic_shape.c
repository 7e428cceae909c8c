/* Rate model and token bucket for the virtual board's iperf engine. */
#include "vb_traffic_shape.h"

#include <math.h>

#include "espbench/base/mix64.h"

#define DEFAULT_INTERVAL_S 3.0 /* the firmware's -i default (and what -i 0 means) */
#define UNSHAPED_BPS 1e11      /* model_mbps 0: as fast as the sockets go */

double vb_shape_interval_s(const vb_iperf_cfg *cfg)
{
    return cfg->interval_s > 0 ? cfg->interval_s : DEFAULT_INTERVAL_S;
}

/* splitmix64: a well-mixed 64-bit value per (seed, interval), so the noise of
 * interval k does not depend on how many intervals ran before. */
static double noise_unit(uint32_t seed, long k)
{
    uint64_t h = eb_mix64(((uint64_t)seed << 32) ^ eb_mix64((uint64_t)k));
    return (double)(h >> 11) / 9007199254740992.0 * 2.0 - 1.0; /* [-1, 1) */
}

static long zero_first_interval(double zero_from_s, double interval_s)
{
    if (zero_from_s <= 0)
        return 0;
    return (long)ceil(zero_from_s / interval_s - 1e-9);
}

static double rate_of(double model_bps, double noise_frac, double cap_bps, uint32_t seed, long zero_first,
                      long zero_count, long k)
{
    if (zero_count > 0 && k >= zero_first && k < zero_first + zero_count)
        return 0;
    double r = model_bps > 0 ? model_bps : UNSHAPED_BPS;
    if (noise_frac > 0)
        r *= 1.0 + noise_frac * noise_unit(seed, k);
    if (cap_bps > 0 && r > cap_bps)
        r = cap_bps;
    return r > 0 ? r : 0;
}

double vb_shape_rate_bps(const vb_iperf_cfg *cfg, long k)
{
    double i = vb_shape_interval_s(cfg);
    double cap = (!cfg->server && cfg->bw_limit_mbps > 0) ? cfg->bw_limit_mbps * 1e6 : 0;
    return rate_of(cfg->model_mbps * 1e6, cfg->noise_pct / 100.0, cap, cfg->seed,
                   zero_first_interval(cfg->zero_from_s, i), cfg->zero_intervals, k);
}

void vb_shaper_init(vb_shaper *s, const vb_iperf_cfg *cfg, double burst_s, double min_cap_bytes,
                    double initial_tokens)
{
    *s = (vb_shaper){
        .model_bps = cfg->model_mbps * 1e6,
        .noise_frac = cfg->noise_pct > 0 ? cfg->noise_pct / 100.0 : 0,
        .cap_bps = (!cfg->server && cfg->bw_limit_mbps > 0) ? cfg->bw_limit_mbps * 1e6 : 0,
        .seed = cfg->seed,
        .interval_s = vb_shape_interval_s(cfg),
        .zero_count = cfg->zero_intervals > 0 ? cfg->zero_intervals : 0,
        .burst_s = burst_s,
        .min_cap_bytes = min_cap_bytes,
        .tokens = initial_tokens,
    };
    s->zero_first = zero_first_interval(cfg->zero_from_s, s->interval_s);
}

double vb_shaper_rate_bps(const vb_shaper *s, long k)
{
    return rate_of(s->model_bps, s->noise_frac, s->cap_bps, s->seed, s->zero_first, s->zero_count, k);
}

void vb_shaper_advance(vb_shaper *s, double t)
{
    while (s->t < t) {
        double boundary = (double)(s->k + 1) * s->interval_s;
        double end = t < boundary ? t : boundary;
        double rate_Bps = vb_shaper_rate_bps(s, s->k) / 8.0;
        s->tokens += rate_Bps * (end - s->t);
        if (rate_Bps <= 0 && s->tokens > 0)
            s->tokens = 0; /* nothing moves in a zero interval, banked capacity included */
        double cap = rate_Bps * s->burst_s;
        if (cap < s->min_cap_bytes)
            cap = s->min_cap_bytes;
        if (s->tokens > cap)
            s->tokens = cap;
        s->t = end;
        if (end >= boundary)
            s->k++;
    }
}

void vb_shaper_take(vb_shaper *s, double bytes)
{
    s->tokens -= bytes;
}

double vb_shaper_wait_s(const vb_shaper *s, double need)
{
    double to_boundary = (double)(s->k + 1) * s->interval_s - s->t;
    if (to_boundary < 0)
        to_boundary = 0;
    if (s->tokens >= need)
        return 0;
    double rate_Bps = vb_shaper_rate_bps(s, s->k) / 8.0;
    if (rate_Bps <= 0)
        return to_boundary;
    double w = (need - s->tokens) / rate_Bps;
    return w < to_boundary ? w : to_boundary;
}
