/* Shared by the firmware's own files; not part of its interface. */
#ifndef HANDOVER_FW_INTERNAL_H
#define HANDOVER_FW_INTERNAL_H

#include "firmware.h"
#include "guids.h"
#include "../vmm/mem/guest_text.h"

struct fw_service;
struct fw_trace_out;   /* trace_decode.h */

typedef efi_status_t (*fw_handler)(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
/* Adds the service's fields to a trace line's "decoded" object, read after
 * the call through the same guest view (trace_decode.h). */
typedef void (*fw_decoder)(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                           const uint64_t *a, efi_status_t status);

/* A protocol lookup (UEFI 2.10 sections 7.3.7-7.3.16): where its EFI_GUID
 * *Protocol is, and what it does when the protocol is not there. */
struct fw_lookup {
    efi_status_t not_found;  /* its status then; 0: the service is no lookup */
    unsigned guid;           /* the argument holding the GUID's address */
    bool by_protocol;        /* the GUID counts only when a[0], SearchType, is ByProtocol */
    bool clears_interface;   /* *Interface, a[2], becomes NULL */
};

/* Everything about one service: the row in its group's table. */
struct fw_service {
    unsigned id;
    const char *name;
    unsigned nargs;
    fw_handler fn;           /* NULL: EFI_UNSUPPORTED, reported once */
    fw_decoder decode;       /* NULL: no "decoded" in its trace lines */
    struct fw_lookup lookup;
    unsigned faults;         /* bit k: inject kind k can apply to it (inject.c says when) */
};

#define FW_FAULT(kind) (1u << INJECT_##kind)

/* Service tables, one per group (boot_services.c, runtime_services.c,
 * console.c, rng.c, loadfile2.c), indexed by services.h. */
extern const struct fw_service fw_boot_services[BS_COUNT];
extern const struct fw_service fw_runtime_services[RT_COUNT];
extern const struct fw_service fw_conout_services[CONOUT_COUNT];
extern const struct fw_service fw_conin_services[CONIN_COUNT];
extern const struct fw_service fw_rng_services[RNG_COUNT];
extern const struct fw_service fw_loadfile2_service;
extern const struct fw_service fw_start_image_return_service;   /* image.c */
extern const struct fw_service fw_file_system_service;          /* simple_fs.c */
extern const struct fw_service fw_file_services[FILE_COUNT];

/* dispatch.c: the service an ID names, or NULL. */
const struct fw_service *fw_service_of(unsigned id);
/* The guest address of the protocol GUID a lookup is given; 0 for any
 * other call (and for a LocateHandle(Buffer) that is not ByProtocol). */
uint64_t fw_protocol_arg(const struct fw_service *s, const uint64_t *a);

/* Diagnostics on cfg.log, prefixed "handover: ". */
void fw_log(struct firmware *fw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* tables.c */
/* One UTF-8 sequence at s: its code point (U+FFFD for a malformed or
 * overlong one, or one outside the BMP, which UCS-2 cannot hold) and its
 * length in bytes (at least 1; a NUL ends a sequence). */
unsigned fw_utf8_decode(const unsigned char *s, uint16_t *out);
void fw_update_crc(struct firmware *fw, uint64_t table);
efi_status_t fw_install_config_table(struct firmware *fw, const efi_guid_t *guid, uint64_t table);

/* boot_services.c: handle database */
int fw_add_protocol(struct firmware *fw, uint64_t handle, const efi_guid_t *guid, uint64_t iface);
/* A new handle value (no protocol yet); 0 when none is left. */
uint64_t fw_new_handle(struct firmware *fw);
/* Uninstall every protocol of handle, which then no longer exists. */
void fw_remove_handle(struct firmware *fw, uint64_t handle);
/* A device path as the firmware keeps it: at most 1 KiB before the end
 * node, and the 4-byte end node. */
#define FW_DEVICE_PATH_MAX  1024
#define FW_DEVICE_PATH_SIZE (FW_DEVICE_PATH_MAX + 4)
/* Copy the device path at dp, end node included, into out (zeroed first),
 * node by node so each guest byte is read once and the copy is well formed
 * whatever the guest changes meanwhile: every use after works on the copy.
 * Its bytes before the end node, or -1 if malformed, too long or
 * unreadable. */
long fw_device_path_copy(const struct guest_view *v, uint64_t dp, uint8_t out[FW_DEVICE_PATH_SIZE]);
/* LocateDevicePath's search for the copied path (want bytes before its end
 * node): the bytes the best handle's device path matches (its handle in
 * *handle), or -1 if none. */
long fw_locate_device_path(struct firmware *fw, const struct guest_view *v, const efi_guid_t *g, const uint8_t *path,
                           long want, uint64_t *handle);

/* image.c: LoadImage, StartImage, Exit and UnloadImage (UEFI 2.10 section 7.4) */
efi_status_t fw_load_image(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
efi_status_t fw_start_image(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
efi_status_t fw_exit(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
efi_status_t fw_unload_image(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
void fw_decode_load_image(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                          const uint64_t *a, efi_status_t status);
void fw_decode_image_handle(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                            const uint64_t *a, efi_status_t status);
void fw_decode_exit(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                    const uint64_t *a, efi_status_t status);
/* The image LoadImage made with this handle, or NULL. */
struct fw_image *fw_image_of(struct firmware *fw, uint64_t handle);

/* events.c: events and timers (UEFI 2.10 section 7.1) */
efi_status_t fw_create_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
efi_status_t fw_create_event_ex(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
efi_status_t fw_set_timer(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
efi_status_t fw_wait_for_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
efi_status_t fw_signal_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
efi_status_t fw_close_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
efi_status_t fw_check_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a);
void fw_decode_create_event(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                            const uint64_t *a, efi_status_t status);
void fw_decode_set_timer(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                         const uint64_t *a, efi_status_t status);
void fw_decode_wait_for_event(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                              const uint64_t *a, efi_status_t status);
void fw_decode_event(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                     const uint64_t *a, efi_status_t status);
/* Make ConIn.WaitForKey, the first event (fw->events.wait_for_key). */
void fw_events_init(struct firmware *fw);
/* Signal every event of the group (ExitBootServices', SetVirtualAddressMap's). */
void fw_signal_event_group(struct firmware *fw, const efi_guid_t *group);
/* At the end of a call (fw->call) with this status: if a queued notify
 * function's TPL is above the current TPL, the vCPU goes to run the
 * queued functions, and the call then does `then` (struct fw_notify_frame);
 * returns whether it does. */
bool fw_notify_dispatch(struct firmware *fw, enum fw_notify_then then, efi_status_t status);
extern const struct fw_service fw_notify_return_service;

/* boot_services.c: ExitBootServices once its event group's notify
 * functions have run (map_key: the one it was given). */
efi_status_t fw_finish_exit_boot_services(struct firmware *fw, uint64_t map_key);

/* boot_services.c: AllocatePages' *Memory, read after the call. */
bool fw_allocated_pages(const struct guest_view *v, const uint64_t *a, uint64_t *addr);

/* pool allocations (boot_services.c) */
efi_status_t fw_pool_alloc(struct firmware *fw, uint32_t type, uint64_t size, uint64_t *addr);
efi_status_t fw_pool_free(struct firmware *fw, uint64_t buffer);

/* console.c */
void fw_console_write_ucs2(struct firmware *fw, const uint16_t *s, size_t n);

/* variables.c */
efi_status_t fw_get_variable(struct firmware *fw, const struct guest_view *v, uint64_t name, uint64_t guid,
                             uint64_t attrs, uint64_t size, uint64_t data);
efi_status_t fw_get_next_variable_name(struct firmware *fw, const struct guest_view *v, uint64_t size,
                                       uint64_t name, uint64_t guid);
efi_status_t fw_set_variable(struct firmware *fw, const struct guest_view *v, uint64_t name, uint64_t guid,
                             uint64_t attrs, uint64_t size, uint64_t data);
efi_status_t fw_query_variable_info(struct firmware *fw, const struct guest_view *v, uint64_t attrs,
                                    uint64_t max_storage, uint64_t remaining, uint64_t max_size);
void fw_variables_free(struct firmware *fw);
/* dst's store (empty) becomes a copy of src's; -1 if out of memory. */
int fw_variables_copy(struct firmware *dst, const struct firmware *src);

/* simple_fs.c: the --esp volume. The file a device path (copied, len
 * bytes before its end node) names on it, for LoadImage: its bytes, the
 * volume's own, in *data and *size; EFI_NOT_FOUND if the path leads to no
 * file there. */
efi_status_t fw_esp_file(struct firmware *fw, const struct guest_view *v, const uint8_t *path, long len,
                         const uint8_t **data, uint64_t *size);
void fw_esp_free(struct firmware *fw);
/* dst (a copy of src) gets its own copy of src's volume state; -1 if out of memory. */
int fw_esp_copy(struct firmware *dst, const struct firmware *src);
uint64_t fw_esp_copy_bytes(const struct firmware *fw);

/* trace_decode.c: ,"decoded":{...} for a trace line, or 0 bytes. */
size_t fw_trace_decode(const struct fw_service *s, const struct guest_view *v, const uint64_t *a,
                       efi_status_t status, char *buf, size_t cap);

/* Read a NUL-terminated UCS-2 string of at most max chars (including the
 * NUL) from guest memory; returns its length without NUL, or -1. */
long fw_read_ucs2(const struct guest_view *v, uint64_t addr, uint16_t *buf, size_t max);

#endif
