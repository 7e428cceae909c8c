/* ESP-Hosted (esp-hosted-mcu) co-processor pairs: pair profiles, the pair
 * model, and the raw transport throughput test's console output. Parsers
 * and the model are pure; the loader reads profiles/hosted/. */
#ifndef ESPBENCH_HOSTED_H
#define ESPBENCH_HOSTED_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/error.h"
#include "espbench/formats/model.h"
#include "espbench/formats/profile.h"

/* ------------------------------------------------------------ pair profiles
 * profiles/hosted/NAME.yaml: one ESP-Hosted pair each (format: espbench-profiles(5)).
 * A pair is a host chip, a co-processor chip, the transport between them and
 * the pair's tiers. A tier's settings are the HOST's: esp_wifi_remote's
 * CONFIG_WIFI_RMT_* copies of the Wi-Fi buffer options and the host's lwIP
 * (the co-processor takes the host's Wi-Fi init values over RPC:
 * esp-hosted-mcu slave/main/slave_wifi_std.c get_merged_init_config "always
 * use value from host"); the co-processor's own build values are kept as
 * facts (coprocessor_settings). */
enum eb_hosted_bus { EB_BUS_SDIO, EB_BUS_SPI, EB_BUS_SPI_HD, EB_BUS_UART, EB_BUS_COUNT };
/* The guide's six figures, in its table's row order. */
enum eb_hosted_row { EB_HR_RAW_TX, EB_HR_RAW_RX, EB_HR_TCP_TX, EB_HR_UDP_TX, EB_HR_TCP_RX,
                     EB_HR_UDP_RX, EB_HR_COUNT };

typedef struct eb_hosted_pair {
    char name[64];          /* "esp32p4-esp32c6-sdio" */
    char host[24], coprocessor[24];
    int bus;                /* enum eb_hosted_bus */
    int width;              /* data lines (SDIO 1/4, SPI 1/2/4, UART 1) */
    double clock_mhz;       /* bus clock; UART: baud / 1e6 */
    char band[16];          /* "2.4GHz", "5GHz" */
    /* The co-processor firmware's own sdkconfig values (slave/sdkconfig.defaults.CHIP). */
    bool cp_set[EB_F_COUNT];
    int cp_value[EB_F_COUNT];
    double raw_mbps[2];     /* published raw transport figures: [0] host->co-processor, [1] back; NAN if none */
    eb_tier *tiers;         /* host settings + published iperf figures (ref_mbps) */
    int n_tiers;
    char file[256];
} eb_hosted_pair;

typedef struct eb_hosted_set {
    eb_hosted_pair *pairs;
    int n;
} eb_hosted_set;

/* One pair profile held in memory (name in messages; fuzzing). */
int eb_hosted_load_buffer(eb_hosted_set *out, const char *text, size_t len, const char *name, const eb_profiles *p,
                          eb_error *err);
void eb_hosted_free(eb_hosted_set *s);
const eb_hosted_pair *eb_hosted_by_name(const eb_hosted_set *s, const char *name);
/* The pair of host and co-processor over bus (-1: the only one; NULL with
 * *n_buses > 1 when there are several). n_buses may be NULL. */
const eb_hosted_pair *eb_hosted_find(const eb_hosted_set *s, const char *host, const char *cp, int bus,
                                     int *n_buses);
/* How the user named the co-processor and transport, for messages: the
 * flags ("--coprocessor ", "--transport ", "pass --transport") or a lab
 * file's keys ("coprocessor: ", "transport: ", "set transport:"). */
typedef struct eb_hosted_words {
    const char *cp, *transport, *pass_transport;
} eb_hosted_words;
/* eb_hosted_select in the given words. */
int eb_hosted_select_as(const eb_hosted_set *s, const eb_profiles *p, const char *host, const char *cp,
                        const char *transport, const eb_hosted_words *w, const eb_hosted_pair **out,
                        eb_error *err);
/* Picks the pair of a run's --chip/--coprocessor/--transport (transport NULL:
 * the only one). EB_ECONFIG with one line naming what to pass otherwise. */
int eb_hosted_select(const eb_hosted_set *s, const eb_profiles *p, const char *host, const char *cp,
                     const char *transport, const eb_hosted_pair **out, eb_error *err);
/* The host chip of the pair runs the pair's tiers: replaces c's tiers with a
 * malloc'd copy of the pair's (freed by eb_profiles_free). */
int eb_hosted_apply(eb_chip *c, const eb_hosted_pair *pair, eb_error *err);
const char *eb_hosted_bus_name(int bus);      /* "sdio", "spi", "spi-hd", "uart" */
const char *eb_hosted_bus_label(int bus);     /* the guide's "SDIO", "SPI-FD", "SPI-HD", "UART" */
int eb_hosted_bus_from_name(const char *name); /* -1 if unknown */
/* "SDIO 4-bit 40 MHz, 2.4GHz" into buf. */
const char *eb_hosted_transport_text(const eb_hosted_pair *pair, char *buf, size_t n);

/* The guide's per-co-processor table (Type, Direction, MBits/s): the test
 * of a row (enum eb_test), its labels ("Raw", "P4 to C6"; "iPerf, TCP",
 * "Test PC to P4") and its published figure for tier t (NAN if none). */
int eb_hosted_row_test(int row);
void eb_hosted_row_labels(const eb_hosted_pair *pair, int row, char *type, size_t tn, char *dir, size_t dn);
double eb_hosted_published(const eb_hosted_pair *pair, const eb_tier *t, int row);

/* Renderings for `espbench profiles` (malloc'd text, NULL on no memory). */
char *eb_hosted_render_list(const eb_hosted_set *s);
char *eb_hosted_render_show(const eb_hosted_pair *pair);

/* ------------------------------------------------------------ the pair model
 * The figure a simulated pair shows (docs/model.md, "ESP-Hosted pairs"):
 * test EB_TEST_RAW_TX/RAW_RX = the transport's raw rate; an iperf test = the
 * tier model of the co-processor chip (its air and Wi-Fi path) with the
 * host's settings, capped by what the transport carries of iperf payload;
 * EB_TEST_COUNT = the host's free heap (host chip model, where its heap
 * constants were fitted). NAN when the model has no constants for it. */
double eb_hosted_figure(const eb_model *m, const eb_profiles *p, const eb_hosted_pair *pair, const eb_tier *t,
                        const eb_model_link *l, int test);
/* The transport's capacity for iperf payload in one direction (tx: host to
 * co-processor; udp: UDP framing, else TCP), Mbit/s; NAN without a raw figure. */
double eb_hosted_payload_cap(const eb_hosted_pair *pair, bool tx, bool udp);

#define EB_RAW_TP_MAX_INTERVALS 512

typedef struct eb_raw_tp_interval {
    double start_s, end_s;
    double tx_mbps, rx_mbps;  /* host TX (host->co-processor), host RX */
} eb_raw_tp_interval;

typedef struct eb_raw_tp_result {
    eb_raw_tp_interval iv[EB_RAW_TP_MAX_INTERVALS];
    int n;
    int kbit_base;            /* 1024 ("stats" tag) or 1000 ("eh_raw_tp" tag) */
    double tx_mean_mbps, rx_mean_mbps; /* mean over intervals with traffic; 0 if none */
} eb_raw_tp_result;

/* Parses the host's raw-throughput report lines out of a console log. Returns
 * 0, or EB_EPARSE when no report line is found. */
int eb_raw_tp_parse(const char *text, size_t len, eb_raw_tp_result *out, eb_error *err);

#endif
