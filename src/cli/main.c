/* espbench: argument parsing, dispatch and printing. All logic lives in libespbench. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "espbench/base/log.h"
#include "espbench/base/names.h"
#include "espbench/base/version.h"

/* A command's help (run's with its dimension rows' flags). */
static void put_usage(const cli_command *c)
{
    fputs(c->usage, stdout);
    if (c->usage == cmd_run_usage)
        cmd_run_usage_rows(stdout);
}

static const cli_command commands[] = {
    {"run", cmd_run, "flash, switch tiers and measure TCP/UDP TX/RX throughput", cmd_run_usage, 0},
    {"profiles", cmd_profiles, "list chips and tiers, show a tier's settings and the docs' figures", cmd_profiles_usage, 0},
    {"ports", cmd_ports, "list local serial ports with USB VID:PID and serial number", cmd_ports_usage, 0},
    {"detect", cmd_detect, "detect the chip, MAC and flash size on a port", cmd_detect_usage, 0},
    {"flash", cmd_flash, "write firmware images through the ROM loader (MD5 verified, unchanged skipped)", cmd_flash_usage, 0},
    {"parse", cmd_parse, "turn captured board console or iperf2 logs into results JSON", cmd_parse_usage, 1},
    {"report", cmd_report, "render results as CSV, JSON, RST, Markdown or HTML", cmd_report_usage, 1},
    {"compare", cmd_compare, "compare results with a baseline; exit 1 on a regression", cmd_compare_usage, 1},
    {"merge", cmd_merge, "merge results of several runs or shards into one matrix", cmd_merge_usage, 1},
    {"predict", cmd_predict, "predict a tier's throughputs and free heap with the tier model", cmd_predict_usage, 0},
    {"tune", cmd_tune, "search the runtime buffer settings for the throughput / free-heap frontier", cmd_tune_usage, 0},
    {"bisect", cmd_bisect, "find the ESP-IDF commit that made a board slower (build, measure, bisect)",
     cmd_bisect_usage, 0},
    {"build", cmd_build, "build the espbench firmware with each given ESP-IDF checkout, cached", cmd_build_usage, 0},
    {"model", cmd_model, "fit the tier model's constants; cross-validate it", cmd_model_usage, 0},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

int cli_verbose;
const char *cli_profiles_dir;

static void log_to_stderr(void *user, int level, const char *msg)
{
    (void)user;
    static const char *const names[] = {"error", "warning", "info", "debug"};
    if (level == EB_LOG_INFO)
        fprintf(stderr, "espbench: %s\n", msg);
    else
        fprintf(stderr, "espbench: %s: %s\n", names[level], msg);
}

static void print_help(FILE *f)
{
    fprintf(f,
            "usage: espbench [--verbose|--quiet] [--profiles DIR] COMMAND [ARGS]\n"
            "       espbench --help | --version | help COMMAND\n\n"
            "Benchmarks the Wi-Fi throughput of Espressif boards.\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\nexit codes: 0 ok, 1 a benchmark fell short or regressed, 2 usage or configuration\n"
            "error, 3 device or I/O error, 4 interrupted (results so far are kept).\n"
            "See espbench(1) and espbench-profiles(5).\n");
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* "no command 'rnu'; did you mean 'run'?" */
static int no_command(const char *name)
{
    const char *names[N_COMMANDS + 1];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    names[N_COMMANDS] = "help";
    char hint[64];
    fprintf(stderr, "espbench: no command '%s'%s; see 'espbench --help'\n", name,
            cli_suggest(name, names, (int)N_COMMANDS + 1, hint, sizeof hint));
    return EB_ECONFIG;
}

/* A global option main does not know: its text up to '=' only (never a value). */
static int bad_global_option(const char *a)
{
    static const char *const names[] = {"--help", "--version", "--verbose", "--quiet", "--profiles"};
    char opt[64], hint[64];
    snprintf(opt, sizeof opt, "%.*s", (int)strcspn(a, "="), a);
    fprintf(stderr, "espbench: unknown option '%s'%s; see 'espbench --help'\n", opt,
            cli_suggest(opt, names, 5, hint, sizeof hint));
    return EB_ECONFIG;
}

/* Commands that hold a whole log or results file in memory spend much of
 * their time faulting in fresh pages (a 1.2 M-line parse touched ~80 MB in
 * 4 KiB faults, a third of its time). glibc's malloc backs its arenas with
 * transparent huge pages when the tunable glibc.malloc.hugetlb=1 is set, and
 * tunables are read only at start-up: so such a command re-executes itself
 * once with it set (ESPBENCH_NO_REEXEC=1 turns this off). Nothing has been
 * opened or printed yet; if the exec fails, the command runs as it is. */
static void cli_huge_pages(char **argv)
{
    const char *t = getenv("GLIBC_TUNABLES");
    if ((t && strstr(t, "glibc.malloc.hugetlb")) || getenv("ESPBENCH_NO_REEXEC"))
        return;
    char value[512];
    int n = snprintf(value, sizeof value, "%s%sglibc.malloc.hugetlb=1", t && *t ? t : "", t && *t ? ":" : "");
    if (n < 0 || (size_t)n >= sizeof value || setenv("GLIBC_TUNABLES", value, 1) != 0)
        return;
    char self[4096]; /* the real path, so the process keeps its name ("exe" otherwise) */
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = 0;
        execv(self, argv);
    }
    unsetenv("GLIBC_TUNABLES"); /* not re-executed: leave the environment as it was */
    if (t)
        setenv("GLIBC_TUNABLES", t, 1);
}

int main(int argc, char **argv)
{
    int i = 1;
    int quiet = 0;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            print_help(stdout);
            return 0;
        } else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
            printf("espbench %s\n", eb_version());
            return 0;
        } else if (!strcmp(a, "--verbose") || !strcmp(a, "-v")) {
            cli_verbose = 1;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            quiet = 1;
        } else if (!strcmp(a, "--profiles") && i + 1 < argc) {
            cli_profiles_dir = argv[++i];
        } else if (!strncmp(a, "--profiles=", 11)) {
            cli_profiles_dir = a + 11;
        } else {
            return bad_global_option(a);
        }
    }
    eb_log_set_sink(log_to_stderr, NULL, quiet ? EB_LOG_ERROR : cli_verbose ? EB_LOG_DEBUG : EB_LOG_INFO);
    if (i >= argc) {
        print_help(stderr);
        return EB_ECONFIG;
    }
    const char *name = argv[i];
    if (!strcmp(name, "help")) {
        if (i + 1 >= argc) {
            print_help(stdout);
            return 0;
        }
        const cli_command *c = find_command(argv[i + 1]);
        if (!c)
            return no_command(argv[i + 1]);
        put_usage(c);
        return 0;
    }
    const cli_command *c = find_command(name);
    if (!c)
        return no_command(name);
    for (int j = i + 1; j < argc; j++) {
        if (!strcmp(argv[j], "--help") || !strcmp(argv[j], "-h")) {
            put_usage(c);
            return 0;
        }
    }
    if (c->big_data)
        cli_huge_pages(argv);
    return c->run(argc - i, argv + i);
}
