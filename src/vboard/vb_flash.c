/* Flash storage for the virtual board (see vb_flash.h). */
#include "vb_flash.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int vb_flash_open(vb_flash *f, const char *path, size_t size, eb_error *err)
{
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->size = size;
    if (!path) {
        f->data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (f->data == MAP_FAILED)
            return eb_fail(err, EB_EIO, "flash: cannot allocate %zu bytes: %s", size, strerror(errno));
        memset(f->data, 0xFF, size);
        return 0;
    }
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return eb_fail(err, EB_EIO, "flash file %s: cannot open: %s (check the directory exists and is writable)",
                       path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return eb_fail(err, EB_EIO, "flash file %s: cannot stat: %s", path, strerror(errno));
    }
    size_t old = (size_t)st.st_size;
    if (old > size) {
        close(fd);
        return eb_fail(err, EB_ECONFIG,
                       "flash file %s: %zu bytes, larger than this chip's %zu-byte flash (use another file or remove it)",
                       path, old, size);
    }
    if (old < size && ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return eb_fail(err, EB_EIO, "flash file %s: cannot size to %zu bytes: %s", path, size, strerror(errno));
    }
    f->data = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (f->data == MAP_FAILED) {
        close(fd);
        return eb_fail(err, EB_EIO, "flash file %s: cannot map: %s", path, strerror(errno));
    }
    if (old < size)
        memset(f->data + old, 0xFF, size - old); /* new space is erased flash */
    f->fd = fd;
    return 0;
}

void vb_flash_close(vb_flash *f)
{
    if (f->data && f->data != MAP_FAILED) {
        if (f->fd >= 0)
            msync(f->data, f->size, MS_SYNC);
        munmap(f->data, f->size);
    }
    if (f->fd >= 0)
        close(f->fd);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

void vb_flash_erase(vb_flash *f, size_t off, size_t len)
{
    if (off >= f->size || !len)
        return;
    size_t start = off & ~(size_t)(VB_FLASH_SECTOR - 1);
    size_t end = off + len;
    if (end > f->size || end < off)
        end = f->size;
    end = (end + VB_FLASH_SECTOR - 1) & ~(size_t)(VB_FLASH_SECTOR - 1);
    if (end > f->size)
        end = f->size;
    memset(f->data + start, 0xFF, end - start);
}

size_t vb_flash_program(vb_flash *f, size_t off, const uint8_t *data, size_t len)
{
    if (off >= f->size)
        return 0;
    if (len > f->size - off)
        len = f->size - off;
    uint8_t *p = f->data + off;
    for (size_t i = 0; i < len; i++)
        p[i] &= data[i];
    return len;
}

const vb_nor_timing vb_w25q32jv = {
    .page_program_us = 400,
    .sector_erase_us = 45000,
    .block_erase_us = 150000,
    .chip_erase_us = 10000000,
    .read_bytes_per_ms = 10000,
};

uint64_t vb_flash_erase_us(const vb_nor_timing *t, size_t off, size_t len)
{
    if (!len)
        return 0;
    size_t s = off & ~(size_t)(VB_FLASH_SECTOR - 1);
    size_t end = (off + len + VB_FLASH_SECTOR - 1) & ~(size_t)(VB_FLASH_SECTOR - 1);
    uint64_t us = 0;
    while (s < end) {
        if (s % 0x10000u == 0 && end - s >= 0x10000u) {
            us += t->block_erase_us;
            s += 0x10000u;
        } else {
            us += t->sector_erase_us;
            s += VB_FLASH_SECTOR;
        }
    }
    return us;
}

uint64_t vb_flash_program_us(const vb_nor_timing *t, size_t off, size_t len)
{
    if (!len)
        return 0;
    size_t first = off / 256, last = (off + len - 1) / 256;
    return (uint64_t)(last - first + 1) * t->page_program_us;
}

uint64_t vb_flash_read_us(const vb_nor_timing *t, size_t len)
{
    return (uint64_t)len * 1000u / t->read_bytes_per_ms;
}
