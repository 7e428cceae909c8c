#include "espbench/dialect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const prompts_legacy[] = {"esp32> ", "iperf> ", NULL};
static const char *const prompts_iperf[] = {"iperf> ", NULL};
static const char *const prompts_espbench[] = {"espbench> ", NULL}; /* EBC_PROMPT */

/* One row per dialect (../shared/reference/board-console-dialects.md: the
 * example's commands per ESP-IDF release, iperf-cmd 0.1/1.0 READMEs, the
 * ESP8266_RTOS_SDK example; docs/console-protocol.md for espbench). Adding a
 * stock dialect whose lines the parser already reads is one row here and a
 * name in enum eb_dialect. */
static const eb_dialect_desc rows[EB_DIALECT_COUNT] = {
    [EB_DIALECT_IDF_LEGACY] = {EB_DIALECT_IDF_LEGACY, "idf-legacy", 1e6, 0, 403, prompts_legacy, "sta", "scan",
                               "iperf -a", NULL, true, 0},
    [EB_DIALECT_ESP8266] = {EB_DIALECT_ESP8266, "esp8266", 1e6, 0, 0, prompts_iperf, "sta", "scan", "iperf -a",
                            NULL, true, 0},
    [EB_DIALECT_IDF_V44] = {EB_DIALECT_IDF_V44, "idf-v4.4", 1e6, 404, 500, prompts_iperf, "sta", "scan", "iperf -a",
                            "-b %d", true, 0},
    [EB_DIALECT_IDF_V51] = {EB_DIALECT_IDF_V51, "idf-v5.1", 1048576.0, 501, 502, prompts_iperf, "sta", "scan",
                            "iperf -a", "-b %d", true, 0},
    [EB_DIALECT_IPERF_CMD_01] = {EB_DIALECT_IPERF_CMD_01, "iperf-cmd-0.1", 1048576.0, 503, 600, prompts_iperf,
                                 "sta_connect", "sta_scan", "iperf --abort", "-b %d", true, 0},
    [EB_DIALECT_IPERF_CMD_10] = {EB_DIALECT_IPERF_CMD_10, "iperf-cmd-1.0", 1e6, 601, 99999, prompts_iperf,
                                 "sta_connect", "sta_scan", "iperf --abort", "-b %gm", false, 0},
    [EB_DIALECT_ESPBENCH] = {EB_DIALECT_ESPBENCH, "espbench", 1e6, 0, 0, prompts_espbench, "sta_connect",
                             "sta_scan", "iperf --abort", "-b %gm", false, EB_UDP_ECHO_PORT},
};

const eb_dialect_desc *eb_dialect_desc_get(int d)
{
    return d < 0 || d >= EB_DIALECT_COUNT ? NULL : &rows[d];
}

const char *eb_dialect_name(int d)
{
    if (d < 0 || d >= EB_DIALECT_COUNT)
        return "unknown";
    return rows[d].name;
}

int eb_dialect_from_name(const char *name)
{
    for (int d = 0; d < EB_DIALECT_COUNT; d++)
        if (name && strcmp(rows[d].name, name) == 0)
            return d;
    return EB_DIALECT_UNKNOWN;
}

double eb_dialect_mbit_base(int d)
{
    if (d < 0 || d >= EB_DIALECT_COUNT)
        return 1e6;
    return rows[d].mbit_base;
}

int eb_dialect_from_app(const char *project_name, const char *idf_version, const char *chip)
{
    if (project_name && strcmp(project_name, "espbench") == 0)
        return EB_DIALECT_ESPBENCH;
    if (chip && strcmp(chip, "esp8266") == 0)
        return EB_DIALECT_ESP8266;
    if (!idf_version)
        return EB_DIALECT_UNKNOWN;
    const char *v = idf_version;
    if (*v == 'v' || *v == 'V')
        v++;
    /* The version comes from a log or an image and may hold any digits:
     * clamp before major*100+minor so that nothing overflows. */
    char *end;
    long major = strtol(v, &end, 10);
    if (end == v || major < 0)
        return EB_DIALECT_UNKNOWN;
    long minor = *end == '.' ? strtol(end + 1, NULL, 10) : 0;
    if (major > 999)
        major = 999;
    if (minor < 0)
        minor = 0;
    if (minor > 99)
        minor = 99;
    int key = (int)(major * 100 + minor);
    for (int d = 0; d < EB_DIALECT_COUNT; d++)
        if (rows[d].idf_to > 0 && key >= rows[d].idf_from && key <= rows[d].idf_to)
            return d;
    return EB_DIALECT_UNKNOWN;
}
