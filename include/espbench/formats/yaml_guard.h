/* Limits every YAML file espbench reads (profiles, lab files) is checked
 * against before it is loaded into a document: a size cap, a nesting cap and
 * no aliases. libyaml keeps an alias as a reference, but "billion laughs"
 * files (aliases of aliases) still make any walk over the tree exponential,
 * and neither file kind has a use for anchors; refusing them up front keeps
 * memory and time bounded by the file size. Pure function over bytes. */
#ifndef ESPBENCH_YAML_GUARD_H
#define ESPBENCH_YAML_GUARD_H

#include <stddef.h>

#include "espbench/base/error.h"

#define EB_YAML_MAX_BYTES (1u << 20)  /* 1 MiB: the largest shipped profile is ~6 KB */
#define EB_YAML_MAX_DEPTH 32          /* profiles nest 5 deep, lab files 4 */

/* Scans text with libyaml's event parser. Returns 0, or EB_ECONFIG with
 * "NAME:LINE:COL: message" for a file that is too big, nests too deep, or
 * uses an alias or anchor. YAML syntax errors are left to the loader (0). */
int eb_yaml_guard(const char *text, size_t len, const char *name, eb_error *err);

#endif
