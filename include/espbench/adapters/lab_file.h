/* Lab files on disk and the Wi-Fi password's sources (adapters/lab_file.c). */
#ifndef ESPBENCH_LAB_FILE_H
#define ESPBENCH_LAB_FILE_H

#include "espbench/base/error.h"
#include "espbench/formats/lab.h"

/* Loads and checks a lab file and reads the password from its source
 * (adapters/lab_file.c). Errors: EB_ECONFIG "FILE:LINE:COL: message". */
int eb_lab_load(eb_lab *lab, const char *path, eb_error *err);

/* Reads the password the parsed file names (environment variable or file);
 * 0 when it names none. Errors point at the password_env/password_file value. */
int eb_lab_read_password(eb_lab *lab, eb_error *err);

/* Reads a password from an environment variable; 0 if set (may be empty
 * for an open AP only when allow_empty), EB_ECONFIG naming the variable. */
int eb_password_from_env(const char *var, char *out, size_t cap, eb_error *err);

/* Reads the first line of a file as the password. */
int eb_password_from_file(const char *path, char *out, size_t cap, eb_error *err);

#endif
