/* ESP-Hosted pair profiles on disk (adapters/hosted_files.c). */
#ifndef ESPBENCH_HOSTED_FILES_H
#define ESPBENCH_HOSTED_FILES_H

#include "espbench/base/error.h"
#include "espbench/formats/hosted.h"
#include "espbench/adapters/profile_dirs.h"

/* Loads DIR/hosted/NAME.yaml of each directory in order (a later file with the
 * same pair name replaces it; a directory without hosted/ adds none), checking
 * that both chips have profiles in p and every tier against the Kconfig
 * ranges. Errors: EB_ECONFIG with "FILE:LINE:COL: message". */
int eb_hosted_load(eb_hosted_set *out, const char *const *dirs, int n_dirs, const eb_profiles *p,
                   eb_error *err);

/* One file (tests). */
int eb_hosted_load_file(eb_hosted_set *out, const char *path, const eb_profiles *p, eb_error *err);

/* The standard search of eb_profiles_load_default(). */
int eb_hosted_load_default(eb_hosted_set *out, const eb_profiles *p, const char *user_dir, eb_error *err);

#endif
