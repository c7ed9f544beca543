/* The host's monotonic clock, in seconds: the report's phase times and the
 * sweep's timings are differences of it. */
#ifndef HANDOVER_CLOCK_H
#define HANDOVER_CLOCK_H

#include <time.h>

static inline double now(void)
{
    struct timespec t;
    /* Fails only for a bad clock or pointer (clock_gettime(2)). */
    if (clock_gettime(CLOCK_MONOTONIC, &t))
        return 0;
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#endif
