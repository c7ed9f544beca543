/* Guest-side UEFI definitions for the synthetic test payload.
 *
 * Written from the UEFI Specification 2.x: table headers (4.2), system table
 * (4.3), boot services (4.4, 7.x), runtime services (4.5, 8.x), simple text
 * protocols (12.3, 12.4), loaded image (9.1), device paths (10.2/10.3).
 * Only what the payload uses is spelled out; every table keeps the exact
 * layout of the spec (unused members are typed as plain pointers).
 *
 * Every function pointer uses the Microsoft x64 calling convention. */
#ifndef PAYLOAD_EFI_H
#define PAYLOAD_EFI_H

#include <stddef.h>
#include <stdint.h>

/* Everything in the payload is hidden: no GOT, no dynamic relocations. */
#pragma GCC visibility push(hidden)

#define EFIAPI __attribute__((ms_abi))

typedef uint64_t efi_status_t;
typedef void *efi_handle_t;
typedef void *efi_event_t;
typedef uint16_t efi_char16_t;
typedef uint64_t efi_physical_addr_t;

#define EFI_ERROR_BIT             ((uint64_t)1 << 63)
#define EFI_ERR(n)                ((efi_status_t)(n) | EFI_ERROR_BIT)
#define EFI_SUCCESS               ((efi_status_t)0)
#define EFI_LOAD_ERROR            EFI_ERR(1)
#define EFI_INVALID_PARAMETER     EFI_ERR(2)
#define EFI_UNSUPPORTED           EFI_ERR(3)
#define EFI_BUFFER_TOO_SMALL      EFI_ERR(5)
#define EFI_NOT_READY             EFI_ERR(6)
#define EFI_WRITE_PROTECTED       EFI_ERR(8)
#define EFI_OUT_OF_RESOURCES      EFI_ERR(9)
#define EFI_NOT_FOUND             EFI_ERR(14)
#define EFI_ACCESS_DENIED         EFI_ERR(15)
#define EFI_NO_MAPPING            EFI_ERR(17)
#define EFI_SECURITY_VIOLATION    EFI_ERR(26)
#define EFI_IS_ERROR(s)           (((s) & EFI_ERROR_BIT) != 0)

typedef struct {
    uint32_t data1;
    uint16_t data2;
    uint16_t data3;
    uint8_t data4[8];
} efi_guid_t;

#define EFI_GUID(a, b, c, d0, d1, d2, d3, d4, d5, d6, d7) \
    { (a), (b), (c), { (d0), (d1), (d2), (d3), (d4), (d5), (d6), (d7) } }

/* 4.2 EFI_TABLE_HEADER */
typedef struct {
    uint64_t signature;
    uint32_t revision;
    uint32_t header_size;
    uint32_t crc32;
    uint32_t reserved;
} efi_table_header_t;

#define EFI_SYSTEM_TABLE_SIGNATURE   ((uint64_t)0x5453595320494249) /* "IBI SYST" */
#define EFI_BOOT_SERVICES_SIGNATURE  ((uint64_t)0x56524553544f4f42) /* "BOOTSERV" */
#define EFI_RUNTIME_SERVICES_SIGNATURE ((uint64_t)0x56524553544e5552) /* "RUNTSERV" */
#define EFI_TABLE_CRC32_OFFSET       16

/* 7.2 memory */
enum {
    EfiReservedMemoryType, EfiLoaderCode, EfiLoaderData, EfiBootServicesCode,
    EfiBootServicesData, EfiRuntimeServicesCode, EfiRuntimeServicesData,
    EfiConventionalMemory, EfiUnusableMemory, EfiACPIReclaimMemory,
    EfiACPIMemoryNVS, EfiMemoryMappedIO, EfiMemoryMappedIOPortSpace,
    EfiPalCode, EfiPersistentMemory, EfiUnacceptedMemoryType,
};
typedef uint32_t efi_memory_type_t;

enum { AllocateAnyPages, AllocateMaxAddress, AllocateAddress };
typedef uint32_t efi_allocate_type_t;

enum { AllHandles, ByRegisterNotify, ByProtocol };
typedef uint32_t efi_locate_search_type_t;

#define EFI_MEMORY_SP       ((uint64_t)0x0000000000040000)
#define EFI_MEMORY_RP       ((uint64_t)0x0000000000002000)
#define EFI_MEMORY_XP       ((uint64_t)0x0000000000004000)
#define EFI_MEMORY_RO       ((uint64_t)0x0000000000020000)
#define EFI_MEMORY_RUNTIME  ((uint64_t)1 << 63)
#define EFI_PAGE_SIZE       ((uint64_t)4096)

typedef struct {
    uint32_t type;
    uint32_t pad;
    efi_physical_addr_t physical_start;
    uint64_t virtual_start;
    uint64_t number_of_pages;
    uint64_t attribute;
} efi_memory_descriptor_t;

/* 10.2 device path node header */
typedef struct {
    uint8_t type;
    uint8_t sub_type;
    uint8_t length[2];
} efi_device_path_t;

#define EFI_DP_TYPE_MEDIA        0x04
#define EFI_DP_MEDIA_VENDOR      0x03
#define EFI_DP_TYPE_END          0x7f
#define EFI_DP_END_ENTIRE        0xff

#define EFI_OPEN_PROTOCOL_GET_PROTOCOL 0x00000002u

/* 8.2 variable attributes */
#define EFI_VARIABLE_NON_VOLATILE       0x1u
#define EFI_VARIABLE_BOOTSERVICE_ACCESS 0x2u
#define EFI_VARIABLE_RUNTIME_ACCESS     0x4u

/* 12.4 EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL */
typedef struct efi_simple_text_output efi_simple_text_output_t;
struct efi_simple_text_output {
    efi_status_t (EFIAPI *reset)(efi_simple_text_output_t *, uint8_t);
    efi_status_t (EFIAPI *output_string)(efi_simple_text_output_t *, const efi_char16_t *);
    efi_status_t (EFIAPI *test_string)(efi_simple_text_output_t *, const efi_char16_t *);
    void *query_mode;
    void *set_mode;
    void *set_attribute;
    void *clear_screen;
    void *set_cursor_position;
    void *enable_cursor;
    void *mode;
};

/* 12.3 EFI_SIMPLE_TEXT_INPUT_PROTOCOL */
typedef struct {
    uint16_t scan_code;
    efi_char16_t unicode_char;
} efi_input_key_t;
typedef struct efi_simple_text_input efi_simple_text_input_t;
struct efi_simple_text_input {
    efi_status_t (EFIAPI *reset)(efi_simple_text_input_t *, uint8_t);
    efi_status_t (EFIAPI *read_key_stroke)(efi_simple_text_input_t *, efi_input_key_t *);
    efi_event_t wait_for_key;
};

/* 7.1 event types and timer delays */
#define EVT_TIMER         0x80000000u
#define EVT_NOTIFY_WAIT   0x00000100u
#define EVT_NOTIFY_SIGNAL 0x00000200u
#define EVT_SIGNAL_EXIT_BOOT_SERVICES 0x00000201u
#define TPL_APPLICATION   4
#define TPL_CALLBACK      8
#define TPL_NOTIFY        16
#define TPL_HIGH_LEVEL    31
enum { TimerCancel, TimerPeriodic, TimerRelative };

/* 4.6 EFI_CONFIGURATION_TABLE */
typedef struct {
    efi_guid_t vendor_guid;
    void *vendor_table;
} efi_configuration_table_t;

/* 4.5 EFI_RUNTIME_SERVICES: header + 14 pointers (136 bytes) */
typedef struct {
    efi_table_header_t hdr;
    void *get_time;
    void *set_time;
    void *get_wakeup_time;
    void *set_wakeup_time;
    void *set_virtual_address_map;
    void *convert_pointer;
    efi_status_t (EFIAPI *get_variable)(const efi_char16_t *name, const efi_guid_t *vendor,
                                        uint32_t *attributes, uint64_t *data_size, void *data);
    efi_status_t (EFIAPI *get_next_variable_name)(uint64_t *name_size, efi_char16_t *name,
                                                  efi_guid_t *vendor);
    efi_status_t (EFIAPI *set_variable)(const efi_char16_t *name, const efi_guid_t *vendor,
                                        uint32_t attributes, uint64_t data_size,
                                        const void *data);
    void *get_next_high_monotonic_count;
    void *reset_system;
    void *update_capsule;
    void *query_capsule_capabilities;
    void *query_variable_info;
} efi_runtime_services_t;

/* 4.4 EFI_BOOT_SERVICES: header + 44 pointers (376 bytes) */
typedef struct {
    efi_table_header_t hdr;
    /* task priority */
    uint64_t (EFIAPI *raise_tpl)(uint64_t new_tpl);
    void (EFIAPI *restore_tpl)(uint64_t old_tpl);
    /* memory */
    efi_status_t (EFIAPI *allocate_pages)(efi_allocate_type_t type, efi_memory_type_t mtype,
                                          uint64_t pages, efi_physical_addr_t *memory);
    efi_status_t (EFIAPI *free_pages)(efi_physical_addr_t memory, uint64_t pages);
    efi_status_t (EFIAPI *get_memory_map)(uint64_t *map_size, efi_memory_descriptor_t *map,
                                          uint64_t *map_key, uint64_t *desc_size,
                                          uint32_t *desc_version);
    efi_status_t (EFIAPI *allocate_pool)(efi_memory_type_t type, uint64_t size, void **buffer);
    efi_status_t (EFIAPI *free_pool)(void *buffer);
    /* events and timers */
    efi_status_t (EFIAPI *create_event)(uint32_t type, uint64_t notify_tpl, void *notify_function,
                                        void *notify_context, efi_event_t *event);
    efi_status_t (EFIAPI *set_timer)(efi_event_t event, uint32_t type, uint64_t trigger_time);
    efi_status_t (EFIAPI *wait_for_event)(uint64_t number_of_events, efi_event_t *events,
                                          uint64_t *index);
    efi_status_t (EFIAPI *signal_event)(efi_event_t event);
    efi_status_t (EFIAPI *close_event)(efi_event_t event);
    efi_status_t (EFIAPI *check_event)(efi_event_t event);
    /* protocol handlers */
    void *install_protocol_interface;
    void *reinstall_protocol_interface;
    void *uninstall_protocol_interface;
    efi_status_t (EFIAPI *handle_protocol)(efi_handle_t handle, const efi_guid_t *protocol,
                                           void **interface);
    void *reserved;
    void *register_protocol_notify;
    efi_status_t (EFIAPI *locate_handle)(efi_locate_search_type_t type,
                                         const efi_guid_t *protocol, void *search_key,
                                         uint64_t *buffer_size, efi_handle_t *buffer);
    efi_status_t (EFIAPI *locate_device_path)(const efi_guid_t *protocol,
                                              efi_device_path_t **device_path,
                                              efi_handle_t *device);
    efi_status_t (EFIAPI *install_configuration_table)(const efi_guid_t *guid, void *table);
    /* image services */
    efi_status_t (EFIAPI *load_image)(uint8_t boot_policy, efi_handle_t parent, void *device_path,
                                      void *source, uint64_t source_size, efi_handle_t *image);
    void *start_image;
    efi_status_t (EFIAPI *exit)(efi_handle_t image, efi_status_t status, uint64_t data_size,
                                efi_char16_t *data);
    efi_status_t (EFIAPI *unload_image)(efi_handle_t image);
    efi_status_t (EFIAPI *exit_boot_services)(efi_handle_t image, uint64_t map_key);
    /* miscellaneous */
    void *get_next_monotonic_count;
    efi_status_t (EFIAPI *stall)(uint64_t microseconds);
    efi_status_t (EFIAPI *set_watchdog_timer)(uint64_t timeout, uint64_t code,
                                              uint64_t data_size, efi_char16_t *data);
    /* driver support */
    efi_status_t (EFIAPI *connect_controller)(efi_handle_t controller, efi_handle_t *driver,
                                              efi_device_path_t *remaining, uint8_t recursive);
    void *disconnect_controller;
    /* open and close protocol */
    efi_status_t (EFIAPI *open_protocol)(efi_handle_t handle, const efi_guid_t *protocol,
                                         void **interface, efi_handle_t agent,
                                         efi_handle_t controller, uint32_t attributes);
    void *close_protocol;
    void *open_protocol_information;
    /* library */
    void *protocols_per_handle;
    efi_status_t (EFIAPI *locate_handle_buffer)(efi_locate_search_type_t type,
                                                const efi_guid_t *protocol, void *search_key,
                                                uint64_t *no_handles, efi_handle_t **buffer);
    efi_status_t (EFIAPI *locate_protocol)(const efi_guid_t *protocol, void *registration,
                                           void **interface);
    void *install_multiple_protocol_interfaces;
    void *uninstall_multiple_protocol_interfaces;
    /* 32-bit CRC */
    efi_status_t (EFIAPI *calculate_crc32)(const void *data, uint64_t size, uint32_t *crc);
    /* miscellaneous */
    void (EFIAPI *copy_mem)(void *dst, const void *src, uint64_t len);
    void (EFIAPI *set_mem)(void *buf, uint64_t size, uint8_t value);
    efi_status_t (EFIAPI *create_event_ex)(uint32_t type, uint64_t notify_tpl, void *notify_function,
                                           const void *notify_context, const efi_guid_t *event_group,
                                           efi_event_t *event);
} efi_boot_services_t;

/* 37.7 EFI_MEMORY_ATTRIBUTE_PROTOCOL */
typedef struct efi_memory_attribute_protocol efi_memory_attribute_protocol_t;
struct efi_memory_attribute_protocol {
    efi_status_t (EFIAPI *get_memory_attributes)(efi_memory_attribute_protocol_t *, efi_physical_addr_t base,
                                                 uint64_t length, uint64_t *attributes);
    efi_status_t (EFIAPI *set_memory_attributes)(efi_memory_attribute_protocol_t *, efi_physical_addr_t base,
                                                 uint64_t length, uint64_t attributes);
    efi_status_t (EFIAPI *clear_memory_attributes)(efi_memory_attribute_protocol_t *, efi_physical_addr_t base,
                                                   uint64_t length, uint64_t attributes);
};

/* 4.3 EFI_SYSTEM_TABLE (120 bytes) */
typedef struct {
    efi_table_header_t hdr;
    const efi_char16_t *firmware_vendor;
    uint32_t firmware_revision;
    efi_handle_t console_in_handle;
    efi_simple_text_input_t *con_in;
    efi_handle_t console_out_handle;
    efi_simple_text_output_t *con_out;
    efi_handle_t standard_error_handle;
    efi_simple_text_output_t *std_err;
    efi_runtime_services_t *runtime_services;
    efi_boot_services_t *boot_services;
    uint64_t number_of_table_entries;
    efi_configuration_table_t *configuration_table;
} efi_system_table_t;

/* 9.1 EFI_LOADED_IMAGE_PROTOCOL */
typedef struct {
    uint32_t revision;
    efi_handle_t parent_handle;
    efi_system_table_t *system_table;
    efi_handle_t device_handle;
    efi_device_path_t *file_path;
    void *reserved;
    uint32_t load_options_size;
    void *load_options;
    void *image_base;
    uint64_t image_size;
    efi_memory_type_t image_code_type;
    efi_memory_type_t image_data_type;
    void *unload;
} efi_loaded_image_t;

_Static_assert(sizeof(efi_table_header_t) == 24, "table header");
_Static_assert(sizeof(efi_system_table_t) == 120, "system table");
_Static_assert(sizeof(efi_boot_services_t) == 376, "boot services");
_Static_assert(sizeof(efi_runtime_services_t) == 136, "runtime services");
_Static_assert(sizeof(efi_memory_descriptor_t) == 40, "memory descriptor");
_Static_assert(sizeof(efi_configuration_table_t) == 24, "configuration table");
_Static_assert(offsetof(efi_boot_services_t, create_event_ex) == 24 + 43 * 8, "bs layout");
_Static_assert(offsetof(efi_boot_services_t, exit_boot_services) == 24 + 26 * 8, "bs layout");
_Static_assert(offsetof(efi_runtime_services_t, get_variable) == 24 + 6 * 8, "rt layout");
_Static_assert(offsetof(efi_loaded_image_t, load_options_size) == 48, "loaded image");
_Static_assert(offsetof(efi_loaded_image_t, image_base) == 64, "loaded image");

#pragma GCC visibility pop

#endif
