/* SHA-256 as lowercase hex (digest.c computes it). */
#include "espbench/base/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "espbench/base/digest.h"

int eb_sha256_hex(const void *data, size_t len, char out[65], eb_error *err)
{
    uint8_t md[EB_SHA256_LEN];
    out[0] = '\0';
    int rc = eb_digest(EB_DIGEST_SHA256, data, len, md, err);
    if (!rc)
        eb_hex(md, sizeof md, out);
    return rc;
}

int eb_sha256_file(const char *path, char hex[65], eb_error *err)
{
    hex[0] = '\0';
    eb_digest_ctx *ctx;
    int rc = eb_digest_begin(&ctx, EB_DIGEST_SHA256, err);
    if (rc)
        return rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        uint8_t md[EB_SHA256_LEN];
        eb_digest_end(ctx, md);
        return eb_fail(err, EB_EIO, "%s: cannot read: %s", path, strerror(e));
    }
    uint8_t buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        eb_digest_update(ctx, buf, (size_t)n);
    }
    int e = errno;
    close(fd);
    uint8_t md[EB_SHA256_LEN];
    eb_digest_end(ctx, md);
    if (n < 0)
        return eb_fail(err, EB_EIO, "%s: cannot read: %s", path, strerror(e));
    eb_hex(md, sizeof md, hex);
    return EB_OK;
}
