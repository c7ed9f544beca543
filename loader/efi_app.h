/* The image argument as a boot manager sees it: a Linux bzImage (entered
 * through its EFI stub by handover itself), or any other EFI application
 * (a boot loader such as GRUB), x64 PE32+ or IA-32 PE32, loaded as
 * LoadImage loads it and entered at AddressOfEntryPoint (UEFI 2.10 §7.4).
 * Pure: works on the file's bytes. */
#ifndef HANDOVER_EFI_APP_H
#define HANDOVER_EFI_APP_H

#include <stddef.h>

#include "../firmware-stub/pe.h"

enum image_kind {
    IMAGE_BZIMAGE,   /* a boot sector or setup header (boot_flag, "HdrS"), with or without a PE header */
    IMAGE_EFI_APP,   /* "MZ", and neither mark; or both, not relocatable, and an EFI application */
};

/* Which kind the file is. Anything that is not clearly an application (no
 * "MZ", or too short to hold a setup header) is a bzImage, so that
 * bzimage_parse names what is wrong with it. */
enum image_kind image_kind(const void *data, size_t size);

/* Parse an EFI application: pe_parse, then Subsystem 10 (a driver is not
 * started by a boot manager). Either machine is taken: pe->machine says
 * which firmware runs it. -1 with a one-line message naming the field in
 * err. data must outlive pe. */
int efi_app_parse(struct pe_image *pe, const void *data, size_t size, char *err, size_t errlen);

#endif
