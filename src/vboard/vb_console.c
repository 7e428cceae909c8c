/* Placeholder until the console module lands; replaced by its owner. */
#include <stdlib.h>

#include "vb_board.h"

struct vb_console {
    vb_board *b;
};

vb_console *vb_console_new(vb_board *b)
{
    vb_console *c = calloc(1, sizeof *c);
    if (c)
        c->b = b;
    return c;
}
void vb_console_free(vb_console *c) { free(c); }
void vb_console_boot(vb_console *c, const eb_image_info *app, const char *reset_reason)
{
    (void)app;
    (void)reset_reason;
    vb_board_printf(c->b, "console not available in this build\r\n");
}
void vb_console_feed(vb_console *c, const uint8_t *data, size_t len)
{
    (void)c;
    (void)data;
    (void)len;
}
void vb_console_halt(vb_console *c) { (void)c; }
