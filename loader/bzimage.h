/* bzImage and PE/COFF parsing, validation and placement.
 * Documentation/arch/x86/boot.rst (the setup header), the PE format
 * specification (the EFI stub's PE/COFF header, arch/x86/boot/header.S,
 * parsed by pe.c). */
#ifndef HANDOVER_BZIMAGE_H
#define HANDOVER_BZIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../guest/bootparam.h"
#include "../firmware-stub/pe.h"
#include "../guest/guest_mem.h"

#define BZIMAGE_MIN_PROTOCOL 0x020b   /* 2.11: handover_offset */
#define BZIMAGE_MAX_PREF_ADDRESS ((1ULL << 52) - 1)   /* MAXPHYADDR at most 52 (SDM vol. 3A, 4.1.4) */
#define BZIMAGE_ERR_LEN      256

struct bzimage {
    const uint8_t *data;
    size_t size;
    struct setup_header hdr;   /* as found in the file */
    uint32_t setup_size;       /* (setup_sects + 1) * 512: real-mode part */
    uint64_t pm_size;          /* bytes of the protected-mode part in the file */
    char kernel_version[128];  /* from hdr.kernel_version, or "" */
    bool kernel_64;            /* XLF_KERNEL_64; without it an i386 kernel, entered only at handover_offset */

    bool has_pe;               /* an MZ header: pe is the EFI stub's PE image */
    struct pe_image pe;
};

enum boot_entry { ENTRY_HANDOVER, ENTRY_PE };

/* Parse and validate. On failure returns -1 with a one-line message naming
 * the offending field in err. data must outlive bz. */
int bzimage_parse(struct bzimage *bz, const void *data, size_t size, char *err, size_t errlen);
/* Check the image offers the entry to a 64-bit firmware (an i386 kernel
 * offers none); -1 with a message if not. */
int bzimage_check_entry(const struct bzimage *bz, enum boot_entry entry, char *err, size_t errlen);
/* Check it offers the 32-bit handover entry (XLF_EFI_HANDOVER_32, boot
 * protocol 2.11), which an IA-32 firmware enters; -1 with a message if not. */
int bzimage_check_handover32(const struct bzimage *bz, char *err, size_t errlen);
/* Whether it does, without a message. */
bool bzimage_offers_handover32(const struct bzimage *bz);

/* Whether the kernel must lie below 4 GiB: entered by an IA-32 firmware
 * (firmware_bits 32), whose 32-bit protected mode reaches no byte above
 * (and code32_start has 32 bits), or at the handover entry, whose boot
 * protocol loads it higher only with XLF_CAN_BE_LOADED_ABOVE_4G (boot.rst,
 * xloadflags). */
bool bzimage_needs_below_4g(const struct bzimage *bz, enum boot_entry entry, unsigned firmware_bits);

/* Bytes the protected-mode kernel needs at its load address (init_size,
 * at least the file's protected-mode part). */
uint64_t bzimage_load_size(const struct bzimage *bz);
/* Bytes the PE image spans when mapped (SizeOfImage). */
uint64_t bzimage_pe_image_size(const struct bzimage *bz);

/* Copy the protected-mode part to addr, zero the rest of bzimage_load_size. */
int bzimage_load_flat(const struct bzimage *bz, const struct guest_mem *gm, uint64_t addr);
/* Map the PE image at base: pe_load (headers, sections, zero-filled
 * tails, base relocations). */
int bzimage_load_pe(const struct bzimage *bz, const struct guest_mem *gm, uint64_t base);

/* The 64-bit handover entry for a kernel loaded flat at addr. */
uint64_t bzimage_handover_entry(const struct bzimage *bz, uint64_t addr);
/* The 32-bit one: startup_32 + handover_offset (efi32_stub_entry,
 * arch/x86/boot/compressed/efi_mixed.S). */
uint64_t bzimage_handover32_entry(const struct bzimage *bz, uint64_t addr);

struct boot_placement {
    uint64_t code32_start;     /* where the protected-mode kernel sits */
    uint64_t cmdline_addr;     /* NUL-terminated command line */
    uint64_t initrd_addr, initrd_size;
};

/* Build the zero page at bp_addr for the handover protocol: the image's
 * setup header, plus what boot.rst says a boot loader fills. */
int bootparams_build(const struct bzimage *bz, const struct guest_mem *gm, uint64_t bp_addr,
                     const struct boot_placement *pl);

#define TYPE_OF_LOADER_HANDOVER 0xff  /* boot.rst: 0xFF means "undefined" loader */

#endif
