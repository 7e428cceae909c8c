/* Where profile data lives on disk (adapters/profile_files.c): the search
 * path every loader of profiles/ shares — chips, ESP-Hosted pairs, pattern
 * files — and the sorted *.yaml files of one of its folders. The parsers
 * themselves are pure (formats/); these are their only file-system facts. */
#ifndef ESPBENCH_PROFILE_FILES_H
#define ESPBENCH_PROFILE_FILES_H

#include "espbench/base/error.h"

#define EB_PROFILE_DIRS_MAX 3

/* The profiles that ship with espbench: the installed ones beside the running
 * program (BINDIR/../share/espbench/profiles), else those of the configured
 * install prefix, else the source tree's; NULL when none exists. */
const char *eb_profile_shipped_dir(void);

/* The profile folders in load order (later ones override): the shipped
 * profiles (eb_profile_shipped_dir); then $ESPBENCH_PROFILES; then user_dir
 * (--profiles; NULL or "" = none). Returns how many (0..EB_PROFILE_DIRS_MAX). */
int eb_profile_search_path(const char *user_dir, const char *dirs[EB_PROFILE_DIRS_MAX]);

/* The *.yaml files (no dot files) of dir/sub (sub NULL = dir itself), as
 * malloc'd paths sorted by name, in *paths (NULL when none). Returns the
 * count: 0 when the folder does not exist; EB_EIO as -1 with err set. */
int eb_profile_yaml_files(const char *dir, const char *sub, char ***paths, eb_error *err);
void eb_profile_files_free(char **paths, int n);

#endif
