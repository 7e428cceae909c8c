/* Console dialect files on disk (adapters/dialect_files.c). */
#ifndef ESPBENCH_DIALECT_FILES_H
#define ESPBENCH_DIALECT_FILES_H

#include "espbench/base/error.h"
#include "espbench/formats/dialect.h"

/* The *.yaml files of each directory (a directory that does not exist is
 * an error), as eb_dialects_load_buffers. */
int eb_dialects_load_dirs(const char *const *dirs, int n_dirs, eb_error *err);

/* The dialects/ folders of the profile search path (profile_files.h:
 * installed or source tree, $ESPBENCH_PROFILES, user_dir); a profiles
 * directory without dialects/ adds none. */
int eb_dialects_load_default(const char *user_dir, eb_error *err);

#endif
