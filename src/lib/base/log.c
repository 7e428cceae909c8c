#include "espbench/base/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static eb_log_fn sink_fn;
static void *sink_user;
static int sink_max = EB_LOG_INFO;
static pthread_mutex_t once_lock = PTHREAD_MUTEX_INITIALIZER;
static char once_keys[32][48];
static int once_count;

void eb_log_set_sink(eb_log_fn fn, void *user, int max_level)
{
    sink_fn = fn;
    sink_user = user;
    sink_max = max_level;
}

static void vlog(int level, const char *fmt, va_list ap)
{
    if (!sink_fn || level > sink_max)
        return;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    sink_fn(sink_user, level, msg);
}

void eb_log(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}

void eb_log_once(const char *key, int level, const char *fmt, ...)
{
    pthread_mutex_lock(&once_lock);
    for (int i = 0; i < once_count; i++) {
        if (strcmp(once_keys[i], key) == 0) {
            pthread_mutex_unlock(&once_lock);
            return;
        }
    }
    if (once_count < 32)
        snprintf(once_keys[once_count++], sizeof once_keys[0], "%s", key);
    pthread_mutex_unlock(&once_lock);
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}
