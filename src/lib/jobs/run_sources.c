/* Where a run's boards come from (run_internal.h run_source): a board on a
 * port (--port), a lab file's boards (--lab), virtual boards the run starts
 * (--sim, run_sim.c), an emulated ESP32-C3 (--qemu, run_qemu.c). Each is a
 * row that declares the option that chooses it, the sources it combines
 * with, the options it claims or refuses (each with its one line), the flags
 * its boards need and what they have without being told. eb_run_resolve
 * walks the rows, and the checks of the other options (--peer-*,
 * --pattern, the pair's images) ask the rows what they provide: no mode
 * flag is tested outside its own row. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/adapters/lab_file.h"
#include "espbench/base/names.h"
#include "espbench/formats/dialect.h"
#include "espbench/formats/lab.h"
#include "run_internal.h"

/* Each option bit's field in the request: text (given when not NULL), a
 * flag, a count (given when not 0), or none (--pattern). */
enum { OPT_NONE, OPT_TEXT, OPT_FLAG, OPT_COUNT };
#define TEXT(f) {offsetof(eb_run_request, f), OPT_TEXT}
#define FLAG(f) {offsetof(eb_run_request, f), OPT_FLAG}
#define COUNT(f) {offsetof(eb_run_request, f), OPT_COUNT}
static const struct opt_field {
    size_t off;
    int kind;
} opt_fields[RUN_OPT_COUNT] = {
    [RUN_OPT_PORT] = TEXT(port),
    [RUN_OPT_SIM] = FLAG(sim),
    [RUN_OPT_LAB] = TEXT(lab_file),
    [RUN_OPT_QEMU] = FLAG(qemu),
    [RUN_OPT_QEMU_BIN] = TEXT(qemu_bin),
    [RUN_OPT_QEMU_IMAGE] = TEXT(qemu_image),
    [RUN_OPT_QEMU_TIER_IMAGE] = COUNT(n_qemu_tier_images),
    [RUN_OPT_COPROCESSOR] = TEXT(coprocessor),
    [RUN_OPT_TRANSPORT] = TEXT(transport),
    [RUN_OPT_COPROCESSOR_PORT] = TEXT(coprocessor_port),
    [RUN_OPT_PEER_PORT] = TEXT(peer_port),
    [RUN_OPT_PEER_CHIP] = TEXT(peer_chip),
    [RUN_OPT_PEER_TIER] = TEXT(peer_tier),
    [RUN_OPT_CHIP] = TEXT(chip),
    [RUN_OPT_SSID] = TEXT(ssid),
    [RUN_OPT_PC_ADDRESS] = TEXT(pc_address),
    [RUN_OPT_PATTERN] = {0, OPT_NONE},
};
#undef TEXT
#undef FLAG
#undef COUNT

unsigned run_sources_given(const eb_run_request *rq)
{
    unsigned given = 0;
    for (int i = 0; i < RUN_OPT_COUNT; i++) {
        const char *at = (const char *)rq + opt_fields[i].off;
        bool set = false;
        if (opt_fields[i].kind == OPT_TEXT) {
            const char *v;
            memcpy(&v, at, sizeof v);
            set = v != NULL;
        } else if (opt_fields[i].kind == OPT_FLAG) {
            bool v;
            memcpy(&v, at, sizeof v);
            set = v;
        } else if (opt_fields[i].kind == OPT_COUNT) {
            int v;
            memcpy(&v, at, sizeof v);
            set = v > 0;
        }
        given |= set ? 1u << i : 0;
    }
    return given;
}

/* ------------------------------------------------------------ --port */

/* The lone board from the flags, named name. */
static int lone_board(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, const char *name, eb_error *err)
{
    eb_run_board *b = &st->single;
    if (!rq->chip)
        return run_bad_request(st, err, "--chip is required");
    snprintf(b->chip, sizeof b->chip, "%s", rq->chip);
    snprintf(b->name, sizeof b->name, "%s", name ? name : "");
    if (rq->pc_address)
        snprintf(b->pc_ip, sizeof b->pc_ip, "%s", rq->pc_address);
    b->iperf_port = rq->iperf_port ? rq->iperf_port : 5001;
    if (rq->dialect)
        snprintf(b->dialect, sizeof b->dialect, "%s", rq->dialect);
    o->boards = b;
    o->n_boards = 1;
    return 0;
}

static int port_board(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    int rc = lone_board(rq, o, st, "", err);
    if (!rc)
        snprintf(st->single.port, sizeof st->single.port, "%s", rq->port);
    return rc;
}

/* A board on a port: the network and the PC's address from the flags. */
static const run_source_decl port_decl = {
    .conflict = RUN_SOURCE_CHOOSE_ONE,
    .needs = RUN_OPT(CHIP) | RUN_OPT(SSID) | RUN_OPT(PC_ADDRESS),
};
static const run_source run_source_port = {"port", RUN_OPT(PORT), &port_decl, NULL, port_board, NULL, NULL, NULL};

/* ------------------------------------------------------------ --lab */

/* A lab file's boards; with --chip only that chip's. */
static int lab_boards(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    st->lab = calloc(1, sizeof *st->lab);
    if (!st->lab)
        abort();
    eb_lab *lab = st->lab;
    int rc = eb_lab_load(lab, rq->lab_file, err);
    if (rc)
        return rc;
    if (lab->has_password)
        snprintf(st->password, sizeof st->password, "%s", lab->password);
    bool own_ports = run_sources_provide(rq, RUN_SRC_OWN_PORTS); /* the boards are started for the run */
    int k = 0;
    for (int i = 0; i < lab->n_boards; i++) {
        eb_run_board *b = &lab->boards[i];
        if (rq->chip && !eb_name_same(rq->chip, b->chip))
            continue;
        if (!own_ports && !b->port[0])
            return run_bad_request(st, err, "lab board '%s' has no port", b->name);
        if (rq->dialect)
            snprintf(b->dialect, sizeof b->dialect, "%s", rq->dialect);
        if (rq->dialect && b->peer.chip[0])
            snprintf(b->peer.dialect, sizeof b->peer.dialect, "%s", rq->dialect);
        lab->boards[k++] = *b;
    }
    if (!k)
        return run_bad_request(st, err, "no board of chip '%s' in %s", rq->chip, rq->lab_file);
    o->boards = lab->boards;
    o->n_boards = k;
    return 0;
}

static void lab_stop(eb_run_setup *st)
{
    if (st->lab) {
        eb_lab_free(st->lab);
        free(st->lab);
        st->lab = NULL;
    }
}

/* A lab file names its boards (their chips, ports, addresses, a board's
 * peer: and coprocessor:), the network and the instruments. */
static const run_source_rule lab_refuses[] = {
    {RUN_OPT(COPROCESSOR) | RUN_OPT(TRANSPORT) | RUN_OPT(COPROCESSOR_PORT),
     "--coprocessor, --transport and --coprocessor-port are for one board (--port or --sim); with --lab give the "
     "board coprocessor: (transport:, coprocessor_port:) in the lab file"},
    {RUN_OPT(PEER_PORT) | RUN_OPT(PEER_CHIP) | RUN_OPT(PEER_TIER),
     "--peer-port/--peer-chip/--peer-tier are for one board; in a lab file give the board a 'peer:' mapping (port, "
     "chip, tier)"},
    {0, NULL},
};
static const run_source_decl lab_decl = {
    .combines = RUN_OPT(SIM),
    .conflict = RUN_SOURCE_CHOOSE_ONE,
    .refuses = lab_refuses,
};
static const run_source run_source_lab = {"lab", RUN_OPT(LAB), &lab_decl, NULL, lab_boards, NULL, NULL, lab_stop};

/* ------------------------------------------------------------ the rows, walked */

/* In order: a list of boards (the lab file) before what starts them (--sim),
 * so the lab file makes the boards under --sim; stopped in reverse. */
static const run_source *const sources[] = {&run_source_port, &run_source_lab, &run_source_sim, &run_source_qemu};
#define N_SOURCES ((int)(sizeof sources / sizeof sources[0]))

static bool chosen(const run_source *s, unsigned given)
{
    return (s->selects & given) != 0;
}

bool run_sources_chosen(const eb_run_request *rq)
{
    unsigned given = run_sources_given(rq);
    for (int i = 0; i < N_SOURCES; i++)
        if (chosen(sources[i], given))
            return true;
    return false;
}

/* The source that makes the boards: the first chosen with boards of its
 * own, else the first chosen (one board from the flags); NULL: none chosen. */
static const run_source *board_source(const eb_run_request *rq)
{
    unsigned given = run_sources_given(rq);
    const run_source *first = NULL;
    for (int i = 0; i < N_SOURCES; i++) {
        if (!chosen(sources[i], given))
            continue;
        if (sources[i]->boards)
            return sources[i];
        first = first ? first : sources[i];
    }
    return first;
}

unsigned run_sources_needs(const eb_run_request *rq)
{
    const run_source *s = board_source(rq);
    return s ? s->decl->needs : RUN_OPT(CHIP); /* no source yet: a board of a chip at least */
}

bool run_sources_provide(const eb_run_request *rq, unsigned fact)
{
    unsigned given = run_sources_given(rq);
    for (int i = 0; i < N_SOURCES; i++)
        if (chosen(sources[i], given) && (sources[i]->decl->provides & fact))
            return true;
    return false;
}

int run_sources_dialect(const eb_run_request *rq)
{
    unsigned given = run_sources_given(rq);
    for (int i = 0; i < N_SOURCES; i++) {
        int d = chosen(sources[i], given) && sources[i]->dialect ? sources[i]->dialect(rq) : EB_DIALECT_UNKNOWN;
        if (d != EB_DIALECT_UNKNOWN)
            return d;
    }
    return EB_DIALECT_UNKNOWN;
}

/* The first chosen source's declaration with the pointer at off set. */
static const void *first_declared(const eb_run_request *rq, size_t off)
{
    unsigned given = run_sources_given(rq);
    for (int i = 0; i < N_SOURCES; i++) {
        const void *v;
        memcpy(&v, (const char *)sources[i]->decl + off, sizeof v);
        if (chosen(sources[i], given) && v)
            return v;
    }
    return NULL;
}

const char *run_sources_ssid(const eb_run_request *rq)
{
    return first_declared(rq, offsetof(run_source_decl, ssid));
}

const char *run_sources_ap_password(const eb_run_request *rq)
{
    return first_declared(rq, offsetof(run_source_decl, ap_password));
}

const eb_run_board *run_sources_standin(const eb_run_request *rq)
{
    return first_declared(rq, offsetof(run_source_decl, standin));
}

/* The line of the first chosen source's refusal among opts; NULL: none. */
static const char *refusal(const eb_run_request *rq, unsigned opts)
{
    unsigned given = run_sources_given(rq);
    for (int i = 0; i < N_SOURCES; i++)
        for (const run_source_rule *r = sources[i]->decl->refuses; chosen(sources[i], given) && r && r->opts; r++)
            if (r->opts & opts)
                return r->line;
    return NULL;
}

int run_sources_refused(const eb_run_request *rq, unsigned opts, eb_error *err)
{
    const char *line = refusal(rq, opts);
    return line ? eb_fail(err, EB_ECONFIG, "%s", line) : 0;
}

int run_sources_check(const eb_run_request *rq, eb_run_setup *st, eb_error *err)
{
    unsigned given = run_sources_given(rq);
    /* Two sources chosen that do not combine: the later one's line. */
    for (int i = 0; i < N_SOURCES; i++)
        for (int j = 0; j < i && chosen(sources[i], given); j++)
            if (chosen(sources[j], given) && !(sources[i]->decl->combines & sources[j]->selects) &&
                !(sources[j]->decl->combines & sources[i]->selects))
                return run_bad_request(st, err, "%s", sources[i]->decl->conflict);
    for (int i = 0; i < N_SOURCES; i++) /* an option of a source not chosen */
        if (!chosen(sources[i], given) && (sources[i]->decl->claims.opts & given))
            return run_bad_request(st, err, "%s", sources[i]->decl->claims.line);
    const char *refused = refusal(rq, given); /* an option a chosen source refuses */
    if (refused)
        return run_bad_request(st, err, "%s", refused);
    int rc = 0;
    for (int i = 0; i < N_SOURCES && !rc; i++)
        if (chosen(sources[i], given) && sources[i]->check)
            rc = sources[i]->check(rq, st, err);
    return rc;
}

int run_sources_boards(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    const run_source *s = board_source(rq);
    if (!s)
        return run_bad_request(st, err, "which board? pass --port URL, --sim or --lab FILE");
    return s->boards ? s->boards(rq, o, st, err) : lone_board(rq, o, st, s->decl->board_name, err);
}

int run_sources_start(const eb_run_request *rq, eb_run_opts *o, eb_run_setup *st, eb_error *err)
{
    unsigned given = run_sources_given(rq);
    int rc = 0;
    for (int i = 0; i < N_SOURCES && !rc; i++)
        if (chosen(sources[i], given) && sources[i]->start)
            rc = sources[i]->start(rq, o, st, err);
    return rc;
}

void run_sources_stop(eb_run_setup *st)
{
    for (int i = N_SOURCES - 1; i >= 0; i--)
        if (sources[i]->stop)
            sources[i]->stop(st);
}
