/* The firmware's width: an x64 firmware (the default) or an IA-32 one
 * (--firmware-bits 32), which a mixed-mode kernel calls back in 32-bit
 * protected mode (arch/x86/boot/compressed/efi_mixed.S). Each call's
 * arguments come from the stack (cdecl, dispatch.c), and its UINTN and
 * pointer outputs are 4 bytes wide (UEFI 2.10 section 2.3.2); a UINT64 or
 * EFI_PHYSICAL_ADDRESS stays 8 bytes in both. The services are the same:
 * they read and write through these helpers. */
#ifndef HANDOVER_FW_WIDTH_H
#define HANDOVER_FW_WIDTH_H

#include <stdbool.h>
#include <stdint.h>

#include "le_bytes.h"
#include "state.h"
#include "../guest/guest_mem.h"

static inline bool fw_ia32(const struct firmware *fw)
{
    return fw->cfg.bits == 32;
}

/* The address of the stack byte off above an IA-32 caller's return
 * address: ESP + 4 + off as the CPU forms it in 32-bit protected mode or
 * compatibility mode, where an address has 32 bits and wraps at 4 GiB
 * (what lies above 4 GiB is out of such a caller's reach). */
static inline uint64_t fw_stack32(uint64_t rsp, uint64_t off)
{
    return (uint32_t)(rsp + 4 + off);
}

/* sizeof(UINTN), and of a pointer, EFI_HANDLE or EFI_EVENT. */
static inline unsigned fw_uintn_size(const struct firmware *fw)
{
    return fw_ia32(fw) ? 4 : 8;
}

/* A UINTN or pointer the guest passes by reference, zero-extended. */
static inline bool fw_read_uintn(const struct firmware *fw, const struct guest_view *v, uint64_t addr, uint64_t *out)
{
    uint32_t w;
    if (!fw_ia32(fw))
        return guest_view_read_u64(v, addr, out);
    if (!guest_view_read(v, addr, &w, 4))
        return false;
    *out = w;
    return true;
}

/* A UINTN or pointer output. On IA-32 a value above 4 GiB is a firmware
 * bug (everything it hands out lies below), so it is never truncated
 * silently: the write fails. */
static inline bool fw_write_uintn(const struct firmware *fw, const struct guest_view *v, uint64_t addr, uint64_t val)
{
    if (!fw_ia32(fw))
        return guest_view_write_u64(v, addr, val);
    uint32_t w = (uint32_t)val;
    return w == val && guest_view_write(v, addr, &w, 4);
}

/* n UINTNs or pointers (handles, GUID pointers) at addr, an array. */
static inline bool fw_write_uintn_array(const struct firmware *fw, const struct guest_view *v, uint64_t addr,
                                        const uint64_t *vals, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (!fw_write_uintn(fw, v, addr + (uint64_t)i * fw_uintn_size(fw), vals[i]))
            return false;
    return true;
}

/* A protocol interface that opens with a UINT64 Revision followed by n
 * pointers (EFI_SIMPLE_FILE_SYSTEM_PROTOCOL, EFI_FILE_PROTOCOL,
 * EFI_BLOCK_IO_PROTOCOL), written at addr in guest RAM: Revision 8 bytes
 * at 0 in both bindings, each pointer UINTN-wide after it, 4 bytes apart on
 * IA-32 (UEFI 2.10 section 2.3.2). */
static inline bool fw_put_revision_interface(const struct firmware *fw, uint64_t addr, uint64_t revision,
                                             const uint64_t *ptrs, unsigned n)
{
    uint8_t buf[8 + 8 * 16];
    unsigned w = fw_uintn_size(fw);
    if (n > 16)
        return false;
    put64(buf, revision);
    for (unsigned i = 0; i < n; i++) {
        if (w == 4)
            put32(buf + 8 + 4 * i, (uint32_t)ptrs[i]);
        else
            put64(buf + 8 + 8 * i, ptrs[i]);
    }
    return guest_mem_write(fw->gm, addr, buf, 8 + (uint64_t)w * n);
}

/* What AllocatePages and the pool hand out lies below 4 GiB on IA-32,
 * where a pointer is 4 bytes: an AllocateAnyPages or AllocateMaxAddress
 * becomes an AllocateMaxAddress at most this. */
#define FW_IA32_MAX_ADDRESS 0xffffffffULL

#endif
