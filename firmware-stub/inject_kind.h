/* The fault kinds and which of them a run arms (struct inject, part of
 * the firmware's configuration); what each kind does is inject.h's. */
#ifndef HANDOVER_INJECT_KIND_H
#define HANDOVER_INJECT_KIND_H

#include <stdbool.h>
#include <stdint.h>

enum inject_kind {
    INJECT_GMM_TOO_SMALL,
    INJECT_EBS_STALE_KEY,
    INJECT_ALLOC_PAGES_FAIL,
    INJECT_ALLOC_PAGES_ABOVE,
    INJECT_ALLOC_POOL_FAIL,
    INJECT_NO_LOADED_IMAGE,
    INJECT_GETVAR_ERROR,
    INJECT_NO_RNG,
    INJECT_MAP_FRAGMENTED,
    INJECT_NO_LOW_FREE,
    INJECT_NO_LOADFILE2,
    INJECT_FILE_READ_ERROR,
    INJECT_MEMATTR_FAIL,
    INJECT_NO_TPM,
    INJECT_TPM_EXTEND_FAIL,
    INJECT_SECURE_BOOT_REFUSE,
    INJECT_TPM_LOG_FULL,
    INJECT_BLOCK_READ_ERROR,
    INJECT_KINDS
};
/* A service's faults and a call's applying kinds are unsigned masks of
 * 1u << kind (service.h FW_FAULT, dispatch.c). */
_Static_assert(INJECT_KINDS <= 32, "fault kinds past an unsigned mask");

/* Each kind applies to some calls (its descriptor's scope and applies):
 * seen[] counts them, whether the fault is on or not. SPEC@K arms a fault
 * from the Kth call it applies to; the --fault-sweep arms one at the call
 * it restores a snapshot to. */
struct inject {
    bool on[INJECT_KINDS];
    uint64_t value[INJECT_KINDS];      /* N or ADDR */
    uint64_t from[INJECT_KINDS];       /* @K (0: from the first call) */
    uint64_t seen[INJECT_KINDS];       /* calls it applies to so far */
    uint64_t count[INJECT_KINDS];      /* faults injected so far */
    uint64_t first_seen[INJECT_KINDS]; /* seen[] when it was first injected */
};

#endif
