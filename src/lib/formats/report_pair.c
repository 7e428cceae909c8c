/* The board-to-board table (run --peer-port / --peer-chip): one row per
 * board and peer with both sides named (chip, tier, MAC) and the four tests'
 * figures at the receiver. TX is the board under test sending to its peer,
 * RX the peer sending to it; no PC is in the data path, so these figures
 * never share a cell with a test against the PC (eb_entry_same_key). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "espbench/formats/dims.h"
#include "report_internal.h"

#define MAX_PAIRS 256

static bool is_pair(const eb_entry *e, const char *chip)
{
    return eb_entry_prov(e)->peer_chip[0] && (!chip || !strcmp(e->chip, chip));
}

bool rep_has_pairs(const eb_results *r, const char *chip)
{
    for (int i = 0; i < r->n_entries; i++)
        if (is_pair(&r->entries[i], chip))
            return true;
    return false;
}

/* A row: the board, its tier, and the peer with its tier. */
static bool same_row(const eb_entry *a, const eb_entry *b)
{
    return !strcmp(a->board, b->board) && !strcmp(a->chip, b->chip) && !strcmp(a->tier, b->tier) &&
           !strcmp(eb_entry_prov(a)->peer_board, eb_entry_prov(b)->peer_board) && !strcmp(eb_entry_prov(a)->peer_chip, eb_entry_prov(b)->peer_chip) &&
           !strcmp(eb_entry_prov(a)->peer_tier, eb_entry_prov(b)->peer_tier);
}

/* A side's MAC as the entries of the row recorded it ("" unknown). */
static const char *row_mac(const eb_results *r, const eb_entry *k, bool peer)
{
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        const char *m = peer ? eb_entry_prov(e)->peer_mac : eb_entry_prov(e)->mac;
        if (same_row(e, k) && m[0])
            return m;
    }
    return "";
}

/* Mean of the row's ok entries of a test (repeats averaged). */
static double row_figure(const eb_results *r, const eb_report_opts *o, const eb_entry *k, int test)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < r->n_entries; i++) {
        const eb_entry *e = &r->entries[i];
        if (!same_row(e, k) || e->test != test || strcmp(e->status, "ok") || !eb_dims_at_default(eb_entry_prov(e)))
            continue;
        double f = o->stat == EB_STAT_PEAK ? e->peak_mbps : e->mean_mbps;
        if (isfinite(f)) {
            sum += f;
            n++;
        }
    }
    return n ? sum / n : NAN;
}

void rep_pair_table(const eb_results *r, const eb_report_opts *o, rep_table *t)
{
    const eb_entry *rows[MAX_PAIRS];
    int n = 0;
    for (int i = 0; i < r->n_entries && n < MAX_PAIRS; i++) {
        const eb_entry *e = &r->entries[i];
        if (!is_pair(e, o->chip))
            continue;
        bool seen = false;
        for (int k = 0; k < n && !seen; k++)
            seen = same_row(rows[k], e);
        if (!seen)
            rows[n++] = e;
    }
    static const char *const head[] = {"Board", "Chip", "Tier", "MAC", "Peer", "Peer chip", "Peer tier", "Peer MAC"};
    const int nh = (int)(sizeof head / sizeof head[0]);
    rep_table_init(t, n ? 1 + n : 0, nh + EB_TEST_COUNT);
    if (!n)
        return;
    for (int c = 0; c < nh; c++)
        snprintf(rep_cell(t, 0, c), REP_CELL, "%s", head[c]);
    for (int test = 0; test < EB_TEST_COUNT; test++)
        snprintf(rep_cell(t, 0, nh + test), REP_CELL, "%s", eb_test_label(test));
    for (int i = 0; i < n; i++) {
        const eb_entry *k = rows[i];
        const char *mac = row_mac(r, k, false), *pmac = row_mac(r, k, true);
        const char *cells[] = {k->board[0] ? k->board : "(board)", k->chip, k->tier, mac[0] ? mac : "?",
                               eb_entry_prov(k)->peer_board[0] ? eb_entry_prov(k)->peer_board : "(peer)", eb_entry_prov(k)->peer_chip,
                               eb_entry_prov(k)->peer_tier[0] ? eb_entry_prov(k)->peer_tier : "?", pmac[0] ? pmac : "?"};
        for (int c = 0; c < nh; c++)
            snprintf(rep_cell(t, 1 + i, c), REP_CELL, "%s", cells[c]);
        for (int test = 0; test < EB_TEST_COUNT; test++)
            rep_format_mbps(rep_cell(t, 1 + i, nh + test), REP_CELL, row_figure(r, o, k, test));
    }
}

const char *rep_pair_note(void)
{
    return "Board to board: two boards test each other with no PC in the data path (run --peer-port, or "
           "--peer-chip under --sim). TX = the board sends to its peer, RX = the peer sends to the board; "
           "Mbit/s at the receiving board. These figures are kept apart from tests against the PC.";
}
