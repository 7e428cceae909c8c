/* Lab file parser (libyaml document API), pure: the password's source is
 * recorded, read later by eb_lab_read_password (adapters/lab_file.c). Layout:
 *
 *   ap:
 *     ssid: bench-ap
 *     password_env: LAB_WIFI_PASSWORD     # or password_file: wifi.secret
 *   pc:
 *     address: 192.168.10.2
 *   boards:
 *     - name: s3-a
 *       chip: esp32s3
 *       port: /dev/ttyUSB0               # any port URL (rfc2217://, socket://)
 *       iperf_port: 5001                 # default 5001 + index
 *       pc_address: 192.168.10.3         # optional, overrides pc.address
 *       dialect: espbench                # optional, default: detect
 *       coprocessor: esp32c6             # optional: an ESP-Hosted host (chip) and its Wi-Fi co-processor
 *       transport: sdio                  # optional with coprocessor: when the pair has several
 *       coprocessor_port: /dev/ttyUSB2   # optional with coprocessor: flash the co-processor too
 *       far_end: ssh://bench@server      # optional: the far end when not this PC (run --far-end)
 *       peer:                            # optional: board to board, no PC in the data path
 *         port: /dev/ttyUSB1             # the second board (not needed with --sim)
 *         chip: esp32c3                  # default: the board's chip
 *         tier: iperf                    # default: the board's tier, test by test
 *         name: c3-b                     # default: <board>-peer
 *
 *   instruments:                       # optional: lab gear the run drives (docs/instruments.md)
 *     - name: att1
 *       kind: attenuator                 # attenuator, ap, power
 *       driver: idf-serial               # see instr_drivers below
 *       address: /dev/ttyUSB3            # port URL, http://host, host:port
 *       serves: [s3-a]                   # attenuator: its boards (default: every board)
 *       channel: 1                       # attenuator: its path on a multi-path unit
 *     - name: ap1
 *       kind: ap
 *       driver: openwrt
 *       address: http://192.168.10.1
 *       user: root
 *       password_env: OPENWRT_PASS       # or password_file:
 *       radio: radio0                    # OpenWrt wifi-device / hostapd interface
 *       ssid: bench-ap                   # default: ap.ssid
 *       power: pdu1:3                    # the power switch and outlet that feed it
 *
 * A "password:" key is refused: the secret lives outside the file. */
#include "espbench/formats/lab.h"
#include "yaml_doc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct lctx {
    yaml_document_t *doc;
    const char *name;
    eb_error *err;
} lctx;

__attribute__((format(printf, 3, 4))) static int fail_at(lctx *x, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return eb_fail(x->err, EB_ECONFIG, "%s:%d:%d: %s", x->name, (int)n->start_mark.line + 1,
                   (int)n->start_mark.column + 1, msg);
}

static const char *scalar_of(lctx *x, yaml_node_t *n, const char *key)
{
    if (n->type != YAML_SCALAR_NODE) {
        fail_at(x, n, "'%s' must be a single value", key);
        return NULL;
    }
    return (const char *)n->data.scalar.value;
}

static int copy_str(lctx *x, yaml_node_t *n, const char *key, char *out, size_t cap)
{
    const char *v = scalar_of(x, n, key);
    if (!v)
        return EB_ECONFIG;
    if (strlen(v) >= cap)
        return fail_at(x, n, "'%s' is too long (at most %zu characters)", key, cap - 1);
    snprintf(out, cap, "%s", v);
    return 0;
}

static int get_port(lctx *x, yaml_node_t *n, const char *key, uint16_t *out)
{
    const char *v = scalar_of(x, n, key);
    if (!v)
        return EB_ECONFIG;
    char *end;
    long p = strtol(v, &end, 10);
    if (!*v || *end || p < 1 || p > 65535)
        return fail_at(x, n, "'%s' must be a port number 1..65535, not '%s'", key, v);
    *out = (uint16_t)p;
    return 0;
}

/* The drivers each kind has (adapters/instr_core.c holds their code; a
 * unit test checks both lists agree). */
static const struct {
    int kind;
    const char *name;
    const char *drivers[4];
} instr_kinds[] = {
    {EB_INSTR_ATTENUATOR, "attenuator", {"idf-serial", "minicircuits-http", "minicircuits-telnet", "weinschel-telnet"}},
    {EB_INSTR_AP, "ap", {"openwrt", "hostapd"}},
    {EB_INSTR_POWER, "power", {"apc", "tasmota"}},
};

const char *eb_instr_kind_name(int kind)
{
    for (size_t i = 0; i < sizeof instr_kinds / sizeof instr_kinds[0]; i++)
        if (instr_kinds[i].kind == kind)
            return instr_kinds[i].name;
    return "";
}

static void list_of(const char *const *names, int n, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < n && names[i] && used < cap; i++)
        used += (size_t)snprintf(out + used, cap - used, "%s%s", i ? ", " : "", names[i]);
}

static int instr_kind(lctx *x, yaml_node_t *v, eb_instr_spec *in)
{
    const char *s = scalar_of(x, v, "kind");
    if (!s)
        return EB_ECONFIG;
    for (size_t i = 0; i < sizeof instr_kinds / sizeof instr_kinds[0]; i++)
        if (!strcmp(s, instr_kinds[i].name)) {
            in->kind = instr_kinds[i].kind;
            return 0;
        }
    return fail_at(x, v, "unknown instrument kind '%s' (attenuator, ap, power)", s);
}

static int instr_driver(lctx *x, yaml_node_t *v, eb_instr_spec *in)
{
    for (size_t i = 0; i < sizeof instr_kinds / sizeof instr_kinds[0]; i++) {
        if (instr_kinds[i].kind != in->kind)
            continue;
        for (int d = 0; d < 4 && instr_kinds[i].drivers[d]; d++)
            if (!strcmp(in->driver, instr_kinds[i].drivers[d]))
                return 0;
        char names[160];
        list_of(instr_kinds[i].drivers, 4, names, sizeof names);
        return fail_at(x, v, "instrument '%s': no %s driver '%s' (%s)", in->name, instr_kinds[i].name, in->driver,
                       names);
    }
    return 0;
}

static int get_int(lctx *x, yaml_node_t *n, const char *key, int lo, int hi, int *out)
{
    const char *v = scalar_of(x, n, key);
    if (!v)
        return EB_ECONFIG;
    char *end;
    long k = strtol(v, &end, 10);
    if (!*v || *end || k < lo || k > hi)
        return fail_at(x, n, "'%s' must be a whole number %d..%d, not '%s'", key, lo, hi, v);
    *out = (int)k;
    return 0;
}

static void resolve_file(const char *file, const char *base_dir, char *out, size_t cap)
{
    if (file[0] == '/' || !base_dir)
        snprintf(out, cap, "%s", file);
    else
        snprintf(out, cap, "%.340s/%s", base_dir, file);
}

/* serves: a board name or a list of them */
static int instr_serves(lctx *x, yaml_node_t *v, eb_instr_spec *in)
{
    if (v->type == YAML_SCALAR_NODE)
        return copy_str(x, v, "serves", in->serves[in->n_serves++], sizeof in->serves[0]);
    if (v->type != YAML_SEQUENCE_NODE)
        return fail_at(x, v, "'serves' is a board name or a list of board names");
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
        if (in->n_serves == EB_INSTR_MAX_SERVED)
            return fail_at(x, v, "'serves' lists more than %d boards", EB_INSTR_MAX_SERVED);
        int rc = copy_str(x, yaml_document_get_node(x->doc, *it), "serves", in->serves[in->n_serves++],
                          sizeof in->serves[0]);
        if (rc)
            return rc;
    }
    return 0;
}

/* power: SWITCH:OUTLET */
static int instr_power(lctx *x, yaml_node_t *v, eb_instr_spec *in)
{
    char buf[48];
    int rc = copy_str(x, v, "power", buf, sizeof buf);
    if (rc)
        return rc;
    char *colon = strrchr(buf, ':'), *end = NULL;
    long outlet = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || colon == buf || !colon[1] || *end || outlet < 1 || outlet > 64)
        return fail_at(x, v, "'power' is SWITCH:OUTLET (a power instrument's name and an outlet 1..64), not '%s'",
                       buf);
    *colon = 0;
    snprintf(in->power, sizeof in->power, "%s", buf);
    in->outlet = (int)outlet;
    return 0;
}

static int instr_key(lctx *x, const char *key, yaml_node_t *k, yaml_node_t *v, eb_instr_spec *in,
                     const char *base_dir)
{
    if (!strcmp(key, "name"))
        return copy_str(x, v, key, in->name, sizeof in->name);
    if (!strcmp(key, "kind"))
        return instr_kind(x, v, in);
    if (!strcmp(key, "driver"))
        return copy_str(x, v, key, in->driver, sizeof in->driver);
    if (!strcmp(key, "address"))
        return copy_str(x, v, key, in->address, sizeof in->address);
    if (!strcmp(key, "user"))
        return copy_str(x, v, key, in->user, sizeof in->user);
    if (!strcmp(key, "password_env"))
        return copy_str(x, v, key, in->password_env, sizeof in->password_env);
    if (!strcmp(key, "password_file")) {
        char file[256];
        int rc = copy_str(x, v, key, file, sizeof file);
        if (!rc)
            resolve_file(file, base_dir, in->password_file, sizeof in->password_file);
        return rc;
    }
    if (!strcmp(key, "password"))
        return fail_at(x, k, "a password is never written in the lab file: use password_env: VAR or "
                       "password_file: FILE");
    if (!strcmp(key, "channel"))
        return get_int(x, v, key, 1, 8, &in->channel);
    if (!strcmp(key, "radio"))
        return copy_str(x, v, key, in->radio, sizeof in->radio);
    if (!strcmp(key, "ssid"))
        return copy_str(x, v, key, in->ssid, sizeof in->ssid);
    if (!strcmp(key, "power"))
        return instr_power(x, v, in);
    if (!strcmp(key, "serves"))
        return instr_serves(x, v, in);
    return fail_at(x, k, "unknown key '%s' in an instrument (name, kind, driver, address, user, password_env, "
                   "password_file, channel, radio, ssid, power, serves)", key);
}

static int parse_instrument(lctx *x, eb_lab *lab, yaml_node_t *map, const char *base_dir)
{
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(x, map, "each instrument must be a mapping (name, kind, driver, address, ...)");
    if (lab->n_instruments >= EB_LAB_MAX_INSTRUMENTS)
        return fail_at(x, map, "too many instruments (at most %d)", EB_LAB_MAX_INSTRUMENTS);
    eb_instr_spec *in = &lab->instruments[lab->n_instruments];
    memset(in, 0, sizeof *in);
    snprintf(in->at, sizeof in->at, "%.280s:%d:%d", x->name, (int)map->start_mark.line + 1,
             (int)map->start_mark.column + 1);
    yaml_node_t *driver_node = map;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, p->key), *v = yaml_document_get_node(x->doc, p->value);
        const char *key = k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
        int rc = instr_key(x, key, k, v, in, base_dir);
        if (rc)
            return rc;
        if (!strcmp(key, "driver"))
            driver_node = v;
    }
    if (!in->name[0])
        return fail_at(x, map, "instrument %d has no name", lab->n_instruments + 1);
    if (!in->kind)
        return fail_at(x, map, "instrument '%s' has no kind (attenuator, ap, power)", in->name);
    if (!in->driver[0])
        return fail_at(x, map, "instrument '%s' has no driver", in->name);
    int rc = instr_driver(x, driver_node, in);
    if (rc)
        return rc;
    if (!in->address[0])
        return fail_at(x, map, "instrument '%s' has no address", in->name);
    if (in->kind != EB_INSTR_ATTENUATOR && (in->n_serves || in->channel))
        return fail_at(x, map, "instrument '%s': serves and channel belong to an attenuator", in->name);
    if (in->kind != EB_INSTR_AP && (in->radio[0] || in->ssid[0] || in->power[0]))
        return fail_at(x, map, "instrument '%s': radio, ssid and power belong to an access point", in->name);
    for (int i = 0; i < lab->n_instruments; i++)
        if (!strcmp(lab->instruments[i].name, in->name))
            return fail_at(x, map, "two instruments are named '%s'", in->name);
    lab->n_instruments++;
    return 0;
}

/* After the whole file: an AP's power switch exists and is a switch; an
 * attenuator serves boards of the file, and a board has one attenuator. */
static int check_instruments(lctx *x, eb_lab *lab)
{
    for (int i = 0; i < lab->n_instruments; i++) {
        const eb_instr_spec *in = &lab->instruments[i];
        if (in->power[0]) {
            const eb_instr_spec *sw = eb_lab_instrument(lab, in->power);
            if (!sw || sw->kind != EB_INSTR_POWER)
                return eb_fail(x->err, EB_ECONFIG, "%s: access point '%s' is fed by '%s', which is not a power "
                               "instrument of this file", in->at, in->name, in->power);
        }
        for (int s = 0; s < in->n_serves; s++) {
            bool found = false;
            for (int b = 0; b < lab->n_boards && !found; b++)
                found = !strcmp(lab->boards[b].name, in->serves[s]);
            if (!found)
                return eb_fail(x->err, EB_ECONFIG, "%s: attenuator '%s' serves '%s', which is not a board of "
                               "this file", in->at, in->name, in->serves[s]);
            for (int j = 0; j < i; j++)
                for (int t = 0; t < lab->instruments[j].n_serves; t++)
                    if (!strcmp(lab->instruments[j].serves[t], in->serves[s]))
                        return eb_fail(x->err, EB_ECONFIG, "%s: board '%s' is behind two attenuators ('%s' and "
                                       "'%s'): give each board one", in->at, in->serves[s],
                                       lab->instruments[j].name, in->name);
        }
    }
    return 0;
}

const eb_instr_spec *eb_lab_instrument(const eb_lab *lab, const char *name)
{
    for (int i = 0; lab && i < lab->n_instruments; i++)
        if (!strcmp(lab->instruments[i].name, name))
            return &lab->instruments[i];
    return NULL;
}

const eb_instr_spec *eb_lab_attenuator_of(const eb_lab *lab, const char *board)
{
    const eb_instr_spec *all = NULL;
    for (int i = 0; lab && i < lab->n_instruments; i++) {
        const eb_instr_spec *in = &lab->instruments[i];
        if (in->kind != EB_INSTR_ATTENUATOR)
            continue;
        if (!in->n_serves && !all)
            all = in;
        for (int s = 0; s < in->n_serves; s++)
            if (!strcmp(in->serves[s], board))
                return in;
    }
    return all;
}

int eb_lab_access_points(const eb_lab *lab, const eb_instr_spec **out, int cap)
{
    int n = 0;
    for (int i = 0; lab && i < lab->n_instruments && n < cap; i++)
        if (lab->instruments[i].kind == EB_INSTR_AP)
            out[n++] = &lab->instruments[i];
    return n;
}

static int parse_ap(lctx *x, eb_lab *lab, yaml_node_t *map, const char *base_dir)
{
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(x, map, "'ap' must be a mapping (ssid, password_env or password_file)");
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, p->key), *v = yaml_document_get_node(x->doc, p->value);
        const char *key = k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
        int rc = 0;
        if (!strcmp(key, "ssid")) {
            rc = copy_str(x, v, key, lab->ssid, sizeof lab->ssid);
        } else if (!strcmp(key, "password_env")) {
            rc = copy_str(x, v, key, lab->password_env, sizeof lab->password_env);
            if (!rc) {
                snprintf(lab->password_source, sizeof lab->password_source, "env %s", lab->password_env);
                lab->password_line = (int)v->start_mark.line + 1;
                lab->password_col = (int)v->start_mark.column + 1;
            }
        } else if (!strcmp(key, "password_file")) {
            char file[256];
            rc = copy_str(x, v, key, file, sizeof file);
            if (!rc) { /* relative to the lab file */
                if (file[0] == '/' || !base_dir)
                    snprintf(lab->password_file, sizeof lab->password_file, "%s", file);
                else
                    snprintf(lab->password_file, sizeof lab->password_file, "%.340s/%s", base_dir, file);
                snprintf(lab->password_source, sizeof lab->password_source, "file %.290s", lab->password_file);
                lab->password_line = (int)v->start_mark.line + 1;
                lab->password_col = (int)v->start_mark.column + 1;
            }
        } else if (!strcmp(key, "password")) {
            return fail_at(x, k, "a password is never written in the lab file: use password_env: VAR "
                           "or password_file: FILE");
        } else {
            return fail_at(x, k, "unknown key 'ap.%s' (ssid, password_env, password_file)", key);
        }
        if (rc)
            return rc;
    }
    return 0;
}

/* A board's peer (board to board): a mapping of name, port, chip, tier, dialect. */
static int parse_peer(lctx *x, eb_run_board *b, yaml_node_t *map)
{
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(x, map, "'peer' must be a mapping (port, chip, tier, name, dialect)");
    eb_run_peer *p = &b->peer;
    for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < map->data.mapping.pairs.top; q++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, q->key), *v = yaml_document_get_node(x->doc, q->value);
        const char *key = k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
        int rc;
        if (!strcmp(key, "name"))
            rc = copy_str(x, v, "peer.name", p->name, sizeof p->name);
        else if (!strcmp(key, "port"))
            rc = copy_str(x, v, "peer.port", p->port, sizeof p->port);
        else if (!strcmp(key, "chip"))
            rc = copy_str(x, v, "peer.chip", p->chip, sizeof p->chip);
        else if (!strcmp(key, "tier"))
            rc = copy_str(x, v, "peer.tier", p->tier, sizeof p->tier);
        else if (!strcmp(key, "dialect"))
            rc = copy_str(x, v, "peer.dialect", p->dialect, sizeof p->dialect);
        else
            return fail_at(x, k, "unknown key 'peer.%s' (port, chip, tier, name, dialect)", key);
        if (rc)
            return rc;
    }
    if (!p->chip[0])
        snprintf(p->chip, sizeof p->chip, "%s", b->chip[0] ? b->chip : "?");
    return 0;
}

static int parse_board(lctx *x, eb_lab *lab, yaml_node_t *map, int index)
{
    if (map->type != YAML_MAPPING_NODE)
        return fail_at(x, map, "each board must be a mapping (name, chip, port, iperf_port)");
    if (lab->n_boards >= EB_LAB_MAX_BOARDS)
        return fail_at(x, map, "too many boards (at most %d)", EB_LAB_MAX_BOARDS);
    eb_run_board *b = &lab->boards[lab->n_boards];
    memset(b, 0, sizeof *b);
    yaml_node_t *peer = NULL, *hosted_key = NULL;
    b->iperf_port = (uint16_t)(5001 + index);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(x->doc, p->key), *v = yaml_document_get_node(x->doc, p->value);
        const char *key = k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
        int rc;
        if (!strcmp(key, "name"))
            rc = copy_str(x, v, key, b->name, sizeof b->name);
        else if (!strcmp(key, "chip"))
            rc = copy_str(x, v, key, b->chip, sizeof b->chip);
        else if (!strcmp(key, "port"))
            rc = copy_str(x, v, key, b->port, sizeof b->port);
        else if (!strcmp(key, "iperf_port"))
            rc = get_port(x, v, key, &b->iperf_port);
        else if (!strcmp(key, "pc_address"))
            rc = copy_str(x, v, key, b->pc_ip, sizeof b->pc_ip);
        else if (!strcmp(key, "dialect"))
            rc = copy_str(x, v, key, b->dialect, sizeof b->dialect);
        else if (!strcmp(key, "coprocessor")) {
            rc = copy_str(x, v, key, b->coprocessor, sizeof b->coprocessor);
            snprintf(b->hosted_at, sizeof b->hosted_at, "%s:%d:%d", x->name, (int)v->start_mark.line + 1,
                     (int)v->start_mark.column + 1);
        } else if (!strcmp(key, "transport"))
            rc = copy_str(x, v, key, b->transport, sizeof b->transport), hosted_key = k;
        else if (!strcmp(key, "coprocessor_port"))
            rc = copy_str(x, v, key, b->coprocessor_port, sizeof b->coprocessor_port), hosted_key = k;
        else if (!strcmp(key, "peer"))
            peer = v, rc = 0; /* read after the board's own chip is known */
        else if (!strcmp(key, "far_end"))
            rc = copy_str(x, v, key, b->far_end, sizeof b->far_end);
        else
            return fail_at(x, k, "unknown key '%s' in a board (name, chip, port, iperf_port, pc_address, dialect, "
                           "coprocessor, transport, coprocessor_port, peer, far_end)", key);
        if (rc)
            return rc;
    }
    if (!b->name[0])
        return fail_at(x, map, "board %d has no name", index + 1);
    if (!b->chip[0])
        return fail_at(x, map, "board '%s' has no chip", b->name);
    if (hosted_key && !b->coprocessor[0])
        return fail_at(x, hosted_key, "board '%s': %s belongs to an ESP-Hosted pair: add coprocessor: CHIP", b->name,
                       (const char *)hosted_key->data.scalar.value);
    if (peer) {
        int rc = parse_peer(x, b, peer);
        if (rc)
            return rc;
        for (int i = 0; i < lab->n_boards; i++)
            if (lab->boards[i].port[0] && !strcmp(lab->boards[i].port, b->peer.port))
                return fail_at(x, peer, "the peer's port %s is board '%s': a peer is a board of its own, not "
                               "one of the lab's boards", b->peer.port, lab->boards[i].name);
    }
    for (int i = 0; i < lab->n_boards; i++) {
        if (!strcmp(lab->boards[i].name, b->name))
            return fail_at(x, map, "two boards are named '%s'", b->name);
        if (lab->boards[i].iperf_port == b->iperf_port)
            return fail_at(x, map, "boards '%s' and '%s' share iperf_port %u: each board needs its own",
                           lab->boards[i].name, b->name, b->iperf_port);
    }
    lab->n_boards++;
    return 0;
}

int eb_lab_parse(eb_lab *lab, const char *text, size_t len, const char *name, const char *base_dir,
                 eb_error *err)
{
    memset(lab, 0, sizeof *lab);
    snprintf(lab->file, sizeof lab->file, "%s", name);
    yaml_document_t doc;
    int rc = eb_yaml_load(&doc, text, len, name, err);
    if (rc)
        return rc;
    lctx x = {&doc, name, err};
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root || root->type != YAML_MAPPING_NODE) {
        rc = eb_fail(err, EB_ECONFIG, "%s: a lab file is a mapping with ap, pc and boards", name);
        goto out;
    }
    yaml_node_t *boards = NULL, *instruments = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top && !rc; p++) {
        yaml_node_t *k = yaml_document_get_node(&doc, p->key), *v = yaml_document_get_node(&doc, p->value);
        const char *key = k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
        if (!strcmp(key, "ap")) {
            rc = parse_ap(&x, lab, v, base_dir);
        } else if (!strcmp(key, "pc")) {
            if (v->type != YAML_MAPPING_NODE) {
                rc = fail_at(&x, v, "'pc' must be a mapping (address)");
                break;
            }
            for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top && !rc; q++) {
                yaml_node_t *qk = yaml_document_get_node(&doc, q->key), *qv = yaml_document_get_node(&doc, q->value);
                const char *qkey = qk->type == YAML_SCALAR_NODE ? (const char *)qk->data.scalar.value : "";
                if (!strcmp(qkey, "address"))
                    rc = copy_str(&x, qv, "pc.address", lab->pc_ip, sizeof lab->pc_ip);
                else
                    rc = fail_at(&x, qk, "unknown key 'pc.%s' (address)", qkey);
            }
        } else if (!strcmp(key, "boards")) {
            boards = v;
        } else if (!strcmp(key, "instruments")) {
            instruments = v;
            if (v->type != YAML_SEQUENCE_NODE)
                rc = fail_at(&x, v, "'instruments' is a list of instruments (name, kind, driver, address, ...)");
        } else {
            rc = fail_at(&x, k, "unknown key '%s' (ap, pc, boards, instruments)", key);
        }
    }
    if (rc)
        goto out;
    if (!boards || boards->type != YAML_SEQUENCE_NODE) {
        rc = eb_fail(err, EB_ECONFIG, "%s: no 'boards:' list", name);
        goto out;
    }
    int i = 0;
    for (yaml_node_item_t *it = boards->data.sequence.items.start; it < boards->data.sequence.items.top && !rc;
         it++, i++)
        rc = parse_board(&x, lab, yaml_document_get_node(&doc, *it), i);
    if (!rc && lab->n_boards == 0)
        rc = eb_fail(err, EB_ECONFIG, "%s: the boards list is empty", name);
    for (yaml_node_item_t *it = instruments ? instruments->data.sequence.items.start : NULL;
         !rc && it && it < instruments->data.sequence.items.top; it++)
        rc = parse_instrument(&x, lab, yaml_document_get_node(&doc, *it), base_dir);
    if (!rc)
        rc = check_instruments(&x, lab);
    for (int b = 0; !rc && b < lab->n_boards; b++)
        if (!lab->boards[b].pc_ip[0])
            snprintf(lab->boards[b].pc_ip, sizeof lab->boards[b].pc_ip, "%s", lab->pc_ip);
out:
    yaml_document_delete(&doc);
    if (rc)
        eb_lab_free(lab);
    return rc;
}

void eb_lab_free(eb_lab *lab)
{
    memset(lab->password, 0, sizeof lab->password);
    lab->has_password = false;
}
