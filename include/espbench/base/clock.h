/* Monotonic time and deadlines. Every blocking read in espbench takes a deadline. */
#ifndef ESPBENCH_CLOCK_H
#define ESPBENCH_CLOCK_H

#include <stdint.h>

/* Milliseconds / microseconds from CLOCK_MONOTONIC. */
uint64_t eb_now_ms(void);
uint64_t eb_now_us(void);

/* A deadline is an absolute eb_now_ms() value; 0 means "no deadline" and is
 * never used for reads (callers always pass a finite one). */
typedef uint64_t eb_deadline;

eb_deadline eb_deadline_in(uint64_t ms);
/* Milliseconds left, 0 if passed. */
int eb_deadline_left_ms(eb_deadline d);
int eb_deadline_passed(eb_deadline d);

void eb_sleep_ms(unsigned ms);

/* Wall-clock time as ISO 8601 UTC, "2026-12-02T13:27:50Z". */
void eb_iso8601_utc(char out[32]);

#endif
