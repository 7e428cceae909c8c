/* Ethernet glue of the open_eth image (ESPBENCH_NET=openeth): the OpenCores
 * Ethernet MAC that QEMU emulates (ESP-IDF's CONFIG_ETH_USE_OPENETH) with the
 * generic 802.3 PHY driver, an Ethernet netif with DHCP, and no Wi-Fi at all:
 * the image links neither esp_wifi nor its blobs. The setup is the one of
 * ESP-IDF's examples/common_components/protocol_examples_common/eth_connect.c
 * (v6.0.2), with the MAC and PHY made as for its OpenETH choice. */
#include <stdio.h>
#include <string.h>

#include "esp_eth.h"
#include "esp_eth_mac_openeth.h"
#include "esp_event.h"
#include "esp_netif.h"
#include "sdkconfig.h"

#include "fw.h"

#ifndef CONFIG_ETH_USE_OPENETH
#error "ESPBENCH_NET=openeth needs CONFIG_ETH_USE_OPENETH (firmware/sdkconfig.net-openeth)"
#endif

static ebc_core *s_core;
static esp_netif_ip_info_t s_ip;
static volatile bool s_has_ip;

static void on_event(void *arg, esp_event_base_t base, int32_t id, void *data)
{
    (void)arg;
    if (base == IP_EVENT && id == IP_EVENT_ETH_GOT_IP) {
        const ip_event_got_ip_t *e = data;
        s_ip = e->ip_info;
        s_has_ip = true;
        ebc_ip_info ip;
        snprintf(ip.ip, sizeof ip.ip, IPSTR, IP2STR(&s_ip.ip));
        snprintf(ip.mask, sizeof ip.mask, IPSTR, IP2STR(&s_ip.netmask));
        snprintf(ip.gw, sizeof ip.gw, IPSTR, IP2STR(&s_ip.gw));
        ebc_event_net_got_ip(s_core, &ip);
    } else if (base == ETH_EVENT && id == ETHERNET_EVENT_DISCONNECTED && s_has_ip) {
        s_has_ip = false;
        ebc_event_net_down(s_core);
    }
}

void fw_net_setup(ebc_core *core) { s_core = core; }

int fw_net_start(void *ctx)
{
    (void)ctx;
    eth_mac_config_t mac_config = ETH_MAC_DEFAULT_CONFIG();
    eth_phy_config_t phy_config = ETH_PHY_DEFAULT_CONFIG();
    phy_config.autonego_timeout_ms = 100; /* the emulated PHY answers at once (eth_connect.c's OpenETH value) */
    esp_eth_mac_t *mac = esp_eth_mac_new_openeth(&mac_config);
    esp_eth_phy_t *phy = esp_eth_phy_new_generic(&phy_config);
    if (!mac || !phy)
        return ESP_ERR_NO_MEM;
    esp_eth_config_t config = ETH_DEFAULT_CONFIG(mac, phy);
    esp_eth_handle_t eth = NULL;
    esp_err_t e = esp_eth_driver_install(&config, &eth);
    if (e != ESP_OK)
        return e;
    esp_netif_config_t netif_config = ESP_NETIF_DEFAULT_ETH();
    esp_netif_t *netif = esp_netif_new(&netif_config);
    if (!netif)
        return ESP_ERR_NO_MEM;
    e = esp_netif_attach(netif, esp_eth_new_netif_glue(eth));
    if (e == ESP_OK)
        e = esp_event_handler_register(IP_EVENT, IP_EVENT_ETH_GOT_IP, on_event, NULL);
    if (e == ESP_OK)
        e = esp_event_handler_register(ETH_EVENT, ETHERNET_EVENT_DISCONNECTED, on_event, NULL);
    if (e == ESP_OK)
        e = esp_eth_start(eth);
    return e;
}

unsigned long fw_net_ip4(void) { return s_has_ip ? s_ip.ip.addr : 0; }
