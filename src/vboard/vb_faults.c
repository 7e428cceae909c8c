/* Fault specs: "KIND[:ARG][@WHEN]". The ROM and boot kinds fire in vb_rom.c and
 * vb_boot.c; the application kinds are taken by the console module. */
#include "vb_faults.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/formats/profile.h"

enum arg_rule { ARG_NONE, ARG_OPTIONAL_INT, ARG_REQUIRED_INT };

typedef struct fault_kind {
    const char *kind;
    enum arg_rule arg;
    const char *arg_name;
} fault_kind;

static const fault_kind kinds[] = {
    {"reboot", ARG_NONE, NULL},             /* panic with backtrace, then boot log */
    {"stall", ARG_NONE, NULL},              /* iperf stops moving data and reporting */
    /* iperf stalls and `iperf --abort` does not end it (no iperf.done; iperf
     * and tier_set answer BUSY) until the board resets: espressif/iperf-cmd's
     * iperf_force_stop only marks the instance to end at its next tick, and
     * one blocked in the network never gets there */
    {"no-stop", ARG_NONE, NULL},
    {"zero", ARG_OPTIONAL_INT, "intervals"},/* N intervals with no traffic (default 1) */
    {"garbage", ARG_OPTIONAL_INT, "bytes"}, /* N random bytes on the console at boot (default 64) */
    {"rom-checksum", ARG_OPTIONAL_INT, "blocks"}, /* next N _DATA blocks: checksum error (default 1) */
    {"flash-write", ARG_NONE, NULL},        /* next flash write fails with 0x08 */
    {"wifi-disconnect", ARG_NONE, NULL},    /* station disconnects (reason 8) */
    {"slow-boot", ARG_REQUIRED_INT, "milliseconds"}, /* boot takes this much longer */
    {"no-ap", ARG_NONE, NULL},              /* the configured APs vanish from scans */
    {"wifi-start", ARG_NONE, NULL},         /* esp_wifi_start fails until the next boot (no PHY) */
};

static const fault_kind *find_kind(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].kind, name) == 0)
            return &kinds[i];
    return NULL;
}

static bool is_uint(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* WHEN: a test name (tcp_tx, tcp_rx, udp_tx, udp_rx), "boot", or a time into
 * a test ("2s", "1.5s"). */
static bool valid_when(const char *w)
{
    if (!*w || strcmp(w, "boot") == 0 || eb_test_from_name(w) >= 0)
        return true;
    size_t n = strlen(w);
    if (n < 2 || w[n - 1] != 's')
        return false;
    char *end;
    double v = strtod(w, &end);
    return end == w + n - 1 && v >= 0;
}

int vb_fault_parse(const char *spec, vb_fault *out, eb_error *err)
{
    memset(out, 0, sizeof *out);
    char tmp[160];
    if (!spec || !*spec || strlen(spec) >= sizeof tmp)
        return eb_fail(err, EB_ECONFIG, "fault \"%s\": empty or too long (expected KIND[:ARG][@WHEN])",
                       spec ? spec : "");
    strcpy(tmp, spec);
    char *when = strchr(tmp, '@');
    if (when)
        *when++ = '\0';
    char *arg = strchr(tmp, ':');
    if (arg)
        *arg++ = '\0';
    const fault_kind *k = find_kind(tmp);
    if (!k) {
        char list[256] = "";
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
            if (i)
                strncat(list, ", ", sizeof list - strlen(list) - 1);
            strncat(list, kinds[i].kind, sizeof list - strlen(list) - 1);
        }
        return eb_fail(err, EB_ECONFIG, "fault \"%s\": unknown kind \"%s\" (known: %s)", spec, tmp, list);
    }
    if (arg && k->arg == ARG_NONE)
        return eb_fail(err, EB_ECONFIG, "fault \"%s\": %s takes no argument", spec, k->kind);
    if (!arg && k->arg == ARG_REQUIRED_INT)
        return eb_fail(err, EB_ECONFIG, "fault \"%s\": %s needs a number of %s (%s:N)", spec, k->kind,
                       k->arg_name, k->kind);
    if (arg && (!is_uint(arg) || strlen(arg) > 9))
        return eb_fail(err, EB_ECONFIG, "fault \"%s\": argument \"%s\" is not a number of %s", spec, arg,
                       k->arg_name);
    if (when && !valid_when(when))
        return eb_fail(err, EB_ECONFIG,
                       "fault \"%s\": WHEN \"%s\" is not a test (tcp_tx, tcp_rx, udp_tx, udp_rx), boot or a time like 2s",
                       spec, when);
    snprintf(out->kind, sizeof out->kind, "%s", k->kind);
    snprintf(out->arg, sizeof out->arg, "%s", arg ? arg : "");
    snprintf(out->when, sizeof out->when, "%s", when ? when : "");
    out->armed = true;
    return 0;
}

int vb_board_add_fault(vb_board *b, const vb_fault *f, eb_error *err)
{
    int rc = 0;
    pthread_mutex_lock(&b->lock);
    int slot = -1;
    if (b->n_faults < VB_MAX_FAULTS)
        slot = b->n_faults++;
    else
        for (int i = 0; i < b->n_faults && slot < 0; i++)
            if (!b->faults[i].armed)
                slot = i;
    if (slot >= 0)
        b->faults[slot] = *f;
    else
        rc = eb_fail(err, EB_ECONFIG, "fault %s: %d faults are already armed (the most the board holds)", f->kind,
                     VB_MAX_FAULTS);
    pthread_mutex_unlock(&b->lock);
    return rc;
}

void vb_fault_format(const vb_fault *f, char *out, size_t n)
{
    snprintf(out, n, "%s%s%s%s%s", f->kind, f->arg[0] ? ":" : "", f->arg, f->when[0] ? "@" : "", f->when);
}

long vb_fault_arg_long(const vb_fault *f, long def)
{
    return f->arg[0] ? strtol(f->arg, NULL, 10) : def;
}
