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
 *       peer:                            # optional: board to board, no PC in the data path
 *         port: /dev/ttyUSB1             # the second board (not needed with --sim)
 *         chip: esp32c3                  # default: the board's chip
 *         tier: iperf                    # default: the board's tier, test by test
 *         name: c3-b                     # default: <board>-peer
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
        else
            return fail_at(x, k, "unknown key '%s' in a board (name, chip, port, iperf_port, pc_address, dialect, "
                           "coprocessor, transport, coprocessor_port, peer)", key);
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
    yaml_node_t *boards = NULL;
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
        } else {
            rc = fail_at(&x, k, "unknown key '%s' (ap, pc, boards)", key);
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
