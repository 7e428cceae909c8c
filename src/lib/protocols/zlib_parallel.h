/* One zlib stream made on two cores (private to the ROM client). */
#ifndef ESPBENCH_PROTOCOLS_ZLIB_PARALLEL_H
#define ESPBENCH_PROTOCOLS_ZLIB_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

/* data as one zlib stream (level 9, 32 KiB window) in *out (malloc'd, the
 * caller frees), the same bytes any zlib inflates; 0, or -1 out of memory. */
int eb_zlib_parallel(const uint8_t *data, size_t len, uint8_t **out, size_t *out_len);

#endif
