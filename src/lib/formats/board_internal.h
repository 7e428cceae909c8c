/* Inside the board line classifier: what board_parse.c (lines) and
 * board_eb.c (#EB: lines) share. */
#ifndef ESPBENCH_BOARD_INTERNAL_H
#define ESPBENCH_BOARD_INTERNAL_H

#include "espbench/formats/board_parse.h"

/* "IP:PORT" into out->ip and out->port. */
void eb_board_split_peer(const char *s, eb_board_line *out);
/* An #EB: line from p to e into out (scratch: its tokens, may be NULL). */
void eb_board_classify_eb(const char *p, const char *e, eb_board_line *out, eb_ebline *scratch);

#endif
