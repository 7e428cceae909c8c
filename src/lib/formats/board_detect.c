/* A board console log's dialect from its lines (boot log, prompts, mode=
 * line layout, interval styles), and the unit base's evidence checked
 * against the dialect chosen. */
#include "espbench/formats/board_parse.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/board_internal.h"
#include "formats/line_scan.h"

/* ------------------------------------------------------------ detection */

void eb_board_detect_init(eb_board_detect *d) { memset(d, 0, sizeof *d); }

static void set_str(char *dst, size_t cap, const char *src)
{
    ls_copy(dst, cap, src, src + strlen(src));
}

void eb_board_detect_line(eb_board_detect *d, const char *line, size_t len)
{
    eb_ebline scratch;
    eb_board_line l;
    eb_board_parse_line(EB_DIALECT_UNKNOWN, line, len, &l, &scratch);
    eb_board_detect_parsed(d, line, len, &l);
}

bool eb_board_dialects_read_alike(int a, int b)
{
    /* parse_interval's kbase_bits is the only use of the dialect in this file */
    return (eb_dialect_mbit_base(a) == 1048576.0) == (eb_dialect_mbit_base(b) == 1048576.0);
}

void eb_board_detect_parsed(eb_board_detect *d, const char *line, size_t len, const eb_board_line *l)
{
    d->lines++;
    /* memchr first: these byte strings are rare and memmem costs more than the parse */
    bool has_nul = memchr(line, 0, len) != NULL;
    if (has_nul && memmem(line, len, "\0bits/sec", 9)) {
        d->nul_unit = true;
        d->nul_line = d->nul_line ? d->nul_line : d->lines;
    }
    switch (l->event) {
    case EB_BEV_PROMPT:
        if (memmem(line, len, "espbench>", 9))
            d->prompt_espbench = true;
        else if (memmem(line, len, "esp32>", 6))
            d->prompt_esp32 = true;
        break;
    case EB_BEV_APP_PROJECT:
        set_str(d->project, sizeof d->project, l->text);
        break;
    case EB_BEV_APP_IDF:
        set_str(d->idf, sizeof d->idf, l->text);
        d->idf_line = d->lines;
        break;
    case EB_BEV_BOOTLOADER:
        if (!d->idf[0]) {
            set_str(d->idf, sizeof d->idf, l->text);
            d->idf_line = d->lines;
        }
        break;
    case EB_BEV_BOOT:
        if (l->eb) {
            d->espbench = true;
            const char *v = eb_ebline_get(l->eb, "idf");
            if (v) {
                set_str(d->idf, sizeof d->idf, v);
                d->idf_line = d->lines;
            }
        }
        if (l->text[0])
            set_str(d->chip, sizeof d->chip, l->text);
        if (strcmp(l->text, "esp8266") == 0)
            d->esp8266 = true;
        break;
    case EB_BEV_INTERVAL:
        if (l->style == EB_IVS_ID_BYTES)
            d->iperf_cmd_10 = true;
        else if (l->style == EB_IVS_DECIMAL)
            d->iperf_cmd_01 = true;
        else if (l->style == EB_IVS_INT)
            d->int_intervals = true;
        break;
    case EB_BEV_MODE:
        if (l->mode_localhost)
            d->iperf_cmd_01 = true;
        if (l->mode_spaced) {
            d->mode_spaced = true;
            d->mode_spaced_line = d->mode_spaced_line ? d->mode_spaced_line : d->lines;
        } else if (!l->eb) {
            d->mode_plain = true;
            if (!l->mode_localhost && !d->mode_plain_line)
                d->mode_plain_line = d->lines;
        }
        break;
    case EB_BEV_SOCKET_CREATED:
        d->socket_created = true;
        break;
    default:
        break;
    }
    if (l->eb || l->event == EB_BEV_EB_OK || l->event == EB_BEV_EB_ERR || l->event == EB_BEV_EB_EVENT)
        d->espbench = true;
    if (l->event == EB_BEV_SCAN && l->mac[0])
        d->wifi_cmd = true;
    if (l->event != EB_BEV_INTERVAL && memchr(line, '_', len) && memmem(line, len, "IP_EVENT_STA_GOT_IP", 19))
        d->wifi_cmd = true;
    if (l->event != EB_BEV_INTERVAL && memchr(line, '.', len) && memmem(line, len, "DONE.", 5))
        d->wifi_cmd = true;
    if (memchr(line, '(', len) && memmem(line, len, " iperf(id=", 10))
        d->iperf_cmd_tag = true;
}

int eb_board_detect_result(const eb_board_detect *d, char *why, size_t why_cap)
{
    if (d->espbench || d->prompt_espbench) {
        snprintf(why, why_cap, d->espbench ? "#EB: lines of the espbench firmware" : "the espbench> prompt");
        return EB_DIALECT_ESPBENCH;
    }
    /* ESP-IDF has no v3.4 release: "ESP-IDF v3.4" is the ESP8266_RTOS_SDK's bootloader/app */
    bool sdk8266 = strncmp(d->idf, "v3.4", 4) == 0 || strncmp(d->idf, "3.4", 3) == 0;
    if (d->project[0] || d->idf[0] || d->esp8266) {
        int r = eb_dialect_from_app(d->project, d->idf[0] ? d->idf : NULL,
                                    d->esp8266 || sdk8266 ? "esp8266" : d->chip);
        if (r != EB_DIALECT_UNKNOWN) {
            snprintf(why, why_cap, "boot log: project '%s', ESP-IDF '%s'", d->project, d->idf);
            return r;
        }
    }
    if (d->iperf_cmd_10 || d->iperf_cmd_tag) {
        snprintf(why, why_cap, "iperf-cmd 1.0 report lines ('[  1]  0.0- 1.0 sec ... Bytes')");
        return EB_DIALECT_IPERF_CMD_10;
    }
    if (d->iperf_cmd_01 || d->wifi_cmd) {
        snprintf(why, why_cap, "iperf-cmd 0.1 lines (' 0.0- 1.0 sec', wifi-cmd output)");
        return EB_DIALECT_IPERF_CMD_01;
    }
    if (d->int_intervals || d->mode_plain || d->mode_spaced) {
        if (d->mode_spaced || d->nul_unit) {
            snprintf(why, why_cap, "ESP-IDF v5.1-v5.2 mode line (runs of spaces) or NUL unit char");
            return EB_DIALECT_IDF_V51;
        }
        if (d->mode_plain) {
            snprintf(why, why_cap, "ESP-IDF <= v5.0 mode line%s",
                     d->socket_created ? " and 'Socket created'" : "");
            return d->socket_created ? EB_DIALECT_IDF_V44 : EB_DIALECT_IDF_LEGACY;
        }
        if (d->prompt_esp32) {
            snprintf(why, why_cap, "the esp32> prompt of the ESP-IDF <= v5.0 iperf example");
            return EB_DIALECT_IDF_LEGACY;
        }
        snprintf(why, why_cap,
                 "integer 'N- M sec' interval lines are printed both by ESP-IDF <= v5.0 (Mbit = 1e6 bits) and "
                 "v5.1-v5.2 (Mbit = 2^20 bits), and the log has no boot log or mode= line to tell them apart; "
                 "pass --dialect");
        return EB_DIALECT_UNKNOWN;
    }
    if (d->prompt_esp32) {
        snprintf(why, why_cap, "the esp32> prompt of the ESP-IDF <= v5.0 iperf example");
        return EB_DIALECT_IDF_LEGACY;
    }
    snprintf(why, why_cap, "no boot log, #EB: lines, mode= line or interval lines to tell the dialect from; "
                           "pass --dialect");
    return EB_DIALECT_UNKNOWN;
}

/* The unit base's evidence against the base a dialect gives
 * (board_parse.h). What each layout means, from the iperf sources
 * (../shared/reference/board-console-dialects.md sections 1.3 and 1.5):
 * ESP-IDF <= v5.0 prints "%.2f Mbits/sec" of bytes*8/interval/1e6 (the
 * report task of examples/wifi/iperf/components/iperf/iperf.c, v4.x) and a
 * mode= line with single spaces; v5.1-v5.2 divides by 1048576 (fcafd8dc27a)
 * and its mode= line, a backslash-continued literal, has runs of spaces;
 * v5.1-v5.2 and iperf-cmd 0.1 may print a NUL where the unit's prefix goes.
 * A boot log's version is the strongest evidence; whitespace the weakest (a
 * pasted log loses its runs of blanks). */
static const char *base_name(bool mib) { return mib ? "2^20" : "1e6"; }

bool eb_board_detect_unit_check(const eb_board_detect *d, int dialect, const char *name, char *note,
                                size_t note_cap, char *warn, size_t warn_cap)
{
    bool mib = eb_dialect_mbit_base(dialect) == 1048576.0;
    const char *bn = base_name(mib);
    warn[0] = '\0';
    bool boot = !d->espbench && !d->prompt_espbench && (d->project[0] || d->idf[0] || d->esp8266) &&
                d->idf_line > 0;
    bool other_grammar = d->espbench || d->prompt_espbench || d->iperf_cmd_10 || d->iperf_cmd_tag ||
                         d->iperf_cmd_01 || d->wifi_cmd;
    if (boot) {
        snprintf(note, note_cap, "%s bits per Mbit, from %s:%ld (boot log: ESP-IDF %s)", bn, name, d->idf_line, d->idf);
        /* the layout's base: a NUL unit char or runs of spaces say 2^20, single spaces 1e6 */
        long against = 0;
        const char *what = "";
        if (!mib && (d->nul_line || d->mode_spaced_line)) {
            against = d->nul_line ? d->nul_line : d->mode_spaced_line;
            what = d->nul_line ? "a NUL byte where the unit's prefix goes (v5.1-v5.2: 2^20 bits)"
                               : "the v5.1-v5.2 mode= layout (runs of spaces: 2^20 bits)";
        } else if (mib && d->mode_plain_line && !d->nul_line && !d->mode_spaced_line) {
            against = d->mode_plain_line;
            what = "the <= v5.0 mode= layout (single spaces: 1e6 bits, or a v5.1 line whose blanks were collapsed)";
        }
        if (!against)
            return false;
        size_t k = strlen(note);
        snprintf(note + k, note_cap - k, "; against it %s:%ld (%s)", name, against, what);
        snprintf(warn, warn_cap,
                 "%s:%ld: ESP-IDF %s prints Mbits of %s bits, but %s:%ld has %s; took %s bits per Mbit from the boot "
                 "log (rates %.1f %% %s than with %s); pass --unit-base 1e6 or --unit-base 2^20 (or --dialect) to "
                 "settle it",
                 name, d->idf_line, d->idf, bn, name, against, what, bn, 4.8576, mib ? "higher" : "lower",
                 base_name(!mib));
        return true;
    }
    if (d->esp8266) { /* the ESP8266 ROM banner: its SDK's iperf prints 1e6 */
        note[0] = '\0';
        return false;
    }
    if (other_grammar || d->nul_line || (!d->mode_spaced_line && !d->mode_plain_line)) {
        note[0] = '\0';
        return false;
    }
    /* only the mode= line's spacing (and perhaps the esp32> prompt of <= v5.0) */
    long at = mib ? d->mode_spaced_line : d->mode_plain_line;
    snprintf(note, note_cap, "%s bits per Mbit, from %s:%ld (mode= line with %s)", bn, name, at,
             mib ? "runs of spaces" : "single spaces");
    if (!mib && d->prompt_esp32)
        return false; /* the prompt of the <= v5.0 example agrees */
    snprintf(warn, warn_cap,
             "%s:%ld: the unit base rests on the mode= line's spacing alone: %s (the %s layout) reads as %s bits "
             "per Mbit, but %s; pass --unit-base 1e6 or --unit-base 2^20 (or --dialect) to settle it",
             name, at, mib ? "runs of spaces" : "single spaces", mib ? "v5.1-v5.2" : "<= v5.0", bn,
             mib ? "no boot log or NUL unit char confirms it"
                 : "a v5.1-v5.2 log (2^20 bits, rates 4.9 % higher) whose blanks were collapsed looks the same");
    return true;
}

