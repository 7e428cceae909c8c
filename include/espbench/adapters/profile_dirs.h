/* Chip profiles on disk (adapters/profile_dirs.c): folders of *.yaml read and handed to the pure loader. */
#ifndef ESPBENCH_PROFILE_DIRS_H
#define ESPBENCH_PROFILE_DIRS_H

#include "espbench/base/error.h"
#include "espbench/formats/profile.h"

/* Files on disk (adapters/profile_dirs.c). Loads every *.yaml of each
 * directory in order, as eb_profiles_load_texts. Errors: EB_ECONFIG with
 * "FILE:LINE:COL: message" (libyaml marks, 1-based). */
int eb_profiles_load(eb_profiles *out, const char *const *dirs, int n_dirs, eb_error *err);

/* Loads a single file (tests, tools). */
int eb_profiles_load_file(eb_profiles *out, const char *path, eb_error *err);

/* The standard search: installed or source profiles/, then $ESPBENCH_PROFILES,
 * then user_dir (--profiles, may be NULL). Their dialects/ folders are loaded
 * into the console dialect table too (eb_dialects_load_default, dialect.h). */
int eb_profiles_load_default(eb_profiles *out, const char *user_dir, eb_error *err);

#endif
