/* Reset sequences as tables (esptool / esp-pylib shapes). DTR asserted pulls
 * IO0 (BOOT) low and RTS asserted pulls EN low on the usual auto-reset
 * circuit, so "DTR on, RTS off" releases reset with BOOT held = download mode. */
#include <string.h>

#include "espbench/base/log.h"
#include "espbench/protocols/reset.h"

#define DTR(v) {EB_RS_DTR, v, false, 0}
#define RTS(v) {EB_RS_RTS, false, v, 0}
#define BOTH(d, r) {EB_RS_BOTH, d, r, 0}
#define WAIT(ms) {EB_RS_WAIT, false, false, ms}
#define WAIT_DELAY {EB_RS_WAIT_DELAY, false, false, 0}
#define END {EB_RS_END, false, false, 0}

enum { RESET_DELAY_MS = 50 };

static const eb_reset_step classic_steps[] = {
    DTR(false), RTS(true), WAIT(100), DTR(true), RTS(false), WAIT_DELAY, DTR(false), END,
};
/* Both lines in one TIOCMSET, so the chip never sees EN and IO0 low together. */
static const eb_reset_step tight_steps[] = {
    BOTH(false, false), BOTH(true, true), BOTH(false, true), WAIT(100),
    BOTH(true, false),  WAIT_DELAY,       BOTH(false, false), DTR(false), END,
};
static const eb_reset_step usb_jtag_steps[] = {
    RTS(false), DTR(false), WAIT(100), DTR(true), RTS(false), WAIT(100),
    RTS(true),  DTR(false), RTS(true), WAIT(100), DTR(false), RTS(false), END,
};
static const eb_reset_step hard_steps[] = {RTS(true), WAIT(100), RTS(false), END};
static const eb_reset_step usb_hard_steps[] = {RTS(true), WAIT(200), RTS(false), WAIT(200), END};
static const eb_reset_step no_steps[] = {END};

static const eb_reset_seq seq_classic = {"classic", "DTR/RTS one at a time", true, classic_steps, false};
static const eb_reset_seq seq_tight = {"tight", "DTR and RTS together (TIOCMSET)", true, tight_steps, false};
static const eb_reset_seq seq_usb = {"usb-reset", "Espressif USB-Serial/JTAG", true, usb_jtag_steps, false};
static const eb_reset_seq seq_none = {"no-reset", "no reset, sync only", true, no_steps, false};
static const eb_reset_seq seq_none_nosync = {"no-reset-no-sync", "no reset, no sync", false, no_steps, false};
static const eb_reset_seq seq_hard = {"hard-reset", "pulse EN (RTS)", false, hard_steps, true};
static const eb_reset_seq seq_usb_hard = {"hard-reset", "pulse EN (RTS), USB-Serial/JTAG timing", false, usb_hard_steps, true};
static const eb_reset_seq seq_after_none = {"no-reset", "stay in the loader", false, no_steps, true};

static bool is_usb_jtag(uint16_t vid, uint16_t pid) { return vid == 0x303A && pid == 0x1001; }

const eb_reset_seq *eb_reset_default(uint16_t vid, uint16_t pid)
{
    return is_usb_jtag(vid, pid) ? &seq_usb : &seq_tight;
}

static const struct {
    const char *name;
    const eb_reset_seq *seq; /* NULL = by VID:PID */
} before_names[] = {
    {"default-reset", NULL}, {"classic", &seq_classic},    {"tight", &seq_tight},
    {"usb-reset", &seq_usb}, {"usb-jtag", &seq_usb},        {"no-reset", &seq_none},
    {"no-reset-no-sync", &seq_none_nosync},
};

/* esptool v4 spells the modes with underscores ("default_reset"); accept both. */
static bool same_name(const char *table, const char *given)
{
    for (; *table && *given; table++, given++)
        if (*table != *given && !(*table == '-' && *given == '_'))
            return false;
    return *table == *given;
}

const eb_reset_seq *eb_reset_before(const char *name, uint16_t vid, uint16_t pid)
{
    if (!name)
        name = "default-reset";
    for (size_t i = 0; i < sizeof before_names / sizeof before_names[0]; i++)
        if (same_name(before_names[i].name, name))
            return before_names[i].seq ? before_names[i].seq : eb_reset_default(vid, pid);
    return NULL;
}

const eb_reset_seq *eb_reset_after(const char *name, uint16_t vid, uint16_t pid)
{
    if (!name || same_name("hard-reset", name))
        return is_usb_jtag(vid, pid) ? &seq_usb_hard : &seq_hard;
    if (same_name("no-reset", name))
        return &seq_after_none;
    return NULL;
}

const char *eb_reset_before_names(void)
{
    return "default-reset, classic, tight, usb-reset, no-reset, no-reset-no-sync";
}
const char *eb_reset_after_names(void) { return "hard-reset, no-reset"; }

int eb_reset_run(eb_port *p, const eb_reset_seq *seq, unsigned extra_delay_ms, eb_error *err)
{
    bool dtr = false, rts = false;
    int result = EB_OK;
    for (const eb_reset_step *s = seq->steps; s->op != EB_RS_END; s++) {
        switch (s->op) {
        case EB_RS_WAIT:
            if (result == EB_OK)
                eb_sleep_ms(s->ms);
            continue;
        case EB_RS_WAIT_DELAY:
            if (result == EB_OK)
                eb_sleep_ms(RESET_DELAY_MS + extra_delay_ms);
            continue;
        case EB_RS_DTR:
            dtr = s->dtr;
            break;
        case EB_RS_RTS:
            rts = s->rts;
            break;
        case EB_RS_BOTH:
            dtr = s->dtr;
            rts = s->rts;
            break;
        case EB_RS_END:
            break;
        }
        if (result != EB_OK)
            continue;
        int rc = eb_port_set_lines(p, dtr, rts, err);
        if (rc == 1) {
            /* The before and after steps each explain themselves once (separate
             * keys): what --after does instead is the caller's to say. */
            if (!seq->after && !p->lines_absent_known)
                eb_log_once("no-modem-lines-before", EB_LOG_INFO,
                            "%s: cannot set DTR/RTS on this port, so the board was not reset into download mode (--before %s); "
                            "put it into download mode by hand if it does not answer",
                            p->url, seq->name);
            result = 1;
        } else if (rc != EB_OK) {
            return rc;
        }
    }
    return result;
}
