/* Results files on disk (adapters/results_file.c). */
#ifndef ESPBENCH_RESULTS_FILE_H
#define ESPBENCH_RESULTS_FILE_H

#include "espbench/base/error.h"
#include "espbench/formats/results.h"

/* JSON: load validates the schema name and version, and every field's type.
 * path: a results.json, or the folder `run` wrote (its results.json). */
int eb_results_load(eb_results *r, const char *path, eb_error *err);

/* Writes atomically (temp file, fsync, rename), so a killed run leaves a valid file. */
int eb_results_save_json(const eb_results *r, const char *path, eb_error *err);
/* The same for a file derived from inputs that stay (`parse` of its logs,
 * `merge` of its results files): replaced atomically, never half written, but
 * not forced to disk; after a crash the old file may be there, and the same
 * command makes the new one again. (Syncing a 30 MB parse result was a sixth
 * of the command, bench/ parsing.) */
int eb_results_save_json_derived(const eb_results *r, const char *path, eb_error *err);

int eb_results_save_csv(const eb_results *r, const char *path, eb_error *err);

#endif
