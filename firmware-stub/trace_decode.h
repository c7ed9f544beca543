/* The fields a service's decoder (struct fw_service.decode) writes into a
 * trace line's "decoded" object, each ,"key":value; anything unreadable in
 * guest memory is left out. */
#ifndef HANDOVER_FW_TRACE_DECODE_H
#define HANDOVER_FW_TRACE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "service.h"

void fw_trace_u64(struct fw_trace_out *o, const char *key, uint64_t val);
void fw_trace_hex(struct fw_trace_out *o, const char *key, uint64_t val);
void fw_trace_str(struct fw_trace_out *o, const char *key, const char *s);
/* *addr, a UINT64 the call read or wrote. */
void fw_trace_ptr_u64(struct fw_trace_out *o, const char *key, const struct guest_view *v, uint64_t addr,
                      bool as_hex);
/* *addr, a UINTN or pointer the call read or wrote (8 bytes, or 4 for an
 * IA-32 firmware). */
void fw_trace_ptr_uintn(struct fw_trace_out *o, const char *key, const struct guest_view *v, uint64_t addr,
                        bool as_hex);
/* An EFI_STATUS argument by name (an IA-32 one has its error bit at 31). */
void fw_trace_status(struct fw_trace_out *o, const char *key, uint64_t val);
/* The EFI_GUID at addr, by name where known. */
void fw_trace_guid(struct fw_trace_out *o, const char *key, const struct guest_view *v, uint64_t addr);
/* "memory_type": an EFI_MEMORY_TYPE by name. */
void fw_trace_memory_type(struct fw_trace_out *o, uint32_t type);
/* A CHAR16 as printable ASCII, JSON-safe: '?' for any other, '"' and '\\' too. */
char fw_trace_ascii(uint16_t c);
/* "name": a variable's UCS-2 name, printable ASCII only. */
void fw_trace_name(struct fw_trace_out *o, const struct guest_view *v, uint64_t addr);
/* The decoder of a lookup that shows only "protocol", its GUID
 * (struct fw_lookup); the other lookups' decoders start with it. */
fw_decoder fw_decode_protocol;

/* ,"decoded":{...} for a trace line, or 0 bytes; uintn: sizeof(UINTN). */
size_t fw_trace_decode(const struct fw_service *s, const struct guest_view *v, const uint64_t *a,
                       efi_status_t status, unsigned uintn, char *buf, size_t cap);

#endif
