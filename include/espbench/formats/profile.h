/* Chip and buffer-tier profiles, loaded from the YAML files in profiles/.
 *
 * A tier's settings are a table of fields (eb_field_desc): renderers, the
 * validator, the board firmware protocol and the vboard all iterate the same
 * table, so a new setting is one row here and one key in YAML. */
#ifndef ESPBENCH_PROFILE_H
#define ESPBENCH_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/error.h"

/* The four tests of the docs' tables, in the docs' row order. */
enum eb_test { EB_TEST_TCP_TX, EB_TEST_TCP_RX, EB_TEST_UDP_TX, EB_TEST_UDP_RX, EB_TEST_COUNT };
/* ESP-Hosted's raw transport tests (hosted.h): host to co-processor and
 * back, no Wi-Fi, no lwIP. Named by eb_test_name like the four above, but
 * outside the docs' tables (arrays of EB_TEST_COUNT never hold them).
 * EB_TEST_COUNT itself is the run's latency test (run.h EB_RUN_LATENCY). */
enum { EB_TEST_RAW_TX = EB_TEST_COUNT + 1, EB_TEST_RAW_RX, EB_TEST_ALL_COUNT };
#define EB_TEST_IS_RAW(t) ((t) == EB_TEST_RAW_TX || (t) == EB_TEST_RAW_RX)
const char *eb_test_name(int test);      /* "tcp_tx" */
const char *eb_test_label(int test);     /* "TCP TX" */
int eb_test_from_name(const char *name); /* -1 if unknown */

/* Tier settings. Order = the docs' row order where the docs have the row. */
enum eb_field {
    EB_F_STATIC_RX,      /* WIFI_STATIC_RX_BUFFER_NUM */
    EB_F_DYNAMIC_RX,     /* WIFI_DYNAMIC_RX_BUFFER_NUM */
    EB_F_DYNAMIC_TX,     /* WIFI_DYNAMIC_TX_BUFFER_NUM (dynamic TX buffer type) */
    EB_F_STATIC_TX,      /* WIFI_STATIC_TX_BUFFER_NUM (static TX buffer type; PSRAM tiers) */
    EB_F_RX_BA_WIN,      /* WIFI_RX_BA_WIN; 0 = "Disable" (AMPDU RX off) */
    EB_F_TCP_SND_BUF_KB, /* TCP_SND_BUF_DEFAULT (KB) */
    EB_F_TCP_WND_KB,     /* TCP_WND_DEFAULT (KB) */
    EB_F_TCP_MBOX,       /* LWIP_TCP_RECVMBOX_SIZE */
    EB_F_UDP_MBOX,       /* LWIP_UDP_RECVMBOX_SIZE */
    EB_F_TCPIP_MBOX,     /* LWIP_TCPIP_RECVMBOX_SIZE */
    EB_F_WIFI_IRAM_OPT,  /* bool */
    EB_F_WIFI_RX_IRAM_OPT,
    EB_F_LWIP_IRAM_OPT,
    EB_F_ICACHE_KB,      /* INSTRUCTION_CACHE size (KB) */
    EB_F_ICACHE_LINE,    /* INSTRUCTION_CACHE_LINE (bytes) */
    EB_F_ICACHE_WAYS,
    EB_F_DCACHE_KB,
    EB_F_DCACHE_LINE,
    EB_F_DCACHE_WAYS,
    EB_F_CPU_MHZ,        /* ESP8266 variants */
    EB_F_AMPDU_RX,       /* bool; ESP8266 variants */
    EB_F_FULL_CACHE,     /* bool; ESP8266 SOC_FULL_ICACHE */
    /* ESP8266_RTOS_SDK Wi-Fi buffers (the ESP8266 iperf example's tuned values). */
    EB_F_RX_BUF_NUM,     /* ESP8266_WIFI_RX_BUFFER_NUM */
    EB_F_RX_PKT_NUM,     /* ESP8266_WIFI_RX_PKT_NUM */
    EB_F_TX_PKT_NUM,     /* ESP8266_WIFI_TX_PKT_NUM */
    EB_F_CONT_RX_BUF_NUM,/* ESP8266_WIFI_LEFT_CONTINUOUS_RX_BUFFER_NUM */
    EB_F_COUNT
};

enum eb_field_kind {
    EB_FK_INT,  /* plain integer */
    EB_FK_BOOL, /* ENABLE / DISABLE */
    EB_FK_BA,   /* integer, or 0 shown as "Disable" */
};

typedef struct eb_field_desc {
    const char *key;      /* YAML key: "static_rx" */
    const char *kconfig;  /* docs' row name: "WIFI_STATIC_RX_BUFFER_NUM" */
    const char *label;    /* docs' row label: "WIFI_STATIC_RX_BUFFER_NUM" or "TCP_SND_BUF_DEFAULT (KB)" */
    enum eb_field_kind kind;
    int min, max;         /* ESP-IDF Kconfig range (bools: 0..1) */
    bool runtime;         /* default: changeable at run time via wifi_init_config_t */
} eb_field_desc;

const eb_field_desc *eb_field_desc_get(int field); /* NULL if out of range */
int eb_field_from_key(const char *key);            /* -1 if unknown */

typedef struct eb_tier {
    char name[32];        /* "iperf", "tx-prior", ..., "psram-iperf", "psram-oct-default" */
    char label[48];       /* docs' column header: "Iperf", "TX prior", "Memory saving" */
    char label_zh[48];    /* zh_CN column header: "发送数据优先" */
    char base[32];        /* inherited tier, "" if none (already resolved on load) */
    bool psram;
    bool set[EB_F_COUNT];
    int value[EB_F_COUNT];
    bool runtime[EB_F_COUNT];  /* per-field: may the firmware change it at run time */
    /* Reference figures from the docs (NAN when the docs give none). */
    double ref_avail_kb;
    double ref_mbps[EB_TEST_COUNT]; /* written by the loaders; read through eb_tier_ref (dims.h) */
    /* The docs' figures on the 5 GHz band (reference_5g:, ESP32-C5), NAN
     * when none; read through eb_tier_ref with a key at band 5. */
    double ref_5g_mbps[EB_TEST_COUNT];
    char image[128];      /* stock-firmware image name in the manifest, "" if runtime-switchable */
    /* Where the tier was defined, for error messages. */
    char file[256];
    int line, col;
} eb_tier;

/* SPI flash controller register offsets (from spi_reg_base) that the ROM
 * loader's host uses for the RDID user command (esptool's SPI_*_OFFS). */
typedef struct eb_spi_regs {
    uint32_t usr, usr1, usr2;
    uint32_t mosi_dlen, miso_dlen; /* 0: no such register (ESP8266: lengths in USR1) */
    uint32_t w0;
} eb_spi_regs;

enum eb_cpu_arch { EB_ARCH_UNKNOWN, EB_ARCH_XTENSA, EB_ARCH_RISCV };
/* Application image layout: ESP32-family (extended header, app descriptor,
 * SHA-256) or the ESP8266's v1 image (none of those). */
enum eb_image_format { EB_IMAGE_ESP32, EB_IMAGE_ESP8266 };

/* Where an application's segments load (esptool targets' *_MAP_START and
 * MEMORY_MAP): flash-mapped data (DROM) and code (IROM), internal RAM. */
typedef struct eb_memory_map {
    uint32_t drom, irom;   /* MMU-mapped windows; 0 = none (ESP8266 has no DROM) */
    uint32_t dram, iram;
} eb_memory_map;

typedef struct eb_chip {
    char name[24];         /* "esp32s3" */
    char base[24];         /* chip whose facts this one inherits ("" = none; resolved on load) */
    char display[32];      /* "ESP32-S3" */
    uint32_t magic[6];     /* ROM magic values at 0x40001000 */
    int n_magic;
    int chip_id;           /* image/security chip id; -1 for ESP8266 (none) */
    bool rom_security_info;/* ROM answers GET_SECURITY_INFO */
    int rom_status_bytes;  /* 4 (ESP32 and later) or 2 (ESP8266) */
    uint32_t efuse_mac_reg;/* address of the first eFuse MAC word (READ_REG) */
    uint32_t spi_reg_base; /* SPI flash controller used for RDID (flash size detection) */
    uint32_t bootloader_offset;
    uint32_t flash_size;   /* default flash size, bytes */
    bool has_psram;
    char rom_banner[64];   /* "ESP-ROM:esp32s3-20210327" (ROM version line on boot) */
    double cpu_mhz;
    /* Optional facts (has_* false / 0 when a profile leaves them out; the
     * code that needs one says which key to add). */
    enum eb_cpu_arch arch;
    int cores;             /* CPU cores; 0 = unknown */
    bool has_spi_regs;
    eb_spi_regs spi;
    bool has_memory_map;
    eb_memory_map mem;
    enum eb_image_format image_format;
    uint32_t uart_clkdiv_reg; /* UART0 CLKDIV (esptool reads it to tell the crystal); 0 = unknown */
    uint32_t uart_clk_hz;     /* what that divider divides: 40 MHz; ESP8266 52 MHz (26 MHz x 2) */
    /* At the end of a compressed stream the ROM programs its whole circular
     * inflate buffer of this many bytes, unerased, at the window holding the
     * end (ESP32: 32 KiB; docs/flashing.md); 0 = it writes what it inflated. */
    uint32_t rom_deflate_window;
    /* The ROM writes a stream's last bytes rounded up to this many (ESP32-C3:
     * 4), the padding from its 32 KiB circular buffer; 0 = none. Inside the
     * region's last sector: the vboard models it, hosts need not care. */
    uint32_t rom_deflate_pad;
    /* The ROM loader has no FLASH_DEFL_* / no CHANGE_BAUDRATE (ESP8266:
     * esptool's flash_defl_begin and change_baud are stub-and-ESP32-only):
     * hosts write plain FLASH_DATA at 115200 there unless a stub runs. */
    bool rom_no_deflate;
    bool rom_no_change_baud;
    /* The UDP rate the PC offers in udp_rx by default, Mbit/s; 0 = 100.
     * ESP-IDF's iperf test utility (IperfTestBaseUtility.DEF_UDP_RX_BW_LIMIT). */
    double udp_rx_rate_mbps;
    /* Radio facts (each chip's soc_caps.h and datasheet; the radio
     * dimensions of dims.h are checked against them): the Wi-Fi bands
     * ("2.4", "2.4,5"; "" = none known), the bands where it runs HT40,
     * 802.11ax (wifi6) and Bluetooth LE. */
    char wifi_bands[16];
    char ht40_bands[16];
    bool wifi6;
    bool ble;
    eb_tier *tiers;
    int n_tiers;
    char file[256];
} eb_chip;

typedef struct eb_profiles {
    eb_chip *chips;
    int n_chips;
} eb_profiles;

/* Profile YAML texts, folder by folder (pure: formats/profile_load.c). In a
 * folder the whole chips load before the overlays; a later folder overlays
 * (replaces whole chips and adds or replaces tiers of) an earlier one. */
typedef struct eb_profile_text {
    const char *name;   /* the file, for messages */
    const char *text;
    size_t len;
} eb_profile_text;
typedef struct eb_profile_folder {
    const char *dir;
    const eb_profile_text *files;
    int n;
} eb_profile_folder;
int eb_profiles_load_texts(eb_profiles *out, const eb_profile_folder *folders, int n_folders, eb_error *err);

/* Loads one chip profile held in memory (name is used in messages). Same
 * checks as a file, including the size, nesting and alias limits of
 * yaml_guard.h. */
int eb_profiles_load_buffer(eb_profiles *out, const char *text, size_t len, const char *name, eb_error *err);
void eb_profiles_free(eb_profiles *p);

const eb_chip *eb_profiles_chip(const eb_profiles *p, const char *name);
const eb_tier *eb_chip_tier(const eb_chip *c, const char *tier_name);
/* Both take a name as reports print it too ("ESP32-C3", "Iperf": the folded
 * spelling of names.h), after an exact match. The nearest chip or tier name
 * to a typo (one edit off; NULL when none or a tie): for "did you mean". */
const char *eb_profiles_chip_nearest(const eb_profiles *p, const char *name);
const char *eb_chip_tier_nearest(const eb_chip *c, const char *name);
/* "iperf, default, minimum": the chip's tier names in profile order, for messages. */
void eb_chip_tier_names(const eb_chip *c, char *buf, size_t n);
/* Chip lookups used by the ROM loader client. */
const eb_chip *eb_profiles_chip_by_id(const eb_profiles *p, int chip_id);
const eb_chip *eb_profiles_chip_by_magic(const eb_profiles *p, uint32_t magic);
/* The chip's SPI register layout for RDID, or NULL (with a message naming the
 * profile key to add) when its profile has none. */
const eb_spi_regs *eb_chip_spi_regs(const eb_chip *c, eb_error *err);
const char *eb_cpu_arch_name(enum eb_cpu_arch a); /* "xtensa", "riscv", "unknown" */

/* Validation of one tier against the Kconfig ranges and cross-field rules.
 * Returns 0 or EB_ECONFIG with a message (no location prefix). */
int eb_tier_validate(const eb_tier *t, eb_error *err);
/* Same, and names the field the message is about (-1 if none), so a loader
 * can point at the line that set it. */
int eb_tier_validate_field(const eb_tier *t, int *bad_field, eb_error *err);

/* A value as the docs print it into buf (n bytes): "Disable" for a BA field
 * at 0, "ENABLE"/"DISABLE" for bools, else the number. Returns buf. */
const char *eb_field_format(int field, int value, char *buf, size_t n);
/* The docs' row label of a test's figures: "TCP TX throughput (Mbit/s)". */
const char *eb_test_docs_label(int test);

/* Renderings for `espbench profiles show` (malloc'd text, NULL on no memory;
 * only = one tier, or NULL for all). The table has the docs' layout: rows =
 * fields and reference figures, columns = tiers, one block per tier group
 * (no PSRAM, psram-*, psram-quad-*, ...). The JSON lists the chip facts and
 * every tier with its set fields, runtime flags and reference figures. */
char *eb_chip_render_table(const eb_chip *c, const eb_tier *only);
char *eb_chip_render_json(const eb_chip *c, const eb_tier *only);

#endif
