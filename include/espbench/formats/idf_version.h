/* ESP-IDF version strings as firmware prints them ("v5.3.1", "v6.0-dev",
 * "v5.1-beta1", "v5.3-128-g0a1b2c3"), ordered semantically for the reports
 * and comparisons of the IDF matrix. Pure. */
#ifndef ESPBENCH_IDF_VERSION_H
#define ESPBENCH_IDF_VERSION_H

#include "espbench/base/error.h"

/* <0, 0, >0 as a is older than, the same as, or newer than b:
 *  - the numbers after "v" compare as numbers, a missing one as 0
 *    (v4.4.2 < v5.1 < v5.1.1 < v5.3.1 < v6.0-dev);
 *  - a pre-release of a version comes before it, in ESP-IDF's order
 *    -dev < -alpha < -beta < -rc (v6.0-dev < v6.0-beta1 < v6.0-rc2 < v6.0);
 *  - git describe's "-N-gHASH" (N commits after the tag) comes after the
 *    tag, by N;
 *  - what is not a version ("master", a commit) comes after every version,
 *    by text; "" (unknown) before everything.
 * Ties are broken by the text, so the order is total. */
int eb_idf_version_cmp(const char *a, const char *b);

/* The ESP-IDF releases the espbench firmware (firmware/) is checked against
 * (docs/firmware.md, "Checking against ESP-IDF": the header-level compile and
 * the component-graph check, every RISC-V chip, both consoles): from
 * EB_IDF_FIRMWARE_MIN up to every patch release of the line
 * EB_IDF_FIRMWARE_LAST_LINE. scripts/build-firmware.sh states the same range
 * (tests/e2e/firmware_build_script.sh checks they agree). */
#define EB_IDF_FIRMWARE_MIN "v5.1.2"
#define EB_IDF_FIRMWARE_LAST_LINE "v6.0"

/* 0 when the espbench firmware supports ESP-IDF `version` ("v5.4.4", "v6.0",
 * git describe's "v5.5.1-12-gabc1234"): a release of the checked range, or a
 * commit after one on its release branch. EB_ECONFIG with one line (the
 * version, the range, what to do) for an older or newer release, a
 * pre-release (-dev/-beta/-rc: not checked) or what is not a version. */
int eb_idf_firmware_supported(const char *version, eb_error *err);

#endif
