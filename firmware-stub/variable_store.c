/* The variable store (UEFI 2.10 section 8.2): volatile, host-side,
 * bounded. Variables stay in creation order, which GetNextVariableName
 * walks. */
#include "variable_store.h"

#include <stdlib.h>
#include <string.h>

#include "guids.h"

/* What a variable costs the host: its record (the name buffer is fixed
 * size) and its data. The store limit counts this, so that many tiny
 * variables cannot hold far more host memory than the limit says. */
static uint64_t var_cost_of(uint64_t data_size) { return sizeof(struct fw_variable) + data_size; }
static uint64_t var_cost(const struct fw_variable *var) { return var_cost_of(var->size); }

efi_status_t fw_variable_room(const struct firmware *fw, struct fw_variable *const *p, uint64_t total)
{
    if (total > VAR_DATA_MAX)
        return EFI_INVALID_PARAMETER;
    return fw->variable_bytes - (p ? var_cost(*p) : 0) + var_cost_of(total) <= VAR_STORE_MAX ? EFI_SUCCESS
                                                                                             : EFI_OUT_OF_RESOURCES;
}

uint64_t fw_variable_largest(const struct firmware *fw)
{
    uint64_t left = VAR_STORE_MAX - fw->variable_bytes, record = var_cost_of(0);
    if (left <= record)
        return 0;
    return left - record < VAR_DATA_MAX ? left - record : VAR_DATA_MAX;
}

bool fw_variable_visible(const struct firmware *fw, const struct fw_variable *var)
{
    return fw->phase == FW_PHASE_BOOT || (var->attrs & EFI_VARIABLE_RUNTIME_ACCESS);
}

struct fw_variable **fw_variable_find(struct firmware *fw, const uint16_t *name, size_t len, const efi_guid_t *g)
{
    for (struct fw_variable **p = &fw->variables; *p; p = &(*p)->next)
        if ((*p)->name_len == len && !memcmp((*p)->name, name, 2 * len) && guid_equal(&(*p)->guid, g))
            return p;
    return NULL;
}

struct fw_variable *fw_variable_put(struct firmware *fw, struct fw_variable **p, const uint16_t *name, size_t len,
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

void fw_variable_delete(struct firmware *fw, struct fw_variable **p)
{
    struct fw_variable *var = *p;
    *p = var->next;
    fw->variable_bytes -= var_cost(var);
    free(var->data);
    free(var);
}

size_t fw_variable_ascii_name(const char *ascii, uint16_t *name)
{
    size_t n = 0;
    for (; ascii[n]; n++)
        name[n] = (uint8_t)ascii[n];
    return n;
}

bool fw_variable_data(const struct firmware *fw, const char *ascii, const efi_guid_t *g, const uint8_t **data,
                      uint64_t *size)
{
    uint16_t name[VAR_NAME_MAX];
    size_t len = strlen(ascii);
    if (len >= VAR_NAME_MAX)
        return false;
    fw_variable_ascii_name(ascii, name);
    for (const struct fw_variable *var = fw->variables; var; var = var->next)
        if (var->name_len == len && !memcmp(var->name, name, 2 * len) && guid_equal(&var->guid, g)) {
            *data = var->data;
            *size = var->size;
            return true;
        }
    return false;
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
