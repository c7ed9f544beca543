/* libFuzzer harness for the fake EFI firmware: every service a guest can
 * reach through the hypercall port, with hostile arguments, stack
 * arguments, guest memory and page tables.
 *
 * A fresh firmware_init per input on 32 MiB of guest RAM laid out as
 * vmm/boot.c does (firmware at 1 MiB, the VMM's reservations and page
 * tables, ACPI tables for 2 CPUs, an image at 16 MiB, an --esp volume
 * of a few files and directories that the image lies on, --tpm's
 * EFI_TCG2_PROTOCOL and its event log). Guest RAM is an anonymous mapping between two PROT_NONE guard
 * pages, reset to zeros per input with madvise(MADV_DONTNEED): a host
 * access past either end of guest RAM faults and counts as a crash.
 *
 * Input format (make-seeds.py has an encoder for it):
 *   mode byte: bit 0  translate through page tables the input builds
 *              bit 1  with 5-level paging (CR4.LA57)
 *              bit 2  a command line (LoadOptions)
 *              bit 3  call trace on (to /dev/null)
 *              bit 4  fault injection: a count byte (mod 4), then that many
 *                     --inject specs, each up to a NUL or 48 bytes, through
 *                     inject_parse (the command-line parser) into the config
 *              bit 5  a trace limit of 600 bytes (else none)
 *              bit 6  no ACPI tables (--no-acpi)
 *              bit 7  an initrd offered through LoadFile2: its size - 1 u16
 *                     follows (the bytes are a fixed pattern)
 *   if bit 4: the specs
 *   if bit 7: the initrd size
 *   if bit 0: page tables (see build_page_tables)
 *   then steps until the input ends, each an op byte:
 *     op % 8 == 0  write: region byte (scratch, page tables, firmware,
 *                  anywhere), offset u16 (u32 for anywhere), length byte,
 *                  the bytes
 *     op % 8 == 1  store: offset u16 into scratch, an argument (see arg)
 *     op % 8 == 2  ExitBootServices(image handle, the current map key)
 *     op % 8 == 3  SetVirtualAddressMap with the firmware's runtime ranges
 *                  moved by a delta: desc-size byte, delta argument
 *     op == 7      fragment the map: count byte, page u16, type byte;
 *                  (count % 64 + 1) * 4 one-page AllocatePages at that page
 *                  and every second page after it, to fill the map to its
 *                  limit (once per input: costly)
 *     op == 15     probe: an argument as address, a length byte (+ 1):
 *                  guest_view_read/_accessible agree with translating
 *                  byte by byte
 *     other 4..7   call: ID u16 (bit 15 set: a real service from the
 *                  table; 0x7fff: a u32 ID follows; else ID mod 512), four
 *                  register arguments, a flags byte (bit 0: RSP is an
 *                  argument, else the firmware stack), four stack
 *                  arguments written at RSP+0x28 through the guest's view
 * After every call the memory map must stay sorted, non-overlapping, page
 * aligned, cover exactly guest RAM and keep the firmware's own pages
 * reserved, and stay frozen after ExitBootServices; every image LoadImage
 * holds must have its pages in the map as code, and the images running
 * must be numbered 1..depth (check_images); with identity views a
 * successful AllocatePages/FreePages/AllocatePool/GetMemoryMap must have
 * done what it says. abort() otherwise.
 *
 * FUZZ_FIRMWARE_TRACE=1 in the environment prints the call trace and the
 * firmware's log on stderr, to see what an input does.
 *
 * Built with FUZZ_FIRMWARE_BITS=32 (fuzz_firmware32), the firmware is an
 * IA-32 one (--firmware-bits 32, firmware-stub/width.h) and every call is
 * cdecl: its arguments (a call's four register arguments, then its four
 * stack ones) are 4-byte slots above the return address at ESP, and mode
 * bit 1 means 32-bit PAE paging instead of 5-level paging. The same inputs
 * mean the same calls, in the other layout, the --esp volume's too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../firmware-stub/acpi.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/guids.h"
#include "../../firmware-stub/esp.h"
#include "../../firmware-stub/tcg2.h"
#include "../../firmware-stub/volume.h"
#include "../../guest/guest_mem.h"
#include "../../guest/layout.h"
#include "../../vmm/x86/x86_setup.h"
#include "fuzz_input.h"
#include "fuzz_harness.h"

#ifndef FUZZ_FIRMWARE_BITS
#define FUZZ_FIRMWARE_BITS 64
#endif
#define IA32 (FUZZ_FIRMWARE_BITS == 32)

#define RAM_SIZE     (32ULL << 20)
#define PAGE         0x1000ULL
#define PT_BASE      GUEST_PML4              /* page-table pool: PT_PAGES pages */
#define PT_PAGES     16
#define SCRATCH      GUEST_VMM_END           /* guest data the input controls */
#define SCRATCH_SIZE 0x10000ULL
#define GUID_AREA    (SCRATCH + SCRATCH_SIZE) /* the known GUIDs, one after the other */
#define STACK_RSP    (GUEST_STACK_TOP - 0x1000)
#define IMAGE_BASE   GUEST_KERNEL_MIN
#define IMAGE_SIZE   0x100000ULL

#define PTE_P  0x1ULL
#define PTE_RW 0x2ULL
#define PTE_PS 0x80ULL
_Static_assert(GUEST_PD == PT_BASE + 2 * PAGE, "the VMM's tables are pages 0-5 of the pool");

static uint8_t *ram;
static FILE *devnull;
static bool verbose;   /* FUZZ_FIRMWARE_TRACE set: trace and log on stderr, to read an input */
static struct firmware fw;
static struct guest_mem gm;

static void setup_once(void)
{
    fuzz_host_once(&ram, RAM_SIZE, &devnull, &verbose, "FUZZ_FIRMWARE_TRACE");
}

#define NGUIDS 16

static const efi_guid_t *known_guid(unsigned i)
{
    static efi_guid_t g[NGUIDS];
    static bool done;
    if (!done) {
        g[0] = GUID_LOADED_IMAGE;
        g[1] = GUID_LOADED_IMAGE_DEVICE_PATH;
        g[2] = GUID_DEVICE_PATH;
        g[3] = GUID_SIMPLE_TEXT_OUTPUT;
        g[4] = GUID_SIMPLE_TEXT_INPUT;
        g[5] = GUID_GLOBAL_VARIABLE;
        g[6] = GUID_ACPI_20_TABLE;
        g[7] = GUID_RNG_PROTOCOL;
        g[8] = GUID_LOAD_FILE2_PROTOCOL;
        g[9] = GUID_LINUX_INITRD_MEDIA;
        g[10] = GUID_RNG_ALGORITHM_RAW;
        g[11] = GUID_SIMPLE_FILE_SYSTEM;
        g[12] = GUID_FILE_INFO;
        g[13] = GUID_FILE_SYSTEM_INFO;
        g[14] = GUID_FILE_SYSTEM_VOLUME_LABEL;
        g[15] = GUID_TCG2_PROTOCOL;
        done = true;
    }
    return &g[i % NGUIDS];
}

/* The --esp volume every input's firmware serves: \EFI\BOOT\BOOTX64.EFI,
 * \loader\entries\a.conf and a file at the root. */
static const struct volume *esp_volume(void)
{
    static struct volume vol;
    if (vol.n)
        return &vol;
    CHECK(volume_init(&vol, 0) == 0);
    long efi = volume_add(&vol, VOLUME_ROOT, u"EFI", 3, true, NULL, 0, 0);
    long boot = volume_add(&vol, (unsigned)efi, u"BOOT", 4, true, NULL, 0, 0);
    long loader = volume_add(&vol, VOLUME_ROOT, u"loader", 6, true, NULL, 0, 0);
    long entries = volume_add(&vol, (unsigned)loader, u"entries", 7, true, NULL, 0, 0);
    CHECK(efi > 0 && boot > 0 && loader > 0 && entries > 0);
    static const char *const files[][2] = { { "BOOTX64.EFI", "MZ" }, { "a.conf", "title a\nlinux /vmlinuz\n" },
                                            { "hello.txt", "hello, world" } };
    const unsigned parent[] = { (unsigned)boot, (unsigned)entries, VOLUME_ROOT };
    for (unsigned i = 0; i < 3; i++) {
        uint16_t name[16];
        unsigned n = 0;
        for (; files[i][0][n]; n++)
            name[n] = (uint8_t)files[i][0][n];
        uint8_t *data = (uint8_t *)strdup(files[i][1]);
        CHECK(data && volume_add(&vol, parent[i], name, n, false, data, strlen(files[i][1]), 0) > 0);
    }
    return &vol;
}

/* The real service IDs (those with a name), for IDs picked from the table. */
static unsigned real_id(unsigned i)
{
    static unsigned ids[FW_MAX_THUNKS];
    static unsigned n;
    if (!n)
        for (unsigned id = 0; id < FW_MAX_THUNKS; id++)
            if (firmware_service_name(id))
                ids[n++] = id;
    return ids[i % n];
}

/* ---- invariants --------------------------------------------------------- */

static uint64_t ram_pages;

/* Not instrumented: walked after every call, its comparisons would only
 * slow the fuzzer down and teach it nothing about the firmware. */
__attribute__((no_sanitize("coverage"))) static void check_map(const struct firmware *f)
{
    const struct memmap *m = &f->map;
    CHECK(m->n >= 1 && m->n <= MEMMAP_MAX_ENTRIES);
    uint64_t pages = 0;
    for (unsigned i = 0; i < m->n; i++) {
        const struct memmap_entry *e = &m->e[i];
        CHECK(!(e->start & (PAGE - 1)));
        CHECK(e->pages > 0 && e->pages <= RAM_SIZE / PAGE);
        uint64_t end = e->start + e->pages * PAGE;
        CHECK(end > e->start && end <= RAM_SIZE);
        if (i + 1 < m->n)
            CHECK(end <= m->e[i + 1].start);   /* sorted, no overlap */
        pages += e->pages;
    }
    CHECK(pages == ram_pages);               /* the map still covers exactly guest RAM */
    CHECK(memmap_type_at(m, GUEST_FIRMWARE_BASE + FW_RT_CODE_OFFSET) == EFI_RUNTIME_SERVICES_CODE);
    CHECK(memmap_type_at(m, GUEST_FIRMWARE_BASE + FW_RT_DATA_OFFSET) == EFI_RUNTIME_SERVICES_DATA);
    CHECK(memmap_type_at(m, IMAGE_BASE) == EFI_LOADER_CODE);
    CHECK(f->npools <= FW_MAX_POOLS && f->nprotocols <= FW_MAX_PROTOCOLS);
}

/* The images LoadImage made: each one's pages of a code type in the map,
 * and the ones StartImage entered and that have not exited numbered
 * 1..depth, once each. */
__attribute__((no_sanitize("coverage"))) static void check_images(const struct firmware *f)
{
    CHECK(f->nimages <= FW_MAX_IMAGES);
    unsigned running = 0;
    for (unsigned i = 0; i < f->nimages; i++) {
        const struct fw_image *img = &f->images[i];
        int first = memmap_type_at(&f->map, img->base);
        int last = memmap_type_at(&f->map, img->base + img->pages * PAGE - 1);
        CHECK(img->pages && first == last &&
              (first == EFI_LOADER_CODE || first == EFI_BOOT_SERVICES_CODE || first == EFI_RUNTIME_SERVICES_CODE));
        CHECK(img->depth <= f->depth && (!img->depth || img->started));
        for (unsigned j = 0; img->depth && j < i; j++)
            CHECK(f->images[j].depth != img->depth);
        running += img->depth > 0;
    }
    CHECK(running == f->depth);
}

/* ---- arguments ---------------------------------------------------------- */

static uint64_t fw_address(unsigned i)
{
    const uint64_t a[] = {
        fw.systab, fw.bs, fw.rt, fw.config_tables, fw.vendor, fw.con_out, fw.con_in,
        fw.loaded_image, fw.image_device_path, firmware_thunk(&fw, 0), fw.cfg.base + FW_REGION_SIZE - 8,
        fw.cfg.base + 0x3000, /* LoadOptions */
        fw.initrd_lf2, fw.initrd_dp, fw.rng,
    };
    return a[i % (sizeof(a) / sizeof(a[0]))];
}

static uint64_t constant(unsigned i)
{
    static const uint64_t c[] = {
        GUEST_HIGH_START, GUEST_HOLE_START, 1ULL << 63, 1ULL << 52, 1ULL << 40, 0x1000, 0xfff, 48, 40,
        EFI_MEMORY_DESCRIPTOR_VERSION, 0x80000000, RAM_SIZE, RAM_SIZE / 2, 0x7, 0x6, 0x70000000, 0xffffffff,
        (1ULL << 32) - 0x1000, 0x8000000000000000ULL | 5, UINT64_MAX - 0xfff,
    };
    return c[i % (sizeof(c) / sizeof(c[0]))];
}

/* An argument value, biased toward what a firmware call cares about. */
static uint64_t arg(struct fuzz_in *in)
{
    uint8_t s = in_u8(in);
    switch (s & 15) {
    case 0: return 0;
    case 1: return UINT64_MAX;
    case 2: return in_u8(in);
    case 3: return SCRATCH + in_u16(in) % SCRATCH_SIZE;
    case 4: return in_u16(in) * 16ULL;                     /* small offset into RAM */
    case 5: return RAM_SIZE - in_u8(in);                   /* the end of RAM */
    case 6: return fw.systab + in_u8(in);
    case 7: {
        uint64_t h[] = { fw.image_handle, fw.con_out_handle, fw.con_in_handle, fw.initrd_handle, fw.rng_handle };
        return h[(s >> 4) % 5];
    }
    case 8: return fw.map.key + (s >> 4) - (s >> 4 ? 8 : 0);  /* the current key, or near it */
    case 9: return in_u64(in);
    case 10: return fw_address(s >> 4);
    case 11: return in_u32(in);
    case 12: return GUID_AREA + 16ULL * ((s >> 4) % NGUIDS);
    case 13: { /* a value the guest (or a previous call) left in scratch */
        uint64_t v;
        memcpy(&v, ram + SCRATCH + in_u16(in) % (SCRATCH_SIZE - 7), 8);
        return v;
    }
    case 14: return constant(s >> 4);
    default: return PT_BASE + in_u16(in) % (PT_PAGES * PAGE);
    }
}

/* ---- page tables -------------------------------------------------------- */

static uint64_t *pt_page(unsigned i) { return (uint64_t *)(ram + PT_BASE + (i % PT_PAGES) * PAGE); }

/* The default tables are the VMM's own (x86_setup_page_tables, built for
 * every input as vmm_load does): page 0 of the pool is its PML4, page 1
 * its PDPT, pages 2-5 the page directories identity-mapping 4 GiB with
 * 2 MiB pages; page 15 is made a PML5 over the PML4 for 5-level paging.
 * Then count records change entries: page byte, entry u16 (mod 512), kind
 * byte and its value:
 *   kind % 5: 0 pointer to page (byte) | flags u16 | P
 *             1 leaf: page frame u16 << 12 | flags u16 | P
 *             2 raw u64
 *             3 not present
 *             4 fill the whole page: kind bit 7 leaves (2 MiB | PS at
 *               byte << 21, stepping by 2 MiB if kind bit 6) else
 *               pointers to page (byte)
 * and a CR3 byte: 0 the default root, else page (byte - 1). */
static uint64_t build_page_tables(struct fuzz_in *in, bool la57)
{
    uint64_t pt = PT_BASE;
    pt_page(15)[0] = pt | PTE_P | PTE_RW;

    unsigned count = in_u8(in) % 65;
    for (unsigned r = 0; r < count; r++) {
        uint64_t *page = pt_page(in_u8(in));
        unsigned idx = in_u16(in) % 512;
        uint8_t kind = in_u8(in);
        uint64_t v;
        switch (kind % 5) {
        case 0:
            v = pt + (in_u8(in) % PT_PAGES) * PAGE;
            v |= (in_u16(in) & 0xfff) | PTE_P;
            break;
        case 1:
            v = (uint64_t)in_u16(in) << 12;
            v |= (in_u16(in) & 0xfff) | PTE_P;
            break;
        case 2: v = in_u64(in); break;
        case 3: v = 0; break;
        default: {
            bool leaf = kind & 0x80;
            uint64_t first = leaf ? ((uint64_t)in_u8(in) << 21) | PTE_P | PTE_PS
                                  : (pt + (in_u8(in) % PT_PAGES) * PAGE) | PTE_P;
            for (unsigned i = 0; i < 512; i++)
                page[i] = leaf && (kind & 0x40) ? first + ((uint64_t)i << 21) : first;
            continue;
        }
        }
        page[idx] = v;
    }
    uint8_t root = in_u8(in);
    if (!root)
        return pt + (la57 ? 15 : 0) * PAGE;
    return pt + ((root - 1u) % PT_PAGES) * PAGE;
}

/* ---- fault injection ---------------------------------------------------- */

static void parse_injections(struct fuzz_in *in, struct inject *inj)
{
    unsigned count = in_u8(in) % 4;
    for (unsigned i = 0; i < count; i++) {
        char spec[49], err[256];
        size_t n = 0;
        while (n < sizeof(spec) - 1 && in->n && (spec[n] = (char)in_u8(in)))
            n++;
        spec[n] = 0;
        memset(err, 'x', sizeof(err));
        if (inject_parse(inj, spec, err, sizeof(err)))
            CHECK(memchr(err, 0, sizeof(err)) && err[0]);
    }
}

/* ---- steps -------------------------------------------------------------- */

static void op_write(struct fuzz_in *in)
{
    uint8_t region = in_u8(in);
    uint64_t base, size;
    switch (region % 4) {
    case 0: base = SCRATCH; size = SCRATCH_SIZE; break;
    case 1: base = PT_BASE; size = PT_PAGES * PAGE; break;
    case 2: base = GUEST_FIRMWARE_BASE; size = FW_REGION_SIZE; break;
    default: base = 0; size = RAM_SIZE; break;
    }
    uint64_t off = (region % 4 == 3 ? in_u32(in) : in_u16(in)) % size;
    uint64_t len = in_u8(in);
    if (len > size - off)
        len = size - off;
    in_bytes(in, ram + base + off, (size_t)len);
}

static void op_store(struct fuzz_in *in)
{
    uint64_t off = in_u16(in) % (SCRATCH_SIZE - 7);
    uint64_t v = arg(in);
    memcpy(ram + SCRATCH + off, &v, 8);
}

/* ---- what a successful call promises ------------------------------------ */

/* The map as ExitBootServices left it: nothing may change it afterwards. */
static struct memmap frozen;
static bool frozen_valid;

static bool pages_of_type(uint64_t addr, uint64_t pages, uint32_t type)
{
    for (uint64_t i = 0; i < pages; i++)
        if ((uint32_t)memmap_type_at(&fw.map, addr + i * PAGE) != type)
            return false;
    return true;
}

/* A UINTN or pointer output, as wide as the firmware's. */
static bool read_uintn(const struct guest_view *v, uint64_t addr, uint64_t *val)
{
    uint32_t w;
    if (!IA32)
        return guest_view_read_u64(v, addr, val);
    if (!guest_view_read(v, addr, &w, 4))
        return false;
    *val = w;
    return true;
}

static bool overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return a < b + blen && b < a + alen;
}

/* Checked with identity views only: through hostile tables a write may
 * land in the very tables that translate it, so reading it back need not
 * give what was written. a: the call's arguments as placed (place_args). */
static void check_result(unsigned id, const struct guest_view *v, const uint64_t *a, uint64_t before, efi_status_t st)
{
    uint64_t val, w = IA32 ? 4 : 8;
    if (st != EFI_SUCCESS || v->cr3)
        return;
    switch (id) {
    case FW_ID_BS(BS_ALLOCATE_PAGES):   /* AllocatePages(Type, MemoryType, Pages, *Memory) */
        CHECK(guest_view_read_u64(v, a[3], &val));
        CHECK(!(val & (PAGE - 1)) && a[2] >= 1 && a[2] <= RAM_SIZE / PAGE);
        CHECK(pages_of_type(val, a[2], (uint32_t)a[1]));
        if (a[0] == EFI_ALLOCATE_ADDRESS)
            CHECK(val == before);
        if (a[0] == EFI_ALLOCATE_MAX_ADDRESS)
            CHECK(val + a[2] * PAGE - 1 <= before);
        break;
    case FW_ID_BS(BS_FREE_PAGES):   /* FreePages(Memory, Pages): an IA-32 Memory takes two slots */
        if (IA32)
            CHECK(pages_of_type(a[0] | a[1] << 32, a[2], EFI_CONVENTIONAL_MEMORY));
        else
            CHECK(pages_of_type(a[0], a[1], EFI_CONVENTIONAL_MEMORY));
        break;
    case FW_ID_BS(BS_GET_MEMORY_MAP): { /* GetMemoryMap(*MapSize, Map, *MapKey, *DescriptorSize, *DescriptorVersion) */
        /* Outputs that overlap overwrite each other: nothing to compare. */
        uint64_t size_p = a[0], map = a[1], key_p = a[2], dsize = a[3], dver = a[4], map_len = fw.map.n * 48ULL;
        if (overlap(size_p, w, map, map_len) || (key_p && overlap(key_p, w, map, map_len)) ||
            (key_p && overlap(key_p, w, size_p, w)) || (dsize && overlap(dsize, w, map, map_len)) ||
            (dsize && (overlap(dsize, w, size_p, w) || (key_p && overlap(dsize, w, key_p, w)))) ||
            (dver && (overlap(dver, 4, map, map_len) || overlap(dver, 4, size_p, w) ||
                      (key_p && overlap(dver, 4, key_p, w)))))
            break;
        CHECK(read_uintn(v, size_p, &val) && val == map_len);
        if (key_p)
            CHECK(read_uintn(v, key_p, &val) && val == fw.map.key);
        for (unsigned i = 0; i < fw.map.n; i++) {
            struct efi_memory_descriptor d;
            CHECK(guest_view_read(v, map + 48ULL * i, &d, sizeof(d)));
            const struct memmap_entry *e = &fw.map.e[i];
            CHECK(d.type == e->type && d.physical_start == e->start && d.number_of_pages == e->pages &&
                  d.attribute == e->attribute);
        }
        break;
    }
    case FW_ID_BS(BS_ALLOCATE_POOL):   /* AllocatePool(PoolType, Size, *Buffer) */
        CHECK(read_uintn(v, a[2], &val));
        CHECK(pages_of_type(val, a[1] ? (a[1] + PAGE - 1) / PAGE : 1, (uint32_t)a[0]));
        break;
    case FW_ID_BS(BS_EXIT_BOOT_SERVICES):  /* ExitBootServices */
        CHECK(fw.phase == FW_PHASE_RUNTIME);
        break;
    default:
        break;
    }
}

static void call(unsigned id, const struct fw_call *c, const uint64_t *a)
{
    uint64_t before = 0;
    if (id == FW_ID_BS(BS_ALLOCATE_PAGES))
        (void)guest_view_read_u64(&c->view, a[3], &before);
    enum fw_phase phase = fw.phase;
    efi_status_t st = firmware_call(&fw, id, c);
    check_map(&fw);
    check_images(&fw);
    check_result(id, &c->view, a, before, st);
    if (phase == FW_PHASE_BOOT && fw.phase == FW_PHASE_RUNTIME) {
        frozen = fw.map;
        frozen_valid = true;
    } else if (frozen_valid) {
        /* After ExitBootServices the map is the kernel's: frozen. */
        CHECK(fw.phase == FW_PHASE_RUNTIME);
        CHECK(fw.map.n == frozen.n && fw.map.key == frozen.key &&
              !memcmp(fw.map.e, frozen.e, fw.map.n * sizeof(fw.map.e[0])));
    }
}

#define NARGS 8

/* A call with its arguments a[0..n) where the firmware's width takes
 * them: x64, the first four in RCX, RDX, R8 and R9 and the rest at
 * RSP+0x28...; IA-32, each a 4-byte slot above the return address at
 * ESP (a UINT64 argument takes two, as the guest splits it). Each stack
 * argument as far as the view lets it be written. */
static struct fw_call place_args(const struct guest_view *v, uint64_t rsp, uint64_t *a, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (IA32) {
            uint32_t slot = (uint32_t)a[i];
            a[i] = slot;
            (void)guest_view_write(v, (uint32_t)rsp + 4 + 4ULL * i, &slot, 4);
        } else if (i >= 4) {
            (void)guest_view_write_u64(v, rsp + 0x28 + 8ULL * (i - 4), a[i]);
        }
    }
    return (struct fw_call){ a[0], a[1], a[2], a[3], rsp, *v, { 0 } };
}

static void op_ebs(const struct guest_view *v)
{
    uint64_t a[NARGS] = { fw.image_handle, fw.map.key };
    struct fw_call c = place_args(v, STACK_RSP, a, 2);
    call(FW_ID_BS(BS_EXIT_BOOT_SERVICES), &c, a);
}

/* The kernel's SetVirtualAddressMap: the runtime descriptors of the memory
 * map with a virtual address, at the scratch area. */
static void op_svam(struct fuzz_in *in, const struct guest_view *v)
{
    uint64_t dsize = in_u8(in) & 1 ? 48 : sizeof(struct efi_memory_descriptor);
    uint64_t delta = arg(in);
    uint64_t n = 0;
    for (unsigned i = 0; i < fw.map.n && (n + 1) * dsize <= SCRATCH_SIZE; i++) {
        const struct memmap_entry *e = &fw.map.e[i];
        if (!(e->attribute & EFI_MEMORY_RUNTIME))
            continue;
        struct efi_memory_descriptor d = { e->type, 0, e->start, e->start + delta, e->pages, e->attribute };
        memcpy(ram + SCRATCH + n * dsize, &d, sizeof(d));
        n++;
    }
    uint64_t a[NARGS] = { n * dsize, dsize, EFI_MEMORY_DESCRIPTOR_VERSION, SCRATCH };
    struct fw_call c = place_args(v, STACK_RSP, a, 4);
    call(FW_ID_RT(RT_SET_VIRTUAL_ADDRESS_MAP), &c, a);
}

/* One of these per input, and the map checked once at the end: hundreds
 * of calls each, they would otherwise slow the fuzzer down. */
static unsigned fragments;

static void op_fragment(struct fuzz_in *in, const struct guest_view *v)
{
    unsigned count = (in_u8(in) % 64 + 1u) * 4;
    uint64_t page = in_u16(in);
    uint64_t type = in_u8(in) & 1 ? EFI_LOADER_DATA : EFI_BOOT_SERVICES_DATA;
    uint64_t slot = SCRATCH + SCRATCH_SIZE - 8;
    if (++fragments > 1)
        return;
    for (unsigned i = 0; i < count; i++) {
        if (!guest_view_write_u64(v, slot, (page + 2 * i) * PAGE % RAM_SIZE))
            break;
        uint64_t a[NARGS] = { EFI_ALLOCATE_ADDRESS, type, 1, slot };
        struct fw_call c = place_args(v, STACK_RSP, a, 4);
        (void)firmware_call(&fw, FW_ID_BS(BS_ALLOCATE_PAGES), &c);
    }
    check_map(&fw);
}

/* guest_view_read and _accessible agree with translating byte by byte. */
static void op_probe(struct fuzz_in *in, const struct guest_view *v)
{
    uint64_t va = arg(in);
    unsigned len = in_u8(in) + 1u;
    uint8_t whole[256], bytes[256];
    bool ok = va + len - 1 >= va;   /* a range wrapping past 2^64 is refused */
    for (unsigned i = 0; ok && i < len; i++) {
        uint64_t pa;
        ok = guest_view_translate(v, va + i, &pa) && guest_mem_read(&gm, pa, &bytes[i], 1);
    }
    CHECK(guest_view_accessible(v, va, len) == ok);
    CHECK(guest_view_read(v, va, whole, len) == ok);
    if (ok)
        CHECK(!memcmp(whole, bytes, len));
}

static void op_call(struct fuzz_in *in, const struct guest_view *v)
{
    uint16_t raw = in_u16(in);
    unsigned id = raw & 0x8000 ? real_id(raw & 0x7fff) : raw == 0x7fff ? in_u32(in) : raw % 512u;
    uint64_t a[NARGS], rsp = STACK_RSP;
    for (unsigned i = 0; i < 4; i++)
        a[i] = arg(in);
    if (in_u8(in) & 1)
        rsp = arg(in);
    for (unsigned i = 4; i < NARGS; i++)
        a[i] = arg(in);
    struct fw_call c = place_args(v, rsp, a, NARGS);
    call(id, &c, a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup_once();
    if (madvise(ram, RAM_SIZE, MADV_DONTNEED))
        abort();
    struct fuzz_in in = { data, size };
    uint8_t mode = in_u8(&in);

    guest_mem_init(&gm, ram, RAM_SIZE);
    struct fw_config cfg = {
        .base = GUEST_FIRMWARE_BASE, .image_base = IMAGE_BASE, .image_size = IMAGE_SIZE,
        .cmdline = mode & 4 ? "console=ttyS0 earlyprintk=serial" : NULL,
        .console = devnull, .log = verbose ? stderr : devnull,
        .trace = verbose ? stderr : mode & 8 ? devnull : NULL, .bits = FUZZ_FIRMWARE_BITS,
    };
    cfg.trace_limit = mode & 0x20 ? 600 : UINT64_MAX;
    cfg.seeded = true;   /* EFI_RNG_PROTOCOL deterministic: an input does the same each time */
    cfg.seed = 1;
    if (mode & 0x10)
        parse_injections(&in, &cfg.inject);
    if (mode & 0x80) {
        static uint8_t initrd[0x10000];
        if (!initrd[1])
            for (size_t i = 0; i < sizeof(initrd); i++)
                initrd[i] = (uint8_t)(i * 7 + 1);
        cfg.initrd = initrd;
        cfg.initrd_size = in_u16(&in) + 1u;
    }
    CHECK(firmware_init(&fw, &gm, &cfg) == 0);
    /* What vmm_load reserves around the firmware, and the image. */
    CHECK(memmap_reserve(&fw.map, GUEST_LOW_RAM_END, (GUEST_LEGACY_END - GUEST_LOW_RAM_END) / PAGE,
                         EFI_RESERVED_MEMORY_TYPE) == EFI_SUCCESS);
    CHECK(memmap_reserve(&fw.map, GUEST_FIRMWARE_BASE + FW_REGION_SIZE,
                         (GUEST_VMM_END - GUEST_FIRMWARE_BASE - FW_REGION_SIZE) / PAGE,
                         EFI_BOOT_SERVICES_DATA) == EFI_SUCCESS);
    CHECK(x86_setup_page_tables(&gm) == 4);
    if (!(mode & 0x40))
        CHECK(firmware_install_acpi(&fw, 2, false, false) != 0);
    CHECK(memmap_reserve(&fw.map, IMAGE_BASE, IMAGE_SIZE / PAGE, EFI_LOADER_CODE) == EFI_SUCCESS);
    firmware_set_image(&fw, IMAGE_BASE, IMAGE_SIZE);
    /* An IA-32 firmware refuses the TPM (served in the x64 layout only):
     * its thunks, called anyway, serve nothing. */
    CHECK(firmware_attach_esp(&fw, esp_volume(), "EFI/BOOT/BOOTX64.EFI") == 0);
    CHECK(firmware_install_tcg2(&fw) == (IA32 ? -1 : 0));
    ram_pages = RAM_SIZE / PAGE;
    check_map(&fw);
    for (unsigned i = 0; i < NGUIDS; i++)
        memcpy(ram + GUID_AREA + 16 * i, known_guid(i), 16);

    fragments = 0;
    frozen_valid = false;
    struct guest_view view = { &gm, 0, false, false, false, false };
    if (mode & 1) {
        view.la57 = !IA32 && (mode & 2);
        view.pae32 = IA32 && (mode & 2);
        view.cr3 = build_page_tables(&in, view.la57);
    }

    while (in.n) {
        uint8_t op = in_u8(&in);
        switch (op % 8) {
        case 0: op_write(&in); break;
        case 1: op_store(&in); break;
        case 2: op_ebs(&view); break;
        case 3: op_svam(&in, &view); break;
        case 7:
            if (op == 7) {   /* costly: only the exact byte, not every op % 8 == 7 */
                op_fragment(&in, &view);
                break;
            }
            if (op == 0x0f) {
                op_probe(&in, &view);
                break;
            }
            /* fall through */
        default: op_call(&in, &view); break;
        }
    }
    firmware_free(&fw);
    return 0;
}
