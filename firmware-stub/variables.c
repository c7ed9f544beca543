/* The variable services, GetVariable/SetVariable/GetNextVariableName/
 * QueryVariableInfo (UEFI 2.10 section 8.2), on the variable store.
 * Missing variables give EFI_NOT_FOUND without touching *DataSize: the stub
 * probes SecureBoot, SetupMode and MOR and relies on that (section 7 item 2).
 * With Secure Boot (cfg.secure_boot) the keys' writes are secure_boot_keys.c's;
 * the modes are read-only with it or without. */
#include "variables.h"

#include <stdlib.h>
#include <string.h>

#include "auth_variable.h"
#include "secure_boot_keys.h"
#include "ucs2.h"
#include "variable_store.h"
#include "width.h"

#define VAR_ATTR_KNOWN (EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | \
                        EFI_VARIABLE_RUNTIME_ACCESS | EFI_VARIABLE_APPEND_WRITE)

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
    struct fw_variable **p = fw_variable_find(fw, buf, (size_t)len, &g);
    if (!p || !fw_variable_visible(fw, *p))
        return EFI_NOT_FOUND;
    struct fw_variable *var = *p;
    /* Attributes is set both on EFI_SUCCESS and on EFI_BUFFER_TOO_SMALL
     * (UEFI 2.10 section 8.2; EDK2's VariableServiceGetVariable). */
    if (attrs && !guest_view_accessible(v, attrs, 4))
        return EFI_INVALID_PARAMETER;
    if (size < var->size) {
        if (!fw_write_uintn(fw, v, size_ptr, var->size))
            return EFI_INVALID_PARAMETER;
    } else {
        /* The whole buffer the caller claims must be guest memory. */
        if (!data || !guest_view_accessible(v, data, size))
            return EFI_INVALID_PARAMETER;
        guest_view_write(v, data, var->data, var->size);
        fw_write_uintn(fw, v, size_ptr, var->size);
    }
    if (attrs)
        guest_view_write(v, attrs, &var->attrs, 4);
    return size < var->size ? EFI_BUFFER_TOO_SMALL : EFI_SUCCESS;
}

efi_status_t fw_get_next_variable_name(struct firmware *fw, const struct guest_view *v, uint64_t size_ptr,
                                       uint64_t name, uint64_t guid)
{
    uint16_t buf[VAR_NAME_MAX];
    efi_guid_t g;
    long len;
    uint64_t size;
    /* The NUL must lie within the caller's VariableNameSize bytes (UEFI
     * 2.10 section 8.2; EDK2 checks it with StrnLenS). */
    if (!size_ptr || !fw_read_uintn(fw, v, size_ptr, &size) || !read_name_guid(v, name, guid, buf, &len, &g) ||
        2 * ((uint64_t)len + 1) > size)
        return EFI_INVALID_PARAMETER;
    struct fw_variable *var = fw->variables;
    if (len > 0) {
        /* After ExitBootServices a variable without RUNTIME_ACCESS is no
         * existing variable to go on from (EDK2 skips it at runtime). */
        struct fw_variable **p = fw_variable_find(fw, buf, (size_t)len, &g);
        if (!p || !fw_variable_visible(fw, *p))
            return EFI_INVALID_PARAMETER;
        var = (*p)->next;
    }
    while (var && !fw_variable_visible(fw, var))
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

/* After ExitBootServices only variables with NON_VOLATILE and
 * RUNTIME_ACCESS can be set: one with RUNTIME_ACCESS alone is read-only
 * data (UEFI 2.10 section 8.2, SetVariable(); EDK2's UpdateVariable
 * answers EFI_WRITE_PROTECTED for such a variable and
 * EFI_INVALID_PARAMETER for a new one without NON_VOLATILE). p is the
 * variable the caller sees, or NULL. */
static efi_status_t check_runtime_write(const struct firmware *fw, struct fw_variable *const *p, uint64_t attrs)
{
    if (fw->phase != FW_PHASE_RUNTIME)
        return EFI_SUCCESS;
    if (p && !((*p)->attrs & EFI_VARIABLE_NON_VOLATILE))
        return EFI_WRITE_PROTECTED;
    if (attrs && !(attrs & EFI_VARIABLE_NON_VOLATILE))
        return EFI_INVALID_PARAMETER;
    return EFI_SUCCESS;
}

/* The variable at p (NULL: a new one; else one with attrs already)
 * written with attrs and the size bytes at data, or with append those
 * added to its own. */
static efi_status_t write_data(struct firmware *fw, const struct guest_view *v, struct fw_variable **p,
                               const uint16_t *name, size_t len, const efi_guid_t *g, uint32_t attrs, bool append,
                               uint64_t size, uint64_t data)
{
    if (append && !size && !p)   /* nothing to add to nothing: EDK2's UpdateVariable writes no variable */
        return EFI_SUCCESS;
    uint64_t old = p ? (*p)->size : 0;
    if (size > VAR_DATA_MAX)   /* first, so that old + size cannot wrap */
        return EFI_INVALID_PARAMETER;
    uint64_t total = append ? old + size : size;
    efi_status_t s = fw_variable_room(fw, p, total);
    if (s != EFI_SUCCESS)
        return s;
    uint8_t *bytes = malloc(total ? total : 1);
    if (!bytes)
        return EFI_OUT_OF_RESOURCES;
    if (append && p)
        memcpy(bytes, (*p)->data, old);
    if (size && !guest_view_read(v, data, bytes + (append ? old : 0), size)) {
        free(bytes);
        return EFI_INVALID_PARAMETER;
    }
    return fw_variable_put(fw, p, name, len, g, attrs, bytes, total) ? EFI_SUCCESS : EFI_OUT_OF_RESOURCES;
}

efi_status_t fw_set_variable(struct firmware *fw, const struct guest_view *v, uint64_t name, uint64_t guid,
                             uint64_t attrs, uint64_t size, uint64_t data)
{
    uint16_t buf[VAR_NAME_MAX];
    efi_guid_t g;
    long len;
    if (!read_name_guid(v, name, guid, buf, &len, &g) || len == 0 || (size && !data))
        return EFI_INVALID_PARAMETER;
    /* The modes are the firmware's, with Secure Boot or without (then
     * absent): no guest makes SecureBoot say 1 (UEFI 2.10 section 3.3:
     * read-only; EDK2's VarCheckUefiLib refuses them the same way). */
    if (secure_boot_mode_variable(buf, (size_t)len, &g))
        return EFI_WRITE_PROTECTED;
    enum secure_boot_key key = fw->cfg.secure_boot ? secure_boot_key_of(buf, (size_t)len, &g) : SB_NOT_A_KEY;
    if (key != SB_NOT_A_KEY)
        return fw_set_key_variable(fw, v, key, buf, (size_t)len, &g, attrs, size, data);
    efi_status_t s = check_attrs(fw, attrs);
    if (s != EFI_SUCCESS)
        return s;
    bool append = attrs & EFI_VARIABLE_APPEND_WRITE;
    attrs &= ~(uint64_t)EFI_VARIABLE_APPEND_WRITE;
    struct fw_variable **p = fw_variable_find(fw, buf, (size_t)len, &g), **hidden = NULL;
    if (p && !fw_variable_visible(fw, *p)) {
        hidden = p;
        p = NULL;
    }
    /* A variable keeps its attributes: others are EFI_INVALID_PARAMETER
     * for a delete by DataSize 0 as for a write, and an append with no
     * access attributes neither deletes nor writes (UEFI 2.10 section
     * 8.2, SetVariable(): the exceptions are none given, or APPEND_WRITE
     * the only difference; EDK2 checks before it deletes). */
    if (p && (attrs || append) && attrs != (*p)->attrs)
        return EFI_INVALID_PARAMETER;
    s = check_runtime_write(fw, p, attrs);
    if (s != EFI_SUCCESS)
        return s;
    if (attrs && (size || append)) {
        s = write_data(fw, v, p, buf, (size_t)len, &g, (uint32_t)attrs, append, size, data);
        /* After ExitBootServices a variable without RUNTIME_ACCESS is not
         * there: one written (size bytes, added last) takes its place, so
         * that no two share a name and GUID and GetVariable finds it. */
        if (s == EFI_SUCCESS && hidden && size)
            fw_variable_delete(fw, hidden);
        return s;
    }
    if (!p)   /* no attributes, or no data to write: a delete */
        return EFI_NOT_FOUND;
    fw_variable_delete(fw, p);
    return EFI_SUCCESS;
}

efi_status_t fw_query_variable_info(struct firmware *fw, const struct guest_view *v, uint64_t attrs,
                                    uint64_t max_storage, uint64_t remaining, uint64_t max_size)
{
    uint64_t known = VAR_ATTR_KNOWN | (fw->cfg.secure_boot ? EFI_VARIABLE_TIME_BASED_AUTHENTICATED_WRITE_ACCESS : 0);
    if (!attrs || (attrs & ~known))
        return attrs ? EFI_UNSUPPORTED : EFI_INVALID_PARAMETER;
    /* Combinations no variable can have now, as SetVariable's (EDK2's
     * VariableServiceQueryVariableInfo refuses them the same way). */
    if (check_attrs(fw, attrs & VAR_ATTR_KNOWN) != EFI_SUCCESS)
        return EFI_INVALID_PARAMETER;
    if (!guest_view_accessible(v, max_storage, 8) || !guest_view_accessible(v, remaining, 8) ||
        !guest_view_accessible(v, max_size, 8) || !max_storage || !remaining || !max_size)
        return EFI_INVALID_PARAMETER;
    guest_view_write_u64(v, max_storage, VAR_STORE_MAX);
    guest_view_write_u64(v, remaining, VAR_STORE_MAX - fw->variable_bytes);
    /* No more than a variable can now be written with: EDK2's
     * QueryVariableInfo caps it at what remains, less a variable's header. */
    guest_view_write_u64(v, max_size, fw_variable_largest(fw));
    return EFI_SUCCESS;
}
