/* `run --sweep VAR=START:STOP:STEP` (or VAR=V1,V2,...): the planned tests run
 * at each point of one variable and every entry records its point
 * (provenance sweep_var / sweep_value). Variables: udp-rate (the UDP offered
 * rate, Mbit/s), tx-power (dBm, set on the board) and, under --sim, the
 * link of the virtual board (rssi dBm, loss %, rtt ms) through its control
 * socket. Pure: parsing and the per-point values, no I/O. */
#ifndef ESPBENCH_SWEEP_H
#define ESPBENCH_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/error.h"
#include "espbench/formats/dims.h"
#include "espbench/formats/model.h"

#define EB_SWEEP_MAX_POINTS 64

/* The variables are the dimensions --sweep takes (dims.h rows flagged
 * EB_DIM_SWEEPS), named by the rows: no list of their own here. */
typedef struct eb_sweep {
    int var;                             /* a row of dims.h (EB_DIM_SWEEPS); EB_DIM_NONE = none */
    double values[EB_SWEEP_MAX_POINTS];
    int n;
} eb_sweep;

/* "udp-rate=40:120:10" (start:stop:step, both ends included) or
 * "rssi=-40,-60,-75" (a list). EB_ECONFIG with one line on an unknown
 * variable, a bad number, no points, too many points or a value outside
 * the variable's range. */
int eb_sweep_parse(const char *spec, eb_sweep *out, eb_error *err);

/* "udp-rate"; NULL for EB_DIM_NONE or a row --sweep does not take. */
const char *eb_sweep_var_name(int var);
/* Provenance / results key: "udp_rate", "tx_power", "rssi", "loss", "rtt". */
const char *eb_sweep_var_key(int var);
/* From either spelling ("udp-rate" or "udp_rate"); EB_DIM_NONE if unknown. */
int eb_sweep_var_from_name(const char *name);
/* "Mbit/s", "dBm", "%", "ms". */
const char *eb_sweep_var_unit(int var);
/* Set through the virtual board's control socket: only under --sim (rssi
 * also through a lab attenuator: eb_sweep_var_instrument). */
bool eb_sweep_var_sim_only(int var);
/* The lab instrument kind (lab.h enum eb_instr_kind) a variable is set
 * through: the attenuator for attenuation and, on hardware, rssi; the AP
 * for channel and bandwidth; 0 for none. */
int eb_sweep_var_instrument(int var);

/* The virtual board's link at a plan point (at: each row's value, NAN =
 * none): base with the value of every link row that has one. */
void eb_sweep_link_at(const double *at, const eb_model_link *base, eb_model_link *out);
/* The control-socket command for that link ("link rssi=-60 rtt=0 loss=0"),
 * or "" when the variable is not a link variable. */
void eb_sweep_link_command(const eb_model_link *l, char *out, size_t cap);

#endif
