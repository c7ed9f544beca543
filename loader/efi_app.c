/* Telling a bzImage from another EFI application, and checking the latter. */
#include "efi_app.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bootparam.h"

enum image_kind image_kind(const void *data, size_t size)
{
    /* boot.rst: a Linux boot sector ends in boot_flag 0xAA55 and its setup
     * header starts with "HdrS" at 0x202; a bzImage's EFI stub has its PE
     * header in the same file. Either mark makes the file a bzImage, and
     * so does a file too short to hold a setup header (or any PE section
     * after the headers), so that bzimage_parse says what is wrong with it. */
    const size_t flag_at = SETUP_HEADER_OFFSET + offsetof(struct setup_header, boot_flag);
    const size_t magic_at = SETUP_HEADER_OFFSET + offsetof(struct setup_header, header);
    uint16_t flag;
    uint32_t magic;
    if (size < magic_at + sizeof(magic) || !pe_is_mz(data, size))
        return IMAGE_BZIMAGE;
    memcpy(&flag, (const uint8_t *)data + flag_at, sizeof(flag));
    memcpy(&magic, (const uint8_t *)data + magic_at, sizeof(magic));
    return flag == BOOT_FLAG_MAGIC || magic == SETUP_HDRS_MAGIC ? IMAGE_BZIMAGE : IMAGE_EFI_APP;
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
