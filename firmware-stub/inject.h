/* Fault injection: make chosen firmware calls fail on purpose, to test
 * what the kernel's EFI stub does about it. Each injected fault is marked
 * in the trace ("injected":"NAME"). */
#ifndef HANDOVER_INJECT_H
#define HANDOVER_INJECT_H

#include <stdbool.h>
#include <stdint.h>

enum inject_kind {
    INJECT_GMM_TOO_SMALL,     /* gmm-too-small[:N]   GetMemoryMap: EFI_BUFFER_TOO_SMALL N times (default 1) */
    INJECT_EBS_STALE_KEY,     /* ebs-stale-key       ExitBootServices: the map changes under it, once */
    INJECT_ALLOC_PAGES_FAIL,  /* alloc-pages-fail:N  AllocatePages: EFI_OUT_OF_RESOURCES on the Nth call */
    INJECT_ALLOC_PAGES_ABOVE, /* alloc-pages-above:ADDR  AllocatePages: no memory at or above ADDR */
    INJECT_ALLOC_POOL_FAIL,   /* alloc-pool-fail:N   AllocatePool: EFI_OUT_OF_RESOURCES on the Nth call */
    INJECT_NO_LOADED_IMAGE,   /* no-loaded-image     the image handle lacks EFI_LOADED_IMAGE_PROTOCOL */
    INJECT_GETVAR_ERROR,      /* getvar-error        GetVariable: EFI_DEVICE_ERROR */
    INJECT_NO_RNG,            /* no-rng              no EFI_RNG_PROTOCOL */
    INJECT_MAP_FRAGMENTED,    /* memmap-fragmented   a reserved page every 2 MiB below 256 MiB */
    INJECT_NO_LOW_FREE,       /* no-low-free         no free RAM between 1 MiB and 4 GiB */
    INJECT_NO_LOADFILE2,      /* no-loadfile2        no LoadFile2 device path for the initrd */
    INJECT_KINDS
};

/* Each kind applies to some calls (inject_applies in dispatch.c): seen[]
 * counts them, whether the fault is on or not. SPEC@K arms a fault from
 * the Kth call it applies to; the --fault-sweep arms one at the call it
 * restores a snapshot to. */
struct inject {
    bool on[INJECT_KINDS];
    uint64_t value[INJECT_KINDS];      /* N or ADDR */
    uint64_t from[INJECT_KINDS];       /* @K (0: from the first call) */
    uint64_t seen[INJECT_KINDS];       /* calls it applies to so far */
    uint64_t count[INJECT_KINDS];      /* faults injected so far */
    uint64_t first_seen[INJECT_KINDS]; /* seen[] when it was first injected */
};

/* Parse one --inject SPEC into in; -1 with a message in err if invalid. */
int inject_parse(struct inject *in, const char *spec, char *err, unsigned errlen);
/* Whether SPEC@K makes sense for a kind (not for the Nth-call and
 * whole-boot faults). */
bool inject_takes_from(enum inject_kind k);
/* The spec that arms kind k as in (NAME[:VALUE][@K]), for messages. */
void inject_spec(const struct inject *in, enum inject_kind k, char *buf, unsigned len);
/* For --help: one line per spec. */
extern const char *const inject_help[];
extern const char *const inject_names[INJECT_KINDS];

#endif
