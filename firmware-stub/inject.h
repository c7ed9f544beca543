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
    INJECT_KINDS
};

struct inject {
    bool on[INJECT_KINDS];
    uint64_t value[INJECT_KINDS];    /* N or ADDR */
    uint64_t count[INJECT_KINDS];    /* calls seen / faults injected so far */
};

/* Parse one --inject SPEC into in; -1 with a message in err if invalid. */
int inject_parse(struct inject *in, const char *spec, char *err, unsigned errlen);
/* For --help: one line per spec. */
extern const char *const inject_help[];
extern const char *const inject_names[INJECT_KINDS];

#endif
