/* ESP application image headers, extended header, segments, checksum,
 * appended SHA-256 and app descriptor, in both layouts (ESP32+ and ESP8266). */
#include "espbench/formats/esp_image.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        abort();
    memcpy(copy, data, size);
    for (int esp8266 = 0; esp8266 < 2; esp8266++) {
        eb_image_info info;
        eb_error err;
        if (eb_image_parse(copy, size, esp8266, &info, &err) == 0 && info.image_len > size)
            abort(); /* claims more bytes than it was given */
        (void)eb_image_flash_size_bytes(size ? copy[0] : 0);
    }
    free(copy);
    return 0;
}
