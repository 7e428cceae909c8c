/* espbench run's flags: the help text, a table of the flags and how each
 * is read into the request (eb_run_request), the options (eb_run_opts) or
 * what the command keeps for after (run_args). */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cmd_run.h"
#include "commands.h"
#include "espbench/adapters/stub_files.h"
#include "espbench/formats/dims.h"
#include "espbench/formats/lab.h"
#include "espbench/formats/ping_parse.h"
#include "espbench/formats/provenance.h"

const char cmd_run_usage[] =
    "usage: espbench run --chip CHIP [--tier T[,T...]|all] (--port URL | --sim | --qemu | --lab FILE)\n"
    "       [options]\n"
    "\n"
    "Flashes (stock firmware) or switches (espbench firmware) each buffer tier, connects the\n"
    "board to the AP, and measures TCP/UDP TX/RX throughput with iperf2 on this PC.\n"
    "\n"
    "boards:\n"
    "  --chip CHIP           profile chip (esp32, esp32s3, ...); default from the lab file\n"
    "  --port URL            the board's console: /dev/ttyUSB0, rfc2217://host:port, socket://host:port\n"
    "  --sim                 start a virtual board (espbench-vboard) for the chip and run against it\n"
    "  --sim-noise PCT       throughput noise of the virtual board (default 0: off)\n"
    "  --sim-fault SPEC      a vboard fault (docs/vboard.md), repeatable\n"
    "  --sim-project NAME    firmware of the virtual board: espbench (default), or another\n"
    "                        project name for Espressif's stock iperf example\n"
    "  --sim-idf VERSION     its ESP-IDF version (default v5.3): picks the stock dialect\n"
    "  --sim-image FILE      the app image the virtual board is flashed with (e.g. a build\n"
    "                        of `espbench build`: BUILD-DIR/espbench.bin)\n"
    "  --qemu                an emulated ESP32-C3 (QEMU, the chip's ROM, Ethernet for Wi-Fi):\n"
    "                        flashed through its ROM loader, figures labelled \"emulator\"\n"
    "                        (docs/emulator.md)\n"
    "  --qemu-bin PATH       QEMU (default $ESPBENCH_QEMU, else qemu-system-riscv32 on PATH)\n"
    "  --qemu-image DIR      its firmware: an ESP-IDF build folder, or bootloader.bin,\n"
    "                        partition-table.bin and espbench.bin (default $ESPBENCH_QEMU_IMAGE)\n"
    "  --qemu-image TIER=DIR a tier's own image (its build-time settings), flashed through the\n"
    "                        ROM before the tier's tests; repeatable\n"
    "  --idf PATH[,PATH...]  build the firmware with each ESP-IDF checkout (cached, as\n"
    "                        `espbench build`) and measure the matrix with each (a board gets\n"
    "                        each build flashed); one run folder per IDF in --out, merged\n"
    "                        into --out/results.json\n"
    "  --idf-cache DIR       the build cache for --idf (default: espbench's cache folder)\n"
    "  --sim-model           the virtual board's figures all from the tier model (docs/model.md);\n"
    "                        default: published tiers replay the docs' figures, others the model\n"
    "  --sim-rssi DBM, --sim-phy MBPS, --sim-rtt MS, --sim-loss PCT\n"
    "                        link conditions of the virtual board (the model applies)\n"
    "  --lab FILE            lab file: AP, PC address, boards (run concurrently); see docs/run.md\n"
    "  --aggregate           the lab's boards start each test together into the AP; the report\n"
    "                        sums them (every board needs the same tiers and tests)\n"
    "  --coprocessor CHIP    ESP-Hosted: --chip is the host, CHIP its Wi-Fi co-processor (a pair\n"
    "                        of profiles/hosted/); adds the raw_tx/raw_rx transport tests\n"
    "  --transport BUS       the pair's transport: sdio, spi, spi-hd, uart (needed when the\n"
    "                        pair exists over more than one)\n"
    "  --coprocessor-port URL  the co-processor's own port, for flashing its firmware\n"
    "                        (with --lab: a board's coprocessor:, transport:, coprocessor_port:)\n"
    "  --peer-port URL       board to board: a second board at the other end of the data path\n"
    "                        (the board sends to it in *_tx tests, receives from it in *_rx)\n"
    "  --peer-chip CHIP      the peer's chip (default --chip); with --sim a second virtual board\n"
    "  --peer-tier T         the peer's tier for every test (default: the board's tier)\n"
    "  --far-end URL         the far end of every board's tests, when not this PC: an end\n"
    "                        that takes the URL (docs/architecture.md \"Adding an end\")\n"
    "  --shard I/N           run only slice I of N of the chip x tier x test matrix\n"
    "  --parallel-count N --parallel-index I  the same as --shard I/N, in\n"
    "                        pytest-embedded's spelling (I is 1-based)\n"
    "  --performance-lines   after the run, print ESP-IDF CI's lines per cell:\n"
    "                        [Performance][tcp_tx_throughput]: 74.61 Mbps (peak 1-s)\n"
    "  --metrics FILE        after the run, write the figures as OpenMetrics text\n"
    "  --dialect NAME        console dialect instead of detecting it\n"
    "  --pattern FILE|NAME   the board runs a firmware of your own, described by a pattern file\n"
    "                        with a commands: block (espbench-patterns(5)); runs that protocol's tests\n"
    "  --baud N              console baud rate (default 115200)\n"
    "  --stub auto|off|FILE  flasher stub for tier images the run flashes (default auto; flash(1))\n"
    "network:\n"
    "  --ssid SSID           the AP (default: lab file, or espbench-sim with --sim)\n"
    "  --password-env VAR    environment variable holding the Wi-Fi password\n"
    "                        (default ESPBENCH_WIFI_PASSWORD; never pass a password as a flag)\n"
    "  --pc-address IP       this PC's address as the board sees it\n"
    "  --iperf-port N        iperf port (default 5001)\n"
    "tests (the dimensions' flags: below):\n"
    "  --tests LIST          subset of tcp_tx,tcp_rx,udp_tx,udp_rx (default all four), and\n"
    "                        latency: round trips PC-board (UDP echo where the firmware serves\n"
    "                        it, else the system's ping)\n"
    "                        with --coprocessor also raw_tx,raw_rx (default all six)\n"
    "  --latency-count N     probes per latency test (default 20, one every 0.2 s)\n"
    "  --latency-method M    udp-echo or icmp (default: by the firmware)\n"
    "  --latency-under-load  also probe round trips while each throughput test runs\n"
    "                        (recorded as a latency set under that test: idle vs loaded)\n"
    "  --duration S          seconds per test (default 10)\n"
    "  --interval S          report interval (default 1)\n"
    "  --warmup S            seconds left out of the statistics (default one interval)\n"
    "  --ap NAME             the lab's access point to use: powered on, every other AP off\n"
    "  --ap-set SETTINGS     the AP's band=2g|5g,channel=N,bandwidth=MHZ,txpower=DBM for the run\n"
    "  --settle SECONDS      after an attenuator change, before the board's RSSI is read (default 2)\n"
    "  --retries N           retries of a test after a reboot or failure (default 2)\n"
    "  --iperf PROGRAM       the PC's iperf2 (default $ESPBENCH_IPERF, else iperf in PATH)\n"
    "  --env SETTING         where the board ran: shield-box, air, cable or free text\n"
    "                        (recorded in every entry's provenance)\n"
    "results:\n"
    "  --out DIR             results.json, results.csv, console and iperf logs\n"
    "                        (default espbench-CHIP-YYYYMMDD-HHMMSS)\n"
    "  --resume              continue the run in --out DIR, skipping finished tests\n"
    "firmware per tier (docs/idf-builds.md):\n"
    "  --manifest FILE       firmware manifest with each tier's image: stock firmware flashes\n"
    "                        every tier's; the espbench firmware a tier's whose build-time\n"
    "                        settings differ from the image on the board\n"
    "  --firmware NAME       firmware name in the manifest (default iperf-example for stock\n"
    "                        firmware, espbench for the espbench firmware); given, the first\n"
    "                        tier's image is flashed before the console opens (empty flash)\n"
    "\n"
    "exit: 0 all tests done; 2 usage/config; 3 device (board or lab instrument), network or\n"
    "iperf error (finished results kept); 4 interrupted (results kept; continue with --resume).\n";

/* ------------------------------------------------------------ arguments */

/* How a flag is read: a text into the request or the options, a switch,
 * a number with its range, or by a case of its own (parse_special). */
enum { RQ_TEXT, O_TEXT, RQ_ON, O_ON, O_DOUBLE, O_INT, SPECIAL };

typedef struct run_flag {
    const char *name;
    int how;
    size_t off;       /* in eb_run_request or eb_run_opts */
    double lo, hi;    /* O_DOUBLE: lo; O_INT: lo..hi */
} run_flag;

#define RQT(n, f) {n, RQ_TEXT, offsetof(eb_run_request, f), 0, 0}
#define RQB(n, f) {n, RQ_ON, offsetof(eb_run_request, f), 0, 0}
#define OT(n, f) {n, O_TEXT, offsetof(eb_run_opts, f), 0, 0}
#define OB(n, f) {n, O_ON, offsetof(eb_run_opts, f), 0, 0}
#define OD(n, f, lo) {n, O_DOUBLE, offsetof(eb_run_opts, f), lo, 0}
#define OI(n, f, lo, hi) {n, O_INT, offsetof(eb_run_opts, f), lo, hi}
#define SP(n) {n, SPECIAL, 0, 0, 0}

static const run_flag flags[] = {
    RQT("chip", chip), RQT("port", port), RQB("sim", sim), RQT("lab", lab_file), RQT("dialect", dialect),
    RQT("ssid", ssid), RQT("password-env", password_env), RQT("pc-address", pc_address), RQT("out", out_dir),
    RQT("sim-project", sim_project), RQT("sim-idf", sim_idf), RQT("sim-image", sim_image),
    RQB("sim-model", sim_model), RQB("qemu", qemu), RQT("qemu-bin", qemu_bin), SP("qemu-image"),
    RQT("coprocessor", coprocessor), RQT("transport", transport),
    RQT("coprocessor-port", coprocessor_port), RQT("peer-port", peer_port), RQT("peer-chip", peer_chip),
    RQT("peer-tier", peer_tier), RQT("far-end", far_end), OT("iperf", iperf), OT("ap", ap_name), OT("ap-set", ap_set),
    OT("manifest", manifest), OT("firmware", firmware), OT("stub", stub), OB("resume", resume),
    OB("aggregate", aggregate), OD("duration", duration_s, 1), OD("interval", interval_s, 0.1),
    OD("warmup", warmup_s, 0), OD("udp-rate", udp_rate_mbps, 0.001), OD("settle", settle_s, 0.01), OI("repeat", repeat, 1, 1000),
    OI("retries", retries, 0, 100), OI("latency-count", latency_count, 1, EB_PING_MAX_REPLIES),
    OB("latency-under-load", latency_under_load),
    SP("tier"), SP("tiers"), SP("sim-noise"), SP("sim-fault"), SP("shard"), SP("parallel-count"),
    SP("parallel-index"), SP("performance-lines"), SP("metrics"), SP("password"), SP("iperf-port"),
    SP("tests"), SP("idf"), SP("idf-cache"), SP("env"), SP("sim-rssi"), SP("sim-phy"), SP("sim-rtt"),
    SP("sim-loss"), SP("sweep"), SP("latency-method"), SP("pattern"), SP("baud"),
};
#define N_FLAGS ((int)(sizeof flags / sizeof flags[0]))

static int add_tiers(eb_run_opts *o, char *list)
{
    size_t n = strlen(list);
    if (!n || list[0] == ',' || list[n - 1] == ',' || strstr(list, ",,"))
        return cli_usage_error("run", "--tier '%s': an empty tier name (tiers: see 'espbench profiles show CHIP')",
                               list);
    for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->n_tiers >= EB_RUN_MAX_TIERS)
            return cli_usage_error("run", "too many tiers (at most %d)", EB_RUN_MAX_TIERS);
        o->tiers[o->n_tiers++] = t;
    }
    return 0;
}

static int parse_tests(const char *v, unsigned *mask)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    *mask = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int test = eb_run_test_from_name(t);
        static const char *const names[] = {"tcp_tx", "tcp_rx", "udp_tx", "udp_rx", "latency", "raw_tx", "raw_rx"};
        char hint[64];
        if (test < 0)
            return cli_usage_error("run", "unknown test '%s'%s (tcp_tx, tcp_rx, udp_tx, udp_rx, latency, raw_tx, raw_rx)",
                                   t, cli_suggest(t, names, 7, hint, sizeof hint));
        *mask |= 1u << test;
    }
    return 0;
}

static int parse_int(const char *opt, const char *v, long lo, long hi, long *out)
{
    return cli_parse_long("run", opt, v, lo, hi, out);
}

/* --qemu-image DIR (every tier's image) or TIER=DIR (a tier's own): a tier
 * name has no '/', so a path holding '=' is still a path. */
static int parse_qemu_image(const char *v, eb_run_request *rq)
{
    const char *eq = strchr(v, '=');
    if (!eq || memchr(v, '/', (size_t)(eq - v))) {
        if (rq->qemu_image)
            return cli_usage_error("run", "--qemu-image DIR given twice ('%s', '%s'): one image for every tier; "
                                   "a tier's own is --qemu-image TIER=DIR", rq->qemu_image, v);
        rq->qemu_image = v;
        return 0;
    }
    if (eq == v || !eq[1])
        return cli_usage_error("run", "--qemu-image '%s': expected TIER=DIR (a tier's own image) or DIR", v);
    for (int i = 0; i < rq->n_qemu_tier_images; i++) {
        const char *o = rq->qemu_tier_images[i];
        if (!strncmp(o, v, (size_t)(eq - v) + 1))
            return cli_usage_error("run", "--qemu-image: tier '%.*s' given two images ('%s', '%s')", (int)(eq - v),
                                   v, o, v);
    }
    if (rq->n_qemu_tier_images >= EB_RUN_MAX_TIERS)
        return cli_usage_error("run", "at most %d --qemu-image TIER=DIR", EB_RUN_MAX_TIERS);
    rq->qemu_tier_images[rq->n_qemu_tier_images++] = v;
    return 0;
}

/* A flag read by a case of its own; 0 or the exit code. */
static int parse_special(const char *name, eb_run_request *rq, eb_run_opts *o, run_args *args)
{
    long v = 0;
    int rc = 0;
    eb_error e = {0};
    char why[160];
    if (!strcmp(name, "tier") || !strcmp(name, "tiers"))
        return add_tiers(o, optarg);
    if (!strcmp(name, "tests"))
        return parse_tests(optarg, &o->tests);
    if (!strcmp(name, "qemu-image"))
        return parse_qemu_image(optarg, rq);
    if (!strcmp(name, "sim-noise"))
        return cli_parse_double("run", "--sim-noise", optarg, 0, &rq->sim_noise_pct);
    if (!strcmp(name, "sim-fault")) {
        if (rq->n_sim_faults >= EB_RUN_MAX_SIM_FAULTS)
            return cli_usage_error("run", "at most %d --sim-fault", EB_RUN_MAX_SIM_FAULTS);
        rq->sim_faults[rq->n_sim_faults++] = optarg;
    } else if (!strcmp(name, "shard")) {
        if (eb_shard_parse(optarg, &o->shard_index, &o->shard_total, &e))
            return cli_usage_error("run", "--shard: %s", e.msg);
    } else if (!strcmp(name, "password")) {
        return cli_usage_error("run", "the Wi-Fi password is never a flag (it would show in ps and shell "
                               "history): put it in an environment variable (--password-env VAR, default "
                               "%s) or in a file named by the lab file", EB_LAB_DEFAULT_PASSWORD_ENV);
    } else if (!strcmp(name, "iperf-port")) {
        if (!(rc = parse_int("--iperf-port", optarg, 1, 65535, &v)))
            rq->iperf_port = (uint16_t)v;
    } else if (!strcmp(name, "baud")) {
        if (!(rc = parse_int("--baud", optarg, 300, 16000000, &v)))
            o->baud = (uint32_t)v;
    } else if (!strcmp(name, "env")) {
        if (eb_prov_check_env(optarg, why, sizeof why) != 0)
            return cli_usage_error("run", "--env: %s", why);
        o->env = optarg;
    } else if (!strncmp(name, "sim-", 4)) { /* the virtual board's link: rssi, phy, rtt, loss */
        if (!rq->sim_link_set)
            eb_model_link_default(&rq->sim_link);
        rq->sim_link_set = true;
        if (eb_model_link_set(&rq->sim_link, name + 4, optarg, &e))
            return cli_usage_error("run", "--%s: %s", name, e.msg);
    } else if (!strcmp(name, "sweep")) {
        if (o->sweep.n > 0)
            return cli_usage_error("run", "--sweep given twice: one variable per run");
        if (eb_sweep_parse(optarg, &o->sweep, &e))
            return cli_usage_error("run", "%s", e.msg);
    } else if (!strcmp(name, "latency-method")) {
        if (strcmp(optarg, "udp-echo") && strcmp(optarg, "icmp"))
            return cli_usage_error("run", "--latency-method '%s': expected udp-echo or icmp", optarg);
        o->latency_method = optarg;
    } else {
        /* kept for after the options: --pattern, --parallel-*, --performance-lines, --metrics, --idf* */
        const char **keep = !strcmp(name, "pattern")          ? &args->pattern
                            : !strcmp(name, "parallel-count") ? &args->parallel_count
                            : !strcmp(name, "parallel-index") ? &args->parallel_index
                            : !strcmp(name, "metrics")        ? &args->metrics
                            : !strcmp(name, "idf-cache")      ? &args->idf_cache
                                                              : NULL;
        if (keep)
            *keep = optarg;
        else if (!strcmp(name, "idf"))
            args->idf = optarg;
        else
            args->perf_lines = true;
    }
    return rc;
}

/* A flag of a dimension row (dims.h: the lists, EB_DIM_LIST): its list
 * of values, crossed with the tiers; the number that goes with a row's
 * value (its extra_name flag). */
static int parse_row(int d, eb_run_opts *o)
{
    eb_error re;
    return eb_radio_parse(&o->radio, d, optarg, &re) ? cli_usage_error("run", "%s", re.msg) : 0;
}

static int parse_row_extra(int d, eb_run_opts *o)
{
    const eb_dim_desc *r = eb_dim(d);
    char opt[40];
    snprintf(opt, sizeof opt, "--%s", r->extra_name);
    long v;
    int rc = parse_int(opt, optarg, r->extra_lo, r->extra_hi, &v);
    if (!rc)
        o->radio.extra[d] = (int)v;
    return rc;
}

/* The rows' own lines: each row's flag, its value and its help (dims.c). */
void cmd_run_usage_rows(FILE *out)
{
    char rows[4096];
    eb_dims_help(rows, sizeof rows);
    if (rows[0])
        fprintf(out, "\ndimensions (lists cross with the tiers, each radio point one association; the radio's:\n"
                     "the espbench firmware, docs/dimensions.md; --sweep VAR=... takes a list row too):\n%s", rows);
}

/* One option into the request or the options; 0 or the exit code. */
static int parse_opt(int c, eb_run_request *rq, eb_run_opts *o, run_args *args)
{
    if (c >= 256 + N_FLAGS && c < 256 + N_FLAGS + eb_dim_count())
        return parse_row(c - 256 - N_FLAGS, o);
    if (c >= 256 + N_FLAGS + EB_DIM_MAX && c < 256 + N_FLAGS + EB_DIM_MAX + eb_dim_count())
        return parse_row_extra(c - 256 - N_FLAGS - EB_DIM_MAX, o);
    if (c < 256 || c >= 256 + N_FLAGS)
        return cli_option_error("run");
    const run_flag *f = &flags[c - 256];
    char opt[40];
    snprintf(opt, sizeof opt, "--%s", f->name);
    char *base = f->how == RQ_TEXT || f->how == RQ_ON ? (char *)rq : (char *)o;
    long v;
    int rc;
    switch (f->how) {
    case RQ_TEXT: case O_TEXT: *(const char **)(base + f->off) = optarg; return 0;
    case RQ_ON: case O_ON: *(bool *)(base + f->off) = true; return 0;
    case O_DOUBLE: return cli_parse_double("run", opt, optarg, f->lo, (double *)(base + f->off));
    case O_INT:
        if (!(rc = parse_int(opt, optarg, (long)f->lo, (long)f->hi, &v)))
            *(int *)(base + f->off) = (int)v;
        return rc;
    default: return parse_special(f->name, rq, o, args);
    }
}

/* The options read, with every long option of the flag table. */
int run_read_options(int argc, char **argv, eb_run_request *rq, eb_run_opts *o, run_args *args)
{
    static struct option long_opts[N_FLAGS + 2 * EB_DIM_MAX + 1];
    int n = 0;
    for (int i = 0; i < N_FLAGS; i++)
        long_opts[n++] = (struct option){flags[i].name, flags[i].how == RQ_ON || flags[i].how == O_ON ||
                                                                  !strcmp(flags[i].name, "performance-lines")
                                                              ? no_argument
                                                              : required_argument,
                                         0, 256 + i};
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++) /* the rows' own flags */
        if (eb_dim(d)->flags & EB_DIM_LIST)
            long_opts[n++] = (struct option){eb_dim_flag(eb_dim(d)), required_argument, 0, 256 + N_FLAGS + d};
    for (int d = EB_DIM_NONE + 1; d < eb_dim_count(); d++) /* the numbers that go with a row's value */
        if (eb_dim(d)->extra_name)
            long_opts[n++] = (struct option){eb_dim(d)->extra_name, required_argument, 0, 256 + N_FLAGS + EB_DIM_MAX + d};
    long_opts[n] = (struct option){0, 0, 0, 0};
    memset(args, 0, sizeof *args);
    optind = 1;
    opterr = 0;
    int rc, c;
    while ((c = cli_getopt(argc, argv, ":", long_opts)) != -1)
        if ((rc = parse_opt(c, rq, o, args)) != 0)
            return rc;
    if (optind < argc)
        return cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
    if ((rc = cli_check_secret_env("run", "--password-env", rq->password_env)) != 0)
        return rc;
    eb_error e = {0}; /* the shard once every option is read, so the order of the flags does not matter */
    if (eb_run_parallel_shard(o, args->parallel_count, args->parallel_index, &e))
        return cli_usage_error("run", "%s", e.msg);
    if (eb_stub_mode_check(o->stub, NULL, &e) != EB_OK) /* a bad --stub FILE: before any board is touched */
        return cli_error(&e);
    return 0;
}
