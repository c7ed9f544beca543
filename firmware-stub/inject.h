/* Fault injection: make chosen firmware calls fail on purpose, to test
 * what the kernel's EFI stub does about it. Each injected fault is marked
 * in the trace ("injected":"NAME"). Everything about a kind is its
 * descriptor in inject_faults[] (inject.c). */
#ifndef HANDOVER_INJECT_H
#define HANDOVER_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "efi.h"

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
    INJECT_KINDS
};

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

/* SPEC's :VALUE. */
enum inject_value {
    INJECT_VALUE_NONE,
    INJECT_VALUE_REQUIRED,
    INJECT_VALUE_OPTIONAL,   /* 1 when left out */
};

/* The calls a kind can apply to; its applies hook narrows them down. */
enum inject_scope {
    INJECT_ON_SERVICES,      /* the services whose row names it (struct fw_service.faults) */
    INJECT_ON_LOOKUPS,       /* every protocol lookup (struct fw_service.lookup) */
    INJECT_ON_BOOT,          /* the whole boot: applies to its first call, armed from then on */
};

struct firmware;
struct fw_service;
struct guest_view;

/* Whether kind k applies to this call (a[]: its register arguments). */
typedef bool inject_applies_fn(const struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                               const struct guest_view *v, const uint64_t *a);
/* Called with the fault armed: whether it is injected, with *status the
 * call's status then. */
typedef bool inject_hook_fn(struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                            const struct guest_view *v, const uint64_t *a, efi_status_t *status);

struct inject_fault {
    const char *name;
    enum inject_value value;
    bool hex;                    /* VALUE is an address (A): inject_spec writes it in hex */
    bool takes_from;             /* SPEC@K makes sense (not for the Nth-call and whole-boot faults) */
    const char *help;            /* what --help says after the spec */
    enum inject_scope scope;
    inject_applies_fn *applies;  /* NULL: every call in its scope */
    inject_hook_fn *before;      /* the fault instead of the call */
    inject_hook_fn *after;       /* the fault on the call's result */
    void (*memmap)(struct firmware *fw);  /* on: changes the memory map once the VMM placed everything */
};

extern const struct inject_fault inject_faults[INJECT_KINDS];

/* Parse one --inject SPEC into in; -1 with a message in err if invalid. */
int inject_parse(struct inject *in, const char *spec, char *err, unsigned errlen);
/* The spec that arms kind k as in (NAME[:VALUE][@K]), for messages. */
void inject_spec(const struct inject *in, enum inject_kind k, char *buf, unsigned len);
/* For --help: a line per spec, each after indent. */
void inject_help(char *buf, size_t len, const char *indent);

#endif
