/* The handle database (handles.h), in installation order: LocateHandle
 * and ProtocolsPerHandle report it so (UEFI 2.10 section 7.3). */
#include "handles.h"

#include <string.h>

#include "guids.h"

/* Length of a device path up to (not including) its end node, or -1. */
long fw_device_path_copy(const struct guest_view *v, uint64_t dp, uint8_t out[FW_DEVICE_PATH_SIZE])
{
    memset(out, 0, FW_DEVICE_PATH_SIZE);
    uint64_t off = 0;
    while (dp && off < FW_DEVICE_PATH_MAX) {
        struct efi_device_path_header h;
        if (!guest_view_read(v, dp + off, &h, sizeof(h)))
            return -1;
        memcpy(out + off, &h, sizeof(h));
        unsigned len = h.length[0] | h.length[1] << 8;
        if (h.type == EFI_DEV_END_PATH && h.sub_type == EFI_DEV_END_ENTIRE)
            return (long)off;
        if (len < sizeof(h) || off + len >= FW_DEVICE_PATH_MAX ||
            !guest_view_read(v, dp + off + sizeof(h), out + off + sizeof(h), len - sizeof(h)))
            return -1;
        off += len;
    }
    return -1;
}

int fw_add_protocol(struct firmware *fw, uint64_t handle, const efi_guid_t *guid, uint64_t iface)
{
    if (fw->nprotocols >= FW_MAX_PROTOCOLS)
        return -1;
    fw->protocols[fw->nprotocols++] = (struct fw_handle_protocol){ handle, *guid, iface };
    return 0;
}

uint64_t fw_new_handle(struct firmware *fw)
{
    if (fw->ndyn_handles >= FW_MAX_DYN_HANDLES)
        return 0;
    return fw->cfg.base + FW_DYN_HANDLES_OFFSET + 16ULL * fw->ndyn_handles++;
}

/* A handle lives while it has a protocol (UEFI 2.10 section 7.3.3). */
bool fw_handle_known(const struct firmware *fw, uint64_t handle)
{
    for (unsigned i = 0; i < fw->nprotocols; i++)
        if (fw->protocols[i].handle == handle)
            return true;
    return false;
}

struct fw_handle_protocol *fw_find_protocol(struct firmware *fw, uint64_t handle, const efi_guid_t *g)
{
    for (unsigned i = 0; i < fw->nprotocols; i++)
        if (fw->protocols[i].handle == handle && guid_equal(&fw->protocols[i].guid, g))
            return &fw->protocols[i];
    return NULL;
}

/* Drop entry i, keeping the database's order (LocateHandle reports it). */
void fw_remove_protocol(struct firmware *fw, unsigned i)
{
    memmove(&fw->protocols[i], &fw->protocols[i + 1], (fw->nprotocols - i - 1) * sizeof(fw->protocols[0]));
    fw->nprotocols--;
}

void fw_remove_handle(struct firmware *fw, uint64_t handle)
{
    for (unsigned i = fw->nprotocols; i-- > 0;)
        if (fw->protocols[i].handle == handle)
            fw_remove_protocol(fw, i);
}

long fw_match_device_path(struct firmware *fw, const struct guest_view *v, const efi_guid_t *g, const uint8_t *path,
                          long want, uint64_t *handle)
{
    uint8_t cand[FW_DEVICE_PATH_SIZE];
    /* The handle supporting the protocol whose device path is the longest
     * prefix of *DevicePath (UEFI 2.10 section 7.3.7). */
    long best = -1;
    for (unsigned i = 0; i < fw->nprotocols; i++) {
        const struct fw_handle_protocol *p = &fw->protocols[i];
        if (!guid_equal(&p->guid, &GUID_DEVICE_PATH) || !fw_find_protocol(fw, p->handle, g))
            continue;
        long len = fw_device_path_copy(v, p->interface, cand);
        if (len < 0 || len > want || len <= best)
            continue;
        if (!memcmp(cand, path, (size_t)len)) {
            best = len;
            *handle = p->handle;
        }
    }
    return best;
}
