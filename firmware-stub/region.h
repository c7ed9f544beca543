/* The firmware region: FW_REGION_SIZE bytes at fw_config.base (the VMM puts
 * it at GUEST_FIRMWARE_BASE, guest/layout.h), every structure the firmware
 * builds in guest memory at a fixed offset in it, in one table:
 *
 *   page  memory type                offsets
 *   0     EfiRuntimeServicesCode     the thunks, FW_THUNK_SIZE each, by service ID
 *   1     EfiRuntimeServicesData     system table, runtime services, vendor
 *                                    string, configuration tables, the
 *                                    runtime properties table
 *   2     EfiBootServicesData        boot services, ConOut (and its Mode),
 *                                    ConIn, the fixed handles, LoadedImage and
 *                                    its device path, RNG, the initrd's
 *                                    LoadFile2 and device path, the memory
 *                                    attribute protocol, events, the
 *                                    TCG2 protocol, the handles made on
 *                                    demand
 *   3     EfiBootServicesData        LoadOptions (UCS-2)
 *
 * Runtime data sits in pages of its own so that SetVirtualAddressMap moves
 * only what the OS keeps (UEFI 2.10 section 8.4). */
#ifndef HANDOVER_FIRMWARE_REGION_H
#define HANDOVER_FIRMWARE_REGION_H

enum fw_region_offset {
    FW_RT_CODE_OFFSET = 0x0000,
    FW_RT_DATA_OFFSET = 0x1000,
    FW_SYSTAB_OFFSET = FW_RT_DATA_OFFSET + 0x000,
    FW_RT_OFFSET = FW_RT_DATA_OFFSET + 0x080,
    FW_VENDOR_OFFSET = FW_RT_DATA_OFFSET + 0x110,
    FW_CONFIG_OFFSET = FW_RT_DATA_OFFSET + 0x200,
    FW_RT_PROPERTIES_OFFSET = FW_RT_DATA_OFFSET + 0x800,

    FW_BS_DATA_OFFSET = 0x2000,
    FW_BS_OFFSET = FW_BS_DATA_OFFSET + 0x000,
    FW_CONOUT_OFFSET = FW_BS_DATA_OFFSET + 0x200,
    FW_CONOUT_MODE_OFFSET = FW_BS_DATA_OFFSET + 0x250,
    FW_CONIN_OFFSET = FW_BS_DATA_OFFSET + 0x280,
    FW_HANDLES_OFFSET = FW_BS_DATA_OFFSET + 0x300,        /* enum fw_fixed_handle */
    FW_LOADED_IMAGE_OFFSET = FW_BS_DATA_OFFSET + 0x360,
    FW_IMAGE_DP_OFFSET = FW_BS_DATA_OFFSET + 0x3c0,
    FW_RNG_OFFSET = FW_BS_DATA_OFFSET + 0x400,
    FW_INITRD_LF2_OFFSET = FW_BS_DATA_OFFSET + 0x420,
    FW_INITRD_DP_OFFSET = FW_BS_DATA_OFFSET + 0x440,
    FW_MEMATTR_OFFSET = FW_BS_DATA_OFFSET + 0x460,   /* EFI_MEMORY_ATTRIBUTE_PROTOCOL */
    /* Events (UEFI 2.10 section 7.1): a handle is the address of an 8-byte
     * slot here; a closed event's slot is reused only once every slot has
     * been used, the one closed longest ago first (events.c), so a stale
     * handle stays invalid as long as can be. WaitForKey takes the first. */
    FW_EVENTS_OFFSET = FW_BS_DATA_OFFSET + 0x480,
    /* Handles made on demand (InstallProtocolInterface, LoadImage) are the
     * addresses of 16-byte slots here, never reused: a stale handle stays
     * invalid. */
    FW_DYN_HANDLES_OFFSET = FW_BS_DATA_OFFSET + 0x800,
    /* EFI_TCG2_PROTOCOL (--tpm), after the events */
    FW_TCG2_OFFSET = FW_BS_DATA_OFFSET + 0x780,

    FW_LOAD_OPTIONS_OFFSET = 0x3000,
    FW_REGION_SIZE = 0x4000,
};

/* The handles the firmware makes itself, one 16-byte slot each at
 * FW_HANDLES_OFFSET: a handle is its slot's address. */
enum fw_fixed_handle {
    FW_HANDLE_IMAGE,             /* the top-level image */
    FW_HANDLE_CON_OUT,
    FW_HANDLE_CON_IN,
    FW_HANDLE_RNG,
    FW_HANDLE_INITRD,            /* the initrd's LoadFile2 (LINUX_EFI_INITRD_MEDIA) */
    FW_HANDLE_MEMATTR,           /* EFI_MEMORY_ATTRIBUTE_PROTOCOL */
    FW_FIXED_HANDLES
};
#define FW_HANDLE_SLOT 0x10

_Static_assert(FW_HANDLES_OFFSET + FW_FIXED_HANDLES * FW_HANDLE_SLOT <= FW_LOADED_IMAGE_OFFSET,
               "the fixed handles end before LoadedImage");

#endif
