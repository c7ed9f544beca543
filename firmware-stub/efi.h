/* UEFI 2.x types, constants and table layouts the fake firmware builds in
 * guest memory. Layouts follow the UEFI Specification 2.10, chapter 4
 * (system table), 7 (boot services), 8 (runtime services). All multi-byte
 * values are little-endian, as on x86-64. */
#ifndef HANDOVER_EFI_H
#define HANDOVER_EFI_H

#include <stdint.h>

#include "services.h"

typedef uint64_t efi_status_t;

#define EFI_ERR(n) ((efi_status_t)(n) | (1ULL << 63))
#define EFI_SUCCESS              0ULL
#define EFI_LOAD_ERROR           EFI_ERR(1)
#define EFI_INVALID_PARAMETER    EFI_ERR(2)
#define EFI_UNSUPPORTED          EFI_ERR(3)
#define EFI_BAD_BUFFER_SIZE      EFI_ERR(4)
#define EFI_BUFFER_TOO_SMALL     EFI_ERR(5)
#define EFI_NOT_READY            EFI_ERR(6)
#define EFI_DEVICE_ERROR         EFI_ERR(7)
#define EFI_WRITE_PROTECTED      EFI_ERR(8)
#define EFI_OUT_OF_RESOURCES     EFI_ERR(9)
#define EFI_VOLUME_FULL          EFI_ERR(11)
#define EFI_MEDIA_CHANGED        EFI_ERR(13)
#define EFI_NOT_FOUND            EFI_ERR(14)
#define EFI_ACCESS_DENIED        EFI_ERR(15)
#define EFI_NO_MAPPING           EFI_ERR(17)
#define EFI_ALREADY_STARTED      EFI_ERR(20)
#define EFI_SECURITY_VIOLATION   EFI_ERR(26)
#define EFI_WARN_DELETE_FAILURE  2ULL   /* a warning: EFI_FILE_PROTOCOL.Delete left the file */

const char *efi_status_name(efi_status_t s);

/* Memory types, UEFI 2.10 table 7.10. */
enum efi_memory_type {
    EFI_RESERVED_MEMORY_TYPE,
    EFI_LOADER_CODE,
    EFI_LOADER_DATA,
    EFI_BOOT_SERVICES_CODE,
    EFI_BOOT_SERVICES_DATA,
    EFI_RUNTIME_SERVICES_CODE,
    EFI_RUNTIME_SERVICES_DATA,
    EFI_CONVENTIONAL_MEMORY,
    EFI_UNUSABLE_MEMORY,
    EFI_ACPI_RECLAIM_MEMORY,
    EFI_ACPI_MEMORY_NVS,
    EFI_MEMORY_MAPPED_IO,
    EFI_MEMORY_MAPPED_IO_PORT_SPACE,
    EFI_PAL_CODE,
    EFI_PERSISTENT_MEMORY,
    EFI_UNACCEPTED_MEMORY_TYPE,
    EFI_MAX_MEMORY_TYPE
};
#define EFI_OEM_MEMORY_TYPE_FIRST 0x70000000u
#define EFI_OS_MEMORY_TYPE_LAST   0xFFFFFFFFu

const char *efi_memory_type_name(uint32_t type);

/* Memory attributes, UEFI 2.10 section 7.2. */
#define EFI_MEMORY_UC      0x1ULL
#define EFI_MEMORY_WC      0x2ULL
#define EFI_MEMORY_WT      0x4ULL
#define EFI_MEMORY_WB      0x8ULL
#define EFI_MEMORY_RP      0x2000ULL     /* read-protected */
#define EFI_MEMORY_XP      0x4000ULL     /* execute-protected */
#define EFI_MEMORY_RO      0x20000ULL    /* read-only */
#define EFI_MEMORY_RUNTIME (1ULL << 63)

/* EFI_TIME (UEFI 2.10 section 8.3): year to nanosecond, time zone, daylight */
#define EFI_TIME_SIZE 16

/* EFI_ALLOCATE_TYPE */
enum efi_allocate_type {
    EFI_ALLOCATE_ANY_PAGES,
    EFI_ALLOCATE_MAX_ADDRESS,
    EFI_ALLOCATE_ADDRESS,
    EFI_MAX_ALLOCATE_TYPE
};

/* EFI_LOCATE_SEARCH_TYPE */
enum efi_locate_search_type { EFI_ALL_HANDLES, EFI_BY_REGISTER_NOTIFY, EFI_BY_PROTOCOL };
#define EFI_NATIVE_INTERFACE 0   /* EFI_INTERFACE_TYPE, InstallProtocolInterface */

/* OpenProtocol's Attributes (UEFI 2.10 section 7.3.9) */
#define EFI_OPEN_PROTOCOL_BY_HANDLE_PROTOCOL  0x01
#define EFI_OPEN_PROTOCOL_GET_PROTOCOL        0x02
#define EFI_OPEN_PROTOCOL_TEST_PROTOCOL       0x04
#define EFI_OPEN_PROTOCOL_BY_CHILD_CONTROLLER 0x08
#define EFI_OPEN_PROTOCOL_BY_DRIVER           0x10
#define EFI_OPEN_PROTOCOL_EXCLUSIVE           0x20

#define EFI_PAGE_SIZE 4096ULL
#define EFI_MEMORY_DESCRIPTOR_VERSION 1

struct efi_memory_descriptor {
    uint32_t type;
    uint32_t pad;
    uint64_t physical_start;
    uint64_t virtual_start;
    uint64_t number_of_pages;
    uint64_t attribute;
};
_Static_assert(sizeof(struct efi_memory_descriptor) == 40, "EFI_MEMORY_DESCRIPTOR is 40 bytes");

typedef struct { uint8_t b[16]; } efi_guid_t;

/* A GUID written as in the spec: {d1, d2, d3, {d4[0..7]}}. */
#define EFI_GUID(a, b, c, d0, d1, d2, d3, d4, d5, d6, d7) ((efi_guid_t){{ \
    (a) & 0xff, ((a) >> 8) & 0xff, ((a) >> 16) & 0xff, ((a) >> 24) & 0xff, \
    (b) & 0xff, ((b) >> 8) & 0xff, (c) & 0xff, ((c) >> 8) & 0xff, \
    (d0), (d1), (d2), (d3), (d4), (d5), (d6), (d7) }})

struct efi_table_header {
    uint64_t signature;
    uint32_t revision;
    uint32_t header_size;
    uint32_t crc32;
    uint32_t reserved;
};

#define EFI_SYSTEM_TABLE_SIGNATURE   0x5453595320494249ULL /* "IBI SYST" */
#define EFI_BOOT_SERVICES_SIGNATURE  0x56524553544f4f42ULL /* "BOOTSERV" */
#define EFI_RUNTIME_SERVICES_SIGNATURE 0x56524553544e5552ULL /* "RUNTSERV" */
#define EFI_SPECIFICATION_REVISION   ((2u << 16) | 100u) /* 2.10 */

struct efi_system_table {
    struct efi_table_header hdr;
    uint64_t firmware_vendor;
    uint32_t firmware_revision;
    uint32_t pad;
    uint64_t console_in_handle;
    uint64_t con_in;
    uint64_t console_out_handle;
    uint64_t con_out;
    uint64_t standard_error_handle;
    uint64_t std_err;
    uint64_t runtime_services;
    uint64_t boot_services;
    uint64_t number_of_table_entries;
    uint64_t configuration_table;
};
_Static_assert(sizeof(struct efi_system_table) == 120, "EFI_SYSTEM_TABLE is 120 bytes");

struct efi_configuration_table {
    efi_guid_t vendor_guid;
    uint64_t vendor_table;
};
_Static_assert(sizeof(struct efi_configuration_table) == 24, "EFI_CONFIGURATION_TABLE is 24 bytes");

/* EFI_RT_PROPERTIES_TABLE (UEFI 2.10 section 4.6.2): which runtime services
 * the firmware serves after ExitBootServices, one EFI_RT_SUPPORTED_* bit each. */
struct efi_rt_properties_table {
    uint16_t version, length;
    uint32_t runtime_services_supported;
};
#define EFI_RT_PROPERTIES_TABLE_VERSION 1

/* EFI_BOOT_SERVICES holds 44 function pointers after its header, and
 * EFI_RUNTIME_SERVICES 14 (UEFI 2.10 sections 4.4 and 4.5). */
#define EFI_BOOT_SERVICES_COUNT    BS_COUNT   /* services.h */
#define EFI_RUNTIME_SERVICES_COUNT RT_COUNT
#define EFI_BOOT_SERVICES_SIZE     (24 + 8 * EFI_BOOT_SERVICES_COUNT)
#define EFI_RUNTIME_SERVICES_SIZE  (24 + 8 * EFI_RUNTIME_SERVICES_COUNT)
_Static_assert(EFI_BOOT_SERVICES_SIZE == 376, "EFI_BOOT_SERVICES is 376 bytes");
_Static_assert(EFI_RUNTIME_SERVICES_SIZE == 136, "EFI_RUNTIME_SERVICES is 136 bytes");

/* EFI_LOADED_IMAGE_PROTOCOL, UEFI 2.10 section 9.1. */
struct efi_loaded_image {
    uint32_t revision;
    uint32_t pad0;
    uint64_t parent_handle;
    uint64_t system_table;
    uint64_t device_handle;
    uint64_t file_path;
    uint64_t reserved;
    uint32_t load_options_size;
    uint32_t pad1;
    uint64_t load_options;
    uint64_t image_base;
    uint64_t image_size;
    uint32_t image_code_type;
    uint32_t image_data_type;
    uint64_t unload;
};
_Static_assert(sizeof(struct efi_loaded_image) == 96, "EFI_LOADED_IMAGE_PROTOCOL is 96 bytes");
#define EFI_LOADED_IMAGE_PROTOCOL_REVISION 0x1000

/* The IA-32 binding's layouts (UEFI 2.10 section 2.3.2: pointers and
 * UINTN are 4 bytes, every field at its natural alignment), which a
 * 32-bit firmware builds and a mixed-mode kernel's stub reads
 * (include/linux/efi.h efi_system_table_32_t, efi_loaded_image_32_t). */
struct efi_system_table32 {
    struct efi_table_header hdr;
    uint32_t firmware_vendor;
    uint32_t firmware_revision;
    uint32_t console_in_handle;
    uint32_t con_in;
    uint32_t console_out_handle;
    uint32_t con_out;
    uint32_t standard_error_handle;
    uint32_t std_err;
    uint32_t runtime_services;
    uint32_t boot_services;
    uint32_t number_of_table_entries;
    uint32_t configuration_table;
};
_Static_assert(sizeof(struct efi_system_table32) == 72, "EFI_SYSTEM_TABLE is 72 bytes on IA-32");

struct efi_configuration_table32 {
    efi_guid_t vendor_guid;
    uint32_t vendor_table;
};
_Static_assert(sizeof(struct efi_configuration_table32) == 20, "EFI_CONFIGURATION_TABLE is 20 bytes on IA-32");

#define EFI_BOOT_SERVICES32_SIZE    (24 + 4 * EFI_BOOT_SERVICES_COUNT)
#define EFI_RUNTIME_SERVICES32_SIZE (24 + 4 * EFI_RUNTIME_SERVICES_COUNT)
_Static_assert(EFI_BOOT_SERVICES32_SIZE == 200, "EFI_BOOT_SERVICES is 200 bytes on IA-32");
_Static_assert(EFI_RUNTIME_SERVICES32_SIZE == 80, "EFI_RUNTIME_SERVICES is 80 bytes on IA-32");

struct efi_loaded_image32 {
    uint32_t revision;
    uint32_t parent_handle;
    uint32_t system_table;
    uint32_t device_handle;
    uint32_t file_path;
    uint32_t reserved;
    uint32_t load_options_size;
    uint32_t load_options;
    uint32_t image_base;
    uint32_t pad0;
    uint64_t image_size;          /* UINT64: 8-aligned */
    uint32_t image_code_type;
    uint32_t image_data_type;
    uint32_t unload;
    uint32_t pad1;
};
_Static_assert(sizeof(struct efi_loaded_image32) == 64, "EFI_LOADED_IMAGE_PROTOCOL is 64 bytes on IA-32");

/* An EFI_STATUS as an IA-32 firmware returns it in EAX: the error bit is
 * bit 31 (the kernel's efi64_convert_status does the same). */
static inline uint32_t efi_status32(efi_status_t s)
{
    return (uint32_t)(s | s >> 32);
}

/* And back: an IA-32 EFI_STATUS (Exit's ExitStatus, an image's return). */
static inline efi_status_t efi_status_from32(uint32_t s)
{
    return (s & 0x7fffffffu) | (efi_status_t)(s >> 31) << 63;
}

/* SIMPLE_TEXT_OUTPUT_MODE */
struct efi_simple_text_output_mode {
    int32_t max_mode;
    int32_t mode;
    int32_t attribute;
    int32_t cursor_column;
    int32_t cursor_row;
    uint8_t cursor_visible;
    uint8_t pad[3];
};

/* Event types, UEFI 2.10 section 7.1.1 (CreateEvent). */
#define EVT_TIMER                         0x80000000u
#define EVT_RUNTIME                       0x40000000u
#define EVT_NOTIFY_WAIT                   0x00000100u
#define EVT_NOTIFY_SIGNAL                 0x00000200u
#define EVT_SIGNAL_EXIT_BOOT_SERVICES     0x00000201u
#define EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE 0x60000202u

/* EFI_TIMER_DELAY, UEFI 2.10 section 7.1.7 (SetTimer). */
enum efi_timer_delay { EFI_TIMER_CANCEL, EFI_TIMER_PERIODIC, EFI_TIMER_RELATIVE };

/* EFI_INPUT_KEY, UEFI 2.10 section 12.3.3, and the scan codes of table
 * 12-4 that --keys names. */
struct efi_input_key {
    uint16_t scan_code;
    uint16_t unicode_char;
};
#define EFI_SCAN_NULL   0x00
#define EFI_SCAN_UP     0x01
#define EFI_SCAN_DOWN   0x02
#define EFI_SCAN_RIGHT  0x03
#define EFI_SCAN_LEFT   0x04
#define EFI_SCAN_ESC    0x17
#define EFI_CHAR_BACKSPACE       0x08
#define EFI_CHAR_TAB             0x09
#define EFI_CHAR_CARRIAGE_RETURN 0x0d

/* Device path nodes, UEFI 2.10 chapter 10. */
struct efi_device_path_header {
    uint8_t type;
    uint8_t sub_type;
    uint8_t length[2];
};
#define EFI_DEV_HARDWARE       0x01
#define EFI_DEV_HARDWARE_VENDOR  0x04
#define EFI_DEV_MEDIA          0x04
#define EFI_DEV_MEDIA_VENDOR   0x03
#define EFI_DEV_MEDIA_HARD_DRIVE 0x01
#define EFI_DEV_MEDIA_FILE_PATH  0x04
#define EFI_DEV_END_PATH       0x7f
#define EFI_DEV_END_ENTIRE     0xff

/* Variable attributes, UEFI 2.10 section 8.2. */
#define EFI_VARIABLE_NON_VOLATILE       0x1u
#define EFI_VARIABLE_BOOTSERVICE_ACCESS 0x2u
#define EFI_VARIABLE_RUNTIME_ACCESS     0x4u
#define EFI_VARIABLE_APPEND_WRITE       0x40u

#endif
