/* Pattern files on disk (adapters/pattern_files.c). */
#ifndef ESPBENCH_PATTERN_FILES_H
#define ESPBENCH_PATTERN_FILES_H

#include "espbench/base/error.h"
#include "espbench/formats/pattern.h"

int eb_pattern_load_file(eb_pattern *p, const char *path, eb_error *err);

int eb_patterns_load_default(eb_pattern_set *s, const char *user_dir, eb_error *err);

#endif
