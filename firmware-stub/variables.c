/* The variable store behind GetVariable/SetVariable/GetNextVariableName/
 * QueryVariableInfo (UEFI 2.10 section 8.2). Volatile, host-side, bounded.
 * Missing variables give EFI_NOT_FOUND without touching *DataSize: the stub
 * probes SecureBoot, SetupMode and MOR and relies on that (section 7 item 2).
 * With Secure Boot (cfg.secure_boot) PK, KEK, db and dbx are time-based
 * authenticated variables and the modes are derived from PK (section 32.3). */
#include "variables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth_variable.h"
#include "authenticode.h"
#include "guids.h"
#include "log.h"
#include "signature_list.h"
#include "ucs2.h"
#include "width.h"

#define VAR_NAME_MAX   512            /* characters, with the NUL */
#define VAR_DATA_MAX   (64u << 10)    /* bytes per variable */
#define VAR_STORE_MAX  (1u << 20)     /* bytes in all */
#define VAR_ATTR_KNOWN (EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | \
                        EFI_VARIABLE_RUNTIME_ACCESS | EFI_VARIABLE_APPEND_WRITE)

struct fw_variable {
    struct fw_variable *next;
    efi_guid_t guid;
    uint32_t attrs;
    uint16_t name[VAR_NAME_MAX];
    size_t name_len;             /* characters, without the NUL */
    uint8_t *data;
    uint64_t size;
    uint8_t timestamp[EFI_TIME_SIZE];   /* an authenticated variable's latest TimeStamp */
};

/* What a variable costs the host: its record (the name buffer is fixed
 * size) and its data. The store limit counts this, so that many tiny
 * variables cannot hold far more host memory than the limit says. */
static uint64_t var_cost_of(uint64_t data_size) { return sizeof(struct fw_variable) + data_size; }
static uint64_t var_cost(const struct fw_variable *var) { return var_cost_of(var->size); }

/* Can the store hold total bytes of data for the variable at p (NULL: a
 * new one), within the limits of a variable and of the store? */
static bool store_fits(const struct firmware *fw, struct fw_variable *const *p, uint64_t total)
{
    return total <= VAR_DATA_MAX && fw->variable_bytes - (p ? var_cost(*p) : 0) + var_cost_of(total) <= VAR_STORE_MAX;
}

static bool visible(const struct firmware *fw, const struct fw_variable *var)
{
    return fw->phase == FW_PHASE_BOOT || (var->attrs & EFI_VARIABLE_RUNTIME_ACCESS);
}

static struct fw_variable **find(struct firmware *fw, const uint16_t *name, size_t len, const efi_guid_t *g)
{
    for (struct fw_variable **p = &fw->variables; *p; p = &(*p)->next)
        if ((*p)->name_len == len && !memcmp((*p)->name, name, 2 * len) && guid_equal(&(*p)->guid, g))
            return p;
    return NULL;
}

static bool read_name_guid(const struct guest_view *v, uint64_t name, uint64_t guid, uint16_t *buf, long *len,
                           efi_guid_t *g)
{
    *len = fw_read_ucs2(v, name, buf, VAR_NAME_MAX);
    return *len >= 0 && guid && guest_view_read(v, guid, g, sizeof(*g));
}

efi_status_t fw_get_variable(struct firmware *fw, const struct guest_view *v, uint64_t name, uint64_t guid,
                             uint64_t attrs, uint64_t size_ptr, uint64_t data)
{
    uint16_t buf[VAR_NAME_MAX];
    efi_guid_t g;
    long len;
    uint64_t size;
    if (!size_ptr || !read_name_guid(v, name, guid, buf, &len, &g) || !fw_read_uintn(fw, v, size_ptr, &size))
        return EFI_INVALID_PARAMETER;
    struct fw_variable **p = find(fw, buf, (size_t)len, &g);
    if (!p || !visible(fw, *p))
        return EFI_NOT_FOUND;
    struct fw_variable *var = *p;
    if (size < var->size) {
        if (!fw_write_uintn(fw, v, size_ptr, var->size))
            return EFI_INVALID_PARAMETER;
        return EFI_BUFFER_TOO_SMALL;
    }
    /* The whole buffer the caller claims must be guest memory. */
    if (!data || !guest_view_accessible(v, data, size) || (attrs && !guest_view_accessible(v, attrs, 4)))
        return EFI_INVALID_PARAMETER;
    guest_view_write(v, data, var->data, var->size);
    fw_write_uintn(fw, v, size_ptr, var->size);
    if (attrs)
        guest_view_write(v, attrs, &var->attrs, 4);
    return EFI_SUCCESS;
}

efi_status_t fw_get_next_variable_name(struct firmware *fw, const struct guest_view *v, uint64_t size_ptr,
                                       uint64_t name, uint64_t guid)
{
    uint16_t buf[VAR_NAME_MAX];
    efi_guid_t g;
    long len;
    uint64_t size;
    if (!size_ptr || !fw_read_uintn(fw, v, size_ptr, &size) || !read_name_guid(v, name, guid, buf, &len, &g))
        return EFI_INVALID_PARAMETER;
    struct fw_variable *var = fw->variables;
    if (len > 0) {
        struct fw_variable **p = find(fw, buf, (size_t)len, &g);
        if (!p)
            return EFI_INVALID_PARAMETER;
        var = (*p)->next;
    }
    while (var && !visible(fw, var))
        var = var->next;
    if (!var)
        return EFI_NOT_FOUND;
    uint64_t need = 2 * (var->name_len + 1);
    if (size < need) {
        fw_write_uintn(fw, v, size_ptr, need);
        return EFI_BUFFER_TOO_SMALL;
    }
    if (!guest_view_accessible(v, name, need) || !guest_view_accessible(v, guid, sizeof(efi_guid_t)))
        return EFI_INVALID_PARAMETER;
    guest_view_write(v, name, var->name, 2 * var->name_len);
    guest_view_write(v, name + 2 * var->name_len, &(uint16_t){ 0 }, 2);
    guest_view_write(v, guid, &var->guid, sizeof(var->guid));
    fw_write_uintn(fw, v, size_ptr, need);
    return EFI_SUCCESS;
}

/* The variable at p (NULL: a new one, added last so that
 * GetNextVariableName walks in creation order) holds bytes (taken) from
 * now on; NULL if out of memory (bytes freed). */
static struct fw_variable *put(struct firmware *fw, struct fw_variable **p, const uint16_t *name, size_t len,
                               const efi_guid_t *g, uint32_t attrs, uint8_t *bytes, uint64_t size)
{
    struct fw_variable *var = p ? *p : calloc(1, sizeof(*var));
    if (!var) {
        free(bytes);
        return NULL;
    }
    if (p) {
        fw->variable_bytes -= var_cost(var);
        free(var->data);
    } else {
        var->guid = *g;
        var->attrs = attrs;
        memcpy(var->name, name, 2 * len);
        var->name_len = len;
        struct fw_variable **tail = &fw->variables;
        while (*tail)
            tail = &(*tail)->next;
        *tail = var;
    }
    var->data = bytes;
    var->size = size;
    fw->variable_bytes += var_cost(var);
    return var;
}

static void delete(struct firmware *fw, struct fw_variable **p)
{
    struct fw_variable *var = *p;
    *p = var->next;
    fw->variable_bytes -= var_cost(var);
    free(var->data);
    free(var);
}

/* --- Secure Boot (UEFI 2.10 sections 8.2.2 and 32.3) --- */

#define KEY_ATTRS (EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS | \
                   EFI_VARIABLE_TIME_BASED_AUTHENTICATED_WRITE_ACCESS)
#define MODE_ATTRS (EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)

static const char *const key_names[] = { [SB_PK] = "PK", [SB_KEK] = "KEK", [SB_DB] = "db", [SB_DBX] = "dbx" };

static size_t ascii_name(const char *ascii, uint16_t *name)
{
    size_t n = 0;
    for (; ascii[n]; n++)
        name[n] = (uint8_t)ascii[n];
    return n;
}

static efi_guid_t key_guid(enum secure_boot_key key)
{
    return key == SB_DB || key == SB_DBX ? GUID_IMAGE_SECURITY_DATABASE : GUID_GLOBAL_VARIABLE;
}

static struct fw_variable *key_variable(struct firmware *fw, enum secure_boot_key key)
{
    uint16_t name[4];
    const efi_guid_t g = key_guid(key);
    struct fw_variable **p = find(fw, name, ascii_name(key_names[key], name), &g);
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
        size_t len = ascii_name(modes[i], name);
        const efi_guid_t g = GUID_GLOBAL_VARIABLE;
        uint8_t *byte = malloc(1);
        if (!byte)
            return false;
        *byte = value[i];
        if (!put(fw, find(fw, name, len, &g), name, len, &g, MODE_ATTRS, byte, 1))
            return false;
    }
    return true;
}

static bool one_certificate(const efi_guid_t *type, const uint8_t *data, size_t size, void *ctx)
{
    (void)data;
    (void)size;
    unsigned *n = ctx;
    *n += guid_equal(type, &GUID_CERT_X509) ? 1 : 2;
    return false;
}

/* Who may sign a write of key: PK itself, or in Setup Mode the new PK (it
 * signs itself); KEK by PK; db and dbx by PK or KEK. Setup Mode takes
 * KEK, db and dbx without a signature check (as EDK2's AuthVariableLib). */
static bool signers(struct firmware *fw, enum secure_boot_key key, const struct auth2 *a,
                    struct signed_data_anchors *anchors)
{
    const struct fw_variable *pk = key_variable(fw, SB_PK), *kek = key_variable(fw, SB_KEK);
    *anchors = (struct signed_data_anchors){ { NULL }, { 0 } };
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
    unsigned kinds = 0;
    if (a->payload_size && siglist_walk(a->payload, a->payload_size, one_certificate, &kinds, err, sizeof(err)) < 0) {
        snprintf(why, whylen, "%s", err);
        return EFI_INVALID_PARAMETER;
    }
    if (key == SB_PK && a->payload_size && kinds != 1) {
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
 * empty payload, else replaced or, with append, appended to, keeping the
 * latest TimeStamp. */
static efi_status_t store_key(struct firmware *fw, enum secure_boot_key key, struct fw_variable **p,
                              const uint16_t *name, size_t len, const efi_guid_t *g, bool append,
                              const struct auth2 *a, char *why, size_t whylen)
{
    if (!a->payload_size && !append) {
        if (!p) {
            snprintf(why, whylen, "there is no %s to delete", key_names[key]);
            return EFI_NOT_FOUND;
        }
        delete(fw, p);
        return EFI_SUCCESS;
    }
    uint64_t old = p && append ? (*p)->size : 0, total = old + a->payload_size;
    if (!store_fits(fw, p, total)) {
        snprintf(why, whylen, "the store is full");
        return EFI_OUT_OF_RESOURCES;
    }
    uint8_t *bytes = malloc(total ? total : 1);
    if (bytes && old)
        memcpy(bytes, (*p)->data, old);
    if (bytes && a->payload_size)
        memcpy(bytes + old, a->payload, a->payload_size);
    struct fw_variable *var = bytes ? put(fw, p, name, len, g, KEY_ATTRS, bytes, total) : NULL;
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
    struct fw_variable **p = find(fw, name, len, g);
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

static efi_status_t set_key_from_guest(struct firmware *fw, const struct guest_view *v, enum secure_boot_key key,
                                       const uint16_t *name, size_t len, const efi_guid_t *g, uint64_t attrs,
                                       uint64_t size, uint64_t data)
{
    if (size > VAR_DATA_MAX)
        return EFI_OUT_OF_RESOURCES;
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

bool fw_variable_data(const struct firmware *fw, const char *ascii, const efi_guid_t *g, const uint8_t **data,
                      uint64_t *size)
{
    uint16_t name[VAR_NAME_MAX];
    size_t len = strlen(ascii);
    if (len >= VAR_NAME_MAX)
        return false;
    ascii_name(ascii, name);
    for (const struct fw_variable *var = fw->variables; var; var = var->next)
        if (var->name_len == len && !memcmp(var->name, name, 2 * len) && guid_equal(&var->guid, g)) {
            *data = var->data;
            *size = var->size;
            return true;
        }
    return false;
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
        size_t len = ascii_name(key_names[key], name);
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

/* The attributes a variable that is not authenticated may be written
 * with now (UEFI 2.10 section 8.2, SetVariable()). */
static efi_status_t check_attrs(const struct firmware *fw, uint64_t attrs)
{
    if (attrs & ~(uint64_t)VAR_ATTR_KNOWN)
        return EFI_UNSUPPORTED;  /* authenticated and hardware-error variables */
    if ((attrs & EFI_VARIABLE_RUNTIME_ACCESS) && !(attrs & EFI_VARIABLE_BOOTSERVICE_ACCESS))
        return EFI_INVALID_PARAMETER;
    if (fw->phase == FW_PHASE_RUNTIME && attrs && !(attrs & EFI_VARIABLE_RUNTIME_ACCESS))
        return EFI_INVALID_PARAMETER;
    return EFI_SUCCESS;
}

/* The variable at p (NULL: a new one) written with attrs and the size
 * bytes at data, or with append those added to its own. */
static efi_status_t write_data(struct firmware *fw, const struct guest_view *v, struct fw_variable **p,
                               const uint16_t *name, size_t len, const efi_guid_t *g, uint32_t attrs, bool append,
                               uint64_t size, uint64_t data)
{
    if (p && (*p)->attrs != attrs)
        return EFI_INVALID_PARAMETER;
    if (size > VAR_DATA_MAX)
        return EFI_OUT_OF_RESOURCES;
    uint64_t old = p ? (*p)->size : 0;
    uint64_t total = append ? old + size : size;
    if (!store_fits(fw, p, total))
        return EFI_OUT_OF_RESOURCES;
    uint8_t *bytes = malloc(total ? total : 1);
    if (!bytes)
        return EFI_OUT_OF_RESOURCES;
    if (append && p)
        memcpy(bytes, (*p)->data, old);
    if (size && !guest_view_read(v, data, bytes + (append ? old : 0), size)) {
        free(bytes);
        return EFI_INVALID_PARAMETER;
    }
    return put(fw, p, name, len, g, attrs, bytes, total) ? EFI_SUCCESS : EFI_OUT_OF_RESOURCES;
}

efi_status_t fw_set_variable(struct firmware *fw, const struct guest_view *v, uint64_t name, uint64_t guid,
                             uint64_t attrs, uint64_t size, uint64_t data)
{
    uint16_t buf[VAR_NAME_MAX];
    efi_guid_t g;
    long len;
    if (!read_name_guid(v, name, guid, buf, &len, &g) || len == 0 || (size && !data))
        return EFI_INVALID_PARAMETER;
    if (fw->cfg.secure_boot && secure_boot_mode_variable(buf, (size_t)len, &g))
        return EFI_WRITE_PROTECTED;
    enum secure_boot_key key = fw->cfg.secure_boot ? secure_boot_key_of(buf, (size_t)len, &g) : SB_NOT_A_KEY;
    if (key != SB_NOT_A_KEY)
        return set_key_from_guest(fw, v, key, buf, (size_t)len, &g, attrs, size, data);
    efi_status_t s = check_attrs(fw, attrs);
    if (s != EFI_SUCCESS)
        return s;
    bool append = attrs & EFI_VARIABLE_APPEND_WRITE;
    attrs &= ~(uint64_t)EFI_VARIABLE_APPEND_WRITE;
    struct fw_variable **p = find(fw, buf, (size_t)len, &g);
    if (p && !visible(fw, *p))
        p = NULL;
    if (attrs && (size || append))
        return write_data(fw, v, p, buf, (size_t)len, &g, (uint32_t)attrs, append, size, data);
    if (!p)   /* no attributes, or no data to write: a delete */
        return EFI_NOT_FOUND;
    delete(fw, p);
    return EFI_SUCCESS;
}

efi_status_t fw_query_variable_info(struct firmware *fw, const struct guest_view *v, uint64_t attrs,
                                    uint64_t max_storage, uint64_t remaining, uint64_t max_size)
{
    uint64_t known = VAR_ATTR_KNOWN | (fw->cfg.secure_boot ? EFI_VARIABLE_TIME_BASED_AUTHENTICATED_WRITE_ACCESS : 0);
    if (!attrs || (attrs & ~known))
        return attrs ? EFI_UNSUPPORTED : EFI_INVALID_PARAMETER;
    if (!guest_view_accessible(v, max_storage, 8) || !guest_view_accessible(v, remaining, 8) ||
        !guest_view_accessible(v, max_size, 8) || !max_storage || !remaining || !max_size)
        return EFI_INVALID_PARAMETER;
    guest_view_write_u64(v, max_storage, VAR_STORE_MAX);
    guest_view_write_u64(v, remaining, VAR_STORE_MAX - fw->variable_bytes);
    guest_view_write_u64(v, max_size, VAR_DATA_MAX);
    return EFI_SUCCESS;
}

void fw_variables_free(struct firmware *fw)
{
    while (fw->variables) {
        struct fw_variable *var = fw->variables;
        fw->variables = var->next;
        free(var->data);
        free(var);
    }
    fw->variable_bytes = 0;
}

int fw_variables_copy(struct firmware *dst, const struct firmware *src)
{
    struct fw_variable **tail = &dst->variables;
    for (const struct fw_variable *var = src->variables; var; var = var->next) {
        struct fw_variable *copy = malloc(sizeof(*copy));
        /* Never NULL, as fw_set_variable makes them: an append copies from it. */
        uint8_t *data = malloc(var->size ? var->size : 1);
        if (!copy || !data) {
            free(copy);
            free(data);
            fw_variables_free(dst);
            return -1;
        }
        *copy = *var;
        copy->next = NULL;
        copy->data = data;
        memcpy(data, var->data, var->size);
        *tail = copy;
        tail = &copy->next;
    }
    return 0;
}
