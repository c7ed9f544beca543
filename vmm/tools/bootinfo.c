/* The --stop-at ebs summary (bootinfo.h). */
#include "bootinfo.h"

#include <string.h>

#include "../../guest/guest_text.h"
#include "../verdict/e820_check.h"
#include "../vmm.h"

static void print_cmdline(const struct guest_mem *gm, uint64_t addr, FILE *out)
{
    char buf[256];
    size_t i = 0;
    for (; i < sizeof(buf) - 1; i++) {
        if (!guest_mem_read(gm, addr + i, &buf[i], 1) || !buf[i])
            break;
        if (!guest_text_printable((unsigned char)buf[i]))
            buf[i] = '?';
    }
    buf[i] = 0;
    fprintf(out, "  cmdline           \"%s\"\n", buf);
}

/* The setup header's fields a boot loader fills (Documentation/arch/x86/boot.rst). */
static void print_setup_header(const struct guest_mem *gm, const struct boot_params *bp, FILE *out)
{
    const struct setup_header *h = &bp->hdr;
    uint64_t cmdline = h->cmd_line_ptr | (uint64_t)bp->ext_cmd_line_ptr << 32;
    fprintf(out, "  version           %u.%02u\n", h->version >> 8, h->version & 0xff);
    fprintf(out, "  type_of_loader    0x%02x\n", h->type_of_loader);
    fprintf(out, "  loadflags         0x%02x%s\n", h->loadflags, (h->loadflags & KASLR_FLAG) ? " (KASLR_FLAG)" : "");
    fprintf(out, "  xloadflags        0x%04x\n", h->xloadflags);
    fprintf(out, "  code32_start      0x%08x\n", h->code32_start);
    fprintf(out, "  cmd_line_ptr      0x%llx\n", (unsigned long long)cmdline);
    if (cmdline)
        print_cmdline(gm, cmdline, out);
    fprintf(out, "  cmdline_size      %u\n", h->cmdline_size);
    fprintf(out, "  ramdisk_image     0x%llx\n", (unsigned long long)(h->ramdisk_image | (uint64_t)bp->ext_ramdisk_image << 32));
    fprintf(out, "  ramdisk_size      0x%llx\n", (unsigned long long)(h->ramdisk_size | (uint64_t)bp->ext_ramdisk_size << 32));
    fprintf(out, "  kernel_alignment  0x%x\n", h->kernel_alignment);
    fprintf(out, "  init_size         0x%x\n", h->init_size);
}

/* The setup_data list, up to 64 entries (a guest's list may loop). */
static void print_setup_data(const struct guest_mem *gm, uint64_t sd, FILE *out)
{
    for (int hops = 0; sd && hops < 64; hops++) {
        struct setup_data_header sh;
        if (!guest_mem_read(gm, sd, &sh, sizeof(sh))) {
            fprintf(out, "  setup_data        0x%llx (not in guest RAM)\n", (unsigned long long)sd);
            break;
        }
        fprintf(out, "  setup_data        0x%llx type %u len %u\n", (unsigned long long)sd, sh.type, sh.len);
        sd = sh.next;
    }
}

static void print_efi_info(const struct efi_info *e, FILE *out)
{
    /* Four bytes the guest wrote: escaped, as any guest text (guest_text.h). */
    char raw[sizeof(e->efi_loader_signature) + 1] = { 0 }, signature[4 * sizeof(e->efi_loader_signature) + 1];
    memcpy(raw, &e->efi_loader_signature, sizeof(e->efi_loader_signature));
    guest_text_escape(signature, sizeof(signature), raw);
    fprintf(out, "  efi_info          signature %s systab 0x%llx memmap 0x%llx size %u desc_size %u desc_version %u\n",
            signature,
            (unsigned long long)(e->efi_systab | (uint64_t)e->efi_systab_hi << 32),
            (unsigned long long)(e->efi_memmap | (uint64_t)e->efi_memmap_hi << 32), e->efi_memmap_size,
            e->efi_memdesc_size, e->efi_memdesc_version);
}

/* The e820 table, and the check of it (and of efi_info's signature)
 * against the firmware's memory map: EXIT_OK or EXIT_E820_MISMATCH. */
static int check_e820(struct vmm *vm, const struct boot_params *bp, FILE *out)
{
    const struct efi_info *e = &bp->efi_info;
    /* The stub names the firmware's width (x86-stub.c exit_boot_func). */
    uint32_t signature = vm->opt.firmware_bits == 32 ? EFI32_LOADER_SIGNATURE : EFI64_LOADER_SIGNATURE;
    static struct boot_e820_entry got[MAX_E820], want[MEMMAP_MAX_ENTRIES];
    unsigned ngot;
    bool whole = e820_read_whole(&vm->mem, bp, got, &ngot);
    unsigned nwant = e820_expected(&vm->fw.map, want);
    fprintf(out, "  e820_entries      %u\n", ngot);
    for (unsigned i = 0; i < ngot; i++)
        fprintf(out, "    e820 0x%016llx-0x%016llx %s\n", (unsigned long long)got[i].addr,
                (unsigned long long)(got[i].addr + got[i].size - 1), e820_type_name(got[i].type));
    /* A boot loader's table is judged as the kernel reads it; the stub's
     * must be what setup_e820 makes, entry for entry. */
    static struct boot_e820_entry read[2 * MAX_E820];
    unsigned nread = ngot;
    memcpy(read, got, ngot * sizeof(*got));
    bool loader = vm->run.entry_trap.n != 0;
    if (loader && !e820_equal(read, nread = e820_as_kernel_reads(read, ngot), got, ngot))
        fprintf(out, "  e820 as read      %u entries (in address order, empty ones dropped, overlaps the larger "
                "type, a type the kernel does not know reserved, neighbours of one type one range)\n", nread);
    if (whole && e820_equal(read, nread, want, nwant) && e->efi_loader_signature == signature) {
        fprintf(out, "e820-check: ok: %u entries agree with the firmware memory map (%u descriptors)\n", nread,
                vm->fw.map.n);
        return EXIT_OK;
    }
    fprintf(out, "e820-check: MISMATCH: the %s e820 (%u entries) is not what the memory map (%u descriptors) gives%s%s\n",
            loader ? "boot loader's" : "stub's", nread, vm->fw.map.n, e->efi_loader_signature == signature ? "" :
            signature == EFI64_LOADER_SIGNATURE ? "; efi_info lacks EL64" : "; efi_info lacks EL32",
            whole ? "" : "; the kernel reads more of it than the check can (e820_entries past the zero page's 128, "
                         "or setup_data past guest RAM or 64 entries)");
    for (unsigned i = 0; i < nwant; i++)
        fprintf(out, "    expected 0x%016llx-0x%016llx %s\n", (unsigned long long)want[i].addr,
                (unsigned long long)(want[i].addr + want[i].size - 1), e820_type_name(want[i].type));
    vm->run.e820_mismatch = true;
    return EXIT_E820_MISMATCH;
}

static int print_boot_params(struct vmm *vm, uint64_t bp_addr, FILE *out)
{
    /* One copy, read once: another vCPU may be changing the page, and the
     * summary, the e820 list and the verdict must come from the same bytes
     * (e820_entries checked then used twice would let a racer push the copy
     * past the checked 4 KiB). */
    static struct boot_params copy;
    if (!guest_mem_read(&vm->mem, bp_addr, &copy, sizeof(copy))) {
        vmm_log("stop-at ebs: RSI 0x%llx does not point at a boot_params page in guest RAM",
                (unsigned long long)bp_addr);
        return EXIT_GUEST_CRASH;
    }
    fprintf(out, "boot_params at 0x%llx:\n", (unsigned long long)bp_addr);
    print_setup_header(&vm->mem, &copy, out);
    fprintf(out, "  secure_boot       %u\n", copy.secure_boot);
    print_setup_data(&vm->mem, copy.hdr.setup_data, out);
    print_efi_info(&copy.efi_info, out);
    return check_e820(vm, &copy, out);
}

/* What EFI_MEMORY_ATTRIBUTE_PROTOCOL was asked, and the kernel's pages. */
static void print_memattr(const struct stop_summary *s, FILE *out)
{
    const uint64_t *calls = s->vm->fw.calls_by_id;
    const struct memattr_check *c = &s->memattr;
    uint64_t get = calls[FW_ID_MEMATTR(MEMATTR_GET)], set = calls[FW_ID_MEMATTR(MEMATTR_SET)],
             clear = calls[FW_ID_MEMATTR(MEMATTR_CLEAR)];
    if (!s->memattr_taken)
        return;
    fprintf(out, "memory attributes at ExitBootServices (EFI_MEMORY_ATTRIBUTE_PROTOCOL: %llu Get, %llu Set, %llu Clear):\n",
            (unsigned long long)get, (unsigned long long)set, (unsigned long long)clear);
    if (!c->found) {
        fprintf(out, "memattr-check: %s\n", set || clear ? "no kernel: no EfiLoaderCode allocation has read-only pages"
                                                        : "none: the stub asked for no protection");
        return;
    }
    fprintf(out, "  kernel            0x%016llx-0x%016llx EfiLoaderCode\n", (unsigned long long)c->start,
            (unsigned long long)c->end - 1);
    for (unsigned i = 0; i < c->nruns; i++)
        fprintf(out, "    0x%016llx-0x%016llx %s\n", (unsigned long long)c->run[i].start,
                (unsigned long long)c->run[i].end - 1, memattr_prot_name(c->run[i].prot));
    if (c->more)
        fprintf(out, "    ... (more than %u runs)\n", MEMATTR_MAX_RUNS);
    fprintf(out, "memattr-check: %s\n", c->ok ? "ok: its read-only pages are executable, the rest writable"
                                             : "MISMATCH: a page of the kernel is not present, or read-only and not executable");
}

static void on_run_start(void *ctx)
{
    struct stop_summary *s = ctx;
    s->memattr_taken = false;
}

/* The page tables as the stub left them, after the call that ended boot
 * services (ExitBootServices, or the return of its last notify function):
 * the stop makes them no-execute after this (vmm/kvm/run.c). */
static void on_after_call(void *ctx, struct vcpu *c, unsigned id, const struct fw_call *call, uint64_t status)
{
    (void)c, (void)id, (void)call, (void)status;
    struct stop_summary *s = ctx;
    if (s->memattr_taken || s->vm->fw.phase != FW_PHASE_RUNTIME)
        return;
    memattr_check(&s->vm->mem, &s->vm->fw.map, &s->memattr);
    s->memattr_taken = true;
}

/* Where the run stopped, on stdout or the run's own log (a sweep cell's). */
static void on_kernel(void *ctx, uint64_t boot_params)
{
    struct stop_summary *s = ctx;
    FILE *log = s->vm->run.opt.log;
    s->verdict = print_boot_params(s->vm, boot_params, log ? log : stdout);
    print_memattr(s, log ? log : stdout);
    s->printed = true;
}

/* A success that never reached the stop (the guest reset, powered off or
 * wrote 0 to the exit port, the image ended after ExitBootServices, or a
 * loader's kernel booted on past its trapped entry) is no success. A sweep
 * cell keeps its status: its fault outcome judges it. */
static int unreached(struct stop_summary *s, int status)
{
    struct vmm *vm = s->vm;
    if (status != EXIT_OK || vm->opt.fault_sweep)
        return status;
    fflush(stdout);
    vmm_log("--stop-at ebs: the run ended before its stop point: %s",
            vm->fw.phase != FW_PHASE_RUNTIME ? "no ExitBootServices succeeded"
            : vm->run.entry_trap.n ? "ExitBootServices succeeded, but the boot loader never entered the kernel at "
                                     "its entry"
                                   : "ExitBootServices succeeded, but no jump to the kernel was seen");
    vm->run.stop_unreached = true;
    return EXIT_STOP_UNREACHED;
}

/* The run loop ended the run at the kernel with success: the summary's
 * verdict stands for it. */
static int on_run_end(void *ctx, int status)
{
    struct stop_summary *s = ctx;
    if (!s->printed)
        return unreached(s, status);
    s->printed = false;
    return status == EXIT_OK ? s->verdict : status;
}

const struct run_hooks stop_summary_hooks = { .name = "stop-summary", .after_call = on_after_call,
                                              .kernel = on_kernel, .run_start = on_run_start, .run_end = on_run_end };
