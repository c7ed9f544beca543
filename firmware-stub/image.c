/* Image services (UEFI 2.10 section 7.4): LoadImage from a memory buffer
 * with the PE32+ loader, StartImage and Exit as a setjmp/longjmp that the
 * VMM performs for the firmware (struct fw_transfer), and UnloadImage.
 * StartImage saves its caller's stack pointer and callee-saved registers
 * in the image's record and sends the vCPU to the entry point, whose
 * return address is the StartImage-return thunk; that return, or Exit,
 * sends the vCPU back to StartImage's RET with those registers and the
 * image's status in RAX. */
#include "image.h"

#include <stdlib.h>
#include <string.h>

#include "guids.h"
#include "handles.h"
#include "log.h"
#include "pe.h"
#include "pool.h"
#include "secure_boot_keys.h"
#include "esp_volume.h"
#include "trace_decode.h"
#include "width.h"
#include "../guest/guest_text.h"

/* The image's info page (a pool page of EfiBootServicesData): its
 * LoadedImage, then the device paths LoadImage was given (each at most
 * FW_DEVICE_PATH_SIZE). */
#define INFO_DEVICE_PATH 0x100   /* EFI_LOADED_IMAGE_DEVICE_PATH_PROTOCOL */
#define INFO_FILE_PATH   0x600   /* LoadedImage.FilePath */
_Static_assert(INFO_FILE_PATH - INFO_DEVICE_PATH >= FW_DEVICE_PATH_SIZE, "a device path fits its slot");
/* StartImage's callee may use 32 bytes of shadow space above its return
 * address: the entry's stack starts this far below the caller's RSP. */
#define ENTRY_STACK_GAP  0x40

struct fw_image *fw_image_of(struct firmware *fw, uint64_t handle)
{
    for (unsigned i = 0; handle && i < fw->nimages; i++)
        if (fw->images[i].handle == handle)
            return &fw->images[i];
    return NULL;
}

static bool accessible(const struct guest_view *v, uint64_t addr, uint64_t len)
{
    return addr && guest_view_accessible(v, addr, len);
}

/* Free the image's memory, its handle and its protocols, and its record. */
static void unload(struct firmware *fw, struct fw_image *img)
{
    memmap_free(&fw->map, img->base, img->pages);
    fw_pool_free(fw, img->info, true);
    fw_remove_handle(fw, img->handle);
    *img = fw->images[--fw->nimages];
}

/* A file pe_parse refused: EFI_UNSUPPORTED if it is a PE32+ image for
 * another machine or no EFI subsystem, EFI_LOAD_ERROR if it is not
 * understood at all (UEFI 2.10 section 7.4.1). */
static efi_status_t refused(const uint8_t *f, size_t n)
{
    uint32_t lfanew;
    uint16_t machine, magic, subsystem;
    if (!pe_is_mz(f, n))
        return EFI_LOAD_ERROR;
    memcpy(&lfanew, f + 0x3c, 4);
    if ((uint64_t)lfanew + 24 + 70 > n || memcmp(f + lfanew, "PE\0\0", 4))
        return EFI_LOAD_ERROR;
    memcpy(&machine, f + lfanew + 4, 2);
    memcpy(&magic, f + lfanew + 24, 2);
    memcpy(&subsystem, f + lfanew + 24 + 68, 2);
    if (machine != PE_MACHINE_X64 || (magic == 0x20b && (subsystem < PE_SUBSYSTEM_EFI_APPLICATION ||
                                                          subsystem > PE_SUBSYSTEM_EFI_RUNTIME_DRIVER)))
        return EFI_UNSUPPORTED;
    return EFI_LOAD_ERROR;
}

/* LoadedImage's ImageCodeType by subsystem (UEFI 2.10 section 9.1:
 * applications get loader memory, drivers their kind's); ImageDataType is
 * the *Data type that follows it. */
static uint32_t code_type_of(uint16_t subsystem)
{
    return subsystem == PE_SUBSYSTEM_EFI_BOOT_SERVICE_DRIVER ? EFI_BOOT_SERVICES_CODE
         : subsystem == PE_SUBSYSTEM_EFI_RUNTIME_DRIVER      ? EFI_RUNTIME_SERVICES_CODE : EFI_LOADER_CODE;
}

/* Map the parsed image into new pages and fill in img; a status on failure. */
static efi_status_t map_image(struct firmware *fw, const struct pe_image *pe, struct fw_image *img,
                              uint32_t code_type)
{
    char err[200];
    img->pages = pe_image_size(pe) >> 12;
    /* An image without relocations loads only at its ImageBase; one that
     * moves goes where its sections keep their SectionAlignment in memory
     * (PE/COFF "Optional Header Windows-Specific Fields"; EDK2's
     * CoreLoadPeImage aligns the image so too). */
    bool fixed = pe->file_characteristics & PE_FILE_RELOCS_STRIPPED;
    img->base = pe->image_base;
    efi_status_t s = fixed ? memmap_allocate(&fw->map, EFI_ALLOCATE_ADDRESS, code_type, img->pages, &img->base)
                           : memmap_allocate_aligned(&fw->map, code_type, img->pages, pe->section_alignment, &img->base);
    if (s != EFI_SUCCESS)
        return EFI_OUT_OF_RESOURCES;
    if (pe_load(pe, fw->gm, img->base, err, sizeof(err))) {
        fw_log(fw, "LoadImage: %s", err);
        memmap_free(&fw->map, img->base, img->pages);
        return EFI_LOAD_ERROR;
    }
    img->entry = img->base + pe->entry;
    img->subsystem = pe->subsystem;
    return EFI_SUCCESS;
}

/* The info page: LoadedImage and the device paths, from the host copy of
 * DevicePath (path, dp_len bytes before its end node; NULL: none) taken
 * before the image was mapped, which may have changed the guest's page
 * tables. DeviceHandle is the handle whose device path is the longest
 * prefix of DevicePath, FilePath the rest (as EDK2's CoreLoadImageCommon
 * does for a buffer). */
static void describe_image(struct firmware *fw, const struct guest_view *v, const struct fw_image *img,
                           uint64_t parent, const uint8_t *path, long dp_len)
{
    struct efi_loaded_image li = { .revision = EFI_LOADED_IMAGE_PROTOCOL_REVISION, .parent_handle = parent,
                                   .system_table = fw->systab, .image_base = img->base,
                                   .image_size = img->pages << 12, .image_code_type = code_type_of(img->subsystem),
                                   .image_data_type = code_type_of(img->subsystem) + 1 };
    if (path) {
        uint64_t device = 0;
        guest_mem_write(fw->gm, img->info + INFO_DEVICE_PATH, path, (uint64_t)dp_len + FW_DEVICE_PATH_END);
        long matched = fw_match_device_path(fw, v, &GUID_DEVICE_PATH, path, dp_len, &device);
        if (matched < 0)
            matched = 0;
        else
            li.device_handle = device;
        guest_mem_write(fw->gm, img->info + INFO_FILE_PATH, path + matched,
                        (uint64_t)(dp_len - matched) + FW_DEVICE_PATH_END);
        li.file_path = img->info + INFO_FILE_PATH;
    }
    guest_mem_write(fw->gm, img->info, &li, sizeof(li));
}

/* Where LoadImage reads the file: SourceBuffer, or without one the file
 * DevicePath (path, dp_len bytes; NULL: none) names on the --esp volume,
 * then *on_volume (NULL for an empty file, which has no bytes); its size
 * in *size. A status if neither will do. */
static efi_status_t image_source(struct firmware *fw, const struct guest_view *v, uint64_t source,
                                 const uint8_t *path, long dp_len, const uint8_t **on_volume, uint64_t *size)
{
    if (!source && (!path || fw_esp_file(fw, v, path, dp_len, on_volume, size) != EFI_SUCCESS))
        return EFI_NOT_FOUND;
    if (!source && (!*size || *size > FW_IMAGE_FILE_MAX))
        return EFI_LOAD_ERROR;
    if (source && (!*size || *size > FW_IMAGE_FILE_MAX || !guest_view_accessible(v, source, *size)))
        return EFI_INVALID_PARAMETER;
    return EFI_SUCCESS;
}

/* The file as an image LoadImage may map: one pe_parse takes and, with
 * Secure Boot in User Mode, db and dbx allow. */
static efi_status_t admit_image(struct firmware *fw, const uint8_t *file, uint64_t size, struct pe_image *pe)
{
    char err[200];
    if (pe_parse(pe, file, size, err, sizeof(err))) {
        fw_log(fw, "LoadImage: %s", err);
        return refused(file, size);
    }
    /* An image for another machine is EFI_UNSUPPORTED (UEFI 2.10 section
     * 7.4.1); LoadImage is served by the x64 firmware only. */
    if (pe->machine != PE_MACHINE_X64) {
        fw_log(fw, "LoadImage: PE: Machine 0x%x: an IA-32 image, which an x64 firmware does not run (EFI_UNSUPPORTED)",
               pe->machine);
        return EFI_UNSUPPORTED;
    }
    char why[400];
    if (!firmware_secure_boot_allows(fw, file, size, why, sizeof(why))) {
        fw_log(fw, "LoadImage: Secure Boot refused the image (EFI_SECURITY_VIOLATION): %s", why);
        return EFI_SECURITY_VIOLATION;
    }
    return EFI_SUCCESS;
}

/* The mapped image's info page, handle and protocols, and its record;
 * its handle written at handle_ptr. */
static efi_status_t register_image(struct firmware *fw, const struct guest_view *v, struct fw_image *img,
                                   uint64_t parent, const uint8_t *path, long dp_len, uint64_t handle_ptr)
{
    if (fw_pool_take(fw, EFI_BOOT_SERVICES_DATA, 0x1000, &img->info) != EFI_SUCCESS ||
        !(img->handle = fw_new_handle(fw))) {
        if (img->info)
            fw_pool_free(fw, img->info, true);
        memmap_free(&fw->map, img->base, img->pages);
        return EFI_OUT_OF_RESOURCES;
    }
    describe_image(fw, v, img, parent, path, dp_len);
    fw_add_protocol(fw, img->handle, &GUID_LOADED_IMAGE, img->info);
    if (path)
        fw_add_protocol(fw, img->handle, &GUID_LOADED_IMAGE_DEVICE_PATH, img->info + INFO_DEVICE_PATH);
    fw->images[fw->nimages++] = *img;
    guest_view_write_u64(v, handle_ptr, img->handle);
    return EFI_SUCCESS;
}

/* The file (a host copy) parsed, checked, mapped and registered. */
static efi_status_t load_file(struct firmware *fw, const struct guest_view *v, const uint8_t *file, uint64_t size,
                              uint64_t parent, const uint8_t *path, long dp_len, uint64_t handle_ptr)
{
    struct pe_image pe;
    struct fw_image img = { 0 };
    efi_status_t s = admit_image(fw, file, size, &pe);
    if (s == EFI_SUCCESS)
        s = map_image(fw, &pe, &img, code_type_of(pe.subsystem));
    if (s == EFI_SUCCESS)
        s = register_image(fw, v, &img, parent, path, dp_len, handle_ptr);
    return s;
}

/* UEFI 2.10 section 7.4.1: from a memory buffer, or, with no buffer,
 * from the file DevicePath names on the --esp volume (esp_volume.h);
 * otherwise EFI_NOT_FOUND. */
efi_status_t fw_load_image(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t parent = a[1], device_path = a[2], source = a[3], source_size = a[4], handle_ptr = a[5];
    long dp_len = 0;
    uint8_t path[FW_DEVICE_PATH_SIZE];
    bool parent_ok = parent == fw->image_handle || fw_image_of(fw, parent);
    if (fw_ia32(fw)) {
        /* An image started from here would need the IA-32 entry and
         * LoadedImage; a mixed-mode kernel's stub loads none. */
        fw_log(fw, "LoadImage is not served by a 32-bit firmware (--firmware-bits 32): EFI_UNSUPPORTED");
        return EFI_UNSUPPORTED;
    }
    if (!accessible(v, handle_ptr, 8) || !parent_ok ||
        (device_path && (dp_len = fw_device_path_copy(v, device_path, path)) < 0))
        return EFI_INVALID_PARAMETER;
    const uint8_t *on_volume = NULL, *dp = device_path ? path : NULL;
    efi_status_t s = image_source(fw, v, source, dp, dp_len, &on_volume, &source_size);
    if (s != EFI_SUCCESS)
        return s;
    if (fw->nimages >= FW_MAX_IMAGES || fw->nprotocols + 2 > FW_MAX_PROTOCOLS)
        return EFI_OUT_OF_RESOURCES;
    /* A host copy: the guest cannot change the file under the parser. */
    uint8_t *file = malloc(source_size);
    if (!file)
        return EFI_OUT_OF_RESOURCES;
    s = EFI_INVALID_PARAMETER;
    if (on_volume)
        memcpy(file, on_volume, source_size);
    if (on_volume || guest_view_read(v, source, file, source_size))
        s = load_file(fw, v, file, source_size, parent, dp, dp_len, handle_ptr);
    free(file);
    return s;
}

void fw_decode_load_image(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                          const uint64_t *a, efi_status_t status)
{
    (void)s;
    fw_trace_hex(o, "source", a[3]);
    fw_trace_u64(o, "size", a[4]);
    if (status == EFI_SUCCESS)
        fw_trace_ptr_uintn(o, "image", v, a[5], true);
}

/* UEFI 2.10 section 7.4.2: the entry point (ImageHandle, SystemTable)
 * with the Microsoft x64 ABI, on the caller's stack below its frame. */
efi_status_t fw_start_image(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t image_handle = a[0], exit_data_size_ptr = a[1], exit_data_ptr = a[2];
    struct fw_image *img = fw_image_of(fw, image_handle);
    if (!img || img->started || (exit_data_size_ptr && !accessible(v, exit_data_size_ptr, 8)) ||
        (exit_data_ptr && !accessible(v, exit_data_ptr, 8)))
        return EFI_INVALID_PARAMETER;
    const struct fw_call *c = fw->call;
    /* RSP = 8 mod 16 at the entry, as after a CALL; the return address and
     * the 32-byte shadow space above it stay below the caller's RSP. */
    uint64_t rsp = ((c->rsp - ENTRY_STACK_GAP) & ~0xfULL) - 8;
    if (c->rsp < ENTRY_STACK_GAP + 0x10 || !accessible(v, rsp, 0x28))
        return EFI_INVALID_PARAMETER;
    guest_view_write_u64(v, rsp, firmware_thunk(fw, FW_ID_START_IMAGE_RETURN));
    img->started = true;
    img->depth = ++fw->depth;
    img->caller_rsp = c->rsp;
    img->caller_tpl = fw->tpl;
    img->caller_notify_depth = fw->events.depth;
    img->caller_saved = c->saved;
    img->caller_view = *v;
    img->exit_data_size_ptr = exit_data_size_ptr;
    img->exit_data_ptr = exit_data_ptr;
    fw->transfer = (struct fw_transfer){ .pending = true, .rip = img->entry, .rsp = rsp, .rcx = image_handle,
                                         .rdx = fw->systab };
    return EFI_SUCCESS;
}

/* StartImage's caller takes ExitData: both its pointers given (UEFI 2.10
 * section 7.4.2: without ExitData, ExitDataSize is not modified). */
static bool wants_exit_data(const struct fw_image *img)
{
    return img->exit_data_ptr && img->exit_data_size_ptr;
}

/* The ExitData an image passes Exit, for its StartImage caller: copied
 * into a new pool buffer at *copy, as EDK2's CoreExit does, so that it
 * outlives an application's image, which may hold it; *copy 0 when the
 * caller takes none or there is none. EFI_INVALID_PARAMETER when it is not
 * readable, EFI_OUT_OF_RESOURCES when no pool holds it. */
static efi_status_t copy_exit_data(struct firmware *fw, const struct guest_view *v, const struct fw_image *img,
                                   uint64_t size, uint64_t data, uint64_t *copy)
{
    *copy = 0;
    if (!wants_exit_data(img) || !data || !size)
        return EFI_SUCCESS;
    if (!guest_view_accessible(v, data, size))
        return EFI_INVALID_PARAMETER;
    efi_status_t s = fw_pool_alloc(fw, EFI_BOOT_SERVICES_DATA, size, copy);
    uint8_t chunk[4096];
    for (uint64_t off = 0; s == EFI_SUCCESS && off < size; off += sizeof(chunk)) {
        uint64_t n = size - off < sizeof(chunk) ? size - off : sizeof(chunk);
        guest_view_read(v, data + off, chunk, n);
        guest_mem_write(fw->gm, *copy + off, chunk, n);
    }
    return s;
}

/* StartImage returns at the TPL it was called at, and the notify
 * functions the image was running in are gone with its stack, as EDK2's
 * CoreStartImage restores Image->Tpl after the image's LongJump. */
static void restore_caller_tpl(struct firmware *fw, const struct fw_image *img)
{
    if (fw->tpl != img->caller_tpl || fw->events.depth != img->caller_notify_depth)
        fw_log(fw, "guest bug: the image exited at TPL %llu, %u notify function(s) deep; StartImage returns at "
               "its caller's TPL %llu", (unsigned long long)fw->tpl, fw->events.depth - img->caller_notify_depth,
               (unsigned long long)img->caller_tpl);
    fw->tpl = img->caller_tpl;
    fw->events.depth = img->caller_notify_depth;
}

/* Back to StartImage's caller with the status in RAX and its registers as
 * they were, at the TPL it called at (EDK2's CoreStartImage restores it),
 * and with the notify functions the image left by Exit dropped: they never
 * return. An application is unloaded, and so is a driver that exits with
 * an error; a driver that succeeds stays resident (UEFI 2.10 section
 * 7.4.5; EDK2's CoreStartImage). */
static efi_status_t unwind(struct firmware *fw, struct fw_image *img, efi_status_t status, uint64_t data_size,
                           uint64_t data)
{
    restore_caller_tpl(fw, img);
    if (wants_exit_data(img)) {
        guest_view_write_u64(&img->caller_view, img->exit_data_size_ptr, data_size);
        guest_view_write_u64(&img->caller_view, img->exit_data_ptr, data);
    }
    fw->transfer = (struct fw_transfer){ .pending = true,
                                         .rip = firmware_thunk(fw, FW_ID_BS(BS_START_IMAGE)) + FW_THUNK_RET,
                                         .rsp = img->caller_rsp, .restore = true, .saved = img->caller_saved };
    fw->depth--;
    img->depth = 0;
    /* After ExitBootServices the memory map is the OS's: nothing is freed. */
    if (fw->phase == FW_PHASE_BOOT && (img->subsystem == PE_SUBSYSTEM_EFI_APPLICATION || status & EFI_ERR(0)))
        unload(fw, img);
    return status;
}

static struct fw_image *running_image(struct firmware *fw)
{
    for (unsigned i = 0; fw->depth && i < fw->nimages; i++)
        if (fw->images[i].depth == fw->depth)
            return &fw->images[i];
    return NULL;
}

/* The string ExitData starts with (UEFI 2.10 section 7.4.5), for the log:
 * up to its NUL or the end of its size bytes, whichever comes first, at
 * most cap - 1 characters, printable ASCII ('?' for any other); "" for no
 * data. */
static void exit_text(const struct guest_view *v, uint64_t data, uint64_t size, char *text, size_t cap)
{
    size_t n = 0;
    uint16_t c;
    while (data && n + 1 < cap && 2 * (n + 1) <= size && guest_view_read(v, data + 2 * n, &c, 2) && c)
        text[n++] = guest_text_printable(c) ? (char)c : '?';
    text[n] = 0;
}

/* The top-level image's Exit ends the run; a started image's Exit returns
 * from its StartImage; a loaded one that never started is unloaded; any
 * other handle is not an image that can exit: EFI_INVALID_PARAMETER
 * (UEFI 2.10 section 7.4.5, as EDK2's CoreExit). */
efi_status_t fw_exit(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t image_handle = a[0], exit_data_size = a[2], exit_data = a[3];
    efi_status_t exit_status = fw_ia32(fw) ? efi_status_from32((uint32_t)a[1]) : a[1];
    struct fw_image *img = fw_image_of(fw, image_handle);
    if (img && !img->started) {
        unload(fw, img);
        return EFI_SUCCESS;
    }
    if (img || fw->depth) {
        /* Only the image running now can exit. */
        if (!img || img != running_image(fw))
            return EFI_INVALID_PARAMETER;
        uint64_t copy;
        efi_status_t s = copy_exit_data(fw, v, img, exit_data_size, exit_data, &copy);
        if (s != EFI_SUCCESS)
            return s;
        return unwind(fw, img, exit_status, copy ? exit_data_size : 0, copy);
    }
    if (image_handle != fw->image_handle)
        return EFI_INVALID_PARAMETER;
    char text[256];
    exit_text(v, exit_data, exit_data_size, text, sizeof(text));
    fw_log(fw, "the image called Exit(%s)%s%s", efi_status_name(exit_status), text[0] ? ": " : "", text);
    fw->stop = FW_STOP_EXIT;
    fw->stop_status = exit_status;
    return EFI_SUCCESS;
}

void fw_decode_exit(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                    const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "image", a[0]);
    fw_trace_status(o, "exit_status", a[1]);
}

/* The entry point returned (to the thunk FW_ID_START_IMAGE_RETURN, which
 * pushed RAX): as Exit with that status and no data, also after an
 * ExitBootServices the image called, where the thunk, which has no RET,
 * has nowhere else to go. */
static efi_status_t start_image_return(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)a;
    uint64_t status;
    struct fw_image *img = running_image(fw);
    if (!img || !guest_view_read_u64(v, fw->call->rsp, &status)) {
        fw_log(fw, "guest bug: the StartImage return thunk reached with no image started; stopping");
        fw->stop = FW_STOP_EXIT;
        fw->stop_status = EFI_INVALID_PARAMETER;
        return EFI_INVALID_PARAMETER;
    }
    return unwind(fw, img, status, 0, 0);
}

/* UEFI 2.10 section 7.4.3: a started image would need its own Unload
 * function (guest code), which is not called: EFI_UNSUPPORTED. */
efi_status_t fw_unload_image(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t image_handle = a[0];
    struct fw_image *img = fw_image_of(fw, image_handle);
    if (!img)
        return EFI_INVALID_PARAMETER;
    if (img->started)
        return EFI_UNSUPPORTED;
    unload(fw, img);
    return EFI_SUCCESS;
}

void fw_decode_image_handle(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                            const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "image", a[0]);
}

const struct fw_service fw_start_image_return_service = {
    .id = FW_ID_START_IMAGE_RETURN, .name = "StartImage.Return", .nargs = 0, .fn = start_image_return,
};
