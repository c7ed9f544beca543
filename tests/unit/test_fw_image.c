/* Image services (UEFI 2.10 section 7.4): LoadImage, StartImage, Exit and
 * UnloadImage on a small PE32+ application; and the top-level image's
 * EFI_LOADED_IMAGE_PROTOCOL with its LoadOptions (section 9.1). */
#include <stdlib.h>

#include "fw_fixture.h"
#include "../../firmware-stub/pe.h"
#include "../../firmware-stub/esp.h"
#include "../../firmware-stub/volume.h"

/* ---- the loaded image of the top-level image ------------------------------------------- */

START_TEST(handle_protocol_loaded_image_describes_the_image)
{
    uint64_t iface_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.image_handle, put_guid(GUID_LOADED_IMAGE), iface_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), fw.loaded_image);
    const struct efi_loaded_image *li = hp(rd64(iface_p));
    ck_assert_uint_eq(li->revision, EFI_LOADED_IMAGE_PROTOCOL_REVISION);
    ck_assert_uint_eq(li->system_table, fw.systab);
    ck_assert_uint_eq(li->image_base, IMAGE_BASE);
    ck_assert_uint_eq(li->image_size, IMAGE_SIZE);
    ck_assert_uint_eq(li->image_code_type, EFI_LOADER_CODE);
    ck_assert_uint_eq(li->image_data_type, EFI_LOADER_DATA);
    ck_assert_uint_eq(li->load_options_size, 2 * sizeof(CMDLINE));
    ck_assert(ucs2_equals(li->load_options, CMDLINE));
    const struct efi_device_path_header *fp = hp(li->file_path);
    ck_assert_uint_eq(fp->type, EFI_DEV_END_PATH);
}
END_TEST

/* An EFI application started without --cmdline: no LoadOptions at all
 * (systemd-stub then keeps its .cmdline), and no DeviceHandle (GRUB and
 * systemd-stub both take NULL as "no boot device"). */
START_TEST(loaded_image_without_a_command_line_has_no_load_options)
{
    firmware_free(&fw);
    struct fw_config cfg = { .base = FW_BASE, .image_base = IMAGE_BASE, .image_size = IMAGE_SIZE, .console = con,
                             .log = log_file };
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
    const struct efi_loaded_image *li = hp(fw.loaded_image);
    ck_assert_uint_eq(li->load_options_size, 0);
    ck_assert_uint_eq(li->load_options, 0);
    ck_assert_uint_eq(li->device_handle, 0);
    ck_assert_uint_ne(li->file_path, 0);
}
END_TEST

START_TEST(firmware_set_image_updates_the_loaded_image)
{
    firmware_set_image(&fw, 0x2000000, 0x123000);
    const struct efi_loaded_image *li = hp(fw.loaded_image);
    ck_assert_uint_eq(li->image_base, 0x2000000);
    ck_assert_uint_eq(li->image_size, 0x123000);
}
END_TEST

/* LoadOptions as a boot manager builds them from a UTF-8 command line. */
START_TEST(load_options_are_the_command_line_in_ucs2)
{
    uint16_t out[8];
    ck_assert_uint_eq(firmware_load_options("", out, 8), 2);
    ck_assert_uint_eq(out[0], 0);
    ck_assert_uint_eq(firmware_load_options("a b", out, 8), 8);
    ck_assert(out[0] == 'a' && out[1] == ' ' && out[2] == 'b' && out[3] == 0);
    /* Two- and three-byte sequences; four bytes (outside the BMP), a lone
     * continuation byte, an overlong NUL and a cut sequence are U+FFFD. */
    ck_assert_uint_eq(firmware_load_options("\xc3\xa9\xe2\x82\xac", out, 8), 6);
    ck_assert(out[0] == 0xe9 && out[1] == 0x20ac && out[2] == 0);
    ck_assert_uint_eq(firmware_load_options("\xf0\x9f\x98\x80x", out, 8), 6);
    ck_assert(out[0] == 0xfffd && out[1] == 'x');
    ck_assert_uint_eq(firmware_load_options("\x80\xc0\x80\xe2\x82", out, 8), 8);
    ck_assert(out[0] == 0xfffd && out[1] == 0xfffd && out[2] == 0xfffd && out[3] == 0);
    ck_assert_uint_eq(firmware_load_options("\xed\xa0\x80", out, 8), 4);   /* a UTF-16 surrogate */
    ck_assert_uint_eq(out[0], 0xfffd);
    /* Cut at max - 1 characters, NUL-terminated. */
    ck_assert_uint_eq(firmware_load_options("0123456789", out, 8), 16);
    ck_assert(out[6] == '6' && out[7] == 0);
}
END_TEST

/* ---- LoadImage, StartImage, Exit, UnloadImage ------------------------------------------ */

/* A PE32+ application: headers, .text (VA 0x1000) holding a DIR64 target
 * at +0x10, and .reloc (VA 0x2000); ImageBase where it will not load. */
#define APP_FILE_SIZE   0x600
#define APP_IMAGE_BASE  0x10000000ULL
#define APP_IMAGE_SIZE  0x3000
#define APP_ENTRY       0x1000
#define APP_TARGET      0x1010

static void app_section(uint8_t *f, unsigned i, const char *name, uint32_t va, uint32_t raw, uint32_t flags)
{
    uint8_t *sh = f + 0x40 + 24 + 240 + 40 * i;
    memcpy(sh, name, strlen(name));
    memcpy(sh + 8, &(uint32_t){ 0x200 }, 4);    /* VirtualSize */
    memcpy(sh + 12, &va, 4);
    memcpy(sh + 16, &(uint32_t){ 0x200 }, 4);   /* SizeOfRawData */
    memcpy(sh + 20, &raw, 4);
    memcpy(sh + 36, &flags, 4);
}

static void build_app(uint8_t *f)
{
    memset(f, 0, APP_FILE_SIZE);
    f[0] = 'M', f[1] = 'Z';
    f[0x3c] = 0x40;
    memcpy(f + 0x40, "PE\0\0", 4);
    uint8_t *coff = f + 0x44, *o = f + 0x58;
    memcpy(coff, &(uint16_t){ 0x8664 }, 2);
    coff[2] = 2;                                          /* NumberOfSections */
    coff[16] = 240;                                       /* SizeOfOptionalHeader */
    coff[18] = 0x22;                                      /* EXECUTABLE_IMAGE | LARGE_ADDRESS_AWARE */
    memcpy(o, &(uint16_t){ 0x20b }, 2);                   /* PE32+ */
    memcpy(o + 16, &(uint32_t){ APP_ENTRY }, 4);
    memcpy(o + 24, &(uint64_t){ APP_IMAGE_BASE }, 8);
    memcpy(o + 32, &(uint32_t){ 0x1000 }, 4);            /* SectionAlignment */
    memcpy(o + 36, &(uint32_t){ 0x200 }, 4);             /* FileAlignment */
    memcpy(o + 56, &(uint32_t){ APP_IMAGE_SIZE }, 4);
    memcpy(o + 60, &(uint32_t){ 0x200 }, 4);             /* SizeOfHeaders */
    o[68] = PE_SUBSYSTEM_EFI_APPLICATION;
    o[108] = 16;                                          /* NumberOfRvaAndSizes */
    memcpy(o + 112 + 8 * 5, &(uint32_t[]){ 0x2000, 12 }, 8);   /* the base relocation directory */
    app_section(f, 0, ".text", 0x1000, 0x200, 0x60000020);
    app_section(f, 1, ".reloc", 0x2000, 0x400, 0x42000040);
    memcpy(f + 0x200 + (APP_TARGET - 0x1000), &(uint64_t){ APP_IMAGE_BASE + APP_ENTRY }, 8);
    memcpy(f + 0x400, &(uint32_t[]){ 0x1000, 12 }, 8);  /* one block: page 0x1000 */
    memcpy(f + 0x408, &(uint16_t[]){ PE_REL_BASED_DIR64 << 12 | 0x10, 0 }, 4);
}

static uint64_t put_app(void)
{
    uint8_t f[APP_FILE_SIZE];
    build_app(f);
    return put(f, sizeof(f));
}

/* LoadImage(FALSE, the top image, VenMedia(STUB_PAYLOAD)/End, the app). */
static uint64_t load_app(void)
{
    uint64_t h_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, put_vendor_media_path(GUID_STUB_PAYLOAD), put_app(),
                           APP_FILE_SIZE, h_p), EFI_SUCCESS);
    return rd64(h_p);
}

static const struct efi_loaded_image *loaded_image_of(uint64_t h)
{
    efi_status_t s;
    uint64_t li = interface_of(h, GUID_LOADED_IMAGE, &s);
    ck_assert_uint_eq(s, EFI_SUCCESS);
    return hp(li);
}

START_TEST(load_image_maps_relocates_and_describes_a_pe_from_a_buffer)
{
    uint64_t h = load_app();
    const struct efi_loaded_image *li = loaded_image_of(h);
    uint64_t base = li->image_base;
    ck_assert_uint_eq(li->revision, EFI_LOADED_IMAGE_PROTOCOL_REVISION);
    ck_assert_uint_eq(li->parent_handle, fw.image_handle);
    ck_assert_uint_eq(li->system_table, fw.systab);
    ck_assert_uint_eq(li->device_handle, 0);
    ck_assert_uint_eq(li->load_options_size, 0);
    ck_assert_uint_eq(li->image_size, APP_IMAGE_SIZE);
    ck_assert_uint_eq(li->image_code_type, EFI_LOADER_CODE);
    ck_assert_uint_eq(li->image_data_type, EFI_LOADER_DATA);
    ck_assert_uint_eq(base & 0xfff, 0);
    ck_assert_uint_ne(base, APP_IMAGE_BASE);
    ck_assert_int_eq(memmap_type_at(&fw.map, base), EFI_LOADER_CODE);
    ck_assert_int_eq(memmap_type_at(&fw.map, base + APP_IMAGE_SIZE - 1), EFI_LOADER_CODE);
    /* Headers at ImageBase (systemd-stub reads its sections there); the
     * DIR64 target moved with the image. */
    ck_assert_mem_eq(hp(base), "MZ", 2);
    ck_assert_uint_eq(rd64(base + APP_TARGET), base + APP_ENTRY);
    /* FilePath and the loaded-image device path: the payload path. */
    uint8_t want[24];
    memcpy(want, hp(put_vendor_media_path(GUID_STUB_PAYLOAD)), sizeof(want));
    ck_assert_mem_eq(hp(li->file_path), want, sizeof(want));
    efi_status_t s;
    ck_assert_mem_eq(hp(interface_of(h, GUID_LOADED_IMAGE_DEVICE_PATH, &s)), want, sizeof(want));
    /* UnloadImage before StartImage frees it all. */
    ck_assert_uint_eq(CALL(BS(UNLOAD_IMAGE), h), EFI_SUCCESS);
    ck_assert_int_eq(memmap_type_at(&fw.map, base), EFI_CONVENTIONAL_MEMORY);
    interface_of(h, GUID_LOADED_IMAGE, &s);
    ck_assert_uint_eq(s, EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(UNLOAD_IMAGE), h), EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(load_image_refuses_what_it_cannot_load)
{
    uint8_t f[APP_FILE_SIZE];
    uint64_t h_p = put_u64(0), dp = put_vendor_media_path(GUID_STUB_PAYLOAD), app = put_app(), key = fw.map.key;
    unsigned protocols = fw.nprotocols;
    /* No buffer: nothing to read a device path from (no file systems). */
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, dp, 0, 0, h_p), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 1, fw.image_handle, 0, 0, 0, h_p), EFI_NOT_FOUND);
    /* Not a PE: EFI_LOAD_ERROR; another machine or subsystem: EFI_UNSUPPORTED. */
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, 0, put_ucs2("not an image at all"), 40, h_p),
                      EFI_LOAD_ERROR);
    build_app(f);
    f[0x44] = 0x4c, f[0x45] = 0x01;                       /* i386 */
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, 0, put(f, sizeof(f)), sizeof(f), h_p),
                      EFI_UNSUPPORTED);
    build_app(f);
    f[0x58 + 68] = 3;                                     /* Windows console */
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, 0, put(f, sizeof(f)), sizeof(f), h_p),
                      EFI_UNSUPPORTED);
    build_app(f);
    memcpy(f + 0x400 + 4, &(uint32_t){ 0x4000 }, 4);      /* a relocation block past .reloc */
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, 0, put(f, sizeof(f)), sizeof(f), h_p),
                      EFI_LOAD_ERROR);
    /* Hostile: wild or huge buffers, a bogus parent, no *ImageHandle, a
     * device path running off RAM. */
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, 0, RAM_SIZE - 0x100, APP_FILE_SIZE, h_p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, 0, app, 1ULL << 40, h_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, 0x4242, 0, app, APP_FILE_SIZE, h_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, 0, app, APP_FILE_SIZE, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, RAM_SIZE - 2, app, APP_FILE_SIZE, h_p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(h_p), 0);
    ck_assert_uint_eq(fw.map.key, key);
    ck_assert_uint_eq(fw.nprotocols, protocols);
    ck_assert_uint_eq(fw.nimages, 0);
}
END_TEST

/* With --esp and no buffer, LoadImage reads the file the device path
 * names on the volume (VenHw(...)/HD(...)/File(\EFI)/File(app.efi), as systemd-boot
 * and shim build it); the image's DeviceHandle is the volume's. */
START_TEST(load_image_reads_a_file_of_the_esp_volume)
{
    struct volume vol;
    uint8_t *app = malloc(APP_FILE_SIZE);
    ck_assert_ptr_nonnull(app);
    build_app(app);
    ck_assert_int_eq(volume_init(&vol, 0), 0);
    long efi = volume_add(&vol, VOLUME_ROOT, u"EFI", 3, true, NULL, 0, 0);
    ck_assert_int_ge(volume_add(&vol, (unsigned)efi, u"app.efi", 7, false, app, APP_FILE_SIZE, 0), 0);
    ck_assert_int_ge(volume_add(&vol, (unsigned)efi, u"nil.efi", 7, false, NULL, 0, 0), 0);   /* as Open(CREATE) makes one */
    ck_assert_int_eq(firmware_attach_esp(&fw, &vol, NULL), 0);
    uint64_t device = ((struct efi_loaded_image *)hp(fw.loaded_image))->device_handle, dp_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), device, put_guid(GUID_DEVICE_PATH), dp_p), EFI_SUCCESS);
    enum { DEV = 20 + 42 };   /* VenHw(...)/HD(...) */
    uint8_t path[DEV + 12 + 20 + 4];
    memcpy(path, hp(rd64(dp_p)), DEV);
    memcpy(path + DEV, (uint8_t[]){ EFI_DEV_MEDIA, EFI_DEV_MEDIA_FILE_PATH, 12, 0, '\\', 0, 'E', 0, 'F', 0, 'I', 0 }, 12);
    memcpy(path + DEV + 12, (uint8_t[]){ EFI_DEV_MEDIA, EFI_DEV_MEDIA_FILE_PATH, 20, 0, 'A', 0, 'P', 0, 'P', 0, '.', 0,
                                   'e', 0, 'f', 0, 'i', 0, 0, 0 }, 20);
    memcpy(path + DEV + 32, (uint8_t[]){ EFI_DEV_END_PATH, EFI_DEV_END_ENTIRE, 4, 0 }, 4);
    uint64_t h_p = put_u64(0), li_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, put(path, sizeof(path)), 0, 0, h_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), rd64(h_p), put_guid(GUID_LOADED_IMAGE), li_p), EFI_SUCCESS);
    const struct efi_loaded_image *li = hp(rd64(li_p));
    ck_assert_uint_eq(li->device_handle, device);
    ck_assert_int_eq(memcmp(hp(li->file_path), path + DEV, 36), 0);
    ck_assert_uint_eq(rd64(li->image_base + APP_TARGET), li->image_base + APP_ENTRY);   /* relocated */
    /* An empty file is no image: EFI_LOAD_ERROR (UEFI 2.10 section 7.4.1), as for a file too large. */
    memcpy(path + DEV + 12 + 4, (uint8_t[]){ 'N', 0, 'I', 0, 'L', 0 }, 6);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, put(path, sizeof(path)), 0, 0, h_p), EFI_LOAD_ERROR);
    /* A path to no file, or to a directory, loads nothing. */
    path[DEV + 12 + 4] = 'B';
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, put(path, sizeof(path)), 0, 0, h_p), EFI_NOT_FOUND);
    memcpy(path + DEV + 12, path + DEV + 32, 4);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, put(path, DEV + 16), 0, 0, h_p), EFI_NOT_FOUND);
    firmware_free(&fw);
    volume_free(&vol);
    struct fw_config cfg = { .base = FW_BASE, .console = con, .log = log_file };
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);   /* for the teardown */
}
END_TEST

/* LoadImage copies DevicePath to the host before it maps the image. Here
 * the image is RELOCS_STRIPPED with its ImageBase on the page directory
 * that maps the path (VA 1 GiB -> SCRATCH), so loading it unmaps the path;
 * the LoadedImage paths must still be the guest's bytes, never what an
 * unread host buffer held. */
#define UNMAPPED_BY_LOAD 0x800000ULL   /* a free page: the path's page directory, then the image */
#define PATH_VA_BASE     GiB(1)

static struct guest_view path_mapped_by(uint64_t pd_b)
{
    uint64_t pml4 = (scratch(0x2000) + 0xfff) & ~0xfffULL, pdpt = (scratch(0x2000) + 0xfff) & ~0xfffULL;
    uint64_t pd_a = (scratch(0x2000) + 0xfff) & ~0xfffULL;
    memset(hp(pml4), 0, 4096);
    memset(hp(pdpt), 0, 4096);
    memset(hp(pd_a), 0, 4096);
    memset(hp(pd_b), 0, 4096);
    wr64(pml4, pdpt | 3);
    wr64(pdpt, pd_a | 3);                                     /* 0..1 GiB: RAM, identity */
    wr64(pdpt + 8, pd_b | 3);                                 /* 1 GiB: SCRATCH */
    for (unsigned i = 0; i < RAM_SIZE >> 21; i++)
        wr64(pd_a + 8 * i, ((uint64_t)i << 21) | 0x83);
    wr64(pd_b, SCRATCH | 0x83);
    return (struct guest_view){ &gm, pml4, false, false, false, false };
}

START_TEST(load_image_keeps_the_device_path_it_copied_before_loading)
{
    ck_assert_int_eq(memmap_type_at(&fw.map, UNMAPPED_BY_LOAD), EFI_CONVENTIONAL_MEMORY);
    uint8_t f[APP_FILE_SIZE], want[24];
    build_app(f);
    f[0x44 + 18] |= PE_FILE_RELOCS_STRIPPED;
    memcpy(f + 0x58 + 24, &(uint64_t){ UNMAPPED_BY_LOAD }, 8);
    uint64_t dp = put_vendor_media_path(GUID_STUB_PAYLOAD), app = put(f, sizeof(f)), h_p = put_u64(0);
    memcpy(want, hp(dp), sizeof(want));
    uint64_t dp_va = PATH_VA_BASE + (dp - SCRATCH);
    cur_view = path_mapped_by(UNMAPPED_BY_LOAD);
    ck_assert(guest_view_accessible(&cur_view, dp_va, sizeof(want)));
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, dp_va, app, APP_FILE_SIZE, h_p), EFI_SUCCESS);
    ck_assert(!guest_view_accessible(&cur_view, dp_va, sizeof(want)));
    const struct efi_loaded_image *li = loaded_image_of(rd64(h_p));
    ck_assert_uint_eq(li->image_base, UNMAPPED_BY_LOAD);
    ck_assert_mem_eq(hp(li->file_path), want, sizeof(want));
    efi_status_t s;
    ck_assert_mem_eq(hp(interface_of(rd64(h_p), GUID_LOADED_IMAGE_DEVICE_PATH, &s)), want, sizeof(want));
}
END_TEST

/* An image's pages are the firmware's: FreePages of the running image, a
 * loaded one or the top-level image, whole or a page of it, is refused
 * and they stay allocated. */
START_TEST(free_pages_refuses_an_images_pages)
{
    uint64_t h = load_app(), base = loaded_image_of(h)->image_base, pages = APP_IMAGE_SIZE >> 12;
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), base, pages), EFI_NOT_FOUND);                   /* loaded */
    cur_rsp = STACK_TOP - 0x400;
    ck_assert_uint_eq(CALL(BS(START_IMAGE), h, 0, 0), EFI_SUCCESS);
    cur_rsp = fw.transfer.rsp - 0x100;
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), base, pages), EFI_NOT_FOUND);                   /* running */
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), base + 0x1000, 1), EFI_NOT_FOUND);              /* a page of it */
    ck_assert_int_eq(memmap_type_at(&fw.map, base), EFI_LOADER_CODE);
    ck_assert_int_eq(memmap_type_at(&fw.map, base + 0x1000), EFI_LOADER_CODE);
    /* The top-level image, as the VMM placed it (LoaderCode). */
    uint64_t top = 0;
    ck_assert_uint_eq(memmap_allocate(&fw.map, EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_CODE, 3, &top), EFI_SUCCESS);
    firmware_set_image(&fw, top, 0x3000);
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), top + 0x2000, 1), EFI_NOT_FOUND);
    ck_assert_int_eq(memmap_type_at(&fw.map, top + 0x2000), EFI_LOADER_CODE);
    ck_assert_ptr_nonnull(strstr(log_text(), "guest bug: FreePages"));
    /* What AllocatePages gave is still freed. */
    uint64_t mem_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 2, mem_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), rd64(mem_p), 2), EFI_SUCCESS);
}
END_TEST

/* The stack StartImage's entry runs on, as the return to it finds it:
 * RET popped the return address, the thunk pushed RAX in its place. */
/* LoadImage's info page (LoadedImage and its device paths) is the
 * firmware's while the image is loaded, not the guest's to FreePool:
 * freed, AllocatePool could hand the page out again and UnloadImage
 * would then free the new owner's buffer. */
START_TEST(free_pool_refuses_an_images_info_page)
{
    uint64_t h = load_app(), buf_p = put_u64(0);
    efi_status_t s;
    uint64_t info = interface_of(h, GUID_LOADED_IMAGE, &s);
    ck_assert_uint_eq(CALL(BS(FREE_POOL), info), EFI_INVALID_PARAMETER);
    ck_assert_int_eq(memmap_type_at(&fw.map, info), EFI_BOOT_SERVICES_DATA);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 0x1000, buf_p), EFI_SUCCESS);
    ck_assert_uint_ne(rd64(buf_p), info);
    ck_assert_uint_eq(CALL(BS(UNLOAD_IMAGE), h), EFI_SUCCESS);
    ck_assert_int_eq(memmap_type_at(&fw.map, info), EFI_CONVENTIONAL_MEMORY);
    ck_assert_int_eq(memmap_type_at(&fw.map, rd64(buf_p)), EFI_LOADER_DATA);
    ck_assert_uint_eq(CALL(BS(FREE_POOL), rd64(buf_p)), EFI_SUCCESS);
}
END_TEST

static uint64_t image_returns(uint64_t entry_rsp, efi_status_t status)
{
    wr64(entry_rsp, status);
    cur_rsp = entry_rsp;
    return call_args(FW_ID_START_IMAGE_RETURN, NULL, 0);
}

START_TEST(start_image_enters_the_entry_and_its_return_restores_the_caller)
{
    uint64_t h = load_app(), base = loaded_image_of(h)->image_base;
    uint64_t size_p = put_u64(0x55), data_p = put_u64(0x66), caller_rsp = STACK_TOP - 0x208;
    cur_rsp = caller_rsp;
    cur_saved = (struct fw_callee_saved){ 1, 2, 3, 4, 12, 13, 14, 15, { { 0 } } };
    memset(cur_saved.xmm, 0xc5, sizeof(cur_saved.xmm));
    ck_assert_uint_eq(CALL(BS(START_IMAGE), h, size_p, data_p), EFI_SUCCESS);
    const struct fw_transfer *t = &fw.transfer;
    ck_assert(t->pending && !t->restore);
    ck_assert_uint_eq(t->rip, base + APP_ENTRY);
    ck_assert_uint_eq(t->rcx, h);
    ck_assert_uint_eq(t->rdx, fw.systab);
    /* As after a CALL: RSP = 8 mod 16, return address and shadow space
     * below the caller's frame. */
    uint64_t entry_rsp = t->rsp;
    ck_assert_uint_eq(entry_rsp % 16, 8);
    ck_assert_uint_le(entry_rsp + 0x28, caller_rsp);
    ck_assert_uint_eq(rd64(entry_rsp), firmware_thunk(&fw, FW_ID_START_IMAGE_RETURN));
    /* Both return thunks save the status for the VMM: push rax first. */
    ck_assert_uint_eq(*(const uint8_t *)hp(firmware_thunk(&fw, FW_ID_START_IMAGE_RETURN)), 0x50);
    ck_assert_uint_eq(*(const uint8_t *)hp(firmware_thunk(&fw, FW_ID_IMAGE_RETURN)), 0x50);
    ck_assert_uint_eq(fw.depth, 1);
    /* The running image's registers are its own: nothing to restore yet. */
    cur_saved = (struct fw_callee_saved){ 0 };
    ck_assert_uint_eq(CALL(BS(START_IMAGE), h, 0, 0), EFI_INVALID_PARAMETER);   /* started already */
    ck_assert_uint_eq(image_returns(entry_rsp, EFI_LOAD_ERROR), EFI_LOAD_ERROR);
    ck_assert(t->pending && t->restore);
    ck_assert_uint_eq(t->rip, firmware_thunk(&fw, BS(START_IMAGE)) + FW_THUNK_RET);
    ck_assert_uint_eq(*(const uint8_t *)hp(t->rip), 0xc3);
    ck_assert_uint_eq(t->rsp, caller_rsp);
    ck_assert_uint_eq(t->saved.rbx, 1);
    ck_assert_uint_eq(t->saved.rsi, 4);
    ck_assert_uint_eq(t->saved.r15, 15);
    ck_assert_uint_eq(t->saved.xmm[9][15], 0xc5);
    ck_assert_uint_eq(rd64(size_p), 0);
    ck_assert_uint_eq(rd64(data_p), 0);
    /* An application is unloaded once it has returned. */
    ck_assert_uint_eq(fw.depth, 0);
    ck_assert_int_eq(memmap_type_at(&fw.map, base), EFI_CONVENTIONAL_MEMORY);
    ck_assert_uint_eq(CALL(BS(UNLOAD_IMAGE), h), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.stop, FW_RUN);
}
END_TEST

START_TEST(exit_unwinds_only_the_running_image_and_nests)
{
    uint64_t outer = load_app(), size_p = put_u64(0), data_p = put_u64(0);
    cur_rsp = STACK_TOP - 0x400;
    cur_saved.rbx = 0xa;
    ck_assert_uint_eq(CALL(BS(START_IMAGE), outer, size_p, data_p), EFI_SUCCESS);
    uint64_t outer_rsp = fw.transfer.rsp;
    /* Inside it: load and start another, from the outer image's stack. */
    cur_rsp = outer_rsp - 0x100;
    cur_saved.rbx = 0xb;
    uint64_t inner = load_app();
    ck_assert_uint_eq(loaded_image_of(inner)->image_base == loaded_image_of(outer)->image_base, false);
    ck_assert_uint_eq(CALL(BS(START_IMAGE), inner, 0, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.depth, 2);
    /* Only the innermost image may exit; the kernel's ExitBootServices
     * with its own handle is fine. */
    ck_assert_uint_eq(CALL(BS(EXIT), outer, EFI_SUCCESS, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(EXIT), fw.image_handle, EFI_SUCCESS, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.stop, FW_RUN);
    ck_assert_uint_eq(CALL(BS(EXIT), inner, EFI_ERR(21), 0, 0), EFI_ERR(21));
    ck_assert_uint_eq(fw.transfer.rsp, outer_rsp - 0x100);
    ck_assert_uint_eq(fw.transfer.saved.rbx, 0xb);
    ck_assert_uint_eq(fw.depth, 1);
    /* The outer one exits with data, which its StartImage caller gets. */
    uint64_t data = put_ucs2("bye");
    ck_assert_uint_eq(CALL(BS(EXIT), outer, EFI_SUCCESS, 8, data), EFI_SUCCESS);
    ck_assert(fw.transfer.pending && fw.transfer.restore);
    ck_assert_uint_eq(fw.transfer.rsp, STACK_TOP - 0x400);
    ck_assert_uint_eq(fw.transfer.saved.rbx, 0xa);
    ck_assert_uint_eq(rd64(size_p), 8);
    ck_assert(ucs2_equals(rd64(data_p), "bye"));
    ck_assert_uint_eq(fw.depth, 0);
    ck_assert_uint_eq(fw.nimages, 0);
    ck_assert_uint_eq(fw.stop, FW_RUN);
    /* Exit of a loaded image never started unloads it. */
    uint64_t idle = load_app();
    ck_assert_uint_eq(CALL(BS(EXIT), idle, EFI_SUCCESS, 0, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.nimages, 0);
    ck_assert(!fw.transfer.pending);
    /* A return to the thunk with nothing running ends the run. */
    ck_assert_uint_eq(image_returns(STACK_TOP - 0x100, EFI_SUCCESS), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.stop, FW_STOP_EXIT);
}
END_TEST

/* A boot service driver stays resident when it succeeds, and is unloaded
 * when it exits with an error (UEFI 2.10 section 7.4.5): its pages and
 * its handle go, as an application's do. */
START_TEST(a_driver_that_exits_with_an_error_is_unloaded)
{
    uint8_t f[APP_FILE_SIZE];
    build_app(f);
    f[0x58 + 68] = PE_SUBSYSTEM_EFI_BOOT_SERVICE_DRIVER;
    uint64_t h_p = put_u64(0), driver = put(f, sizeof(f));
    for (int fails = 0; fails < 2; fails++) {
        ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, 0, driver, APP_FILE_SIZE, h_p), EFI_SUCCESS);
        uint64_t h = rd64(h_p), base = loaded_image_of(h)->image_base;
        ck_assert_int_eq(memmap_type_at(&fw.map, base), EFI_BOOT_SERVICES_CODE);
        cur_rsp = STACK_TOP - 0x400;
        ck_assert_uint_eq(CALL(BS(START_IMAGE), h, 0, 0), EFI_SUCCESS);
        cur_rsp = fw.transfer.rsp - 0x100;
        efi_status_t status = fails ? EFI_DEVICE_ERROR : EFI_SUCCESS;
        ck_assert_uint_eq(CALL(BS(EXIT), h, status, 0, 0), status);
        efi_status_t s;
        interface_of(h, GUID_LOADED_IMAGE, &s);
        ck_assert_uint_eq(s, fails ? EFI_INVALID_PARAMETER : EFI_SUCCESS);
        ck_assert_int_eq(memmap_type_at(&fw.map, base), fails ? EFI_CONVENTIONAL_MEMORY : EFI_BOOT_SERVICES_CODE);
        ck_assert_uint_eq(fw.nimages, 1);   /* the resident one */
    }
}
END_TEST

/* An image that exits from a notify function it signaled at a raised TPL
 * returns to its StartImage caller at the caller's TPL, with no notify
 * function left running: the caller may WaitForEvent again, and a stray
 * return to the notify trampoline is refused. */
START_TEST(exit_restores_the_callers_tpl_and_drops_the_images_notify_functions)
{
    enum { TPL_CALLBACK = 8, TPL_NOTIFY = 16 };
    uint64_t h = load_app(), e_p = put_u64(0);
    cur_rsp = STACK_TOP - 0x400;
    ck_assert_uint_eq(CALL(BS(START_IMAGE), h, 0, 0), EFI_SUCCESS);
    uint64_t image_rsp = fw.transfer.rsp - 0x100;
    cur_rsp = image_rsp;
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT), EVT_NOTIFY_SIGNAL, TPL_NOTIFY, 0x1234560, 0, e_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), TPL_CALLBACK), FW_TPL_APPLICATION);
    ck_assert_uint_eq(CALL(BS(SIGNAL_EVENT), rd64(e_p)), EFI_SUCCESS);
    ck_assert_uint_eq(fw.events.depth, 1);
    ck_assert_uint_eq(fw.tpl, TPL_NOTIFY);
    cur_rsp = fw.transfer.rsp - 0x40;   /* inside the notify function */
    ck_assert_uint_eq(CALL(BS(EXIT), h, EFI_ERR(21), 0, 0), EFI_ERR(21));   /* EFI_ABORTED */
    ck_assert_uint_eq(fw.transfer.rsp, STACK_TOP - 0x400);
    ck_assert_uint_eq(fw.tpl, FW_TPL_APPLICATION);
    ck_assert_uint_eq(fw.events.depth, 0);
    cur_rsp = STACK_TOP - 0x400;
    ck_assert_uint_eq(CALL(FW_ID_NOTIFY_RETURN, 0, 0), EFI_INVALID_PARAMETER);
}
END_TEST

/* ExitData reaches StartImage's caller in a pool buffer of its own, as
 * EDK2's CoreExit copies it: an application's text in its own image
 * outlives the image, and the caller may FreePool it. ExitData that is not
 * readable fails Exit, and the image goes on; a caller without ExitData
 * has its ExitDataSize left as it was (UEFI 2.10 section 7.4.2). */
START_TEST(exit_data_reaches_the_caller_in_a_pool_buffer_of_its_own)
{
    uint64_t h = load_app(), base = loaded_image_of(h)->image_base, size_p = put_u64(0x55), data_p = put_u64(0x66);
    cur_rsp = STACK_TOP - 0x400;
    ck_assert_uint_eq(CALL(BS(START_IMAGE), h, size_p, data_p), EFI_SUCCESS);
    cur_rsp = fw.transfer.rsp - 0x100;
    uint64_t text = base + 0x1100;                      /* "no disk" in the image's .text */
    memcpy(hp(text), u"no disk", 16);
    ck_assert_uint_eq(CALL(BS(EXIT), h, EFI_LOAD_ERROR, 16, RAM_SIZE - 8), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(EXIT), h, EFI_LOAD_ERROR, 1ULL << 40, text), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.depth, 1);
    ck_assert_uint_eq(CALL(BS(EXIT), h, EFI_LOAD_ERROR, 16, text), EFI_LOAD_ERROR);
    ck_assert_int_eq(memmap_type_at(&fw.map, base), EFI_CONVENTIONAL_MEMORY);
    uint64_t copy = rd64(data_p);
    ck_assert_uint_eq(rd64(size_p), 16);
    ck_assert_uint_ne(copy, text);
    ck_assert(ucs2_equals(copy, "no disk"));
    ck_assert_int_eq(memmap_type_at(&fw.map, copy), EFI_BOOT_SERVICES_DATA);
    ck_assert_uint_eq(CALL(BS(FREE_POOL), copy), EFI_SUCCESS);
    /* ExitDataSize alone: not modified, and nothing allocated. */
    h = load_app();
    wr64(size_p, 0x55);
    cur_rsp = STACK_TOP - 0x400;
    ck_assert_uint_eq(CALL(BS(START_IMAGE), h, size_p, 0), EFI_SUCCESS);
    cur_rsp = fw.transfer.rsp - 0x100;
    unsigned pools = fw.npools;
    ck_assert_uint_eq(CALL(BS(EXIT), h, EFI_LOAD_ERROR, 16, put_ucs2("no disk")), EFI_LOAD_ERROR);
    ck_assert_uint_eq(rd64(size_p), 0x55);
    ck_assert_uint_eq(fw.npools, pools - 1);   /* the image's info page went, and nothing came */
}
END_TEST

/* A started image that called ExitBootServices and then returns from its
 * entry goes back to StartImage's caller with its status (the return
 * thunk has no RET: refused, the vCPU would run on into the next thunk
 * and RET to the pushed status), and the memory map, the OS's now, stays
 * as it is. */
START_TEST(an_image_returning_after_exit_boot_services_goes_back_to_its_caller)
{
    uint64_t h = load_app(), base = loaded_image_of(h)->image_base;
    cur_rsp = STACK_TOP - 0x400;
    ck_assert_uint_eq(CALL(BS(START_IMAGE), h, 0, 0), EFI_SUCCESS);
    uint64_t entry_rsp = fw.transfer.rsp;
    cur_rsp = entry_rsp - 0x100;
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), h, map_key()), EFI_SUCCESS);
    struct memmap before = fw.map;
    ck_assert_uint_eq(image_returns(entry_rsp, EFI_LOAD_ERROR), EFI_LOAD_ERROR);
    ck_assert(fw.transfer.pending && fw.transfer.restore);
    ck_assert_uint_eq(fw.transfer.rip, firmware_thunk(&fw, BS(START_IMAGE)) + FW_THUNK_RET);
    ck_assert_uint_eq(fw.transfer.rsp, STACK_TOP - 0x400);
    ck_assert_uint_eq(fw.stop, FW_RUN);
    ck_assert_uint_eq(fw.map.key, before.key);
    ck_assert_uint_eq(fw.map.n, before.n);
    ck_assert_mem_eq(fw.map.e, before.e, fw.map.n * sizeof(fw.map.e[0]));
    ck_assert_int_eq(memmap_type_at(&fw.map, base), EFI_LOADER_CODE);
}
END_TEST

/* An image that moves goes where its sections keep their SectionAlignment
 * (64 KiB here, 2 MiB as some kernels' PE headers ask): the base is a
 * multiple of it, and only SizeOfImage's pages are taken. */
START_TEST(load_image_keeps_a_section_alignment_above_a_page)
{
    for (uint32_t align = 0x10000; align <= 0x200000; align <<= 5) {
        uint8_t f[APP_FILE_SIZE];
        build_app(f);
        memcpy(f + 0x58 + 32, &align, 4);                    /* SectionAlignment */
        uint64_t h_p = put_u64(0);
        ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, 0, put(f, sizeof(f)), sizeof(f), h_p), EFI_SUCCESS);
        uint64_t base = loaded_image_of(rd64(h_p))->image_base;
        ck_assert_uint_eq(base % align, 0);
        ck_assert_uint_eq(rd64(base + APP_TARGET), base + APP_ENTRY);
        ck_assert_int_eq(memmap_type_at(&fw.map, base - 1), EFI_CONVENTIONAL_MEMORY);
        ck_assert_int_eq(memmap_type_at(&fw.map, base + APP_IMAGE_SIZE), EFI_CONVENTIONAL_MEMORY);
        ck_assert_uint_eq(CALL(BS(UNLOAD_IMAGE), rd64(h_p)), EFI_SUCCESS);
    }
    /* An alignment only address 0 meets: no image at NULL. */
    uint8_t f[APP_FILE_SIZE];
    build_app(f);
    memcpy(f + 0x58 + 32, &(uint32_t){ 0x40000000 }, 4);
    memcpy(f + 0x58 + 24, &(uint64_t){ 0 }, 8);
    uint64_t h_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, 0, put(f, sizeof(f)), sizeof(f), h_p),
                      EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(rd64(h_p), 0);
}
END_TEST

/* With no image started, only the top-level image's handle exits (and
 * ends the run): any other is no image that can exit (UEFI 2.10 section
 * 7.4.5), and the caller goes on. */
START_TEST(exit_with_a_handle_that_is_no_image_is_refused)
{
    ck_assert_uint_eq(CALL(BS(EXIT), 0x4242, EFI_SUCCESS, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(EXIT), 0, EFI_LOAD_ERROR, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(EXIT), fw.con_out_handle, EFI_LOAD_ERROR, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.stop, FW_RUN);
    ck_assert_uint_eq(CALL(BS(EXIT), fw.image_handle, EFI_LOAD_ERROR, 0, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.stop, FW_STOP_EXIT);
    ck_assert_uint_eq(fw.stop_status, EFI_LOAD_ERROR);
}
END_TEST

/* The top-level image's ExitData text in the log: its string within its
 * ExitDataSize bytes (UEFI 2.10 section 7.4.5), nothing of the guest
 * memory after them; a string longer than the log takes is cut, not
 * dropped. */
START_TEST(exit_data_text_stays_within_exit_data_size)
{
    uint64_t data = put_ucs2("no root\x01 device, and more after the data");
    ck_assert_uint_eq(CALL(BS(EXIT), fw.image_handle, EFI_LOAD_ERROR, 2 * 15, data), EFI_SUCCESS);
    ck_assert_msg(strstr(log_text(), "the image called Exit(EFI_LOAD_ERROR): no root? device\n"), "%s", log_text());
    char big[400];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    ck_assert_uint_eq(CALL(BS(EXIT), fw.image_handle, EFI_ERR(21), 2 * sizeof(big), put_ucs2(big)), EFI_SUCCESS);
    ck_assert_msg(strstr(log_text(), "Exit(EFI_ABORTED): xxxx"), "%s", log_text());
    ck_assert_ptr_null(strstr(log_text(), "EFI_ABORTED): \n"));
}
END_TEST

/* StartImage returns at the TPL it was called at, with the notify
 * functions that ran inside the image gone with it (EDK2's CoreStartImage
 * restores Image->Tpl after the image's LongJump): an image that exits
 * from a notify function, with the TPL raised, leaves its caller at
 * TPL_APPLICATION, where WaitForEvent works. */
START_TEST(an_image_exiting_from_a_notify_function_at_a_raised_tpl_returns_at_its_callers_tpl)
{
    const uint64_t tpl_callback = 8, tpl_notify = 16;
    uint64_t h = load_app(), event_p = put_u64(0);
    cur_rsp = STACK_TOP - 0x400;
    ck_assert_uint_eq(CALL(BS(START_IMAGE), h, 0, 0), EFI_SUCCESS);
    cur_rsp = fw.transfer.rsp - 0x100;
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT), EVT_NOTIFY_SIGNAL, tpl_callback, 0x1234560, 0, event_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(SIGNAL_EVENT), rd64(event_p)), EFI_SUCCESS);
    ck_assert_uint_eq(fw.events.depth, 1);   /* the vCPU goes to the notify function */
    cur_rsp = fw.transfer.rsp - 0x60;
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), tpl_notify), tpl_callback);
    ck_assert_uint_eq(CALL(BS(EXIT), h, EFI_ERR(21), 0, 0), EFI_ERR(21));
    ck_assert_uint_eq(fw.transfer.rsp, STACK_TOP - 0x400);
    ck_assert_uint_eq(fw.tpl, FW_TPL_APPLICATION);
    ck_assert_uint_eq(fw.events.depth, 0);
    ck_assert_ptr_nonnull(strstr(log_text(), "exited at TPL 16"));
    cur_rsp = STACK_TOP - 0x400;
    uint64_t index_p = put_u64(0), list = put_u64(rd64(event_p));
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 1, list, index_p), EFI_INVALID_PARAMETER);   /* a notify-signal event; at a raised TPL, EFI_UNSUPPORTED */
}
END_TEST

START_TEST(a_started_image_may_exit_boot_services_with_its_own_handle)
{
    uint64_t h = load_app();
    ck_assert_uint_eq(CALL(BS(START_IMAGE), h, 0, 0), EFI_SUCCESS);
    cur_rsp = fw.transfer.rsp - 0x100;
    uint64_t key = map_key();
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), 0x4242, key), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), h, key), EFI_SUCCESS);
    ck_assert_uint_eq(fw.phase, FW_PHASE_RUNTIME);
}
END_TEST

START_TEST(start_image_refuses_hostile_arguments)
{
    uint64_t h = load_app();
    ck_assert_uint_eq(CALL(BS(START_IMAGE), 0x4242, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(START_IMAGE), fw.image_handle, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(START_IMAGE), h, RAM_SIZE - 4, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(START_IMAGE), h, 0, RAM_SIZE), EFI_INVALID_PARAMETER);
    /* A stack with no room below it for the entry's frame. */
    cur_rsp = 0x20;
    ck_assert_uint_eq(call_args(BS(START_IMAGE), (const uint64_t[]){ h, 0, 0 }, 3), EFI_INVALID_PARAMETER);
    ck_assert(!fw.transfer.pending);
    ck_assert_uint_eq(fw.depth, 0);
}
END_TEST

START_TEST(trace_decodes_the_handle_and_image_services)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *t = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(t);
    fw.cfg.trace = t;
    fw.cfg.trace_limit = 1 << 20;
    uint64_t dp = put_vendor_media_path(GUID_LINUX_INITRD_MEDIA), h_p = put_u64(0);
    CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, put_guid(GUID_DEVICE_PATH), dp,
         put_guid(GUID_LOAD_FILE2_PROTOCOL), 0x10, 0);
    uint64_t img = load_app();
    CALL(BS(START_IMAGE), img, 0, 0);
    fw.cfg.trace = NULL;
    fclose(t);
    char want[1024];
    snprintf(want, sizeof(want),
             "\"decoded\":{\"protocol\":\"EFI_DEVICE_PATH_PROTOCOL\",\"protocol2\":\"EFI_LOAD_FILE2_PROTOCOL\","
             "\"handle\":\"0x%llx\"}", (unsigned long long)rd64(h_p));
    ck_assert_ptr_nonnull(strstr(buf, want));
    snprintf(want, sizeof(want), "\"call\":\"StartImage\"");
    ck_assert_ptr_nonnull(strstr(buf, want));
    snprintf(want, sizeof(want), "\"decoded\":{\"image\":\"0x%llx\"}", (unsigned long long)img);
    ck_assert_ptr_nonnull(strstr(buf, want));
    snprintf(want, sizeof(want), "\"size\":%d,\"image\":\"0x%llx\"", APP_FILE_SIZE, (unsigned long long)img);
    ck_assert_ptr_nonnull(strstr(buf, want));
    free(buf);
}
END_TEST

Suite *fw_image_suite(void)
{
    Suite *s = suite_create("fw-image");
    fw_add_tcase(s, "loaded-image", (const TTest *const[]){
        handle_protocol_loaded_image_describes_the_image, loaded_image_without_a_command_line_has_no_load_options,
        firmware_set_image_updates_the_loaded_image, load_options_are_the_command_line_in_ucs2, NULL });
    fw_add_tcase(s, "images", (const TTest *const[]){
        load_image_maps_relocates_and_describes_a_pe_from_a_buffer, load_image_refuses_what_it_cannot_load, load_image_reads_a_file_of_the_esp_volume,
        load_image_keeps_the_device_path_it_copied_before_loading, free_pages_refuses_an_images_pages,
        free_pool_refuses_an_images_info_page,
        start_image_enters_the_entry_and_its_return_restores_the_caller,
        exit_unwinds_only_the_running_image_and_nests, exit_with_a_handle_that_is_no_image_is_refused,
        exit_data_text_stays_within_exit_data_size,
        a_driver_that_exits_with_an_error_is_unloaded,
        exit_restores_the_callers_tpl_and_drops_the_images_notify_functions,
        exit_data_reaches_the_caller_in_a_pool_buffer_of_its_own,
        an_image_returning_after_exit_boot_services_goes_back_to_its_caller,
        load_image_keeps_a_section_alignment_above_a_page,
        an_image_exiting_from_a_notify_function_at_a_raised_tpl_returns_at_its_callers_tpl,
        a_started_image_may_exit_boot_services_with_its_own_handle,
        start_image_refuses_hostile_arguments, trace_decodes_the_handle_and_image_services, NULL });
    return s;
}
