/* libFuzzer harness for the files of --secure-boot KEYDIR (vmm/secure_boot.c):
 * db.auth, dbx.auth, KEK.auth and PK.auth, each enrolled in that order
 * through firmware_secure_boot_enroll (firmware-stub/secure_boot_keys.c)
 * into a firmware in Setup Mode, then the image asked about with
 * firmware_secure_boot_allows, as secure_boot_setup does. fuzz_secure_boot
 * reads one descriptor alone; here the files go through the enrolment
 * itself: the attributes, the key's signers, the store's replace and
 * append, the mode variables.
 *
 * Input format: a byte whose bits 0-3 say which of db, dbx, KEK and PK
 * are there; for each of those, in that order, a u16 length L and L bytes
 * (copied to a buffer of exactly L bytes, as the file read); the rest is
 * the image file. make-seeds.py writes seeds from the Secure Boot test
 * fixtures (build/secure-boot).
 *
 * Checks, from secure_boot_keys.h and variable_store.h: a refused file
 * leaves the store as it was, byte for byte, and its error message ends
 * inside its buffer; the store's byte count is what its variables cost,
 * none holds more than VAR_DATA_MAX bytes; the state is User Mode exactly
 * when PK is there, and the SecureBoot and SetupMode variables say so;
 * each key holds well-formed signature lists, PK one X.509 certificate;
 * an image is allowed outside User Mode, and the answer does not change
 * when asked again. abort() otherwise; ASan and LeakSanitizer watch
 * libcrypto's objects. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../firmware-stub/guids.h"
#include "../../firmware-stub/secure_boot_keys.h"
#include "../../firmware-stub/signature_list.h"
#include "../../firmware-stub/variable_store.h"
#include "fuzz_harness.h"
#include "fuzz_input.h"

#define ERR_LEN 512

/* secure_boot.c's order: PK last, its enrolment ends Setup Mode. */
static const char *const key_files[] = { "db", "dbx", "KEK", "PK" };

static void check_err(const char *err, size_t len)
{
    CHECK(memchr(err, 0, len));
}

/* The store is the copy's: the same variables in the same order. */
static bool store_equal(const struct firmware *a, const struct firmware *b)
{
    const struct fw_variable *x = a->variables, *y = b->variables;
    for (; x && y; x = x->next, y = y->next)
        if (x->name_len != y->name_len || memcmp(x->name, y->name, 2 * x->name_len) || !guid_equal(&x->guid, &y->guid) ||
            x->attrs != y->attrs || x->size != y->size || memcmp(x->data, y->data, x->size) ||
            memcmp(x->timestamp, y->timestamp, EFI_TIME_SIZE))
            return false;
    return !x && !y && a->variable_bytes == b->variable_bytes;
}

static bool count_x509(const efi_guid_t *type, const uint8_t *data, size_t size, void *ctx)
{
    (void)data, (void)size;
    unsigned *n = ctx;
    *n += guid_equal(type, &GUID_CERT_X509) ? 1 : 100;
    return false;
}

static void check_store(struct firmware *fw)
{
    uint64_t cost = 0;
    for (const struct fw_variable *v = fw->variables; v; v = v->next) {
        CHECK(v->size <= VAR_DATA_MAX);
        cost += sizeof(*v) + v->size;
        enum secure_boot_key key = secure_boot_key_of(v->name, v->name_len, &v->guid);
        if (key == SB_NOT_A_KEY)
            continue;
        char err[ERR_LEN];
        unsigned x509 = 0;
        CHECK(siglist_walk(v->data, v->size, count_x509, &x509, err, sizeof(err)) == 0);
        if (key == SB_PK)
            CHECK(x509 == 1);
    }
    CHECK(cost == fw->variable_bytes);
    const uint8_t *secure, *setup;
    uint64_t n1, n2;
    CHECK(fw_variable_data(fw, "SecureBoot", &GUID_GLOBAL_VARIABLE, &secure, &n1) && n1 == 1);
    CHECK(fw_variable_data(fw, "SetupMode", &GUID_GLOBAL_VARIABLE, &setup, &n2) && n2 == 1);
    const uint8_t *pk;
    uint64_t pk_size;
    bool user = fw_variable_data(fw, "PK", &GUID_GLOBAL_VARIABLE, &pk, &pk_size);
    CHECK(firmware_secure_boot_state(fw) == (user ? FW_SECURE_BOOT_USER_MODE : FW_SECURE_BOOT_SETUP_MODE));
    CHECK(*secure == user && *setup == !user);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct firmware fw, before;
    struct fuzz_in in = { data, size };
    memset(&fw, 0, sizeof(fw));
    fw.cfg.secure_boot = true;
    CHECK(fw_secure_boot_init(&fw) == 0);
    check_store(&fw);

    uint8_t present = in_u8(&in);
    uint8_t *files[4] = { NULL };
    size_t lens[4] = { 0 };
    for (unsigned i = 0; i < 4; i++) {
        if (!(present & (1u << i)))
            continue;
        lens[i] = in_u16(&in);
        if (lens[i] > in.n)
            lens[i] = in.n;
        files[i] = malloc(lens[i] ? lens[i] : 1);
        CHECK(files[i]);
        in_bytes(&in, files[i], lens[i]);
    }
    uint8_t *image = malloc(in.n ? in.n : 1);
    CHECK(image);
    size_t image_size = in.n;
    in_bytes(&in, image, image_size);

    bool refused = false;
    for (unsigned i = 0; i < 4 && !refused; i++) {
        if (!files[i])
            continue;
        memset(&before, 0, sizeof(before));
        CHECK(fw_variables_copy(&before, &fw) == 0);
        before.variable_bytes = fw.variable_bytes;
        char err[ERR_LEN];
        memset(err, 'x', sizeof(err));
        refused = firmware_secure_boot_enroll(&fw, key_files[i], files[i], lens[i], err, sizeof(err)) != 0;
        if (refused) {
            check_err(err, sizeof(err));
            CHECK(store_equal(&fw, &before));
        }
        fw_variables_free(&before);
        check_store(&fw);
    }
    if (!refused) {
        char why[ERR_LEN], again[ERR_LEN];
        memset(why, 'x', sizeof(why));
        bool allowed = firmware_secure_boot_allows(&fw, image, image_size, why, sizeof(why));
        check_err(why, sizeof(why));
        if (firmware_secure_boot_state(&fw) != FW_SECURE_BOOT_USER_MODE)
            CHECK(allowed);
        CHECK(firmware_secure_boot_allows(&fw, image, image_size, again, sizeof(again)) == allowed);
        CHECK(!strcmp(why, again));
    }
    for (unsigned i = 0; i < 4; i++)
        free(files[i]);
    free(image);
    fw_variables_free(&fw);
    return 0;
}
