/* ROM boot output and the bootable-app check (see vb_boot.h, docs/vboard.md).
 * Three ROM styles: the ESP32 "ets" ROM, the "ESP-ROM:" ROM of the later chips
 * and the ESP8266 ROM. */
#include "vb_boot.h"

#include <stdio.h>
#include <string.h>

enum rom_style { STYLE_ETS, STYLE_ESPROM, STYLE_8266 };

static enum rom_style style_of(const eb_chip *c)
{
    if (c->image_format == EB_IMAGE_ESP8266)
        return STYLE_8266;
    return strncmp(c->rom_banner, "ets ", 4) == 0 ? STYLE_ETS : STYLE_ESPROM;
}

typedef struct cause_row {
    const char *name;
    const char *ets;    /* ESP32 */
    const char *esprom; /* ESP32-S2 and later */
    int esp8266;        /* "rst cause:N" */
} cause_row;

static const cause_row causes[] = {
    [VB_RST_POWERON] = {"poweron", "0x1 (POWERON_RESET)", "0x1 (POWERON)", 1},
    [VB_RST_SW] = {"sw", "0xc (SW_CPU_RESET)", "0xc (RTC_SW_CPU_RST)", 2},
    [VB_RST_PANIC] = {"panic", "0xc (SW_CPU_RESET)", "0xc (RTC_SW_CPU_RST)", 2},
    [VB_RST_WDT] = {"wdt", "0x10 (RTCWDT_RTC_RESET)", "0x7 (TG0WDT_SYS_RST)", 4},
};

vb_reset_cause vb_reset_cause_from_name(const char *name)
{
    for (size_t i = 0; name && i < sizeof causes / sizeof causes[0]; i++)
        if (strcmp(causes[i].name, name) == 0)
            return (vb_reset_cause)i;
    return VB_RST_SW;
}

const char *vb_reset_cause_name(vb_reset_cause c) { return causes[c].name; }

static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* "ESP-ROM:esp32s3-20210327" -> "Build:Mar 27 2021" (the ROM's second line). */
static void build_line(const char *banner, eb_buf *out)
{
    const char *d = strrchr(banner, '-');
    unsigned y, m, day;
    if (!d || strlen(d + 1) != 8 || sscanf(d + 1, "%4u%2u%2u", &y, &m, &day) != 3 || m < 1 || m > 12)
        return;
    eb_buf_printf(out, "Build:%s %2u %u\r\n", months[m - 1], day, y);
}

void vb_boot_rom_banner(const eb_chip *c, vb_reset_cause cause, bool download, eb_buf *out)
{
    switch (style_of(c)) {
    case STYLE_ETS:
        eb_buf_printf(out, "%s\r\n\r\nrst:%s,boot:%s\r\n", c->rom_banner, causes[cause].ets,
                      download ? "0x3 (DOWNLOAD_BOOT(UART0/UART1/SDIO_REI_REO_V2))" : "0x13 (SPI_FAST_FLASH_BOOT)");
        break;
    case STYLE_ESPROM:
        eb_buf_printf(out, "%s\r\n", c->rom_banner);
        build_line(c->rom_banner, out);
        eb_buf_printf(out, "rst:%s,boot:%s\r\n", causes[cause].esprom,
                      download ? "0x3 (DOWNLOAD(USB/UART0))" : "0x8 (SPI_FAST_FLASH_BOOT)");
        if (cause != VB_RST_POWERON) /* these ROMs report where the CPU was before a core reset */
            eb_buf_printf(out, "Saved PC:0x%08x\r\n", cause == VB_RST_WDT ? 0x40048b82u : 0x420104a6u);
        break;
    case STYLE_8266: {
        /* rom_banner: "ets Jan  8 2013,rst cause:2, boot mode:(1,7)": keep the date part */
        const char *comma = strchr(c->rom_banner, ',');
        int n = comma ? (int)(comma - c->rom_banner) : (int)strlen(c->rom_banner);
        eb_buf_printf(out, "\r\n %.*s,rst cause:%d, boot mode:(%d,%d)\r\n\r\n", n, c->rom_banner,
                      causes[cause].esp8266, download ? 1 : 3, download ? 7 : 6);
        return; /* the ESP8266 ROM prints no "waiting for download" */
    }
    }
    if (download)
        eb_buf_printf(out, "waiting for download\r\n");
}

void vb_boot_rom_load_lines(const eb_chip *c, eb_buf *out)
{
    switch (style_of(c)) {
    case STYLE_ETS:
        eb_buf_printf(out, "configsip: 0, SPIWP:0xee\r\n"
                           "clk_drv:0x00,q_drv:0x00,d_drv:0x00,cs0_drv:0x00,hd_drv:0x00,wp_drv:0x00\r\n"
                           "mode:DIO, clock div:2\r\n"
                           "load:0x3fff0030,len:7104\r\n"
                           "load:0x40078000,len:15576\r\n"
                           "load:0x40080400,len:4\r\n"
                           "load:0x40080404,len:3876\r\n"
                           "entry 0x4008064c\r\n");
        break;
    case STYLE_ESPROM:
        eb_buf_printf(out, "SPIWP:0xee\r\n"
                           "mode:DIO, clock div:1\r\n"
                           "load:0x3fce3818,len:0x508\r\n"
                           "load:0x403c9700,len:0x4\r\n"
                           "load:0x403c9704,len:0xad0\r\n"
                           "load:0x403cc700,len:0x29e4\r\n"
                           "entry 0x403c9880\r\n");
        break;
    case STYLE_8266:
        eb_buf_printf(out, "load 0x40100000, len 7288, room 16 \r\n"
                           "tail 8\r\n"
                           "chksum 0x2a\r\n"
                           "load 0x3ffe8408, len 24, room 0 \r\n"
                           "tail 8\r\n"
                           "chksum 0x2b\r\n"
                           "csum 0x2b\r\n");
        break;
    }
}

void vb_boot_invalid_header_line(const eb_chip *c, uint32_t word, eb_buf *out)
{
    if (style_of(c) == STYLE_8266)
        eb_buf_printf(out, "ets_main.c 371 \r\n");
    else
        eb_buf_printf(out, "invalid header: 0x%08x\r\n", word);
}

int vb_boot_invalid_header_burst(const eb_chip *c) { return style_of(c) == STYLE_8266 ? 0 : 7; }
int vb_boot_invalid_header_period_ms(const eb_chip *c) { return style_of(c) == STYLE_8266 ? 0 : 40; }

bool vb_boot_find_app(const eb_chip *c, const uint8_t *flash, size_t flash_size, eb_image_info *info)
{
    memset(info, 0, sizeof *info);
    if (flash_size <= VB_APP_OFFSET)
        return false;
    bool esp8266 = c->image_format == EB_IMAGE_ESP8266;
    if (eb_image_parse(flash + VB_APP_OFFSET, flash_size - VB_APP_OFFSET, esp8266, info, NULL) != 0)
        return false;
    if (!info->checksum_ok || !info->sha256_ok)
        return false;
    return esp8266 || info->chip_id == (uint16_t)c->chip_id;
}
