/* espbench run: flags, progress display and the summary table. The boards
 * (lab file, --sim, password, output folder) are eb_run_resolve()'s, the
 * work is eb_run()'s (src/lib/jobs/run_*.c). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "espbench/jobs/run_idf.h"
#include "espbench/adapters/stub_files.h"
#include "espbench/adapters/iperf_proc.h"
#include "espbench/formats/lab.h"
#include "espbench/formats/ping_parse.h"
#include "espbench/formats/pattern.h"
#include "espbench/formats/profile.h"
#include "espbench/formats/provenance.h"
#include "espbench/formats/dims.h"
#include "espbench/jobs/run.h"
#include "espbench/adapters/profile_dirs.h"
#include "espbench/adapters/results_file.h"
#include "espbench/base/fs.h"
#include "espbench/formats/report.h"

const char cmd_run_usage[] =
    "usage: espbench run --chip CHIP [--tier T[,T...]|all] (--port URL | --sim | --lab FILE) [options]\n"
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
    "tests:\n"
    "  --tier LIST           tiers, comma separated or repeated; 'all' (default) = the tiers\n"
    "                        without PSRAM (the docs' main table); 'psram' = the PSRAM tiers\n"
    "  --tests LIST          subset of tcp_tx,tcp_rx,udp_tx,udp_rx (default all four), and\n"
    "                        latency: round trips PC-board (UDP echo where the firmware serves\n"
    "                        it, else the system's ping)\n"
    "                        with --coprocessor also raw_tx,raw_rx (default all six)\n"
    "  --latency-count N     probes per latency test (default 20, one every 0.2 s)\n"
    "  --latency-method M    udp-echo or icmp (default: by the firmware)\n"
    "  --duration S          seconds per test (default 10)\n"
    "  --interval S          report interval (default 1)\n"
    "  --warmup S            seconds left out of the statistics (default one interval)\n"
    "  --repeat N            runs of each test (default 1)\n"
    "  --udp-rate MBPS       offered UDP rate (default: udp_rx the chip's udp_rx_rate_mbps as\n"
    "                        ESP-IDF's CI offers it; udp_tx 1.3 x the docs' figure, else 100)\n"
    "  --sweep VAR=A:B:STEP  run the tests at each point (also VAR=V1,V2,...): udp-rate (Mbit/s),\n"
    "                        tx-power (dBm); under --sim the link: rssi (dBm), loss (%), rtt (ms);\n"
    "                        with lab instruments attenuation (dB), rssi, channel, bandwidth (MHz)\n"
    "  --ap NAME             the lab's access point to use: powered on, every other AP off\n"
    "  --ap-set SETTINGS     the AP's band=2g|5g,channel=N,bandwidth=MHZ,txpower=DBM for the run\n"
    "  --settle SECONDS      after an attenuator change, before the board's RSSI is read (default 2)\n"
    "radio (lists cross with the tiers; the espbench firmware; docs/dimensions.md):\n"
    "  --band 2.4,5          Wi-Fi band, GHz (5: ESP32-C5)\n"
    "  --bandwidth 20,40     the board's HT20/HT40\n"
    "  --phy b|g|n|ac|ax     the highest protocol enabled (ax: C5, C6, C61)\n"
    "  --power-save none,min-modem,max-modem   modem sleep (--listen-interval N with max-modem)\n"
    "  --coex none,ble-scan,ble-adv            a BLE activity during the test\n"
    "  --retries N           retries of a test after a reboot or failure (default 2)\n"
    "  --iperf PROGRAM       the PC's iperf2 (default $ESPBENCH_IPERF, else iperf in PATH)\n"
    "  --env SETTING         where the board ran: shield-box, air, cable or free text\n"
    "                        (recorded in every entry's provenance)\n"
    "results:\n"
    "  --out DIR             results.json, results.csv, console and iperf logs\n"
    "                        (default espbench-CHIP-YYYYMMDD-HHMMSS)\n"
    "  --resume              continue the run in --out DIR, skipping finished tests\n"
    "firmware (stock dialects):\n"
    "  --manifest FILE       firmware manifest with each tier's image\n"
    "  --firmware NAME       firmware name in the manifest (default iperf-example)\n"
    "\n"
    "exit: 0 all tests done; 2 usage/config; 3 device, network or iperf error (finished\n"
    "results kept); 4 interrupted (results kept; continue with --resume).\n";

static const char *pattern_arg;   /* --pattern FILE|NAME */
static const char *parallel_count_arg, *parallel_index_arg; /* apply_parallel */
static bool perf_lines_arg;       /* --performance-lines */
static const char *metrics_arg;   /* --metrics FILE */
static char *idf_arg;             /* --idf PATH[,PATH...] */
static const char *idf_cache_arg; /* --idf-cache DIR */

/* ------------------------------------------------------------ display */

typedef struct display {
    bool tty;
    bool line_open;  /* a progress line without newline is on screen */
    int n_boards;
    eb_results done;  /* the entries finished, for the summary (copies) */
    eb_latency *lat;  /* latency tests, for the summary */
    int n_lat;
} display;

static void end_line(display *d)
{
    if (d->line_open) {
        fputs("\r\033[K", stdout);
        d->line_open = false;
    }
}

static const char *who(const eb_run_progress *p, char *buf, size_t cap)
{
    if (p->board && p->board[0] && p->board[0] != 0)
        snprintf(buf, cap, "%s %s/%s", p->board, p->chip, p->tier);
    else
        snprintf(buf, cap, "%s/%s", p->chip, p->tier);
    return buf;
}

static void fmt_ms(char *buf, size_t cap, double v)
{
    if (isfinite(v))
        snprintf(buf, cap, "%.2f", v);
    else
        snprintf(buf, cap, "-");
}

static void print_latency(const eb_run_progress *p, const eb_latency *l, const char *who_s)
{
    char mn[16], avg[16], mx[16], p99[16];
    fmt_ms(mn, sizeof mn, l->min_ms);
    fmt_ms(avg, sizeof avg, l->avg_ms);
    fmt_ms(mx, sizeof mx, l->max_ms);
    fmt_ms(p99, sizeof p99, l->p99_ms);
    if (!strcmp(l->status, "ok"))
        printf("[%d/%d] %s latency %s %d/%d replies, min/avg/max/p99 %s/%s/%s/%s ms, loss %.1f%%\n", p->index,
               p->total, who_s, l->method, l->received, l->sent, mn, avg, mx, p99, l->loss_pct);
    else
        printf("[%d/%d] %s latency FAILED: %s\n", p->index, p->total, who_s, l->error);
}

static void on_progress(void *user, const eb_run_progress *p)
{
    display *d = user;
    char w[160];
    switch (p->event) {
    case EB_RUN_EV_INFO:
        end_line(d);
        printf("%s\n", p->message);
        break;
    case EB_RUN_EV_WARN:
        end_line(d);
        fprintf(stderr, "espbench: warning: %s\n", p->message);
        break;
    case EB_RUN_EV_TEST_START:
        if (!d->tty) {
            printf("[%d/%d] %s %s: started\n", p->index, p->total, who(p, w, sizeof w), eb_run_test_name(p->test));
        }
        break;
    case EB_RUN_EV_PROGRESS:
        /* One live line per test on a terminal (only one board: lines of
         * concurrent boards would overwrite each other). */
        if (d->tty && d->n_boards == 1) {
            char rate[32] = "";
            if (isfinite(p->current_mbps))
                snprintf(rate, sizeof rate, "  %7.2f Mbit/s", p->current_mbps);
            printf("\r\033[K[%d/%d] %s %-6s %5.1f/%g s%s", p->index, p->total, who(p, w, sizeof w),
                   eb_run_test_name(p->test), p->elapsed_s, p->duration_s, rate);
            fflush(stdout);
            d->line_open = true;
        }
        break;
    case EB_RUN_EV_SKIP:
        end_line(d);
        printf("[%d/%d] %s %s: done before, skipped\n", p->index, p->total, who(p, w, sizeof w),
               eb_run_test_name(p->test));
        break;
    case EB_RUN_EV_LATENCY_DONE: {
        end_line(d);
        print_latency(p, p->latency, who(p, w, sizeof w));
        eb_latency *nl = realloc(d->lat, sizeof *nl * (size_t)(d->n_lat + 1));
        if (!nl)
            abort();
        d->lat = nl;
        d->lat[d->n_lat++] = *p->latency;
        break;
    }
    case EB_RUN_EV_TEST_DONE: {
        end_line(d);
        const eb_entry *e = p->entry;
        if (!strcmp(e->status, "ok") && eb_entry_prov(e)->peer_chip[0])
            printf("[%d/%d] %s %-6s mean %.2f Mbit/s, peak 1-s %.2f, board to board with %s (%s/%s)\n", p->index,
                   p->total, who(p, w, sizeof w), eb_run_test_name(p->test), e->mean_mbps, e->peak_mbps,
                   eb_entry_prov(e)->peer_board, eb_entry_prov(e)->peer_chip, eb_entry_prov(e)->peer_tier);
        else if (!strcmp(e->status, "ok")) {
            char docs[48] = ", no published figure"; /* a custom tier, a pair's iperf tests */
            if (isfinite(e->ref_mbps))
                snprintf(docs, sizeof docs, ", docs %.1f", e->ref_mbps);
            printf("[%d/%d] %s %-6s mean %.2f Mbit/s, peak 1-s %.2f%s\n", p->index, p->total, who(p, w, sizeof w),
                   eb_run_test_name(p->test), e->mean_mbps, e->peak_mbps, docs);
        } else
            printf("[%d/%d] %s %-6s FAILED: %s\n", p->index, p->total, who(p, w, sizeof w),
                   eb_run_test_name(p->test), eb_entry_error(e));
        if (!eb_results_add(&d->done, e))
            abort();
        break;
    }
    }
    fflush(stdout);
}

static void fmt_num(char *buf, size_t cap, double v, const char *fmt)
{
    if (isfinite(v))
        snprintf(buf, cap, fmt, v);
    else
        snprintf(buf, cap, "-");
}

static void print_latency_summary(const display *d)
{
    printf("\n%-10s %-18s %-9s %9s %8s %8s %8s %8s %7s\n", "chip", "tier", "method", "replies", "min ms",
           "avg ms", "max ms", "p99 ms", "loss");
    for (int i = 0; i < d->n_lat; i++) {
        const eb_latency *l = &d->lat[i];
        char tier[192], mn[16], avg[16], mx[16], p99[16], rep[24], loss[16];
        char radio[64];
        eb_radio_label(&l->prov, radio, sizeof radio); /* "band=5 ps=min_modem"; "" at the defaults */
        snprintf(tier, sizeof tier, "%s%s%s%s%s", l->board[0] && d->n_boards > 1 ? l->board : "",
                 l->board[0] && d->n_boards > 1 ? ":" : "", l->tier, radio[0] ? " " : "", radio);
        fmt_ms(mn, sizeof mn, l->min_ms);
        fmt_ms(avg, sizeof avg, l->avg_ms);
        fmt_ms(mx, sizeof mx, l->max_ms);
        fmt_ms(p99, sizeof p99, l->p99_ms);
        snprintf(rep, sizeof rep, "%d/%d", l->received, l->sent);
        fmt_num(loss, sizeof loss, l->loss_pct, "%.1f%%");
        printf("%-10s %-18s %-9s %9s %8s %8s %8s %8s %7s%s%s\n", l->chip, tier, l->method, rep, mn, avg, mx,
               p99, loss, strcmp(l->status, "ok") ? "  FAILED: " : "", strcmp(l->status, "ok") ? l->error : "");
    }
}

static void print_summary(display *d, const eb_run_summary *s, const char *out_dir)
{
    end_line(d);
    if (d->n_lat)
        print_latency_summary(d);
    if (d->done.n_entries) {
        printf("\n%-10s %-18s %-7s %10s %10s %8s %7s %7s %9s\n", "chip", "tier", "test", "mean", "peak 1-s",
               "docs", "diff", "loss", "free KB");
        for (int i = 0; i < d->done.n_entries; i++) {
            const eb_entry *r = &d->done.entries[i];
            char mean[16], peak[16], ref[16], diff[16], loss[16], mem[16];
            fmt_num(mean, sizeof mean, r->mean_mbps, "%.2f");
            fmt_num(peak, sizeof peak, r->peak_mbps, "%.2f");
            fmt_num(ref, sizeof ref, r->ref_mbps, "%.1f");
            fmt_num(diff, sizeof diff,
                    isfinite(r->ref_mbps) && r->ref_mbps > 0 ? (r->mean_mbps / r->ref_mbps - 1) * 100 : NAN, "%+.1f%%");
            fmt_num(loss, sizeof loss, r->loss_pct, "%.1f%%");
            fmt_num(mem, sizeof mem, r->free_heap >= 0 ? r->free_heap / 1024.0 : NAN, "%.1f");
            char tier[192];
            char radio[64];
            eb_radio_label(eb_entry_prov(r), radio, sizeof radio);
            snprintf(tier, sizeof tier, "%s%s%s%s%s", r->board[0] && d->n_boards > 1 ? r->board : "",
                     r->board[0] && d->n_boards > 1 ? ":" : "", r->tier, radio[0] ? " " : "", radio);
            if (strcmp(r->status, "ok"))
                printf("%-10s %-18s %-7s FAILED: %s\n", r->chip, tier, eb_run_test_name(r->test), eb_entry_error(r));
            else
                printf("%-10s %-18s %-7s %10s %10s %8s %7s %7s %9s\n", r->chip, tier, eb_run_test_name(r->test),
                       mean, peak, ref, diff, loss, mem);
        }
        printf("(Mbit/s, receiver side, mean of the steady intervals; peak 1-s = the largest 1-second\n"
               " interval, the figure Espressif's CI reports)\n");
        for (int i = 0; i < d->done.n_entries; i++) {
            const eb_provenance *pv = eb_entry_prov(&d->done.entries[i]);
            if (pv->peer_chip[0]) { /* docs figures are against a PC: none for a pair */
                printf("(board to board with %s %s/%s: no PC in the data path; TX = the board sends to its peer, "
                       "RX = the peer sends; no docs figure applies)\n", pv->peer_board, pv->peer_chip, pv->peer_tier);
                break;
            }
        }
    }
    if (cli_verbose && s->planned) {
        printf("time per step (s):");
        for (int i = 0; i < EB_STEP_COUNT; i++)
            printf(" %s %.2f", eb_run_step_name(i), s->step_ms[i] / 1000.0);
        printf("\n");
    }
    printf("%d tests done, %d skipped, %d failed of %d; %.1f s (%.1f s of traffic). Results: %s/results.json\n",
           s->done, s->skipped, s->failed, s->planned, s->wall_s, s->test_s, out_dir);
}

/* ------------------------------------------------------------ arguments */

static int parse_double(const char *opt, const char *v, double lo, double *out)
{
    return cli_parse_double("run", opt, v, lo, out);
}

static int parse_int(const char *opt, const char *v, long lo, long hi, long *out)
{
    return cli_parse_long("run", opt, v, lo, hi, out);
}

enum {
    O_CHIP = 256, O_TIER, O_PORT, O_SIM, O_SIM_NOISE, O_SIM_FAULT, O_LAB, O_SHARD, O_DIALECT, O_SSID,
    O_PASSWORD_ENV, O_PC, O_IPERF_PORT, O_TESTS, O_DURATION, O_INTERVAL, O_WARMUP, O_REPEAT, O_UDP_RATE,
    O_RETRIES, O_OUT, O_RESUME, O_MANIFEST, O_FIRMWARE, O_BAUD, O_STUB, O_PASSWORD, O_IPERF, O_SIM_PROJECT, O_SIM_IDF, O_SIM_IMAGE,
    O_SIM_MODEL, O_SIM_RSSI, O_SIM_PHY, O_SIM_RTT, O_SIM_LOSS, O_ENV, O_SWEEP, O_AP, O_AP_SET, O_SETTLE,
    O_LATENCY_COUNT, O_LATENCY_METHOD, O_AGGREGATE,
    O_COPROCESSOR, O_TRANSPORT, O_COPROCESSOR_PORT, /* ESP-Hosted */
    O_PEER_PORT, O_PEER_CHIP, O_PEER_TIER, /* board to board */
    O_PATTERN,
    O_PARALLEL_COUNT, O_PARALLEL_INDEX, /* pytest-embedded's spelling of --shard */
    O_PERF_LINES, O_METRICS,            /* CI figures after the run */
    O_IDF, O_IDF_CACHE,                 /* the matrix over ESP-IDF checkouts */
    O_BAND, O_RADIO_BW, O_PHY, O_POWER_SAVE, O_COEX, O_LISTEN, /* the board's radio (dims.h) */
};

static const struct option long_opts[] = {
    {"chip", required_argument, 0, O_CHIP},
    {"tier", required_argument, 0, O_TIER},
    {"tiers", required_argument, 0, O_TIER},
    {"port", required_argument, 0, O_PORT},
    {"sim", no_argument, 0, O_SIM},
    {"sim-noise", required_argument, 0, O_SIM_NOISE},
    {"sim-fault", required_argument, 0, O_SIM_FAULT},
    {"lab", required_argument, 0, O_LAB},
    {"shard", required_argument, 0, O_SHARD},
    {"parallel-count", required_argument, 0, O_PARALLEL_COUNT},
    {"parallel-index", required_argument, 0, O_PARALLEL_INDEX},
    {"performance-lines", no_argument, 0, O_PERF_LINES},
    {"metrics", required_argument, 0, O_METRICS},
    {"dialect", required_argument, 0, O_DIALECT},
    {"ssid", required_argument, 0, O_SSID},
    {"password-env", required_argument, 0, O_PASSWORD_ENV},
    {"password", required_argument, 0, O_PASSWORD},
    {"pc-address", required_argument, 0, O_PC},
    {"iperf-port", required_argument, 0, O_IPERF_PORT},
    {"tests", required_argument, 0, O_TESTS},
    {"duration", required_argument, 0, O_DURATION},
    {"interval", required_argument, 0, O_INTERVAL},
    {"warmup", required_argument, 0, O_WARMUP},
    {"repeat", required_argument, 0, O_REPEAT},
    {"udp-rate", required_argument, 0, O_UDP_RATE},
    {"retries", required_argument, 0, O_RETRIES},
    {"out", required_argument, 0, O_OUT},
    {"resume", no_argument, 0, O_RESUME},
    {"manifest", required_argument, 0, O_MANIFEST},
    {"firmware", required_argument, 0, O_FIRMWARE},
    {"baud", required_argument, 0, O_BAUD},
    {"stub", required_argument, 0, O_STUB},
    {"iperf", required_argument, 0, O_IPERF},
    {"sim-project", required_argument, 0, O_SIM_PROJECT},
    {"sim-idf", required_argument, 0, O_SIM_IDF},
    {"sim-image", required_argument, 0, O_SIM_IMAGE},
    {"idf", required_argument, 0, O_IDF},
    {"idf-cache", required_argument, 0, O_IDF_CACHE},
    {"sim-model", no_argument, 0, O_SIM_MODEL},
    {"sim-rssi", required_argument, 0, O_SIM_RSSI},
    {"sim-phy", required_argument, 0, O_SIM_PHY},
    {"sim-rtt", required_argument, 0, O_SIM_RTT},
    {"sim-loss", required_argument, 0, O_SIM_LOSS},
    {"env", required_argument, 0, O_ENV},
    {"sweep", required_argument, 0, O_SWEEP},
    {"ap", required_argument, 0, O_AP},
    {"ap-set", required_argument, 0, O_AP_SET},
    {"settle", required_argument, 0, O_SETTLE},
    {"band", required_argument, 0, O_BAND},
    {"bandwidth", required_argument, 0, O_RADIO_BW},
    {"phy", required_argument, 0, O_PHY},
    {"power-save", required_argument, 0, O_POWER_SAVE},
    {"coex", required_argument, 0, O_COEX},
    {"listen-interval", required_argument, 0, O_LISTEN},
    {"latency-count", required_argument, 0, O_LATENCY_COUNT},
    {"latency-method", required_argument, 0, O_LATENCY_METHOD},
    {"aggregate", no_argument, 0, O_AGGREGATE},
    {"coprocessor", required_argument, 0, O_COPROCESSOR},
    {"transport", required_argument, 0, O_TRANSPORT},
    {"coprocessor-port", required_argument, 0, O_COPROCESSOR_PORT},
    {"peer-port", required_argument, 0, O_PEER_PORT},
    {"peer-chip", required_argument, 0, O_PEER_CHIP},
    {"peer-tier", required_argument, 0, O_PEER_TIER},
    {"pattern", required_argument, 0, O_PATTERN},
    {0, 0, 0, 0},
};

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

/* One option into the request or the options; 0 or the exit code. */
/* --band, --bandwidth, --phy, --power-save, --coex (lists of a radio
 * dimension, dims.h) and --listen-interval. */
static int parse_radio_opt(int c, eb_run_opts *o)
{
    static const int dims[] = {EB_DIM_BAND, EB_DIM_RADIO_BW, EB_DIM_PHY, EB_DIM_POWER_SAVE, EB_DIM_COEX};
    if (c == O_LISTEN) {
        long v;
        int rc = parse_int("--listen-interval", optarg, 1, 65535, &v);
        if (!rc)
            o->radio.listen_interval = (int)v;
        return rc;
    }
    eb_error re;
    if (eb_radio_parse(&o->radio, dims[c - O_BAND], optarg, &re))
        return cli_usage_error("run", "%s", re.msg);
    return 0;
}

static int parse_opt(int c, eb_run_request *rq, eb_run_opts *o)
{
    long v = 0;
    int rc = 0;
    switch (c) {
    case O_CHIP: rq->chip = optarg; break;
    case O_TIER: return add_tiers(o, optarg);
    case O_PORT: rq->port = optarg; break;
    case O_SIM: rq->sim = true; break;
    case O_SIM_NOISE: return parse_double("--sim-noise", optarg, 0, &rq->sim_noise_pct);
    case O_SIM_FAULT:
        if (rq->n_sim_faults >= EB_RUN_MAX_SIM_FAULTS)
            return cli_usage_error("run", "at most %d --sim-fault", EB_RUN_MAX_SIM_FAULTS);
        rq->sim_faults[rq->n_sim_faults++] = optarg;
        break;
    case O_LAB: rq->lab_file = optarg; break;
    case O_SHARD: {
        eb_error e = {0};
        if (eb_shard_parse(optarg, &o->shard_index, &o->shard_total, &e))
            return cli_usage_error("run", "--shard: %s", e.msg);
        break;
    }
    case O_PARALLEL_COUNT: parallel_count_arg = optarg; break;
    case O_PARALLEL_INDEX: parallel_index_arg = optarg; break;
    case O_PERF_LINES: perf_lines_arg = true; break;
    case O_METRICS: metrics_arg = optarg; break;
    case O_DIALECT: rq->dialect = optarg; break;
    case O_SSID: rq->ssid = optarg; break;
    case O_PASSWORD_ENV: rq->password_env = optarg; break;
    case O_PASSWORD:
        return cli_usage_error("run", "the Wi-Fi password is never a flag (it would show in ps and shell "
                               "history): put it in an environment variable (--password-env VAR, default "
                               "%s) or in a file named by the lab file", EB_LAB_DEFAULT_PASSWORD_ENV);
    case O_PC: rq->pc_address = optarg; break;
    case O_IPERF_PORT:
        if (!(rc = parse_int("--iperf-port", optarg, 1, 65535, &v)))
            rq->iperf_port = (uint16_t)v;
        break;
    case O_TESTS: return parse_tests(optarg, &o->tests);
    case O_DURATION: return parse_double("--duration", optarg, 1, &o->duration_s);
    case O_INTERVAL: return parse_double("--interval", optarg, 0.1, &o->interval_s);
    case O_WARMUP: return parse_double("--warmup", optarg, 0, &o->warmup_s);
    case O_REPEAT:
        if (!(rc = parse_int("--repeat", optarg, 1, 1000, &v)))
            o->repeat = (int)v;
        break;
    case O_UDP_RATE: return parse_double("--udp-rate", optarg, 0.001, &o->udp_rate_mbps);
    case O_RETRIES:
        if (!(rc = parse_int("--retries", optarg, 0, 100, &v)))
            o->retries = (int)v;
        break;
    case O_OUT: rq->out_dir = optarg; break;
    case O_IPERF: o->iperf = optarg; break;
    case O_SIM_PROJECT: rq->sim_project = optarg; break;
    case O_SIM_IDF: rq->sim_idf = optarg; break;
    case O_SIM_IMAGE: rq->sim_image = optarg; break;
    case O_IDF: idf_arg = optarg; break;
    case O_IDF_CACHE: idf_cache_arg = optarg; break;
    case O_SIM_MODEL: rq->sim_model = true; break;
    case O_ENV: {
        char why[160];
        if (eb_prov_check_env(optarg, why, sizeof why) != 0)
            return cli_usage_error("run", "--env: %s", why);
        o->env = optarg;
        break;
    }
    case O_SIM_RSSI: case O_SIM_PHY: case O_SIM_RTT: case O_SIM_LOSS: {
        static const char *const names[] = {"rssi", "phy", "rtt", "loss"};
        eb_error le;
        if (!rq->sim_link_set)
            eb_model_link_default(&rq->sim_link);
        rq->sim_link_set = true;
        if (eb_model_link_set(&rq->sim_link, names[c - O_SIM_RSSI], optarg, &le))
            return cli_usage_error("run", "--sim-%s: %s", names[c - O_SIM_RSSI], le.msg);
        break;
    }
    case O_AP: o->ap_name = optarg; break;
    case O_AP_SET: o->ap_set = optarg; break;
    case O_SETTLE: return parse_double("--settle", optarg, 0.01, &o->settle_s);
    case O_BAND: case O_RADIO_BW: case O_PHY: case O_POWER_SAVE: case O_COEX: case O_LISTEN:
        return parse_radio_opt(c, o);
    case O_SWEEP: {
        eb_error se;
        if (o->sweep.n > 0)
            return cli_usage_error("run", "--sweep given twice: one variable per run");
        if (eb_sweep_parse(optarg, &o->sweep, &se))
            return cli_usage_error("run", "%s", se.msg);
        break;
    }
    case O_LATENCY_COUNT:
        if (!(rc = parse_int("--latency-count", optarg, 1, EB_PING_MAX_REPLIES, &v)))
            o->latency_count = (int)v;
        break;
    case O_LATENCY_METHOD:
        if (strcmp(optarg, "udp-echo") && strcmp(optarg, "icmp"))
            return cli_usage_error("run", "--latency-method '%s': expected udp-echo or icmp", optarg);
        o->latency_method = optarg;
        break;
    case O_AGGREGATE: o->aggregate = true; break;
    case O_COPROCESSOR: rq->coprocessor = optarg; break;
    case O_TRANSPORT: rq->transport = optarg; break;
    case O_COPROCESSOR_PORT: rq->coprocessor_port = optarg; break;
    case O_PEER_PORT: rq->peer_port = optarg; break;
    case O_PEER_CHIP: rq->peer_chip = optarg; break;
    case O_PEER_TIER: rq->peer_tier = optarg; break;
    case O_PATTERN: pattern_arg = optarg; break;
    case O_RESUME: o->resume = true; break;
    case O_MANIFEST: o->manifest = optarg; break;
    case O_FIRMWARE: o->firmware = optarg; break;
    case O_STUB: o->stub = optarg; break;
    case O_BAUD:
        if (!(rc = parse_int("--baud", optarg, 300, 16000000, &v)))
            o->baud = (uint32_t)v;
        break;
    default: return cli_option_error("run");
    }
    return rc;
}

/* --pattern: a firmware of one's own drives every board (not a vboard,
 * which speaks the built-in dialects only). */
static int load_pattern(const eb_run_request *rq, eb_run_opts *o, eb_pattern *pat, eb_pattern_set *builtin)
{
    if (rq->sim)
        return cli_usage_error("run", "--pattern with --sim: the virtual board speaks the built-in dialects "
                                      "only; run --pattern against the board (--port or --lab)");
    if (rq->dialect)
        return cli_usage_error("run", "--pattern and --dialect: give one (the pattern is the dialect)");
    eb_error err = {0};
    int rc = cli_load_patterns(pattern_arg, pat, builtin, &err);
    if (!rc && (rc = eb_run_apply_pattern(o, pat, &err)) != 0) {
        eb_pattern_free(pat);
        eb_patterns_free(builtin);
    }
    return rc ? cli_error(&err) : 0;
}

/* --parallel-count / --parallel-index (pytest-embedded): the shard, once
 * every option is read, so the order of the flags does not matter. */
static int apply_parallel(eb_run_opts *o)
{
    if (!parallel_count_arg && !parallel_index_arg)
        return 0;
    if (o->shard_total)
        return cli_usage_error("run", "--shard and --parallel-count/--parallel-index name the same slice: give one");
    eb_error e = {0};
    if (eb_shard_from_parallel(parallel_count_arg, parallel_index_arg, &o->shard_index, &o->shard_total, &e))
        return cli_usage_error("run", "%s", e.msg);
    return 0;
}

/* --performance-lines / --metrics: the figures of the run's results.json,
 * rendered as `report` does. */
static int emit_figures(const char *out_dir, eb_error *err)
{
    if (!perf_lines_arg && !metrics_arg)
        return 0;
    char path[1100];
    snprintf(path, sizeof path, "%s/results.json", out_dir);
    eb_results r;
    eb_profiles p = {0};
    int rc = eb_results_load(&r, path, err);
    if (rc)
        return rc;
    rc = eb_profiles_load_default(&p, cli_profiles_dir, err);
    eb_buf b;
    eb_buf_init(&b);
    if (!rc && perf_lines_arg) {
        eb_report_performance_lines(&r, &p, &b);
        fwrite(b.data, 1, b.len, stdout);
        fflush(stdout);
    }
    if (!rc && metrics_arg) {
        eb_buf_reset(&b);
        eb_report_openmetrics(&r, &p, EB_STAT_MEAN, &b);
        rc = eb_file_write_atomic(metrics_arg, b.data, b.len, err);
    }
    eb_buf_free(&b);
    eb_profiles_free(&p);
    eb_results_free(&r);
    return rc;
}

/* One run: the request resolved into boards, run, its summary printed; out
 * gets the run folder. A wrong request sets *usage. */
static int run_once(const eb_run_request *rq, eb_run_opts *o, char *out, size_t cap, eb_error *err, bool *usage)
{
    display disp = {.tty = cli_stdout_is_tty()};
    eb_results_init(&disp.done);
    o->stop = &cli_stop_flag;
    o->progress = on_progress;
    o->user = &disp;
    eb_run_setup st;
    eb_run_summary sum = {0};
    int rc = eb_run_resolve(rq, o, &st, err);
    disp.n_boards = o->n_boards;
    *usage = rc && st.bad_request;
    if (!rc) {
        rc = cli_stop_flag ? eb_fail(err, EB_EINTR, "interrupted") : eb_run(o, &sum, err);
        if (rc != EB_ECONFIG || sum.planned)
            print_summary(&disp, &sum, st.out_dir);
    }
    snprintf(out, cap, "%s", st.out_dir);
    eb_run_setup_free(&st);
    eb_results_free(&disp.done);
    free(disp.lat);
    return rc;
}

/* run --idf prints the library's events (eb_run_idf, run_idf.h). */
typedef struct idf_display {
    display disp;
    const char *chip;
    bool sim;
} idf_display;

static void on_idf_event(void *user, const eb_run_idf_event *ev)
{
    idf_display *d = user;
    const eb_run_idf_step *st = ev->step;
    switch (ev->kind) {
    case EB_RUN_IDF_STALE:
        fprintf(stderr, "espbench run: warning: ESP-IDF %s (%s): %d submodule%s not at the commit's, e.g. %s; built "
                        "as checked out (git submodule update --init --recursive to follow HEAD)\n",
                st->idf.version, st->idf.path, st->idf.stale_submodules, st->idf.stale_submodules == 1 ? "" : "s",
                st->idf.stale_first);
        break;
    case EB_RUN_IDF_CHECKED:
        if (d->sim)
            fprintf(stderr, "espbench run: --idf --sim: %s\n", EB_SIM_IDF_NOTE);
        break;
    case EB_RUN_IDF_BUILD:
        fprintf(stderr, "build %d/%d: %s with ESP-IDF %s... ", ev->index + 1, ev->n, d->chip, st->idf.path);
        fflush(stderr);
        break;
    case EB_RUN_IDF_BUILT:
        if (st->build.cached)
            fprintf(stderr, "%s (%.7s) cached\n", st->idf.version, st->idf.commit);
        else
            fprintf(stderr, "%s (%.7s) built in %.1f s\n", st->idf.version, st->idf.commit, st->build.seconds);
        break;
    case EB_RUN_IDF_BUILD_FAILED:
        if (ev->rc == EB_EINTR)
            fprintf(stderr, "interrupted\n");
        else
            fprintf(stderr, "FAILED: %s\n", ev->err->msg);
        break;
    case EB_RUN_IDF_FLASHED:
        fprintf(stderr, "ESP-IDF %s: %s flashed\n", st->idf.version, ev->board);
        break;
    case EB_RUN_IDF_RUN:
        eb_results_free(&d->disp.done);
        free(d->disp.lat);
        d->disp = (display){.tty = cli_stdout_is_tty()};
        eb_results_init(&d->disp.done);
        printf("ESP-IDF %s (%s): run in %s\n", st->idf.version, st->idf.path, st->out_dir);
        fflush(stdout);
        break;
    case EB_RUN_IDF_RUN_END:
        d->disp.n_boards = ev->n_boards;
        if (ev->rc != EB_ECONFIG || ev->sum->planned)
            print_summary(&d->disp, ev->sum, ev->out);
        if (ev->rc && ev->rc != EB_ECONFIG && ev->rc != EB_EINTR)
            fprintf(stderr, "espbench: ESP-IDF %s: %s\n", st->idf.version, ev->err->msg);
        break;
    case EB_RUN_IDF_MERGED:
        printf("%d ESP-IDF run%s merged into %s/results.json\n", ev->merged, ev->merged == 1 ? "" : "s", ev->out);
        break;
    }
}

static int run_idf(const eb_run_request *rq, eb_run_opts *tmpl, char *out, size_t cap, eb_error *err, bool *usage)
{
    const char *paths[33];
    int n = 0;
    for (char *t = strtok(idf_arg, ","); t && n < 33; t = strtok(NULL, ","))
        paths[n++] = t;
    idf_display d = {.disp = {.tty = cli_stdout_is_tty()}, .chip = rq->chip, .sim = rq->sim};
    eb_results_init(&d.disp.done);
    tmpl->progress = on_progress;
    tmpl->user = &d.disp;
    eb_run_idf_req req = {.idf_paths = paths, .n_idf = n, .cache_dir = idf_cache_arg, .rq = rq, .o = tmpl,
                          .stop = &cli_stop_flag, .event = on_idf_event, .user = &d};
    int rc = eb_run_idf(&req, out, cap, usage, err);
    eb_results_free(&d.disp.done);
    free(d.disp.lat);
    return rc;
}

int cmd_run(int argc, char **argv)
{
    eb_run_opts o = {.stub = "auto"};
    o.warmup_s = -1;
    o.retries = -1;
    eb_run_request rq = {.profiles_dir = cli_profiles_dir};
    int rc, c;
    pattern_arg = NULL;
    parallel_count_arg = parallel_index_arg = metrics_arg = NULL;
    idf_arg = NULL;
    idf_cache_arg = NULL;
    perf_lines_arg = false;
    optind = 1;
    opterr = 0;
    while ((c = cli_getopt(argc, argv, ":", long_opts)) != -1) {
        if ((rc = parse_opt(c, &rq, &o)) != 0)
            return rc;
    }
    if (optind < argc)
        return cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
    if ((rc = cli_check_secret_env("run", "--password-env", rq.password_env)) != 0)
        return rc;
    if ((rc = apply_parallel(&o)) != 0)
        return rc;
    eb_error serr; /* a bad --stub FILE: one line, exit 2, before any board is touched */
    if (eb_stub_mode_check(o.stub, NULL, &serr) != EB_OK)
        return cli_error(&serr);
    eb_pattern pat = {0};
    eb_pattern_set builtin = {0};
    if (pattern_arg && (rc = load_pattern(&rq, &o, &pat, &builtin)) != 0)
        return rc;

    cli_catch_stop_signals();
    eb_error err = {0};
    char out[1024];
    bool usage = false;
    rc = idf_arg ? run_idf(&rq, &o, out, sizeof out, &err, &usage) : run_once(&rq, &o, out, sizeof out, &err, &usage);
    eb_pattern_free(&pat);
    eb_patterns_free(&builtin);
    if (usage)
        return cli_usage_error("run", "%s", err.msg);
    if (!rc)
        rc = emit_figures(out, &err);
    if (rc == EB_EINTR) {
        fprintf(stderr, "espbench: interrupted; finished tests are kept in %s (continue with --resume)\n", out);
        return EB_EINTR;
    }
    if (rc)
        return cli_error(&err);
    return 0;
}
