#include "espbench/dialect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    double mbit_base;
} dialects[EB_DIALECT_COUNT] = {
    [EB_DIALECT_IDF_LEGACY] = {"idf-legacy", 1e6},
    [EB_DIALECT_ESP8266] = {"esp8266", 1e6},
    [EB_DIALECT_IDF_V44] = {"idf-v4.4", 1e6},
    [EB_DIALECT_IDF_V51] = {"idf-v5.1", 1048576.0},
    [EB_DIALECT_IPERF_CMD_01] = {"iperf-cmd-0.1", 1048576.0},
    [EB_DIALECT_IPERF_CMD_10] = {"iperf-cmd-1.0", 1e6},
    [EB_DIALECT_ESPBENCH] = {"espbench", 1e6},
};

const char *eb_dialect_name(int d)
{
    if (d < 0 || d >= EB_DIALECT_COUNT)
        return "unknown";
    return dialects[d].name;
}

int eb_dialect_from_name(const char *name)
{
    for (int d = 0; d < EB_DIALECT_COUNT; d++)
        if (name && strcmp(dialects[d].name, name) == 0)
            return d;
    return EB_DIALECT_UNKNOWN;
}

double eb_dialect_mbit_base(int d)
{
    if (d < 0 || d >= EB_DIALECT_COUNT)
        return 1e6;
    return dialects[d].mbit_base;
}

/* First ESP-IDF release (major*100+minor) of each stock dialect, newest first. */
static const struct {
    int from;
    int dialect;
} idf_ranges[] = {
    {601, EB_DIALECT_IPERF_CMD_10},
    {503, EB_DIALECT_IPERF_CMD_01},
    {501, EB_DIALECT_IDF_V51},
    {404, EB_DIALECT_IDF_V44},
    {0, EB_DIALECT_IDF_LEGACY},
};

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
    for (size_t i = 0; i < sizeof idf_ranges / sizeof idf_ranges[0]; i++)
        if (key >= idf_ranges[i].from)
            return idf_ranges[i].dialect;
    return EB_DIALECT_UNKNOWN;
}
