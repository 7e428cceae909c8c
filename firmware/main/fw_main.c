/* espbench firmware entry point: bring up NVS, netif and Wi-Fi with the image's
 * tier (or, in the open_eth build, Ethernet), then read console lines and hand
 * them to the portable core. */
#include <string.h>

#include "esp_event.h"
#include "esp_heap_caps.h"
#include "esp_idf_version.h"
#include "esp_netif.h"
#include "esp_system.h"
#include "freertos/FreeRTOS.h"
#include "freertos/task.h"
#if !FW_NET_OPENETH
#include "nvs_flash.h"
#endif

#include "fw.h"

/* sdkconfig.defaults sets LWIP_TCPIP_TASK_PRIO and LWIP_EXTRA_IRAM_OPTIMIZATION
 * (the iperf example's), which ESP-IDF has from v5.1.2 on; before, they would be
 * dropped without a word and the figures would not compare. */
#if ESP_IDF_VERSION < ESP_IDF_VERSION_VAL(5, 1, 2)
#error "the espbench firmware needs ESP-IDF v5.1.2 or later"
#endif

static ebc_core s_core;

/* The Ethernet image (FW_NET_OPENETH) has no Wi-Fi: the core answers every Wi-Fi
 * field and command "not applicable" (ebc_build.ethernet) and never calls the
 * Wi-Fi operations, so only the network start differs. */
static const ebc_ops s_ops = {
    .ctx = NULL,
    .write = fw_console_write,
    .iperf_start = fw_iperf_start,
    .iperf_abort = fw_iperf_abort,
    .iperf_running = fw_iperf_running,
    .heap = fw_heap,
    .restart = fw_restart,
#if FW_NET_OPENETH
    .net_start = fw_net_start,
#else
    .wifi_deinit = fw_wifi_deinit,
    .wifi_init = fw_wifi_init,
    .wifi_connect = fw_wifi_connect,
    .wifi_scan = fw_wifi_scan,
    .link = fw_link,
    .radio_apply = fw_radio_apply,
#endif
};

void fw_heap(void *ctx, ebc_heap *h)
{
    (void)ctx;
    /* Internal RAM is what the docs' "available memory" compares with (PSRAM excluded). */
    h->free_internal = heap_caps_get_free_size(MALLOC_CAP_INTERNAL);
    h->min_internal = heap_caps_get_minimum_free_size(MALLOC_CAP_INTERNAL);
    h->largest_internal = heap_caps_get_largest_free_block(MALLOC_CAP_INTERNAL);
    h->free_default = esp_get_free_heap_size();
    h->min_default = esp_get_minimum_free_heap_size();
}

void fw_restart(void *ctx)
{
    (void)ctx;
    esp_restart();
}

void app_main(void)
{
#if FW_NET_OPENETH
    fw_emu_setup();
#else
    esp_err_t err = nvs_flash_init(); /* the Wi-Fi driver keeps its calibration there */
    if (err == ESP_ERR_NVS_NO_FREE_PAGES || err == ESP_ERR_NVS_NEW_VERSION_FOUND) {
        ESP_ERROR_CHECK(nvs_flash_erase());
        err = nvs_flash_init();
    }
    ESP_ERROR_CHECK(err);
#endif
    ESP_ERROR_CHECK(esp_netif_init());
    ESP_ERROR_CHECK(esp_event_loop_create_default());

    fw_console_init();
    ebc_core_init(&s_core, &s_ops, fw_build_info());
    fw_net_setup(&s_core);
    fw_iperf_setup(&s_core);
    fw_echo_start();
    ebc_core_start(&s_core);
#if FW_NET_OPENETH
    /* Above iperf's tasks once the network is started (sdkconfig.net-openeth says why), so that the
     * console answers while a test runs in the emulator. */
    vTaskPrioritySet(NULL, 6);
#endif

    /* The console loop runs in the main task; Wi-Fi and iperf events arrive
     * from their own tasks and only format and write lines. */
    static char line[EBC_LINE_MAX];
    for (;;) {
        fw_console_write(NULL, EBC_PROMPT, strlen(EBC_PROMPT));
        fw_console_read_line(line, sizeof line, !ebc_wants_secret(&s_core));
        ebc_feed_line(&s_core, line);
    }
}
