/* Lab instruments behind small ops tables, one per kind of thing (like the
 * ports' eb_port_ops): a programmable attenuator, an access point and a
 * power switch. Each driver speaks one device family's published protocol
 * (its source is named in its file; docs/instruments.md). The lab file
 * declares the instruments (formats/lab.h eb_instr_spec); their password
 * comes from the environment or a file, never a flag, and is never logged.
 *
 * Every failure is one line that names the instrument and what it said:
 *   attenuator att1 (minicircuits-http http://10.0.0.5): SETATT=70 answered "2" (above the unit's maximum)
 * Every exchange has a deadline; no read waits for ever. */
#ifndef ESPBENCH_INSTRUMENT_H
#define ESPBENCH_INSTRUMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "espbench/base/error.h"
#include "espbench/formats/instr_proto.h"
#include "espbench/formats/lab.h"

#define EB_INSTR_TIMEOUT_MS 5000

typedef struct eb_instr eb_instr;

/* eb_ap_settings: formats/instr_proto.h */

void eb_ap_settings_init(eb_ap_settings *s);

/* The three seams. Each row fills every entry. */
typedef struct eb_atten_ops {
    const char *driver;
    double max_db;                     /* the family's published range starts at 0 */
    double step_db;                    /* the resolution a set value is rounded to */
    int (*open)(eb_instr *in, eb_error *err);
    int (*set)(eb_instr *in, double db, eb_error *err);
    int (*get)(eb_instr *in, double *db, eb_error *err); /* read back from the device */
    void (*close)(eb_instr *in);
} eb_atten_ops;

typedef struct eb_ap_ops {
    const char *driver;
    int (*open)(eb_instr *in, eb_error *err);
    /* Whether the family can take s at all, without asking the device
     * (EB_ECONFIG with why): the run checks every point before it starts. */
    int (*check)(const eb_instr *in, const eb_ap_settings *s, eb_error *err);
    /* Applies the set fields of s and makes them take effect (the radio
     * restarts: stations are dropped and must reconnect); returns once the
     * radio has left its transient states or the driver's deadline passed. */
    int (*apply)(eb_instr *in, const eb_ap_settings *s, eb_error *err);
    /* What the AP reports it runs (unset where it does not say). */
    int (*read)(eb_instr *in, eb_ap_settings *out, eb_error *err);
    void (*close)(eb_instr *in);
} eb_ap_ops;

typedef struct eb_power_ops {
    const char *driver;
    int max_outlet;
    int (*open)(eb_instr *in, eb_error *err);
    int (*set)(eb_instr *in, int outlet, bool on, eb_error *err);
    int (*get)(eb_instr *in, int outlet, bool *on, eb_error *err); /* the outlet's state as the switch reports it */
    void (*close)(eb_instr *in);
} eb_power_ops;

struct eb_instr {
    const eb_instr_spec *spec;
    union {
        const eb_atten_ops *atten;
        const eb_ap_ops *ap;
        const eb_power_ops *power;
    } ops;
    char user[64];
    char password[128];    /* zeroed by eb_instr_close */
    bool has_password;
    double max_db;         /* an attenuator: this unit's maximum (the driver's open sets it) */
    void *impl;            /* the driver's state */
};

/* The driver rows of a kind (tests check them against the lab parser's names). */
const eb_atten_ops *eb_atten_driver(const char *name);
const eb_ap_ops *eb_ap_driver(const char *name);
const eb_power_ops *eb_power_driver(const char *name);

/* Opens an instrument of the lab file: reads its password from its source,
 * connects where the protocol keeps a connection. EB_ECONFIG (no driver,
 * password source unreadable), EB_EIO (no answer). */
int eb_instr_open(eb_instr *in, const eb_instr_spec *spec, eb_error *err);
void eb_instr_close(eb_instr *in);
/* "attenuator att1 (idf-serial /dev/ttyUSB3)" for messages. */
void eb_instr_label(const eb_instr *in, char *out, size_t cap);

/* Every setting is made, read back from the device and compared, the
 * attenuators' as the others'. The codes are the same for every kind:
 * EB_ECONFIG for what is known before the device is asked (a value outside
 * the family's range, a setting it does not have; credentials refused at
 * open), EB_EIO for everything the device does: no answer, an answer its
 * protocol does not have, a refusal, or a read-back other than what was
 * asked, said in one line with both:
 *   ap ap3 (hostapd /run/hostapd/wlan0): asked for band 2g, channel 6; it reports state DISABLED, no band, channel 0
 * eb_atten_set: *got = what the device reports after the set. */
int eb_atten_set(eb_instr *in, double db, double *got, eb_error *err);
/* Checks s against the driver (no exchange), applies it, reads the AP back
 * into *got (what it reports, also when that differs) and compares: the
 * radio must be on the air with every field s sets. */
int eb_ap_check(const eb_instr *in, const eb_ap_settings *s, eb_error *err);
int eb_ap_apply(eb_instr *in, const eb_ap_settings *s, eb_ap_settings *got, eb_error *err);
int eb_ap_read(eb_instr *in, eb_ap_settings *out, eb_error *err);
/* Switches the outlet, then reads its state back from the switch. */
int eb_power_set(eb_instr *in, int outlet, bool on, eb_error *err);

/* For the drivers (instr_*.c): a failure with the instrument's label in
 * front of what happened; returns code. */
int eb_instr_fail(const eb_instr *in, int code, eb_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Quotes up to cap-1 bytes of a device's answer for a message: printable
 * ASCII as is, anything else as \xNN, so a bad answer is shown as it came. */
void eb_instr_quote(const void *data, size_t len, char *out, size_t cap);

#endif
