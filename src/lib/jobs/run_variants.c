/* The variants of a run, in the order the core calls their hooks
 * (run_internal.h run_variant). Order matters in two places: the first
 * variant that runs an item owns it (latency before the ESP-Hosted raw
 * tests before a peer board before the plain board), and a link sweep's
 * point is set before anything else of an attempt. A new variant is one
 * file with its row, and one line here. */
#include "run_internal.h"

extern const run_variant run_variant_pattern, run_variant_instruments, run_variant_link_sweep, run_variant_aggregate, run_variant_latency,
    run_variant_hosted, run_variant_pair, run_variant_plain;

const run_variant *const run_variants[] = {
    &run_variant_pattern,    /* run_pattern.c: --pattern firmware's console driver */
    &run_variant_instruments, /* run_instruments.c: lab attenuators, APs, power switches */
    &run_variant_link_sweep, /* run_link_sweep.c: --sweep rssi/loss/rtt on a virtual board */
    &run_variant_aggregate,  /* run_aggregate.c: --aggregate, boards start each test together */
    &run_variant_latency,    /* run_latency.c: the latency test */
    &run_variant_hosted,     /* run_hosted.c: an ESP-Hosted pair (--coprocessor), raw_tx/raw_rx */
    &run_variant_pair,       /* run_pair.c: board to board (--peer-*, a lab board's peer:) */
    &run_variant_plain,      /* run_plain.c: a board against the PC */
    NULL,
};
