/* The x86 zero page (struct boot_params) and its setup header, laid out as
 * in the kernel's arch/x86/include/uapi/asm/bootparam.h and described in
 * Documentation/arch/x86/boot.rst. Offsets are checked below. */
#ifndef HANDOVER_BOOTPARAM_H
#define HANDOVER_BOOTPARAM_H

#include <stddef.h>
#include <stdint.h>

#define SETUP_HEADER_OFFSET 0x1f1
#define BOOT_FLAG_MAGIC     0xAA55
#define SETUP_HDRS_MAGIC    0x53726448 /* "HdrS" */

/* loadflags */
#define LOADED_HIGH   (1 << 0)
#define KASLR_FLAG    (1 << 1)
#define CAN_USE_HEAP  (1 << 7)

/* xloadflags */
#define XLF_KERNEL_64               (1 << 0)
#define XLF_CAN_BE_LOADED_ABOVE_4G  (1 << 1)
#define XLF_EFI_HANDOVER_32         (1 << 2)
#define XLF_EFI_HANDOVER_64         (1 << 3)
#define XLF_EFI_KEXEC               (1 << 4)

#define E820_MAX_ENTRIES_ZEROPAGE 128
#define E820_TYPE_RAM      1
#define E820_TYPE_RESERVED 2
#define E820_TYPE_ACPI     3
#define E820_TYPE_NVS      4
#define E820_TYPE_UNUSABLE 5
#define E820_TYPE_PMEM     7
#define E820_TYPE_PRAM     12
#define E820_TYPE_SOFT_RESERVED 0xefffffff

#define EFI64_LOADER_SIGNATURE 0x34364c45 /* "EL64" */
#define EFI32_LOADER_SIGNATURE 0x32334c45 /* "EL32": a mixed-mode stub on an IA-32 firmware */

struct __attribute__((packed)) setup_header {
    uint8_t  setup_sects;
    uint16_t root_flags;
    uint32_t syssize;
    uint16_t ram_size;
    uint16_t vid_mode;
    uint16_t root_dev;
    uint16_t boot_flag;
    uint16_t jump;
    uint32_t header;
    uint16_t version;
    uint32_t realmode_swtch;
    uint16_t start_sys_seg;
    uint16_t kernel_version;
    uint8_t  type_of_loader;
    uint8_t  loadflags;
    uint16_t setup_move_size;
    uint32_t code32_start;
    uint32_t ramdisk_image;
    uint32_t ramdisk_size;
    uint32_t bootsect_kludge;
    uint16_t heap_end_ptr;
    uint8_t  ext_loader_ver;
    uint8_t  ext_loader_type;
    uint32_t cmd_line_ptr;
    uint32_t initrd_addr_max;
    uint32_t kernel_alignment;
    uint8_t  relocatable_kernel;
    uint8_t  min_alignment;
    uint16_t xloadflags;
    uint32_t cmdline_size;
    uint32_t hardware_subarch;
    uint64_t hardware_subarch_data;
    uint32_t payload_offset;
    uint32_t payload_length;
    uint64_t setup_data;
    uint64_t pref_address;
    uint32_t init_size;
    uint32_t handover_offset;
    uint32_t kernel_info_offset;
};

/* A setup_data node's header; the payload follows (arch/x86/include/uapi/asm/bootparam.h). */
#define SETUP_E820_EXT 1
#define SETUP_DTB      2
struct setup_data_header {
    uint64_t next;
    uint32_t type, len;
};
_Static_assert(sizeof(struct setup_data_header) == 16, "struct setup_data's header is 16 bytes");

struct __attribute__((packed)) boot_e820_entry {
    uint64_t addr;
    uint64_t size;
    uint32_t type;
};

struct __attribute__((packed)) efi_info {
    uint32_t efi_loader_signature;
    uint32_t efi_systab;
    uint32_t efi_memdesc_size;
    uint32_t efi_memdesc_version;
    uint32_t efi_memmap;
    uint32_t efi_memmap_size;
    uint32_t efi_systab_hi;
    uint32_t efi_memmap_hi;
};

struct __attribute__((packed)) boot_params {
    uint8_t  screen_info[0x40];
    uint8_t  apm_bios_info[0x14];
    uint8_t  pad2[4];
    uint64_t tboot_addr;
    uint8_t  ist_info[0x10];
    uint64_t acpi_rsdp_addr;
    uint8_t  pad3[8];
    uint8_t  hd0_info[16];
    uint8_t  hd1_info[16];
    uint8_t  sys_desc_table[0x10];
    uint8_t  olpc_ofw_header[0x10];
    uint32_t ext_ramdisk_image;
    uint32_t ext_ramdisk_size;
    uint32_t ext_cmd_line_ptr;
    uint8_t  pad4[112];
    uint32_t cc_blob_address;
    uint8_t  edid_info[0x80];
    struct efi_info efi_info;
    uint32_t alt_mem_k;
    uint32_t scratch;
    uint8_t  e820_entries;
    uint8_t  eddbuf_entries;
    uint8_t  edd_mbr_sig_buf_entries;
    uint8_t  kbd_status;
    uint8_t  secure_boot;
    uint8_t  pad5[2];
    uint8_t  sentinel;
    uint8_t  pad6[1];
    struct setup_header hdr;
    uint8_t  pad7[0x290 - 0x1f1 - sizeof(struct setup_header)];
    uint32_t edd_mbr_sig_buffer[16];
    struct boot_e820_entry e820_table[E820_MAX_ENTRIES_ZEROPAGE];
    uint8_t  pad8[48];
    uint8_t  eddbuf[6 * 82];
    uint8_t  pad9[276];
};

_Static_assert(sizeof(struct boot_params) == 4096, "boot_params is one page");
_Static_assert(offsetof(struct boot_params, acpi_rsdp_addr) == 0x070, "acpi_rsdp_addr");
_Static_assert(offsetof(struct boot_params, ext_cmd_line_ptr) == 0x0c8, "ext_cmd_line_ptr");
_Static_assert(offsetof(struct boot_params, efi_info) == 0x1c0, "efi_info");
_Static_assert(offsetof(struct boot_params, e820_entries) == 0x1e8, "e820_entries");
_Static_assert(offsetof(struct boot_params, hdr) == SETUP_HEADER_OFFSET, "hdr");
_Static_assert(offsetof(struct boot_params, hdr.cmd_line_ptr) == 0x228, "cmd_line_ptr");
_Static_assert(offsetof(struct boot_params, hdr.xloadflags) == 0x236, "xloadflags");
_Static_assert(offsetof(struct boot_params, hdr.handover_offset) == 0x264, "handover_offset");
_Static_assert(offsetof(struct boot_params, e820_table) == 0x2d0, "e820_table");
_Static_assert(offsetof(struct boot_params, eddbuf) == 0xd00, "eddbuf");

#endif
