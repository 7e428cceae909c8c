/* Espressif's flasher stub as its JSON files describe it (esptool's
 * targets/stub_flasher/, esptool-js's lib/targets/stub_flasher/, the release
 * files of esp-flasher-stub): entry point, text and data segments (base64)
 * with their load addresses, and the newer fields (bss_start, plugins). Pure:
 * bytes in, a stub or one line of error out. The files on disk and where
 * they are searched for: adapters/stub_files.h. */
#ifndef ESPBENCH_STUB_H
#define ESPBENCH_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "espbench/base/error.h"
#include "espbench/formats/profile.h"

typedef struct eb_stub {
    uint32_t entry;
    uint32_t text_start, data_start, bss_start;
    uint8_t *text, *data;   /* owned */
    size_t text_len, data_len;
    bool has_data, has_bss;
    int n_plugins;          /* esp-flasher-stub plugins (not uploaded: espbench needs none) */
    char chip[24];          /* the chip the file name names ("esp32c3"), "" when it names none */
    char chip_display[32];  /* its display name ("ESP32-C3") */
    char path[1024];        /* where it was read from */
    char origin[96];        /* "esptool-js 0.7.0", "esptool 4.8.1", "esp-flasher-stub 1.2.0", "file" */
} eb_stub;

/* Parses a stub JSON text. `name` is its path (messages, and the chip its
 * base name names: esp32c3.json, esp32p4-rev1.json, stub_flasher_32c3.json,
 * stub_flasher_8266.json). EB_ECONFIG with "NAME:LINE:COL: ..." or
 * "NAME: ..." on a bad file. */
int eb_stub_parse(const char *name, const uint8_t *json, size_t len, const eb_profiles *profiles, eb_stub *out,
                  eb_error *err);
void eb_stub_free(eb_stub *s);

/* The chip a stub file's base name names, matched against the profiles
 * (esptool 4's stub_flasher_32c3.json is esp32c3); NULL when none. */
const eb_chip *eb_stub_chip_from_name(const char *path, const eb_profiles *profiles);

/* A stub is for this chip: the chip its file name names, or, for a file whose
 * name names none, its text in the chip's instruction RAM (profile
 * memory_map). EB_ECONFIG with one line otherwise. */
int eb_stub_check_chip(const eb_stub *s, const eb_chip *chip, eb_error *err);

#endif
