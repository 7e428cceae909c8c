#include "espbench/base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int eb_fail(eb_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
        err->kind = EB_KIND_NONE;
    }
    return code;
}

int eb_error_prefix(eb_error *err, const char *fmt, ...)
{
    if (!err)
        return 0;
    char prefix[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    /* Shift the old message right and put the prefix in front, truncating at the end. */
    size_t plen = strlen(prefix), olen = strlen(err->msg);
    if (plen >= sizeof err->msg)
        plen = sizeof err->msg - 1;
    if (plen + olen >= sizeof err->msg)
        olen = sizeof err->msg - 1 - plen;
    memmove(err->msg + plen, err->msg, olen);
    memcpy(err->msg, prefix, plen);
    err->msg[plen + olen] = '\0';
    return err->code;
}

void eb_error_clear(eb_error *err)
{
    if (err) {
        err->code = EB_OK;
        err->kind = EB_KIND_NONE;
        err->msg[0] = '\0';
    }
}

int eb_error_kind(eb_error *err, int kind)
{
    if (!err)
        return 0;
    err->kind = kind;
    return err->code;
}

const char *eb_code_name(int code)
{
    switch (code) {
    case EB_OK: return "ok";
    case EB_ESHORT: return "fell-short";
    case EB_ECONFIG: return "config";
    case EB_EIO: return "io";
    case EB_EINTR: return "interrupted";
    default: return "unknown";
    }
}
