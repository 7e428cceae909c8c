/* Names as people type them: the spellings reports print ("ESP32-C3",
 * "TCP TX", "Iperf") folded to one key, and the nearest known name for a
 * typo ("did you mean"). Pure functions over strings. */
#ifndef ESPBENCH_NAMES_H
#define ESPBENCH_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* Optimal string alignment distance (Levenshtein plus the swap of two
 * adjacent characters, each one edit); byte-wise. Names longer than 63
 * bytes count as far from everything (a large number). */
int eb_edit_distance(const char *a, const char *b);

/* The folded key of a name: ASCII lower case, with '-', '_', ' ' and '.'
 * dropped ("ESP32-C3" and "esp32c3" -> "esp32c3", "TCP TX" -> "tcptx").
 * Cut to cap - 1 bytes. */
void eb_name_fold(const char *in, char *out, size_t cap);

/* Whether two names are the same once folded. */
bool eb_name_same(const char *a, const char *b);

/* The name of names[0..n) nearest to typed on the folded keys, when it is
 * at most one edit away (two for a name of 8 or more characters) and no
 * other name is as near; NULL otherwise (also for an exact match: nothing
 * to suggest). */
const char *eb_name_nearest(const char *typed, const char *const *names, int n);

#endif
