/* Load the image and set the vCPU up for the chosen entry:
 *  - handover: the protected-mode kernel at code32_start, a zero page built
 *    from its setup header, efi_main(handle, systab, bp) in RDI/RSI/RDX at
 *    startup_32 + 0x200 + handover_offset (Documentation/arch/x86/boot.rst,
 *    "EFI Handover Protocol");
 *  - pe: the PE image mapped at its base, efi_pe_entry(handle, systab) in
 *    RCX/RDX (Microsoft x64 ABI) at base + AddressOfEntryPoint;
 *  - handover with an IA-32 firmware (--firmware-bits 32): the same zero
 *    page, efi_main(handle, systab, bp) on the 32-bit stack (cdecl) at
 *    startup_32 + handover_offset, in 32-bit protected mode, for a
 *    mixed-mode kernel or an i386 one;
 *  - pe with an IA-32 firmware: the same PE image, efi32_pe_entry(handle,
 *    systab) on the 32-bit stack at the entry its .compat section lists
 *    (loader/pe_compat.h), as a 32-bit firmware's StartImage enters it. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../firmware-stub/acpi.h"
#include "../firmware-stub/boot_measurements.h"
#include "../firmware-stub/tcg2.h"
#include "../loader/cpio.h"
#include "../loader/dtb.h"
#include "../loader/place.h"
#include "../guest/layout.h"
#include "host/add_files.h"
#include "host/esp_dir.h"
#include "host/files.h"
#include "vmm.h"
#include "x86/x86_setup.h"

const char *const boot_step_names[STEP_GUEST] = {
    [STEP_OPTIONS] = "options", [STEP_OUTPUTS] = "outputs", [STEP_IMAGE] = "image", [STEP_FILES] = "files",
    [STEP_HOST] = "host",
};

static uint64_t exception_thunk(unsigned vector, const void *ctx)
{
    return firmware_thunk(ctx, FW_ID_EXCEPTION(vector));
}

/* Read the initrd into host memory, with the --exec command and the
 * --add files (placed.added, add_files.c) appended as a second cpio
 * archive. */
static int read_initrd(struct vmm *vm)
{
    FILE *f = vmm_open_input("--initrd", vm->opt.initrd);
    if (!f)
        return -1;
    int rc = -1;
    long end;
    struct cpio_builder *extra = &vm->placed.added;
    if (fseek(f, 0, SEEK_END) || (end = ftell(f)) < 0 || (uint64_t)end > vm->opt.mem / 2) {
        vmm_log("--initrd %s: cannot read its size, or it is larger than half the guest RAM", vm->opt.initrd);
        goto out;
    }
    uint64_t file_size = (uint64_t)end;
    rewind(f);
    bool appended = vm->opt.exec || vm->opt.nadds;
    uint64_t extra_at = (file_size + 3) & ~3ULL;
    vm->placed.initrd_size = appended ? extra_at + extra->len : file_size;
    if (vm->placed.initrd_size > vm->opt.mem / 2) {
        vmm_log("--initrd %s with the --exec/--add archive: %llu MiB, more than half the guest RAM (raise --mem)",
                vm->opt.initrd, (unsigned long long)(vm->placed.initrd_size >> 20));
        goto out;
    }
    /* An IA-32 firmware's LoadFile2 BufferSize is a 32-bit UINTN, and
     * everything it hands out lies below 4 GiB. */
    if (vm->opt.firmware_bits == 32 && vm->placed.initrd_size > UINT32_MAX) {
        vmm_log("--initrd %s: %llu MiB, more than a 32-bit firmware (--firmware-bits 32) can pass: 4 GiB at most",
                vm->opt.initrd, (unsigned long long)(vm->placed.initrd_size >> 20));
        goto out;
    }
    if (!vm->placed.initrd_size || !(vm->placed.initrd_data = calloc(1, vm->placed.initrd_size)) ||
        fread(vm->placed.initrd_data, 1, file_size, f) != file_size) {
        vmm_log("--initrd %s: read failed (or the file is empty)", vm->opt.initrd);
        goto out;
    }
    if (appended)
        memcpy(vm->placed.initrd_data + extra_at, extra->buf, extra->len);
    rc = 0;
out:
    cpio_free(extra);
    fclose(f);
    return rc;
}

/* The boot_params route: the initrd in guest RAM at the highest
 * page-aligned place below initrd_addr_max (boot.rst). */
static int place_initrd(struct vmm *vm, uint64_t *addr)
{
    uint64_t max = vm->placed.bz.hdr.initrd_addr_max, a = max;
    if (memmap_allocate(&vm->fw.map, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, (vm->placed.initrd_size + 0xfff) >> 12,
                        &a) != EFI_SUCCESS) {
        /* More RAM helps only while RAM ends below initrd_addr_max. */
        bool more_ram_helps = vm->mem.low_size < GUEST_HOLE_START && vm->mem.low_size <= max;
        vmm_log("the initrd (%s): %llu bytes do not fit in guest RAM below initrd_addr_max 0x%llx (%s)",
                vm->opt.initrd ? vm->opt.initrd : "built for --exec", (unsigned long long)vm->placed.initrd_size,
                (unsigned long long)max, more_ram_helps ? "raise --mem"
                : "the RAM below it is all used: a smaller initrd, or --initrd-via loadfile2, where the EFI stub places it");
        return -1;
    }
    guest_mem_write(&vm->mem, a, vm->placed.initrd_data, vm->placed.initrd_size);
    *addr = a;
    return 0;
}

static uint64_t alloc_low_page(struct vmm *vm, uint64_t pages)
{
    uint64_t a = 0xffffffffULL;
    if (memmap_allocate(&vm->fw.map, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, pages, &a) != EFI_SUCCESS)
        return 0;
    return a;
}

#define DTB_MAX (1u << 20)

/* --dtb FILE, read and checked before /dev/kvm is opened. */
static int read_dtb(struct vmm *vm)
{
    FILE *f = vmm_open_input("--dtb", vm->opt.dtb);
    if (!f)
        return -1;
    vm->placed.dtb = malloc(DTB_MAX);
    vm->placed.dtb_len = vm->placed.dtb ? fread(vm->placed.dtb, 1, DTB_MAX, f) : 0;
    fclose(f);
    if (!vm->placed.dtb || dtb_check(vm->placed.dtb, vm->placed.dtb_len)) {
        vmm_log("--dtb %s: not a valid flattened device tree of at most 1 MiB", vm->opt.dtb);
        return -1;
    }
    return 0;
}

/* --exec without --initrd: the archive add_files.c built is the initrd. */
static int take_built_initrd(struct vmm *vm)
{
    struct cpio_builder *b = &vm->placed.added;
    if (b->len > vm->opt.mem / 2) {
        vmm_log("--exec: the initramfs (busybox, /init and the --add files) is %llu MiB, more than half the guest "
                "RAM (raise --mem)", (unsigned long long)(b->len >> 20));
        cpio_free(b);
        return -1;
    }
    vm->placed.initrd_data = (uint8_t *)b->buf;
    vm->placed.initrd_size = b->len;
    *b = (struct cpio_builder){ .buf = NULL };
    return 0;
}

static void esp_note(const char *line)
{
    vmm_log("%s", line);
}

/* --esp DIR, read whole before the guest runs (the sandbox allows no
 * open() after); whether the image lies in it. */
static int read_esp(struct vmm *vm)
{
    char err[PATH_MAX + 160];
    if (esp_dir_read(vm->opt.esp, &vm->placed.esp, esp_note, err, sizeof(err))) {
        vmm_log("%s", err);
        return -1;
    }
    struct placement *p = &vm->placed;
    p->image_on_esp = !esp_dir_image_path(vm->opt.esp, vm->opt.kernel, p->esp_image_path, sizeof(p->esp_image_path));
    if (!p->image_on_esp && !vm->opt.quiet)
        vmm_log("--esp %s: %s lies outside it: LoadedImage.DeviceHandle is the volume's, its FilePath empty",
                vm->opt.esp, vm->opt.kernel);
    return 0;
}

int vmm_read_inputs(struct vmm *vm)
{
    if ((vm->opt.esp && read_esp(vm)) || secure_boot_read_keys(vm))
        return -1;
    if (vm->opt.exec && vmm_exec_run_id_new(vm))
        return -1;
    const struct add_files_request add = { .exec = vm->opt.exec, .run_id = vm->console.exec_run_id,
                                           .exec_output = vm->opt.exec_output != NULL,
                                           .snapshot = vm->opt.snapshot != NULL, .whole_initrd = !vm->opt.initrd,
                                           .adds = vm->opt.adds, .nadds = vm->opt.nadds };
    if ((vm->opt.exec || vm->opt.nadds) && add_files_archive(&add, &vm->placed.added))
        return -1;
    if (vm->opt.initrd ? read_initrd(vm) : vm->opt.exec && take_built_initrd(vm))
        return -1;
    return vm->opt.dtb && strcmp(vm->opt.dtb, "auto") ? read_dtb(vm) : 0;
}

/* --dtb auto|FILE: a SETUP_DTB setup_data entry at the head of the chain. */
static int attach_dtb(struct vmm *vm, struct boot_params *bp)
{
    static uint8_t blob[DTB_MAX];
    const uint8_t *dtb = vm->placed.dtb;
    size_t len = vm->placed.dtb_len;
    if (!dtb) {
        struct guest_range r[2];
        struct dtb_machine m = { .nram = (unsigned)guest_mem_ranges(&vm->mem, r), .cpus = vm->opt.cpus,
                                 .bootargs = vm->placed.cmdline,
                                 .uart = { { GUEST_PORT_COM1, GUEST_IRQ_COM1 }, { GUEST_PORT_COM2, GUEST_IRQ_COM2 } },
                                 .nuart = vm->opt.exec_output ? 2 : 1 };
        for (unsigned i = 0; i < m.nram; i++) {
            m.ram[i][0] = r[i].start;
            m.ram[i][1] = r[i].size;
        }
        len = dtb_build(blob, sizeof(blob), &m);
        dtb = blob;
    }
    if (!len) {
        vmm_log("--dtb: cannot build the device tree");
        return -1;
    }
    struct setup_data_header hdr = { bp->hdr.setup_data, SETUP_DTB, (uint32_t)len };
    uint64_t at = alloc_low_page(vm, (sizeof(hdr) + len + 0xfff) >> 12);
    if (!at || !guest_mem_write(&vm->mem, at, &hdr, sizeof(hdr)) ||
        !guest_mem_write(&vm->mem, at + sizeof(hdr), dtb, len)) {
        vmm_log("--dtb: no guest RAM below 4 GiB for the device tree");
        return -1;
    }
    bp->hdr.setup_data = at;
    return 0;
}

/* The placement said the image fits; guest_mem says where it does not
 * (a bug of the placement, not of the image). */
static int image_outside_ram(const struct vmm *vm)
{
    vmm_log("the kernel placed at 0x%llx (0x%llx bytes) lies outside guest RAM", (unsigned long long)vm->placed.image_start,
            (unsigned long long)vm->placed.image_size);
    return EXIT_HOST;
}

/* --inject memmap-fragmented / no-low-free, after everything is placed. */
static void inject_memmap(struct vmm *vm)
{
    if (firmware_inject_memmap(&vm->fw))
        vmm_log("injected memory-map fault: the map now has %u descriptors", vm->fw.map.n);
}

/* The 32-bit handover entry (boot.rst, "EFI Handover Protocol"), as if
 * called: ESP at the return address (the thunk that reports the image
 * returned), then handle, systab and boot_params; interrupts off. The PE
 * compat entry and an IA-32 application's entry take the first two alone
 * (UEFI 2.10 section 2.3.2: the image's entry point, cdecl). */
static int set_entry_registers32(struct vmm *vm)
{
    uint64_t esp = GUEST_STACK_TOP - 0x40;
    const uint32_t frame[4] = { (uint32_t)firmware_thunk(&vm->fw, FW_ID_IMAGE_RETURN), (uint32_t)vm->fw.image_handle,
                                (uint32_t)vm->fw.systab, (uint32_t)vm->placed.boot_params };
    size_t args = vm->opt.entry == ENTRY_PE ? 3 : 4;
    if (vm->placed.boot_params >> 32 || !guest_mem_write(&vm->mem, esp, frame, args * sizeof(frame[0])))
        return -1;
    struct kvm_regs r = { .rip = vm->placed.entry_rip, .rsp = esp, .rflags = 0x2 };
    return vmm_set_regs(&vm->vcpus[0], &r);
}

static int set_entry_registers(struct vmm *vm)
{
    if (vm->opt.firmware_bits == 32)
        return set_entry_registers32(vm);
    /* As if called: the return address (a thunk that reports the image
     * returned) at RSP, RSP = 8 mod 16, 32 bytes of shadow space above. */
    uint64_t rsp = GUEST_STACK_TOP - 0x48;
    uint64_t ret = firmware_thunk(&vm->fw, FW_ID_IMAGE_RETURN);
    if (!guest_mem_write(&vm->mem, rsp, &ret, 8))
        return -1;
    struct kvm_regs r = { .rip = vm->placed.entry_rip, .rsp = rsp, .rflags = 0x2 };
    if (vm->opt.entry == ENTRY_HANDOVER) {
        r.rdi = vm->fw.image_handle;
        r.rsi = vm->fw.systab;
        r.rdx = vm->placed.boot_params;
    } else {
        r.rcx = vm->fw.image_handle;
        r.rdx = vm->fw.systab;
    }
    return vmm_set_regs(&vm->vcpus[0], &r);
}

/* An EFI application, as LoadImage loads one (UEFI 2.10 section 7.4.1;
 * EDK2's CoreLoadPeImage): SizeOfImage in whole pages of EfiLoaderCode, at
 * ImageBase when that is free RAM, otherwise wherever the allocator puts
 * it (top-down, below 4 GiB first, at a multiple of a SectionAlignment
 * above a page), relocated there; an IA-32 one (PE32) below 4 GiB, which
 * pe_load checks. Its LoadedImage is the firmware's image handle's, with
 * the application's base and size. */
static int load_app(struct vmm *vm, size_t cmdlen)
{
    const struct pe_image *pe = &vm->placed.app_pe;
    char err[BZIMAGE_ERR_LEN];
    if (vm->opt.cmdline_given && cmdlen >= FW_CMDLINE_MAX) {
        vmm_log("--cmdline: %zu bytes, LoadOptions take at most %d", cmdlen, FW_CMDLINE_MAX - 1);
        return EXIT_USAGE;
    }
    uint64_t size = pe_image_size(pe), pages = size >> 12, at = pe->image_base;
    if (!at || (at & 0xfff) ||
        memmap_allocate(&vm->fw.map, EFI_ALLOCATE_ADDRESS, EFI_LOADER_CODE, pages, &at) != EFI_SUCCESS) {
        if (pe->file_characteristics & PE_FILE_RELOCS_STRIPPED) {
            vmm_log("%s: PE: Characteristics: relocations stripped, and ImageBase 0x%llx (0x%llx bytes) is not free "
                    "guest RAM", vm->opt.kernel, (unsigned long long)pe->image_base, (unsigned long long)size);
            return EXIT_USAGE;
        }
        if (memmap_allocate_aligned(&vm->fw.map, EFI_LOADER_CODE, pages, pe->section_alignment, &at) != EFI_SUCCESS) {
            vmm_log("%s: SizeOfImage: the application needs 0x%llx bytes, more free guest RAM than there is; "
                    "raise --mem", vm->opt.kernel, (unsigned long long)size);
            return EXIT_USAGE;
        }
    }
    if (pe_load(pe, &vm->mem, at, err, sizeof(err))) {
        vmm_log("%s: %s", vm->opt.kernel, err);
        return EXIT_USAGE;
    }
    vm->placed.image_start = at;
    vm->placed.image_size = size;
    firmware_set_image(&vm->fw, at, size);
    vm->placed.entry_rip = at + pe->entry;
    return 0;
}

const char *vmm_entry_name(const struct vmm *vm)
{
    return vm->placed.app ? "app" : vm->opt.entry == ENTRY_PE ? "pe" : "handover";
}

bool vmm_image_ia32(const struct vmm *vm)
{
    return vm->placed.app ? vm->placed.app_pe.machine == PE_MACHINE_I386 : !vm->placed.bz.kernel_64;
}

void vmm_setup_idt_mixed(struct vmm *vm)
{
    x86_setup_idt_mixed(&vm->mem, exception_thunk, &vm->fw);
}

const char *vmm_image_status(const struct vmm *vm)
{
    if (vm->fw.stop != FW_STOP_EXIT && vm->fw.stop != FW_STOP_REFUSED)
        return NULL;
    return efi_status_name(vm->fw.stop_status);
}

/* The watchdog armed as the image starts: --watchdog's, or as a boot
 * manager arms it before it starts a boot option (UEFI 2.10 section
 * 3.1.2: "The watchdog must be set to a period of 5 minutes"), for an EFI
 * application, which may disarm it (GRUB does at once). Not for a kernel:
 * a boot manager starting one starts it behind its loader, and the stub,
 * efi_main or efi_pe_entry, never disarms it, while an emulating KVM
 * (about a million guest instructions a second) takes minutes to
 * decompress a stock kernel before ExitBootServices (docs/kvm-hosts.md). */
#define BOOT_MANAGER_WATCHDOG_S 300
static unsigned watchdog_seconds(const struct vmm *vm)
{
    if (vm->opt.watchdog_given)
        return vm->opt.watchdog;
    return vm->placed.app ? BOOT_MANAGER_WATCHDOG_S : 0;
}

/* The firmware's inputs: its console and logs, the faults to inject, the
 * initrd it serves through LoadFile2, the command line as LoadOptions. */
static struct fw_config firmware_config(struct vmm *vm)
{
    bool loadfile2 = vm->placed.initrd_data && vm->opt.initrd_via == INITRD_VIA_LOADFILE2;
    /* LoadOptions: the kernel's PE entry reads its command line there; an
     * application gets only a --cmdline given for it. */
    bool load_options = vm->placed.app ? vm->opt.cmdline_given : vm->opt.entry == ENTRY_PE;
    return (struct fw_config){ .base = GUEST_FIRMWARE_BASE, .console = stdout, .console_used = &vm->console.bytes,
                               .console_limit = vm->opt.console_limit, .log = vmm_log_file(), .trace = vm->files.trace,
                               .trace_limit = vm->opt.trace_limit, .inject = vm->opt.inject,
                               .seeded = vm->opt.seeded, .seed = vm->opt.seed, .keys = vm->opt.keys,
                               .initrd = loadfile2 ? vm->placed.initrd_data : NULL,
                               .initrd_size = loadfile2 ? vm->placed.initrd_size : 0,
                               .cmdline = load_options ? vm->placed.cmdline : NULL, .bits = vm->opt.firmware_bits,
                               .secure_boot = vm->opt.secure_boot != NULL, .watchdog_seconds = watchdog_seconds(vm) };
}

/* What every entry needs in guest memory before the image: the firmware,
 * the VMM's own memory reserved in its map, page tables, the ACPI tables,
 * the GDT and the IDT. */
static int build_firmware(struct vmm *vm)
{
    const struct fw_config cfg = firmware_config(vm);
    if (firmware_init(&vm->fw, &vm->mem, &cfg)) {
        vmm_log("cannot build the firmware in guest memory");
        return EXIT_HOST;
    }
    if (memmap_reserve(&vm->fw.map, GUEST_LOW_RAM_END, (GUEST_LEGACY_END - GUEST_LOW_RAM_END) >> 12,
                       EFI_RESERVED_MEMORY_TYPE) ||
        memmap_reserve(&vm->fw.map, GUEST_FIRMWARE_BASE + FW_REGION_SIZE,
                       (GUEST_VMM_END - GUEST_FIRMWARE_BASE - FW_REGION_SIZE) >> 12, EFI_BOOT_SERVICES_DATA)) {
        vmm_log("cannot reserve the VMM's memory");
        return EXIT_HOST;
    }
    if (x86_setup_page_tables(&vm->mem) < 0) {
        vmm_log("cannot build page tables");
        return EXIT_HOST;
    }
    if (!vm->opt.no_acpi && !firmware_install_acpi(&vm->fw, vm->opt.cpus, vm->opt.exec_output != NULL,
                                                      vm->opt.snapshot != NULL)) {
        vmm_log("cannot build the ACPI tables");
        return EXIT_HOST;
    }
    if (vm->opt.tpm && firmware_install_tcg2(&vm->fw)) {
        vmm_log("--tpm: cannot build EFI_TCG2_PROTOCOL (no guest memory or handle left, or OpenSSL failed)");
        return EXIT_HOST;
    }
    if (vm->opt.esp &&
        firmware_attach_esp(&vm->fw, &vm->placed.esp, vm->placed.image_on_esp ? vm->placed.esp_image_path : NULL)) {
        vmm_log("--esp %s: cannot serve it (no guest or host memory left)", vm->opt.esp);
        return EXIT_HOST;
    }
    if (vm->opt.firmware_bits == 32) {
        x86_setup_gdt32(&vm->mem);
        if (vmm_image_ia32(vm))
            x86_setup_idt32(&vm->mem, exception_thunk, &vm->fw);
        else
            vmm_setup_idt_mixed(vm);
    } else {
        x86_setup_gdt(&vm->mem);
        x86_setup_idt(&vm->mem, exception_thunk, &vm->fw);
    }
    return 0;
}

/* The kernel's place in guest RAM, for either entry: --load-addr or
 * pref_address, kernel_alignment, and the size the entry needs
 * (boot.rst; the PE entry's SizeOfImage). */
static int place_kernel(struct vmm *vm)
{
    const struct bzimage *bz = &vm->placed.bz;
    uint64_t align = bz->hdr.kernel_alignment;
    if (vm->opt.load_addr && (vm->opt.load_addr & (align - 1))) {
        vmm_log("--load-addr 0x%llx is not a multiple of kernel_alignment 0x%llx",
                (unsigned long long)vm->opt.load_addr, (unsigned long long)align);
        return EXIT_USAGE;
    }
    uint64_t size = vm->opt.entry == ENTRY_PE ? bzimage_pe_image_size(bz) : bzimage_load_size(bz);
    if (size + GUEST_KERNEL_MIN > vm->mem.size) {
        vmm_log("%s: init_size: the kernel needs 0x%llx bytes, more than the guest RAM (%llu MiB) allows; raise --mem",
                vm->opt.kernel, (unsigned long long)size, (unsigned long long)(vm->mem.size >> 20));
        return EXIT_USAGE;
    }
    bool entry32 = vm->opt.firmware_bits == 32;
    bool below_4g = bzimage_needs_below_4g(bz, vm->opt.entry, vm->opt.firmware_bits);
    uint64_t top = guest_mem_top(&vm->mem);
    const struct image_constraints place = { .size = size, .pref_address = bz->hdr.pref_address, .align = align,
                                             .relocatable = bz->hdr.relocatable_kernel,
                                             .load_addr = vm->opt.load_addr,
                                             .top = below_4g && top > GUEST_4GIB ? GUEST_4GIB : top };
    if (place_image(&vm->fw.map, &place, &vm->placed.image_start)) {
        vmm_log("cannot place the 0x%llx-byte kernel at 0x%llx%s%s", (unsigned long long)size,
                (unsigned long long)place_wanted(&place), place_tried(&place),
                entry32    ? ", and --firmware-bits 32 needs it below 4 GiB"
                : below_4g ? ", and without XLF_CAN_BE_LOADED_ABOVE_4G in xloadflags it goes below 4 GiB"
                           : "");
        return EXIT_USAGE;
    }
    vm->placed.image_size = size;
    firmware_set_image(&vm->fw, vm->placed.image_start, size);
    return 0;
}

/* The PE entry: the image mapped section by section at its place, entered
 * at AddressOfEntryPoint, or by an IA-32 firmware at its .compat entry;
 * the command line reaches it as LoadOptions (build_firmware). */
static int load_kernel_pe(struct vmm *vm, size_t cmdlen)
{
    const struct bzimage *bz = &vm->placed.bz;
    if (cmdlen >= FW_CMDLINE_MAX) {
        vmm_log("--cmdline: %zu bytes, the PE entry takes at most %d", cmdlen, FW_CMDLINE_MAX - 1);
        return EXIT_USAGE;
    }
    if (bzimage_load_pe(bz, &vm->mem, vm->placed.image_start))
        return image_outside_ram(vm);
    uint32_t entry = vm->opt.firmware_bits == 32 ? vm->placed.compat_entry : bz->pe.entry;
    vm->placed.entry_rip = vm->placed.image_start + entry;
    return 0;
}

/* The zero page of the handover entry, in RAM below 4 GiB: the command
 * line, the setup header, the initrd with --initrd-via bootparams, the
 * device tree with --dtb. */
static int build_boot_params(struct vmm *vm, size_t cmdlen)
{
    struct boot_placement pl = { .code32_start = vm->placed.image_start };
    pl.cmdline_addr = alloc_low_page(vm, (cmdlen + 1 + 0xfff) >> 12);
    vm->placed.boot_params = alloc_low_page(vm, 1);
    if (!pl.cmdline_addr || !vm->placed.boot_params) {
        vmm_log("no guest RAM below 4 GiB for the command line and boot_params");
        return EXIT_HOST;
    }
    guest_mem_write(&vm->mem, pl.cmdline_addr, vm->placed.cmdline, cmdlen + 1);
    if (vm->placed.initrd_data && vm->opt.initrd_via == INITRD_VIA_BOOTPARAMS) {
        if (place_initrd(vm, &pl.initrd_addr))
            return EXIT_USAGE;
        pl.initrd_size = vm->placed.initrd_size;
    }
    if (bootparams_build(&vm->placed.bz, &vm->mem, vm->placed.boot_params, &pl)) {
        vmm_log("boot_params at 0x%llx: outside guest RAM", (unsigned long long)vm->placed.boot_params);
        return EXIT_HOST;
    }
    if (vm->opt.dtb && attach_dtb(vm, guest_mem_ptr(&vm->mem, vm->placed.boot_params, sizeof(struct boot_params))))
        return EXIT_USAGE;
    return 0;
}

/* The handover entry: the protected-mode kernel at its place, its zero
 * page, efi_main at startup_32 + 0x200 + handover_offset. */
static int load_kernel_handover(struct vmm *vm, size_t cmdlen)
{
    const struct bzimage *bz = &vm->placed.bz;
    /* cmdline_size counts the bytes without the terminating zero (boot.rst;
     * header.S has COMMAND_LINE_SIZE - 1): a line of that length fits. */
    if (cmdlen > bz->hdr.cmdline_size) {
        vmm_log("--cmdline: %zu bytes, but the kernel's cmdline_size allows %u", cmdlen, bz->hdr.cmdline_size);
        return EXIT_USAGE;
    }
    if (bzimage_load_flat(bz, &vm->mem, vm->placed.image_start))
        return image_outside_ram(vm);
    int rc = build_boot_params(vm, cmdlen);
    if (rc)
        return rc;
    vm->placed.entry_rip = vm->opt.firmware_bits == 32 ? bzimage_handover32_entry(bz, vm->placed.image_start)
                                                        : bzimage_handover_entry(bz, vm->placed.image_start);
    return 0;
}

static int load_kernel(struct vmm *vm, size_t cmdlen)
{
    int rc = place_kernel(vm);
    if (rc)
        return rc;
    return vm->opt.entry == ENTRY_PE ? load_kernel_pe(vm, cmdlen) : load_kernel_handover(vm, cmdlen);
}

/* --tpm: the firmware's own measurements, before the image starts. One
 * that fails leaves the log marked truncated and the boot goes on, as on a
 * machine whose firmware could not log. */
static void measure_boot(struct vmm *vm)
{
    char err[300];
    if (firmware_measure_boot(&vm->fw, vm->placed.image_file, vm->placed.image_file_size, vm->placed.image_start,
                              vm->placed.image_size, err, sizeof(err)))
        vmm_log("--tpm: the firmware's own measurements stopped: %s", err);
}

int vmm_load(struct vmm *vm)
{
    size_t cmdlen = strlen(vm->placed.cmdline);
    int rc = build_firmware(vm);
    if (rc || (rc = secure_boot_setup(vm)))
        return rc;
    rc = vm->placed.app ? load_app(vm, cmdlen) : load_kernel(vm, cmdlen);
    if (rc)
        return rc;
    if (vm->opt.tpm)
        measure_boot(vm);
    /* Every entry ends the same way: the memory-map faults once all is
     * placed, then the vCPU at the entry point. */
    inject_memmap(vm);
    return set_entry_registers(vm) ? EXIT_HOST : 0;
}
