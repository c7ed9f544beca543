/* What the boot puts in guest RAM and where (boot.c): the image as read
 * and parsed, where it was loaded, its entry, the zero page, the initrd and
 * the command line. */
#ifndef HANDOVER_BOOT_H
#define HANDOVER_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "../firmware-stub/firmware.h"
#include "../loader/bzimage.h"
#include "../loader/cpio.h"
#include "../firmware-stub/esp.h"
#include "../firmware-stub/volume.h"
#include "secure_boot.h"

struct vmm;

struct placement {
    struct bzimage bz;
    bool app;                 /* the image is an EFI application, not a bzImage */
    struct pe_image app_pe;   /* then its PE image */
    void *image_file;
    size_t image_file_size;
    uint64_t image_start, image_size;   /* the loaded image (LoaderCode) */
    uint64_t entry_rip, boot_params;
    uint32_t compat_entry;              /* --firmware-bits 32 --entry pe: the IA-32 entry's RVA (.compat) */
    struct cpio_builder added;          /* the --exec/--add archive, built before /dev/kvm is opened */
    uint8_t *initrd_data;               /* the initrd (and that archive) */
    uint64_t initrd_size;
    uint8_t *dtb;                       /* --dtb FILE as read (NULL: none, or auto) */
    size_t dtb_len;
    char cmdline[FW_CMDLINE_MAX + 64];
    bool noxsave_added;                 /* the XRSTOR probe added noxsave to cmdline */
    bool restoring;                     /* --snapshot restores the VM: no XRSTOR probe, noxsave_added as saved */
    struct volume esp;                  /* --esp DIR as read (the firmware serves a copy) */
    bool image_on_esp;                  /* the image lies in DIR, at esp_image_path */
    char esp_image_path[FW_ESP_IMAGE_PATH_MAX + 1];
    struct secure_boot_keys secure_boot_keys;   /* --secure-boot KEYDIR's files, until enrolled */
};

/* The files the boot reads besides the image: the --exec/--add archive,
 * the --initrd (with that archive appended), --dtb FILE, the --esp folder
 * and the --secure-boot keys. Read before
 * /dev/kvm is opened, so that a typo is a usage error naming the file, not
 * a KVM error. -1 with the reason logged. */
int vmm_read_inputs(struct vmm *vm);
/* Load the image (the inputs read) and build what the chosen entry needs. */
int vmm_load(struct vmm *vm);

#endif
