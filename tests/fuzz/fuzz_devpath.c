/* libFuzzer harness for device paths as the firmware takes them from a
 * guest: fw_device_path_copy (the node-by-node host copy every device-path
 * service makes), LocateDevicePath, and LoadImage's DevicePath, which
 * becomes the image's LOADED_IMAGE_DEVICE_PATH and, split at the longest
 * installed prefix, its DeviceHandle and FilePath (firmware-stub/image.c,
 * protocols.c, handles.c). Device paths are installed on handles with
 * InstallProtocolInterface and InstallMultipleProtocolInterfaces and
 * removed with UninstallProtocolInterface, all through firmware_call.
 *
 * A fresh firmware_init per input on 16 MiB of guest RAM (identity view),
 * an anonymous mapping between two PROT_NONE guard pages, so a host access
 * past either end of guest RAM faults. SCRATCH (64 KiB, reserved as
 * LoaderData) holds what the input writes; APP after it a small relocatable
 * PE32+ application LoadImage accepts.
 *
 * Input format (make-seeds.py has an encoder for it):
 *   mode byte: bit 0 an initrd (its VenMedia device path and LoadFile2 on
 *              a handle of their own); bit 1 call trace on (to /dev/null)
 *   then steps until the input ends, each an op byte, op % 8:
 *     0  write: offset u16 into scratch, length byte, the bytes
 *     1  path: offset u16 into scratch, a node count byte (low 4 bits),
 *        each node a type byte, a subtype byte, a data length byte and
 *        the data (its Length field 4 + that); count bit 4: no end node,
 *        bit 5: the last node's Length is a raw u16 that follows, bit 6:
 *        an end-instance node (7f/01) between nodes
 *     2  copy: an address (see addr); fw_device_path_copy must agree with
 *        a reference walk over guest RAM
 *     3  install: an address, a handle choice byte, a kind byte (bit 0:
 *        InstallMultipleProtocolInterfaces with a second GUID after it)
 *     4  LocateDevicePath: a GUID choice byte, an address
 *     5  LoadImage: a flags byte (bit 0 no device path, bit 1 a bogus
 *        parent, bit 2 a loaded image as parent, bit 3 source in scratch
 *        of u16 size), an address
 *     6  UnloadImage: a choice byte among the loaded images (or junk)
 *     7  UninstallProtocolInterface of a device path: a choice byte among
 *        the installed ones
 *   addr: a kind byte, % 4: 0 scratch + u16, 1 RAM end - byte, 2 the
 *     initrd's path, 3 RAM end + u64 (outside RAM, or wrapped)
 * Guest-written paths live only in memory the firmware never allocates
 * (scratch and the last page of RAM are reserved), so a path reads the
 * same before and after a call.
 * After every call the handle database stays within its bounds; what a
 * successful LocateDevicePath or LoadImage reports is checked against a
 * reference search over the installed device paths. abort() otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/guids.h"
#include "../../firmware-stub/handles.h"
#include "../../firmware-stub/image.h"
#include "../../firmware-stub/pe.h"
#include "../../guest/guest_mem.h"
#include "../../guest/layout.h"
#include "fuzz_input.h"
#include "fuzz_harness.h"

#define RAM_SIZE     (16ULL << 20)
#define PAGE         0x1000ULL
#define SCRATCH      GUEST_VMM_END
#define SCRATCH_SIZE 0x10000ULL
#define APP          (SCRATCH + SCRATCH_SIZE)
#define APP_SIZE     0x600ULL
#define IMAGE_BASE   0x800000ULL             /* the top-level image, as the VMM placed it */
#define SLOTS        (APP + APP_SIZE)        /* GUIDs, *DevicePath, *Handle, the stack */
#define GUID_SLOT(i) (SLOTS + 16ULL * (i))
#define NGUIDS       4
#define DP_SLOT      (SLOTS + 0x100)
#define HANDLE_SLOT  (SLOTS + 0x108)
#define STACK_RSP    (SLOTS + 0x200)
#define INFO_DEVICE_PATH 0x100              /* image.c: the info page's layout */
#define INFO_FILE_PATH   0x600
#define END_LEN      4

static uint8_t *ram;
static FILE *devnull;
static bool verbose;   /* FUZZ_DEVPATH_TRACE set: each call and its status on stderr */
static struct firmware fw;
static struct guest_mem gm;
static struct guest_view view;

static void setup_once(void)
{
    fuzz_host_once(&ram, RAM_SIZE, &devnull, &verbose, "FUZZ_DEVPATH_TRACE");
}

static const efi_guid_t *guid(unsigned i)
{
    static efi_guid_t g[NGUIDS];
    static bool done;
    if (!done) {
        done = true;
        g[0] = GUID_DEVICE_PATH;
        g[1] = GUID_LOAD_FILE2_PROTOCOL;
        g[2] = GUID_LOADED_IMAGE;
        g[3] = GUID_RNG_PROTOCOL;
    }
    return &g[i % NGUIDS];
}

/* The PE32+ application of tests/unit/test_fw_image.c (build_app): .text
 * with a DIR64 target, .reloc; ImageBase where it will not load. */
static void put_app(uint8_t *f)
{
    memset(f, 0, APP_SIZE);
    f[0] = 'M', f[1] = 'Z';
    f[0x3c] = 0x40;
    memcpy(f + 0x40, "PE\0\0", 4);
    uint8_t *coff = f + 0x44, *o = f + 0x58;
    memcpy(coff, &(uint16_t){ 0x8664 }, 2);
    coff[2] = 2;
    coff[16] = 240;
    coff[18] = 0x22;
    memcpy(o, &(uint16_t){ 0x20b }, 2);
    memcpy(o + 16, &(uint32_t){ 0x1000 }, 4);
    memcpy(o + 24, &(uint64_t){ 0x10000000ULL }, 8);
    memcpy(o + 32, &(uint32_t){ 0x1000 }, 4);
    memcpy(o + 36, &(uint32_t){ 0x200 }, 4);
    memcpy(o + 56, &(uint32_t){ 0x3000 }, 4);
    memcpy(o + 60, &(uint32_t){ 0x200 }, 4);
    o[68] = PE_SUBSYSTEM_EFI_APPLICATION;
    o[108] = 16;
    memcpy(o + 112 + 8 * 5, &(uint32_t[]){ 0x2000, 12 }, 8);
    const struct { const char *name; uint32_t va, raw, flags; } s[2] = {
        { ".text", 0x1000, 0x200, 0x60000020 }, { ".reloc", 0x2000, 0x400, 0x42000040 } };
    for (unsigned i = 0; i < 2; i++) {
        uint8_t *sh = f + 0x40 + 24 + 240 + 40 * i;
        memcpy(sh, s[i].name, strlen(s[i].name));
        memcpy(sh + 8, &(uint32_t){ 0x200 }, 4);
        memcpy(sh + 12, &s[i].va, 4);
        memcpy(sh + 16, &(uint32_t){ 0x200 }, 4);
        memcpy(sh + 20, &s[i].raw, 4);
        memcpy(sh + 36, &s[i].flags, 4);
    }
    memcpy(f + 0x210, &(uint64_t){ 0x10001000ULL }, 8);
    memcpy(f + 0x400, &(uint32_t[]){ 0x1000, 12 }, 8);
    memcpy(f + 0x408, &(uint16_t[]){ PE_REL_BASED_DIR64 << 12 | 0x10, 0 }, 4);
}

/* ---- the reference ------------------------------------------------------ */

/* What UEFI 2.10 section 10.2 and handles.h's FW_DEVICE_PATH_MAX make of
 * the bytes at dp in guest RAM: the bytes before the end-entire node, each
 * node at least its 4-byte header and all of them ending before
 * FW_DEVICE_PATH_MAX; -1 otherwise, and for NULL, which is no path. */
static long ref_path(uint64_t dp)
{
    uint64_t off = 0;
    while (dp && off < FW_DEVICE_PATH_MAX) {
        if (dp > RAM_SIZE || RAM_SIZE - dp < off + END_LEN)
            return -1;
        const uint8_t *h = ram + dp + off;
        unsigned len = h[2] | h[3] << 8;
        if (h[0] == EFI_DEV_END_PATH && h[1] == EFI_DEV_END_ENTIRE)
            return (long)off;
        if (len < END_LEN || off + len >= FW_DEVICE_PATH_MAX || RAM_SIZE - dp < off + len)
            return -1;
        off += len;
    }
    return -1;
}

/* Does the path (len bytes before its end node) start with whole nodes
 * making up exactly prefix bytes? */
static bool node_boundary(const uint8_t *p, long len, long prefix)
{
    long off = 0;
    while (off < prefix && off < len)
        off += p[off + 2] | p[off + 3] << 8;
    return off == prefix;
}

/* The longest installed device path (on a handle that also has protocol
 * g) that is a prefix of path: its length, and the handles whose path is
 * that (several may be: ties); -1 if none. */
struct ties {
    unsigned n;
    uint64_t handle[FW_MAX_PROTOCOLS];
};

static bool tied(const struct ties *t, uint64_t handle)
{
    for (unsigned i = 0; i < t->n; i++)
        if (t->handle[i] == handle)
            return true;
    return false;
}

static long ref_locate(const efi_guid_t *g, const uint8_t *path, long want, struct ties *t)
{
    long best = -1;
    t->n = 0;
    for (unsigned i = 0; i < fw.nprotocols; i++) {
        const struct fw_handle_protocol *p = &fw.protocols[i];
        if (!guid_equal(&p->guid, &GUID_DEVICE_PATH))
            continue;
        bool has = false;
        for (unsigned j = 0; j < fw.nprotocols; j++)
            has |= fw.protocols[j].handle == p->handle && guid_equal(&fw.protocols[j].guid, g);
        long len = ref_path(p->interface);
        if (!has || len < 0 || len > want || len < best || memcmp(ram + p->interface, path, (size_t)len))
            continue;
        if (len > best)
            t->n = 0;
        best = len;
        t->handle[t->n++] = p->handle;
    }
    return best;
}

/* ---- invariants --------------------------------------------------------- */

static uint64_t rd64(uint64_t a)
{
    uint64_t v;
    CHECK(a <= RAM_SIZE - 8);
    memcpy(&v, ram + a, 8);
    return v;
}

static uint64_t interface_of(uint64_t handle, const efi_guid_t *g)
{
    for (unsigned i = 0; i < fw.nprotocols; i++)
        if (fw.protocols[i].handle == handle && guid_equal(&fw.protocols[i].guid, g))
            return fw.protocols[i].interface;
    return 0;
}

static void check_db(void)
{
    CHECK(fw.nprotocols <= FW_MAX_PROTOCOLS && fw.nimages <= FW_MAX_IMAGES && fw.npools <= FW_MAX_POOLS);
    CHECK(fw.ndyn_handles <= FW_MAX_DYN_HANDLES);
    for (unsigned i = 0; i < fw.nimages; i++) {
        const struct fw_image *img = &fw.images[i];
        CHECK(img->handle && interface_of(img->handle, &GUID_LOADED_IMAGE) == img->info);
        CHECK(img->info && !(img->info & (PAGE - 1)) && img->info <= RAM_SIZE - PAGE);
        CHECK(memmap_type_at(&fw.map, img->base) != EFI_CONVENTIONAL_MEMORY);
    }
}

/* ---- steps -------------------------------------------------------------- */

static uint64_t addr(struct fuzz_in *in)
{
    uint8_t k = in_u8(in);
    switch (k % 4) {
    case 0: return SCRATCH + in_u16(in) % SCRATCH_SIZE;
    case 1: return RAM_SIZE - in_u8(in);
    case 2: return fw.initrd_dp ? fw.initrd_dp : SCRATCH;
    default: return RAM_SIZE + in_u64(in);
    }
}

static efi_status_t call(unsigned service, uint64_t rcx, uint64_t rdx, uint64_t r8, uint64_t r9,
                         const uint64_t *stack, unsigned nstack)
{
    for (unsigned i = 0; i < nstack; i++)
        memcpy(ram + STACK_RSP + 0x28 + 8 * i, &stack[i], 8);
    struct fw_call c = { rcx, rdx, r8, r9, STACK_RSP, view, { 0 } };
    efi_status_t st = firmware_call(&fw, FW_ID_BS(service), &c);
    if (verbose)
        fprintf(stderr, "%s(0x%llx, 0x%llx, 0x%llx, 0x%llx) = %s\n", firmware_service_name(FW_ID_BS(service)),
                (unsigned long long)rcx, (unsigned long long)rdx, (unsigned long long)r8, (unsigned long long)r9,
                efi_status_name(st));
    check_db();
    return st;
}

static void op_write(struct fuzz_in *in)
{
    uint64_t off = in_u16(in) % SCRATCH_SIZE, len = in_u8(in);
    if (len > SCRATCH_SIZE - off)
        len = SCRATCH_SIZE - off;
    in_bytes(in, ram + SCRATCH + off, (size_t)len);
}

static void op_path(struct fuzz_in *in)
{
    uint64_t off = in_u16(in) % SCRATCH_SIZE;
    uint8_t count = in_u8(in);
    uint8_t *p = ram + SCRATCH + off, *end = ram + SCRATCH + SCRATCH_SIZE;
    for (unsigned i = 0; i < (count & 15u); i++) {
        uint8_t type = in_u8(in), sub = in_u8(in), dlen = in_u8(in);
        uint16_t len = (uint16_t)(END_LEN + dlen);
        if ((count & 0x20) && i + 1 == (count & 15u))
            len = in_u16(in);
        if (end - p < END_LEN + dlen)
            return;
        p[0] = type, p[1] = sub, p[2] = (uint8_t)len, p[3] = (uint8_t)(len >> 8);
        in_bytes(in, p + END_LEN, dlen);
        p += END_LEN + dlen;
        if ((count & 0x40) && i == 0 && end - p >= END_LEN) {
            p[0] = EFI_DEV_END_PATH, p[1] = 0x01, p[2] = END_LEN, p[3] = 0;
            p += END_LEN;
        }
    }
    if (!(count & 0x10) && end - p >= END_LEN)
        p[0] = EFI_DEV_END_PATH, p[1] = EFI_DEV_END_ENTIRE, p[2] = END_LEN, p[3] = 0;
}

static void op_copy(struct fuzz_in *in)
{
    uint64_t dp = addr(in);
    uint8_t out[FW_DEVICE_PATH_SIZE], zero[FW_DEVICE_PATH_SIZE] = { 0 };
    memset(out, 0xa5, sizeof(out));
    long len = fw_device_path_copy(&view, dp, out);
    CHECK(len == ref_path(dp));
    if (len < 0)
        return;
    /* The path and its end node as the guest wrote them, zeros after. */
    CHECK(len < FW_DEVICE_PATH_MAX && !memcmp(out, ram + dp, (size_t)len + END_LEN));
    CHECK(!memcmp(out + len + END_LEN, zero, sizeof(out) - (size_t)len - END_LEN));
    CHECK(node_boundary(out, len, len));
}

static uint64_t pick_handle(uint8_t c)
{
    switch (c % 4) {
    case 0: return 0;   /* a new handle */
    case 1: return fw.image_handle;
    case 2: return fw.nprotocols ? fw.protocols[(c >> 2) % fw.nprotocols].handle : 0;
    default: return 0x4242;   /* no handle */
    }
}

static void op_install(struct fuzz_in *in)
{
    uint64_t dp = addr(in);
    uint64_t handle = pick_handle(in_u8(in));
    uint8_t kind = in_u8(in);
    memcpy(ram + HANDLE_SLOT, &handle, 8);
    long len = ref_path(dp);
    unsigned before = fw.nprotocols;
    efi_status_t st;
    if (kind & 1) {
        uint64_t stack[3] = { GUID_SLOT(1 + (kind >> 1) % 3), 0x1234000, 0 };
        st = call(BS_INSTALL_MULTIPLE_PROTOCOL_INTERFACES, HANDLE_SLOT, GUID_SLOT(0), dp, stack[0], stack + 1, 2);
        if (dp && len < 0)   /* InstallMultiple copies a device path: a malformed one is refused */
            CHECK(st != EFI_SUCCESS);
    } else {
        st = call(BS_INSTALL_PROTOCOL_INTERFACE, HANDLE_SLOT, GUID_SLOT(0), EFI_NATIVE_INTERFACE, dp, NULL, 0);
    }
    if (st == EFI_SUCCESS) {
        uint64_t h = rd64(HANDLE_SLOT);
        CHECK(h && (!handle || h == handle));
        CHECK(fw.nprotocols == before + 1 + (kind & 1));
        CHECK(interface_of(h, &GUID_DEVICE_PATH) == dp);
    } else {
        CHECK(fw.nprotocols == before);
    }
}

static void op_locate(struct fuzz_in *in)
{
    const efi_guid_t *g = guid(in_u8(in));
    uint64_t dp = addr(in);
    for (unsigned i = 0; i < NGUIDS; i++)
        memcpy(ram + GUID_SLOT(i), guid(i), 16);
    memcpy(ram + GUID_SLOT(0), g, 16);
    memcpy(ram + DP_SLOT, &dp, 8);
    memcpy(ram + HANDLE_SLOT, &(uint64_t){ 0 }, 8);
    long want = ref_path(dp);
    uint8_t path[FW_DEVICE_PATH_SIZE];
    if (want >= 0)
        memcpy(path, ram + dp, (size_t)want);
    static struct ties t;
    long best = want < 0 ? -1 : ref_locate(g, path, want, &t);
    efi_status_t st = call(BS_LOCATE_DEVICE_PATH, GUID_SLOT(0), DP_SLOT, HANDLE_SLOT, 0, NULL, 0);
    for (unsigned i = 0; i < NGUIDS; i++)
        memcpy(ram + GUID_SLOT(i), guid(i), 16);
    if (want < 0) {
        CHECK(st == EFI_INVALID_PARAMETER);
        return;
    }
    if (best < 0) {
        CHECK(st == EFI_NOT_FOUND);
        return;
    }
    CHECK(st == EFI_SUCCESS);
    /* The remaining path starts at a node of the given one, and the handle
     * is one whose device path is that long a prefix (there may be ties). */
    CHECK(rd64(DP_SLOT) == dp + (uint64_t)best && node_boundary(path, want, best));
    CHECK(tied(&t, rd64(HANDLE_SLOT)));
}

static void op_load(struct fuzz_in *in)
{
    uint8_t flags = in_u8(in);
    uint64_t dp = flags & 1 ? 0 : addr(in);
    uint64_t parent = flags & 2 ? 0x4242 : fw.image_handle;
    if ((flags & 4) && fw.nimages)
        parent = fw.images[(flags >> 4) % fw.nimages].handle;
    uint64_t source = APP, size = APP_SIZE;
    if (flags & 8) {
        source = SCRATCH;
        size = in_u16(in);
    }
    memcpy(ram + HANDLE_SLOT, &(uint64_t){ 0 }, 8);
    long want = dp ? ref_path(dp) : 0;
    uint8_t path[FW_DEVICE_PATH_SIZE];
    if (want >= 0)
        memcpy(path, ram + dp, (size_t)want + END_LEN);
    static struct ties t;
    long best = dp && want >= 0 ? ref_locate(&GUID_DEVICE_PATH, path, want, &t) : -1;
    unsigned before = fw.nimages, protocols = fw.nprotocols;
    uint64_t stack[2] = { size, HANDLE_SLOT };
    efi_status_t st = call(BS_LOAD_IMAGE, 0, parent, dp, source, stack, 2);
    if (dp && want < 0)
        CHECK(st == EFI_INVALID_PARAMETER);
    if (st != EFI_SUCCESS) {
        CHECK(fw.nimages == before && fw.nprotocols == protocols && !rd64(HANDLE_SLOT));
        return;
    }
    CHECK(fw.nimages == before + 1 && fw.nprotocols == protocols + (dp ? 2 : 1));
    uint64_t h = rd64(HANDLE_SLOT);
    const struct fw_image *img = fw_image_of(&fw, h);
    CHECK(img);
    struct efi_loaded_image li;
    CHECK(interface_of(h, &GUID_LOADED_IMAGE) == img->info);
    memcpy(&li, ram + img->info, sizeof(li));
    CHECK(li.parent_handle == parent && li.image_base == img->base);
    if (!dp) {
        CHECK(!li.file_path && !li.device_handle && !interface_of(h, &GUID_LOADED_IMAGE_DEVICE_PATH));
        return;
    }
    /* LOADED_IMAGE_DEVICE_PATH: the whole path as given; FilePath: what is
     * left after the device's own path (EDK2 CoreLoadImageCommon). */
    uint64_t ldp = interface_of(h, &GUID_LOADED_IMAGE_DEVICE_PATH);
    CHECK(ldp == img->info + INFO_DEVICE_PATH && li.file_path == img->info + INFO_FILE_PATH);
    CHECK(ref_path(ldp) == want && !memcmp(ram + ldp, path, (size_t)want + END_LEN));
    long matched = best < 0 ? 0 : best;
    CHECK(best < 0 ? !li.device_handle : tied(&t, li.device_handle));
    CHECK(ref_path(li.file_path) == want - matched);
    CHECK(!memcmp(ram + li.file_path, path + matched, (size_t)(want - matched) + END_LEN));
}

static void op_unload(struct fuzz_in *in)
{
    uint8_t c = in_u8(in);
    uint64_t h = fw.nimages && c < 0xf0 ? fw.images[c % fw.nimages].handle : 0x4242 + c;
    unsigned before = fw.nimages;
    efi_status_t st = call(BS_UNLOAD_IMAGE, h, 0, 0, 0, NULL, 0);
    CHECK(st == EFI_SUCCESS ? fw.nimages == before - 1 && !fw_image_of(&fw, h) : fw.nimages == before);
}

static void op_uninstall(struct fuzz_in *in)
{
    uint8_t c = in_u8(in);
    unsigned n = 0, pick = 0;
    for (unsigned i = 0; i < fw.nprotocols; i++)
        n += guid_equal(&fw.protocols[i].guid, &GUID_DEVICE_PATH);
    if (!n)
        return;
    c %= n;
    for (pick = 0; pick < fw.nprotocols; pick++)
        if (guid_equal(&fw.protocols[pick].guid, &GUID_DEVICE_PATH) && !c--)
            break;
    struct fw_handle_protocol p = fw.protocols[pick];
    memcpy(ram + GUID_SLOT(0), &GUID_DEVICE_PATH, 16);
    CHECK(call(BS_UNINSTALL_PROTOCOL_INTERFACE, p.handle, GUID_SLOT(0), p.interface, 0, NULL, 0) == EFI_SUCCESS);
    CHECK(interface_of(p.handle, &GUID_DEVICE_PATH) != p.interface);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup_once();
    if (madvise(ram, RAM_SIZE, MADV_DONTNEED))
        abort();
    struct fuzz_in in = { data, size };
    uint8_t mode = in_u8(&in);
    static const uint8_t initrd[64] = "initrd";

    guest_mem_init(&gm, ram, RAM_SIZE);
    struct fw_config cfg = {
        .base = GUEST_FIRMWARE_BASE, .image_base = IMAGE_BASE, .image_size = 0x100000,
        .console = devnull, .log = devnull, .trace = mode & 2 ? devnull : NULL, .trace_limit = UINT64_MAX,
        .seeded = true, .seed = 1,
    };
    if (mode & 1) {
        cfg.initrd = initrd;
        cfg.initrd_size = sizeof(initrd);
    }
    CHECK(firmware_init(&fw, &gm, &cfg) == 0);
    CHECK(memmap_reserve(&fw.map, GUEST_FIRMWARE_BASE + FW_REGION_SIZE,
                         (SLOTS + PAGE - GUEST_FIRMWARE_BASE - FW_REGION_SIZE) / PAGE,
                         EFI_BOOT_SERVICES_DATA) == EFI_SUCCESS);
    CHECK(memmap_reserve(&fw.map, IMAGE_BASE, 0x100000 / PAGE, EFI_LOADER_CODE) == EFI_SUCCESS);
    CHECK(memmap_reserve(&fw.map, RAM_SIZE - PAGE, 1, EFI_LOADER_DATA) == EFI_SUCCESS);
    firmware_set_image(&fw, IMAGE_BASE, 0x100000);
    view = (struct guest_view){ &gm, 0, false, false, false, false };
    put_app(ram + APP);
    for (unsigned i = 0; i < NGUIDS; i++)
        memcpy(ram + GUID_SLOT(i), guid(i), 16);

    while (in.n) {
        uint8_t op = in_u8(&in);
        switch (op % 8) {
        case 0: op_write(&in); break;
        case 1: op_path(&in); break;
        case 2: op_copy(&in); break;
        case 3: op_install(&in); break;
        case 4: op_locate(&in); break;
        case 5: op_load(&in); break;
        case 6: op_unload(&in); break;
        default: op_uninstall(&in); break;
        }
    }
    firmware_free(&fw);
    return 0;
}
