/* MD5 and SHA-256 with OpenSSL's libcrypto, loaded on the first digest
 * (dlopen), not at start-up: its 21 000 relocations were a third of every
 * espbench command's start, while only flashing, image checks and downloads
 * take a digest. */
#ifndef ESPBENCH_DIGEST_H
#define ESPBENCH_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "espbench/base/error.h"

enum eb_digest_kind { EB_DIGEST_MD5, EB_DIGEST_SHA256 };
#define EB_MD5_LEN 16u
#define EB_SHA256_LEN 32u

/* The digest of data into out (16 or 32 bytes). EB_EIO when libcrypto cannot
 * be loaded: "digests need libcrypto (libcrypto.so.3): REASON; install it
 * (Debian: libssl3)". */
int eb_digest(int kind, const void *data, size_t len, uint8_t *out, eb_error *err);

/* A digest over pieces: begin, update any number of times, end (which frees it). */
typedef struct eb_digest_ctx eb_digest_ctx;
int eb_digest_begin(eb_digest_ctx **ctx, int kind, eb_error *err);
void eb_digest_update(eb_digest_ctx *ctx, const void *data, size_t len);
void eb_digest_end(eb_digest_ctx *ctx, uint8_t *out);

/* Lowercase hex of n bytes into out (2n + 1 bytes). */
void eb_hex(const uint8_t *data, size_t n, char *out);

#endif
