/* Shared by the firmware's own files; not part of its interface. */
#ifndef HANDOVER_FW_INTERNAL_H
#define HANDOVER_FW_INTERNAL_H

#include "firmware.h"
#include "guids.h"

typedef efi_status_t (*fw_handler)(struct firmware *fw, const struct guest_view *v, const uint64_t *a);

struct fw_service {
    unsigned id;
    const char *name;
    unsigned nargs;
    fw_handler fn;       /* NULL: EFI_UNSUPPORTED, reported once */
};

/* Service tables, one per group (boot_services.c, runtime_services.c, console.c). */
extern const struct fw_service fw_boot_services[EFI_BOOT_SERVICES_COUNT];
extern const struct fw_service fw_runtime_services[EFI_RUNTIME_SERVICES_COUNT];
extern const struct fw_service fw_conout_services[9];
extern const struct fw_service fw_conin_services[2];
extern const struct fw_service fw_rng_services[2];
extern const struct fw_service fw_loadfile2_service;

/* Diagnostics on cfg.log, prefixed "handover: ". */
void fw_log(struct firmware *fw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* tables.c */
void fw_update_crc(struct firmware *fw, uint64_t table);
efi_status_t fw_install_config_table(struct firmware *fw, const efi_guid_t *guid, uint64_t table);

/* boot_services.c: handle database */
int fw_add_protocol(struct firmware *fw, uint64_t handle, const efi_guid_t *guid, uint64_t iface);

/* pool allocations (boot_services.c) */
efi_status_t fw_pool_alloc(struct firmware *fw, uint32_t type, uint64_t size, uint64_t *addr);

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

/* trace_decode.c: ,"decoded":{...} for a trace line, or 0 bytes. */
size_t fw_trace_decode(unsigned id, const struct guest_view *v, const uint64_t *a, efi_status_t status, char *buf,
                       size_t cap);

/* Read a NUL-terminated UCS-2 string of at most max chars (including the
 * NUL) from guest memory; returns its length without NUL, or -1. */
long fw_read_ucs2(const struct guest_view *v, uint64_t addr, uint16_t *buf, size_t max);

#endif
