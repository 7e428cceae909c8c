/* The dimension table (dims.h). The ranges are what the board or the model
 * accepts: the iperf -b option takes any positive rate (1..1000 Mbit/s
 * here), ESP-IDF's esp_wifi_set_max_tx_power takes 2..20 dBm (in 0.25 dBm
 * steps), the link ranges are eb_model_link_check's. */
#include "espbench/formats/dims.h"
#include "espbench/formats/lab.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The sweep variables share one key: the variable's name and its value. */
static bool same_sweep_point(const eb_provenance *a, const eb_provenance *b)
{
    return !strcmp(a->sweep_var, b->sweep_var) && (!a->sweep_var[0] || a->sweep_value == b->sweep_value);
}

#define SWEEP EB_DIM_SWEEPS
#define LINK (EB_DIM_SWEEPS | EB_DIM_LINK)

static const eb_dim_desc dims[EB_DIM_COUNT] = {
    [EB_DIM_UDP_RATE] = {"udp-rate", "udp_rate", "Mbit/s", 0.1, 1000, SWEEP, 0, same_sweep_point},
    [EB_DIM_TX_POWER] = {"tx-power", "tx_power", "dBm", 2, 20, SWEEP, 0, same_sweep_point},
    [EB_DIM_RSSI] = {"rssi", "rssi", "dBm", -100, -10, LINK, EB_INSTR_ATTENUATOR, same_sweep_point},
    [EB_DIM_LOSS] = {"loss", "loss", "%", 0, 50, LINK, 0, same_sweep_point},
    [EB_DIM_RTT] = {"rtt", "rtt", "ms", 0, 2000, LINK, 0, same_sweep_point},
    /* 120 dB: the largest programmable attenuator range of the drivers (instrument.h) */
    [EB_DIM_ATTEN] = {"attenuation", "attenuation", "dB", 0, 120, SWEEP, EB_INSTR_ATTENUATOR, same_sweep_point},
    /* 2.4 GHz channels 1..14, 5 GHz 36..177 (IEEE 802.11 channel numbering) */
    [EB_DIM_CHANNEL] = {"channel", "channel", "", 1, 177, SWEEP, EB_INSTR_AP, same_sweep_point},
    [EB_DIM_BANDWIDTH] = {"bandwidth", "bandwidth", "MHz", 20, 160, SWEEP, EB_INSTR_AP, same_sweep_point},
    [EB_DIM_TIER] = {"tier", "tier", "", NAN, NAN, 0, 0, NULL},
    [EB_DIM_REPEAT] = {"repeat", "repeat", "", 0, 1000, 0, 0, NULL},
    [EB_DIM_IDF] = {"idf", "idf_version", "", NAN, NAN, 0, 0, NULL},
};

const eb_dim_desc *eb_dim(int d)
{
    return d > EB_DIM_NONE && d < EB_DIM_COUNT ? &dims[d] : NULL;
}

int eb_dim_from_name(const char *name)
{
    for (int d = EB_DIM_NONE + 1; d < EB_DIM_COUNT; d++)
        if (!strcmp(name, dims[d].name) || !strcmp(name, dims[d].key))
            return d;
    return EB_DIM_NONE;
}

bool eb_dims_same_point(const eb_provenance *a, const eb_provenance *b)
{
    bool sweep_done = false; /* the sweep variables share their fields: compared once */
    for (int d = EB_DIM_NONE + 1; d < EB_DIM_COUNT; d++) {
        if (!dims[d].same || (dims[d].same == same_sweep_point && sweep_done))
            continue;
        sweep_done = sweep_done || dims[d].same == same_sweep_point;
        if (!dims[d].same(a, b))
            return false;
    }
    return true;
}

bool eb_dims_at_default(const eb_provenance *p)
{
    eb_provenance none;
    eb_prov_init(&none);
    return eb_dims_same_point(p, &none);
}

void eb_dims_point_label(const eb_provenance *p, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = 0;
    if (p->sweep_var[0])
        snprintf(out, cap, "%s=%g", p->sweep_var, p->sweep_value);
}

double eb_tier_ref(const eb_tier *t, int test, const eb_provenance *key)
{
    (void)key; /* one figure per test: no dimension has figures of its own yet */
    return t && test >= 0 && test < EB_TEST_COUNT ? t->ref_mbps[test] : NAN;
}
