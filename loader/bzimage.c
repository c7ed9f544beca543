#include "bzimage.h"

#include <stdio.h>
#include <string.h>

#include "../guest/fail.h"
#include "../guest/guest_text.h"


static bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* The setup header ends at 0x202 + the byte at 0x201 (the jump's offset),
 * boot.rst "The real-mode kernel header". */
#define SETUP_HEADER_END_MIN (0x202 + 4)

static void read_kernel_version(struct bzimage *bz)
{
    /* boot.rst: kernel_version, if nonzero, is a pointer to a NUL-terminated
     * string, less 0x200. */
    bz->kernel_version[0] = 0;
    if (!bz->hdr.kernel_version)
        return;
    uint64_t off = (uint64_t)bz->hdr.kernel_version + 0x200;
    if (off >= bz->setup_size)
        return;
    size_t n = 0;
    while (n < sizeof(bz->kernel_version) - 1 && off + n < bz->setup_size) {
        char c = (char)bz->data[off + n];
        if (!c)
            break;
        bz->kernel_version[n++] = guest_text_printable((unsigned char)c) ? c : '?';
    }
    bz->kernel_version[n] = 0;
}

/* The setup header, as long as the image says it is (the byte at 0x201),
 * into bz->hdr; its end in *hdr_end. */
static int read_setup_header(struct bzimage *bz, uint64_t *hdr_end, char *err, size_t errlen)
{
    const uint8_t *d = bz->data;
    size_t size = bz->size;
    if (size < SETUP_HEADER_END_MIN)
        return fail(err, errlen, "truncated: %zu bytes, the setup header needs at least 0x%x", size,
                    SETUP_HEADER_END_MIN);
    *hdr_end = 0x202 + (uint64_t)d[0x201];
    if (*hdr_end > SETUP_HEADER_OFFSET + sizeof(struct setup_header))
        *hdr_end = SETUP_HEADER_OFFSET + sizeof(struct setup_header);
    if (size < *hdr_end)
        return fail(err, errlen, "truncated: %zu bytes, the setup header ends at 0x%llx", size,
                    (unsigned long long)*hdr_end);
    memcpy(&bz->hdr, d + SETUP_HEADER_OFFSET, *hdr_end - SETUP_HEADER_OFFSET);
    return 0;
}

/* A Linux boot image whose boot protocol has the EFI handover fields. */
static int check_protocol(const struct setup_header *h, uint64_t hdr_end, char *err, size_t errlen)
{
    if (h->boot_flag != BOOT_FLAG_MAGIC)
        return fail(err, errlen, "boot_flag: 0x%04x, expected 0xaa55 (not a Linux boot image)", h->boot_flag);
    if (h->header != SETUP_HDRS_MAGIC)
        return fail(err, errlen, "header: magic 0x%08x, expected \"HdrS\" (0x53726448): not a bzImage", h->header);
    if (h->version < BZIMAGE_MIN_PROTOCOL)
        return fail(err, errlen, "version: boot protocol %u.%02u, need 2.11 or later for the EFI handover",
                    h->version >> 8, h->version & 0xff);
    if (hdr_end < offsetof(struct boot_params, hdr.kernel_info_offset))
        return fail(err, errlen, "jump: setup header length 0x%llx too short for protocol %u.%02u",
                    (unsigned long long)(hdr_end - SETUP_HEADER_OFFSET), h->version >> 8, h->version & 0xff);
    return 0;
}

/* The real-mode setup and the protected-mode kernel after it, as
 * setup_sects and syssize say, within the file. */
static int split_setup(struct bzimage *bz, char *err, size_t errlen)
{
    const struct setup_header *h = &bz->hdr;
    unsigned sects = h->setup_sects ? h->setup_sects : 4;
    bz->setup_size = (sects + 1) * 512;
    if (bz->setup_size >= bz->size)
        return fail(err, errlen, "setup_sects: %u sectors (0x%x bytes) reach past the end of the %zu-byte file",
                    sects, bz->setup_size, bz->size);
    bz->pm_size = bz->size - bz->setup_size;
    if (h->syssize == 0 || (uint64_t)h->syssize * 16 > bz->pm_size + 15)
        return fail(err, errlen, "syssize: 0x%x paragraphs (0x%llx bytes) but the file holds 0x%llx after setup",
                    h->syssize, (unsigned long long)h->syssize * 16, (unsigned long long)bz->pm_size);
    return 0;
}

/* The fields a boot loader places the kernel, its command line and its
 * initrd by. */
static int check_placement(const struct bzimage *bz, char *err, size_t errlen)
{
    const struct setup_header *h = &bz->hdr;
    if (!is_pow2(h->kernel_alignment) || h->kernel_alignment < 4096)
        return fail(err, errlen, "kernel_alignment: 0x%x is not a power of two >= 4 KiB", h->kernel_alignment);
    if (h->pref_address & 0xfff)
        return fail(err, errlen, "pref_address: 0x%llx is not page-aligned", (unsigned long long)h->pref_address);
    /* Aligning it up to kernel_alignment, or adding init_size, must not
     * wrap (an address near 2^64 would become guest-physical 0). */
    if (h->pref_address > BZIMAGE_MAX_PREF_ADDRESS)
        return fail(err, errlen, "pref_address: 0x%llx is beyond the 0x%llx a 52-bit physical address space allows",
                    (unsigned long long)h->pref_address, (unsigned long long)BZIMAGE_MAX_PREF_ADDRESS);
    if (h->init_size < bz->pm_size && h->init_size != 0)
        return fail(err, errlen, "init_size: 0x%x is smaller than the 0x%llx-byte protected-mode kernel",
                    h->init_size, (unsigned long long)bz->pm_size);
    if (h->init_size > (1u << 30))
        return fail(err, errlen, "init_size: 0x%x is larger than 1 GiB", h->init_size);
    if (h->cmdline_size < 2)
        return fail(err, errlen, "cmdline_size: %u leaves no room for a command line", h->cmdline_size);
    if (h->initrd_addr_max < 0x100000)
        return fail(err, errlen, "initrd_addr_max: 0x%x is below 1 MiB", h->initrd_addr_max);
    return 0;
}

int bzimage_parse(struct bzimage *bz, const void *data, size_t size, char *err, size_t errlen)
{
    memset(bz, 0, sizeof(*bz));
    bz->data = data;
    bz->size = size;
    uint64_t hdr_end = 0;
    if (read_setup_header(bz, &hdr_end, err, errlen) || check_protocol(&bz->hdr, hdr_end, err, errlen) ||
        split_setup(bz, err, errlen))
        return -1;
    if (!(bz->hdr.loadflags & LOADED_HIGH))
        return fail(err, errlen, "loadflags: 0x%02x lacks LOADED_HIGH: not a bzImage", bz->hdr.loadflags);
    bz->kernel_64 = (bz->hdr.xloadflags & XLF_KERNEL_64) != 0;
    if (check_placement(bz, err, errlen))
        return -1;
    read_kernel_version(bz);
    /* An i386 kernel's PE header is IA-32's (Machine 0x14c): only its
     * 32-bit handover entry is used, so it is not read. */
    if (!bz->kernel_64 || !pe_is_mz(data, size))
        return 0;   /* no PE header: only the handover entry can be used */
    if (pe_parse(&bz->pe, data, size, err, errlen))
        return -1;
    if (bz->pe.machine != PE_MACHINE_X64)
        return fail(err, errlen, "PE: Machine 0x%x in a 64-bit kernel (XLF_KERNEL_64): its EFI stub's PE header is "
                    "x86-64's (0x8664)", bz->pe.machine);
    bz->has_pe = true;
    return 0;
}

/* The other 64-bit entry, as a refusal's way out: only when there is one. */
static bool offers_pe(const struct bzimage *bz)
{
    return bz->has_pe && !(bz->pe.file_characteristics & PE_FILE_RELOCS_STRIPPED);
}

/* The handover entry at startup_32 + base + handover_offset (base 0x200
 * for the 64-bit one, 0 for the 32-bit one: header.S __handover_offset)
 * lies inside the protected-mode kernel and is not startup_32 or
 * startup_64 itself, the entries of the boot protocols without EFI: 0 is
 * what header.S gives a kernel without the handover protocol. */
static bool handover_entry_inside(const struct bzimage *bz, uint64_t base)
{
    return bz->hdr.handover_offset && base + bz->hdr.handover_offset < bz->pm_size;
}

static int refuse_handover_offset(const struct bzimage *bz, const char *zero_names, char *err, size_t errlen)
{
    if (!bz->hdr.handover_offset)
        return fail(err, errlen, "handover_offset: 0 names %s, the entry of the boot protocol without EFI, not an "
                    "EFI handover entry", zero_names);
    return fail(err, errlen, "handover_offset: 0x%x points outside the 0x%llx-byte protected-mode kernel",
                bz->hdr.handover_offset, (unsigned long long)bz->pm_size);
}

static bool offers_handover(const struct bzimage *bz)
{
    return (bz->hdr.xloadflags & XLF_EFI_HANDOVER_64) && handover_entry_inside(bz, 0x200);
}

/* Before protocol 2.12 xloadflags was padding (boot.rst), so nothing says
 * whether the kernel is 64-bit or where its EFI handover entries are. */
static int refuse_before_xloadflags(const struct setup_header *h, char *err, size_t errlen)
{
    return fail(err, errlen, "version: boot protocol %u.%02u predates xloadflags (2.12), which tell a 64-bit kernel "
                "and its EFI handover entries: handover enters kernels of protocol 2.12 or later (Linux 3.8 on)",
                h->version >> 8, h->version & 0xff);
}

int bzimage_check_entry(const struct bzimage *bz, enum boot_entry entry, char *err, size_t errlen)
{
    const char *try_handover = offers_handover(bz) ? " (try --entry handover)" : ", and no handover entry either";
    if (bz->hdr.version < 0x020c)
        return refuse_before_xloadflags(&bz->hdr, err, errlen);
    if (!bz->kernel_64)
        return fail(err, errlen, "xloadflags: 0x%04x lacks XLF_KERNEL_64: no 64-bit entry, as in a 32-bit (i386) "
                    "kernel, which a 64-bit firmware cannot enter%s", bz->hdr.xloadflags,
                    bzimage_offers_handover32(bz) ? " (--firmware-bits 32 enters it at its 32-bit handover entry)"
                                                  : ", and no 32-bit handover entry either");
    if (entry == ENTRY_PE) {
        if (!bz->has_pe)
            return fail(err, errlen, "PE: no MZ/PE header: the image has no EFI stub PE entry%s", try_handover);
        /* pe_load refuses to move such an image, as LoadImage does, and the
         * kernel is placed by kernel_alignment, not at its ImageBase. */
        if (bz->pe.file_characteristics & PE_FILE_RELOCS_STRIPPED)
            return fail(err, errlen, "PE: Characteristics 0x%x has IMAGE_FILE_RELOCS_STRIPPED: the EFI stub cannot be moved from its ImageBase 0x%llx%s",
                        bz->pe.file_characteristics, (unsigned long long)bz->pe.image_base, try_handover);
        return 0;
    }
    const struct setup_header *h = &bz->hdr;
    if (!(h->xloadflags & XLF_EFI_HANDOVER_64))
        return fail(err, errlen, "xloadflags: 0x%04x lacks XLF_EFI_HANDOVER_64: no 64-bit EFI handover entry%s",
                    h->xloadflags, offers_pe(bz) ? " (without --entry it boots through the PE entry)"
                                                 : ", and no PE entry either");
    if (!handover_entry_inside(bz, 0x200))
        return refuse_handover_offset(bz, "startup_64", err, errlen);
    return 0;
}

bool bzimage_offers_handover32(const struct bzimage *bz)
{
    return (bz->hdr.xloadflags & XLF_EFI_HANDOVER_32) && handover_entry_inside(bz, 0);
}

int bzimage_check_handover32(const struct bzimage *bz, char *err, size_t errlen)
{
    const struct setup_header *h = &bz->hdr;
    if (h->version < 0x020c)
        return refuse_before_xloadflags(h, err, errlen);
    if (!(h->xloadflags & XLF_EFI_HANDOVER_32))
        return fail(err, errlen, "xloadflags: 0x%04x lacks XLF_EFI_HANDOVER_32: no 32-bit EFI handover entry, which "
                    "--firmware-bits 32 needs (a 64-bit kernel has it when built with CONFIG_EFI_MIXED)", h->xloadflags);
    if (!handover_entry_inside(bz, 0))
        return refuse_handover_offset(bz, "startup_32", err, errlen);
    return 0;
}

bool bzimage_needs_below_4g(const struct bzimage *bz, enum boot_entry entry, unsigned firmware_bits)
{
    return firmware_bits == 32 || (entry == ENTRY_HANDOVER && !(bz->hdr.xloadflags & XLF_CAN_BE_LOADED_ABOVE_4G));
}

uint64_t bzimage_load_size(const struct bzimage *bz)
{
    uint64_t n = bz->hdr.init_size > bz->pm_size ? bz->hdr.init_size : bz->pm_size;
    return (n + 0xfff) & ~0xfffULL;
}

uint64_t bzimage_pe_image_size(const struct bzimage *bz)
{
    return pe_image_size(&bz->pe);
}

int bzimage_load_flat(const struct bzimage *bz, const struct guest_mem *gm, uint64_t addr)
{
    uint64_t len = bzimage_load_size(bz);
    uint8_t *dst = guest_mem_ptr(gm, addr, len);
    if (!dst)
        return -1;
    /* The rest of init_size is the decompressor's: it must be zero, and is,
     * for guest RAM is fresh anonymous memory (vmm_map_memory). Writing the
     * zeros would make the host back some 50 MiB the guest may never touch. */
    memcpy(dst, bz->data + bz->setup_size, bz->pm_size);
    return 0;
}

int bzimage_load_pe(const struct bzimage *bz, const struct guest_mem *gm, uint64_t base)
{
    if (!bz->has_pe)
        return -1;
    return pe_load(&bz->pe, gm, base, NULL, 0);
}

uint64_t bzimage_handover_entry(const struct bzimage *bz, uint64_t addr)
{
    return addr + 0x200 + bz->hdr.handover_offset;
}

uint64_t bzimage_handover32_entry(const struct bzimage *bz, uint64_t addr)
{
    return addr + bz->hdr.handover_offset;
}

int bootparams_build(const struct bzimage *bz, const struct guest_mem *gm, uint64_t bp_addr,
                     const struct boot_placement *pl)
{
    struct boot_params *bp = guest_mem_ptr(gm, bp_addr, sizeof(*bp));
    if (!bp)
        return -1;
    memset(bp, 0, sizeof(*bp));
    /* boot.rst: copy the setup header from the image, then fill what a
     * boot loader must (type_of_loader, cmd_line_ptr, ramdisk_*,
     * code32_start) and zero the rest of the zero page. */
    bp->hdr = bz->hdr;
    bp->hdr.type_of_loader = TYPE_OF_LOADER_HANDOVER;
    bp->hdr.loadflags &= (uint8_t)~CAN_USE_HEAP;
    bp->hdr.code32_start = (uint32_t)pl->code32_start;
    bp->hdr.cmd_line_ptr = (uint32_t)pl->cmdline_addr;
    bp->ext_cmd_line_ptr = (uint32_t)(pl->cmdline_addr >> 32);
    bp->hdr.ramdisk_image = (uint32_t)pl->initrd_addr;
    bp->ext_ramdisk_image = (uint32_t)(pl->initrd_addr >> 32);
    bp->hdr.ramdisk_size = (uint32_t)pl->initrd_size;
    bp->ext_ramdisk_size = (uint32_t)(pl->initrd_size >> 32);
    bp->hdr.setup_data = 0;
    return 0;
}
