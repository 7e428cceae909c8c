/* Between the espbench core's modules (not for the platforms). */
#ifndef ESPBENCH_CORE_INTERNAL_H
#define ESPBENCH_CORE_INTERNAL_H

#include <stddef.h>

#include "espbench_core.h"

/* espbench_radio.c: the radio commands. */
void ebc_cmd_radio_set(ebc_core *c, int argc, char **argv);
void ebc_cmd_radio_show(ebc_core *c, int argc, char **argv);
void ebc_cmd_link(ebc_core *c, int argc, char **argv);
/* Applies the radio settings requested so far again (after a wifi_init):
 * EBC_RADIO_OK, or the platform's result with msg filled. */
int ebc_core_radio_reapply(ebc_core *c, char *msg, size_t msg_len);

/* espbench_core.c: fills st (code, printf-style message) and returns -1, for
 * a check's `return ebc_fail(st, ...)`. */
int ebc_fail(ebc_status *st, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* espbench_core.c: connects again with the stored credentials, emitting the
 * events; 0, or -1 after replying "<what> applied but reconnect failed". */
int ebc_core_reconnect(ebc_core *c, const char *what);

/* The one-line answer of an Ethernet image to a Wi-Fi field or command. */
#define EBC_NOT_APPLICABLE "not applicable: this image's network is Ethernet, not Wi-Fi"

#endif
