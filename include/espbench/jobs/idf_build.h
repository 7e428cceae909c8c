/* Firmware built with a given ESP-IDF checkout (docs/idf-builds.md): the
 * checkout's own export.sh, sourced in an environment without what another
 * export left (eb_idf_export_vars), checked to be this checkout's, then its
 * idf.py on a copy of the firmware project, into a cache keyed by the tree's
 * real state (HEAD, uncommitted changes, every submodule's commit), the
 * compiler after export, the chip, the sdkconfig and the firmware sources.
 * A build runs in the folder it stays in (CMake keeps absolute paths) and is
 * a cache hit only once its "done" mark is written: a killed build never is.
 * The log stays beside the build (also when it fails). */
#ifndef ESPBENCH_IDF_BUILD_H
#define ESPBENCH_IDF_BUILD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/error.h"
#include "espbench/formats/idf_version.h"

/* One ESP-IDF checkout, as found on disk. */
typedef struct eb_idf_checkout {
    char path[1024];    /* absolute path of the checkout (its IDF_PATH) */
    char version[64];   /* "v5.3.1" from components/esp_common/include/esp_idf_version.h */
    char describe[96];  /* `git describe --tags --always` ("" when not a git checkout) */
    char commit[41];    /* `git rev-parse HEAD`, 40 hex ("" when not a git checkout) */
    char state[65];     /* SHA-256 of the uncommitted changes and every submodule's commit ("" without git) */
    bool dirty;         /* uncommitted changes to tracked files */
    int stale_submodules; /* submodules not at the commit HEAD records ('+') or not initialised ('-') */
    char stale_first[160]; /* the first of them, for the warning */
} eb_idf_checkout;

/* The variables an ESP-IDF export sets (export.sh and tools/activate.py:
 * IDF_PATH, IDF_PYTHON_ENV_PATH, ESP_IDF_VERSION, IDF_TOOLS_EXPORT_CMD ...;
 * tools/tools.json's export_vars: OPENOCD_SCRIPTS, ESP_ROM_ELF_DIR ...) and
 * IDF_TARGET; NULL-terminated. Every build starts without them. */
extern const char *const eb_idf_export_vars[];

/* Pure: PATH without what an earlier export put there: entries inside
 * idf_path or py_env (the leaked IDF_PATH, IDF_PYTHON_ENV_PATH) or under
 * tools_path's tools/ and python_env/ (IDF_TOOLS_PATH); NULL args match
 * nothing. The result is cut at cap. */
void eb_idf_clean_path(const char *path, const char *idf_path, const char *py_env, const char *tools_path,
                       char *out, size_t cap);

/* What export.sh left, read from the probe's output (pure): the compiler's
 * first --version line, or why the environment is not this checkout's. */
typedef struct eb_idf_env {
    bool ok;
    char toolchain[160];   /* "xtensa-esp-elf-gcc (crosstool-NG esp-13.2.0_20240530) 13.2.0" */
    char problem[256];     /* espbench's check that failed */
    char export_error[320]; /* export's own last "ERROR: ..." line ("" when it printed none) */
} eb_idf_env;
void eb_idf_env_parse(const char *text, size_t len, eb_idf_env *out);

/* Sources the checkout's export.sh in a clean environment and checks that
 * IDF_PATH and the idf.py on PATH are the checkout's and that chip's compiler
 * is there. An environment problem is EB_ECONFIG, one line naming the
 * checkout, export's own error line and what to run (its install.sh). */
int eb_idf_env_probe(const eb_idf_checkout *idf, const char *chip, eb_idf_env *env, eb_error *err);

/* A bash script: `unset` of eb_idf_export_vars, then body; -1 when cut. */
int eb_idf_env_script(char *out, size_t cap, const char *body);
/* This process's PATH, cleaned (eb_idf_clean_path) of its IDF_PATH,
 * IDF_PYTHON_ENV_PATH and IDF_TOOLS_PATH (default ~/.espressif). */
void eb_idf_env_path(char *out, size_t cap);

/* 0 when the firmware supports version (a checkout's header version,
 * "v5.3.1"; eb_idf_firmware_supported(), formats/idf_version.h: from
 * EB_IDF_FIRMWARE_MIN, firmware/main/fw_main.c stops at #error below it, to
 * the last line checked), else EB_ECONFIG with one line starting with who
 * ("--idf PATH", "--good v5.1"). */
int eb_idf_version_check(const char *version, const char *who, eb_error *err);

/* Reads the checkout at path: its version header (required; EB_ECONFIG with
 * the header's path when missing or unreadable) and git's describe and HEAD. */
int eb_idf_probe(const char *path, eb_idf_checkout *out, eb_error *err);

/* Pure: "vMAJOR.MINOR.PATCH" from the text of esp_idf_version.h; hpath names
 * the file in messages. EB_ECONFIG when a number is missing. */
int eb_idf_version_parse(const char *text, size_t len, const char *hpath, char *out, size_t cap,
                         eb_error *err);

/* The version header of rev in the git repository repo ("v5.2.0"), without
 * checking it out. EB_ECONFIG when rev has none. */
int eb_idf_version_at(const char *repo, const char *rev, char *out, size_t cap, eb_error *err);

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
    const char *component_cache; /* IDF_COMPONENT_CACHE_PATH when the user set none; NULL = CACHE/components */
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
    char toolchain[160];   /* the compiler after export */
    bool env_error;        /* the failure is the environment's (export, network), not the commit's */
} eb_idf_build_result;

/* What a build's cache key is made of. */
typedef struct eb_idf_key_parts {
    const char *idf_commit;    /* HEAD, or "path:PATH VERSION" without git */
    const char *idf_state;     /* SHA-256 of the uncommitted changes and submodule commits */
    const char *toolchain;     /* the compiler's --version line after export */
    const char *chip;
    enum eb_idf_firmware fw;
    const char *sdkconfig;     /* extra sdkconfig text (NULL = "") */
    const char *firmware_hash; /* eb_idf_tree_hash() of the firmware sources */
} eb_idf_key_parts;

/* Pure: the cache key, hex SHA-256 over the parts (the sdkconfig as its SHA-256). */
void eb_idf_cache_key(const eb_idf_key_parts *p, char out[65]);

/* Hex SHA-256 over the files of a firmware source tree that a build reads
 * (paths and contents, sorted; build-* folders, sdkconfig and dot files left out). */
int eb_idf_tree_hash(const char *dir, char out[65], eb_error *err);

/* Builds (or finds in the cache) the firmware. On failure, one line: which
 * IDF (version and path), which chip, the log's path; res->log is set;
 * res->env_error when the environment failed (EB_ECONFIG), not the code. */
int eb_idf_build_firmware(const eb_idf_build_req *req, eb_idf_build_result *res, eb_error *err);

/* One build in a manifest: chip, tier (NULL: the chip's images), version, folder. */
typedef struct eb_idf_manifest_item {
    const char *chip, *tier, *idf_version, *build_dir;
} eb_idf_manifest_item;

/* Writes a firmware manifest (docs/firmware-manifest.md, schema 1) at path
 * with firmware NAME's builds: chips.CHIP.images, or chips.CHIP.tiers.TIER.images
 * for tier builds; each image a file:// URL into the build folder with its
 * SHA-256. The one ESP-IDF version of a chip is the first item's. */
int eb_idf_manifest_write(const char *path, const char *firmware, const eb_idf_manifest_item *items, int n,
                          eb_error *err);

#endif
