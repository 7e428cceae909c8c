/* The chip facts' table: each key of a profile's `chip:` block, its type and
 * where it lives in eb_chip. The loader (profile_load.c) reads a profile
 * through it and `profiles show --json` (profile_render.c) writes every fact
 * from it, so a new fact is one row. Private to src/lib/formats. */
#ifndef ESPBENCH_FORMATS_PROFILE_FACTS_H
#define ESPBENCH_FORMATS_PROFILE_FACTS_H

#include <stdbool.h>
#include <stddef.h>

enum fact_type { FT_STR, FT_INT, FT_U32, FT_BOOL, FT_DOUBLE, FT_MAGIC, FT_SIZE, FT_ARCH, FT_SPI, FT_MEMMAP,
                 FT_IMGFMT };

struct fact {
    const char *key;
    enum fact_type type;
    size_t offset, size;
    bool required;
    bool hex; /* a register address: "0x%08X" in JSON */
};

extern const struct fact eb_chip_facts[];
extern const size_t eb_chip_n_facts;

#endif
