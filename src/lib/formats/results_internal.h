/* Inside the results store: what the store (results.c) and its JSON
 * writer and reader (results_json_out.c, results_json_in.c) share. */
#ifndef ESPBENCH_RESULTS_INTERNAL_H
#define ESPBENCH_RESULTS_INTERNAL_H

#include "espbench/formats/results.h"

#define RESULTS_SCHEMA_NAME "espbench-results"

/* Room for one more entry (capacity doubles). */
void eb_results_reserve_entry(eb_results *r);

#endif
