/* The variable store behind GetVariable/SetVariable/GetNextVariableName/
 * QueryVariableInfo (UEFI 2.10 section 8.2). Volatile, host-side, bounded.
 * Missing variables give EFI_NOT_FOUND without touching *DataSize: the stub
 * probes SecureBoot, SetupMode and MOR and relies on that (section 7 item 2). */
#include "variables.h"

#include <stdlib.h>
#include <string.h>

#include "guids.h"
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
};

/* What a variable costs the host: its record (the name buffer is fixed
 * size) and its data. The store limit counts this, so that many tiny
 * variables cannot hold far more host memory than the limit says. */
static uint64_t var_cost_of(uint64_t data_size) { return sizeof(struct fw_variable) + data_size; }
static uint64_t var_cost(const struct fw_variable *var) { return var_cost_of(var->size); }

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

efi_status_t fw_set_variable(struct firmware *fw, const struct guest_view *v, uint64_t name, uint64_t guid,
                             uint64_t attrs, uint64_t size, uint64_t data)
{
    uint16_t buf[VAR_NAME_MAX];
    efi_guid_t g;
    long len;
    if (!read_name_guid(v, name, guid, buf, &len, &g) || len == 0 || (size && !data))
        return EFI_INVALID_PARAMETER;
    if (attrs & ~(uint64_t)VAR_ATTR_KNOWN)
        return EFI_UNSUPPORTED;  /* authenticated and hardware-error variables */
    if ((attrs & EFI_VARIABLE_RUNTIME_ACCESS) && !(attrs & EFI_VARIABLE_BOOTSERVICE_ACCESS))
        return EFI_INVALID_PARAMETER;
    if (fw->phase == FW_PHASE_RUNTIME && attrs && !(attrs & EFI_VARIABLE_RUNTIME_ACCESS))
        return EFI_INVALID_PARAMETER;
    bool append = attrs & EFI_VARIABLE_APPEND_WRITE;
    attrs &= ~(uint64_t)EFI_VARIABLE_APPEND_WRITE;
    struct fw_variable **p = find(fw, buf, (size_t)len, &g);
    if (p && !visible(fw, *p))
        p = NULL;

    if (!attrs || (!size && !append)) {   /* delete */
        if (!p)
            return EFI_NOT_FOUND;
        struct fw_variable *var = *p;
        *p = var->next;
        fw->variable_bytes -= var_cost(var);
        free(var->data);
        free(var);
        return EFI_SUCCESS;
    }
    if (p && (*p)->attrs != attrs)
        return EFI_INVALID_PARAMETER;
    if (size > VAR_DATA_MAX)
        return EFI_OUT_OF_RESOURCES;
    uint64_t old = p ? (*p)->size : 0;
    uint64_t total = append ? old + size : size;
    if (total > VAR_DATA_MAX || fw->variable_bytes - (p ? var_cost(*p) : 0) + var_cost_of(total) > VAR_STORE_MAX)
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
    struct fw_variable *var = p ? *p : calloc(1, sizeof(*var));
    if (!var) {
        free(bytes);
        return EFI_OUT_OF_RESOURCES;
    }
    if (p) {
        fw->variable_bytes -= var_cost(var);
        free(var->data);
    } else {
        var->guid = g;
        var->attrs = (uint32_t)attrs;
        memcpy(var->name, buf, 2 * (size_t)len);
        var->name_len = (size_t)len;
        /* Append at the end so GetNextVariableName walks in creation order. */
        struct fw_variable **tail = &fw->variables;
        while (*tail)
            tail = &(*tail)->next;
        *tail = var;
    }
    var->data = bytes;
    var->size = total;
    fw->variable_bytes += var_cost(var);
    return EFI_SUCCESS;
}

efi_status_t fw_query_variable_info(struct firmware *fw, const struct guest_view *v, uint64_t attrs,
                                    uint64_t max_storage, uint64_t remaining, uint64_t max_size)
{
    if (!attrs || (attrs & ~(uint64_t)VAR_ATTR_KNOWN))
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
