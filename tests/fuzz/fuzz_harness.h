/* What every harness shares: CHECK, a promise of the code under test that
 * aborts (libFuzzer then keeps the input) naming the file, line and
 * condition; and guest RAM with a guard page on each side, so that an
 * access past either end faults at once. */
#ifndef HANDOVER_FUZZ_HARNESS_H
#define HANDOVER_FUZZ_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                 \
        }                                                                            \
    } while (0)

#define FUZZ_PAGE 0x1000ULL

/* size bytes of RAM between two inaccessible pages; aborts if it cannot. */
static inline uint8_t *fuzz_guarded_ram(size_t size)
{
    uint8_t *m = mmap(NULL, size + 2 * FUZZ_PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED || mprotect(m + FUZZ_PAGE, size, PROT_READ | PROT_WRITE))
        abort();
    return m + FUZZ_PAGE;
}

/* The firmware harnesses' host side, made once per process: guest RAM
 * of size bytes, /dev/null for the firmware's log, and whether the
 * environment variable trace_var asks for each call on stderr. */
static inline void fuzz_host_once(uint8_t **ram, size_t size, FILE **devnull, bool *verbose, const char *trace_var)
{
    if (*ram)
        return;
    *ram = fuzz_guarded_ram(size);
    *devnull = fopen("/dev/null", "w");
    if (!*devnull)
        abort();
    *verbose = getenv(trace_var) != NULL;
}

#endif
