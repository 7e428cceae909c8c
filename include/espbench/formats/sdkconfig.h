/* ESP-IDF build settings and tiers (pure): the build-time fields a build
 * got, read from its build/config/sdkconfig.json (what `idf.py` writes:
 * every Kconfig option without the CONFIG_ prefix, booleans as true/false,
 * numbers as numbers), and a tier's settings rendered as sdkconfig lines
 * (the Kconfig names the espbench firmware's defaults use). */
#ifndef ESPBENCH_SDKCONFIG_H
#define ESPBENCH_SDKCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/buf.h"
#include "espbench/base/error.h"
#include "espbench/formats/profile.h"

/* Sets out's build-time fields (lwIP windows and mailboxes, IRAM options)
 * from sdkconfig.json text; a field whose option the file lacks, or holds at
 * ESP-IDF's Kconfig default, is unset (the model's unset field is that
 * default). name for messages. Returns the number of options found, or -1
 * with EB_ECONFIG when the text is no JSON object. Leaves the runtime fields
 * alone. */
int eb_sdkconfig_json_build_fields(const char *text, size_t len, const char *name, eb_tier *out, eb_error *err);

/* Whether eb_sdkconfig_json_build_fields() reads field (a build-time field
 * with an option of the same name in every ESP-IDF the firmware builds with;
 * the cache geometry's options differ per chip and are not read). */
bool eb_sdkconfig_reads(int field);

/* Whether two settings of field give the same Kconfig value (64 and 65 KB
 * are both 65534 bytes; unset is Kconfig's default). */
bool eb_sdkconfig_same(int field, bool set_a, int a, bool set_b, int b);

/* The sdkconfig lines of tier t on chip c (`espbench build --tier`): the
 * Wi-Fi buffers, BA windows, lwIP windows and mailboxes, IRAM options the
 * tier sets, in ESP-IDF v5's option names, after a comment naming it. */
void eb_sdkconfig_render_tier(const eb_chip *c, const eb_tier *t, eb_buf *out);

/* The tiers of chip c that spec names ("all": every tier without PSRAM; a
 * tier name: that tier) into out (at most max); their count, or -1 with
 * EB_ECONFIG: an unknown tier (naming the chip's), or a PSRAM tier (its
 * PSRAM options are board-specific and not rendered). */
int eb_sdkconfig_tiers(const eb_chip *c, const char *spec, const eb_tier **out, int max, eb_error *err);

#endif
