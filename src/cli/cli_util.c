#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <string.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "commands.h"
#include "espbench/base/names.h"

int cli_error(const eb_error *err)
{
    fprintf(stderr, "espbench: %s\n", err->msg[0] ? err->msg : "failed");
    return err->code ? err->code : EB_EIO;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "espbench %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; see 'espbench help %s'\n", cmd);
    return EB_ECONFIG;
}

int cli_stdout_is_tty(void) { return isatty(STDOUT_FILENO); }

int cli_parse_double(const char *cmd, const char *opt, const char *v, double lo, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || !(x >= lo))
        return cli_usage_error(cmd, "%s needs a number >= %g, not '%s'", opt, lo, v);
    *out = x;
    return 0;
}

int cli_parse_long(const char *cmd, const char *opt, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return cli_usage_error(cmd, "%s needs a whole number %ld..%ld, not '%s'", opt, lo, hi, v);
    *out = x;
    return 0;
}

/* ---- options: getopt_long without abbreviations ---- */

/* What cli_getopt last refused, for cli_option_error. */
static struct {
    enum { OPT_UNKNOWN, OPT_ABBREV, OPT_NEEDS_VALUE, OPT_TAKES_NO_VALUE } why;
    char name[64];                /* the option as typed, without "=VALUE" */
    const struct option *opts;
    int full;                     /* OPT_ABBREV: the option the prefix stood for */
} refused;

/* The option text of a token, up to '=' (never the value). */
static void option_text(const char *tok, char *out, size_t cap)
{
    size_t n = strcspn(tok, "=");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, tok, n);
    out[n] = 0;
}

static int find_long(const struct option *opts, const char *name)
{
    for (int i = 0; opts[i].name; i++)
        if (!strcmp(opts[i].name, name))
            return i;
    return -1;
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *opts)
{
    int idx = -1;
    int c = getopt_long(argc, argv, shortopts, opts, &idx);
    refused.opts = opts;
    if (c == -1)
        return c;
    if (idx >= 0) {
        /* The token getopt took: the one before its separate value, else the last. */
        const char *tok = optarg && optind >= 2 && optarg == argv[optind - 1] && optind - 2 >= 1 ? argv[optind - 2]
                                                                                             : argv[optind - 1];
        char typed[64];
        option_text(tok, typed, sizeof typed);
        if (strncmp(typed, "--", 2) == 0 && strcmp(typed + 2, opts[idx].name) != 0) {
            refused.why = OPT_ABBREV;
            refused.full = idx;
            snprintf(refused.name, sizeof refused.name, "%s", typed);
            return '?';
        }
        return c;
    }
    if (c != '?' && c != ':')
        return c;
    const char *tok = optind >= 1 && optind <= argc ? argv[optind - 1] : "";
    if (optopt && !(tok[0] == '-' && tok[1] == '-')) { /* a short option */
        snprintf(refused.name, sizeof refused.name, "-%c", optopt);
        refused.why = strchr(shortopts, optopt) ? OPT_NEEDS_VALUE : OPT_UNKNOWN;
        return '?';
    }
    option_text(tok, refused.name, sizeof refused.name);
    int k = strncmp(refused.name, "--", 2) == 0 ? find_long(opts, refused.name + 2) : -1;
    if (k >= 0 && opts[k].has_arg == required_argument)
        refused.why = OPT_NEEDS_VALUE;
    else if (k >= 0 && opts[k].has_arg == no_argument)
        refused.why = OPT_TAKES_NO_VALUE;
    else
        refused.why = OPT_UNKNOWN;
    return '?';
}

/* Whether an option's value may be a secret: never echo what was given to it. */
static bool near_secret(const char *name)
{
    return strstr(name, "password") || strstr(name, "secret") || strstr(name, "token") || strstr(name, "credential");
}

int cli_option_error(const char *cmd)
{
    switch (refused.why) {
    case OPT_ABBREV:
        return cli_usage_error(cmd, "'%s' is not an option (options are written in full: --%s)%s", refused.name,
                               refused.opts[refused.full].name,
                               near_secret(refused.opts[refused.full].name) ? "; the value given is not shown" : "");
    case OPT_NEEDS_VALUE: return cli_usage_error(cmd, "%s needs a value", refused.name);
    case OPT_TAKES_NO_VALUE: return cli_usage_error(cmd, "%s takes no value", refused.name);
    default: break;
    }
    const char *names[256];
    char buf[256][40];
    int n = 0;
    for (int i = 0; refused.opts && refused.opts[i].name && n < 256; i++) {
        snprintf(buf[n], sizeof buf[n], "--%s", refused.opts[i].name);
        names[n] = buf[n];
        n++;
    }
    const char *near = strncmp(refused.name, "--", 2) == 0 ? eb_name_nearest(refused.name, names, n) : NULL;
    if (near)
        return cli_usage_error(cmd, "unknown option '%s'; did you mean '%s'?", refused.name, near);
    return cli_usage_error(cmd, "unknown option '%s'", refused.name);
}

int cli_check_secret_env(const char *cmd, const char *opt, const char *var)
{
    if (!var || getenv(var))
        return 0;
    /* The name is not printed: a password typed in its place would land in CI logs. */
    return cli_usage_error(cmd, "the environment variable named by %s is not set (the name is not shown, in case "
                                "it is the password itself); export it, or name another with %s VAR",
                           opt, opt);
}

const char *cli_suggest(const char *typed, const char *const *names, int n, char *buf, size_t cap)
{
    const char *near = eb_name_nearest(typed, names, n);
    if (near)
        snprintf(buf, cap, "; did you mean '%s'?", near);
    else if (cap)
        buf[0] = 0;
    return buf;
}
