/* Lint of a tier against the rules of Espressif's Wi-Fi buffer documentation
 * ("How to improve Wi-Fi performance", Wi-Fi and lwIP Kconfig help). */
#include "espbench/formats/model.h"

#include <stdio.h>

#define BUF_KB 1.6 /* each Wi-Fi buffer, per the docs */

static int add(eb_lint *out, int max, int n, int level, int field, const char *fmt, double a,
               double b, double c)
{
    if (n < max) {
        out[n].level = level;
        out[n].field = field;
        snprintf(out[n].msg, sizeof out[n].msg, fmt, a, b, c);
    }
    return n + 1;
}

int eb_model_lint(const eb_tier *t, eb_lint *out, int max)
{
    int n = 0;
    const int *v = t->value;
    const bool *s = t->set;
    bool ampdu = !s[EB_F_AMPDU_RX] || v[EB_F_AMPDU_RX];
    int ba = s[EB_F_RX_BA_WIN] ? v[EB_F_RX_BA_WIN] : 6;
    int srx = s[EB_F_STATIC_RX] ? v[EB_F_STATIC_RX] : 10;
    int drx = s[EB_F_DYNAMIC_RX] ? v[EB_F_DYNAMIC_RX] : 32;
    double limit = 2.0 * srx;
    if (drx > 0 && drx < limit)
        limit = drx;
    /* ESP-IDF's wifi_init.c #error rule; esp-idf issue #3663: the stack froze
     * when the window exceeded the static RX buffers. */
    if (ampdu && ba > 0 && ba > limit)
        n = add(out, max, n, EB_LINT_ERROR, EB_F_RX_BA_WIN,
                "rx_ba_win %.0f exceeds min(dynamic_rx, 2*static_rx) = %.0f (static_rx %.0f): "
                "known to stall the Wi-Fi stack (esp-idf #3663)",
                ba, limit, srx);
    /* Docs: TCP_WND_DEFAULT ~ dynamic RX buffers in KB (1.6 KB each). */
    if (s[EB_F_TCP_WND_KB] && drx > 0 && v[EB_F_TCP_WND_KB] > BUF_KB * drx)
        n = add(out, max, n, EB_LINT_WARNING, EB_F_TCP_WND_KB,
                "tcp_wnd_kb %.0f is more than %.0f dynamic RX buffers hold (%.1f KB): the excess "
                "window costs memory and adds no throughput",
                v[EB_F_TCP_WND_KB], drx, BUF_KB * drx);
    /* Docs: TCP_SND_BUF_DEFAULT ~ TX buffers in KB. */
    int tx = s[EB_F_DYNAMIC_TX] || !s[EB_F_STATIC_TX] ? (s[EB_F_DYNAMIC_TX] ? v[EB_F_DYNAMIC_TX] : 32)
                                                        : v[EB_F_STATIC_TX];
    if (s[EB_F_TCP_SND_BUF_KB] && v[EB_F_TCP_SND_BUF_KB] > BUF_KB * tx)
        n = add(out, max, n, EB_LINT_WARNING, EB_F_TCP_SND_BUF_KB,
                "tcp_snd_buf_kb %.0f is more than %.0f TX buffers hold (%.1f KB): the excess send "
                "buffer costs memory and adds no throughput",
                v[EB_F_TCP_SND_BUF_KB], tx, BUF_KB * tx);
    /* lwIP Kconfig help: TCP receive mailbox >= TCP_WND / MSS + 2. */
    if (s[EB_F_TCP_MBOX] && s[EB_F_TCP_WND_KB] &&
        v[EB_F_TCP_MBOX] < v[EB_F_TCP_WND_KB] * 1000.0 / 1460 + 2)
        n = add(out, max, n, EB_LINT_WARNING, EB_F_TCP_MBOX,
                "tcp_mbox %.0f is below tcp_wnd_kb*1000/MSS + 2 = %.0f (lwIP's recommendation for "
                "a %.0f KB window): segments wait for mailbox room",
                v[EB_F_TCP_MBOX], v[EB_F_TCP_WND_KB] * 1000.0 / 1460 + 2, v[EB_F_TCP_WND_KB]);
    return n;
}
