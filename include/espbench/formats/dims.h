/* The dimensions of a result: what, besides the board, the chip and the
 * test, a figure was measured at — the tier, the repeat, a sweep variable
 * (the UDP offered rate, the TX power, the virtual board's link: RSSI, loss,
 * round trip; a lab attenuator's attenuation, the lab AP's channel and
 * bandwidth) and the ESP-IDF version. One row each (dims.c): its names
 * (flag spelling, results key, unit), the range of its values, whether
 * --sweep takes it, and how it compares and names itself in a result's key.
 * The run job applies a row's value to an end of a test (jobs/run_dims.c);
 * the reports, compare and the reference figures (eb_tier_ref) read a
 * result's point through here. A new dimension is one row here and its
 * apply function there; its default value leaves existing keys as they are.
 * Pure. */
#ifndef ESPBENCH_DIMS_H
#define ESPBENCH_DIMS_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/formats/profile.h"
#include "espbench/formats/provenance.h"

enum eb_dim {
    EB_DIM_NONE,
    /* --sweep variables (one per run; the key: provenance sweep_var / sweep_value) */
    EB_DIM_UDP_RATE, /* Mbit/s offered by the UDP sender */
    EB_DIM_TX_POWER, /* dBm, the board's maximum transmit power */
    EB_DIM_RSSI,     /* dBm, the virtual board's link */
    EB_DIM_LOSS,     /* %, the virtual board's link */
    EB_DIM_RTT,      /* ms, the virtual board's link */
    EB_DIM_ATTEN,    /* dB, the board's attenuator (lab instruments) */
    EB_DIM_CHANNEL,  /* the AP's channel (lab instrument; 36 and up: 5 GHz) */
    EB_DIM_BANDWIDTH,/* MHz, the AP's channel width (lab instrument) */
    EB_DIM_SWEEP_END,
    /* the matrix itself */
    EB_DIM_TIER = EB_DIM_SWEEP_END, /* the buffer tier (entry tier) */
    EB_DIM_REPEAT,   /* the run of the test (entry repeat) */
    EB_DIM_IDF,      /* the ESP-IDF version (run --idf: a run folder per version) */
    EB_DIM_COUNT
};

#define EB_DIM_SWEEPS 1u /* --sweep takes it */
#define EB_DIM_LINK 2u   /* the virtual board's link (its control socket): --sim (rssi: or an attenuator) */

typedef struct eb_dim_desc {
    const char *name; /* as flags spell it: "udp-rate" */
    const char *key;  /* as results and file names spell it: "udp_rate" */
    const char *unit; /* "Mbit/s"; "" for a name */
    double lo, hi;    /* the values it takes (numeric dimensions) */
    unsigned flags;   /* EB_DIM_SWEEPS, EB_DIM_LINK */
    int instrument;   /* the lab instrument that sets it (lab.h enum eb_instr_kind), 0 = none */
    /* Whether two results were measured at the same value of the
     * dimension (NULL: the results store keys it by a field of its own —
     * tier, repeat — or a run folder does). */
    bool (*same)(const eb_provenance *a, const eb_provenance *b);
} eb_dim_desc;

/* The row of a dimension; NULL for EB_DIM_NONE or out of range. */
const eb_dim_desc *eb_dim(int dim);
/* From either spelling ("udp-rate" or "udp_rate"); EB_DIM_NONE if unknown. */
int eb_dim_from_name(const char *name);

/* Two results at the same point of every dimension that keys by provenance. */
bool eb_dims_same_point(const eb_provenance *a, const eb_provenance *b);
/* Every such dimension at its default (no sweep point): the rank tables' cells. */
bool eb_dims_at_default(const eb_provenance *p);
/* "rssi=-60" for a result at a sweep point, "" otherwise (report cells). */
void eb_dims_point_label(const eb_provenance *p, char *out, size_t cap);

/* The published figure of test on tier t at a result's point (key; NULL =
 * every dimension at its default): the docs' figure for the four
 * throughput tests, NAN where they give none (a custom tier, raw and
 * latency tests). Profiles keep one figure per test today; a dimension
 * with figures of its own (a band) picks them here. */
double eb_tier_ref(const eb_tier *t, int test, const eb_provenance *key);

#endif
