/* SHA-256 digests with OpenSSL's EVP interface. */
#include "espbench/base/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void to_hex(const unsigned char *md, unsigned n, char out[65])
{
    static const char digits[] = "0123456789abcdef";
    for (unsigned i = 0; i < n && i < 32; i++) {
        out[2 * i] = digits[md[i] >> 4];
        out[2 * i + 1] = digits[md[i] & 15];
    }
    out[64] = '\0';
}

void eb_sha256_hex(const void *data, size_t len, char out[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
    to_hex(md, n, out);
}

int eb_sha256_file(const char *path, char hex[65], eb_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "%s: cannot read: %s", path, strerror(errno));
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    uint8_t buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        EVP_DigestUpdate(ctx, buf, (size_t)n);
    }
    int e = errno;
    close(fd);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx, md, &len);
    EVP_MD_CTX_free(ctx);
    if (n < 0)
        return eb_fail(err, EB_EIO, "%s: cannot read: %s", path, strerror(e));
    to_hex(md, len, hex);
    return EB_OK;
}
