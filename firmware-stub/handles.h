/* The handle database (UEFI 2.10 section 7.3): which protocol interface
 * each handle has, and the device paths installed on them. */
#ifndef HANDOVER_FW_HANDLES_H
#define HANDOVER_FW_HANDLES_H

#include <stdbool.h>
#include <stdint.h>

#include "state.h"

int fw_add_protocol(struct firmware *fw, uint64_t handle, const efi_guid_t *guid, uint64_t iface);
/* A new handle value (no protocol yet); 0 when none is left. */
uint64_t fw_new_handle(struct firmware *fw);
/* Does the handle exist, that is, have a protocol? */
bool fw_handle_known(const struct firmware *fw, uint64_t handle);
/* The handle's entry for protocol g, or NULL. */
struct fw_handle_protocol *fw_find_protocol(struct firmware *fw, uint64_t handle, const efi_guid_t *g);
/* Drop the database's entry i. */
void fw_remove_protocol(struct firmware *fw, unsigned i);
/* Uninstall every protocol of handle, which then no longer exists. */
void fw_remove_handle(struct firmware *fw, uint64_t handle);

/* A device path as the firmware keeps it: fewer than FW_DEVICE_PATH_MAX
 * bytes before the end node, and the end node (a node header alone). */
#define FW_DEVICE_PATH_MAX  1024
#define FW_DEVICE_PATH_END  sizeof(struct efi_device_path_header)
#define FW_DEVICE_PATH_SIZE (FW_DEVICE_PATH_MAX + FW_DEVICE_PATH_END)
/* Copy the device path at dp, end node included, into out (zeroed first),
 * node by node so each guest byte is read once and the copy is well formed
 * whatever the guest changes meanwhile: every use after works on the copy.
 * Its bytes before the end node, or -1 if malformed, too long or
 * unreadable, or if dp is NULL: no path, never read at guest address 0. */
long fw_device_path_copy(const struct guest_view *v, uint64_t dp, uint8_t out[FW_DEVICE_PATH_SIZE]);
/* LocateDevicePath's search for the copied path (want bytes before its end
 * node): the bytes the best handle's device path matches (its handle in
 * *handle), or -1 if none. */
long fw_match_device_path(struct firmware *fw, const struct guest_view *v, const efi_guid_t *g, const uint8_t *path,
                          long want, uint64_t *handle);

#endif
