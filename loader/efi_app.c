/* Telling a bzImage from another EFI application, and checking the latter. */
#include "efi_app.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bootparam.h"

enum image_kind image_kind(const void *data, size_t size)
{
    /* boot.rst: "HdrS" at 0x202 marks a setup header of protocol 2.00 or
     * later; a bzImage's EFI stub has its PE header in the same file. */
    const size_t at = SETUP_HEADER_OFFSET + offsetof(struct setup_header, header);
    uint32_t magic;
    if (size >= at + sizeof(magic)) {
        memcpy(&magic, (const uint8_t *)data + at, sizeof(magic));
        if (magic == SETUP_HDRS_MAGIC)
            return IMAGE_BZIMAGE;
    }
    return pe_is_mz(data, size) ? IMAGE_EFI_APP : IMAGE_BZIMAGE;
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
