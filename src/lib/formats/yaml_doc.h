/* One way every YAML loader of the library (profiles, dialects, ESP-Hosted
 * pairs, pattern files, lab files, model constants) turns bytes into a
 * libyaml document: the limits of yaml_guard.h first, then the load, and one
 * error shape for a file libyaml refuses. Private to src/lib/formats. */
#ifndef ESPBENCH_FORMATS_YAML_DOC_H
#define ESPBENCH_FORMATS_YAML_DOC_H

#include <stddef.h>
#include <yaml.h>

#include "espbench/base/error.h"

/* Checks text against the limits, then loads its first document into doc.
 * Returns 0 (the caller then owns doc: yaml_document_delete), EB_EIO when
 * libyaml cannot start ("NAME: cannot initialise the YAML parser"), or
 * EB_ECONFIG with "NAME:LINE:COL: YAML syntax error: PROBLEM[ CONTEXT]
 * [(line N)]" — the line where the context began when it is not the
 * problem's — or "NAME:1:1: YAML error: PROBLEM at byte N" for bytes that
 * are not UTF-8. On an error doc is left empty and needs no delete. */
int eb_yaml_load(yaml_document_t *doc, const char *text, size_t len, const char *name, eb_error *err);

#endif
