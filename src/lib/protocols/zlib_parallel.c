/* One zlib stream on two cores (see zlib_parallel.h). Only the ROM client
 * uses it: its flash writes wait for the whole stream before the first block. */
#include "zlib_parallel.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* One zlib stream (level 9, as esptool's zlib.compress(image, 9)) made on
 * two cores: the halves are raw deflate, the second primed with the 32 KiB
 * before it (deflateSetDictionary) and the first ended with a sync flush,
 * between the zlib header and the Adler-32 of the whole (how pigz makes one
 * stream in parallel). Compressing a 1 MiB image takes ~0.2 s on one core,
 * all of it before the first block can go out. */
typedef struct zpart {
    const uint8_t *in, *dict;
    size_t len, dict_len;
    bool last;
    uint8_t *out;
    size_t out_len;
    int rc;
} zpart;

static void *zpart_run(void *arg)
{
    zpart *p = arg;
    z_stream z;
    memset(&z, 0, sizeof z);
    p->rc = -1;
    if (deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&z, (uLong)p->len) + 64;
    if ((p->out = malloc(cap)) && (!p->dict_len || deflateSetDictionary(&z, p->dict, (uInt)p->dict_len) == Z_OK)) {
        z.next_in = (Bytef *)p->in;
        z.avail_in = (uInt)p->len;
        z.next_out = p->out;
        z.avail_out = (uInt)cap;
        int r = deflate(&z, p->last ? Z_FINISH : Z_SYNC_FLUSH);
        if ((p->last && r == Z_STREAM_END) || (!p->last && r == Z_OK && z.avail_in == 0)) {
            p->out_len = cap - z.avail_out;
            p->rc = 0;
        }
    }
    deflateEnd(&z);
    return NULL;
}

int eb_zlib_parallel(const uint8_t *data, size_t len, uint8_t **out, size_t *out_len)
{
    enum { WINDOW = 32768 };
    size_t half = len >= 8 * WINDOW ? len / 2 : len;
    zpart parts[2] = {
        {.in = data, .len = half, .last = half == len},
        {.in = data + half, .len = len - half, .dict = data + half - WINDOW, .dict_len = WINDOW, .last = true},
    };
    int n = half == len ? 1 : 2;
    pthread_t t;
    bool threaded = n == 2 && pthread_create(&t, NULL, zpart_run, &parts[1]) == 0;
    zpart_run(&parts[0]);
    if (n == 2 && threaded)
        pthread_join(t, NULL);
    else if (n == 2)
        zpart_run(&parts[1]);
    int rc = parts[0].rc || (n == 2 && parts[1].rc) ? -1 : 0;
    size_t total = 2 + parts[0].out_len + (n == 2 ? parts[1].out_len : 0) + 4;
    uint8_t *z = rc ? NULL : malloc(total);
    if (z) {
        uLong adler = adler32(adler32(0L, Z_NULL, 0), data, (uInt)len);
        z[0] = 0x78, z[1] = 0xDA; /* deflate, 32 KiB window, level 9 */
        memcpy(z + 2, parts[0].out, parts[0].out_len);
        if (n == 2)
            memcpy(z + 2 + parts[0].out_len, parts[1].out, parts[1].out_len);
        for (int i = 0; i < 4; i++)
            z[total - 4 + i] = (uint8_t)(adler >> (24 - 8 * i));
        *out = z;
        *out_len = total;
    }
    free(parts[0].out);
    free(parts[1].out);
    return z ? 0 : -1;
}
