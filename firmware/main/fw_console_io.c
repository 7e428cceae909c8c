/* Console byte I/O. The console is read with a blocking driver (not the
 * esp_console REPL) because the password line after `sta_connect SSID -` must
 * not be echoed, and output from Wi-Fi and iperf tasks must not interleave
 * mid-line with replies. */
#include <stdio.h>
#include <unistd.h>

#include "esp_idf_version.h"
#include "freertos/FreeRTOS.h"
#include "freertos/semphr.h"
#include "sdkconfig.h"

/* Where the "use the blocking driver" calls are declared moved in ESP-IDF v5.3:
 * v5.1/v5.2 declare both in the vfs component's esp_vfs_dev.h (its
 * esp_vfs_usb_serial_jtag.h only registers the VFS); v5.3 moved them to
 * driver/uart_vfs.h and driver/usb_serial_jtag_vfs.h and deprecated the old
 * names. main/CMakeLists.txt requires vfs for the v5.1/v5.2 header, and
 * esp_driver_uart / esp_driver_usb_serial_jtag from v5.3 (v6.0's driver no
 * longer requires them publicly). */
#if ESP_IDF_VERSION >= ESP_IDF_VERSION_VAL(5, 3, 0)
#define FW_VFS_SPLIT 1
#else
#define FW_VFS_SPLIT 0
#endif

#if CONFIG_ESP_CONSOLE_USB_SERIAL_JTAG
#include "driver/usb_serial_jtag.h"
#if FW_VFS_SPLIT
#include "driver/usb_serial_jtag_vfs.h"
#else
#include "esp_vfs_dev.h"
#endif
#elif CONFIG_ESP_CONSOLE_UART
#include "driver/uart.h"
#if FW_VFS_SPLIT
#include "driver/uart_vfs.h"
#else
#include "esp_vfs_dev.h"
#endif
#else
#error "the espbench console needs CONFIG_ESP_CONSOLE_UART (UART0) or CONFIG_ESP_CONSOLE_USB_SERIAL_JTAG"
#endif

#include "fw.h"

static SemaphoreHandle_t s_out_lock;

/* stdout turns every "\n" into "\r\n" on the wire (ESP-IDF's default line
 * ending, CONFIG_LIBC_STDOUT_LINE_ENDING_CRLF; CONFIG_NEWLIB_ before v5.5):
 * the core's lines already end in "\r\n", which would go out as "\r\r\n"
 * (seen on the real image: tests/fixtures/firmware-real/). */
#if defined(CONFIG_LIBC_STDOUT_LINE_ENDING_CRLF) || defined(CONFIG_NEWLIB_STDOUT_LINE_ENDING_CRLF)
#define FW_STDOUT_ADDS_CR 1
#else
#define FW_STDOUT_ADDS_CR 0
#endif

void fw_console_init(void)
{
    s_out_lock = xSemaphoreCreateMutex();
    setvbuf(stdin, NULL, _IONBF, 0);
#if CONFIG_ESP_CONSOLE_USB_SERIAL_JTAG
    usb_serial_jtag_driver_config_t cfg = USB_SERIAL_JTAG_DRIVER_CONFIG_DEFAULT();
    ESP_ERROR_CHECK(usb_serial_jtag_driver_install(&cfg));
#if FW_VFS_SPLIT
    usb_serial_jtag_vfs_use_driver();
#else
    esp_vfs_usb_serial_jtag_use_driver();
#endif
#else
    ESP_ERROR_CHECK(uart_driver_install(CONFIG_ESP_CONSOLE_UART_NUM, 1024, 0, 0, NULL, 0));
#if FW_VFS_SPLIT
    uart_vfs_dev_use_driver(CONFIG_ESP_CONSOLE_UART_NUM);
#else
    esp_vfs_dev_uart_use_driver(CONFIG_ESP_CONSOLE_UART_NUM);
#endif
#endif
}

void fw_console_write(void *ctx, const char *data, size_t len)
{
    (void)ctx;
    xSemaphoreTake(s_out_lock, portMAX_DELAY);
    size_t from = 0;
    for (size_t i = 0; FW_STDOUT_ADDS_CR && i + 1 < len; i++)
        if (data[i] == '\r' && data[i + 1] == '\n') {
            fwrite(data + from, 1, i - from, stdout); /* up to the '\r'; the '\n' brings its own */
            from = i + 1;
        }
    fwrite(data + from, 1, len - from, stdout);
    fflush(stdout);
    xSemaphoreGive(s_out_lock);
}

size_t fw_console_read_line(char *buf, size_t cap, bool echo)
{
    size_t n = 0;
    for (;;) {
        int ch = fgetc(stdin);
        if (ch == EOF) {
            vTaskDelay(pdMS_TO_TICKS(10));
            continue;
        }
        if (ch == '\r' || ch == '\n') {
            if (n == 0 && ch == '\n')
                continue; /* the \n of a \r\n pair */
            if (echo)
                fw_console_write(NULL, "\r\n", 2);
            else
                fw_console_write(NULL, "\r\n", 2); /* end the line, show nothing of it */
            buf[n] = '\0';
            return n;
        }
        if (ch == 0x08 || ch == 0x7f) {
            if (n > 0) {
                n--;
                if (echo)
                    fw_console_write(NULL, "\b \b", 3);
            }
            continue;
        }
        if (ch < 0x20 || n + 1 >= cap)
            continue; /* control bytes (terminal probes) and overlong input are dropped */
        buf[n++] = (char)ch;
        if (echo) {
            char c = (char)ch;
            fw_console_write(NULL, &c, 1);
        }
    }
}
