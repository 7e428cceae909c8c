/* Firmware built with a given ESP-IDF checkout (docs/idf-builds.md): the
 * checkout's own export.sh environment and idf.py, into a cache keyed by
 * (ESP-IDF commit, chip, sdkconfig text, firmware source tree), so the same
 * build is done once. A build goes to a temporary folder renamed into place on
 * success: a killed build never leaves a cache hit. The log stays beside the
 * build (also when it fails). */
#ifndef ESPBENCH_IDF_BUILD_H
#define ESPBENCH_IDF_BUILD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/error.h"

/* One ESP-IDF checkout, as found on disk. */
typedef struct eb_idf_checkout {
    char path[1024];    /* absolute path of the checkout (its IDF_PATH) */
    char version[64];   /* "v5.3.1" from components/esp_common/include/esp_idf_version.h */
    char describe[96];  /* `git describe --tags --always` ("" when not a git checkout) */
    char commit[41];    /* `git rev-parse HEAD`, 40 hex ("" when not a git checkout) */
} eb_idf_checkout;

/* Reads the checkout at path: its version header (required; EB_ECONFIG with
 * the header's path when missing or unreadable) and git's describe and HEAD. */
int eb_idf_probe(const char *path, eb_idf_checkout *out, eb_error *err);

/* Pure: "vMAJOR.MINOR.PATCH" from the text of esp_idf_version.h; hpath names
 * the file in messages. EB_ECONFIG when a number is missing. */
int eb_idf_version_parse(const char *text, size_t len, const char *hpath, char *out, size_t cap,
                         eb_error *err);

enum eb_idf_firmware {
    EB_IDF_FW_ESPBENCH = 0,  /* the espbench firmware (firmware/ of the source tree) */
    EB_IDF_FW_IPERF_EXAMPLE, /* the checkout's examples/wifi/iperf with a tier's sdkconfig */
};

/* Progress: one status line ("building esp32s3 with v5.3 ..."); the callback may be NULL. */
typedef void (*eb_idf_progress_fn)(void *user, const char *line);

typedef struct eb_idf_build_req {
    const eb_idf_checkout *idf;
    const char *chip;           /* "esp32s3" */
    enum eb_idf_firmware firmware;
    const char *sdkconfig;      /* extra sdkconfig text appended to the defaults (a tier's); NULL = none */
    const char *firmware_dir;   /* the firmware source tree; NULL = the source tree's firmware/ */
    const char *cache_dir;      /* NULL = eb_cache_dir()/idf-builds */
    int timeout_s;              /* whole build; 0 = 1800 */
    volatile sig_atomic_t *stop; /* set (SIGINT): the build's process group is killed, EB_EINTR; may be NULL */
    eb_idf_progress_fn progress;
    void *user;
} eb_idf_build_req;

typedef struct eb_idf_build_result {
    char dir[1024];        /* the build folder: flasher_args.json for eb_image_set_from_build_dir() */
    char log[1100];        /* the build's log (kept on failure too) */
    char key[65];          /* the cache key, hex SHA-256 */
    bool cached;           /* nothing built: the cache had it */
    double seconds;        /* build time (0 when cached) */
    char idf_version[64];  /* copied from the checkout, for provenance */
    char idf_commit[41];
} eb_idf_build_result;

/* Pure: the cache key, hex SHA-256 over the IDF commit, chip, firmware kind,
 * the sdkconfig text's SHA-256 and the firmware tree's hash. */
void eb_idf_cache_key(const char *idf_commit, const char *chip, enum eb_idf_firmware fw,
                      const char *sdkconfig, const char *firmware_hash, char out[65]);

/* Hex SHA-256 over the files of a firmware source tree that a build reads
 * (paths and contents, sorted; build-* folders, sdkconfig and dot files left out). */
int eb_idf_tree_hash(const char *dir, char out[65], eb_error *err);

/* Builds (or finds in the cache) the firmware. On failure, one line: which
 * IDF (version and path), which chip, the log's path; res->log is set. */
int eb_idf_build_firmware(const eb_idf_build_req *req, eb_idf_build_result *res, eb_error *err);

#endif
