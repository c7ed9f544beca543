/* Build the firmware in guest memory: thunks, EFI_SYSTEM_TABLE, the boot
 * and runtime service tables, the configuration-table array, ConIn/ConOut
 * and the image's LoadedImage protocol (UEFI 2.10 chapter 4), in the x64
 * binding's layouts or, for an IA-32 firmware (width.h), the IA-32 one's:
 * the same places, 4-byte pointers. */
#include <stddef.h>
#include <string.h>

#include "events.h"
#include "firmware.h"
#include "guids.h"
#include "handles.h"
#include "runtime_services.h"
#include "secure_boot_keys.h"
#include "esp_volume.h"
#include "system_table.h"
#include "ucs2.h"
#include "variable_store.h"
#include "watchdog.h"
#include "width.h"

_Static_assert(FW_RT_OFFSET >= FW_SYSTAB_OFFSET + sizeof(struct efi_system_table), "systab fits");
_Static_assert(FW_VENDOR_OFFSET >= FW_RT_OFFSET + EFI_RUNTIME_SERVICES_SIZE, "RT table fits");
_Static_assert(FW_CONFIG_OFFSET + FW_MAX_CONFIG_TABLES * sizeof(struct efi_configuration_table) <=
                   FW_RT_PROPERTIES_OFFSET,
               "config table array ends before the runtime properties table");
_Static_assert(FW_CONOUT_OFFSET >= FW_BS_OFFSET + EFI_BOOT_SERVICES_SIZE, "BS table fits");
_Static_assert(FW_LOADED_IMAGE_OFFSET + sizeof(struct efi_loaded_image) <= FW_IMAGE_DP_OFFSET, "LoadedImage fits");
_Static_assert(FW_LOAD_OPTIONS_OFFSET + 2 * FW_CMDLINE_MAX <= FW_REGION_SIZE, "LoadOptions fit");
_Static_assert(FW_INITRD_DP_OFFSET + 24 <= FW_EVENTS_OFFSET && FW_EVENTS_OFFSET + 8 * FW_MAX_EVENTS <= FW_DYN_HANDLES_OFFSET,
               "event handles sit between the firmware's own structures and the handles made on demand");
_Static_assert(FW_INITRD_DP_OFFSET + 24 <= FW_MEMATTR_OFFSET && FW_MEMATTR_OFFSET + 8 * MEMATTR_COUNT <= FW_EVENTS_OFFSET,
               "the memory attribute protocol sits between the initrd's device path and the events");
_Static_assert(FW_INITRD_DP_OFFSET + 24 <= FW_DYN_HANDLES_OFFSET &&
               FW_DYN_HANDLES_OFFSET + 16 * FW_MAX_DYN_HANDLES <= FW_BS_DATA_OFFSET + 0x1000,
               "handles made on demand sit after the firmware's own structures, in boot-services data");

#define FIRMWARE_VENDOR u"handover"
#define FIRMWARE_REVISION 0x00010000

static void *at(struct firmware *fw, uint64_t off, uint64_t len)
{
    return guest_mem_ptr(fw->gm, fw->cfg.base + off, len);
}

static uint64_t fixed_handle(const struct firmware *fw, enum fw_fixed_handle h)
{
    return fw->cfg.base + FW_HANDLES_OFFSET + FW_HANDLE_SLOT * (uint64_t)h;
}

static void table_header(struct efi_table_header *h, uint64_t sig, uint32_t size)
{
    h->signature = sig;
    h->revision = EFI_SPECIFICATION_REVISION;
    h->header_size = size;
    h->crc32 = 0;
    h->reserved = 0;
}

static void fill_thunks(struct firmware *fw)
{
    uint8_t *code = at(fw, FW_RT_CODE_OFFSET, 0x1000);
    for (unsigned id = 0; id < FW_MAX_THUNKS; id++) {
        uint8_t *t = code + id * FW_THUNK_SIZE;
        t[0] = 0xb8;                                  /* mov eax, imm32 */
        memcpy(t + 1, &id, 4);
        t[5] = 0xe7;                                  /* out imm8, eax */
        t[6] = GUEST_PORT_HYPERCALL;
        t[FW_THUNK_RET] = 0xc3;                       /* ret */
    }
    /* Entry points' return addresses (the top-level image's, StartImage's):
     * push rax (the image's status, read at RSP), then the call; the run
     * ends or the firmware moves the vCPU on from there, so no RET. */
    static const uint32_t returns[] = { FW_ID_IMAGE_RETURN, FW_ID_START_IMAGE_RETURN };
    for (unsigned i = 0; i < sizeof(returns) / sizeof(returns[0]); i++) {
        uint8_t *r = code + returns[i] * FW_THUNK_SIZE;
        r[0] = 0x50;                                  /* push rax */
        r[1] = 0xb8;                                  /* mov eax, imm32 */
        memcpy(r + 2, &returns[i], 4);
        r[6] = 0xe7;                                  /* out imm8, eax */
        r[7] = GUEST_PORT_HYPERCALL;
    }
}

/* The notify trampoline (state.h FW_ID_NOTIFY_RETURN). */
static void fill_notify_trampoline(struct firmware *fw)
{
    static const uint8_t head[] = {
        0x51,                                         /* push rcx */
        0x41, 0x50,                                   /* push r8 */
        0x48, 0x83, 0xec, 0x20,                       /* sub rsp, 0x20: shadow space, RSP still 16-aligned */
        0x41, 0xff, 0xd0,                             /* call r8 */
        0x48, 0x83, 0xc4, 0x20,                       /* add rsp, 0x20 */
        0x5a,                                         /* pop rdx (the function) */
        0x59,                                         /* pop rcx (the event) */
        0xb8,                                         /* mov eax, imm32 */
    };
    const uint32_t id = FW_ID_NOTIFY_RETURN;
    uint8_t *t = at(fw, FW_RT_CODE_OFFSET + id * FW_THUNK_SIZE, FW_NOTIFY_TRAMPOLINE_SLOTS * FW_THUNK_SIZE);
    memcpy(t, head, sizeof(head));
    memcpy(t + sizeof(head), &id, 4);
    t[sizeof(head) + 4] = 0xe7;                       /* out imm8, eax */
    t[sizeof(head) + 5] = GUEST_PORT_HYPERCALL;
}
_Static_assert(17 + 6 <= FW_NOTIFY_TRAMPOLINE_SLOTS * FW_THUNK_SIZE &&
               (FW_ID_NOTIFY_RETURN + FW_NOTIFY_TRAMPOLINE_SLOTS) * FW_THUNK_SIZE <= 0x1000,
               "the notify trampoline fits its slots in the thunk page");

/* A pointer-sized field at the region's offset off (the region lies below
 * 4 GiB, so its addresses fit an IA-32 pointer). */
static void put_pointer(struct firmware *fw, uint64_t off, uint64_t addr)
{
    if (fw_ia32(fw))
        *(uint32_t *)at(fw, off, 4) = (uint32_t)addr;
    else
        *(uint64_t *)at(fw, off, 8) = addr;
}

/* n function pointers at off: the thunks of IDs first_id.. */
static void fill_service_table(struct firmware *fw, uint64_t off, unsigned first_id, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        put_pointer(fw, off + (uint64_t)i * fw_uintn_size(fw), firmware_thunk(fw, first_id + i));
}

size_t firmware_load_options(const char *s, uint16_t *out, size_t max)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p && n + 1 < max)
        p += fw_utf8_decode(p, &out[n++]);
    out[n] = 0;
    return 2 * (n + 1);
}

/* The memory map: the guest's RAM, then the firmware's own region, which
 * is never conventional memory: the systab, the RT table and the config
 * table array live in runtime memory, which the kernel keeps
 * (drivers/firmware/efi/efi.c efi_config_parse_tables reads the config
 * tables after ExitBootServices; arch/x86/platform/efi/efi.c keeps
 * EFI_RUNTIME_*). */
static int map_memory(struct firmware *fw)
{
    uint64_t b = fw->cfg.base;
    memmap_init(&fw->map);
    struct guest_range r[2];
    int nr = guest_mem_ranges(fw->gm, r);
    for (int i = 0; i < nr; i++)
        if (memmap_add_ram(&fw->map, r[i].start, r[i].size & ~0xfffULL))
            return -1;
    if ((b & 0xfff) || !guest_mem_ptr(fw->gm, b, FW_REGION_SIZE))
        return -1;
    if (memmap_reserve(&fw->map, b + FW_RT_CODE_OFFSET, 1, EFI_RUNTIME_SERVICES_CODE) ||
        memmap_reserve(&fw->map, b + FW_RT_DATA_OFFSET, 1, EFI_RUNTIME_SERVICES_DATA) ||
        memmap_reserve(&fw->map, b + FW_BS_DATA_OFFSET, (FW_REGION_SIZE - FW_BS_DATA_OFFSET) >> 12,
                       EFI_BOOT_SERVICES_DATA))
        return -1;
    return 0;
}

/* Where each structure goes in the (zeroed) region. */
static void place_structures(struct firmware *fw)
{
    uint64_t b = fw->cfg.base;
    memset(at(fw, 0, FW_REGION_SIZE), 0, FW_REGION_SIZE);
    fw->systab = b + FW_SYSTAB_OFFSET;
    fw->rt = b + FW_RT_OFFSET;
    fw->bs = b + FW_BS_OFFSET;
    fw->vendor = b + FW_VENDOR_OFFSET;
    fw->config_tables = b + FW_CONFIG_OFFSET;
    fw->con_out = b + FW_CONOUT_OFFSET;
    fw->con_in = b + FW_CONIN_OFFSET;
    fw->image_handle = fixed_handle(fw, FW_HANDLE_IMAGE);
    fw->con_out_handle = fixed_handle(fw, FW_HANDLE_CON_OUT);
    fw->con_in_handle = fixed_handle(fw, FW_HANDLE_CON_IN);
    fw->loaded_image = b + FW_LOADED_IMAGE_OFFSET;
    fw->image_device_path = b + FW_IMAGE_DP_OFFSET;
    fw->rng = b + FW_RNG_OFFSET;
    fw->rng_handle = fixed_handle(fw, FW_HANDLE_RNG);
    fw->memattr = b + FW_MEMATTR_OFFSET;
    fw->memattr_handle = fixed_handle(fw, FW_HANDLE_MEMATTR);
}

/* EFI_RUNTIME_SERVICES and EFI_BOOT_SERVICES: a header, then a thunk per
 * service; and the FirmwareVendor string the system table names. */
static void build_service_tables(struct firmware *fw)
{
    memcpy(at(fw, FW_VENDOR_OFFSET, sizeof(FIRMWARE_VENDOR)), FIRMWARE_VENDOR, sizeof(FIRMWARE_VENDOR));

    uint32_t rt_size = fw_ia32(fw) ? EFI_RUNTIME_SERVICES32_SIZE : EFI_RUNTIME_SERVICES_SIZE;
    table_header(at(fw, FW_RT_OFFSET, rt_size), EFI_RUNTIME_SERVICES_SIGNATURE, rt_size);
    fill_service_table(fw, FW_RT_OFFSET + 24, FW_ID_RT(0), EFI_RUNTIME_SERVICES_COUNT);
    fw_update_crc(fw, fw->rt);

    uint32_t bs_size = fw_ia32(fw) ? EFI_BOOT_SERVICES32_SIZE : EFI_BOOT_SERVICES_SIZE;
    table_header(at(fw, FW_BS_OFFSET, bs_size), EFI_BOOT_SERVICES_SIGNATURE, bs_size);
    fill_service_table(fw, FW_BS_OFFSET + 24, FW_ID_BS(0), EFI_BOOT_SERVICES_COUNT);
    fw_update_crc(fw, fw->bs);
}

/* ConOut and ConIn: their functions' thunks, ConOut's Mode and ConIn's
 * WaitForKey event (the first event made). */
static void build_console(struct firmware *fw)
{
    /* EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL: its functions, then Mode. */
    unsigned w = fw_uintn_size(fw);
    fill_service_table(fw, FW_CONOUT_OFFSET, FW_ID_CONOUT(0), CONOUT_COUNT);
    put_pointer(fw, FW_CONOUT_OFFSET + CONOUT_COUNT * w, fw->cfg.base + FW_CONOUT_MODE_OFFSET);
    struct efi_simple_text_output_mode *mode = at(fw, FW_CONOUT_MODE_OFFSET, sizeof(*mode));
    mode->max_mode = 1;
    mode->attribute = 0x07;   /* EFI_LIGHTGRAY on EFI_BLACK */
    mode->cursor_visible = 1;
    /* EFI_SIMPLE_TEXT_INPUT_PROTOCOL: Reset, ReadKeyStroke, WaitForKey. */
    fill_service_table(fw, FW_CONIN_OFFSET, FW_ID_CONIN(0), CONIN_COUNT);
    fw_events_init(fw);
    put_pointer(fw, FW_CONIN_OFFSET + CONIN_COUNT * w, fw->events.wait_for_key);
}

/* The top-level image's LoadedImage protocol: its base and size, and the
 * command line as LoadOptions. */
static void build_loaded_image(struct firmware *fw)
{
    const struct fw_config *cfg = &fw->cfg;
    /* The image's device path and file path: an end node only. */
    struct efi_device_path_header *dp = at(fw, FW_IMAGE_DP_OFFSET, sizeof(*dp));
    *dp = (struct efi_device_path_header){ EFI_DEV_END_PATH, EFI_DEV_END_ENTIRE, { 4, 0 } };

    uint64_t options = 0;
    uint32_t options_size = 0;
    if (cfg->cmdline && cfg->cmdline[0]) {
        uint16_t *opts = at(fw, FW_LOAD_OPTIONS_OFFSET, 2 * FW_CMDLINE_MAX);
        options = cfg->base + FW_LOAD_OPTIONS_OFFSET;
        options_size = (uint32_t)firmware_load_options(cfg->cmdline, opts, FW_CMDLINE_MAX);
    }
    if (fw_ia32(fw)) {
        struct efi_loaded_image32 *li = at(fw, FW_LOADED_IMAGE_OFFSET, sizeof(*li));
        li->revision = EFI_LOADED_IMAGE_PROTOCOL_REVISION;
        li->system_table = (uint32_t)fw->systab;
        li->file_path = (uint32_t)fw->image_device_path;
        li->load_options_size = options_size;
        li->load_options = (uint32_t)options;
        li->image_code_type = EFI_LOADER_CODE;
        li->image_data_type = EFI_LOADER_DATA;
    } else {
        struct efi_loaded_image *li = at(fw, FW_LOADED_IMAGE_OFFSET, sizeof(*li));
        li->revision = EFI_LOADED_IMAGE_PROTOCOL_REVISION;
        li->system_table = fw->systab;
        li->file_path = fw->image_device_path;
        li->load_options_size = options_size;
        li->load_options = options;
        li->image_code_type = EFI_LOADER_CODE;
        li->image_data_type = EFI_LOADER_DATA;
    }
    firmware_set_image(fw, cfg->image_base, cfg->image_size);
}

/* The initrd as the kernel's stub finds it since 5.8: a handle with the
 * device path VenMedia(LINUX_EFI_INITRD_MEDIA)/End and
 * EFI_LOAD_FILE2_PROTOCOL (drivers/firmware/efi/libstub/efi-stub-helper.c). */
static void install_initrd(struct firmware *fw)
{
    uint64_t b = fw->cfg.base;
    fw->initrd_handle = fixed_handle(fw, FW_HANDLE_INITRD);
    fw->initrd_lf2 = b + FW_INITRD_LF2_OFFSET;
    fw->initrd_dp = b + FW_INITRD_DP_OFFSET;
    put_pointer(fw, FW_INITRD_LF2_OFFSET, firmware_thunk(fw, FW_ID_LOADFILE2));
    uint8_t *dp = at(fw, FW_INITRD_DP_OFFSET, 24);
    dp[0] = EFI_DEV_MEDIA;
    dp[1] = EFI_DEV_MEDIA_VENDOR;
    dp[2] = 20;
    memcpy(dp + 4, &GUID_LINUX_INITRD_MEDIA, 16);
    memcpy(dp + 20, (uint8_t[]){ EFI_DEV_END_PATH, EFI_DEV_END_ENTIRE, 4, 0 }, 4);
    fw_add_protocol(fw, fw->initrd_handle, &GUID_DEVICE_PATH, fw->initrd_dp);
    fw_add_protocol(fw, fw->initrd_handle, &GUID_LOAD_FILE2_PROTOCOL, fw->initrd_lf2);
}

/* The handle database, in the order LocateHandle reports it: the image's
 * handle, ConOut's, ConIn's, the initrd's, the RNG's and the memory
 * attribute protocol's. */
static void install_protocols(struct firmware *fw)
{
    fw_add_protocol(fw, fw->image_handle, &GUID_LOADED_IMAGE, fw->loaded_image);
    fw_add_protocol(fw, fw->image_handle, &GUID_LOADED_IMAGE_DEVICE_PATH, fw->image_device_path);
    fw_add_protocol(fw, fw->con_out_handle, &GUID_SIMPLE_TEXT_OUTPUT, fw->con_out);
    fw_add_protocol(fw, fw->con_in_handle, &GUID_SIMPLE_TEXT_INPUT, fw->con_in);
    if (fw->cfg.initrd)
        install_initrd(fw);
    /* no-rng hides it at lookup (dispatch.c), so a sweep can arm it late. */
    fill_service_table(fw, FW_RNG_OFFSET, FW_ID_RNG(0), RNG_COUNT);
    fw_add_protocol(fw, fw->rng_handle, &GUID_RNG_PROTOCOL, fw->rng);
    fill_service_table(fw, FW_MEMATTR_OFFSET, FW_ID_MEMATTR(0), MEMATTR_COUNT);
    fw_add_protocol(fw, fw->memattr_handle, &GUID_MEMORY_ATTRIBUTE_PROTOCOL, fw->memattr);
}

/* EFI_SYSTEM_TABLE, last: it names everything above. */
static void build_system_table(struct firmware *fw)
{
    if (fw_ia32(fw)) {
        struct efi_system_table32 *st = at(fw, FW_SYSTAB_OFFSET, sizeof(*st));
        table_header(&st->hdr, EFI_SYSTEM_TABLE_SIGNATURE, sizeof(*st));
        st->firmware_vendor = (uint32_t)fw->vendor;
        st->firmware_revision = FIRMWARE_REVISION;
        st->console_in_handle = (uint32_t)fw->con_in_handle;
        st->con_in = (uint32_t)fw->con_in;
        st->console_out_handle = (uint32_t)fw->con_out_handle;
        st->con_out = (uint32_t)fw->con_out;
        st->standard_error_handle = (uint32_t)fw->con_out_handle;
        st->std_err = (uint32_t)fw->con_out;
        st->runtime_services = (uint32_t)fw->rt;
        st->boot_services = (uint32_t)fw->bs;
        st->configuration_table = (uint32_t)fw->config_tables;
        fw_update_crc(fw, fw->systab);
        return;
    }
    struct efi_system_table *st = at(fw, FW_SYSTAB_OFFSET, sizeof(*st));
    table_header(&st->hdr, EFI_SYSTEM_TABLE_SIGNATURE, sizeof(*st));
    st->firmware_vendor = fw->vendor;
    st->firmware_revision = FIRMWARE_REVISION;
    st->console_in_handle = fw->con_in_handle;
    st->con_in = fw->con_in;
    st->console_out_handle = fw->con_out_handle;
    st->con_out = fw->con_out;
    st->standard_error_handle = fw->con_out_handle;
    st->std_err = fw->con_out;
    st->runtime_services = fw->rt;
    st->boot_services = fw->bs;
    st->number_of_table_entries = 0;
    st->configuration_table = fw->config_tables;
    fw_update_crc(fw, fw->systab);
}

/* EFI_RT_PROPERTIES_TABLE, the first configuration table: a firmware that
 * does not serve every runtime service must publish it (UEFI 2.10 section
 * 4.6.2), and the kernel then leaves the others alone
 * (drivers/firmware/efi/efi.c efi_config_parse_tables). */
static int install_rt_properties(struct firmware *fw)
{
    struct efi_rt_properties_table t = {
        .version = EFI_RT_PROPERTIES_TABLE_VERSION,
        .length = sizeof(t),
        .runtime_services_supported = fw_runtime_services_supported(fw),
    };
    memcpy(at(fw, FW_RT_PROPERTIES_OFFSET, sizeof(t)), &t, sizeof(t));
    return fw_install_config_table(fw, &GUID_RT_PROPERTIES_TABLE, fw->cfg.base + FW_RT_PROPERTIES_OFFSET) ==
                   EFI_SUCCESS ? 0 : -1;
}

int firmware_init(struct firmware *fw, const struct guest_mem *gm, const struct fw_config *cfg)
{
    memset(fw, 0, sizeof(*fw));
    fw->cfg = *cfg;
    fw->gm = gm;
    fw->monotonic = 1;
    fw->tpl = FW_TPL_APPLICATION;
    fw->rng_state = cfg->seed;
    /* An IA-32 firmware's tables name each other with 4-byte pointers. */
    if (fw_ia32(fw) && cfg->base + FW_REGION_SIZE > (1ULL << 32))
        return -1;
    if (map_memory(fw))
        return -1;
    place_structures(fw);
    fill_thunks(fw);
    fill_notify_trampoline(fw);
    build_service_tables(fw);
    build_console(fw);
    build_loaded_image(fw);
    install_protocols(fw);
    build_system_table(fw);
    if (install_rt_properties(fw))
        return -1;
    fw_watchdog_arm(fw, cfg->watchdog_seconds);
    return cfg->secure_boot ? fw_secure_boot_init(fw) : 0;
}

void firmware_set_image(struct firmware *fw, uint64_t base, uint64_t size)
{
    fw->cfg.image_base = base;   /* kept host-side too: FreePages refuses it */
    fw->cfg.image_size = size;
    if (fw_ia32(fw)) {
        struct efi_loaded_image32 *li = guest_mem_ptr(fw->gm, fw->loaded_image, sizeof(*li));
        li->image_base = (uint32_t)base;
        li->image_size = size;
        return;
    }
    struct efi_loaded_image *li = guest_mem_ptr(fw->gm, fw->loaded_image, sizeof(*li));
    li->image_base = base;
    li->image_size = size;
}

void firmware_free(struct firmware *fw)
{
    fw_variables_free(fw);
    fw_esp_free(fw);
}

int firmware_copy(struct firmware *dst, const struct firmware *src)
{
    *dst = *src;
    dst->variables = NULL;
    if (fw_esp_copy(dst, src))
        return -1;
    if (fw_variables_copy(dst, src)) {
        fw_esp_free(dst);
        return -1;
    }
    return 0;
}

uint64_t firmware_copy_bytes(const struct firmware *fw)
{
    return sizeof(*fw) + fw->variable_bytes + fw_esp_copy_bytes(fw);
}
