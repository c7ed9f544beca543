#include "clock.h"

#include <time.h>

static double start;

/* CLOCK_MONOTONIC cannot fail with a valid clock id and pointer (clock_gettime(2)). */
double clock_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void clock_start(void)
{
    start = clock_seconds();
}

double clock_since_start(void)
{
    return clock_seconds() - start;
}
