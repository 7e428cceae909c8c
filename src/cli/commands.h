/* The espbench subcommands. Each lives in src/cli/cmd_<name>.c, parses its own
 * arguments (getopt_long), calls libespbench and prints. It returns an exit code
 * (enum eb_code) and prints errors with cli_error(). */
#ifndef ESPBENCH_CLI_COMMANDS_H
#define ESPBENCH_CLI_COMMANDS_H

#include <stdio.h>

#include "espbench/base/error.h"

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);   /* argv[0] is the command name */
    const char *summary;
    const char *usage;                   /* full help text for `espbench help CMD` */
    int big_data;                        /* reads whole logs or results files into memory (cli_huge_pages) */
} cli_command;

int cmd_profiles(int argc, char **argv);
int cmd_ports(int argc, char **argv);
int cmd_detect(int argc, char **argv);
int cmd_flash(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_parse(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_model(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
extern const char cmd_bisect_usage[];
int cmd_build(int argc, char **argv);
extern const char cmd_build_usage[];
extern const char cmd_tune_usage[];

extern const char cmd_profiles_usage[], cmd_ports_usage[], cmd_detect_usage[], cmd_flash_usage[],
    cmd_run_usage[], cmd_parse_usage[], cmd_report_usage[], cmd_compare_usage[], cmd_merge_usage[],
    cmd_model_usage[], cmd_predict_usage[];
/* run's help lines of the dimension rows that carry one (dims.h). */
void cmd_run_usage_rows(FILE *out);

/* Shared CLI helpers (cli_util.c). */
/* Prints "espbench: <msg>" to stderr and returns err->code. */
int cli_error(const eb_error *err);
/* Prints "espbench CMD: <printf msg>" to stderr and returns EB_ECONFIG (usage errors). */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A number option's value: the whole of v a number >= lo (a whole number lo..hi), else the
 * usage error "espbench CMD: OPT needs a number >= LO, not 'V'" (EB_ECONFIG). */
int cli_parse_double(const char *cmd, const char *opt, const char *v, double lo, double *out);
int cli_parse_long(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out);
/* getopt_long that refuses abbreviated long options ("--pass" for
 * "--password-env": getopt takes any unambiguous prefix, and a value meant
 * for one option then lands in another). Returns getopt_long's value, or '?'
 * for an option it refused (unknown, abbreviated, ambiguous, missing value);
 * then cli_option_error(cmd) prints why — the option as typed, never its
 * value, with the nearest option for a typo — and returns EB_ECONFIG. */
struct option;
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *opts);
int cli_option_error(const char *cmd);
/* A usage error when the environment variable var (given to opt) is unset;
 * the message names opt, never var (a password typed there would be shown). */
int cli_check_secret_env(const char *cmd, const char *opt, const char *var);
/* "; did you mean 'NAME'?" into buf for the name of names nearest to typed
 * (names.h), else ""; returns buf. */
const char *cli_suggest(const char *typed, const char *const *names, int n, char *buf, size_t cap);
/* Global options parsed by main: --verbose / --quiet / --profiles DIR. */
extern int cli_verbose;
extern const char *cli_profiles_dir;
/* True when stdout is a terminal (progress bars, colour). */
int cli_stdout_is_tty(void);
/* Stop signals (cli_signal.c): SIGINT, SIGTERM and SIGHUP set cli_stop_flag (to the signal's
 * number), which a job's stop pointer watches; a second one kills the PC's iperf2 and exits 4.
 * SIGPIPE is ignored. Call before the job starts. */
#include <signal.h>
extern volatile sig_atomic_t cli_stop_flag;
void cli_catch_stop_signals(void);
/* --pattern FILE|NAME (cli_pattern.c): loads the built-in pattern files into
 * builtin and, when arg is given, the file (or built-in of that name) into
 * pat (zeroed otherwise). Free both with eb_pattern_free / eb_patterns_free. */
struct eb_pattern;
struct eb_pattern_set;
int cli_load_patterns(const char *arg, struct eb_pattern *pat, struct eb_pattern_set *builtin, eb_error *err);

#endif
