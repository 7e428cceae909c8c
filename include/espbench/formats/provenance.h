/* Provenance: the conditions one entry was measured under (firmware, chip,
 * link, AP, host, setting, sweep point). Every entry carries its own copy, so
 * merged or compared files keep telling which setup made which figure.
 *
 * Unknown values stay unknown: text fields are "" and numbers NAN, both
 * written as null (results.json) or an empty field (results.csv). Nothing is
 * guessed. The Wi-Fi password is never a provenance field.
 * Fields and their sources: docs/results.md ("Provenance"). */
#ifndef ESPBENCH_PROVENANCE_H
#define ESPBENCH_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/buf.h"

#define EB_PROV_DIM_SLOTS 8
/* Where slot i lives in eb_provenance (a dimension row's prov_off). */
#define EB_PROV_DIM_SLOT(i) (offsetof(eb_provenance, dim_value) + (size_t)(i) * sizeof(double))

typedef struct eb_provenance {
    char idf_version[48];     /* "v5.3.1" as the firmware printed it */
    char idf_commit[48];      /* git describe / commit of ESP-IDF, when the firmware reports it */
    char iperf_component[48]; /* "espressif/iperf", "iperf-cmd", "example" */
    char iperf_version[32];
    char chip_rev[16];        /* "v0.4" */
    char mac[24];             /* station MAC */
    double flash_mhz, cpu_mhz;
    char band[12];            /* "2.4GHz", "5GHz" */
    char phy_mode[16];        /* "11b", "11g", "11n", "11ax", "11a", "11ac" */
    double channel;
    double bandwidth_mhz;     /* 20, 40 */
    double rssi_before, rssi_after; /* dBm, before and after the test */
    char power_save[16];      /* "none", "min_modem", "max_modem" */
    char ap_ssid[36];
    char ap_bssid[24];
    double unit_base;         /* the board's rate unit: 1e6 (decimal Mbit) or 1048576 (Mibit) */
    char espbench_version[32];
    char pc_iperf_version[64];
    char env[64];             /* --env: shield-box, air, cable or free text */
    char sdkconfig[160];      /* build options the firmware reports ("key=value,...") */
    char sweep_var[24];       /* the swept variable for a sweep point ("udp_rate"), "" otherwise */
    double sweep_value;
    double concurrent_boards; /* run --aggregate: boards that started this test together */
    /* ESP-Hosted pair (hosted.h): the Wi-Fi co-processor and the transport
     * to it, "" / NAN for a board with its own radio. */
    char coprocessor[24];     /* "esp32c6" */
    char transport[16];       /* "sdio", "spi", "spi-hd", "uart" */
    double transport_width;   /* data lines */
    double transport_clock_mhz;
    /* A board-to-board (pair) test (run --peer-port / --peer-chip): the
     * board at the other end of the data path, "" for a test against the
     * PC. The entry's own chip, tier and mac are the board under test's. */
    char peer_board[48];      /* its name ("sim-peer", a lab peer's name) */
    char peer_chip[24];
    char peer_tier[32];
    char peer_mac[24];
    char peer_ip[48];
    char peer_idf_version[48];
    char peer_dialect[32];
    /* The loader that wrote the board's firmware when the run flashed it:
     * "ROM", "stub: esptool-js 0.7.0" (flash.h eb_flash_loader, without the
     * path); "" when the run flashed nothing. */
    char flash_loader[64];
    /* Lab instruments (docs/instruments.md): the attenuation the board's
     * attenuator read back for the test, and the instruments the run drove
     * ("att1=idf-serial ap1=openwrt pdu1=apc"), "" / NAN without. */
    double attenuation_db;
    char instruments[160];
    /* The radio dimensions asked for (dims.h: run --band, --bandwidth,
     * --phy, --power-save, --listen-interval, --coex), "" / NAN at their
     * default. Part of the result's key; the link as negotiated is in band,
     * phy_mode, channel, bandwidth_mhz and power_save above. Written only
     * when known, so results of a run at the defaults keep their bytes. */
    char radio_band[8];       /* "2.4", "5" */
    double radio_bandwidth;   /* MHz: 20, 40 */
    char radio_phy[16];       /* "b,g,n", "ax" ... */
    char radio_power_save[12];/* "none", "min_modem", "max_modem" */
    double radio_listen_interval; /* beacon intervals (max_modem) */
    char radio_coex[12];      /* "none", "ble_scan", "ble_adv" */
    /* The espbench firmware's Ethernet image (run --qemu, docs/emulator.md):
     * its network ("eth"), and the sources it was built with in place of the
     * ones its ESP-IDF pins, as its `version` names them ("" = none named).
     * Written only when known. */
    char net[8];
    char fw_sources[240];
    /* An emulated board (run --qemu): the emulator as run ("QEMU emulator
     * version 8.1.3, qemu-system-riscv32 -M esp32c3"), and the image the
     * test ran on: its app's SHA-256, its descriptor's project and version
     * ("espbench 31d2e5d"), and the --qemu-image it came from ("TIER=DIR", or
     * DIR for the image of every tier without one). Written only when known. */
    char emulator[160];
    char fw_sha256[72];
    char fw_version[96];
    char fw_image[240];
    /* The far end when it is not this PC: the SSH host that ran the test's
     * iperf2 ("ssh://lab"). Written only when known. */
    char far_end[256];
    /* The values of the dimensions whose rows own a slot here (dims.c:
     * eb_dim_desc.prov_off, e.g. an iperf option), NAN at their default;
     * their keys and labels are the rows', written only where known. */
    double dim_value[EB_PROV_DIM_SLOTS];
} eb_provenance;

/* All unknown. */
void eb_prov_init(eb_provenance *p);
/* A shared, read-only provenance with every field unknown. */
const eb_provenance *eb_prov_unknown(void);
/* True when no field is known. */
bool eb_prov_empty(const eb_provenance *p);

/* The field table: JSON keys (under "provenance"), CSV columns (prefixed
 * "prov_") and report footers all come from it. */
enum eb_prov_kind { EB_PROV_TEXT, EB_PROV_NUM };
typedef struct eb_prov_field {
    const char *key;
    int kind;           /* enum eb_prov_kind */
    size_t off, size;   /* offsetof/sizeof in eb_provenance */
    const char *label;  /* report footer label */
    bool optional;      /* written (JSON key, CSV column) only where known */
} eb_prov_field;
int eb_prov_n_fields(void);
const eb_prov_field *eb_prov_field_get(int i);
/* Field value as text ("" when unknown): numbers print as %.6g. */
void eb_prov_format(const eb_provenance *p, int i, char *out, size_t cap);

/* Compact JSON object text, every field present (null when unknown). */
void eb_prov_to_json(const eb_provenance *p, eb_buf *out);
/* From a parsed JSON object (a cJSON *): unknown keys ignored, null = unknown.
 * Returns 0, or -1 with the offending key in *bad_key. */
int eb_prov_from_json(const void *cjson_object, eb_provenance *p, const char **bad_key);

/* Copies into dst every field src knows (a run's gathered facts into an entry). */
void eb_prov_merge(eb_provenance *dst, const eb_provenance *src);

/* --env: free text without control characters. 0, or -1 with why filled. */
int eb_prov_check_env(const char *s, char *why, size_t cap);

/* Reads the facts one console line states into p: #EB: version / tier_show
 * replies of the espbench firmware, and what stock ESP-IDF firmware prints
 * (boot log, "wifi:connected with ...", scan lines, `version`). after_test
 * sends an RSSI into rssi_after instead of rssi_before. Pure; returns the
 * number of fields set. */
int eb_prov_from_line(const char *line, eb_provenance *p, bool after_test);

/* A board's provenance over a run: the run job feeds it every console line,
 * marks each test's start and stamps each finished entry. RSSI before = the
 * last reading before the test started; RSSI after = a reading taken during
 * or after the test (the espbench firmware's `mem` reply after each test),
 * null when the firmware gave none. */
typedef struct eb_prov_tracker {
    eb_provenance seen;  /* facts seen so far; seen.rssi_before = latest reading */
    double rssi_start;
} eb_prov_tracker;
/* Run-wide facts: espbench version, the PC's iperf2 version, --env, the
 * unit base of the board's dialect (NAN unknown); NULL/"" leaves a field unknown. */
void eb_prov_track_init(eb_prov_tracker *t, const char *espbench_version, const char *pc_iperf_version,
                        const char *env);
void eb_prov_track_line(eb_prov_tracker *t, const char *line);
void eb_prov_track_test_start(eb_prov_tracker *t);
void eb_prov_track_stamp(const eb_prov_tracker *t, double unit_base, eb_provenance *dst);

/* Report footer: for every field known in some entry, its label and value
 * when all entries agree, or "varies: a, b, ..." otherwise; item() is called
 * once per field, in table order. Returns the number of items. */
struct eb_results;
int eb_prov_footer(const struct eb_results *r, void (*item)(void *ctx, const char *label, const char *value),
                   void *ctx);

#endif
