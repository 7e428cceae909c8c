/* The radio settings' models on the virtual board (docs/dimensions.md),
 * from what the espbench firmware was asked (radio_set: c->core.radio; a
 * stock firmware cannot be asked, so its radio is the published bench's):
 *   - the PHY rate ceiling of the mode it negotiates (an explicit PHY set
 *     or HT40) forces the tier model's PHY rate (its air-time term): the
 *     figure is then the model's;
 *   - 5 GHz on the ESP32-C5: the docs' 5 GHz row where the figure is the
 *     published one, the model's figure scaled by the rows' ratio else;
 *   - a BLE activity keeps Wi-Fi's share of air time (radio_model.h);
 *   - modem sleep holds a frame for the idle station until its wake beacon
 *     (the UDP echo's round trip, vb_echo.c).
 * Each leaves the figure a model one (figure_source "model ..."). */
#include <math.h>
#include <time.h>

#include "espbench/formats/dialect.h"
#include "espbench/formats/dims.h"
#include "espbench/formats/model.h"
#include "espbench/formats/radio_model.h"
#include "vb_dialect.h"

static const ebc_radio *asked(const vb_console *c)
{
    return c->dialect == EB_DIALECT_ESPBENCH ? &c->core.radio : NULL;
}

static bool five(const ebc_radio *r)
{
    return r && r->band == EBC_BAND_5G;
}

bool vb_radio_link(const vb_console *c, eb_model_link *l)
{
    const ebc_radio *r = asked(c);
    if (!r)
        return false;
    unsigned phy = five(r) ? r->phy_5g : r->phy_2g;
    int bw = five(r) ? r->bw_5g : r->bw_2g;
    if (!phy && bw != 40)
        return false; /* the chip's own modes at HT20: the published bench */
    if (!phy) /* HT40 with the chip's protocol set (11n in it) */
        phy = EBC_PHY_11N;
    const char *mode = eb_radio_mode(phy & EBC_PHY_11B, phy & (EBC_PHY_11G | EBC_PHY_11A), phy & EBC_PHY_11N,
                                     phy & EBC_PHY_11AX, bw);
    double ceiling = eb_phy_ceiling_mbps(mode, bw);
    if (isnan(ceiling))
        return false;
    l->phy_mbps = ceiling;
    return true;
}

void vb_radio_figure(const vb_console *c, int test, int *src, double *value)
{
    const ebc_radio *r = asked(c);
    if (!r || test < 0 || test >= EB_TEST_COUNT || isnan(*value))
        return;
    if (five(r) && c->have_runs) {
        eb_provenance k;
        eb_prov_init(&k);
        k.radio_band[0] = '5';
        double ref5 = eb_tier_ref(&c->runs, test, &k), ref2 = eb_tier_ref(&c->runs, test, NULL);
        if (*src == EB_FIG_PUBLISHED && !isnan(ref5))
            *value = ref5;
        else if (!isnan(ref5) && ref2 > 0)
            *value *= ref5 / ref2, *src = EB_FIG_MODEL;
    }
    int coex = r->coex == EBC_COEX_BLE_SCAN ? EB_RADIO_COEX_BLE_SCAN
               : r->coex == EBC_COEX_BLE_ADV ? EB_RADIO_COEX_BLE_ADV
                                             : EB_RADIO_COEX_NONE;
    if (coex != EB_RADIO_COEX_NONE) {
        *value *= eb_radio_coex_share(coex);
        *src = EB_FIG_MODEL;
    }
}

double vb_radio_echo_wait_ms(const vb_console *c)
{
    const ebc_radio *r = c ? asked(c) : NULL;
    if (!r || (r->ps != EBC_PS_MIN_MODEM && r->ps != EBC_PS_MAX_MODEM))
        return 0;
    struct timespec ts; /* the AP's beacons fall on multiples of the period of this clock */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double t_ms = (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
    return eb_radio_ps_wait_ms(r->ps == EBC_PS_MIN_MODEM ? EB_RADIO_PS_MIN_MODEM : EB_RADIO_PS_MAX_MODEM,
                               r->listen_interval, t_ms);
}
