/* EFI_MEMORY_ATTRIBUTE_PROTOCOL (UEFI 2.10 section 37.7) on handover's own
 * page tables (guest/page_prot.h): GetMemoryAttributes,
 * SetMemoryAttributes and ClearMemoryAttributes of EFI_MEMORY_RP,
 * EFI_MEMORY_RO and EFI_MEMORY_XP over whole pages of RAM. The x86 stubs
 * since 6.1.81 make the decompressed kernel's text read-only, then
 * executable, and give up on any error
 * (drivers/firmware/efi/libstub/x86-stub.c
 * efi_adjust_memory_range_protection).
 *
 * A 2 MiB page a change covers in part gets a page table from the memory
 * map, a page the firmware keeps (EfiBootServicesData, as the tables
 * x86_setup.c built: the kernel runs on them until it loads its own).
 * The vCPU still holds translations from before: a call that changed an
 * entry sets tables_changed, and the VMM moves the vCPU to the other of
 * the firmware's two PML4s before it returns (vmm/kvm/run.c), which
 * flushes its TLB; a VM exit alone does not (the guest's entries are
 * tagged with its VPID or ASID and outlive it). */
#include "memattr.h"

#include <stdio.h>

#include "log.h"
#include "trace_decode.h"
#include "../guest/page_prot.h"

#define MEMATTR_ATTRIBUTES (EFI_MEMORY_RP | EFI_MEMORY_RO | EFI_MEMORY_XP)

static unsigned prot_of(uint64_t attributes)
{
    return (attributes & EFI_MEMORY_RP ? PAGE_PROT_NOT_PRESENT : 0) |
           (attributes & EFI_MEMORY_RO ? PAGE_PROT_READ_ONLY : 0) |
           (attributes & EFI_MEMORY_XP ? PAGE_PROT_NO_EXECUTE : 0);
}

static uint64_t attributes_of(unsigned prot)
{
    return (prot & PAGE_PROT_NOT_PRESENT ? EFI_MEMORY_RP : 0) | (prot & PAGE_PROT_READ_ONLY ? EFI_MEMORY_RO : 0) |
           (prot & PAGE_PROT_NO_EXECUTE ? EFI_MEMORY_XP : 0);
}

/* What the three services ask of BaseAddress (a[1]) and Length (a[2]):
 * whole pages (the spec names no status for a range that is not; the one
 * for a zero Length), inside RAM (EFI_UNSUPPORTED: "the processor does
 * not support one or more bytes of the memory resource range"). */
static efi_status_t check_range(const struct firmware *fw, uint64_t base, uint64_t length)
{
    if (!length || ((base | length) & (EFI_PAGE_SIZE - 1)))
        return EFI_INVALID_PARAMETER;
    if (base + length < base || !guest_mem_ptr(fw->gm, base, length))
        return EFI_UNSUPPORTED;
    return EFI_SUCCESS;
}

static efi_status_t get_memory_attributes(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t base = a[1], length = a[2], attributes_ptr = a[3];
    unsigned prot;
    if (!fw_writable(v, attributes_ptr, 8))
        return EFI_INVALID_PARAMETER;
    efi_status_t s = check_range(fw, base, length);
    if (s != EFI_SUCCESS)
        return s;
    switch (page_prot_uniform(fw->gm, base, length, &prot)) {
    case 1:
        guest_view_write_u64(v, attributes_ptr, attributes_of(prot));
        return EFI_SUCCESS;
    case 0:
        return EFI_NO_MAPPING;   /* "not consistent across the memory region" */
    default:
        return EFI_UNSUPPORTED;
    }
}

static uint64_t take_table(void *ctx)
{
    struct firmware *fw = ctx;
    uint64_t addr;
    return memmap_take(&fw->map, EFI_BOOT_SERVICES_DATA, 1, &addr) == EFI_SUCCESS ? addr : 0;
}

/* SetMemoryAttributes (set) or ClearMemoryAttributes. The firmware's own
 * pages (its code and tables, the GDT, IDT, page tables and stack:
 * guest/layout.h) are EFI_ACCESS_DENIED, "controlled by system firmware":
 * the next call would fault in its thunks. */
static efi_status_t change(struct firmware *fw, const uint64_t *a, bool set)
{
    uint64_t base = a[1], length = a[2], attributes = a[3];
    if (attributes & ~MEMATTR_ATTRIBUTES)
        return EFI_INVALID_PARAMETER;
    efi_status_t s = check_range(fw, base, length);
    if (s != EFI_SUCCESS)
        return s;
    if (base < GUEST_VMM_END && GUEST_FIRMWARE_BASE < base + length) {
        fw_log(fw, "%sMemoryAttributes(0x%llx, 0x%llx) covers the firmware's own pages (0x%llx-0x%llx): "
               "EFI_ACCESS_DENIED", set ? "Set" : "Clear", (unsigned long long)base, (unsigned long long)length,
               GUEST_FIRMWARE_BASE, GUEST_VMM_END - 1);
        return EFI_ACCESS_DENIED;
    }
    unsigned prot = prot_of(attributes);
    switch (page_prot_change(fw->gm, base, length, set ? prot : 0, set ? 0 : prot, take_table, fw)) {
    case PAGE_PROT_CHANGED:
        fw->tables_changed = true;
        return EFI_SUCCESS;
    case PAGE_PROT_SAME:
        return EFI_SUCCESS;
    case PAGE_PROT_NO_TABLE:
        fw_log(fw, "%sMemoryAttributes(0x%llx, 0x%llx): no free page for a page table: EFI_OUT_OF_RESOURCES",
               set ? "Set" : "Clear", (unsigned long long)base, (unsigned long long)length);
        return EFI_OUT_OF_RESOURCES;
    default:
        return EFI_UNSUPPORTED;
    }
}

static efi_status_t set_memory_attributes(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    return change(fw, a, true);
}

static efi_status_t clear_memory_attributes(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    return change(fw, a, false);
}

/* "attributes": the names of the bits, "|" between them; other bits in hex. */
static void trace_attributes(struct fw_trace_out *o, uint64_t attributes)
{
    static const struct { uint64_t bit; const char *name; } names[] = {
        { EFI_MEMORY_RP, "EFI_MEMORY_RP" }, { EFI_MEMORY_RO, "EFI_MEMORY_RO" }, { EFI_MEMORY_XP, "EFI_MEMORY_XP" },
    };
    char s[80] = "";
    size_t n = 0;
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (attributes & names[i].bit)
            n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%s", n ? "|" : "", names[i].name);
    if (attributes & ~MEMATTR_ATTRIBUTES)
        snprintf(s + n, sizeof(s) - n, "%s0x%llx", n ? "|" : "", (unsigned long long)(attributes & ~MEMATTR_ATTRIBUTES));
    fw_trace_str(o, "attributes", attributes ? s : "0");
}

static void decode_get(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                       const uint64_t *a, efi_status_t status)
{
    (void)s;
    uint64_t attributes;
    fw_trace_hex(o, "base", a[1]);
    fw_trace_hex(o, "length", a[2]);
    if (status == EFI_SUCCESS && guest_view_read_u64(v, a[3], &attributes))
        trace_attributes(o, attributes);
}

static void decode_change(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                          const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "base", a[1]);
    fw_trace_hex(o, "length", a[2]);
    trace_attributes(o, a[3]);
}

#define MEMATTR(i, ...) [i] = { .id = FW_ID_MEMATTR(i), __VA_ARGS__ }   /* i: enum efi_memattr_service */

const struct fw_service fw_memattr_services[MEMATTR_COUNT] = {
    MEMATTR(MEMATTR_GET, .name = "MemoryAttribute.GetMemoryAttributes", .nargs = 4,
            .wide = FW_WIDE(1) | FW_WIDE(2), .fn = get_memory_attributes,
            .decode = decode_get),
    MEMATTR(MEMATTR_SET, .name = "MemoryAttribute.SetMemoryAttributes", .nargs = 4,
            .wide = FW_WIDE(1) | FW_WIDE(2) | FW_WIDE(3), .fn = set_memory_attributes,
            .decode = decode_change, .faults = FW_FAULT(MEMATTR_FAIL)),
    MEMATTR(MEMATTR_CLEAR, .name = "MemoryAttribute.ClearMemoryAttributes", .nargs = 4,
            .wide = FW_WIDE(1) | FW_WIDE(2) | FW_WIDE(3),
            .fn = clear_memory_attributes, .decode = decode_change, .faults = FW_FAULT(MEMATTR_FAIL)),
};
