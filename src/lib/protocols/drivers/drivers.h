/* Private to the console drivers: the per-dialect entries of the table and
 * helpers shared by the engines. */
#ifndef ESPBENCH_DRIVERS_PRIV_H
#define ESPBENCH_DRIVERS_PRIV_H

#include <stddef.h>

#include "espbench/protocols/console_driver.h"

extern const eb_console_driver eb_driver_espbench;
/* The stock driver of a dialect (built from its descriptor row), or NULL. */
const eb_console_driver *eb_driver_stock_get(int dialect);

/* Appends one interval (decimal Mbit/s) to a run. */
void eb_board_run_add(eb_board_run *r, double start_s, double end_s, double bytes, double mbps,
                      double jitter_ms, long lost, long total);

/* True when the interval [start, end] is the whole-test line rather than a
 * report interval: it starts at 0 and spans more than 1.5 intervals. */
int eb_board_is_summary(double start_s, double end_s, double interval_s);

/* Waits for a line containing one of the needles (NULL-terminated list) and
 * returns its index, copying the line; lines seen meanwhile go to on_line.
 * Fails with EB_EIO on a reboot (boot counter moves) or the deadline, the
 * message built from what. */
int eb_drv_expect(eb_console *c, const char *const *needles, char *line, size_t cap,
                  void (*on_line)(void *u, const char *line), void *u, const char *what,
                  eb_deadline d, eb_error *err, int *index);

#endif
