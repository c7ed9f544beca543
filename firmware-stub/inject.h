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
#include "inject_kind.h"

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
/* For --help: a spec a line, each after indent, its help from column 21,
 * wrapped to INJECT_HELP_WIDTH characters. */
#define INJECT_HELP_WIDTH 68
void inject_help(char *buf, size_t len, const char *indent);
/* Apply the memory-map faults of cfg.inject, once the VMM has placed
 * everything it needs; returns whether there were any. */
bool firmware_inject_memmap(struct firmware *fw);

#endif
