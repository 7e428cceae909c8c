/* Provenance facts the espbench core reports (issue 17): build facts for
 * `version` and the link for the sta_connect / tier / mem replies, from the
 * ESP-IDF calls that state them (ESP-IDF >= 5.1, as idf_component.yml needs):
 *   esp_chip_info()                        chip revision (major*100+minor since v5.0)
 *   esp_clk_cpu_freq()                     CPU clock (esp_hw_support, esp_private/esp_clk.h)
 *   CONFIG_ESPTOOLPY_FLASHFREQ             SPI flash clock the image was built for ("80m")
 *   esp_wifi_sta_get_ap_info()             RSSI, primary channel, SSID, BSSID
 *   esp_wifi_get_bandwidth(WIFI_IF_STA)    HT20 / HT40
 *   esp_wifi_sta_get_negotiated_phymode()  11b/11g/11n/11ax as negotiated
 *   esp_wifi_get_ps()                      power-save mode
 * Unknown values stay unreported (the host records null). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esp_chip_info.h"
#include "esp_private/esp_clk.h"
#if !FW_NET_OPENETH
#include "esp_wifi.h"
#endif
#include "sdkconfig.h"
#include "soc/soc_caps.h"

#include "fw.h"

void fw_provenance_build(ebc_build *b)
{
    esp_chip_info_t ci;
    esp_chip_info(&ci);
    static char rev[16];
    snprintf(rev, sizeof rev, "v%d.%d", ci.revision / 100, ci.revision % 100);
    b->chip_rev = rev;
    b->cpu_mhz = esp_clk_cpu_freq() / 1000000;
    b->flash_mhz = atoi(CONFIG_ESPTOOLPY_FLASHFREQ); /* "80m" -> 80 */
    b->iperf_component = "espressif/iperf";
    /* main/CMakeLists.txt defines both: the iperf component's version from its
     * idf_component.yml, the ESP-IDF commit from its git checkout or from
     * ESPBENCH_IDF_COMMIT (a tree that is not a checkout). */
#ifdef FW_IPERF_VERSION
    b->iperf_version = FW_IPERF_VERSION;
#endif
#ifdef FW_IDF_COMMIT
    b->idf_commit = FW_IDF_COMMIT;
#endif
#ifdef FW_SOURCES
    b->sources = FW_SOURCES; /* ESPBENCH_FW_SOURCES: stand-ins for what ESP-IDF pins */
#endif
    static char sdk[120];
    int spiram = 0, he = 0;
#ifdef CONFIG_SPIRAM
    spiram = 1;
#endif
#if SOC_WIFI_HE_SUPPORT
    he = 1;
#endif
    snprintf(sdk, sizeof sdk, "idf_target=%s,spiram=%d,he=%d,freertos_hz=%d", CONFIG_IDF_TARGET, spiram, he,
             CONFIG_FREERTOS_HZ);
    b->sdkconfig = sdk;
}

#if !FW_NET_OPENETH
static const char *phy_name(wifi_phy_mode_t m)
{
    switch (m) {
    case WIFI_PHY_MODE_11B: return "11b";
    case WIFI_PHY_MODE_11G: return "11g";
    case WIFI_PHY_MODE_HT20:
    case WIFI_PHY_MODE_HT40: return "11n";
    case WIFI_PHY_MODE_HE20: return "11ax";
    case WIFI_PHY_MODE_LR: return "lr";
    default: return ""; /* 11a/11ac on 5 GHz chips (v5.4+): not named here yet */
    }
}

int fw_link(void *ctx, ebc_link *l)
{
    (void)ctx;
    wifi_ap_record_t ap;
    if (esp_wifi_sta_get_ap_info(&ap) != ESP_OK)
        return -1;
    l->rssi = ap.rssi;
    l->channel = ap.primary;
    snprintf(l->band, sizeof l->band, "%s", ap.primary > 14 ? "5GHz" : "2.4GHz");
    snprintf(l->ssid, sizeof l->ssid, "%s", (const char *)ap.ssid);
    snprintf(l->bssid, sizeof l->bssid, "%02x:%02x:%02x:%02x:%02x:%02x", ap.bssid[0], ap.bssid[1], ap.bssid[2],
             ap.bssid[3], ap.bssid[4], ap.bssid[5]);
    snprintf(l->second, sizeof l->second, "%s",
             ap.second == WIFI_SECOND_CHAN_ABOVE ? "above" : ap.second == WIFI_SECOND_CHAN_BELOW ? "below" : "none");
    wifi_bandwidth_t bw;
    if (esp_wifi_get_bandwidth(WIFI_IF_STA, &bw) == ESP_OK)
        l->bw_mhz = bw == FW_WIFI_BW40 ? 40 : 20;
    wifi_phy_mode_t phy;
    if (esp_wifi_sta_get_negotiated_phymode(&phy) == ESP_OK)
        snprintf(l->phy, sizeof l->phy, "%s", phy_name(phy));
    wifi_ps_type_t ps;
    if (esp_wifi_get_ps(&ps) == ESP_OK)
        snprintf(l->ps, sizeof l->ps, "%s",
                 ps == WIFI_PS_NONE ? "none" : ps == WIFI_PS_MIN_MODEM ? "min_modem" : "max_modem");
    return 0;
}
#endif
