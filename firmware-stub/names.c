/* Names for EFI status codes, memory types and GUIDs: the tables traces and
 * error messages are written from. */
#include <stdio.h>
#include <string.h>

#include "efi.h"
#include "guids.h"

/* Every code UEFI 2.10 Appendix D names: errors (the high bit set) and
 * warnings. */
const char *efi_status_name(efi_status_t s)
{
    static const char *const err[] = {
        [1] = "EFI_LOAD_ERROR", [2] = "EFI_INVALID_PARAMETER", [3] = "EFI_UNSUPPORTED",
        [4] = "EFI_BAD_BUFFER_SIZE", [5] = "EFI_BUFFER_TOO_SMALL", [6] = "EFI_NOT_READY",
        [7] = "EFI_DEVICE_ERROR", [8] = "EFI_WRITE_PROTECTED", [9] = "EFI_OUT_OF_RESOURCES",
        [10] = "EFI_VOLUME_CORRUPTED", [11] = "EFI_VOLUME_FULL", [12] = "EFI_NO_MEDIA",
        [13] = "EFI_MEDIA_CHANGED", [14] = "EFI_NOT_FOUND", [15] = "EFI_ACCESS_DENIED",
        [16] = "EFI_NO_RESPONSE", [17] = "EFI_NO_MAPPING", [18] = "EFI_TIMEOUT",
        [19] = "EFI_NOT_STARTED", [20] = "EFI_ALREADY_STARTED", [21] = "EFI_ABORTED",
        [22] = "EFI_ICMP_ERROR", [23] = "EFI_TFTP_ERROR", [24] = "EFI_PROTOCOL_ERROR",
        [25] = "EFI_INCOMPATIBLE_VERSION", [26] = "EFI_SECURITY_VIOLATION", [27] = "EFI_CRC_ERROR",
        [28] = "EFI_END_OF_MEDIA", [31] = "EFI_END_OF_FILE", [32] = "EFI_INVALID_LANGUAGE",
        [33] = "EFI_COMPROMISED_DATA", [34] = "EFI_IP_ADDRESS_CONFLICT", [35] = "EFI_HTTP_ERROR",
    };
    static const char *const warn[] = {
        [1] = "EFI_WARN_UNKNOWN_GLYPH", [2] = "EFI_WARN_DELETE_FAILURE", [3] = "EFI_WARN_WRITE_FAILURE",
        [4] = "EFI_WARN_BUFFER_TOO_SMALL", [5] = "EFI_WARN_STALE_DATA", [6] = "EFI_WARN_FILE_SYSTEM",
        [7] = "EFI_WARN_RESET_REQUIRED",
    };
    if (s == EFI_SUCCESS)
        return "EFI_SUCCESS";
    uint64_t code = s & ~(1ULL << 63);
    if ((s >> 63) && code < sizeof(err) / sizeof(err[0]) && err[code])
        return err[code];
    if (!(s >> 63) && code < sizeof(warn) / sizeof(warn[0]))
        return warn[code];
    return (s >> 63) ? "EFI_ERROR_UNKNOWN" : "EFI_WARN_UNKNOWN";
}

const char *efi_memory_type_name(uint32_t type)
{
    static const char *const names[] = {
        "EfiReservedMemoryType", "EfiLoaderCode", "EfiLoaderData", "EfiBootServicesCode",
        "EfiBootServicesData", "EfiRuntimeServicesCode", "EfiRuntimeServicesData",
        "EfiConventionalMemory", "EfiUnusableMemory", "EfiACPIReclaimMemory",
        "EfiACPIMemoryNVS", "EfiMemoryMappedIO", "EfiMemoryMappedIOPortSpace", "EfiPalCode",
        "EfiPersistentMemory", "EfiUnacceptedMemoryType",
    };
    if (type < sizeof(names) / sizeof(names[0]))
        return names[type];
    if (type >= EFI_OEM_MEMORY_TYPE_FIRST && type < 0x80000000u)
        return "OEM";
    if (type >= 0x80000000u)
        return "OSVendor";
    return "Invalid";
}

static const struct guid_name known_guids[] = {
    { GUID_LOADED_IMAGE, "EFI_LOADED_IMAGE_PROTOCOL" },
    { GUID_LOADED_IMAGE_DEVICE_PATH, "EFI_LOADED_IMAGE_DEVICE_PATH_PROTOCOL" },
    { GUID_DEVICE_PATH, "EFI_DEVICE_PATH_PROTOCOL" },
    { GUID_SIMPLE_TEXT_OUTPUT, "EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL" },
    { GUID_SIMPLE_TEXT_INPUT, "EFI_SIMPLE_TEXT_INPUT_PROTOCOL" },
    { GUID_GLOBAL_VARIABLE, "EFI_GLOBAL_VARIABLE" },
    { GUID_ACPI_20_TABLE, "ACPI_20_TABLE" },
    { GUID_RT_PROPERTIES_TABLE, "EFI_RT_PROPERTIES_TABLE" },
    { GUID_EVENT_GROUP_EXIT_BOOT_SERVICES, "EFI_EVENT_GROUP_EXIT_BOOT_SERVICES" },
    { GUID_EVENT_GROUP_VIRTUAL_ADDRESS_CHANGE, "EFI_EVENT_GROUP_VIRTUAL_ADDRESS_CHANGE" },
    { EFI_GUID(0xeb9d2d30, 0x2d88, 0x11d3, 0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d), "ACPI_TABLE" },
    { EFI_GUID(0x9042a9de, 0x23dc, 0x4a38, 0x96, 0xfb, 0x7a, 0xde, 0xd0, 0x80, 0x51, 0x6a), "EFI_GRAPHICS_OUTPUT_PROTOCOL" },
    { EFI_GUID(0x982c298b, 0xf4fa, 0x41cb, 0xb8, 0x38, 0x77, 0xaa, 0x68, 0x8f, 0xb8, 0x39), "EFI_UGA_PROTOCOL" },
    { EFI_GUID(0x4cf5b200, 0x68b8, 0x4ca5, 0x9e, 0xec, 0xb2, 0x3e, 0x3f, 0x50, 0x02, 0x9a), "EFI_PCI_IO_PROTOCOL" },
    { GUID_RNG_PROTOCOL, "EFI_RNG_PROTOCOL" },
    { GUID_LOAD_FILE2_PROTOCOL, "EFI_LOAD_FILE2_PROTOCOL" },
    { GUID_LINUX_INITRD_MEDIA, "LINUX_EFI_INITRD_MEDIA" },
    { EFI_GUID(0x800f683f, 0xd08b, 0x423a, 0xa2, 0x93, 0x96, 0x5c, 0x3c, 0x6f, 0xe2, 0xb4), "LINUX_EFI_BOOT_MEMMAP" },
    { EFI_GUID(0x1ce1e5bc, 0x7ceb, 0x42f2, 0x81, 0xe5, 0x8a, 0xad, 0xf1, 0x80, 0xf5, 0x7b), "LINUX_EFI_RANDOM_SEED" },
    { GUID_MEMORY_ATTRIBUTE_PROTOCOL, "EFI_MEMORY_ATTRIBUTE_PROTOCOL" },
    { GUID_TCG2_PROTOCOL, "EFI_TCG2_PROTOCOL" },
    { GUID_TCG2_FINAL_EVENTS_TABLE, "EFI_TCG2_FINAL_EVENTS_TABLE" },
    { EFI_GUID(0x96751a3d, 0x72f4, 0x41a6, 0xa7, 0x94, 0xed, 0x5d, 0x0e, 0x67, 0xae, 0x6b), "EFI_CC_MEASUREMENT_PROTOCOL" },
    { EFI_GUID(0x05ad34ba, 0x6f02, 0x4214, 0x95, 0x2e, 0x4d, 0xa0, 0x39, 0x8e, 0x2b, 0xb9), "EFI_DXE_SERVICES_TABLE" },
    { EFI_GUID(0xe20939be, 0x32d4, 0x41be, 0xa1, 0x50, 0x89, 0x7f, 0x85, 0xd4, 0x98, 0x29), "MEMORY_ONLY_RESET_CONTROL" },
    { EFI_GUID(0x605dab50, 0xe046, 0x4300, 0xab, 0xb6, 0x3d, 0xd8, 0x10, 0xdd, 0x8b, 0x23), "SHIM_LOCK" },
    { EFI_GUID(0xc5a010fe, 0x38a7, 0x4531, 0x8a, 0x4a, 0x05, 0x00, 0xd2, 0xfd, 0x16, 0x49), "OVMF_SEV_MEMORY_ACCEPTANCE_PROTOCOL" },
    { EFI_GUID(0x4424ac57, 0xbe4b, 0x47dd, 0x9e, 0x97, 0xed, 0x50, 0xf0, 0x9f, 0x92, 0xa9), "EFI_DUMMY" },
    { EFI_GUID(0xd719b2cb, 0x3d3a, 0x4596, 0xa3, 0xbc, 0xda, 0xd0, 0x0e, 0x67, 0x65, 0x6f), "EFI_IMAGE_SECURITY_DATABASE" },
    { EFI_GUID(0xdcfa911d, 0x26eb, 0x469f, 0xa2, 0x20, 0x38, 0xb7, 0xdc, 0x46, 0x12, 0x20), "EFI_MEMORY_ATTRIBUTES_TABLE" },
    { EFI_GUID(0xb7799cb0, 0xeca2, 0x4943, 0x96, 0x67, 0x1f, 0xae, 0x07, 0xb7, 0x47, 0xfa), "LINUX_EFI_TPM_EVENT_LOG" },
    { EFI_GUID(0x05c99a21, 0xc70f, 0x4ad2, 0x8a, 0x5f, 0x35, 0xdf, 0x33, 0x43, 0xf5, 0x1e), "EFI_DEVICE_PATH_FROM_TEXT_PROTOCOL" },
    { GUID_SIMPLE_FILE_SYSTEM, "EFI_SIMPLE_FILE_SYSTEM_PROTOCOL" },
    { GUID_FILE_INFO, "EFI_FILE_INFO" },
    { GUID_FILE_SYSTEM_INFO, "EFI_FILE_SYSTEM_INFO" },
    { GUID_FILE_SYSTEM_VOLUME_LABEL, "EFI_FILE_SYSTEM_VOLUME_LABEL" },
    /* what systemd-stub asks for (src/boot/efi/stub.c, linux.c, initrd.c) */
    { EFI_GUID(0xf541796d, 0xa62e, 0x4954, 0xa7, 0x75, 0x95, 0x84, 0xf6, 0x1b, 0x9c, 0xdd), "EFI_TCG_PROTOCOL" },
    { EFI_GUID(0x752f3136, 0x4e16, 0x4fdc, 0xa2, 0x2a, 0xe5, 0xf4, 0x68, 0x12, 0xf4, 0xca), "EFI_SHELL_PARAMETERS_PROTOCOL" },
    { EFI_GUID(0x1d85cd7f, 0xf43d, 0x11d2, 0x9a, 0x0c, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d), "EFI_UNICODE_COLLATION_PROTOCOL" },
    { EFI_GUID(0x8b843e20, 0x8132, 0x4852, 0x90, 0xcc, 0x55, 0x1a, 0x4e, 0x4a, 0x7f, 0x1c), "EFI_DEVICE_PATH_TO_TEXT_PROTOCOL" },
    { EFI_GUID(0x4a67b082, 0x0a4c, 0x41cf, 0xb6, 0xc7, 0x44, 0x0b, 0x29, 0xbb, 0x8c, 0x4f), "LOADER_GUID" },
    { EFI_GUID(0x55c5d1f8, 0x04cd, 0x46b5, 0x8a, 0x20, 0xe5, 0x6c, 0xbb, 0x30, 0x52, 0xd0), "STUB_PAYLOAD_GUID" },
    { EFI_GUID(0xa46423e3, 0x4617, 0x49f1, 0xb9, 0xff, 0xd1, 0xbf, 0xa9, 0x11, 0x58, 0x39), "EFI_SECURITY_ARCH_PROTOCOL" },
    { EFI_GUID(0x94ab2f58, 0x1438, 0x4ef1, 0x91, 0x52, 0x18, 0x94, 0x1a, 0x3a, 0x0e, 0x68), "EFI_SECURITY2_ARCH_PROTOCOL" },
    /* What GRUB asks for (grub-core/kern/efi, term/efi/console.c, disk/efi/efidisk.c). */
    { GUID_BLOCK_IO, "EFI_BLOCK_IO_PROTOCOL" },
    { EFI_GUID(0xdd9e7534, 0x7762, 0x4698, 0x8c, 0x14, 0xf5, 0x85, 0x17, 0xa6, 0x25, 0xaa),
      "EFI_SIMPLE_TEXT_INPUT_EX_PROTOCOL" },
    { EFI_GUID(0xf42f7782, 0x012e, 0x4c12, 0x99, 0x56, 0x49, 0xf9, 0x43, 0x04, 0xf7, 0x21), "EFI_CONSOLE_CONTROL_PROTOCOL" },
};

bool guid_equal(const efi_guid_t *a, const efi_guid_t *b) { return !memcmp(a, b, sizeof(*a)); }

const char *guid_name(const efi_guid_t *g)
{
    for (size_t i = 0; i < sizeof(known_guids) / sizeof(known_guids[0]); i++)
        if (guid_equal(&known_guids[i].guid, g))
            return known_guids[i].name;
    return NULL;
}

void guid_format(const efi_guid_t *g, char buf[37])
{
    const uint8_t *b = g->b;
    snprintf(buf, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[3], b[2], b[1], b[0], b[5], b[4], b[7], b[6], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}
