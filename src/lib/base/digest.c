/* Digests through libcrypto's EVP interface, the library resolved at the
 * first use (see digest.h); the symbols are typed from OpenSSL's own header. */
#include "espbench/base/digest.h"

#include <dlfcn.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CRYPTO_SONAME "libcrypto.so.3"

static struct crypto_api {
    __typeof__(EVP_md5) *md5;
    __typeof__(EVP_sha256) *sha256;
    __typeof__(EVP_MD_CTX_new) *ctx_new;
    __typeof__(EVP_MD_CTX_free) *ctx_free;
    __typeof__(EVP_DigestInit_ex) *init;
    __typeof__(EVP_DigestUpdate) *update;
    __typeof__(EVP_DigestFinal_ex) *final;
} api;
static char load_error[256];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void)
{
    void *h = dlopen(CRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
    static const struct {
        const char *name;
        size_t off;
    } syms[] = {
        {"EVP_md5", offsetof(struct crypto_api, md5)},
        {"EVP_sha256", offsetof(struct crypto_api, sha256)},
        {"EVP_MD_CTX_new", offsetof(struct crypto_api, ctx_new)},
        {"EVP_MD_CTX_free", offsetof(struct crypto_api, ctx_free)},
        {"EVP_DigestInit_ex", offsetof(struct crypto_api, init)},
        {"EVP_DigestUpdate", offsetof(struct crypto_api, update)},
        {"EVP_DigestFinal_ex", offsetof(struct crypto_api, final)},
    };
    struct crypto_api a;
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        void *f = dlsym(h, syms[i].name);
        if (!f) {
            snprintf(load_error, sizeof load_error, "no %s in it", syms[i].name);
            dlclose(h);
            return;
        }
        memcpy((char *)&a + syms[i].off, &f, sizeof f);
    }
    api = a; /* the library stays loaded for the life of the process */
}

struct eb_digest_ctx {
    EVP_MD_CTX *md;
};

int eb_digest_begin(eb_digest_ctx **out, int kind, eb_error *err)
{
    *out = NULL;
    pthread_once(&load_once, load);
    if (!api.final)
        return eb_fail(err, EB_EIO, "digests need libcrypto (%s): %s; install it (Debian: libssl3)", CRYPTO_SONAME,
                       load_error);
    eb_digest_ctx *c = malloc(sizeof *c);
    if (!c || !(c->md = api.ctx_new()))
        abort();
    if (api.init(c->md, kind == EB_DIGEST_MD5 ? api.md5() : api.sha256(), NULL) != 1)
        abort(); /* only on allocation failure inside libcrypto */
    *out = c;
    return EB_OK;
}

void eb_digest_update(eb_digest_ctx *c, const void *data, size_t len)
{
    if (len)
        api.update(c->md, data, len);
}

void eb_digest_end(eb_digest_ctx *c, uint8_t *out)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    api.final(c->md, md, &n);
    memcpy(out, md, n);
    api.ctx_free(c->md);
    free(c);
}

int eb_digest(int kind, const void *data, size_t len, uint8_t *out, eb_error *err)
{
    eb_digest_ctx *c;
    int rc = eb_digest_begin(&c, kind, err);
    if (rc)
        return rc;
    eb_digest_update(c, data, len);
    eb_digest_end(c, out);
    return EB_OK;
}

void eb_hex(const uint8_t *data, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 15];
    }
    out[2 * n] = '\0';
}
