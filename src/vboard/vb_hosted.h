/* The virtual board as an ESP-Hosted pair (vb_hosted.c). */
#ifndef VB_HOSTED_H
#define VB_HOSTED_H

#include "espbench/formats/hosted.h"
#include "vb_board.h"

/* --coprocessor/--transport: selects the pair of the board's chip and lets
 * the chip run the pair's tiers. cp NULL: no pair (transport must be NULL). */
int vb_hosted_setup(vb_board *b, eb_profiles *prof, const char *profiles_dir, const char *cp, const char *transport,
                    eb_error *err);
void vb_hosted_free(void);
/* The pair model's figure for tier t (EB_TEST_COUNT: free heap KB). */
double vb_hosted_figure(vb_board *b, const eb_tier *t, const eb_model_link *l, int test);

/* A raw-throughput image (app version raw_tx/raw_rx) reports from boot on
 * until stopped; NULL when the image is not one. */
typedef struct vb_rawtp vb_rawtp;
struct vb_console;
vb_rawtp *vb_hosted_rawtp_start(struct vb_console *c);
void vb_hosted_rawtp_stop(vb_rawtp *r);

#endif
