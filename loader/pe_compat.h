/* The PE compat entries of a 64-bit kernel built with CONFIG_EFI_MIXED
 * (since 5.7): a ".compat" section of entries { UINT8 type (1), UINT8
 * size, UINT16 PE machine, UINT32 entry point RVA }, ended by a zero
 * type, through which a firmware of another width finds the entry it can
 * call (arch/x86/boot/header.S, .compat; the IA-32 one is efi32_pe_entry,
 * arch/x86/boot/compressed/efi_mixed.S). */
#ifndef HANDOVER_PE_COMPAT_H
#define HANDOVER_PE_COMPAT_H

#include <stddef.h>
#include <stdint.h>

#include "../firmware-stub/pe.h"

/* The entry point (an RVA inside an executable section) the .compat
 * section lists for machine. -1 with a one-line message in err when the
 * image has no such section, the section lists no entry for machine, or
 * an entry is malformed. */
int pe_compat_entry(const struct pe_image *pe, uint16_t machine, uint32_t *rva, char *err, size_t errlen);

#endif
