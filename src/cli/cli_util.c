#include <stdarg.h>
#include <stdio.h>
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
