/* --secure-boot KEYDIR (secure_boot.h). */
#include "secure_boot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../firmware-stub/secure_boot_keys.h"
#include "host/files.h"
#include "host/log.h"
#include "vmm.h"

/* An .auth file is a few KiB (a signature and some certificates); the
 * firmware takes 64 KiB a variable. */
#define AUTH_FILE_MAX (1u << 20)

/* The enrolment order: PK last, as KeyTool and efi-updatevar users do,
 * because its enrolment ends Setup Mode, after which KEK, db and dbx need
 * signatures by PK or KEK (UEFI 2.10 section 32.3). */
static const char *const keys[SECURE_BOOT_KEYS] = { "db", "dbx", "KEK", "PK" };

/* KEYDIR/NAME.auth into *data; 1 if there is none, -1 on an error (logged). */
static int read_auth(const char *dir, const char *name, uint8_t **data, size_t *size)
{
    char path[4096];
    struct stat st;
    if ((size_t)snprintf(path, sizeof(path), "%s/%s.auth", dir, name) >= sizeof(path)) {
        vmm_log("--secure-boot %s: the path is too long", dir);
        return -1;
    }
    /* Only a name that is not there at all leaves the key out: a symbolic
     * link to nothing is a file that cannot be read, not a missing key (a
     * missing PK.auth would leave the platform in Setup Mode unchecked). */
    if (lstat(path, &st) && errno == ENOENT)
        return 1;
    FILE *f = vmm_open_input("--secure-boot", path);
    if (!f)
        return -1;
    *data = malloc(AUTH_FILE_MAX);
    *size = *data ? fread(*data, 1, AUTH_FILE_MAX, f) : 0;
    bool failed = !*data || ferror(f) || *size == AUTH_FILE_MAX;
    fclose(f);
    if (failed) {
        vmm_log("--secure-boot %s: %s", path, !*data ? "out of memory" : *size == AUTH_FILE_MAX ?
                "1 MiB or more, not a signed signature list" : "read failed");
        free(*data);
        *data = NULL;
        return -1;
    }
    return 0;
}

int secure_boot_read_keys(struct vmm *vm)
{
    struct stat st;
    if (!vm->opt.secure_boot)
        return 0;
    if (stat(vm->opt.secure_boot, &st)) {
        vmm_log("--secure-boot %s: %s", vm->opt.secure_boot, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        vmm_log("--secure-boot %s: not a folder", vm->opt.secure_boot);
        return -1;
    }
    struct secure_boot_keys *k = &vm->placed.secure_boot_keys;
    for (unsigned i = 0; i < SECURE_BOOT_KEYS; i++)
        if (read_auth(vm->opt.secure_boot, keys[i], &k->data[i], &k->size[i]) < 0)
            return -1;
    return 0;
}

int secure_boot_setup(struct vmm *vm)
{
    if (!vm->opt.secure_boot)
        return 0;
    struct secure_boot_keys *k = &vm->placed.secure_boot_keys;
    char enrolled[64] = "", err[512];
    for (unsigned i = 0; i < SECURE_BOOT_KEYS; i++) {
        if (!k->data[i])
            continue;
        if (firmware_secure_boot_enroll(&vm->fw, keys[i], k->data[i], k->size[i], err, sizeof(err))) {
            vmm_log("--secure-boot %s: %s.auth: refused: %s", vm->opt.secure_boot, keys[i], err);
            return EXIT_USAGE;
        }
        snprintf(enrolled + strlen(enrolled), sizeof(enrolled) - strlen(enrolled), "%s%s", *enrolled ? ", " : "",
                 keys[i]);
    }
    secure_boot_keys_free(k);
    if (!vm->opt.quiet)
        vmm_log("--secure-boot %s: enrolled %s: %s", vm->opt.secure_boot, *enrolled ? enrolled : "nothing",
                secure_boot_mode_name(vm));
    /* The firmware refused to start the boot option: an EFI status, as an
     * image's own error is (UEFI 2.10 section 3.1.2: LoadImage's). */
    if (!firmware_secure_boot_allows(&vm->fw, vm->placed.image_file, vm->placed.image_file_size, err, sizeof(err))) {
        vmm_log("%s: Secure Boot refused the image (EFI_SECURITY_VIOLATION): %s", vm->opt.kernel, err);
        vm->fw.stop = FW_STOP_REFUSED;
        vm->fw.stop_status = EFI_SECURITY_VIOLATION;
        return EXIT_FIRMWARE_EXIT;
    }
    return 0;
}

void secure_boot_keys_free(struct secure_boot_keys *k)
{
    for (unsigned i = 0; i < SECURE_BOOT_KEYS; i++) {
        free(k->data[i]);
        k->data[i] = NULL;
    }
}

const char *secure_boot_mode_name(const struct vmm *vm)
{
    switch (firmware_secure_boot_state(&vm->fw)) {
    case FW_SECURE_BOOT_SETUP_MODE:
        return "setup-mode";
    case FW_SECURE_BOOT_USER_MODE:
        return "user-mode";
    default:
        return NULL;
    }
}
