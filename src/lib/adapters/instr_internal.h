/* Shared by the instrument drivers (instr_*.c): their rows and the
 * exchanges they are built from. */
#ifndef ESPBENCH_INSTR_INTERNAL_H
#define ESPBENCH_INSTR_INTERNAL_H

#include "espbench/adapters/instrument.h"
#include "espbench/adapters/port.h"
#include "espbench/base/buf.h"

extern const eb_atten_ops eb_atten_idf_serial, eb_atten_mc_http, eb_atten_mc_telnet, eb_atten_weinschel;
extern const eb_ap_ops eb_ap_openwrt, eb_ap_hostapd;
extern const eb_power_ops eb_power_apc, eb_power_tasmota;

/* An AP's radio after a change: polled every EB_AP_POLL_MS while it
 * settles (netifd pending; hostapd's HT_SCAN, or DFS: the 60 s channel
 * availability check of ETSI EN 301 893), for at most EB_AP_SETTLE_MS. */
#define EB_AP_SETTLE_MS 75000
#define EB_AP_POLL_MS 250

/* A TCP connection through the port layer (socket://) to "host[:port]"
 * (default_port when the address has none). */
int instr_tcp_open(eb_instr *in, int default_port, eb_port **out, eb_error *err);
/* Telnet reading: bytes into acc with the telnet commands taken out (a
 * DO/WILL is refused, RFC 854/855), until acc holds one of pats (returns its
 * index) or the deadline (EB_EIO naming what came). */
int instr_tn_expect(eb_instr *in, eb_port *p, eb_buf *acc, const char *const *pats, int n_pats, eb_deadline d,
                    eb_error *err);
int instr_tn_send(eb_instr *in, eb_port *p, const char *line, eb_error *err);
/* GET (post NULL) or POST to the instrument's address + path; the body into
 * out (NUL-terminated). A status other than 200 fails with it and the body. */
int instr_http(eb_instr *in, const char *path, const char *post, eb_buf *out, eb_error *err);
/* %XX-encodes s for a URL query. */
void instr_url_escape(const char *s, char *out, size_t cap);

#endif
