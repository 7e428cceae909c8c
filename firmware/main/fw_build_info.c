/* What this image is: version strings from the app descriptor, and the tier
 * compiled into it from sdkconfig. Runtime fields are the boot tier; build-time
 * fields are fixed for this image and reported as such on tier_set. */
#include <string.h>

#include <stdio.h>

#include "esp_app_desc.h"
#include "esp_mac.h"
#include "sdkconfig.h"
#include "soc/soc_caps.h"

#include "fw.h"

#ifdef CONFIG_ESP_WIFI_IRAM_OPT
#define FW_WIFI_IRAM 1
#else
#define FW_WIFI_IRAM 0
#endif
#ifdef CONFIG_ESP_WIFI_RX_IRAM_OPT
#define FW_WIFI_RX_IRAM 1
#else
#define FW_WIFI_RX_IRAM 0
#endif
#ifdef CONFIG_LWIP_IRAM_OPTIMIZATION
#define FW_LWIP_IRAM 1
#else
#define FW_LWIP_IRAM 0
#endif

static ebc_build s_build;

static void set(int field, int value)
{
    s_build.image.set[field] = true;
    s_build.image.value[field] = value;
}

/* The docs give lwIP buffers in KB and write 65 for the 16-bit maximum (65534/65535 bytes). */
static int bytes_to_docs_kb(int bytes) { return bytes >= 65534 ? 65 : (bytes + 512) / 1024; }

const ebc_build *fw_build_info(void)
{
    if (s_build.chip)
        return &s_build;
    const esp_app_desc_t *app = esp_app_get_description();
    s_build.fw_version = app->version;
    s_build.idf_version = app->idf_ver;
    s_build.chip = CONFIG_IDF_TARGET;
    static char mac_text[18];
    uint8_t mac[6];
#if FW_NET_OPENETH
    const esp_mac_type_t mac_type = ESP_MAC_ETH;
#else
    const esp_mac_type_t mac_type = ESP_MAC_WIFI_STA;
#endif
    if (esp_read_mac(mac, mac_type) == ESP_OK) {
        snprintf(mac_text, sizeof mac_text, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3],
                 mac[4], mac[5]);
        s_build.mac = mac_text;
    }
#if SOC_WIFI_SUPPORT_5G
    s_build.band_5g = true;
#endif
#if SOC_BLE_SUPPORTED
    s_build.ble = true;
#endif
#if SOC_WIFI_HE_SUPPORT
    s_build.he = true;
#endif
#ifdef CONFIG_SPIRAM_TRY_ALLOCATE_WIFI_LWIP
    s_build.psram = true;
#endif
    strlcpy(s_build.image.name, "image", sizeof s_build.image.name);
#if FW_NET_OPENETH
    s_build.ethernet = true; /* no Wi-Fi driver, so no Wi-Fi field in the image tier */
#else
    set(EBC_F_STATIC_RX, CONFIG_ESP_WIFI_STATIC_RX_BUFFER_NUM);
    set(EBC_F_DYNAMIC_RX, CONFIG_ESP_WIFI_DYNAMIC_RX_BUFFER_NUM);
#ifdef CONFIG_ESP_WIFI_DYNAMIC_TX_BUFFER
    set(EBC_F_DYNAMIC_TX, CONFIG_ESP_WIFI_DYNAMIC_TX_BUFFER_NUM);
#else
    set(EBC_F_STATIC_TX, CONFIG_ESP_WIFI_STATIC_TX_BUFFER_NUM);
#endif
#ifdef CONFIG_ESP_WIFI_AMPDU_RX_ENABLED
    set(EBC_F_RX_BA_WIN, CONFIG_ESP_WIFI_RX_BA_WIN);
#else
    set(EBC_F_RX_BA_WIN, 0);
#endif
    set(EBC_F_WIFI_IRAM_OPT, FW_WIFI_IRAM);
    set(EBC_F_WIFI_RX_IRAM_OPT, FW_WIFI_RX_IRAM);
#endif
    set(EBC_F_TCP_SND_BUF_KB, bytes_to_docs_kb(CONFIG_LWIP_TCP_SND_BUF_DEFAULT));
    set(EBC_F_TCP_WND_KB, bytes_to_docs_kb(CONFIG_LWIP_TCP_WND_DEFAULT));
    set(EBC_F_TCP_MBOX, CONFIG_LWIP_TCP_RECVMBOX_SIZE);
    set(EBC_F_UDP_MBOX, CONFIG_LWIP_UDP_RECVMBOX_SIZE);
    set(EBC_F_TCPIP_MBOX, CONFIG_LWIP_TCPIP_RECVMBOX_SIZE);
    set(EBC_F_LWIP_IRAM_OPT, FW_LWIP_IRAM);
    set(EBC_F_CPU_MHZ, CONFIG_ESP_DEFAULT_CPU_FREQ_MHZ);
    fw_provenance_build(&s_build);
    return &s_build;
}
