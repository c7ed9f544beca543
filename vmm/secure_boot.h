/* --secure-boot KEYDIR: the keys enrolled into the firmware's variables as
 * a platform owner enrols them, and the top-level image checked as a
 * boot manager's LoadImage checks a boot option (docs/secure-boot.md). */
#ifndef HANDOVER_SECURE_BOOT_H
#define HANDOVER_SECURE_BOOT_H

#include <stddef.h>
#include <stdint.h>

struct vmm;

/* KEYDIR's db.auth, dbx.auth, KEK.auth and PK.auth as read, in the order
 * they are enrolled (NULL: not in KEYDIR). */
#define SECURE_BOOT_KEYS 4
struct secure_boot_keys {
    uint8_t *data[SECURE_BOOT_KEYS];
    size_t size[SECURE_BOOT_KEYS];
};

/* Read KEYDIR's files, before /dev/kvm is opened: -1 with the reason
 * logged if KEYDIR is not a folder or a file cannot be read. */
int secure_boot_read_keys(struct vmm *vm);
/* Enrol the keys read, PK last (it ends Setup Mode), then check the image
 * file: 0, or an exit status with the reason logged (EXIT_FIRMWARE_EXIT,
 * the firmware stopped with FW_STOP_REFUSED, for a refused image). */
int secure_boot_setup(struct vmm *vm);
void secure_boot_keys_free(struct secure_boot_keys *k);

/* --report's secure_boot: "setup-mode" or "user-mode"; NULL without it. */
const char *secure_boot_mode_name(const struct vmm *vm);

#endif
