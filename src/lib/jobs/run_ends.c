/* The ends of a board's tests (run_internal.h run_end_ops). A board has two:
 * itself — a console (board), or an ESP-Hosted host whose co-processor is
 * flashed first (hosted) — and its far end — a peer board's console
 * (board again: board to board is two console ends) or the PC (pc); and
 * its fixtures, the drivers of its surroundings (the virtual board:
 * run_end_vboard.c; the lab's instruments: run_instruments.c). The core
 * runs every entry for all of them; nothing an end does is written twice.
 * Which rows a run asks that no end of a board sets is said here, from the
 * ends' declarations, before anything starts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/version.h"
#include "espbench/formats/dims.h"
#include "espbench/formats/lab.h"
#include "espbench_core.h"
#include "run_internal.h"

/* The options of the console's iperf command that hand a number to its
 * engine: the espbench firmware's table (espbench_core.h); a stock
 * example's iperf takes -l (Espressif's iperf-cmd, the older examples:
 * "len"). */
#define CONSOLE_IPERF_OPT(name, opt, lo, hi, field) opt " "
static const char espbench_iperf_opts[] = EBC_IPERF_ENGINE_OPTS(CONSOLE_IPERF_OPT);
#define STOCK_IPERF_OPTS "-l "

/* ------------------------------------------------------------ a console */

/* Its log and console; provenance starts with what the PC side knows. */
static int console_open(board_ctx *end, eb_error *err)
{
    run_shared *sh = end->sh;
    eb_prov_track_init(&end->prov, eb_version(), sh->iperf_version, sh->o->env);
    return run_board_open(end, err);
}

static bool console_lost(const board_ctx *end)
{
    return !end->cons->con || eb_console_port_failed(end->cons->con);
}

/* After a failed attempt the tier is redone (the board may have rebooted);
 * before a retry the console is awaited. Also when a fixture changed the
 * board's surroundings under it (the AP restarted its radio). */
static int console_reset(board_ctx *end, bool retry, eb_error *err)
{
    end->cons->tier = NULL;
    return retry ? run_board_ready(end, err) : 0;
}

/* As the far end: the peer's part of the board's result. */
static void console_stamp(board_ctx *end, const eb_run_item *it, run_result *r)
{
    if (end->dut)
        run_pair_stamp(end, it, r);
}

/* A console takes the radio settings (its firmware's radio_set) and the
 * iperf options its iperf command has, as client and as server (dims.h
 * eb_dim_desc.iperf_opt): each built-in dialect's takes -l (the espbench
 * firmware's `iperf`, espbench_core.c cmd_iperf; Espressif's iperf-cmd,
 * iperf_cmd.c "len"; the older examples' "len"); a --pattern firmware's
 * commands: take none. What each lacks: docs/dimensions.md. */
static bool console_takes(const eb_run_opts *o, const eb_run_board *b, const eb_dim_desc *d, double v, char *why,
                          size_t cap)
{
    (void)v;
    const char *opts = b->dialect[0] && strcmp(b->dialect, "espbench") ? STOCK_IPERF_OPTS : espbench_iperf_opts;
    if (!(d->flags & EB_DIM_IPERF))
        return true;
    if (o->pattern)
        snprintf(why, cap, "a --pattern firmware's commands: take no iperf %s", d->iperf_opt);
    else if (!strstr(opts, d->iperf_opt))
        snprintf(why, cap, "the board's console iperf has no %s for both ends of a test (docs/dimensions.md, "
                 "\"iperf options\")", d->iperf_opt);
    else
        return true;
    return false;
}

static const run_end_decl console_decl = {.sets = EB_DIM_CONSOLE | EB_DIM_RADIO | EB_DIM_IPERF, .takes = console_takes};
static const run_end_tests console_tests = {.throughput = run_pair_test};

const run_end_ops run_end_board = {
    .name = "board",
    .decl = &console_decl,
    .open = console_open,
    .prepare = run_dims_apply,
    .config_set = run_iperf_set,
    .reset = console_reset,
    .lost = console_lost,
    .close = run_board_close,
    .stamp = console_stamp,
    .tests = &console_tests,
};

/* ------------------------------------------------------------ an ESP-Hosted host */

/* The co-processor's firmware over its own port first (--coprocessor-port). */
static int hosted_open(board_ctx *end, eb_error *err)
{
    int rc = run_board_log(end, err);
    if (!rc)
        rc = run_hosted_flash_coprocessor(end, err);
    return rc ? rc : console_open(end, err);
}

static const run_end_tests hosted_tests = {.transport = run_hosted_raw};

const run_end_ops run_end_hosted = {
    .name = "hosted",
    .decl = &console_decl,
    .open = hosted_open,
    .prepare = run_dims_apply,
    .config_set = run_iperf_set,
    .reset = console_reset,
    .lost = console_lost,
    .close = run_board_close,
    .stamp = run_hosted_stamp,
    .tests = &hosted_tests,
};

/* ------------------------------------------------------------ the PC */

/* The PC's iperf2 was probed for the run (run_job.c); each test starts and
 * ends its own programs (run_test.c, run_latency.c): no life of its own.
 * iperf2 takes every iperf option a row names (iperf(1)). */
static const run_end_decl pc_decl = {.sets = EB_DIM_IPERF, .local_iperf = true};

/* Named in messages as this computer. */
static int pc_open(board_ctx *end, eb_error *err)
{
    (void)err;
    end->label = "PC";
    return 0;
}
static const run_end_tests pc_tests = {.throughput = run_test, .round_trips = run_latency_test};

const run_end_ops run_end_pc = {
    .name = "pc",
    .decl = &pc_decl,
    .open = pc_open,
    .prepare = run_dims_apply,
    .config_set = run_iperf_set,
    .tests = &pc_tests,
};

/* ------------------------------------------------------------ making ends */

static bool hosted_wanted(const eb_run_board *b) { return b->hosted != NULL; }
static bool peer_wanted(const eb_run_board *b) { return b->peer.chip[0] != 0; }
static bool any_board(const eb_run_board *b) { return (void)b, true; }
static bool pc_wanted(const eb_run_board *b) { return !b->far_end[0]; }
static void peer_board(const eb_run_board *b, eb_run_board *pb);

/* Each side's ends, the first that wants a board is its end there; board,
 * when the end describes a board of its own (a peer: from the board's
 * peer:). A new end is a row here (its driver in a file of its own:
 * run_end_NAME.c). */
typedef struct end_row {
    const run_end_ops *ops;
    bool (*wanted)(const eb_run_board *b);
    void (*board)(const eb_run_board *b, eb_run_board *out);
} end_row;
static const end_row own_rows[] = {{&run_end_hosted, hosted_wanted, NULL}, {&run_end_board, any_board, NULL}};
static const end_row far_rows[] = {
    {&run_end_board, peer_wanted, peer_board}, {&run_end_ssh, run_end_ssh_wants, NULL}, {&run_end_pc, pc_wanted, NULL}};

static const end_row *first_wanted(const end_row *rows, size_t n, const eb_run_board *b)
{
    for (size_t i = 0; i < n; i++)
        if (rows[i].wanted(b))
            return &rows[i];
    return NULL;
}

#define FIRST_WANTED(rows, b) first_wanted(rows, sizeof rows / sizeof rows[0], b)

void run_end_rows(const eb_run_board *b, const run_end_ops **own, const run_end_ops **far)
{
    const end_row *o = FIRST_WANTED(own_rows, b), *f = FIRST_WANTED(far_rows, b);
    *own = o ? o->ops : NULL;
    *far = f ? f->ops : NULL;
}

/* A board's fixtures: each row present at the board is made when it sets
 * a row the run asks that no fixture before it sets, or always (its facts
 * go in every result). Before the board connects, in this order: the
 * virtual board's link before a lab attenuator (an rssi sweep on a
 * simulated board is its link). A new fixture is a row here. */
static bool simulated(const eb_run_opts *o, const eb_run_board *b) { return (void)o, b->sim; }
static bool emulated(const eb_run_opts *o, const eb_run_board *b) { return (void)o, b->qemu; }
static bool attenuated(const eb_run_opts *o, const eb_run_board *b)
{
    return o->lab && b->name[0] && eb_lab_attenuator_of(o->lab, b->name);
}
static bool in_lab(const eb_run_opts *o, const eb_run_board *b) { return (void)b, o->lab && o->lab->n_instruments > 0; }

typedef struct fixture_row {
    const run_end_ops *ops;
    bool (*present)(const eb_run_opts *o, const eb_run_board *b);
    bool always;
} fixture_row;
static const fixture_row fixture_rows[] = {
    {&run_end_vboard, simulated, true},
    {&run_end_qemu, emulated, true},
    {&run_end_atten, attenuated, false},
    {&run_end_lab, in_lab, true},
};
#define N_FIXTURES (sizeof fixture_rows / sizeof fixture_rows[0])

/* The values a run asks of row d: its list's, or the sweep's when it is swept. */
static bool asked(const eb_run_opts *o, int d)
{
    return o->radio.n[d] > 0 || (o->sweep.var == d && o->sweep.n > 0);
}

/* The fixtures of board b, as fixture_rows' indexes in order (returns how many). */
static int fixtures_of(const eb_run_opts *o, const eb_run_board *b, int *rows)
{
    int n = 0;
    for (size_t i = 0; i < N_FIXTURES; i++) {
        const fixture_row *f = &fixture_rows[i];
        bool wanted = f->present(o, b) && f->always;
        for (int d = EB_DIM_NONE + 1; !wanted && f->present(o, b) && d < eb_dim_count(); d++) {
            bool taken = false;
            for (int k = 0; k < n; k++)
                taken |= run_end_declares(fixture_rows[rows[k]].ops->decl, eb_dim(d));
            wanted = asked(o, d) && !taken && run_end_declares(f->ops->decl, eb_dim(d));
        }
        if (wanted)
            rows[n++] = (int)i;
    }
    return n;
}

/* Whether some end of board b sets row d (its own, its far end, a
 * fixture); when none does, the line saying what would, from the
 * fixtures that could (their needs and also). */
static bool row_set(const eb_run_opts *o, const eb_run_board *b, int d, char *why, size_t cap)
{
    const run_end_ops *own, *far;
    run_end_rows(b, &own, &far);
    const eb_dim_desc *row = eb_dim(d);
    int rows[N_FIXTURES], n = fixtures_of(o, b, rows);
    bool set = run_end_declares(own->decl, row) || (far && run_end_declares(far->decl, row));
    for (int k = 0; k < n; k++)
        set |= run_end_declares(fixture_rows[rows[k]].ops->decl, row);
    if (set)
        return true;
    const run_end_decl *first = NULL;
    char also[300] = "";
    for (size_t i = 0; i < N_FIXTURES; i++) {
        const run_end_decl *decl = fixture_rows[i].ops->decl;
        if (!run_end_declares(decl, row) || !decl->needs)
            continue;
        if (first)
            snprintf(also + strlen(also), sizeof also - strlen(also), "%s", decl->also);
        else
            first = decl;
    }
    const char *name = b->name[0] ? b->name : b->port;
    size_t k = o->sweep.var == d ? (size_t)snprintf(why, cap, "--sweep %s ", row->name)
                                 : (size_t)snprintf(why, cap, "--%s ", eb_dim_flag(row));
    if (k >= cap)
        return false;
    if (first)
        snprintf(why + k, cap - k, first->needs, name, also);
    else
        snprintf(why + k, cap - k, "is set by no end of board %s", name);
    return false;
}

/* Every row the run asks is set by some end of every board (the virtual
 * board's link needs --sim, an attenuation a lab attenuator). */
static int ends_set_rows(const eb_run_opts *o, eb_error *err)
{
    for (int i = 0; i < o->n_boards; i++)
        for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++) {
            char why[600];
            const eb_dim_desc *row = eb_dim(d);
            bool by_end = (row->flags & (EB_DIM_LINK | EB_DIM_RADIO | EB_DIM_IPERF)) || row->instrument;
            if (by_end && asked(o, d) && !row_set(o, &o->boards[i], d, why, sizeof why))
                return eb_fail(err, EB_ECONFIG, "%s", why);
        }
    return 0;
}

int eb_run_check_sweep(const eb_run_opts *o, eb_error *err)
{
    if (o->sweep.n <= 0)
        return 0;
    if (!eb_sweep_var_name(o->sweep.var))
        return eb_fail(err, EB_ECONFIG, "--sweep: no variable");
    int rc = run_dims_check(o, true, err);
    return rc ? rc : ends_set_rows(o, err);
}

/* Whether an end takes every value the run asks of the rows that are
 * iperf options (both ends of the traffic run iperf with them). */
static bool end_takes(const eb_run_opts *o, const eb_run_board *b, const run_end_ops *end, char *why, size_t cap)
{
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++) {
        const eb_dim_desc *row = eb_dim(d);
        double v[EB_SWEEP_MAX_POINTS + EB_RADIO_MAX_VALUES];
        int n = (row->flags & EB_DIM_IPERF) ? run_plan_asked(o, d, v, (int)(sizeof v / sizeof v[0])) : 0;
        for (int i = 0; i < n; i++) {
            if (eb_dim_is_default(row, v[i]))
                continue;
            char r[300] = "";
            if ((end->decl->sets & EB_DIM_IPERF) &&
                (!end->decl->takes || end->decl->takes(o, b, row, v[i], r, sizeof r)))
                continue;
            snprintf(why, cap, "board %.200s: the %.32s end cannot take --%.32s %g: %.299s", b->name[0] ? b->name : b->port,
                     end->name, row->name, v[i], r[0] ? r : "it runs no iperf");
            return false;
        }
    }
    return true;
}

int run_ends_check(const eb_run_opts *o, eb_error *err)
{
    for (int i = 0; i < o->n_boards; i++) {
        const eb_run_board *b = &o->boards[i];
        const run_end_ops *own, *far;
        run_end_rows(b, &own, &far);
        if (!far)
            return eb_fail(err, EB_ECONFIG, "board %s: no end takes the far end '%s' (the ends: docs/architecture.md "
                           "\"Adding an end\")", b->name[0] ? b->name : b->port, b->far_end);
        char why[700];
        if (!end_takes(o, b, own, why, sizeof why) || !end_takes(o, b, far, why, sizeof why))
            return eb_fail(err, EB_ECONFIG, "%s", why);
    }
    return 0;
}

/* A console end's own state (an end that declares the console's rows:
 * the board's, a peer's, an ESP-Hosted host's), made once; NULL for the
 * others. */
static run_console *console_new(board_ctx *end, const run_end_ops *ops)
{
    if (!end->cons && (ops->decl->sets & EB_DIM_CONSOLE) && !(end->cons = calloc(1, sizeof *end->cons)))
        abort();
    return end->cons;
}

static void end_free(board_ctx *end)
{
    free(end->priv);
    free(end->cons);
}

int run_end_init(board_ctx *end, run_shared *sh, eb_run_board *b, const run_end_ops *ops, eb_error *err)
{
    end->ops = ops;
    end->sh = sh;
    end->b = b;
    end->label = b->name[0] ? b->name : b->port;
    run_file_label_init(end);
    if (console_new(end, ops))
        snprintf(end->cons->fw_sha256, sizeof end->cons->fw_sha256, "%s", b->fw_sha256);
    end->first = end;
    end->chip = eb_profiles_chip(sh->o->profiles, b->chip);
    if (!end->chip)
        return eb_fail(err, EB_ECONFIG, "no profile for %schip '%s' (see 'espbench profiles')",
                       end->dut ? "peer " : "", b->chip);
    return 0;
}

/* The peer's board, described by the board's peer: (or --peer-*). */
static void peer_board(const eb_run_board *b, eb_run_board *pb)
{
    memset(pb, 0, sizeof *pb);
    snprintf(pb->name, sizeof pb->name, "%s", b->peer.name);
    snprintf(pb->port, sizeof pb->port, "%s", b->peer.port);
    snprintf(pb->chip, sizeof pb->chip, "%s", b->peer.chip);
    snprintf(pb->pc_ip, sizeof pb->pc_ip, "%s", b->pc_ip);
    snprintf(pb->dialect, sizeof pb->dialect, "%s", b->peer.dialect);
    snprintf(pb->fw_sha256, sizeof pb->fw_sha256, "%s", b->peer.fw_sha256);
    snprintf(pb->sim_control, sizeof pb->sim_control, "%s", b->peer.sim_control);
    pb->iperf_port = b->iperf_port;
    pb->sim = b->peer.sim;
    pb->port_no_lines = b->peer.port_no_lines;
    pb->sim_model = b->sim_model;
    pb->sim_link = b->sim_link;
}

/* The board's fixtures, each opened as it is made (an instrument that
 * cannot take the run's points refuses the run before anything runs),
 * linked before the board in the order of its ends. */
static int make_fixtures(board_ctx *bc, eb_error *err)
{
    int rows[N_FIXTURES], n = fixtures_of(bc->sh->o, bc->b, rows);
    board_ctx **at = &bc->first;
    for (int k = 0; k < n; k++) {
        board_ctx *f = calloc(1, sizeof *f);
        if (!f)
            abort();
        f->ops = fixture_rows[rows[k]].ops;
        f->sh = bc->sh;
        f->b = bc->b;
        f->chip = bc->chip;
        f->label = bc->label;
        f->first = f;
        f->dut = bc;
        f->next = bc;
        *at = f;
        at = &f->next;
        int rc = f->ops->open ? f->ops->open(f, err) : 0;
        if (rc)
            return rc;
    }
    return 0;
}

int run_end_make_far(board_ctx *bc, eb_error *err)
{
    int rc = make_fixtures(bc, err);
    if (rc)
        return rc;
    const end_row *row = FIRST_WANTED(far_rows, bc->b);
    board_ctx *far = calloc(1, sizeof *far);
    if (!far)
        abort();
    far->dut = bc;
    eb_run_board *b = bc->b; /* the PC: the board's address of it */
    if (row->board && console_new(far, row->ops)) { /* a peer console */
        row->board(bc->b, &far->cons->far_board);
        b = &far->cons->far_board;
    }
    rc = run_end_init(far, bc->sh, b, row->ops, err);
    if (rc) {
        end_free(far);
        free(far);
        return rc;
    }
    bc->far = bc->next = far;
    return 0;
}

void run_end_free_far(board_ctx *bc)
{
    for (board_ctx *f = bc->first, *next; f && f != bc; f = next) { /* the fixtures */
        next = f->next;
        if (f->ops->close)
            f->ops->close(f);
        end_free(f);
        free(f);
    }
    bc->first = bc;
    if (bc->far)
        end_free(bc->far);
    free(bc->far);
    bc->far = bc->next = NULL;
    end_free(bc);
    bc->priv = NULL;
    bc->cons = NULL;
}
