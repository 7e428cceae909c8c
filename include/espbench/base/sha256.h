/* SHA-256 (OpenSSL libcrypto, digest.h) as lowercase hex: firmware images, the fetch
 * cache, results' fw_sha256. */
#ifndef ESPBENCH_SHA256_H
#define ESPBENCH_SHA256_H

#include <stddef.h>

#include "espbench/base/error.h"

/* "" and EB_EIO when libcrypto cannot be loaded (digest.h). */
int eb_sha256_hex(const void *data, size_t len, char out[65], eb_error *err);
/* Of a file's contents, read in chunks. "PATH: cannot read: REASON" (EB_EIO). */
int eb_sha256_file(const char *path, char hex[65], eb_error *err);

#endif
