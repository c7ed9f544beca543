/* Telling a bzImage from another EFI application, and checking the latter. */
#include "efi_app.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../guest/bootparam.h"

/* The setup header's relocatable_kernel, 0 (boot.rst: protocol 2.05 and
 * later): the protected-mode code runs only at code32_start, as
 * memtest86+'s does, which handover's own structures may occupy. */
static bool cannot_be_relocated(const uint8_t *data, size_t size)
{
    const size_t version_at = SETUP_HEADER_OFFSET + offsetof(struct setup_header, version);
    const size_t reloc_at = SETUP_HEADER_OFFSET + offsetof(struct setup_header, relocatable_kernel);
    uint16_t version;
    if (size <= reloc_at)
        return false;
    memcpy(&version, data + version_at, sizeof(version));
    return version >= 0x205 && !data[reloc_at];
}

static bool is_efi_app(const void *data, size_t size)
{
    struct pe_image pe;
    char err[128];
    return !pe_parse(&pe, data, size, err, sizeof(err)) && pe.subsystem == PE_SUBSYSTEM_EFI_APPLICATION;
}

enum image_kind image_kind(const void *data, size_t size)
{
    /* boot.rst: a Linux boot sector ends in boot_flag 0xAA55 and its setup
     * header starts with "HdrS" at 0x202; a bzImage's EFI stub has its PE
     * header in the same file. Either mark makes the file a bzImage, and
     * so does a file too short to hold a setup header (or any PE section
     * after the headers), so that bzimage_parse says what is wrong with it.
     * But an image that is both, whose setup header says it cannot be
     * relocated and whose PE header says EFI application (memtest86+), is
     * loaded as the application it is, where LoadImage would load it. */
    const size_t flag_at = SETUP_HEADER_OFFSET + offsetof(struct setup_header, boot_flag);
    const size_t magic_at = SETUP_HEADER_OFFSET + offsetof(struct setup_header, header);
    uint16_t flag;
    uint32_t magic;
    if (size < magic_at + sizeof(magic) || !pe_is_mz(data, size))
        return IMAGE_BZIMAGE;
    memcpy(&flag, (const uint8_t *)data + flag_at, sizeof(flag));
    memcpy(&magic, (const uint8_t *)data + magic_at, sizeof(magic));
    if (flag != BOOT_FLAG_MAGIC && magic != SETUP_HDRS_MAGIC)
        return IMAGE_EFI_APP;
    return magic == SETUP_HDRS_MAGIC && cannot_be_relocated(data, size) && is_efi_app(data, size) ? IMAGE_EFI_APP
                                                                                                 : IMAGE_BZIMAGE;
}

int efi_app_parse(struct pe_image *pe, const void *data, size_t size, char *err, size_t errlen)
{
    if (pe_parse(pe, data, size, err, errlen))
        return -1;
    if (pe->subsystem != PE_SUBSYSTEM_EFI_APPLICATION) {
        snprintf(err, errlen, "PE: Subsystem %u is an EFI %s driver, not an application (10): a boot manager "
                 "starts only applications", pe->subsystem,
                 pe->subsystem == PE_SUBSYSTEM_EFI_RUNTIME_DRIVER ? "runtime" : "boot service");
        return -1;
    }
    return 0;
}
