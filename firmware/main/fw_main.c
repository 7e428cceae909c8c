/* espbench firmware entry point: bring up NVS, netif and Wi-Fi with the image's
 * tier, then read console lines and hand them to the portable core. */
#include <string.h>

#include "esp_event.h"
#include "esp_idf_version.h"
#include "esp_netif.h"
#include "nvs_flash.h"

#include "fw.h"

/* sdkconfig.defaults sets LWIP_TCPIP_TASK_PRIO and LWIP_EXTRA_IRAM_OPTIMIZATION
 * (the iperf example's), which ESP-IDF has from v5.1.2 on; before, they would be
 * dropped without a word and the figures would not compare. */
#if ESP_IDF_VERSION < ESP_IDF_VERSION_VAL(5, 1, 2)
#error "the espbench firmware needs ESP-IDF v5.1.2 or later"
#endif

static ebc_core s_core;

static const ebc_ops s_ops = {
    .ctx = NULL,
    .write = fw_console_write,
    .wifi_deinit = fw_wifi_deinit,
    .wifi_init = fw_wifi_init,
    .wifi_connect = fw_wifi_connect,
    .wifi_scan = fw_wifi_scan,
    .iperf_start = fw_iperf_start,
    .iperf_abort = fw_iperf_abort,
    .iperf_running = fw_iperf_running,
    .heap = fw_heap,
    .restart = fw_restart,
    .link = fw_link,
    .radio_apply = fw_radio_apply,
};

void app_main(void)
{
    esp_err_t err = nvs_flash_init();
    if (err == ESP_ERR_NVS_NO_FREE_PAGES || err == ESP_ERR_NVS_NEW_VERSION_FOUND) {
        ESP_ERROR_CHECK(nvs_flash_erase());
        err = nvs_flash_init();
    }
    ESP_ERROR_CHECK(err);
    ESP_ERROR_CHECK(esp_netif_init());
    ESP_ERROR_CHECK(esp_event_loop_create_default());

    fw_console_init();
    ebc_core_init(&s_core, &s_ops, fw_build_info());
    fw_wifi_setup(&s_core);
    fw_iperf_setup(&s_core);
    fw_echo_start();
    ebc_core_start(&s_core);

    /* The console loop runs in the main task; Wi-Fi and iperf events arrive
     * from their own tasks and only format and write lines. */
    static char line[EBC_LINE_MAX];
    for (;;) {
        fw_console_write(NULL, EBC_PROMPT, strlen(EBC_PROMPT));
        fw_console_read_line(line, sizeof line, !ebc_wants_secret(&s_core));
        ebc_feed_line(&s_core, line);
    }
}
