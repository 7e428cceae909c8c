#include "espbench/base/clock.h"

#include <errno.h>
#include <time.h>

uint64_t eb_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t eb_now_ms(void) { return eb_now_us() / 1000u; }

eb_deadline eb_deadline_in(uint64_t ms) { return eb_now_ms() + ms; }

int eb_deadline_left_ms(eb_deadline d)
{
    uint64_t now = eb_now_ms();
    if (now >= d)
        return 0;
    uint64_t left = d - now;
    return left > 0x7fffffff ? 0x7fffffff : (int)left;
}

int eb_deadline_passed(eb_deadline d) { return eb_now_ms() >= d; }

void eb_sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000u, .tv_nsec = (long)(ms % 1000u) * 1000000L};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

void eb_iso8601_utc(char out[32])
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
