#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "commands.h"

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
