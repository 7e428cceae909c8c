/* Where a flasher stub comes from, at run time (docs/flashing.md "Flasher
 * stubs"): `--stub auto|off|FILE`. espbench ships no stub; auto looks, in
 * this order, for
 *   1. an installed esptool: targets/stub_flasher/ in the Python
 *      installations of the PC ($VIRTUAL_ENV, ESP-IDF's $IDF_PYTHON_ENV_PATH,
 *      the user's and the system's site/dist-packages), then the esptool
 *      that `python3 -c 'import esptool'` finds;
 *   2. an installed esptool-js: lib/targets/stub_flasher/ under $NODE_PATH,
 *      ./node_modules, the usual global node_modules and `npm root -g`;
 *   3. a release file of espressif/esp-flasher-stub, downloaded into the
 *      firmware cache, pinned by URL and SHA-256 (the built-in pins, or the
 *      file $ESPBENCH_STUB_PINS: lines "CHIP SHA256 URL").
 * The stub's JSON is parsed by formats/stub.h. */
#ifndef ESPBENCH_STUB_FILES_H
#define ESPBENCH_STUB_FILES_H

#include <stddef.h>

#include "espbench/base/error.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/stub.h"

/* Checks a --stub value: "auto", "off" or a readable FILE (parsed, so a bad
 * file is refused before any board is touched). EB_ECONFIG on a bad one. */
int eb_stub_mode_check(const char *mode, const eb_profiles *profiles, eb_error *err);

/* Reads and parses one stub file (origin "file"). */
int eb_stub_load_file(const char *path, const eb_profiles *profiles, eb_stub *out, eb_error *err);

/* Finds the stub for chip by mode (NULL = "auto"). Returns 0 with out
 * filled (chip checked), 1 when there is none (mode "off", or nothing found:
 * hint then says how to get one, one line), or an error: a FILE that is bad
 * or for another chip (EB_ECONFIG). A download that fails is not an error
 * (hint says why; the ROM loader still works). */
int eb_stub_find(const char *mode, const eb_chip *chip, const eb_profiles *profiles, eb_stub *out, char *hint,
                 size_t hint_cap, eb_error *err);

#endif
