/* ESP application image format (header, extended header, segments, checksum,
 * appended SHA-256) and the app descriptor (esp_app_desc_t). Pure functions. */
#ifndef ESPBENCH_ESP_IMAGE_H
#define ESPBENCH_ESP_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/buf.h"
#include "espbench/base/error.h"

#define EB_IMAGE_MAGIC 0xE9
#define EB_APP_DESC_MAGIC 0xABCD5432u

typedef struct eb_image_info {
    uint8_t segments;
    uint8_t spi_mode;
    uint8_t flash_size_freq;  /* byte 3: size in high nibble, freq in low */
    uint32_t entry;
    bool has_ext_header;      /* false for ESP8266 images */
    uint16_t chip_id;         /* valid when has_ext_header */
    bool hash_appended;
    size_t image_len;         /* bytes up to and including checksum and SHA-256 */
    bool checksum_ok;
    bool sha256_ok;           /* true also when no hash is appended */
    bool has_app_desc;
    char version[33];
    char project_name[33];
    char time[17];
    char date[17];
    char idf_ver[33];
    /* Test-only: the efficiency factor espbench-vboard mkimage --test-efficiency
     * stored in the descriptor's reserved words (EB_APP_DESC_TEST_EFF_OFFSET);
     * 0 when the image carries none, as no real firmware does. */
    double test_efficiency;
    /* Test-only: the tier whose build-time settings the image was built with
     * (espbench-vboard mkimage --test-build-tier, EB_APP_DESC_TEST_TIER_OFFSET),
     * standing in for the sdkconfig values a real image is compiled with;
     * "" when none. */
    char test_build_tier[32];
} eb_image_info;

/* Where the test-only efficiency sits in esp_app_desc_t's reserv2[]: the
 * marker EB_APP_DESC_TEST_EFF_MAGIC ("EBTF" little-endian), then the factor in
 * parts per million (u32). */
#define EB_APP_DESC_TEST_EFF_OFFSET 240u
#define EB_APP_DESC_TEST_EFF_MAGIC 0x46544245u
/* The test-only build tier in reserv2[] too: the marker "EBTB" little-endian,
 * then the tier's name, NUL-padded (31 characters at most). */
#define EB_APP_DESC_TEST_TIER_OFFSET 200u
#define EB_APP_DESC_TEST_TIER_MAGIC 0x42544245u

/* Parses an image from the start of data. esp8266 selects the ESP8266 layout
 * (no extended header, no app descriptor). Returns 0 or EB_ECONFIG with a message
 * ("not an ESP image: first byte 0x.. (expected 0xE9)", "truncated: ..."). */
int eb_image_parse(const uint8_t *data, size_t len, bool esp8266, eb_image_info *out, eb_error *err);

/* Flash size in bytes from the header nibble (ESP32+ encoding), 0 if unknown. */
uint32_t eb_image_flash_size_bytes(uint8_t flash_size_freq);

typedef struct eb_image_spec {
    int chip_id;              /* -1 for ESP8266 layout */
    const char *project_name;
    const char *version;
    const char *idf_ver;
    size_t size;              /* approximate total size in bytes */
    uint32_t seed;            /* content generator seed */
    uint8_t flash_size_freq;  /* header byte 3 */
    double test_efficiency;   /* test-only factor for the vboard (0 = none; see eb_image_info) */
    const char *test_build_tier; /* test-only build tier for the vboard (NULL = none; see eb_image_info) */
    /* Where the segments load: the chip's memory map from its profile (NULL:
     * the ESP32's). DROM at its window start + 0x20 and IROM placed so that
     * flash offset and address agree modulo the 64 KiB MMU page, as
     * esptool elf2image lays them out for an app at a 64 KiB-aligned offset. */
    const struct eb_memory_map *mem;
} eb_image_spec;

/* Writes a valid application image: header, extended header, a DROM segment
 * starting with the app descriptor, code-like segments about as compressible as
 * a real app, checksum and SHA-256. */
int eb_image_build(const eb_image_spec *spec, eb_buf *out, eb_error *err);

#endif
