/* A service: its row in its group's table (struct fw_service), the
 * handler that serves it and the decoder that writes its trace fields. */
#ifndef HANDOVER_FW_SERVICE_H
#define HANDOVER_FW_SERVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "efi.h"
#include "inject_kind.h"
#include "state.h"
#include "../guest/guest_mem.h"

struct fw_service;
struct fw_trace_out;   /* trace_decode.h */

/* A service's host code: a[] holds its arguments (Microsoft x64 ABI, or
 * an IA-32 firmware's cdecl stack: width.h), read through the guest view v. */
typedef efi_status_t fw_handler(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
/* Adds the service's fields to a trace line's "decoded" object, read after
 * the call through the same guest view (trace_decode.h). */
typedef void fw_decoder(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                        const uint64_t *a, efi_status_t status);

/* A protocol lookup (UEFI 2.10 sections 7.3.7-7.3.16): where its EFI_GUID
 * *Protocol is, and what it does when the protocol is not there. */
struct fw_lookup {
    efi_status_t not_found;  /* its status then; 0: the service is no lookup */
    unsigned guid;           /* the argument holding the GUID's address */
    bool by_protocol;        /* the GUID counts only when a[0], SearchType, is ByProtocol */
    bool clears_interface;   /* *Interface, a[2], becomes NULL */
    unsigned attributes;     /* OpenProtocol's: the argument holding Attributes; 0 for the others */
};

/* Everything about one service: the row in its group's table. */
struct fw_service {
    unsigned id;
    const char *name;
    unsigned nargs;
    fw_handler *fn;          /* NULL: EFI_UNSUPPORTED, reported once */
    fw_decoder *decode;      /* NULL: no "decoded" in its trace lines */
    struct fw_lookup lookup;
    unsigned faults;         /* bit k: inject kind k can apply to it (inject.c says when) */
    unsigned wide;           /* bit i: argument i is a UINT64 or EFI_PHYSICAL_ADDRESS, 8 bytes on an IA-32 stack too */
};

#define FW_WIDE(i) (1u << (i))

#define FW_FAULT(kind) (1u << INJECT_##kind)

/* The guest address of the protocol GUID a lookup is given; 0 for any
 * other call (and for a LocateHandle(Buffer) that is not ByProtocol). */
static inline uint64_t fw_protocol_arg(const struct fw_service *s, const uint64_t *a)
{
    if (!s || !s->lookup.not_found || (s->lookup.by_protocol && a[0] != EFI_BY_PROTOCOL))
        return 0;
    return a[s->lookup.guid];
}

/* Does OpenProtocol's Attributes (a UINT32: the upper half of its stack
 * slot is not the caller's) only test? Its Interface then "is ignored,
 * and the caller should only use the return status code" (UEFI 2.10
 * section 7.3.9, EFI_OPEN_PROTOCOL_TEST_PROTOCOL). */
static inline bool fw_open_only_tests(uint64_t attributes)
{
    return (uint32_t)attributes == EFI_OPEN_PROTOCOL_TEST_PROTOCOL;
}

/* The guest address of the *Interface a lookup writes (NULL when the
 * protocol is not there): a[2]; 0 for any other call, and for an
 * OpenProtocol that only tests. */
static inline uint64_t fw_interface_arg(const struct fw_service *s, const uint64_t *a)
{
    if (!s || !s->lookup.clears_interface || (s->lookup.attributes && fw_open_only_tests(a[s->lookup.attributes])))
        return 0;
    return a[2];
}

/* A guest output buffer: non-NULL and wholly inside guest memory. */
static inline bool fw_writable(const struct guest_view *v, uint64_t addr, uint64_t len)
{
    return addr && len && guest_view_accessible(v, addr, len);
}

/* The EFI_GUID at a non-NULL guest address. */
static inline bool fw_read_guid(const struct guest_view *v, uint64_t addr, efi_guid_t *g)
{
    return addr && guest_view_read(v, addr, g, sizeof(*g));
}

#endif
