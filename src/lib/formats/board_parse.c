/* Board console line classifier for every dialect (see board_parse.h and
 * ../shared/reference/board-console-dialects.md). A line is cleaned (ANSI,
 * NUL, CR), a leading prompt and the ESP log prefix are skipped, then the
 * message is matched: interval lines first (they dominate a log), then
 * prefixes, then a table of phrases. */
#include "espbench/formats/board_parse.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/board_internal.h"
#include "formats/line_scan.h"

#define LINE_MAX_CLEAN 1024

/* Appends a run with no escape byte, dropping NUL, CR and LF. */
static void clean_copy_run(const char *s, size_t len, char *out, size_t *n, size_t cap)
{
    if (!memchr(s, 0, len) && !memchr(s, '\r', len) && !memchr(s, '\n', len)) {
        size_t k = len < cap - 1 - *n ? len : cap - 1 - *n;
        memcpy(out + *n, s, k);
        *n += k;
        return;
    }
    for (size_t i = 0; i < len && *n + 1 < cap; i++)
        if (s[i] != 0 && s[i] != '\r' && s[i] != '\n')
            out[(*n)++] = s[i];
}

size_t eb_board_clean_line(const char *line, size_t len, char *out, size_t cap)
{
    size_t n = 0;
    if (cap == 0)
        return 0;
    /* Consoles end lines with CR LF; the ends are dropped anyway. Runs between
     * escapes are copied whole: colour codes wrap most log lines. */
    while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == '\n'))
        len--;
    size_t i = 0;
    while (i < len && n + 1 < cap) {
        const char *esc = memchr(line + i, 0x1b, len - i);
        size_t stop = esc ? (size_t)(esc - line) : len;
        clean_copy_run(line + i, stop - i, out, &n, cap);
        if (stop >= len)
            break;
        /* CSI: ESC [ params final; any other ESC x: two bytes */
        if (stop + 1 < len && line[stop + 1] == '[') {
            size_t j = stop + 2;
            while (j < len && !((unsigned char)line[j] >= 0x40 && (unsigned char)line[j] <= 0x7e))
                j++;
            i = j + 1;
        } else {
            i = stop + 2;
        }
    }
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\t'))
        n--;
    out[n] = '\0';
    return n;
}

/* ------------------------------------------------------- interval line */

static int prefix_power(char c)
{
    switch (c) {
    case 'K': case 'k': return 1;
    case 'M': case 'm': return 2;
    case 'G': case 'g': return 3;
    default: return -1;
    }
}

/* "[  1]  1.0- 2.0 sec\t2.95 MBytes\t23.63 Mbits/sec", " 0.0- 2.0 sec  24.36 Mbits/sec",
 * "   0-   3 sec       8.43 Mbits/sec" (the unit char may have been a NUL: "bits/sec"). */
static bool parse_interval(double mbit_base, const char *p, const char *e, eb_board_line *out)
{
    int id = 0;
    if (p < e && *p == '[') {
        const char *q = p + 1;
        ls_skip_ws(&q, e);
        uint64_t n;
        if (!ls_u64(&q, e, &n) || q >= e || *q != ']' || n > 1000000)
            return false;
        id = (int)n;
        p = q + 1;
    }
    ls_skip_ws(&p, e);
    const char *s0 = p;
    double start, end;
    if (!ls_num(&p, e, &start))
        return false;
    bool decimal = memchr(s0, '.', (size_t)(p - s0)) != NULL;
    ls_skip_ws(&p, e);
    if (p >= e || *p != '-')
        return false;
    p++;
    ls_skip_ws(&p, e);
    if (!ls_num(&p, e, &end))
        return false;
    ls_skip_ws(&p, e);
    if (!ls_lit(&p, e, "sec"))
        return false;
    ls_skip_ws(&p, e);
    double v;
    if (!ls_num(&p, e, &v))
        return false;
    ls_skip_ws(&p, e);
    double xfer = NAN;
    int xpow = 0;
    /* optional transfer column: "2.95 MBytes" (no "/sec") */
    {
        const char *q = p;
        int k = 0;
        if (q < e && prefix_power(*q) >= 0) {
            k = prefix_power(*q);
            q++;
        }
        if (ls_lit(&q, e, "Bytes") && (q >= e || *q != '/')) {
            xfer = v;
            xpow = k;
            ls_skip_ws(&q, e);
            p = q;
            if (!ls_num(&p, e, &v))
                return false;
            ls_skip_ws(&p, e);
        }
    }
    int k = 0;
    const char *unit = p;
    if (p < e && prefix_power(*p) >= 0) {
        k = prefix_power(*p);
        p++;
    }
    bool bytes_rate;
    if (ls_lit(&p, e, "bits/sec"))
        bytes_rate = false;
    else if (ls_lit(&p, e, "Bytes/sec"))
        bytes_rate = true;
    else
        return false;
    /* The dialect's base for bit prefixes: 2^20 "Mbits" (v5.1–v6.0) or 1e6. Byte
     * prefixes are 1024-based everywhere. */
    double kbase_bits = mbit_base == 1048576.0 ? 1024.0 : 1000.0;
    double bits = bytes_rate ? v * pow(1024.0, k) * 8.0 : v * pow(kbase_bits, k);
    out->event = EB_BEV_INTERVAL;
    out->id = id;
    out->style = id > 0 || !isnan(xfer) ? EB_IVS_ID_BYTES : decimal ? EB_IVS_DECIMAL : EB_IVS_INT;
    out->iv.start_s = start;
    out->iv.end_s = end;
    out->iv.mbps = bits / 1e6;
    out->printed = v;
    ls_copy(out->unit, sizeof out->unit, unit, p);
    if (!isnan(xfer)) /* iperf-cmd 1.0: 'm' prints MBytes of 1e6, 'M' of 2^20 */
        out->iv.bytes = xfer * pow(bytes_rate ? 1024.0 : 1000.0, xpow);
    else
        out->iv.bytes = bits / 8.0 * (end - start);
    return true;
}

/* --------------------------------------------------------------- phrases */

/* "sta ip: A, mask: M, gw: G" */
static bool parse_got_ip(const char *m, eb_board_line *out)
{
    const char *s = strstr(m, "sta ip: ");
    if (s) {
        s += 8;
        const char *c = strchr(s, ',');
        if (!c)
            return false;
        ls_copy(out->ip, sizeof out->ip, s, c);
        const char *mk = strstr(c, "mask: ");
        const char *gw = strstr(c, "gw: ");
        if (mk) {
            mk += 6;
            const char *c2 = strchr(mk, ',');
            ls_copy(out->mask, sizeof out->mask, mk, c2 ? c2 : mk + strlen(mk));
        }
        if (gw) {
            gw += 4;
            ls_copy(out->gw, sizeof out->gw, gw, gw + strcspn(gw, " ,"));
        }
        return true;
    }
    /* wifi-cmd: 'IP_EVENT_STA_GOT_IP: Interface "sta" address: A' and '- IPv4 address: A,' */
    const char *a = strstr(m, "IP_EVENT_STA_GOT_IP");
    const char *key = a ? "address: " : "- IPv4 address: ";
    if (!a && strncmp(m, key, strlen(key)) != 0)
        return false;
    s = strstr(a ? a : m, "address: ");
    if (!s)
        return a != NULL;
    s += 9;
    ls_copy(out->ip, sizeof out->ip, s, s + strcspn(s, " ,"));
    return true;
}

/* "[ssid][rssi=-34]" anywhere; "+SCAN:[MAC][ssid][rssi=-34][authmode=3][ch=11]..." */
static bool parse_scan(const char *m, eb_board_line *out)
{
    const char *r = strstr(m, "][rssi=");
    if (!r)
        return false;
    const char *open = r;
    while (open > m && *open != '[')
        open--;
    if (*open != '[')
        return false;
    ls_copy(out->ssid, sizeof out->ssid, open + 1, r);
    out->rssi = atoi(r + 7);
    out->channel = 0;
    out->mac[0] = '\0';
    const char *ch = strstr(r, "[ch=");
    if (ch)
        out->channel = atoi(ch + 4);
    if (strncmp(m, "+SCAN:[", 7) == 0) {
        const char *c = strchr(m + 7, ']');
        if (c)
            ls_copy(out->mac, sizeof out->mac, m + 7, c);
    }
    return true;
}

/* "mode=tcp-server sip=192.168.10.248:5001, dip=0.0.0.0:5001, interval=3, time=1000" */
static bool parse_mode(const char *m, eb_board_line *out)
{
    const char *s = strstr(m, "mode=");
    if (!s)
        return false;
    s += 5;
    if (strncmp(s, "tcp-", 4) == 0)
        out->udp = false;
    else if (strncmp(s, "udp-", 4) == 0)
        out->udp = true;
    else
        return false;
    s += 4;
    if (strncmp(s, "server", 6) == 0)
        out->server = true;
    else if (strncmp(s, "client", 6) == 0)
        out->server = false;
    else
        return false;
    const char *iv = strstr(s, "interval=");
    const char *t = strstr(s, "time=");
    out->interval_s = iv ? atoi(iv + 9) : 0;
    out->time_s = t ? atoi(t + 5) : 0;
    out->mode_spaced = strstr(s, ",  ") != NULL;
    out->mode_localhost = strstr(s, "sip=localhost") != NULL;
    const char *dip = strstr(s, "dip=");
    if (dip) {
        dip += 4;
        const char *c = strrchr(dip, ':');
        const char *comma = strchr(dip, ',');
        if (c && (!comma || c < comma)) {
            ls_copy(out->ip, sizeof out->ip, dip, c);
            out->port = atoi(c + 1);
        }
    }
    out->event = EB_BEV_MODE;
    out->role_known = true;
    return true;
}

enum phrase_match { PM_PREFIX, PM_CONTAINS };

/* Fixed phrases, in priority order. text_after: copy the rest of the message into text. */
static const struct {
    const char *phrase;
    enum phrase_match how;
    int event;
    int error;
    bool text_after;
} phrases[] = {
    {"Project name:", PM_PREFIX, EB_BEV_APP_PROJECT, 0, true},
    {"ESP-IDF:", PM_PREFIX, EB_BEV_APP_IDF, 0, true},
    {"App version:", PM_PREFIX, EB_BEV_APP_VERSION, 0, true},
    {"Guru Meditation Error", PM_CONTAINS, EB_BEV_PANIC, 0, false},
    {"abort() was called", PM_CONTAINS, EB_BEV_PANIC, 0, false},
    {"Backtrace:", PM_PREFIX, EB_BEV_PANIC, 0, false},
    {"rst:0x", PM_PREFIX, EB_BEV_BOOT, 0, false},
    {"sta has no IP", PM_CONTAINS, EB_BEV_ERROR, EB_BERR_NO_IP, false},
    {"Socket unable to connect", PM_CONTAINS, EB_BEV_ERROR, EB_BERR_CONNECT, false},
    {"iperf is already running", PM_CONTAINS, EB_BEV_ERROR, EB_BERR_ALREADY_RUNNING, false},
    {"Unrecognized command", PM_CONTAINS, EB_BEV_ERROR, EB_BERR_UNRECOGNIZED, false},
    {"Command returned non-zero error code", PM_CONTAINS, EB_BEV_ERROR, EB_BERR_COMMAND_FAILED, false},
    {"Internal error:", PM_PREFIX, EB_BEV_ERROR, EB_BERR_COMMAND_FAILED, false},
    {"recv error, error code:", PM_CONTAINS, EB_BEV_ERROR, EB_BERR_RECV, false},
    {"tcp client send error, error code:", PM_CONTAINS, EB_BEV_ERROR, EB_BERR_SEND, false},
    {"Socket created, sending to ", PM_CONTAINS, EB_BEV_SOCKET_CREATED, 0, false},
    {"Socket created", PM_CONTAINS, EB_BEV_SOCKET_CREATED, 0, false},
    {"server create successfully", PM_CONTAINS, EB_BEV_SOCKET_CREATED, 0, false},
    {"Socket bound, port ", PM_CONTAINS, EB_BEV_SOCKET_BOUND, 0, false},
    {"accept: ", PM_PREFIX, EB_BEV_ACCEPTED, 0, false},
    {"Successfully connected", PM_CONTAINS, EB_BEV_CONNECTED, 0, false},
    {"Socket server is closed", PM_CONTAINS, EB_BEV_SOCKET_CLOSED, 0, false},
    {"socket server is closed", PM_CONTAINS, EB_BEV_SOCKET_CLOSED, 0, false},
    {"Socket client is closed", PM_CONTAINS, EB_BEV_SOCKET_CLOSED, 0, false},
    {"socket client is closed", PM_CONTAINS, EB_BEV_SOCKET_CLOSED, 0, false},
    {"iperf exit", PM_CONTAINS, EB_BEV_IPERF_DONE, 0, false},
    {"DONE.IPERF_STOP,OK", PM_CONTAINS, EB_BEV_IPERF_DONE, 0, false},
    {"min heap size: ", PM_CONTAINS, EB_BEV_HEAP_MIN, 0, false},
    {"sta scan done", PM_CONTAINS, EB_BEV_SCAN_DONE, 0, false},
    {"SCAN_DONE: ", PM_PREFIX, EB_BEV_SCAN_DONE, 0, false},
    {"WIFI_EVENT_STA_DISCONNECTED", PM_CONTAINS, EB_BEV_WIFI_DISCONNECTED, 0, false},
    {"state: run -> init", PM_PREFIX, EB_BEV_WIFI_DISCONNECTED, 0, false},
    {"WIFI_EVENT_STA_CONNECTED", PM_CONTAINS, EB_BEV_WIFI_CONNECTED, 0, false},
    {"connected with ", PM_PREFIX, EB_BEV_WIFI_CONNECTED, 0, false},
};

/* Copies the message after a "Label:" prefix, without the padding. */
static void text_after(const char *m, size_t skip, eb_board_line *out)
{
    const char *s = m + skip;
    while (*s == ' ' || *s == '\t')
        s++;
    ls_copy(out->text, sizeof out->text, s, s + strlen(s));
}

static long number_after(const char *s)
{
    while (*s && !ls_is_digit(*s))
        s++;
    return *s ? strtol(s, NULL, 10) : -1;
}

/* The typed iperf command a console echoes: "iperf -c HOST [-u] [-i N] [-t N] ...",
 * "iperf -s -u"; not "iperf --abort" (iperf_cmd.c's options, README of
 * iperf-cmd 0.1/1.0 and the ESP-IDF example). */
static bool parse_iperf_command(const char *m, eb_board_line *out)
{
    if (strncmp(m, "iperf ", 6) != 0)
        return false;
    bool client = false, server = false, udp = false;
    double interval = 0, time = 0;
    const char *p = m + 6;
    while (*p) {
        p += strspn(p, " \t");
        size_t n = strcspn(p, " \t");
        if (n == 0)
            break;
        if ((n == 2 && !strncmp(p, "-a", 2)) || (n == 7 && !strncmp(p, "--abort", 7)))
            return false;
        if (n == 2 && p[0] == '-') {
            const char *arg = p + 2 + strspn(p + 2, " \t");
            switch (p[1]) {
            case 'c': client = true; break;
            case 's': server = true; break;
            case 'u': udp = true; break;
            case 'i': interval = strtod(arg, NULL); break;
            case 't': time = strtod(arg, NULL); break;
            default: break;
            }
        } else if (n > 2 && p[0] == '-' && p[1] != '-') { /* grouped flags: -su */
            for (size_t k = 1; k < n; k++) {
                server |= p[k] == 's';
                udp |= p[k] == 'u';
            }
        }
        p += n;
    }
    if (client == server)
        return false;
    out->event = EB_BEV_IPERF_COMMAND;
    out->udp = udp;
    out->server = server;
    out->role_known = true;
    /* Typed numbers can be anything: beyond a day they mean nothing here (and
     * would not fit an int). */
    out->interval_s = interval > 0 && interval <= 86400 ? (int)interval : 0;
    out->time_s = time > 0 && time <= 86400 ? (int)time : 0;
    return true;
}

/* A reset line: the reason, "rst:0x1 (POWERON_RESET)" / "rst cause:2", up to the comma. */
static void reset_reason(const char *rst, eb_board_line *out)
{
    out->reset = true;
    ls_copy(out->reason, sizeof out->reason, rst, rst + strcspn(rst, ","));
}

/* The socket lines of Espressif's iperf that say which test runs (tcp/udp,
 * client/server), as the sources print them:
 *  - ESP-IDF v4.4-v5.2 examples/common_components/iperf/iperf.c and
 *    iperf-cmd v0.1.1-v0.1.4 iperf/iperf.c: ESP_LOGI(TAG, "Successfully
 *    connected") (iperf_run_tcp_client), "accept: %s,%d" (iperf_run_tcp_server),
 *    "Socket bound, port %d" (iperf_run_udp_server), "Socket created, sending
 *    to %d:%d" (iperf_run_udp_client), "TCP Socket server is closed.",
 *    "TCP Socket client is closed.", "Udp socket server is closed.", "UDP
 *    Socket client is closed", and iperf_show_socket_error_reason()'s
 *    ESP_LOGW(TAG, "%s error, error code: %d, reason: %s") with "tcp client
 *    send", "tcp server recv", "udp server recv", "udp client send";
 *  - ESP8266_RTOS_SDK examples/wifi/iperf/components/iperf/iperf.c and ESP-IDF
 *    <= v4.3: "accept: %s,%d" with no log prefix (tcp server), "iperf tcp server
 *    create successfully", "iperf udp server create successfully";
 *  - iperf-cmd 1.0 (ESP_LOGD): "accept: %s:%d", "UDP server socket bound, ...".
 * The bare "Socket created" of a TCP or UDP server says neither. */
static const struct {
    const char *needle;
    bool udp, server;
} role_lines[] = {
    {"Socket created, sending to ", true, false},
    {"Socket bound, port ", true, true},
    {"UDP server socket bound", true, true},
    {"accept: ", false, true},
    {"Successfully connected", false, false},
    {"tcp server create successfully", false, true},
    {"udp server create successfully", true, true},
    {"TCP Socket server is closed", false, true},
    {"TCP Socket client is closed", false, false},
    {"Udp socket server is closed", true, true},
    {"UDP socket server is closed", true, true},
    {"UDP Socket client is closed", true, false},
    {"tcp client send error", false, false},
    {"tcp server recv error", false, true},
    {"udp server recv error", true, true},
    {"udp client send error", true, false},
};

static void socket_role(const char *m, eb_board_line *out)
{
    for (size_t i = 0; i < sizeof role_lines / sizeof role_lines[0]; i++)
        if (strstr(m, role_lines[i].needle)) {
            out->udp = role_lines[i].udp;
            out->server = role_lines[i].server;
            out->role_known = true;
            return;
        }
}

/* Details for phrase events that carry values. */
static void phrase_details(const char *m, const char *hit, eb_board_line *out)
{
    switch (out->event) {
    case EB_BEV_SOCKET_BOUND:
    case EB_BEV_ACCEPTED:
    case EB_BEV_CONNECTED:
    case EB_BEV_SOCKET_CLOSED:
        socket_role(m, out);
        break;
    default:
        break;
    }
    switch (out->event) {
    case EB_BEV_BOOT: /* "rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)" */
        reset_reason(hit, out);
        break;
    case EB_BEV_SOCKET_CREATED: {
        socket_role(m, out); /* "Socket created, sending to", "... server create successfully" */
        /* iperf-cmd 1.0: "iperf(id=1): [TCP Server] Socket created" says the role */
        static const char *const roles[] = {"[TCP Client]", "[TCP Server]", "[UDP Client]", "[UDP Server]"};
        for (int i = 0; i < 4; i++)
            if (strstr(m, roles[i])) {
                out->udp = i >= 2;
                out->server = i % 2 == 1;
                out->role_known = true;
            }
        const char *to = strstr(m, "sending to ");
        if (to) { /* v4.4/5.0 print the IPv4 as a raw uint32: "sending to 1678092480:5001" */
            eb_board_split_peer(to + 11, out);
            const char *ip = out->ip;
            if (*ip && strspn(ip, "0123456789") == strlen(ip)) {
                unsigned long a = strtoul(ip, NULL, 10); /* network order read as little-endian */
                snprintf(out->ip, sizeof out->ip, "%lu.%lu.%lu.%lu", a & 255, (a >> 8) & 255, (a >> 16) & 255,
                         (a >> 24) & 255);
            }
        }
        break;
    }
    case EB_BEV_SOCKET_BOUND:
        out->port = (int)number_after(hit + strlen("Socket bound, port "));
        break;
    case EB_BEV_ACCEPTED: {
        const char *s = hit + 8, *c = strchr(s, ',');
        if (c) {
            ls_copy(out->ip, sizeof out->ip, s, c);
            out->port = atoi(c + 1);
        }
        break;
    }
    case EB_BEV_HEAP_MIN:
        out->value = number_after(hit + 15);
        break;
    case EB_BEV_SCAN_DONE:
        out->value = strstr(m, "No AP found") ? 0 : strstr(m, "Found ") ? number_after(strstr(m, "Found ")) : -1;
        break;
    case EB_BEV_WIFI_DISCONNECTED: {
        const char *r = strstr(m, "reason");
        out->value = r ? number_after(r) : -1;
        break;
    }
    case EB_BEV_WIFI_CONNECTED:
        if (strncmp(m, "connected with ", 15) == 0) {
            const char *s = m + 15;
            ls_copy(out->ssid, sizeof out->ssid, s, s + strcspn(s, ","));
        }
        break;
    case EB_BEV_ERROR:
        socket_role(m, out);
        ls_copy(out->text, sizeof out->text, m, m + strlen(m));
        if (out->error == EB_BERR_CONNECT) {
            const char *er = strstr(m, "errno");
            out->value = er ? number_after(er) : -1;
        } else if (out->error == EB_BERR_RECV || out->error == EB_BERR_SEND) {
            out->value = number_after(strstr(m, "error code:"));
        } else if (out->error == EB_BERR_COMMAND_FAILED) {
            const char *x = strstr(m, "0x");
            out->value = x ? strtol(x, NULL, 16) : -1;
        }
        break;
    case EB_BEV_PANIC:
        ls_copy(out->text, sizeof out->text, m, m + strlen(m));
        break;
    default:
        break;
    }
}

/* Boot markers with the chip: "ESP-ROM:esp32s3-20210327", "ets Jun  8 2016 00:22:57". */
static bool parse_boot_banner(const char *m, eb_board_line *out)
{
    if (strncmp(m, "ESP-ROM:", 8) == 0) {
        const char *s = m + 8;
        ls_copy(out->text, sizeof out->text, s, s + strcspn(s, "-"));
        out->event = EB_BEV_BOOT;
        return true;
    }
    if (strncmp(m, "ets ", 4) == 0) {
        if (strstr(m, "Jun  8 2016"))
            strcpy(out->text, "esp32");
        else if (strstr(m, "Jan  8 2013"))
            strcpy(out->text, "esp8266");
        else
            return false;
        const char *rst = strstr(m, "rst cause:");
        if (rst)
            reset_reason(rst, out);
        out->event = EB_BEV_BOOT;
        return true;
    }
    return false;
}

/* "ESP-IDF v5.2.1 2nd stage bootloader" */
static bool parse_bootloader(const char *m, eb_board_line *out)
{
    const char *s = strstr(m, "ESP-IDF ");
    if (!s || !strstr(s, "2nd stage bootloader"))
        return false;
    s += 8;
    ls_copy(out->text, sizeof out->text, s, s + strcspn(s, " "));
    out->event = EB_BEV_BOOTLOADER;
    return true;
}

/* Skips the ESP log prefix "I (12345) tag: " (or "I (12:34:56.789) tag: ");
 * sets the tag (pointer and length). Returns the message start. */
static const char *skip_log_prefix(const char *m, const char **tag, size_t *tag_len)
{
    *tag = NULL;
    *tag_len = 0;
    if (!strchr("EWIDV", m[0]) || m[0] == '\0' || m[1] != ' ' || m[2] != '(')
        return m;
    const char *close = strchr(m + 3, ')');
    if (!close || close[1] != ' ')
        return m;
    const char *t = close + 2;
    const char *colon = strchr(t, ':');
    if (!colon)
        return m;
    *tag = t;
    *tag_len = (size_t)(colon - t);
    const char *s = colon + 1;
    if (*s == ' ')
        s++;
    return s;
}

static const char *const prompts[] = {"esp32>", "iperf>", "espbench>"};

/* Strips leading prompts; returns the rest. */
static const char *skip_prompts(const char *m, bool *had)
{
    bool again = true;
    while (again) {
        again = false;
        for (size_t i = 0; i < sizeof prompts / sizeof prompts[0]; i++) {
            size_t n = strlen(prompts[i]);
            if (strncmp(m, prompts[i], n) == 0 && (m[n] == ' ' || m[n] == '\0')) {
                m += n;
                while (*m == ' ')
                    m++;
                *had = again = true;
            }
        }
    }
    return m;
}

/* Every field of a classified line, as "nothing seen". */
static void line_reset(eb_board_line *out)
{
    out->event = EB_BEV_NONE;
    out->after_prompt = false;
    out->id = 0;
    out->style = EB_IVS_INT;
    out->bytes_exact = false;
    out->iv.start_s = out->iv.end_s = out->iv.bytes = out->iv.mbps = 0;
    out->iv.jitter_ms = NAN;
    out->iv.lost = out->iv.total = -1;
    out->printed = NAN;
    out->unit[0] = '\0';
    out->error = EB_BERR_NONE;
    out->value = -1;
    out->port = 0;
    out->udp = out->server = out->mode_spaced = out->mode_localhost = out->role_known = false;
    out->interval_s = out->time_s = 0;
    out->rssi = out->channel = 0;
    out->ip[0] = out->mask[0] = out->gw[0] = out->ssid[0] = out->mac[0] = '\0';
    out->name[0] = out->text[0] = out->reason[0] = '\0';
    out->reset = false;
    out->eb = NULL;
}

void eb_board_parse_line(int dialect, const char *line, size_t len, eb_board_line *out, eb_ebline *scratch)
{
    eb_board_parse_line_base(dialect, 0, line, len, out, scratch);
}

void eb_board_parse_line_base(int dialect, double mbit_base, const char *line, size_t len, eb_board_line *out,
                              eb_ebline *scratch)
{
    line_reset(out);

    char buf[LINE_MAX_CLEAN];
    size_t n = eb_board_clean_line(line, len, buf, sizeof buf);
    const char *m = buf;
    while (*m == ' ' || *m == '\t')
        m++;
    if (!*m)
        return;
    bool had_prompt = false;
    m = skip_prompts(m, &had_prompt);
    out->after_prompt = had_prompt;
    if (!*m) {
        out->event = had_prompt ? EB_BEV_PROMPT : EB_BEV_NONE;
        return;
    }
    const char *end = buf + n;
    /* an #EB: line may be glued to other output (docs/console-protocol.md) */
    const char *eb = memchr(m, '#', (size_t)(buf + n - m)) ? strstr(m, "#EB:") : NULL;
    if (eb) {
        eb_board_classify_eb(eb, end, out, scratch);
        return;
    }
    const char *tag;
    size_t tag_len;
    const char *msg = skip_log_prefix(m, &tag, &tag_len);

    /* the hot path: interval lines */
    if (ls_is_digit(*msg) || *msg == '[' || *msg == ' ') {
        const char *q = msg;
        while (*q == ' ')
            q++;
        if (*q == '[' && strstr(q, "] local ") && strstr(q, " connected to ")) {
            /* iperf-cmd 1.0: "[  1] local 192.168.1.5:5001 connected to 192.168.1.2:43726" */
            const char *to = strstr(q, " connected to ") + 14;
            char peer[64];
            ls_copy(peer, sizeof peer, to, to + strcspn(to, " "));
            eb_board_split_peer(peer, out);
            out->event = EB_BEV_CONNECTED;
            return;
        }
        if (parse_interval(mbit_base > 0 ? mbit_base : eb_dialect_mbit_base(dialect), q, end, out))
            return;
        /* `free`: the current free heap as a bare integer */
        if (!tag && ls_is_digit(*q) && strspn(q, "0123456789") == strlen(q)) {
            out->event = EB_BEV_FREE_HEAP;
            out->value = strtol(q, NULL, 10);
            return;
        }
    }
    if (strstr(msg, "Interval") && strstr(msg, "Bandwidth")) {
        out->event = EB_BEV_TABLE_HEADER;
        return;
    }
    if (parse_mode(msg, out) || parse_boot_banner(msg, out) || parse_bootloader(msg, out) ||
        parse_iperf_command(msg, out))
        return;
    if (parse_got_ip(msg, out)) {
        out->event = EB_BEV_GOT_IP;
        return;
    }
    if (parse_scan(msg, out)) {
        out->event = EB_BEV_SCAN;
        return;
    }
    /* Which bytes the message holds: a phrase whose first two bytes are not
     * both there cannot match, and most lines are ruled out without strstr. */
    uint64_t held[4] = {0, 0, 0, 0};
    for (const unsigned char *c = (const unsigned char *)msg; *c; c++)
        held[*c >> 6] |= 1ull << (*c & 63);
    for (size_t i = 0; i < sizeof phrases / sizeof phrases[0]; i++) {
        const unsigned char *ph = (const unsigned char *)phrases[i].phrase;
        if (!(held[ph[0] >> 6] >> (ph[0] & 63) & 1) || !(held[ph[1] >> 6] >> (ph[1] & 63) & 1))
            continue;
        const char *hit = phrases[i].how == PM_PREFIX
                              ? (strncmp(msg, phrases[i].phrase, strlen(phrases[i].phrase)) == 0 ? msg : NULL)
                              : strstr(msg, phrases[i].phrase);
        if (!hit)
            continue;
        out->event = phrases[i].event;
        out->error = phrases[i].error;
        if (phrases[i].text_after)
            text_after(msg, strlen(phrases[i].phrase), out);
        phrase_details(msg, hit, out);
        return;
    }
    /* wifi-cmd result lines: "DONE.WIFI_CONNECT_START,OK." / "DONE.SET_AP_CONFIG,FAIL.12293,ESP_ERR_WIFI_MODE" */
    const char *done = strncmp(msg, "DONE.", 5) == 0 ? msg + 5 : NULL;
    if (done) {
        const char *comma = strchr(done, ',');
        if (comma && strncmp(comma + 1, "FAIL.", 5) == 0) {
            out->event = EB_BEV_ERROR;
            out->error = EB_BERR_DONE_FAIL;
            ls_copy(out->name, sizeof out->name, done, comma);
            out->value = strtol(comma + 6, NULL, 10);
            ls_copy(out->text, sizeof out->text, msg, msg + strlen(msg));
        }
    }
}

/* --------------------------------------------------------- stateful */

void eb_board_parser_init(eb_board_parser *p, int dialect)
{
    memset(p, 0, sizeof *p);
    p->dialect = dialect;
    eb_prov_init(&p->prov);
}

void eb_board_parser_line(eb_board_parser *p, const char *line, size_t len, eb_board_line *out)
{
    eb_board_parse_line_base(p->dialect, p->mbit_base, line, len, out, &p->scratch);
    if (p->detect)
        eb_board_detect_parsed(p->detect, line, len, out);
    if (out->event != EB_BEV_INTERVAL) {
        /* facts about firmware, chip and link (table-driven keys: provenance.c); never on interval lines */
        char clean[1024];
        eb_board_clean_line(line, len, clean, sizeof clean);
        eb_prov_from_line(clean, &p->prov, false);
    }
    if (out->event == EB_BEV_MODE) {
        p->interval_s = out->interval_s;
        p->time_s = out->time_s;
        p->have_interval = false;
        p->last_end = 0;
        return;
    }
    if (out->event != EB_BEV_INTERVAL)
        return;
    double span = out->iv.end_s - out->iv.start_s;
    bool summary = false;
    if (out->iv.start_s < 1e-6) {
        /* the whole test: -t of the mode line (iperf-cmd 1.0 may stop a second short),
         * or a line reaching as far as the previous interval */
        if (p->have_interval && out->iv.end_s >= p->last_end - 1e-6)
            summary = true;
        else if (p->time_s > 0 && p->interval_s > 0 && span > p->interval_s + 1e-6 && span <= p->time_s + 1e-6)
            summary = true;
    }
    if (summary) {
        out->event = EB_BEV_SUMMARY;
        p->have_interval = false;
        p->last_end = 0;
        return;
    }
    p->have_interval = true;
    p->last_end = out->iv.end_s;
}
