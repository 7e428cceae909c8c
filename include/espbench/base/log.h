/* Logging through a callback: the library never prints on its own. The CLI
 * installs a sink; without one, messages are dropped. */
#ifndef ESPBENCH_LOG_H
#define ESPBENCH_LOG_H

enum eb_log_level { EB_LOG_ERROR, EB_LOG_WARN, EB_LOG_INFO, EB_LOG_DEBUG };

typedef void (*eb_log_fn)(void *user, int level, const char *msg);

void eb_log_set_sink(eb_log_fn fn, void *user, int max_level);
void eb_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Logs a message once per process for a given key (e.g. "no-modem-lines"). */
void eb_log_once(const char *key, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
