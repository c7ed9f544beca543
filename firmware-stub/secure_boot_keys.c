/* Secure Boot's keys in the variable store (UEFI 2.10 sections 8.2.2 and
 * 32.3): PK, KEK, db and dbx are time-based authenticated variables and
 * the mode variables are derived from PK. */
#include "secure_boot_keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authenticode.h"
#include "guids.h"
#include "log.h"
#include "signature_list.h"
#include "signed_data.h"
#include "variable_store.h"

#define KEY_ATTRS (EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS | \
                   EFI_VARIABLE_TIME_BASED_AUTHENTICATED_WRITE_ACCESS)
#define MODE_ATTRS (EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)

static const char *const key_names[] = { [SB_PK] = "PK", [SB_KEK] = "KEK", [SB_DB] = "db", [SB_DBX] = "dbx" };

static efi_guid_t key_guid(enum secure_boot_key key)
{
    return key == SB_DB || key == SB_DBX ? GUID_IMAGE_SECURITY_DATABASE : GUID_GLOBAL_VARIABLE;
}

static struct fw_variable *key_variable(struct firmware *fw, enum secure_boot_key key)
{
    uint16_t name[4];
    const efi_guid_t g = key_guid(key);
    struct fw_variable **p = fw_variable_find(fw, name, fw_variable_ascii_name(key_names[key], name), &g);
    return p ? *p : NULL;
}

/* The modes follow PK: Setup Mode without it, User Mode (SecureBoot 1)
 * with it; Audit and Deployed Mode are not entered (section 32.3, figure
 * 32-4). Each mode variable is one byte, BS|RT, read-only to the guest. */
static bool derive_modes(struct firmware *fw)
{
    static const char *const modes[] = { "SecureBoot", "SetupMode", "AuditMode", "DeployedMode" };
    bool pk = key_variable(fw, SB_PK) != NULL;
    const uint8_t value[] = { pk, !pk, 0, 0 };
    for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        uint16_t name[16];
        size_t len = fw_variable_ascii_name(modes[i], name);
        const efi_guid_t g = GUID_GLOBAL_VARIABLE;
        uint8_t *byte = malloc(1);
        if (!byte)
            return false;
        *byte = value[i];
        if (!fw_variable_put(fw, fw_variable_find(fw, name, len, &g), name, len, &g, MODE_ATTRS, byte, 1))
            return false;
    }
    return true;
}

/* A key write's signatures: how many (an X.509 certificate counts one,
 * any other two: PK holds exactly one certificate), and whether an
 * EFI_CERT_X509_GUID one is no certificate, which stops the walk. */
struct key_signatures { unsigned kinds; bool not_a_certificate; };

static bool count_signature(const efi_guid_t *type, const uint8_t *data, size_t size, void *ctx)
{
    struct key_signatures *k = ctx;
    bool x509 = guid_equal(type, &GUID_CERT_X509);
    k->kinds += x509 ? 1 : 2;
    k->not_a_certificate = x509 && !signed_data_is_certificate(data, size);
    return k->not_a_certificate;
}

/* Who may sign a write of key: PK itself, or in Setup Mode the new PK (it
 * signs itself); KEK by PK; db and dbx by PK or KEK. Setup Mode takes
 * KEK, db and dbx without a signature check (as EDK2's AuthVariableLib). */
static bool signers(struct firmware *fw, enum secure_boot_key key, const struct auth2 *a,
                    struct signed_data_anchors *anchors)
{
    const struct fw_variable *pk = key_variable(fw, SB_PK), *kek = key_variable(fw, SB_KEK);
    *anchors = (struct signed_data_anchors){ { NULL }, { 0 }, NULL, 0 };
    if (!pk && key != SB_PK)
        return false;
    anchors->list[0] = pk ? pk->data : a->payload;
    anchors->size[0] = pk ? pk->size : a->payload_size;
    if ((key == SB_DB || key == SB_DBX) && kek) {
        anchors->list[1] = kek->data;
        anchors->size[1] = kek->size;
    }
    return true;
}

/* A write of key parsed into a: the attributes it takes, its descriptor,
 * its signature lists (PK's one X.509 certificate); why says what refused
 * it. */
static efi_status_t parse_key_write(enum secure_boot_key key, uint64_t attrs, const uint8_t *data, uint64_t size,
                                    struct auth2 *a, char *why, size_t whylen)
{
    bool append = attrs & EFI_VARIABLE_APPEND_WRITE;
    if ((attrs & ~(uint64_t)EFI_VARIABLE_APPEND_WRITE) != KEY_ATTRS || (append && key == SB_PK)) {
        snprintf(why, whylen, "attributes 0x%llx: %s takes NV, BS, RT and TIME_BASED_AUTHENTICATED_WRITE_ACCESS "
                 "(0x%x)%s", (unsigned long long)attrs, key_names[key], KEY_ATTRS, key == SB_PK ? "" : ", and APPEND_WRITE");
        return EFI_INVALID_PARAMETER;
    }
    char err[300];
    if (auth2_parse(data, size, a, err, sizeof(err))) {
        snprintf(why, whylen, "EFI_VARIABLE_AUTHENTICATION_2: %s", err);
        return EFI_SECURITY_VIOLATION;
    }
    struct key_signatures k = { 0, false };
    if (a->payload_size && siglist_walk(a->payload, a->payload_size, count_signature, &k, err, sizeof(err)) < 0) {
        snprintf(why, whylen, "%s", err);
        return EFI_INVALID_PARAMETER;
    }
    /* EFI_CERT_X509_GUID's data is a DER X.509 certificate (UEFI 2.10
     * section 32.4.1); EDK2's CheckSignatureListFormat refuses a write
     * whose certificate it cannot read, where it would anchor nothing. */
    if (k.not_a_certificate) {
        snprintf(why, whylen, "an EFI_CERT_X509_GUID signature is not a DER X.509 certificate");
        return EFI_INVALID_PARAMETER;
    }
    if (key == SB_PK && a->payload_size && k.kinds != 1) {
        snprintf(why, whylen, "PK holds one X.509 certificate and nothing else");
        return EFI_INVALID_PARAMETER;
    }
    return EFI_SUCCESS;
}

/* May a, a write of key over the variable at p (NULL: none yet), be
 * taken: a TimeStamp later than the last one (but to append), and a
 * signature by one of signers(). */
static efi_status_t authorize_key_write(struct firmware *fw, enum secure_boot_key key, const uint16_t *name,
                                        size_t len, const efi_guid_t *g, uint64_t attrs, const struct auth2 *a,
                                        struct fw_variable *const *p, char *why, size_t whylen)
{
    bool append = attrs & EFI_VARIABLE_APPEND_WRITE;
    if (p && !append && efi_time_compare(a->timestamp, (*p)->timestamp) <= 0) {
        snprintf(why, whylen, "its TimeStamp is not later than the one %s was written with", key_names[key]);
        return EFI_SECURITY_VIOLATION;
    }
    struct signed_data_anchors anchors;
    char err[300];
    if (signers(fw, key, a, &anchors) &&
        auth2_verify(a, name, len, g, (uint32_t)attrs, &anchors, err, sizeof(err))) {
        snprintf(why, whylen, "its signature: %s", err);
        return EFI_SECURITY_VIOLATION;
    }
    return EFI_SUCCESS;
}

/* The store after a's write of key at p (NULL: none yet): deleted by an
 * empty payload, else replaced or, with append, appended to (only the
 * signatures not there yet), keeping the latest TimeStamp. */
static efi_status_t store_key(struct firmware *fw, enum secure_boot_key key, struct fw_variable **p,
                              const uint16_t *name, size_t len, const efi_guid_t *g, bool append,
                              const struct auth2 *a, char *why, size_t whylen)
{
    if (!a->payload_size && !append) {
        if (!p) {
            snprintf(why, whylen, "there is no %s to delete", key_names[key]);
            return EFI_NOT_FOUND;
        }
        fw_variable_delete(fw, p);
        return EFI_SUCCESS;
    }
    if (!a->payload_size && !p)   /* nothing appended to nothing: as in write_data (variables.c) */
        return EFI_SUCCESS;
    uint64_t old = p && append ? (*p)->size : 0, added = a->payload_size;
    uint8_t *bytes = malloc(old + added ? old + added : 1);
    if (bytes && old) {
        memcpy(bytes, (*p)->data, old);
        added = siglist_new_signatures((*p)->data, old, a->payload, a->payload_size, bytes + old);
    } else if (bytes && added) {
        memcpy(bytes, a->payload, added);
    }
    efi_status_t room = bytes ? fw_variable_room(fw, p, old + added) : EFI_SUCCESS;
    if (room != EFI_SUCCESS) {
        free(bytes);
        if (room == EFI_INVALID_PARAMETER)
            snprintf(why, whylen, "%s would exceed a variable's %u bytes", key_names[key], VAR_DATA_MAX);
        else
            snprintf(why, whylen, "the store is full");
        return room;
    }
    struct fw_variable *var = bytes ? fw_variable_put(fw, p, name, len, g, KEY_ATTRS, bytes, old + added) : NULL;
    if (!var) {
        snprintf(why, whylen, "out of memory");
        return EFI_OUT_OF_RESOURCES;
    }
    if (!append || efi_time_compare(a->timestamp, var->timestamp) > 0)
        memcpy(var->timestamp, a->timestamp, EFI_TIME_SIZE);
    return EFI_SUCCESS;
}

/* A write of PK, KEK, db or dbx: data is EFI_VARIABLE_AUTHENTICATION_2
 * and the new signature lists; why says what refused it. */
static efi_status_t write_key(struct firmware *fw, enum secure_boot_key key, const uint16_t *name, size_t len,
                              const efi_guid_t *g, uint64_t attrs, const uint8_t *data, uint64_t size, char *why,
                              size_t whylen)
{
    struct auth2 a;
    efi_status_t s = parse_key_write(key, attrs, data, size, &a, why, whylen);
    if (s != EFI_SUCCESS)
        return s;
    struct fw_variable **p = fw_variable_find(fw, name, len, g);
    s = authorize_key_write(fw, key, name, len, g, attrs, &a, p, why, whylen);
    if (s == EFI_SUCCESS)
        s = store_key(fw, key, p, name, len, g, attrs & EFI_VARIABLE_APPEND_WRITE, &a, why, whylen);
    if (s != EFI_SUCCESS)
        return s;
    if (key == SB_PK && !derive_modes(fw)) {
        snprintf(why, whylen, "out of memory for the mode variables");
        return EFI_OUT_OF_RESOURCES;
    }
    return EFI_SUCCESS;
}

efi_status_t fw_set_key_variable(struct firmware *fw, const struct guest_view *v, enum secure_boot_key key,
                                 const uint16_t *name, size_t len, const efi_guid_t *g, uint64_t attrs, uint64_t size,
                                 uint64_t data)
{
    if (size > VAR_DATA_MAX)
        return EFI_INVALID_PARAMETER;   /* DataSize past the maximum (UEFI 2.10 section 8.2) */
    uint8_t *bytes = malloc(size ? size : 1);
    if (!bytes)
        return EFI_OUT_OF_RESOURCES;
    efi_status_t s = EFI_INVALID_PARAMETER;
    char why[400];
    if (!size || guest_view_read(v, data, bytes, size)) {
        s = write_key(fw, key, name, len, g, attrs, bytes, size, why, sizeof(why));
        if (s != EFI_SUCCESS)
            fw_log(fw, "SetVariable(%s): %s: %s", key_names[key], efi_status_name(s), why);
    }
    free(bytes);
    return s;
}

int fw_secure_boot_init(struct firmware *fw)
{
    return derive_modes(fw) ? 0 : -1;
}

int firmware_secure_boot_enroll(struct firmware *fw, const char *key_name, const uint8_t *data, size_t size, char *err,
                          size_t errlen)
{
    for (enum secure_boot_key key = SB_PK; key <= SB_DBX; key++) {
        if (strcmp(key_name, key_names[key]))
            continue;
        uint16_t name[4];
        size_t len = fw_variable_ascii_name(key_names[key], name);
        const efi_guid_t g = key_guid(key);
        char why[400];
        efi_status_t s = write_key(fw, key, name, len, &g, KEY_ATTRS, data, size, why, sizeof(why));
        if (s == EFI_SUCCESS)
            return 0;
        snprintf(err, errlen, "%s, %s", efi_status_name(s), why);
        return -1;
    }
    snprintf(err, errlen, "%s is not PK, KEK, db or dbx", key_name);
    return -1;
}

enum firmware_secure_boot_state firmware_secure_boot_state(const struct firmware *fw)
{
    if (!fw->cfg.secure_boot)
        return FW_SECURE_BOOT_OFF;
    for (const struct fw_variable *var = fw->variables; var; var = var->next)
        if (secure_boot_key_of(var->name, var->name_len, &var->guid) == SB_PK)
            return FW_SECURE_BOOT_USER_MODE;
    return FW_SECURE_BOOT_SETUP_MODE;
}

bool firmware_secure_boot_allows(struct firmware *fw, const uint8_t *file, size_t size, char *why, size_t whylen)
{
    if (firmware_secure_boot_state(fw) != FW_SECURE_BOOT_USER_MODE) {
        snprintf(why, whylen, "Secure Boot is not enforced");
        return true;
    }
    const struct fw_variable *db = key_variable(fw, SB_DB), *dbx = key_variable(fw, SB_DBX);
    return authenticode_allowed(file, size, db ? db->data : NULL, db ? db->size : 0, dbx ? dbx->data : NULL,
                                dbx ? dbx->size : 0, why, whylen);
}
