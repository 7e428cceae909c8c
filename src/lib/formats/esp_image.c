/* ESP application image: parse and build (see include/espbench/esp_image.h).
 * Layout: 8-byte header, 16-byte extended header (ESP32 and later), segments
 * (u32 load address, u32 length, data), zero padding up to 16n-1, one checksum
 * byte (0xEF XOR all segment data) and, when flagged, a SHA-256 of everything
 * before it. The app descriptor (esp_app_desc_t, 256 bytes) opens the first
 * segment. */
#include "espbench/formats/esp_image.h"
#include "espbench/formats/profile.h"
#include "espbench/base/digest.h"

#include <stdio.h>
#include <string.h>

#define HDR_LEN 8u
#define EXT_HDR_LEN 16u
#define SEG_HDR_LEN 8u
#define MAX_SEGMENTS 16u
#define SHA256_LEN 32u
#define APP_DESC_LEN 256u
#define EB_ROM_CHECKSUM_SEED_IMAGE 0xEFu /* same seed as the loader's data checksum */

/* esp_app_desc_t field offsets */
#define DESC_VERSION 16u
#define DESC_PROJECT 48u
#define DESC_TIME 80u
#define DESC_DATE 96u
#define DESC_IDF 112u


static void copy_field(char *dst, size_t dst_size, const uint8_t *src, size_t src_len)
{
    size_t n = 0;
    while (n < src_len && n + 1 < dst_size && src[n])
        n++;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

uint32_t eb_image_flash_size_bytes(uint8_t flash_size_freq)
{
    unsigned nib = flash_size_freq >> 4;
    return nib <= 7 ? (1024u * 1024u) << nib : 0;
}

int eb_image_parse(const uint8_t *data, size_t len, bool esp8266, eb_image_info *out, eb_error *err)
{
    memset(out, 0, sizeof *out);
    if (len < 1)
        return eb_fail(err, EB_ECONFIG, "truncated: empty image (expected an 8-byte header)");
    if (data[0] != EB_IMAGE_MAGIC)
        return eb_fail(err, EB_ECONFIG, "not an ESP image: first byte 0x%02x (expected 0xE9)", data[0]);
    size_t hdr = esp8266 ? HDR_LEN : HDR_LEN + EXT_HDR_LEN;
    if (len < hdr)
        return eb_fail(err, EB_ECONFIG, "truncated: %zu bytes, the image header needs %zu", len, hdr);
    out->segments = data[1];
    out->spi_mode = data[2];
    out->flash_size_freq = data[3];
    out->entry = eb_rd32le(data + 4);
    out->has_ext_header = !esp8266;
    if (!esp8266) {
        out->chip_id = eb_rd16le(data + 12);
        out->hash_appended = data[23] == 1;
    }
    if (out->segments == 0 || out->segments > MAX_SEGMENTS)
        return eb_fail(err, EB_ECONFIG, "bad image header: %u segments (expected 1..%u)", out->segments,
                       MAX_SEGMENTS);

    uint8_t sum = EB_ROM_CHECKSUM_SEED_IMAGE;
    size_t off = hdr;
    for (unsigned i = 0; i < out->segments; i++) {
        if (len - off < SEG_HDR_LEN)
            return eb_fail(err, EB_ECONFIG, "truncated: segment %u header at offset 0x%zx is past the end (%zu bytes)",
                           i, off, len);
        uint32_t seg_len = eb_rd32le(data + off + 4);
        off += SEG_HDR_LEN;
        if (seg_len > len - off)
            return eb_fail(err, EB_ECONFIG,
                           "truncated: segment %u at offset 0x%zx has length %u but only %zu bytes follow", i,
                           off - SEG_HDR_LEN, seg_len, len - off);
        const uint8_t *seg = data + off;
        if (i == 0 && !esp8266 && seg_len >= APP_DESC_LEN && eb_rd32le(seg) == EB_APP_DESC_MAGIC) {
            out->has_app_desc = true;
            copy_field(out->version, sizeof out->version, seg + DESC_VERSION, 32);
            copy_field(out->project_name, sizeof out->project_name, seg + DESC_PROJECT, 32);
            copy_field(out->time, sizeof out->time, seg + DESC_TIME, 16);
            copy_field(out->date, sizeof out->date, seg + DESC_DATE, 16);
            copy_field(out->idf_ver, sizeof out->idf_ver, seg + DESC_IDF, 32);
            if (eb_rd32le(seg + EB_APP_DESC_TEST_EFF_OFFSET) == EB_APP_DESC_TEST_EFF_MAGIC)
                out->test_efficiency = eb_rd32le(seg + EB_APP_DESC_TEST_EFF_OFFSET + 4) / 1e6;
            if (eb_rd32le(seg + EB_APP_DESC_TEST_TIER_OFFSET) == EB_APP_DESC_TEST_TIER_MAGIC)
                copy_field(out->test_build_tier, sizeof out->test_build_tier, seg + EB_APP_DESC_TEST_TIER_OFFSET + 4,
                           sizeof out->test_build_tier - 1);
        }
        for (uint32_t k = 0; k < seg_len; k++)
            sum ^= seg[k];
        off += seg_len;
    }
    /* Zero padding so that the checksum byte sits at offset 16n-1. */
    size_t cks_at = off | 15u;
    if (cks_at >= len)
        return eb_fail(err, EB_ECONFIG, "truncated: checksum byte at offset 0x%zx is past the end (%zu bytes)",
                       cks_at, len);
    out->checksum_ok = data[cks_at] == sum;
    out->image_len = cks_at + 1;
    out->sha256_ok = true;
    if (out->hash_appended) {
        if (len - out->image_len < SHA256_LEN)
            return eb_fail(err, EB_ECONFIG, "truncated: appended SHA-256 at offset 0x%zx is past the end (%zu bytes)",
                           out->image_len, len);
        uint8_t digest[SHA256_LEN];
        int rc = eb_digest(EB_DIGEST_SHA256, data, out->image_len, digest, err);
        if (rc)
            return rc;
        out->sha256_ok = memcmp(digest, data + out->image_len, SHA256_LEN) == 0;
        out->image_len += SHA256_LEN;
    }
    return 0;
}

/* ---- building ---------------------------------------------------------- */

typedef struct rng {
    uint64_t s;
} rng;

static uint32_t rng_next(rng *r)
{
    /* xorshift64*: deterministic content for a given seed */
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (uint32_t)((r->s * 0x2545F4914F6CDD1DULL) >> 32);
}

static uint32_t rng_below(rng *r, uint32_t n) { return n ? rng_next(r) % n : 0; }

/* Words and formats that read like the strings of a real firmware's rodata. */
static const char *const words[] = {
    "wifi", "esp_netif", "lwip", "tcpip", "iperf", "socket", "connect", "failed", "init", "buffer",
    "event", "handler", "timeout", "station", "scan", "ssid", "rssi", "channel", "heap", "task",
    "queue", "semaphore", "nvs", "partition", "flash", "config", "invalid", "argument", "error", "state",
    "start", "stop", "bandwidth", "interval", "memory", "alloc", "free", "size", "mode", "phy",
};
static const char *const fmts[] = {
    "%s: %s %s (0x%x)\n", "E (%d) %s: %s %s\n", "W (%lu) %s: %s=%d\n", "I (%u) %s: %s %s %d\n",
    "%s_%s_%s", "assert failed: %s %s:%d (%s)\n", "%s.%s", "%s %s %s: %s\n",
};

static void gen_strings(rng *r, uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        char s[160];
        const char *f = fmts[rng_below(r, sizeof fmts / sizeof fmts[0])];
        int k = snprintf(s, sizeof s, "%s%s%s", f, words[rng_below(r, sizeof words / sizeof words[0])],
                         words[rng_below(r, sizeof words / sizeof words[0])]);
        size_t m = (size_t)k + 1; /* with its NUL, as in rodata */
        if (m > n - i)
            m = n - i;
        memcpy(p + i, s, m);
        i += m;
        while (i < n && (i & 3)) /* 4-byte alignment padding */
            p[i++] = 0;
    }
}

/* Instruction-like words: a small opcode vocabulary with register fields and
 * short immediates, runs of common prologue/epilogue sequences and literal pools. */
static void gen_code(rng *r, uint8_t *p, size_t n)
{
    static const uint32_t ops[] = {0x00000413, 0x00112623, 0x00c12083, 0x01010113, 0xff010113, 0x00008067,
                                   0x00050513, 0x000005b7, 0x00000097, 0x000080e7, 0x00f70733, 0x00a12423};
    size_t i = 0;
    while (i + 4 <= n) {
        uint32_t roll = rng_below(r, 100);
        uint32_t w;
        if (roll < 52)
            w = ops[rng_below(r, sizeof ops / sizeof ops[0])] | (rng_below(r, 8) << 7) | (rng_below(r, 8) << 15);
        else if (roll < 80)
            w = ops[rng_below(r, sizeof ops / sizeof ops[0])] | (rng_below(r, 4096) << 20);
        else if (roll < 87)
            w = 0x3f400000u | (rng_below(r, 0x10000) << 2); /* literal pool: addresses */
        else
            w = rng_next(r);
        eb_wr32le(p + i, w);
        i += 4;
    }
    while (i < n)
        p[i++] = 0;
}

static void gen_random(rng *r, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rng_next(r);
}

static void put_str(uint8_t *dst, size_t cap, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s ? s : "", n);
}

typedef struct seg_plan {
    uint32_t load;
    unsigned share;           /* percent of the payload */
    uint32_t cap;             /* at most this many bytes (it must fit its RAM); 0 = no cap */
    void (*fill)(rng *, uint8_t *, size_t);
} seg_plan;

static void gen_rodata(rng *r, uint8_t *p, size_t n)
{
    /* rodata: strings with a table of constants every so often */
    size_t i = 0;
    while (i < n) {
        size_t chunk = 1024 + rng_below(r, 3072);
        if (chunk > n - i)
            chunk = n - i;
        if (rng_below(r, 100) < 22)
            gen_random(r, p + i, chunk);
        else
            gen_strings(r, p + i, chunk);
        i += chunk;
    }
}

int eb_image_build(const eb_image_spec *spec, eb_buf *out, eb_error *err)
{
    bool esp8266 = spec->chip_id < 0;
    size_t total = spec->size ? spec->size : 256u * 1024u;
    if (total < 4096)
        return eb_fail(err, EB_ECONFIG, "image size %zu is too small (at least 4096 bytes)", total);
    if (total > 64u * 1024u * 1024u)
        return eb_fail(err, EB_ECONFIG, "image size %zu is too large (at most 64 MiB)", total);
    if (spec->test_efficiency < 0 || spec->test_efficiency > 4)
        return eb_fail(err, EB_ECONFIG, "test efficiency %g is outside 0..4", spec->test_efficiency);

    static const eb_memory_map esp32_map = {.drom = 0x3F400000u, .irom = 0x400D0000u, .dram = 0x3FFB0000u,
                                            .iram = 0x40080000u};
    const eb_memory_map *mm = spec->mem ? spec->mem : &esp32_map;
    /* One SRAM for code and data (ESP32-C5/C6/C61): data above the code. */
    uint32_t dram = mm->dram == mm->iram ? mm->dram + 0x40000u : mm->dram;
    const seg_plan plan32[] = {
        {mm->drom + 0x20u, 28, 0, gen_rodata},  /* DROM: app descriptor, strings, constants */
        {dram, 4, 0x10000u, gen_random},        /* DRAM initialised data */
        {mm->iram, 12, 0x18000u, gen_code},     /* IRAM */
        {mm->irom, 56, 0, gen_code},            /* IROM: most of the code (address set below) */
    };
    const seg_plan plan8266[] = {
        {mm->iram, 10, 0x7000u, gen_code},      /* 32 KiB of IRAM */
        {mm->dram, 25, 0x14000u, gen_rodata},
        {mm->irom, 65, 0, gen_code},            /* flash-mapped: address set below */
    };
    const seg_plan *plan = esp8266 ? plan8266 : plan32;
    uint32_t drom_end = 0;
    unsigned nseg = esp8266 ? 3 : 4;

    size_t hdr = esp8266 ? HDR_LEN : HDR_LEN + EXT_HDR_LEN;
    size_t overhead = hdr + nseg * SEG_HDR_LEN + 16 + (esp8266 ? 0 : SHA256_LEN);
    size_t payload = total > overhead + 1024 ? total - overhead : 1024;

    rng r = {spec->seed ? (uint64_t)spec->seed * 0x9E3779B97F4A7C15ULL : 0x853C49E6748FEA9BULL};
    size_t start = out->len;
    eb_buf_reserve(out, total + 64);
    uint8_t h[HDR_LEN + EXT_HDR_LEN] = {0};
    h[0] = EB_IMAGE_MAGIC;
    h[1] = (uint8_t)nseg;
    h[2] = 2; /* DIO */
    h[3] = spec->flash_size_freq;
    eb_wr32le(h + 4, mm->iram + (esp8266 ? 0x4u : 0x404u)); /* entry: in the IRAM segment */
    if (!esp8266) {
        h[8] = 0xEE;                           /* WP pin disabled */
        eb_wr16le(h + 12, (uint16_t)spec->chip_id);
        eb_wr16le(h + 17, 0xFFFF);             /* max_rev_full: any */
        h[23] = 1;                             /* SHA-256 appended */
    }
    eb_buf_append(out, h, hdr);

    uint8_t sum = EB_ROM_CHECKSUM_SEED_IMAGE;
    size_t used = 0;
    for (unsigned i = 0; i < nseg; i++) {
        size_t len = i + 1 == nseg ? payload - used : payload * plan[i].share / 100;
        if (plan[i].cap && len > plan[i].cap)
            len = plan[i].cap;
        len &= ~(size_t)3; /* segments are word-aligned */
        used += len;
        uint32_t load = plan[i].load;
        if (!esp8266 && i == 0)
            drom_end = load + (uint32_t)len;
        if (esp8266 && i == 2) /* the flash maps at irom + offset; the app sits at 0x10000 */
            load = mm->irom + 0x10000u + (uint32_t)(out->len - start + SEG_HDR_LEN);
        if (!esp8266 && i == 3) {
            /* IROM: the 64 KiB page of its window (after DROM's pages when both
             * share one window, as on the ESP32-C5), offset as in the flash. */
            uint32_t page = mm->irom;
            if (mm->drom == mm->irom)
                page = (drom_end + 0xFFFFu) & ~0xFFFFu;
            load = page + (uint32_t)((out->len - start + SEG_HDR_LEN) & 0xFFFFu);
        }
        uint8_t sh[SEG_HDR_LEN];
        eb_wr32le(sh, load);
        eb_wr32le(sh + 4, (uint32_t)len);
        eb_buf_append(out, sh, sizeof sh);
        eb_buf_reserve(out, len);
        uint8_t *seg = out->data + out->len;
        plan[i].fill(&r, seg, len);
        if (i == 0 && !esp8266) {
            memset(seg, 0, APP_DESC_LEN);
            eb_wr32le(seg, EB_APP_DESC_MAGIC);
            put_str(seg + DESC_VERSION, 32, spec->version ? spec->version : "1");
            put_str(seg + DESC_PROJECT, 32, spec->project_name);
            put_str(seg + DESC_TIME, 16, "12:00:00");
            put_str(seg + DESC_DATE, 16, "Jan  1 2026");
            put_str(seg + DESC_IDF, 32, spec->idf_ver);
            gen_random(&r, seg + 144, 32); /* app_elf_sha256 */
            if (spec->test_efficiency > 0) {
                eb_wr32le(seg + EB_APP_DESC_TEST_EFF_OFFSET, EB_APP_DESC_TEST_EFF_MAGIC);
                eb_wr32le(seg + EB_APP_DESC_TEST_EFF_OFFSET + 4, (uint32_t)(spec->test_efficiency * 1e6 + 0.5));
            }
            if (spec->test_build_tier && spec->test_build_tier[0]) {
                eb_wr32le(seg + EB_APP_DESC_TEST_TIER_OFFSET, EB_APP_DESC_TEST_TIER_MAGIC);
                put_str(seg + EB_APP_DESC_TEST_TIER_OFFSET + 4, 32, spec->test_build_tier);
            }
        }
        for (size_t k = 0; k < len; k++)
            sum ^= seg[k];
        out->len += len;
    }
    while (((out->len - start) & 15u) != 15u)
        eb_buf_append_byte(out, 0);
    eb_buf_append_byte(out, sum);
    if (!esp8266) {
        uint8_t digest[SHA256_LEN];
        int rc = eb_digest(EB_DIGEST_SHA256, out->data + start, out->len - start, digest, err);
        if (rc)
            return rc;
        eb_buf_append(out, digest, sizeof digest);
    }
    return 0;
}
