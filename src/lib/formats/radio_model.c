/* The virtual board's radio models (radio_model.h). */
#include "espbench/formats/radio_model.h"

#include <math.h>
#include <string.h>

#include "espbench/formats/provenance.h"

const char *eb_radio_mode(bool b, bool g, bool n, bool ax, int bw_mhz)
{
    if (bw_mhz == 40 && n)
        return "11n"; /* HT40: the chips' 11ax is HE20 only */
    return ax ? "11ax" : n ? "11n" : g ? "11g" : b ? "11b" : "11n";
}

double eb_radio_coex_share(int coex)
{
    static const double share[] = {[EB_RADIO_COEX_NONE] = 1.0, [EB_RADIO_COEX_BLE_SCAN] = 0.5,
                                   [EB_RADIO_COEX_BLE_ADV] = 0.95};
    return coex >= 0 && coex <= EB_RADIO_COEX_BLE_ADV ? share[coex] : 1.0;
}

static double wake_period_ms(int ps, int listen_interval)
{
    if (ps == EB_RADIO_PS_MIN_MODEM)
        return EB_DTIM_PERIOD * EB_BEACON_INTERVAL_MS;
    if (ps == EB_RADIO_PS_MAX_MODEM)
        return (listen_interval > 0 ? listen_interval : EB_LISTEN_INTERVAL_DEFAULT) * EB_BEACON_INTERVAL_MS;
    return 0;
}

double eb_radio_ps_wait_ms(int ps, int listen_interval, double t_ms)
{
    double p = wake_period_ms(ps, listen_interval);
    if (p <= 0 || !isfinite(t_ms) || t_ms < 0)
        return 0;
    double into = fmod(t_ms, p);
    return into == 0 ? 0 : p - into;
}

double eb_radio_ps_mean_wait_ms(int ps, int listen_interval)
{
    return wake_period_ms(ps, listen_interval) / 2;
}

bool eb_radio_modelled(const eb_provenance *k)
{
    return k && (k->radio_phy[0] || k->radio_bandwidth == 40 || (k->radio_coex[0] && strcmp(k->radio_coex, "none")));
}
