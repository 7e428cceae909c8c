/* The far end on a lab server over SSH: iperf2 (and ping) on a remote Linux
 * host — a wired machine of the lab's own, as the server of ChromiumOS's
 * network_WiFi_Perf is. It takes a board whose far end is
 *
 *     ssh://[USER@]HOST[:PORT][/PATH/OF/IPERF][?config=FILE]
 *
 * (run --far-end): the OpenSSH client logs in with a key or an agent only,
 * FILE is its -F config (key, known hosts, jump host), PATH the host's
 * iperf2 (default: iperf on the host's PATH). Its programs run through the
 * PC side over SSH (adapters/pc_ssh.c: the deadlines, the remote iperf2
 * stopped on every way out); its tests are the PC end's, run there
 * (run_test.c, run_latency.c through run_far_pc). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "espbench/base/str.h"
#include "run_internal.h"

#define SCHEME "ssh://"

bool run_end_ssh_wants(const eb_run_board *b)
{
    return !strncmp(b->far_end, SCHEME, strlen(SCHEME));
}

/* The URL's parts: ssh's destination (scheme and authority: OpenSSH takes
 * ssh:// URIs), the iperf2 path, the config file. */
typedef struct ssh_url {
    char dest[256], iperf[256], config[512];
} ssh_url;

static int parse_url(const char *url, ssh_url *u, eb_error *err)
{
    memset(u, 0, sizeof *u);
    const char *auth = url + strlen(SCHEME);
    size_t an = strcspn(auth, "/?");
    const char *path = auth + an, *query = strchr(path, '?');
    size_t pn = query ? (size_t)(query - path) : strlen(path);
    if (!an || an + strlen(SCHEME) >= sizeof u->dest || pn >= sizeof u->iperf)
        return eb_fail(err, EB_ECONFIG, "--far-end '%s': not ssh://[USER@]HOST[:PORT][/PATH/OF/IPERF][?config=FILE]",
                       url);
    snprintf(u->dest, sizeof u->dest, "%.*s", (int)(strlen(SCHEME) + an), url);
    snprintf(u->iperf, sizeof u->iperf, "%.*s", pn ? (int)pn : 5, pn ? path : "iperf");
    if (query && strncmp(query + 1, "config=", 7))
        return eb_fail(err, EB_ECONFIG, "--far-end '%s': unknown setting '%s' (config=FILE)", url, query + 1);
    if (query && eb_strlcpy(u->config, query + 8, sizeof u->config) >= sizeof u->config)
        return eb_fail(err, EB_ECONFIG, "--far-end '%s': config path too long", url);
    return 0;
}

/* Its own PC side, and the host's iperf2 (probed: reached, logged in,
 * iperf2 there) before the board's first test. */
static int ssh_open(board_ctx *end, eb_error *err)
{
    ssh_url u;
    int rc = parse_url(end->b->far_end, &u, err);
    eb_pc_ssh_opts so = {.dest = u.dest, .iperf = u.iperf, .config = u.config[0] ? u.config : NULL};
    if (!rc)
        rc = eb_pc_ssh_open(&end->pc, &so, err);
    eb_iperf_version v;
    if (!rc)
        rc = end->pc->ops->iperf_probe(end->pc, u.iperf, &v, err);
    if (rc)
        return eb_error_kind(err, EB_KIND_FINAL), rc;
    snprintf(end->prov.seen.pc_iperf_version, sizeof end->prov.seen.pc_iperf_version, "%s", v.text);
    end->label = "SSH host";
    return 0;
}

static void ssh_close(board_ctx *end)
{
    eb_pc_free(end->pc);
    end->pc = NULL;
}

/* Every result of the board names the host's iperf2. */
static void ssh_stamp(board_ctx *end, const eb_run_item *it, run_result *r)
{
    (void)it;
    if (r->prov)
        snprintf(r->prov->pc_iperf_version, sizeof r->prov->pc_iperf_version, "%s", end->prov.seen.pc_iperf_version);
}

/* iperf2 takes every iperf option a row names (iperf(1)), as the PC's. */
static const run_end_decl ssh_decl = {.sets = EB_DIM_IPERF};
static const run_end_tests ssh_tests = {.throughput = run_test, .round_trips = run_latency_test};

const run_end_ops run_end_ssh = {
    .name = "ssh",
    .decl = &ssh_decl,
    .open = ssh_open,
    .prepare = run_dims_apply,
    .config_set = run_iperf_set,
    .close = ssh_close,
    .stamp = ssh_stamp,
    .tests = &ssh_tests,
};
