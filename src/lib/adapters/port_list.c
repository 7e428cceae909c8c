/* Local serial ports for `espbench ports`, with USB details and the kind of
 * USB-UART the VID:PID says it is. */
#include <libserialport.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port_internal.h"

/* VID:PID -> kind. pid 0 matches any product of the vendor. */
static const struct {
    uint16_t vid, pid;
    const char *kind;
} usb_kinds[] = {
    {0x303A, 0x1001, "Espressif USB-Serial/JTAG"},
    {0x10C4, 0xEA60, "CP210x"},
    {0x10C4, 0xEA70, "CP210x"},
    {0x10C4, 0xEA71, "CP210x"},
    {0x1A86, 0x7523, "CH340"},
    {0x1A86, 0x7522, "CH340"},
    {0x1A86, 0x5523, "CH340"},
    {0x1A86, 0x55D4, "CH340"}, /* CH9102, same family and driver */
    {0x0403, 0x6001, "FTDI"},
    {0x0403, 0x6010, "FTDI"},
    {0x0403, 0x6011, "FTDI"},
    {0x0403, 0x6014, "FTDI"},
    {0x0403, 0x6015, "FTDI"},
};

const char *eb_port_usb_kind(uint16_t vid, uint16_t pid)
{
    for (size_t i = 0; i < sizeof usb_kinds / sizeof usb_kinds[0]; i++)
        if (usb_kinds[i].vid == vid && (usb_kinds[i].pid == pid || usb_kinds[i].pid == 0))
            return usb_kinds[i].kind;
    return NULL;
}

static void copy(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

int eb_port_list(eb_port_info **out, int *count, eb_error *err)
{
    *out = NULL;
    *count = 0;
    struct sp_port **ports = NULL;
    if (sp_list_ports(&ports) != SP_OK) {
        char *m = sp_last_error_message();
        eb_fail(err, EB_EIO, "cannot list serial ports: %s", m ? m : "unknown error");
        sp_free_error_message(m);
        return EB_EIO;
    }
    int n = 0;
    while (ports[n])
        n++;
    eb_port_info *info = calloc((size_t)n + 1, sizeof *info);
    if (!info) {
        sp_free_port_list(ports);
        return eb_fail(err, EB_EIO, "out of memory listing ports");
    }
    for (int i = 0; i < n; i++) {
        struct sp_port *sp = ports[i];
        eb_port_info *pi = &info[i];
        copy(pi->path, sizeof pi->path, sp_get_port_name(sp));
        copy(pi->description, sizeof pi->description, sp_get_port_description(sp));
        if (sp_get_port_transport(sp) == SP_TRANSPORT_USB) {
            int vid = 0, pid = 0;
            if (sp_get_port_usb_vid_pid(sp, &vid, &pid) == SP_OK) {
                pi->vid = (uint16_t)vid;
                pi->pid = (uint16_t)pid;
            }
            copy(pi->serial, sizeof pi->serial, sp_get_port_usb_serial(sp));
            pi->kind = eb_port_usb_kind(pi->vid, pi->pid);
        }
    }
    sp_free_port_list(ports);
    /* Stable order for scripts and tests. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(info[j - 1].path, info[j].path) > 0; j--) {
            eb_port_info t = info[j];
            info[j] = info[j - 1];
            info[j - 1] = t;
        }
    *out = info;
    *count = n;
    return EB_OK;
}
