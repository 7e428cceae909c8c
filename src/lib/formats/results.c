/* Placeholder until the results module lands; replaced by its owner. */
#include "espbench/results.h"

#include <stdlib.h>
#include <string.h>

void eb_results_init(eb_results *r) { memset(r, 0, sizeof *r); }
void eb_results_free(eb_results *r) { (void)r; }
eb_entry *eb_results_add(eb_results *r, const eb_entry *e) { (void)r; (void)e; return NULL; }
eb_board_meta *eb_results_board(eb_results *r, const char *board, bool create) { (void)r; (void)board; (void)create; return NULL; }
eb_entry *eb_results_find(eb_results *r, const char *board, const char *chip, const char *tier, int test, int repeat)
{ (void)r; (void)board; (void)chip; (void)tier; (void)test; (void)repeat; return NULL; }
void eb_entry_free(eb_entry *e) { (void)e; }
int eb_results_load(eb_results *r, const char *path, eb_error *err) { (void)r; return eb_fail(err, EB_EIO, "%s: results not available in this build", path); }
int eb_results_save_json(const eb_results *r, const char *path, eb_error *err) { (void)r; return eb_fail(err, EB_EIO, "%s: results not available in this build", path); }
int eb_results_save_csv(const eb_results *r, const char *path, eb_error *err) { (void)r; return eb_fail(err, EB_EIO, "%s: results not available in this build", path); }
