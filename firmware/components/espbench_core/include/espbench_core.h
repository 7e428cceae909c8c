/* The espbench console protocol core: portable C, no ESP-IDF includes.
 *
 * Compiled into the board firmware (ESP-IDF component) and into
 * espbench-vboard. It tokenizes console lines, runs the command table,
 * validates buffer tiers, maps a tier to a wifi_init_config_t-like struct and
 * formats the machine-readable "#EB:" lines. The platform (ESP-IDF glue or the
 * vboard) is reached only through ebc_ops. See docs/console-protocol.md. */
#ifndef ESPBENCH_CORE_H
#define ESPBENCH_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EBC_PROTO_VERSION 1
#define EBC_PROMPT "espbench> "
#define EBC_LINE_MAX 512  /* longest console line, in and out */
#define EBC_MAX_ARGS 40

/* Tier fields. Same order and keys as enum eb_field in include/espbench/profile.h
 * (key = enum name in lower case without EB_F_); a host test checks it. */
enum ebc_field {
    EBC_F_STATIC_RX,
    EBC_F_DYNAMIC_RX,
    EBC_F_DYNAMIC_TX,
    EBC_F_STATIC_TX,
    EBC_F_RX_BA_WIN,
    EBC_F_TCP_SND_BUF_KB,
    EBC_F_TCP_WND_KB,
    EBC_F_TCP_MBOX,
    EBC_F_UDP_MBOX,
    EBC_F_TCPIP_MBOX,
    EBC_F_WIFI_IRAM_OPT,
    EBC_F_WIFI_RX_IRAM_OPT,
    EBC_F_LWIP_IRAM_OPT,
    EBC_F_ICACHE_KB,
    EBC_F_ICACHE_LINE,
    EBC_F_ICACHE_WAYS,
    EBC_F_DCACHE_KB,
    EBC_F_DCACHE_LINE,
    EBC_F_DCACHE_WAYS,
    EBC_F_CPU_MHZ,
    EBC_F_AMPDU_RX,
    EBC_F_FULL_CACHE,
    EBC_F_RX_BUF_NUM,      /* ESP8266_RTOS_SDK build options */
    EBC_F_RX_PKT_NUM,
    EBC_F_TX_PKT_NUM,
    EBC_F_CONT_RX_BUF_NUM,
    EBC_F_COUNT
};

typedef struct ebc_field_info {
    const char *key;  /* "static_rx" */
    int min, max;     /* Kconfig range on a chip without 802.11ax and without PSRAM */
    bool runtime;     /* changeable through wifi_init_config_t (stop, deinit, init) */
    bool is_bool;     /* 0/1 */
    bool wifi;        /* a Wi-Fi driver setting: not applicable to an Ethernet image */
} ebc_field_info;

const ebc_field_info *ebc_field_get(int field); /* NULL if out of range */
int ebc_field_from_key(const char *key);         /* -1 if unknown */

/* A tier as key=value fields; unset fields take the image's values. */
typedef struct ebc_tier {
    char name[32];
    bool set[EBC_F_COUNT];
    int value[EBC_F_COUNT];
} ebc_tier;

/* The wifi_init_config_t fields a tier changes, mirrored portably. */
typedef struct ebc_wifi_cfg {
    int static_rx_buf_num;
    int dynamic_rx_buf_num;  /* 0 = unlimited */
    int tx_buf_type;         /* 0 static, 1 dynamic (as ESP-IDF) */
    int static_tx_buf_num;
    int dynamic_tx_buf_num;
    bool ampdu_rx_enable;
    int rx_ba_win;           /* unused when !ampdu_rx_enable */
} ebc_wifi_cfg;

/* What the running image is. */
typedef struct ebc_build {
    const char *fw_version;  /* "0.1.0" */
    const char *idf_version; /* "v5.5" */
    const char *chip;        /* "esp32" */
    bool he;                 /* 802.11ax chip: wider Kconfig ranges (static_rx ≤128, BA ≤64) */
    bool psram;              /* SPIRAM_TRY_ALLOCATE_WIFI_LWIP: TX buffers must be static */
    /* The tier compiled into the image: runtime fields are the boot defaults,
     * build-time fields are the values every tier_set must match. */
    ebc_tier image;
    const char *mac;         /* station MAC "aa:bb:cc:dd:ee:ff"; NULL if unknown */
    /* Provenance reported by `version` (NULL / 0 = unknown, not printed). */
    const char *idf_commit;      /* ESP-IDF git describe/commit the image was built from */
    const char *iperf_component; /* "espressif/iperf" */
    const char *iperf_version;   /* its version */
    const char *chip_rev;        /* "v0.4" */
    const char *sdkconfig;       /* build options beyond the tier, "key=value,..." (< 120 chars) */
    const char *sources;         /* what the image was built with in place of what its ESP-IDF
                                    pins, "name=used for pinned,..." (< 200 chars); NULL: none */
    int flash_mhz, cpu_mhz;
    /* Radio facts of the chip (SoC capabilities): what radio_set may ask for. */
    bool band_5g;            /* SOC_WIFI_SUPPORT_5G: the 5 GHz band (esp32c5) */
    bool ble;                /* SOC_BLE_SUPPORTED: a BLE activity for coex= */
    /* The image's network is Ethernet (the open_eth build for the emulator),
     * not Wi-Fi: Wi-Fi fields and commands answer UNSUPPORTED "not applicable",
     * and the address comes from ebc_event_net_got_ip. */
    bool ethernet;
} ebc_build;

/* ---- validation and mapping (pure) ---- */

/* Error codes of #EB:ERR lines. */
#define EBC_ERR_SYNTAX "SYNTAX"
#define EBC_ERR_UNKNOWN_CMD "UNKNOWN_CMD"
#define EBC_ERR_UNKNOWN_FIELD "UNKNOWN_FIELD"
#define EBC_ERR_RANGE "RANGE"
#define EBC_ERR_CONSTRAINT "CONSTRAINT"
#define EBC_ERR_BUILD_ONLY "BUILD_ONLY"
#define EBC_ERR_BUSY "BUSY"
#define EBC_ERR_NOT_CONNECTED "NOT_CONNECTED"
#define EBC_ERR_NO_AP "NO_AP"
#define EBC_ERR_AUTH "AUTH"
#define EBC_ERR_WIFI "WIFI"
#define EBC_ERR_IPERF "IPERF"
#define EBC_ERR_UNSUPPORTED "UNSUPPORTED" /* the chip, its ESP-IDF or the image cannot do it */

typedef struct ebc_status {
    const char *code;  /* one of EBC_ERR_*, NULL when ok */
    char msg[160];
} ebc_status;

/* The field's range for this build (he/psram widen some). */
void ebc_field_range(const ebc_build *b, int field, int *min, int *max);
/* Builds the requested tier from key=value arguments (argv[0] is the first
 * field, "name=" sets the label): starts from the image tier, applies the
 * fields, checks ranges, build-time fields and cross-field constraints.
 * Returns 0, or -1 with st filled (out is then unspecified). */
int ebc_tier_from_args(const ebc_build *b, int argc, char **argv, ebc_tier *out, ebc_status *st);
/* Cross-field constraints of a complete tier. */
int ebc_tier_check(const ebc_build *b, const ebc_tier *t, ebc_status *st);
void ebc_tier_to_wifi_cfg(const ebc_tier *t, ebc_wifi_cfg *cfg);

/* ---- tokenizer ---- */

/* Splits line in place into argv: blanks separate tokens; double quotes group
 * (anywhere in a token, so ssid="my ap" is one token), \" and \\ escape inside
 * quotes. Returns argc, or -1 with *err set (unterminated quote, too many). */
int ebc_tokenize(char *line, char **argv, int max_args, const char **err);

/* ---- line formatting ---- */

typedef struct ebc_line {
    char buf[EBC_LINE_MAX];
    size_t len;
} ebc_line;

void ebc_line_start(ebc_line *l, const char *head);  /* "#EB:OK", "#EB:EV wifi.scan" */
void ebc_line_kv_int(ebc_line *l, const char *key, long long v);
void ebc_line_kv_fixed(ebc_line *l, const char *key, double v, int decimals);
/* Bare token when it is one ([A-Za-z0-9._:/,+-]), else a quoted string with
 * \" and \\ escapes; control bytes become '?'. */
void ebc_line_kv_str(ebc_line *l, const char *key, const char *v);
/* Appends "\r\n" and returns the text (length in *len if not NULL). */
const char *ebc_line_finish(ebc_line *l, size_t *len);

/* ---- line parsing (host side and tests) ---- */

enum ebc_kind { EBC_KIND_NONE, EBC_KIND_OK, EBC_KIND_ERR, EBC_KIND_EV };

#define EBC_MAX_KV 24
typedef struct ebc_parsed {
    enum ebc_kind kind;
    char event[32];  /* EV only */
    int n_kv;
    char key[EBC_MAX_KV][24];
    char val[EBC_MAX_KV][160];
} ebc_parsed;

/* Finds "#EB:" anywhere in the line (a prompt or echo may precede it) and
 * parses it. Returns 0, or -1 if the line has no well-formed #EB: line. */
int ebc_parse_line(const char *line, ebc_parsed *out);
const char *ebc_parsed_get(const ebc_parsed *p, const char *key); /* NULL if absent */

/* ---- the platform ---- */

typedef struct ebc_ip_info {
    char ip[16], mask[16], gw[16];
} ebc_ip_info;

typedef struct ebc_scan_ap {
    char ssid[33];
    int rssi;
    int channel;
} ebc_scan_ap;

typedef struct ebc_heap {
    uint32_t free_internal;     /* heap_caps_get_free_size(MALLOC_CAP_INTERNAL) */
    uint32_t min_internal;      /* heap_caps_get_minimum_free_size(MALLOC_CAP_INTERNAL) */
    uint32_t largest_internal;  /* heap_caps_get_largest_free_block(MALLOC_CAP_INTERNAL) */
    uint32_t free_default;      /* esp_get_free_heap_size() (the stock `free`) */
    uint32_t min_default;       /* esp_get_minimum_free_heap_size() (the stock `heap`) */
} ebc_heap;

/* The iperf command's options that hand a number to the traffic engine,
 * one line each: X(NAME, OPTION, LO, HI, ENGINE_FIELD). cmd_iperf reads
 * OPTION's value (LO..HI) into ebc_iperf_args.NAME (0: not given, the
 * engine's default), the firmware sets the espressif/iperf engine's
 * iperf_cfg_t ENGINE_FIELD from it (fw_iperf.c), and the host's console
 * end takes the dimension row of that iperf option (run_ends.c). An option
 * the engine has is one line here. */
#define EBC_IPERF_ENGINE_OPTS(X) \
    X(len, "-l", 1, 65536, len_send_buf) /* bytes per write or datagram */

#define EBC_IPERF_ARG_FIELD(name, opt, lo, hi, field) double name;

typedef struct ebc_iperf_args {
    bool server, udp, abort;
    char host[64];       /* -c */
    uint16_t port;       /* -p, default 5001 */
    EBC_IPERF_ENGINE_OPTS(EBC_IPERF_ARG_FIELD) /* -l ..., 0 = engine default */
    double interval_s;   /* -i, default 1 */
    double time_s;       /* -t, default 10 */
    double bw_mbps;      /* -b (decimal Mbit/s), 0 = unlimited */
} ebc_iperf_args;

/* Disconnect reasons (ESP-IDF wifi_err_reason_t values) used in events. */
#define EBC_REASON_AUTH_EXPIRE 2
#define EBC_REASON_ASSOC_LEAVE 8
#define EBC_REASON_4WAY_HANDSHAKE_TIMEOUT 15
#define EBC_REASON_BEACON_TIMEOUT 200
#define EBC_REASON_NO_AP_FOUND 201
#define EBC_REASON_AUTH_FAIL 202
#define EBC_REASON_HANDSHAKE_TIMEOUT 204

/* The link now (esp_wifi_sta_get_ap_info and friends on the firmware). */
typedef struct ebc_link {
    int rssi;            /* dBm */
    int channel;
    int bw_mhz;          /* 20, 40; 0 unknown */
    char band[8];        /* "2.4GHz", "5GHz"; "" unknown */
    char phy[8];         /* "11b", "11g", "11n", "11ax", "11a", "11ac"; "" unknown */
    char ps[12];         /* "none", "min_modem", "max_modem"; "" unknown */
    char ssid[33];
    char bssid[18];      /* "aa:bb:cc:dd:ee:ff" */
    char second[8];      /* HT40 secondary channel: "above", "below", "none"; "" unknown */
} ebc_link;

/* ---- radio settings (radio_set, radio_show; docs/console-protocol.md) ---- */

enum ebc_band { EBC_BAND_UNSET = 0, EBC_BAND_2G, EBC_BAND_5G, EBC_BAND_AUTO };
enum ebc_ps { EBC_PS_UNSET = 0, EBC_PS_NONE, EBC_PS_MIN_MODEM, EBC_PS_MAX_MODEM };
enum ebc_coex { EBC_COEX_UNSET = 0, EBC_COEX_NONE, EBC_COEX_BLE_SCAN, EBC_COEX_BLE_ADV };
/* PHY protocol bits (ESP-IDF's WIFI_PROTOCOL_* by name; their values differ
 * between releases, so the glue maps them). */
#define EBC_PHY_11B 0x01u
#define EBC_PHY_11G 0x02u
#define EBC_PHY_11N 0x04u
#define EBC_PHY_11A 0x08u
#define EBC_PHY_11AC 0x10u
#define EBC_PHY_11AX 0x20u
/* esp_wifi_set_max_tx_power: units of 0.25 dBm, [8, 84] = 2 .. 20 dBm (esp_wifi.h, v5.1.2 .. v6.0). */
#define EBC_TX_POWER_MIN_Q 8
#define EBC_TX_POWER_MAX_Q 84

/* Radio settings; 0 in a field = not set (keep the board's). */
typedef struct ebc_radio {
    int band;             /* enum ebc_band */
    int bw_2g, bw_5g;     /* MHz: 20 or 40 */
    unsigned phy_2g;      /* EBC_PHY_11B|11G|11N|11AX */
    unsigned phy_5g;      /* EBC_PHY_11A|11N|11AC|11AX */
    int ps;               /* enum ebc_ps */
    int listen_interval;  /* beacon intervals, with ps=max_modem (wifi_sta_config_t.listen_interval) */
    int tx_power_q;       /* 0.25 dBm units */
    int coex;             /* enum ebc_coex */
} ebc_radio;

/* Results of ebc_ops.radio_apply. */
#define EBC_RADIO_OK 0
#define EBC_RADIO_UNSUPPORTED 1 /* this ESP-IDF or image has no call for it (msg names the call and its first version) */
#define EBC_RADIO_FAILED 2      /* the call failed (msg names it and its error) */

/* Builds the requested settings from key=value arguments over `base` (the
 * settings requested so far): ranges, the chip's facts (5 GHz, 802.11ax, BLE)
 * and combinations. Returns 0, or -1 with st filled. Pure. */
int ebc_radio_from_args(const ebc_build *b, const ebc_radio *base, int argc, char **argv, ebc_radio *out,
                        ebc_status *st);
/* Appends the settings that are set as key=value pairs (band=5 bw=20 phy=b,g,n,ax ...). */
void ebc_radio_kv(ebc_line *l, const ebc_radio *r);
/* Whether a setting that changes needs a new association (band, bandwidth, PHY, listen interval). */
bool ebc_radio_needs_reconnect(const ebc_radio *before, const ebc_radio *after);

typedef struct ebc_ops {
    void *ctx;
    /* Console output (already formatted, "\r\n" line ends). */
    void (*write)(void *ctx, const char *data, size_t len);
    /* esp_wifi_stop + esp_wifi_deinit. 0 ok. */
    int (*wifi_deinit)(void *ctx);
    /* esp_wifi_init(cfg with these fields) + set mode STA + esp_wifi_start. 0 ok. */
    int (*wifi_init)(void *ctx, const ebc_wifi_cfg *cfg);
    /* Connects and waits (bounded) for an address. 0 ok with ip filled;
     * otherwise non-zero with *reason (EBC_REASON_*). pass may be "". */
    int (*wifi_connect)(void *ctx, const char *ssid, const char *pass, ebc_ip_info *ip, int *reason);
    /* Scans (ssid NULL = all). 0 ok, *n set. */
    int (*wifi_scan)(void *ctx, const char *ssid, ebc_scan_ap *aps, int max, int *n);
    /* Starts iperf; progress comes back through the ebc_event_iperf_* calls.
     * 0 ok, else msg filled. */
    int (*iperf_start)(void *ctx, const ebc_iperf_args *a, char *msg, size_t msg_len);
    void (*iperf_abort)(void *ctx);
    bool (*iperf_running)(void *ctx);
    void (*heap)(void *ctx, ebc_heap *h);
    /* Reboots (does not return on the firmware). */
    void (*restart)(void *ctx);
    /* Optional (NULL: not reported): the link to the AP. 0 when associated
     * and l filled; non-zero otherwise. Its facts go into the `version`,
     * `tier_show`/`tier_set` replies and (rssi) the `mem` reply. */
    int (*link)(void *ctx, ebc_link *l);
    /* Optional (NULL: radio_set answers UNSUPPORTED): applies the settings
     * that are set in want (nothing set: only reads) and fills now with what
     * the board runs, every field it can read. EBC_RADIO_OK, or
     * EBC_RADIO_UNSUPPORTED / EBC_RADIO_FAILED with msg filled. Called after
     * esp_wifi_start (wifi_init) and again after every wifi_init. */
    int (*radio_apply)(void *ctx, const ebc_radio *want, ebc_radio *now, char *msg, size_t msg_len);
    /* Ethernet images (ebc_build.ethernet) only: starts the interface at boot,
     * instead of wifi_init; the address arrives later through
     * ebc_event_net_got_ip. 0 ok. */
    int (*net_start)(void *ctx);
} ebc_ops;

typedef struct ebc_core {
    const ebc_ops *ops;
    const ebc_build *build;
    ebc_tier tier;            /* the tier running now */
    bool wifi_up;
    bool connected;
    char ssid[33];
    char pass[65];            /* kept for the reconnect after tier_set; never printed */
    ebc_ip_info ip;
    bool want_secret;         /* the next line is a password (sta_connect SSID -) */
    ebc_radio radio;          /* radio settings requested so far; applied again after each wifi_init */
    bool iperf_aborting;      /* `iperf --abort` sent, the engine's iperf.done not yet come */
} ebc_core;

void ebc_core_init(ebc_core *c, const ebc_ops *ops, const ebc_build *b);
/* Boot: brings Wi-Fi up with the image tier and emits the boot event. */
int ebc_core_start(ebc_core *c);
/* One console line (without its line end). Writes the reply: optional text
 * lines, events, then exactly one status line. Empty lines produce nothing.
 * After "sta_connect SSID -" the next line is taken as the password. */
void ebc_feed_line(ebc_core *c, const char *line);
/* True while the core waits for a password line: the platform must not echo it. */
bool ebc_wants_secret(const ebc_core *c);

/* Asynchronous events reported by the platform. */
void ebc_event_wifi_disconnected(ebc_core *c, int reason);
/* Ethernet images: the interface got its address (DHCP), or lost its link. */
void ebc_event_net_got_ip(ebc_core *c, const ebc_ip_info *ip);
void ebc_event_net_down(ebc_core *c);
void ebc_event_iperf_connected(ebc_core *c, const char *peer_ip, unsigned peer_port);
/* lost/total/jitter only for a UDP server (has_udp). jitter_ms < 0 = unknown. */
void ebc_event_iperf_interval(ebc_core *c, double start, double end, unsigned long long bytes,
                              bool has_udp, long lost, long total, double jitter_ms);
void ebc_event_iperf_summary(ebc_core *c, double start, double end, unsigned long long bytes,
                             bool has_udp, long lost, long total);
void ebc_event_iperf_error(ebc_core *c, const char *msg);
void ebc_event_iperf_done(ebc_core *c);

/* Writes one formatted line through ops->write. */
void ebc_emit(ebc_core *c, ebc_line *l);
/* Writes "#EB:ERR code=.. msg=..". */
void ebc_reply_err(ebc_core *c, const char *code, const char *msg);

#endif
