/* The virtual board's throughput model: a rate per report interval (the model
 * figure with seeded noise, capped by a client's -b, zero during a "zero"
 * fault) and a token bucket that integrates it over time. Pure arithmetic on
 * times relative to the start of traffic; the engine decides when to move
 * bytes. See docs/vboard-traffic.md. */
#ifndef VB_TRAFFIC_SHAPE_H
#define VB_TRAFFIC_SHAPE_H

#include <stdint.h>

#include "vb_traffic.h"

typedef struct vb_shaper {
    double model_bps;     /* bits/s */
    double noise_frac;    /* noise_pct / 100 */
    double cap_bps;       /* client -b; 0 = none */
    uint32_t seed;
    double interval_s;
    long zero_first, zero_count; /* intervals [zero_first, zero_first+zero_count) carry nothing */
    double burst_s;       /* unused capacity banked at most this long */
    double min_cap_bytes; /* the bank always holds at least one I/O quantum */
    /* state */
    double tokens;        /* bytes that may be moved now */
    double t;             /* seconds since traffic start, last advance */
    long k;               /* interval index of t */
} vb_shaper;

/* The report interval an engine uses for cfg (-i; 0 or less = 3 s, the firmware default). */
double vb_shape_interval_s(const vb_iperf_cfg *cfg);

/* The model rate of interval k in bits/s for cfg: deterministic for a seed. */
double vb_shape_rate_bps(const vb_iperf_cfg *cfg, long k);

void vb_shaper_init(vb_shaper *s, const vb_iperf_cfg *cfg, double burst_s, double min_cap_bytes,
                    double initial_tokens);
double vb_shaper_rate_bps(const vb_shaper *s, long k);
/* Adds the capacity of (s->t, t] interval by interval; t earlier than s->t is ignored. */
void vb_shaper_advance(vb_shaper *s, double t);
void vb_shaper_take(vb_shaper *s, double bytes);
/* Seconds from s->t until the bank holds `need` bytes at the current
 * interval's rate, never past the end of that interval (the engine then looks
 * again). */
double vb_shaper_wait_s(const vb_shaper *s, double need);

#endif
