/* firmware-stub/: the fake EFI firmware built over a 16 MiB buffer and
 * called as the guest would, through firmware_call() with the Microsoft
 * x64 ABI (RCX, RDX, R8, R9, then RSP+0x28...). Arguments live in a
 * scratch area of guest RAM that the memory map marks LoaderData, so the
 * firmware's own allocations never land on them. UEFI 2.10 chapters 4, 7,
 * 8 and 12; drivers/firmware/efi/libstub/ (x86-stub.c, mem.c, efi-stub-helper.c)
 * for what the stub relies on. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <zlib.h>

#include "suites.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/guids.h"
#include "../../firmware-stub/keys.h"
#include "../../firmware-stub/volume.h"
#include "../../loader/pe.h"

#define MiB(n) ((uint64_t)(n) << 20)
#define GiB(n) ((uint64_t)(n) << 30)

#define RAM_SIZE     MiB(16)
#define FW_BASE      0x100000ULL
#define SCRATCH      0x200000ULL
#define SCRATCH_SIZE 0x200000ULL
#define STACK_TOP    (SCRATCH + SCRATCH_SIZE - 0x1000)
#define IMAGE_BASE   0x1000000ULL
#define IMAGE_SIZE   0x400000ULL
#define CMDLINE      "console=ttyS0 root=/dev/vda quiet"
#define DESC_SIZE    48   /* what GetMemoryMap reports; callers use it as the stride */

/* Service indices: firmware-stub/services.h. */
#define BS(x) FW_ID_BS(BS_##x)
#define RT(x) FW_ID_RT(RT_##x)

#define ATTR_BS    EFI_VARIABLE_BOOTSERVICE_ACCESS
#define ATTR_BS_RT (EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)
#define ATTR_NV_BS_RT (EFI_VARIABLE_NON_VOLATILE | ATTR_BS_RT)

#define GUID_TEST     EFI_GUID(0x3a1b2c4d, 0x1111, 0x2222, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa)
#define GUID_GOP      EFI_GUID(0x9042a9de, 0x23dc, 0x4a38, 0x96, 0xfb, 0x7a, 0xde, 0xd0, 0x80, 0x51, 0x6a)
#define GUID_LOAD_FILE2 EFI_GUID(0x4006c0c1, 0xfcb3, 0x403e, 0x99, 0x6d, 0x4a, 0x6c, 0x87, 0x24, 0xe0, 0x6d)
#define GUID_INITRD_MEDIA EFI_GUID(0x5568e427, 0x68fc, 0x4f3d, 0xac, 0x74, 0xca, 0x55, 0x52, 0x31, 0xcc, 0x68)
#define GUID_BOOT_MEMMAP EFI_GUID(0x800f683f, 0xd08b, 0x423a, 0xa2, 0x93, 0x96, 0x5c, 0x3c, 0x6f, 0xe2, 0xb4)
#define GUID_RANDOM_SEED EFI_GUID(0x1ce1e5bc, 0x7ceb, 0x42f2, 0x81, 0xe5, 0x8a, 0xad, 0xf1, 0x80, 0xf5, 0x7b)
#define GUID_MEMATTR  EFI_GUID(0xf4560cf6, 0x40ec, 0x4b4a, 0xa1, 0x92, 0xbf, 0x1d, 0x57, 0xd0, 0xb1, 0x89)

/* ---- the firmware under test (checked fixture) ------------------------------------ */

static uint8_t *ram;
static struct guest_mem gm;
static struct firmware fw;
static FILE *con, *log_file;
static char *con_buf, *log_buf;
static size_t con_len, log_len;
static uint64_t scratch_next;
static struct guest_view cur_view;   /* the view and stack the next call is made with */
static uint64_t cur_rsp;
static struct fw_callee_saved cur_saved;   /* and the caller's callee-saved registers */

static void fw_setup(void)
{
    ram = calloc(1, RAM_SIZE);
    ck_assert_ptr_nonnull(ram);
    guest_mem_init(&gm, ram, RAM_SIZE);
    con = open_memstream(&con_buf, &con_len);
    log_file = open_memstream(&log_buf, &log_len);
    ck_assert(con && log_file);
    struct fw_config cfg = { .base = FW_BASE, .image_base = IMAGE_BASE, .image_size = IMAGE_SIZE,
                             .cmdline = CMDLINE, .console = con, .log = log_file };
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
    ck_assert_uint_eq(memmap_reserve(&fw.map, SCRATCH, SCRATCH_SIZE >> 12, EFI_LOADER_DATA), EFI_SUCCESS);
    scratch_next = SCRATCH;
    cur_view = (struct guest_view){ &gm, 0, false };
    cur_rsp = STACK_TOP;
    memset(&cur_saved, 0, sizeof(cur_saved));
}

static void fw_teardown(void)
{
    firmware_free(&fw);
    fclose(con);
    fclose(log_file);
    free(con_buf);
    free(log_buf);
    free(ram);
    ram = NULL;
}

/* ---- guest-side helpers ------------------------------------------------------------- */

static void *hp(uint64_t gpa) { return ram + gpa; }
static uint64_t rd64(uint64_t gpa) { uint64_t v; memcpy(&v, ram + gpa, 8); return v; }
static uint32_t rd32(uint64_t gpa) { uint32_t v; memcpy(&v, ram + gpa, 4); return v; }
static void wr64(uint64_t gpa, uint64_t v) { memcpy(ram + gpa, &v, 8); }

static uint64_t scratch(size_t len)
{
    uint64_t a = scratch_next;
    scratch_next += (len + 15) & ~(size_t)15;
    ck_assert_uint_le(scratch_next, STACK_TOP - 0x1000);
    return a;
}
static uint64_t put(const void *p, size_t len) { uint64_t a = scratch(len); memcpy(hp(a), p, len); return a; }
static uint64_t put_u64(uint64_t v) { return put(&v, 8); }
static uint64_t put_guid(efi_guid_t g) { return put(&g, sizeof(g)); }
static uint64_t put_ucs2(const char *s)
{
    size_t n = strlen(s);
    uint64_t a = scratch(2 * (n + 1));
    for (size_t i = 0; i <= n; i++)
        ((uint16_t *)hp(a))[i] = (uint8_t)s[i];
    return a;
}
static bool ucs2_equals(uint64_t gpa, const char *s)
{
    const uint16_t *u = hp(gpa);
    size_t i = 0;
    for (; s[i]; i++)
        if (u[i] != (uint8_t)s[i])
            return false;
    return u[i] == 0;
}

/* A call as the guest makes it: four register arguments, the rest on the
 * stack above the shadow space and return address. */
static efi_status_t call_args(unsigned id, const uint64_t *a, unsigned n)
{
    struct fw_call c = { .rsp = cur_rsp, .view = cur_view, .saved = cur_saved };
    uint64_t *regs[4] = { &c.rcx, &c.rdx, &c.r8, &c.r9 };
    for (unsigned i = 0; i < 4; i++)
        *regs[i] = i < n ? a[i] : 0xdead0000 + i;   /* unused registers hold junk */
    for (unsigned i = 4; i < n; i++)
        ck_assert(guest_view_write_u64(&cur_view, cur_rsp + 0x28 + 8 * (i - 4), a[i]));
    return firmware_call(&fw, id, &c);
}
#define CALL(id, ...) call_args((id), (const uint64_t[]){ __VA_ARGS__ }, \
                                (unsigned)(sizeof((uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t)))

static bool is_error(efi_status_t s) { return s >> 63; }

static bool crc_ok(uint64_t table)
{
    struct efi_table_header h;
    memcpy(&h, hp(table), sizeof(h));
    uint8_t copy[512];
    if (h.header_size > sizeof(copy))
        return false;
    memcpy(copy, hp(table), h.header_size);
    memset(copy + offsetof(struct efi_table_header, crc32), 0, 4);
    return (uint32_t)crc32(0, copy, h.header_size) == h.crc32;
}

static struct efi_system_table *systab(void) { return hp(fw.systab); }

/* GetMemoryMap as the stub does it: probe, then fetch; returns the key. */
static uint64_t map_key_with(uint64_t *map_out, uint64_t *size_out)
{
    uint64_t size_p = put_u64(0), key_p = put_u64(0), dsize_p = put_u64(0), dver_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, 0, key_p, dsize_p, dver_p), EFI_BUFFER_TOO_SMALL);
    uint64_t size = rd64(size_p) + 2 * DESC_SIZE;
    wr64(size_p, size);
    uint64_t map = scratch(size);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, map, key_p, dsize_p, dver_p), EFI_SUCCESS);
    if (map_out)
        *map_out = map;
    if (size_out)
        *size_out = rd64(size_p);
    return rd64(key_p);
}
static uint64_t map_key(void) { return map_key_with(NULL, NULL); }

static void exit_boot_services(void)
{
    uint64_t key = map_key();
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, key), EFI_SUCCESS);
}

static efi_status_t set_var(const char *name, efi_guid_t g, uint64_t attrs, const void *data, size_t len)
{
    return CALL(RT(SET_VARIABLE), put_ucs2(name), put_guid(g), attrs, len, len ? put(data, len) : 0);
}

static const char *log_text(void)
{
    fflush(log_file);
    return log_buf ? log_buf : "";
}

static const char *console_text(void)
{
    fflush(con);
    return con_buf ? con_buf : "";
}

/* The trace of the calls made between trace_to_memory and decoded_tails. */
static char *trace_buf;
static size_t trace_len;

static void trace_to_memory(void)
{
    fw.cfg.trace = open_memstream(&trace_buf, &trace_len);
    ck_assert_ptr_nonnull(fw.cfg.trace);
    fw.cfg.trace_limit = 1 << 20;
}

/* Each line's tail from its "decoded" on (or just its newline), into got. */
static void decoded_tails(char *got, size_t cap)
{
    fclose(fw.cfg.trace);
    fw.cfg.trace = NULL;
    size_t n = 0;
    got[0] = 0;
    for (char *line = trace_buf; line && *line; line = strchr(line, '\n') + 1) {
        char *end = strchr(line, '\n'), *d = strstr(line, ",\"decoded\"");
        const char *tail = d && d < end ? d : end;
        n += (size_t)snprintf(got + n, cap - n, "%.*s", (int)(end + 1 - tail), tail);
        ck_assert_uint_lt(n, cap);
    }
    free(trace_buf);
    trace_buf = NULL;
}

/* ---- tables -------------------------------------------------------------------------- */

START_TEST(tables_have_signatures_revisions_and_header_sizes)
{
    const struct efi_table_header *st = hp(fw.systab), *bs = hp(fw.bs), *rt = hp(fw.rt);
    ck_assert_uint_eq(st->signature, EFI_SYSTEM_TABLE_SIGNATURE);
    ck_assert_uint_eq(bs->signature, EFI_BOOT_SERVICES_SIGNATURE);
    ck_assert_uint_eq(rt->signature, EFI_RUNTIME_SERVICES_SIGNATURE);
    ck_assert_uint_eq(st->revision, EFI_SPECIFICATION_REVISION);
    ck_assert_uint_eq(bs->revision, EFI_SPECIFICATION_REVISION);
    ck_assert_uint_eq(rt->revision, EFI_SPECIFICATION_REVISION);
    ck_assert_uint_eq(st->header_size, sizeof(struct efi_system_table));
    ck_assert_uint_eq(bs->header_size, EFI_BOOT_SERVICES_SIZE);
    ck_assert_uint_eq(rt->header_size, EFI_RUNTIME_SERVICES_SIZE);
    ck_assert_uint_eq(st->reserved, 0);
}
END_TEST

START_TEST(tables_carry_a_valid_crc32)
{
    ck_assert(crc_ok(fw.systab));
    ck_assert(crc_ok(fw.bs));
    ck_assert(crc_ok(fw.rt));
    ck_assert_uint_ne(((struct efi_table_header *)hp(fw.systab))->crc32, 0);
}
END_TEST

START_TEST(system_table_points_at_the_firmwares_structures)
{
    const struct efi_system_table *st = systab();
    ck_assert_uint_eq(st->boot_services, fw.bs);
    ck_assert_uint_eq(st->runtime_services, fw.rt);
    ck_assert_uint_eq(st->con_out, fw.con_out);
    ck_assert_uint_eq(st->std_err, fw.con_out);
    ck_assert_uint_eq(st->con_in, fw.con_in);
    ck_assert_uint_eq(st->console_out_handle, fw.con_out_handle);
    ck_assert_uint_eq(st->configuration_table, fw.config_tables);
    ck_assert_uint_eq(st->number_of_table_entries, 0);
    ck_assert_uint_eq(rd64(fw.con_out + 8 * CONOUT_OUTPUT_STRING), firmware_thunk(&fw, FW_ID_CONOUT(CONOUT_OUTPUT_STRING)));
}
END_TEST

START_TEST(firmware_vendor_is_a_readable_ucs2_string)
{
    uint64_t v = systab()->firmware_vendor;
    ck_assert_ptr_nonnull(guest_mem_ptr(&gm, v, 200));   /* the kernel maps 200 bytes */
    ck_assert(ucs2_equals(v, "handover"));
    ck_assert_int_eq(memmap_type_at(&fw.map, v), EFI_RUNTIME_SERVICES_DATA);
}
END_TEST

START_TEST(service_pointers_are_thunks_calling_their_own_id)
{
    const uint64_t *bs = hp(fw.bs + 24), *rt = hp(fw.rt + 24);
    for (unsigned i = 0; i < EFI_BOOT_SERVICES_COUNT; i++)
        ck_assert_uint_eq(bs[i], firmware_thunk(&fw, FW_ID_BS(i)));
    for (unsigned i = 0; i < EFI_RUNTIME_SERVICES_COUNT; i++)
        ck_assert_uint_eq(rt[i], firmware_thunk(&fw, FW_ID_RT(i)));
    /* mov eax, id; out 0xec, eax; ret */
    unsigned id = BS(GET_MEMORY_MAP);
    const uint8_t *t = hp(firmware_thunk(&fw, id));
    ck_assert_uint_eq(t[0], 0xb8);
    ck_assert_uint_eq(t[1] | t[2] << 8 | t[3] << 16 | (uint32_t)t[4] << 24, id);
    ck_assert_uint_eq(t[5], 0xe7);
    ck_assert_uint_eq(t[6], FW_HYPERCALL_PORT);
    ck_assert_uint_eq(t[7], 0xc3);
}
END_TEST

START_TEST(test_service_constants_name_the_right_services)
{
    ck_assert_str_eq(firmware_service_name(BS(ALLOCATE_PAGES)), "AllocatePages");
    ck_assert_str_eq(firmware_service_name(BS(HANDLE_PROTOCOL)), "HandleProtocol");
    ck_assert_str_eq(firmware_service_name(BS(LOCATE_DEVICE_PATH)), "LocateDevicePath");
    ck_assert_str_eq(firmware_service_name(BS(LOCATE_HANDLE_BUFFER)), "LocateHandleBuffer");
    ck_assert_str_eq(firmware_service_name(BS(SET_MEM)), "SetMem");
    ck_assert_str_eq(firmware_service_name(RT(GET_NEXT_VARIABLE_NAME)), "GetNextVariableName");
    ck_assert_str_eq(firmware_service_name(RT(QUERY_VARIABLE_INFO)), "QueryVariableInfo");
    ck_assert_str_eq(firmware_service_name(FW_ID_CONOUT(CONOUT_QUERY_MODE)), "ConOut.QueryMode");
}
END_TEST

START_TEST(firmware_memory_is_runtime_and_boot_services_memory)
{
    ck_assert_int_eq(memmap_type_at(&fw.map, FW_BASE + FW_RT_CODE_OFFSET), EFI_RUNTIME_SERVICES_CODE);
    ck_assert_int_eq(memmap_type_at(&fw.map, fw.systab), EFI_RUNTIME_SERVICES_DATA);
    ck_assert_int_eq(memmap_type_at(&fw.map, fw.rt), EFI_RUNTIME_SERVICES_DATA);
    ck_assert_int_eq(memmap_type_at(&fw.map, fw.config_tables), EFI_RUNTIME_SERVICES_DATA);
    ck_assert_int_eq(memmap_type_at(&fw.map, fw.bs), EFI_BOOT_SERVICES_DATA);
    ck_assert_int_eq(memmap_type_at(&fw.map, FW_BASE + FW_REGION_SIZE - 1), EFI_BOOT_SERVICES_DATA);
    ck_assert(!memmap_is_allocated(&fw.map, FW_BASE, FW_REGION_SIZE));   /* fixed: FreePages refuses */
}
END_TEST

START_TEST(firmware_init_refuses_a_base_it_cannot_use)
{
    struct firmware other;
    struct fw_config cfg = { .base = FW_BASE + 0x800 };
    ck_assert_int_eq(firmware_init(&other, &gm, &cfg), -1);
    cfg.base = RAM_SIZE - 0x2000;
    ck_assert_int_eq(firmware_init(&other, &gm, &cfg), -1);
    cfg.base = GiB(2);
    ck_assert_int_eq(firmware_init(&other, &gm, &cfg), -1);
    firmware_free(&other);
}
END_TEST

/* ---- GetMemoryMap ------------------------------------------------------------------- */

START_TEST(get_memory_map_size_probe_fills_size_and_descriptor_info)
{
    uint64_t size_p = put_u64(0), key_p = put_u64(0x5555), dsize_p = put_u64(0), dver_p = put_u64(0xffffffff);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, 0, key_p, dsize_p, dver_p), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), fw.map.n * rd64(dsize_p));
    ck_assert_uint_ge(rd64(dsize_p), sizeof(struct efi_memory_descriptor));
    ck_assert_uint_eq(rd64(dsize_p) % 8, 0);
    ck_assert_uint_eq(rd32(dver_p), EFI_MEMORY_DESCRIPTOR_VERSION);
    /* One byte short is still too small. */
    wr64(size_p, rd64(size_p) - 1);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, scratch(4096), key_p, dsize_p, dver_p), EFI_BUFFER_TOO_SMALL);
}
END_TEST

START_TEST(get_memory_map_returns_every_descriptor_and_the_key)
{
    uint64_t map, size;
    uint64_t key = map_key_with(&map, &size);
    ck_assert_uint_eq(key, fw.map.key);
    ck_assert_uint_eq(size, fw.map.n * DESC_SIZE);
    uint64_t next = 0;
    for (unsigned i = 0; i < fw.map.n; i++) {
        struct efi_memory_descriptor d;
        memcpy(&d, hp(map + i * DESC_SIZE), sizeof(d));
        ck_assert_uint_eq(d.type, fw.map.e[i].type);
        ck_assert_uint_eq(d.physical_start, fw.map.e[i].start);
        ck_assert_uint_eq(d.number_of_pages, fw.map.e[i].pages);
        ck_assert_uint_eq(d.attribute, fw.map.e[i].attribute);
        ck_assert_uint_eq(d.virtual_start, 0);
        ck_assert_uint_eq(d.physical_start, next);   /* RAM from 0 with no gaps */
        next = d.physical_start + d.number_of_pages * 4096;
        if (d.type == EFI_RUNTIME_SERVICES_CODE || d.type == EFI_RUNTIME_SERVICES_DATA)
            ck_assert_uint_eq(d.attribute & EFI_MEMORY_RUNTIME, EFI_MEMORY_RUNTIME);
    }
    ck_assert_uint_eq(next, RAM_SIZE);
}
END_TEST

START_TEST(map_key_changes_after_allocate_and_free_pages)
{
    uint64_t k0 = map_key();
    uint64_t mem_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 3, mem_p), EFI_SUCCESS);
    uint64_t k1 = map_key();
    ck_assert_uint_ne(k1, k0);
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), rd64(mem_p), 3), EFI_SUCCESS);
    ck_assert_uint_ne(map_key(), k1);
}
END_TEST

START_TEST(map_key_changes_after_allocate_and_free_pool)
{
    uint64_t k0 = map_key();
    uint64_t buf_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 100, buf_p), EFI_SUCCESS);
    uint64_t k1 = map_key();
    ck_assert_uint_ne(k1, k0);
    ck_assert_int_eq(memmap_type_at(&fw.map, rd64(buf_p)), EFI_LOADER_DATA);
    ck_assert_ptr_nonnull(guest_mem_ptr(&gm, rd64(buf_p), 100));
    ck_assert_uint_eq(CALL(BS(FREE_POOL), rd64(buf_p)), EFI_SUCCESS);
    ck_assert_uint_ne(map_key(), k1);
    ck_assert_uint_ne(CALL(BS(FREE_POOL), rd64(buf_p)), EFI_SUCCESS);   /* double free */
}
END_TEST

START_TEST(failed_memory_calls_leave_the_map_key_alone)
{
    uint64_t k0 = map_key();
    uint64_t mem_p = put_u64(FW_BASE);   /* the firmware's own pages */
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ANY_PAGES, EFI_CONVENTIONAL_MEMORY, 1, mem_p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, mem_p), EFI_NOT_FOUND);
    ck_assert_uint_eq(rd64(mem_p), FW_BASE);
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), 0x800000, 1), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), FW_BASE, 1), EFI_NOT_FOUND);
    ck_assert_uint_eq(map_key(), k0);
}
END_TEST

START_TEST(allocate_pages_service_honours_each_allocate_type)
{
    uint64_t mem_p = put_u64(0xffffffffULL);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, 2, mem_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(mem_p), RAM_SIZE - 0x2000);
    wr64(mem_p, 0xffffffffffffffffULL);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_CODE, 1, mem_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(mem_p), RAM_SIZE - 0x3000);
    wr64(mem_p, 0x800000);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ADDRESS, EFI_BOOT_SERVICES_DATA, 16, mem_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(mem_p), 0x800000);
    ck_assert_int_eq(memmap_type_at(&fw.map, 0x80f000), EFI_BOOT_SERVICES_DATA);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), 7, EFI_LOADER_DATA, 1, mem_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ANY_PAGES, 0x100000002ULL, 1, mem_p),
                      EFI_INVALID_PARAMETER);   /* MemoryType is 32 bits */
    ck_assert_uint_eq(rd64(mem_p), 0x800000);
}
END_TEST

/* ---- ExitBootServices -------------------------------------------------------------- */

START_TEST(exit_boot_services_refuses_a_stale_key_then_accepts_a_fresh_one)
{
    uint64_t key = map_key();
    uint64_t buf_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 64, buf_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, key), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.phase, FW_PHASE_BOOT);
    /* The stub's retry: read the map again, call again. */
    key = map_key();
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, key), EFI_SUCCESS);
    ck_assert_uint_eq(fw.phase, FW_PHASE_RUNTIME);
}
END_TEST

START_TEST(exit_boot_services_needs_the_image_handle)
{
    uint64_t key = map_key();
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.con_out_handle, key), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), 0, key), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.phase, FW_PHASE_BOOT);
}
END_TEST

START_TEST(exit_boot_services_clears_boot_time_fields_and_keeps_the_crc_valid)
{
    exit_boot_services();
    const struct efi_system_table *st = systab();
    ck_assert_uint_eq(st->boot_services, 0);
    ck_assert_uint_eq(st->con_out, 0);
    ck_assert_uint_eq(st->con_in, 0);
    ck_assert_uint_eq(st->std_err, 0);
    ck_assert_uint_eq(st->runtime_services, fw.rt);
    ck_assert_uint_eq(st->firmware_vendor, fw.vendor);
    ck_assert(crc_ok(fw.systab));
}
END_TEST

START_TEST(boot_services_after_exit_are_unsupported)
{
    uint64_t p = put_u64(0), g = put_guid(GUID_SIMPLE_TEXT_OUTPUT);
    exit_boot_services();
    uint64_t k = fw.map.key;
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 16, p), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1, p), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), p, 0, 0, 0, 0), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), g, 0, p), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, k), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_OUTPUT_STRING), fw.con_out, put_ucs2("x")), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(FW_ID_CONIN(1), fw.con_in, p), EFI_UNSUPPORTED);
    ck_assert_uint_eq(rd64(p), 0);
    ck_assert_uint_eq(fw.map.key, k);
    ck_assert_str_eq(console_text(), "");
    ck_assert_ptr_nonnull(strstr(log_text(), "AllocatePool called after ExitBootServices"));
}
END_TEST

/* ---- variables ------------------------------------------------------------------------ */

START_TEST(get_variable_not_found_leaves_data_size_untouched)
{
    uint64_t size_p = put_u64(0x1234), attr_p = put_u64(0x77), data = scratch(16);
    memset(hp(data), 0x5a, 16);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("SecureBoot"), put_guid(GUID_GLOBAL_VARIABLE), attr_p,
                           size_p, data),
                      EFI_NOT_FOUND);
    ck_assert_uint_eq(rd64(size_p), 0x1234);
    ck_assert_uint_eq(rd64(attr_p), 0x77);
    ck_assert_uint_eq(((uint8_t *)hp(data))[0], 0x5a);
}
END_TEST

START_TEST(set_then_get_variable_round_trips_data_and_attributes)
{
    const char value[] = "hello, variable";
    ck_assert_uint_eq(set_var("Greeting", GUID_TEST, ATTR_NV_BS_RT, value, sizeof(value)), EFI_SUCCESS);
    uint64_t size_p = put_u64(64), attr_p = put_u64(0), data = scratch(64);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Greeting"), put_guid(GUID_TEST), attr_p, size_p, data),
                      EFI_SUCCESS);
    ck_assert_uint_eq(rd64(size_p), sizeof(value));
    ck_assert_uint_eq(rd32(attr_p), ATTR_NV_BS_RT);
    ck_assert_mem_eq(hp(data), value, sizeof(value));
    /* Same name, other GUID: a different variable. */
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Greeting"), put_guid(GUID_GLOBAL_VARIABLE), 0, size_p, data),
                      EFI_NOT_FOUND);
    /* Attributes are optional. */
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Greeting"), put_guid(GUID_TEST), 0, size_p, data),
                      EFI_SUCCESS);
}
END_TEST

START_TEST(get_variable_too_small_reports_the_size_and_writes_no_data)
{
    ck_assert_uint_eq(set_var("Blob", GUID_TEST, ATTR_BS_RT, "0123456789", 10), EFI_SUCCESS);
    uint64_t size_p = put_u64(4), data = scratch(16);
    memset(hp(data), 0xee, 16);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Blob"), put_guid(GUID_TEST), 0, size_p, data),
                      EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), 10);
    ck_assert_uint_eq(((uint8_t *)hp(data))[0], 0xee);
    wr64(size_p, 0);   /* the size probe with no buffer */
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Blob"), put_guid(GUID_TEST), 0, size_p, 0),
                      EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), 10);
}
END_TEST

START_TEST(get_next_variable_name_walks_in_creation_order)
{
    ck_assert_uint_eq(set_var("First", GUID_TEST, ATTR_BS_RT, "1", 1), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Second", GUID_GLOBAL_VARIABLE, ATTR_BS_RT, "2", 1), EFI_SUCCESS);
    uint64_t name = scratch(256), guid = put_guid(GUID_TEST), size_p = put_u64(0);
    ((uint16_t *)hp(name))[0] = 0;   /* start: the empty name */
    const char *expect[] = { "First", "Second" };
    const efi_guid_t expect_guid[] = { GUID_TEST, GUID_GLOBAL_VARIABLE };
    for (unsigned i = 0; i < 2; i++) {
        wr64(size_p, 256);
        ck_assert_uint_eq(CALL(RT(GET_NEXT_VARIABLE_NAME), size_p, name, guid), EFI_SUCCESS);
        ck_assert(ucs2_equals(name, expect[i]));
        ck_assert_uint_eq(rd64(size_p), 2 * (strlen(expect[i]) + 1));
        ck_assert(guid_equal(hp(guid), &expect_guid[i]));
    }
    wr64(size_p, 256);
    ck_assert_uint_eq(CALL(RT(GET_NEXT_VARIABLE_NAME), size_p, name, guid), EFI_NOT_FOUND);
    /* A name that is not a variable. */
    uint64_t bogus = put_ucs2("Nope");
    ck_assert_uint_eq(CALL(RT(GET_NEXT_VARIABLE_NAME), size_p, bogus, guid), EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(get_next_variable_name_too_small_reports_the_size)
{
    ck_assert_uint_eq(set_var("LongerName", GUID_TEST, ATTR_BS_RT, "x", 1), EFI_SUCCESS);
    uint64_t name = put_ucs2(""), guid = put_guid(GUID_TEST), size_p = put_u64(4);
    ck_assert_uint_eq(CALL(RT(GET_NEXT_VARIABLE_NAME), size_p, name, guid), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), 2 * sizeof("LongerName"));
    ck_assert_uint_eq(((uint16_t *)hp(name))[0], 0);
}
END_TEST

START_TEST(setting_size_zero_deletes_a_variable)
{
    ck_assert_uint_eq(set_var("Gone", GUID_TEST, ATTR_BS_RT, "abc", 3), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Gone", GUID_TEST, ATTR_BS_RT, NULL, 0), EFI_SUCCESS);
    uint64_t size_p = put_u64(16);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Gone"), put_guid(GUID_TEST), 0, size_p, scratch(16)),
                      EFI_NOT_FOUND);
    ck_assert_uint_eq(set_var("Gone", GUID_TEST, ATTR_BS_RT, NULL, 0), EFI_NOT_FOUND);
    /* Attributes 0 deletes too. */
    ck_assert_uint_eq(set_var("Gone2", GUID_TEST, ATTR_BS, "abc", 3), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Gone2", GUID_TEST, 0, "abc", 3), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Gone2"), put_guid(GUID_TEST), 0, size_p, scratch(16)),
                      EFI_NOT_FOUND);
}
END_TEST

START_TEST(set_variable_refuses_bad_attributes_and_names)
{
    ck_assert_uint_eq(set_var("RtOnly", GUID_TEST, EFI_VARIABLE_RUNTIME_ACCESS, "x", 1), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(set_var("Auth", GUID_TEST, ATTR_BS_RT | 0x20, "x", 1), EFI_UNSUPPORTED);
    ck_assert_uint_eq(set_var("", GUID_TEST, ATTR_BS_RT, "x", 1), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(set_var("Var", GUID_TEST, ATTR_BS_RT, "x", 1), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Var", GUID_TEST, ATTR_BS, "y", 1), EFI_INVALID_PARAMETER);  /* other attributes */
    ck_assert_uint_eq(set_var("Big", GUID_TEST, ATTR_BS, NULL, 0) , EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(RT(SET_VARIABLE), put_ucs2("Big"), put_guid(GUID_TEST), ATTR_BS, 1ULL << 20, scratch(16)),
                      EFI_OUT_OF_RESOURCES);
}
END_TEST

START_TEST(append_write_extends_a_variable)
{
    ck_assert_uint_eq(set_var("Log", GUID_TEST, ATTR_BS_RT, "abc", 3), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Log", GUID_TEST, ATTR_BS_RT | EFI_VARIABLE_APPEND_WRITE, "def", 3), EFI_SUCCESS);
    uint64_t size_p = put_u64(16), data = scratch(16);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Log"), put_guid(GUID_TEST), 0, size_p, data), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(size_p), 6);
    ck_assert_mem_eq(hp(data), "abcdef", 6);
}
END_TEST

START_TEST(runtime_get_variable_works_after_exit_boot_services)
{
    ck_assert_uint_eq(set_var("Kept", GUID_TEST, ATTR_BS_RT, "rt", 2), EFI_SUCCESS);
    exit_boot_services();
    uint64_t size_p = put_u64(8), data = scratch(8);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Kept"), put_guid(GUID_TEST), 0, size_p, data), EFI_SUCCESS);
    ck_assert_mem_eq(hp(data), "rt", 2);
    ck_assert_uint_eq(set_var("Kept", GUID_TEST, ATTR_BS_RT, "RT", 2), EFI_SUCCESS);
}
END_TEST

START_TEST(variables_without_runtime_access_vanish_after_exit_boot_services)
{
    ck_assert_uint_eq(set_var("BootOnly", GUID_TEST, ATTR_BS, "b", 1), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Both", GUID_TEST, ATTR_BS_RT, "r", 1), EFI_SUCCESS);
    exit_boot_services();
    uint64_t size_p = put_u64(8);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("BootOnly"), put_guid(GUID_TEST), 0, size_p, scratch(8)),
                      EFI_NOT_FOUND);
    ck_assert_uint_eq(rd64(size_p), 8);
    uint64_t name = put_ucs2(""), guid = put_guid(GUID_TEST);
    scratch(64);
    wr64(size_p, 64);
    ck_assert_uint_eq(CALL(RT(GET_NEXT_VARIABLE_NAME), size_p, name, guid), EFI_SUCCESS);
    ck_assert(ucs2_equals(name, "Both"));
    ck_assert_uint_eq(set_var("New", GUID_TEST, ATTR_BS, "n", 1), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(set_var("BootOnly", GUID_TEST, 0, NULL, 0), EFI_NOT_FOUND);
}
END_TEST

/* Each variable is counted at what it costs the host (its record and
 * data), not at its name's size: tiny variables run out of store after
 * about a thousand, not after 174,000 of them (~190 MiB of host memory). */
START_TEST(store_limit_counts_the_host_cost_of_each_variable)
{
    unsigned made = 0;
    for (; made < 2000; made++) {
        char name[8] = { 'v', (char)('a' + made % 26), (char)('a' + made / 26 % 26), (char)('a' + made / 676), 0 };
        if (set_var(name, GUID_TEST, ATTR_BS_RT, "x", 1) != EFI_SUCCESS)
            break;
    }
    ck_assert_uint_lt(made, 2000);
    ck_assert_uint_gt(made, 100);
    ck_assert_uint_le(fw.variable_bytes, 1u << 20);
}
END_TEST

START_TEST(query_variable_info_reports_the_store)
{
    uint64_t max_p = put_u64(0), rem_p = put_u64(0), size_p = put_u64(0);
    ck_assert_uint_eq(CALL(RT(QUERY_VARIABLE_INFO), ATTR_BS_RT, max_p, rem_p, size_p), EFI_SUCCESS);
    uint64_t before = rd64(rem_p);
    ck_assert_uint_eq(before, rd64(max_p));
    ck_assert_uint_gt(rd64(size_p), 0);
    ck_assert_uint_eq(set_var("Q", GUID_TEST, ATTR_BS_RT, "12345678", 8), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(RT(QUERY_VARIABLE_INFO), ATTR_BS_RT, max_p, rem_p, size_p), EFI_SUCCESS);
    ck_assert_uint_lt(rd64(rem_p), before);
    ck_assert_uint_eq(CALL(RT(QUERY_VARIABLE_INFO), 0, max_p, rem_p, size_p), EFI_INVALID_PARAMETER);
}
END_TEST

/* UEFI 2.10 GetVariable: EFI_INVALID_PARAMETER if DataSize is NULL. */
/* Regression (fixed): fw_get_variable reads and writes DataSize at guest address 0. */
START_TEST(get_variable_with_null_data_size_is_invalid)
{
    ck_assert_uint_eq(set_var("Present", GUID_TEST, ATTR_BS_RT, "0123456789abcdef", 16), EFI_SUCCESS);
    memset(ram, 0, 64);
    efi_status_t s = CALL(RT(GET_VARIABLE), put_ucs2("Present"), put_guid(GUID_TEST), 0, 0, scratch(16));
    ck_assert_msg(s == EFI_INVALID_PARAMETER, "GetVariable(DataSize=NULL) returned %s", efi_status_name(s));
    ck_assert_msg(rd64(0) == 0, "GetVariable(DataSize=NULL) wrote 0x%llx at guest address 0",
                  (unsigned long long)rd64(0));
}
END_TEST

/* UEFI 2.10 GetNextVariableName: EFI_INVALID_PARAMETER if VariableNameSize is NULL. */
/* Regression (fixed): fw_get_next_variable_name uses guest address 0 as VariableNameSize. */
START_TEST(get_next_variable_name_with_null_size_is_invalid)
{
    ck_assert_uint_eq(set_var("Present", GUID_TEST, ATTR_BS_RT, "x", 1), EFI_SUCCESS);
    memset(ram, 0, 64);
    uint64_t name = put_ucs2(""), guid = put_guid(GUID_TEST);
    scratch(64);
    efi_status_t s = CALL(RT(GET_NEXT_VARIABLE_NAME), 0, name, guid);
    ck_assert_msg(s == EFI_INVALID_PARAMETER, "GetNextVariableName(VariableNameSize=NULL) returned %s",
                  efi_status_name(s));
    ck_assert_msg(rd64(0) == 0, "GetNextVariableName(VariableNameSize=NULL) wrote 0x%llx at guest address 0",
                  (unsigned long long)rd64(0));
}
END_TEST

/* Data NULL with a nonzero DataSize is a NULL pointer, not guest page 0
 * (EDK2 returns EFI_INVALID_PARAMETER). */
/* Regression (fixed): fw_set_variable stores DataSize bytes read from guest address 0. */
START_TEST(set_variable_with_null_data_is_invalid)
{
    memcpy(ram, "page zero", 9);
    efi_status_t s = CALL(RT(SET_VARIABLE), put_ucs2("FromNull"), put_guid(GUID_TEST), ATTR_BS_RT, 9, 0);
    ck_assert_msg(s == EFI_INVALID_PARAMETER, "SetVariable(Data=NULL, DataSize=9) returned %s",
                  efi_status_name(s));
}
END_TEST

/* ---- protocols and handles ------------------------------------------------------------ */

START_TEST(locate_protocol_not_found_sets_interface_to_null)
{
    efi_guid_t missing[] = { GUID_MEMATTR, GUID_GOP, GUID_LOAD_FILE2 };
    for (unsigned i = 0; i < 3; i++) {
        uint64_t iface_p = put_u64(0xdeadbeefdeadbeefULL);
        ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(missing[i]), 0, iface_p), EFI_NOT_FOUND);
        ck_assert_uint_eq(rd64(iface_p), 0);
    }
}
END_TEST

START_TEST(locate_protocol_finds_the_console)
{
    uint64_t iface_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_SIMPLE_TEXT_OUTPUT), 0, iface_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), fw.con_out);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_LOADED_IMAGE), 0, iface_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), fw.loaded_image);
}
END_TEST

START_TEST(locate_handle_for_gop_is_not_found)
{
    uint64_t size_p = put_u64(64), buf = scratch(64);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_BY_PROTOCOL, put_guid(GUID_GOP), 0, size_p, buf), EFI_NOT_FOUND);
    ck_assert_uint_eq(rd64(buf), 0);
}
END_TEST

START_TEST(locate_handle_reports_the_size_then_the_handles)
{
    uint64_t size_p = put_u64(0), buf = scratch(64), g = put_guid(GUID_LOADED_IMAGE);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_BY_PROTOCOL, g, 0, size_p, buf), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), 8);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_BY_PROTOCOL, g, 0, size_p, buf), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(buf), fw.image_handle);
    /* All handles: each handle of the database once, however many protocols it has. */
    wr64(size_p, 64);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_ALL_HANDLES, 0, 0, size_p, buf), EFI_SUCCESS);
    unsigned n = (unsigned)(rd64(size_p) / 8), distinct = 0;
    for (unsigned i = 0; i < fw.nprotocols; i++) {
        bool seen = false;
        for (unsigned j = 0; j < i; j++)
            seen |= fw.protocols[j].handle == fw.protocols[i].handle;
        distinct += !seen;
    }
    ck_assert_uint_eq(n, distinct);
    ck_assert_uint_lt(n, fw.nprotocols);   /* the image handle has two protocols */
    bool image = false, conout = false, conin = false;
    for (unsigned i = 0; i < n; i++) {
        uint64_t h = rd64(buf + 8 * i);
        image |= h == fw.image_handle;
        conout |= h == fw.con_out_handle;
        conin |= h == fw.con_in_handle;
        for (unsigned j = 0; j < i; j++)
            ck_assert_uint_ne(rd64(buf + 8 * j), h);
    }
    ck_assert(image && conout && conin);
}
END_TEST

START_TEST(locate_handle_buffer_returns_a_pool_of_handles)
{
    uint64_t n_p = put_u64(0), buf_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE_BUFFER), EFI_BY_PROTOCOL, put_guid(GUID_SIMPLE_TEXT_OUTPUT), 0, n_p, buf_p),
                      EFI_SUCCESS);
    ck_assert_uint_eq(rd64(n_p), 1);
    ck_assert_uint_eq(rd64(rd64(buf_p)), fw.con_out_handle);
    ck_assert_int_eq(memmap_type_at(&fw.map, rd64(buf_p)), EFI_BOOT_SERVICES_DATA);
    ck_assert_uint_eq(CALL(BS(FREE_POOL), rd64(buf_p)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE_BUFFER), EFI_BY_PROTOCOL, put_guid(GUID_GOP), 0, n_p, buf_p),
                      EFI_NOT_FOUND);
}
END_TEST

/* The stub's initrd probe: a vendor media node (LINUX_EFI_INITRD_MEDIA) then the end node. */
START_TEST(locate_device_path_for_the_initrd_is_exactly_not_found)
{
    uint8_t path[24] = { EFI_DEV_MEDIA, EFI_DEV_MEDIA_VENDOR, 20, 0 };
    efi_guid_t g = GUID_INITRD_MEDIA;
    memcpy(path + 4, &g, 16);
    path[20] = EFI_DEV_END_PATH;
    path[21] = EFI_DEV_END_ENTIRE;
    path[22] = 4;
    uint64_t dp = put(path, sizeof(path)), dp_p = put_u64(dp), dev_p = put_u64(0x1111);
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), put_guid(GUID_LOAD_FILE2), dp_p, dev_p), EFI_NOT_FOUND);
    ck_assert_uint_eq(rd64(dp_p), dp);
    /* A device path with a zero-length node is malformed. */
    path[2] = 0;
    wr64(dp_p, put(path, sizeof(path)));
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), put_guid(GUID_LOAD_FILE2), dp_p, dev_p), EFI_INVALID_PARAMETER);
}
END_TEST

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

START_TEST(handle_protocol_on_unknown_handles_and_protocols)
{
    uint64_t iface_p = put_u64(0x9999);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.image_handle, put_guid(GUID_GOP), iface_p), EFI_UNSUPPORTED);
    ck_assert_uint_eq(rd64(iface_p), 0);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), 0x12345678, put_guid(GUID_LOADED_IMAGE), iface_p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.image_handle, put_guid(GUID_LOADED_IMAGE), 0),
                      EFI_INVALID_PARAMETER);
    /* OpenProtocol with TEST_PROTOCOL needs no Interface. */
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), fw.con_out_handle, put_guid(GUID_SIMPLE_TEXT_OUTPUT), 0,
                           fw.image_handle, 0, 0x4),
                      EFI_SUCCESS);
}
END_TEST

/* EFI_RNG_PROTOCOL (UEFI 2.10 section 37.5): the stub's KASLR seed. */
#define GUID_RNG_RAW EFI_GUID(0xe43176d7, 0xab20, 0x4b0e, 0x9e, 0x23, 0x9a, 0x7c, 0x8e, 0x8b, 0x89, 0xc4)

START_TEST(rng_protocol_reports_the_raw_algorithm)
{
    uint64_t iface_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_RNG_PROTOCOL), 0, iface_p), EFI_SUCCESS);
    uint64_t rng = rd64(iface_p);
    ck_assert_uint_eq(rd64(rng + 8 * RNG_GET_RNG), firmware_thunk(&fw, FW_ID_RNG(RNG_GET_RNG)));
    uint64_t size_p = put_u64(0), list = scratch(16);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_INFO), rng, size_p, list), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), sizeof(efi_guid_t));
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_INFO), rng, size_p, list), EFI_SUCCESS);
    const efi_guid_t raw = GUID_RNG_RAW;
    ck_assert(guid_equal(hp(list), &raw));
}
END_TEST

START_TEST(rng_with_a_seed_is_deterministic_and_checks_its_arguments)
{
    fw.cfg.seeded = true;
    uint64_t a = scratch(37), b = scratch(37), raw = put_guid(GUID_RNG_RAW);
    fw.rng_state = 42;
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, raw, 37, a), EFI_SUCCESS);
    fw.rng_state = 42;
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 37, b), EFI_SUCCESS);   /* NULL: default algorithm */
    ck_assert_mem_eq(hp(a), hp(b), 37);
    static const uint8_t zero[37];
    ck_assert_int_ne(memcmp(hp(a), zero, 37), 0);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, put_guid(GUID_TEST), 8, a), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 0, a), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 16, RAM_SIZE - 8), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 1ULL << 40, a), EFI_INVALID_PARAMETER);
    exit_boot_services();
    ck_assert_uint_eq(CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 8, a), EFI_UNSUPPORTED);   /* boot-time only */
}
END_TEST

/* ---- the handle database: guest-installed protocols (UEFI 2.10 section 7.3) ----------- */

#define GUID_DP EFI_GUID(0x09576e91, 0x6d3f, 0x11d2, 0x8e, 0x39, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b)
#define GUID_STUB_PAYLOAD EFI_GUID(0x55c5d1f8, 0x04cd, 0x46b5, 0x8a, 0x20, 0xe5, 0x6c, 0xbb, 0x30, 0x52, 0xd0)

/* VenMedia(vendor)/End, as systemd-stub builds its initrd and payload paths. */
static uint64_t put_vendor_media_path(efi_guid_t vendor)
{
    uint8_t path[24] = { EFI_DEV_MEDIA, EFI_DEV_MEDIA_VENDOR, 20, 0 };
    memcpy(path + 4, &vendor, 16);
    path[20] = EFI_DEV_END_PATH;
    path[21] = EFI_DEV_END_ENTIRE;
    path[22] = 4;
    return put(path, sizeof(path));
}

static uint64_t interface_of(uint64_t handle, efi_guid_t g, efi_status_t *s)
{
    uint64_t iface_p = put_u64(0x5a5a);
    *s = CALL(BS(HANDLE_PROTOCOL), handle, put_guid(g), iface_p);
    return rd64(iface_p);
}

START_TEST(install_protocol_interface_makes_a_handle_that_lookups_see)
{
    uint64_t h_p = put_u64(0), g = put_guid(GUID_TEST);
    efi_status_t s;
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, g, EFI_NATIVE_INTERFACE, 0x1234), EFI_SUCCESS);
    uint64_t h = rd64(h_p);
    ck_assert_uint_ne(h, 0);
    ck_assert_uint_eq(interface_of(h, GUID_TEST, &s), 0x1234);
    ck_assert_uint_eq(s, EFI_SUCCESS);
    /* Once per handle; only native interfaces. */
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, g, EFI_NATIVE_INTERFACE, 0x99), EFI_INVALID_PARAMETER);
    wr64(h_p, 0);
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, put_guid(GUID_GOP), 1, 0x99), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(h_p), 0);
    /* A second protocol on the same handle. */
    wr64(h_p, h);
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, put_guid(GUID_GOP), EFI_NATIVE_INTERFACE, 0x77),
                      EFI_SUCCESS);
    ck_assert_uint_eq(rd64(h_p), h);
    uint64_t iface_p = put_u64(0), size_p = put_u64(64), buf = scratch(64);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), g, 0, iface_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), 0x1234);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), EFI_BY_PROTOCOL, g, 0, size_p, buf), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(size_p), 8);
    ck_assert_uint_eq(rd64(buf), h);
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), h, put_guid(GUID_GOP), iface_p, fw.image_handle, 0, 1), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), 0x77);
    /* ProtocolsPerHandle: a pool array of pointers to the GUIDs, in order. */
    uint64_t list_p = put_u64(0), count_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(PROTOCOLS_PER_HANDLE), h, list_p, count_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(count_p), 2);
    efi_guid_t want[2] = { GUID_TEST, GUID_GOP };
    for (unsigned i = 0; i < 2; i++)
        ck_assert_mem_eq(hp(rd64(rd64(list_p) + 8 * i)), &want[i], sizeof(efi_guid_t));
    ck_assert_uint_eq(CALL(BS(FREE_POOL), rd64(list_p)), EFI_SUCCESS);
    /* A handle nobody made is refused. */
    wr64(h_p, 0x4242);
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, put_guid(GUID_RNG_PROTOCOL), EFI_NATIVE_INTERFACE, 1),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(PROTOCOLS_PER_HANDLE), 0x4242, list_p, count_p), EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(reinstall_and_uninstall_need_the_installed_interface)
{
    uint64_t h_p = put_u64(0), g = put_guid(GUID_TEST);
    efi_status_t s;
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, g, EFI_NATIVE_INTERFACE, 0x1234), EFI_SUCCESS);
    uint64_t h = rd64(h_p);
    ck_assert_uint_eq(CALL(BS(REINSTALL_PROTOCOL_INTERFACE), h, g, 0x1111, 0x5678), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(BS(REINSTALL_PROTOCOL_INTERFACE), h, g, 0x1234, 0x5678), EFI_SUCCESS);
    ck_assert_uint_eq(interface_of(h, GUID_TEST, &s), 0x5678);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_PROTOCOL_INTERFACE), h, g, 0x1234), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_PROTOCOL_INTERFACE), h, put_guid(GUID_GOP), 0x5678), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_PROTOCOL_INTERFACE), h, g, 0x5678), EFI_SUCCESS);
    /* Its last protocol gone, the handle is gone too. */
    interface_of(h, GUID_TEST, &s);
    ck_assert_uint_eq(s, EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_PROTOCOL_INTERFACE), h, g, 0x5678), EFI_INVALID_PARAMETER);
    uint64_t iface_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), g, 0, iface_p), EFI_NOT_FOUND);
    /* A new handle is a new value: the stale one stays invalid. */
    wr64(h_p, 0);
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), h_p, g, EFI_NATIVE_INTERFACE, 0x1), EFI_SUCCESS);
    ck_assert_uint_ne(rd64(h_p), h);
}
END_TEST

/* systemd-stub's initrd_register (src/boot/efi/initrd.c), then the kernel
 * stub's efi_load_initrd_dev_path finding the stub's LoadFile2. */
START_TEST(install_multiple_registers_the_stub_initrd_where_the_kernel_finds_it)
{
    uint64_t dp = put_vendor_media_path(GUID_INITRD_MEDIA), dp_p = put_u64(dp), dev_p = put_u64(0);
    uint64_t lf2 = put_u64(0xfeedf00d), g_lf2 = put_guid(GUID_LOAD_FILE2), g_dp = put_guid(GUID_DP);
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), g_lf2, dp_p, dev_p), EFI_NOT_FOUND);
    uint64_t h_p = put_u64(0);
    unsigned before = fw.nprotocols;
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, g_dp, dp, g_lf2, lf2, 0), EFI_SUCCESS);
    uint64_t h = rd64(h_p);
    ck_assert_uint_ne(h, 0);
    ck_assert_uint_eq(fw.nprotocols, before + 2);
    /* The kernel's own probe, with its own copy of the path. */
    uint64_t kdp = put_vendor_media_path(GUID_INITRD_MEDIA), kdp_p = put_u64(kdp);
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), g_lf2, kdp_p, dev_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(dev_p), h);
    ck_assert_uint_eq(rd64(kdp_p), kdp + 20);   /* the rest: the end node */
    efi_status_t s;
    ck_assert_uint_eq(interface_of(h, GUID_LOAD_FILE2, &s), lf2);
    ck_assert_uint_eq(s, EFI_SUCCESS);
    /* The same device path again, anywhere: EFI_ALREADY_STARTED (UEFI 2.10 section 7.3.16). */
    uint64_t h2_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h2_p, g_dp, kdp, 0), EFI_ALREADY_STARTED);
    ck_assert_uint_eq(rd64(h2_p), 0);
    /* All or nothing: the second pair is already on the handle. */
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, put_guid(GUID_TEST), 1, g_lf2, 2, 0),
                      EFI_INVALID_PARAMETER);
    interface_of(h, GUID_TEST, &s);
    ck_assert_uint_eq(s, EFI_UNSUPPORTED);
    /* ... and the same GUID twice in one list. */
    wr64(h2_p, 0);
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h2_p, put_guid(GUID_TEST), 1,
                           put_guid(GUID_TEST), 2, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.nprotocols, before + 2);
    /* Uninstall: a wrong interface fails them all; the right ones go. */
    ck_assert_uint_eq(CALL(BS(UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES), h, g_dp, dp, g_lf2, 0x1, 0),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.nprotocols, before + 2);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES), h, g_lf2, lf2, g_dp, dp, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.nprotocols, before);
    wr64(kdp_p, kdp);
    ck_assert_uint_eq(CALL(BS(LOCATE_DEVICE_PATH), g_lf2, kdp_p, dev_p), EFI_NOT_FOUND);
}
END_TEST

START_TEST(hostile_variadic_lists_are_refused_whole)
{
    uint64_t h_p = put_u64(0), g = put_guid(GUID_TEST);
    unsigned before = fw.nprotocols;
    /* No NULL GUID within the bound: every pair a valid one. */
    uint64_t a[2 + 4 * FW_MAX_PROTOCOLS];
    a[0] = h_p;
    for (unsigned i = 1; i < sizeof(a) / sizeof(a[0]); i++)
        a[i] = i % 2 ? g : i;
    ck_assert_uint_eq(call_args(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), a, sizeof(a) / sizeof(a[0])),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(call_args(BS(UNINSTALL_MULTIPLE_PROTOCOL_INTERFACES), a, sizeof(a) / sizeof(a[0])),
                      EFI_INVALID_PARAMETER);
    /* A list running off guest RAM: the stack ends after two pairs. */
    cur_rsp = RAM_SIZE - 0x30;
    ck_assert_uint_eq(call_args(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), a, 4), EFI_INVALID_PARAMETER);
    cur_rsp = STACK_TOP;
    /* Wild GUID, wild handle pointer, a device path running off RAM. */
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, RAM_SIZE + 8, 1, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), RAM_SIZE - 4, g, 1, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, put_guid(GUID_DP), RAM_SIZE - 2, 0),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), 0, g, EFI_NATIVE_INTERFACE, 1), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(UNINSTALL_PROTOCOL_INTERFACE), fw.image_handle, RAM_SIZE, 1), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(PROTOCOLS_PER_HANDLE), fw.image_handle, RAM_SIZE, put_u64(0)), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.nprotocols, before);
    ck_assert_uint_eq(rd64(h_p), 0);
}
END_TEST

/* ---- images: LoadImage, StartImage, Exit, UnloadImage (UEFI 2.10 section 7.4) ----------- */

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
 * names on the volume (HD(...)/File(\EFI)/File(app.efi), as systemd-boot
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
    ck_assert_int_eq(firmware_attach_esp(&fw, &vol, NULL), 0);
    uint64_t device = ((struct efi_loaded_image *)hp(fw.loaded_image))->device_handle, dp_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), device, put_guid(GUID_DEVICE_PATH), dp_p), EFI_SUCCESS);
    uint8_t path[42 + 12 + 20 + 4];
    memcpy(path, hp(rd64(dp_p)), 42);
    memcpy(path + 42, (uint8_t[]){ EFI_DEV_MEDIA, EFI_DEV_MEDIA_FILE_PATH, 12, 0, '\\', 0, 'E', 0, 'F', 0, 'I', 0 }, 12);
    memcpy(path + 54, (uint8_t[]){ EFI_DEV_MEDIA, EFI_DEV_MEDIA_FILE_PATH, 20, 0, 'A', 0, 'P', 0, 'P', 0, '.', 0,
                                   'e', 0, 'f', 0, 'i', 0, 0, 0 }, 20);
    memcpy(path + 74, (uint8_t[]){ EFI_DEV_END_PATH, EFI_DEV_END_ENTIRE, 4, 0 }, 4);
    uint64_t h_p = put_u64(0), li_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, put(path, sizeof(path)), 0, 0, h_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), rd64(h_p), put_guid(GUID_LOADED_IMAGE), li_p), EFI_SUCCESS);
    const struct efi_loaded_image *li = hp(rd64(li_p));
    ck_assert_uint_eq(li->device_handle, device);
    ck_assert_int_eq(memcmp(hp(li->file_path), path + 42, 36), 0);
    ck_assert_uint_eq(rd64(li->image_base + APP_TARGET), li->image_base + APP_ENTRY);   /* relocated */
    /* A path to no file, or to a directory, loads nothing. */
    path[54 + 4] = 'B';
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, put(path, sizeof(path)), 0, 0, h_p), EFI_NOT_FOUND);
    memcpy(path + 54, path + 74, 4);
    ck_assert_uint_eq(CALL(BS(LOAD_IMAGE), 0, fw.image_handle, put(path, 58), 0, 0, h_p), EFI_NOT_FOUND);
    firmware_free(&fw);
    volume_free(&vol);
    struct fw_config cfg = { .base = FW_BASE, .console = con, .log = log_file };
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);   /* for the teardown */
}
END_TEST

/* Issue 24 item 1: LoadImage copies DevicePath to the host before it maps
 * the image. Here the image is RELOCS_STRIPPED with its ImageBase on the
 * page directory that maps the path (VA 1 GiB -> SCRATCH), so loading it
 * unmaps the path; the LoadedImage paths must still be the guest's bytes,
 * never what an unread host buffer held. */
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
    return (struct guest_view){ &gm, pml4, false };
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
    ck_assert_uint_eq(rd64(data_p), data);
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
    uint64_t dp = put_vendor_media_path(GUID_INITRD_MEDIA), h_p = put_u64(0);
    CALL(BS(INSTALL_MULTIPLE_PROTOCOL_INTERFACES), h_p, put_guid(GUID_DP), dp, put_guid(GUID_LOAD_FILE2), 0x10, 0);
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

/* ---- configuration tables -------------------------------------------------------------- */

static const struct efi_configuration_table *config_table(unsigned i)
{
    return (const struct efi_configuration_table *)hp(systab()->configuration_table) + i;
}

START_TEST(install_configuration_table_adds_replaces_and_removes)
{
    uint64_t memmap_g = put_guid(GUID_BOOT_MEMMAP), seed_g = put_guid(GUID_RANDOM_SEED);
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), memmap_g, 0x600000), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), seed_g, 0x700000), EFI_SUCCESS);
    ck_assert_uint_eq(systab()->number_of_table_entries, 2);
    ck_assert(guid_equal(&config_table(0)->vendor_guid, &GUID_BOOT_MEMMAP));
    ck_assert_uint_eq(config_table(1)->vendor_table, 0x700000);
    ck_assert(crc_ok(fw.systab));
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), memmap_g, 0x650000), EFI_SUCCESS);  /* replace */
    ck_assert_uint_eq(systab()->number_of_table_entries, 2);
    ck_assert_uint_eq(config_table(0)->vendor_table, 0x650000);
    ck_assert(crc_ok(fw.systab));
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), memmap_g, 0), EFI_SUCCESS);         /* remove */
    ck_assert_uint_eq(systab()->number_of_table_entries, 1);
    ck_assert(guid_equal(&config_table(0)->vendor_guid, &GUID_RANDOM_SEED));
    ck_assert(crc_ok(fw.systab));
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), memmap_g, 0), EFI_NOT_FOUND);
    ck_assert_uint_eq(memmap_type_at(&fw.map, systab()->configuration_table), EFI_RUNTIME_SERVICES_DATA);
}
END_TEST

START_TEST(configuration_table_array_has_a_bound)
{
    for (unsigned i = 0; i < FW_MAX_CONFIG_TABLES; i++) {
        efi_guid_t g = GUID_TEST;
        g.b[15] = (uint8_t)i;
        ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), put_guid(g), 0x600000 + i), EFI_SUCCESS);
    }
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), put_guid(GUID_BOOT_MEMMAP), 0x1), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(systab()->number_of_table_entries, FW_MAX_CONFIG_TABLES);
    ck_assert(crc_ok(fw.systab));
}
END_TEST

/* NumberOfTableEntries lives in guest memory: a guest can write anything
 * there. The firmware must not follow it past its own array, let alone
 * past the end of guest RAM. Here the firmware sits at the top of RAM and
 * the host buffer has a canary area just past it. */
/* Regression (fixed): fw_install_config_table trusts the guest-writable
 * NumberOfTableEntries and indexes the host pointer past its 64-entry array. */
/* The systab's header_size is guest memory: another vCPU may rewrite it at
 * any time. The CRC is taken over the size the firmware built the table
 * with, and the field is set back to it, whatever the guest wrote there. */
START_TEST(crc_update_ignores_a_header_size_the_guest_rewrote)
{
    uint64_t g = put_guid(GUID_BOOT_MEMMAP);
    uint32_t sizes[] = { 0x10, 0xfffffff0, 0 };
    for (unsigned i = 0; i < 3; i++) {
        ((struct efi_table_header *)hp(fw.systab))->header_size = sizes[i];
        ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), g, 0x600000 + i * 0x1000), EFI_SUCCESS);
        ck_assert_uint_eq(((struct efi_table_header *)hp(fw.systab))->header_size, sizeof(struct efi_system_table));
        ck_assert(crc_ok(fw.systab));
    }
}
END_TEST

START_TEST(install_configuration_table_never_follows_a_guest_count_out_of_ram)
{
    const uint64_t size = MiB(4), canary_len = 0x10000, base = size - FW_REGION_SIZE;
    uint8_t *host = malloc(size + canary_len);
    ck_assert_ptr_nonnull(host);
    memset(host, 0, size);
    memset(host + size, 0xc5, canary_len);
    struct guest_mem gm2;
    guest_mem_init(&gm2, host, size);
    struct firmware *fw2 = malloc(sizeof(*fw2));
    struct fw_config cfg = { .base = base };
    int rc = fw2 ? firmware_init(fw2, &gm2, &cfg) : -1;
    uint64_t st_addr = fw2 ? fw2->systab : 0, ct = fw2 ? fw2->config_tables : 0;
    /* A fake entry at index 495: 0x2e68 bytes into the array, past guest RAM. */
    const unsigned idx = 495;
    efi_guid_t g = GUID_RANDOM_SEED;
    uint64_t entry_off = ct + idx * sizeof(struct efi_configuration_table);
    bool past_ram = entry_off >= size;
    if (past_ram) {
        memcpy(host + entry_off, &g, sizeof(g));
        struct efi_system_table *st = (struct efi_system_table *)(host + st_addr);
        st->number_of_table_entries = idx + 1;
    }
    uint8_t *before = malloc(canary_len);
    if (before)
        memcpy(before, host + size, canary_len);
    memcpy(host + 0x1000, &g, sizeof(g));
    struct fw_call c = { .rcx = 0x1000, .rdx = 0x1234, .rsp = 0x8000, .view = { &gm2, 0, false } };
    efi_status_t s = rc == 0 ? firmware_call(fw2, BS(INSTALL_CONFIGURATION_TABLE), &c) : EFI_LOAD_ERROR;
    bool canary_intact = before && !memcmp(before, host + size, canary_len);
    if (fw2)
        firmware_free(fw2);
    free(fw2);
    free(before);
    free(host);
    ck_assert_int_eq(rc, 0);
    ck_assert(past_ram);
    ck_assert_msg(canary_intact, "InstallConfigurationTable with NumberOfTableEntries = %u wrote host memory "
                  "past guest RAM (status %s)", idx + 1, efi_status_name(s));
}
END_TEST

/* ---- small boot services ------------------------------------------------------------- */

START_TEST(free_pool_null_is_harmless)
{
    uint64_t k = map_key();
    unsigned n = fw.map.n, pools = fw.npools;
    efi_status_t s = CALL(BS(FREE_POOL), 0);
    ck_assert(s == EFI_SUCCESS || s == EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(map_key(), k);
    ck_assert_uint_eq(fw.map.n, n);
    ck_assert_uint_eq(fw.npools, pools);
    ck_assert_uint_eq(fw.stop, FW_RUN);
}
END_TEST

START_TEST(calculate_crc32_matches_zlib)
{
    const char text[] = "The quick brown fox jumps over the lazy dog";
    uint64_t data = put(text, strlen(text)), crc_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(CALCULATE_CRC32), data, strlen(text), crc_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd32(crc_p), 0x414fa339);   /* the well-known CRC-32 of that sentence */
    ck_assert_uint_eq(CALL(BS(CALCULATE_CRC32), data, 0, crc_p), EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(copy_mem_handles_overlap_both_ways)
{
    uint64_t buf = put("0123456789", 10);
    ck_assert_uint_eq(CALL(BS(COPY_MEM), buf + 2, buf, 6), EFI_SUCCESS);    /* forward overlap */
    ck_assert_mem_eq(hp(buf), "0101234589", 10);
    memcpy(hp(buf), "0123456789", 10);
    ck_assert_uint_eq(CALL(BS(COPY_MEM), buf, buf + 3, 7), EFI_SUCCESS);    /* backward overlap */
    ck_assert_mem_eq(hp(buf), "3456789789", 10);
    ck_assert_uint_eq(CALL(BS(COPY_MEM), buf, buf + 3, 0), EFI_SUCCESS);    /* nothing */
    ck_assert_mem_eq(hp(buf), "3456789789", 10);
}
END_TEST

START_TEST(set_mem_fills_exactly_the_buffer)
{
    uint64_t buf = put("abcdefgh", 8);
    ck_assert_uint_eq(CALL(BS(SET_MEM), buf + 1, 5, 0x12a), EFI_SUCCESS);   /* Value is a UINT8 */
    ck_assert_mem_eq(hp(buf), "a\x2a\x2a\x2a\x2a\x2agh", 8);
    ck_assert_uint_eq(CALL(BS(SET_MEM), buf, 0, 'z'), EFI_SUCCESS);
    ck_assert_uint_eq(((uint8_t *)hp(buf))[0], 'a');
}
END_TEST

START_TEST(monotonic_count_tpl_and_watchdog)
{
    uint64_t c_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(GET_NEXT_MONOTONIC_COUNT), c_p), EFI_SUCCESS);
    uint64_t first = rd64(c_p);
    ck_assert_uint_eq(CALL(BS(GET_NEXT_MONOTONIC_COUNT), c_p), EFI_SUCCESS);
    ck_assert_uint_gt(rd64(c_p), first);
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), 31), FW_TPL_APPLICATION);   /* returns the old TPL */
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), 31), 31);
    ck_assert_uint_eq(CALL(BS(RESTORE_TPL), FW_TPL_APPLICATION), EFI_SUCCESS);
    ck_assert_uint_eq(fw.tpl, FW_TPL_APPLICATION);
    ck_assert_uint_eq(CALL(FW_ID_BS(BS_SET_WATCHDOG_TIMER), 300, 0, 0, 0), EFI_SUCCESS);   /* SetWatchdogTimer */
    ck_assert_uint_eq(fw.watchdog_seconds, 300);
    exit_boot_services();
    ck_assert_uint_eq(fw.watchdog_seconds, 0);   /* EBS disarms it */
}
END_TEST

START_TEST(exit_and_reset_system_stop_the_vm)
{
    ck_assert_uint_eq(CALL(BS(EXIT), fw.image_handle, EFI_LOAD_ERROR, 0, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.stop, FW_STOP_EXIT);
    ck_assert_uint_eq(fw.stop_status, EFI_LOAD_ERROR);
    fw.stop = FW_RUN;
    ck_assert_uint_eq(CALL(RT(RESET_SYSTEM), 2, EFI_SUCCESS, 0, 0), EFI_SUCCESS);
    ck_assert_uint_eq(fw.stop, FW_STOP_RESET);
    ck_assert_uint_eq(fw.stop_status, 2);
    ck_assert_ptr_nonnull(strstr(log_text(), "EfiResetShutdown"));
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

/* GRUB claims a quarter of the conventional memory below 4 GiB as its heap,
 * piece by piece from the top of each range, with AllocateAddress, and one
 * failure is fatal (grub-core/kern/efi/mm.c): every conventional range the
 * map reports can be taken whole at its address. */
START_TEST(allocate_address_takes_each_conventional_range_whole)
{
    uint64_t size_p = put_u64(0), key_p = put_u64(0), dsize_p = put_u64(0), dver_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, 0, key_p, dsize_p, dver_p), EFI_BUFFER_TOO_SMALL);
    uint64_t n = rd64(size_p) / DESC_SIZE, map = scratch(rd64(size_p));
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, map, key_p, dsize_p, dver_p), EFI_SUCCESS);
    unsigned taken = 0;
    for (uint64_t i = 0; i < n; i++) {
        struct efi_memory_descriptor d;
        memcpy(&d, ram + map + i * DESC_SIZE, sizeof(d));
        if (d.type != EFI_CONVENTIONAL_MEMORY || d.physical_start >= GiB(4))
            continue;
        uint64_t mem_p = put_u64(d.physical_start);
        ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ADDRESS, EFI_LOADER_CODE, d.number_of_pages, mem_p),
                          EFI_SUCCESS);
        ck_assert_int_eq(memmap_type_at(&fw.map, d.physical_start + (d.number_of_pages << 12) - 1), EFI_LOADER_CODE);
        taken++;
    }
    ck_assert_uint_ge(taken, 2);   /* below 640 KiB, and above the firmware */
    for (unsigned i = 0; i < fw.map.n; i++)
        ck_assert_uint_ne(fw.map.e[i].type, EFI_CONVENTIONAL_MEMORY);
}
END_TEST

/* Stall waits for real: GRUB calibrates the TSC against Stall(1000) when
 * it has no other clock (grub-core/kern/i386/tsc.c). */
/* No keyboard: every poll is EFI_NOT_READY, and a long run of them is
 * explained once in the log. */
START_TEST(read_key_stroke_never_has_a_key_and_says_so_once)
{
    uint64_t key = scratch(4);
    for (unsigned i = 0; i < FW_KEY_POLLS_REPORTED + 10; i++)
        ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_READ_KEY_STROKE), fw.con_in, key), EFI_NOT_READY);
    fflush(log_file);
    const char *first = strstr(log_buf, "no key will come");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_null(strstr(first + 1, "no key will come"));
}
END_TEST

/* Stall does not sleep in the call, which runs under the VMM's lock: it
 * asks the vCPU to sleep after it, at most 10 s; the
 * next call asks for nothing. */
START_TEST(stall_asks_the_vcpu_to_sleep_after_the_call)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_uint_eq(CALL(BS(STALL), 5000000), EFI_SUCCESS);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ck_assert_uint_eq(fw.sleep_ns, 5000000000ULL);
    int64_t us = (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000;
    ck_assert_int_lt(us, 1000000);
    ck_assert_uint_eq(CALL(BS(STALL), 60000000), EFI_SUCCESS);
    ck_assert_uint_eq(fw.sleep_ns, 60000000000ULL);
    ck_assert_uint_eq(CALL(BS(STALL), UINT64_MAX / 100), EFI_SUCCESS);
    ck_assert_uint_eq(fw.sleep_ns, UINT64_MAX);
    ck_assert_uint_eq(CALL(BS(GET_NEXT_MONOTONIC_COUNT), put_u64(0)), EFI_SUCCESS);
    ck_assert_uint_eq(fw.sleep_ns, 0);
}
END_TEST

START_TEST(get_time_gives_a_plausible_date)
{
    uint64_t t = scratch(16);
    ck_assert_uint_eq(CALL(RT(GET_TIME), t, 0), EFI_SUCCESS);
    const uint8_t *b = hp(t);
    uint16_t year = (uint16_t)(b[0] | b[1] << 8);
    ck_assert_uint_ge(year, 2024);
    ck_assert(b[2] >= 1 && b[2] <= 12);
    ck_assert(b[3] >= 1 && b[3] <= 31);
    ck_assert_uint_le(b[4], 23);
    ck_assert_uint_eq(CALL(RT(GET_TIME), 0, 0), EFI_INVALID_PARAMETER);
}
END_TEST

/* ---- console --------------------------------------------------------------------------- */

START_TEST(output_string_converts_ucs2_to_utf8_and_drops_cr)
{
    const uint16_t s[] = { 'H', 0x00e9, 0x20ac, '\r', '\n', '!', 0xd800, 0 };
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_OUTPUT_STRING), fw.con_out, put(s, sizeof(s))), EFI_SUCCESS);
    ck_assert_str_eq(console_text(), "H\xc3\xa9\xe2\x82\xac\n!\xef\xbf\xbd");
}
END_TEST

/* The diagnostics' last line: the one being written, or else the last
 * non-empty one (sweep cells and timeouts quote it). */
START_TEST(output_string_keeps_the_last_nonempty_line)
{
    const uint16_t a[] = { 'o', 'n', 'e', '\r', '\n', 't', 'w', 'o', '\r', '\n', '\r', '\n', 0 };
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_OUTPUT_STRING), fw.con_out, put(a, sizeof(a))), EFI_SUCCESS);
    ck_assert_str_eq(fw.last_line, "two");
    const uint16_t b[] = { 't', 'h', 0 };
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_OUTPUT_STRING), fw.con_out, put(b, sizeof(b))), EFI_SUCCESS);
    ck_assert_str_eq(fw.last_line, "th");
}
END_TEST

START_TEST(output_string_prints_long_strings_whole)
{
    uint16_t s[701];
    for (unsigned i = 0; i < 700; i++)
        s[i] = (uint16_t)('a' + i % 26);
    s[700] = 0;
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_OUTPUT_STRING), fw.con_out, put(s, sizeof(s))), EFI_SUCCESS);
    const char *out = console_text();
    ck_assert_uint_eq(strlen(out), 700);
    ck_assert_int_eq(out[699], 'a' + 699 % 26);
}
END_TEST

/* --console-limit covers ConOut too: the budget is shared with the serial
 * console through cfg.console_used. */
START_TEST(output_string_stops_at_the_console_limit)
{
    uint64_t used = 95;
    fw.cfg.console_used = &used;
    fw.cfg.console_limit = 100;
    uint16_t s[] = { 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 0 };
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_OUTPUT_STRING), fw.con_out, put(s, sizeof(s))), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_OUTPUT_STRING), fw.con_out, put(s, sizeof(s))), EFI_SUCCESS);
    ck_assert_str_eq(console_text(), "abcde");
    ck_assert_uint_eq(used, 100);
    fw.cfg.console_used = NULL;
}
END_TEST

/* A guest looping on calls the firmware logs cannot fill the host's disk. */
START_TEST(firmware_log_stops_after_its_limit)
{
    for (unsigned i = 0; i < FW_LOG_LIMIT + 500; i++)
        ck_assert_uint_eq(CALL(FW_MAX_THUNKS - 1, 0), EFI_UNSUPPORTED);
    fflush(log_file);
    unsigned lines = 0;
    for (size_t i = 0; i < log_len; i++)
        lines += log_buf[i] == '\n';
    ck_assert_uint_eq(lines, FW_LOG_LIMIT + 1);
    ck_assert_ptr_nonnull(strstr(log_buf, "no more are printed"));
}
END_TEST

START_TEST(output_string_running_off_ram_prints_nothing)
{
    uint16_t *end = hp(RAM_SIZE - 4);
    end[0] = 'A';
    end[1] = 'B';   /* no terminator before the end of RAM */
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_OUTPUT_STRING), fw.con_out, RAM_SIZE - 4), EFI_INVALID_PARAMETER);
    ck_assert_str_eq(console_text(), "");
}
END_TEST

START_TEST(conout_query_mode_offers_80x25_only)
{
    uint64_t cols = put_u64(0), rows = put_u64(0);
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_QUERY_MODE), fw.con_out, 0, cols, rows), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(cols), 80);
    ck_assert_uint_eq(rd64(rows), 25);
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_QUERY_MODE), fw.con_out, 1, cols, rows), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(FW_ID_CONIN(1), fw.con_in, scratch(8)), EFI_NOT_READY);
}
END_TEST

/* ---- SetVirtualAddressMap -------------------------------------------------------------- */

#define VA_CODE 0xfffffffeffe00000ULL
#define VA_DATA 0xfffffffeffd00000ULL

/* The runtime descriptors of the firmware's map, relocated as the kernel
 * does (efi_map_regions): code and data at unrelated virtual addresses. */
static uint64_t virtual_map(uint64_t *size)
{
    uint64_t map = scratch(MEMMAP_MAX_ENTRIES * DESC_SIZE), n = 0;
    for (unsigned i = 0; i < fw.map.n; i++) {
        const struct memmap_entry *e = &fw.map.e[i];
        if (!(e->attribute & EFI_MEMORY_RUNTIME))
            continue;
        struct efi_memory_descriptor d = { e->type, 0, e->start, 0, e->pages, e->attribute };
        d.virtual_start = e->type == EFI_RUNTIME_SERVICES_CODE ? VA_CODE : VA_DATA;
        memcpy(hp(map + n * DESC_SIZE), &d, sizeof(d));
        n++;
    }
    *size = n * DESC_SIZE;
    return map;
}

START_TEST(set_virtual_address_map_before_exit_is_unsupported)
{
    uint64_t size, map = virtual_map(&size);
    ck_assert_uint_eq(CALL(RT(SET_VIRTUAL_ADDRESS_MAP), size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_UNSUPPORTED);
    ck_assert(!fw.virtual_mode);
    ck_assert_uint_eq(rd64(fw.rt + 24), firmware_thunk(&fw, FW_ID_RT(0)));
}
END_TEST

START_TEST(set_virtual_address_map_moves_the_runtime_pointers)
{
    ck_assert_uint_eq(CALL(BS(INSTALL_CONFIGURATION_TABLE), put_guid(GUID_BOOT_MEMMAP), 0x600000), EFI_SUCCESS);
    exit_boot_services();
    uint64_t size, map = virtual_map(&size);
    ck_assert_uint_eq(CALL(RT(SET_VIRTUAL_ADDRESS_MAP), size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_SUCCESS);
    const uint64_t code_pa = FW_BASE + FW_RT_CODE_OFFSET, data_pa = FW_BASE + FW_RT_DATA_OFFSET;
    const uint64_t *rt = hp(fw.rt + 24);
    for (unsigned i = 0; i < EFI_RUNTIME_SERVICES_COUNT; i++)
        ck_assert_uint_eq(rt[i], VA_CODE + (firmware_thunk(&fw, FW_ID_RT(i)) - code_pa));
    const struct efi_system_table *st = systab();
    ck_assert_uint_eq(st->runtime_services, VA_DATA + (fw.rt - data_pa));
    ck_assert_uint_eq(st->firmware_vendor, VA_DATA + (fw.vendor - data_pa));
    ck_assert_uint_eq(st->configuration_table, VA_DATA + (fw.config_tables - data_pa));
    ck_assert_uint_eq(st->number_of_table_entries, 1);
    ck_assert(crc_ok(fw.rt));
    ck_assert(crc_ok(fw.systab));
    ck_assert(fw.virtual_mode);
    ck_assert_uint_eq(CALL(RT(SET_VIRTUAL_ADDRESS_MAP), size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_UNSUPPORTED);   /* only once */
}
END_TEST

START_TEST(set_virtual_address_map_refuses_bad_maps)
{
    exit_boot_services();
    uint64_t size, map = virtual_map(&size);
    const unsigned id = RT(SET_VIRTUAL_ADDRESS_MAP);
    ck_assert_uint_eq(CALL(id, size, DESC_SIZE, 2, map), EFI_INVALID_PARAMETER);                /* version */
    ck_assert_uint_eq(CALL(id, size, 32, EFI_MEMORY_DESCRIPTOR_VERSION, map), EFI_INVALID_PARAMETER);  /* stride < 40 */
    ck_assert_uint_eq(CALL(id, size - 1, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(id, 0, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(id, DESC_SIZE, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_INVALID_PARAMETER);                                                    /* code only */
    ck_assert_uint_eq(CALL(id, size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, RAM_SIZE - DESC_SIZE),
                      EFI_INVALID_PARAMETER);                                                    /* outside the map */
    ck_assert_uint_eq(CALL(id, size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, GiB(1)), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(id, 1ULL << 40, 1ULL << 20, EFI_MEMORY_DESCRIPTOR_VERSION, map), EFI_INVALID_PARAMETER);
    ck_assert(!fw.virtual_mode);
    ck_assert_uint_eq(rd64(fw.rt + 24), firmware_thunk(&fw, FW_ID_RT(0)));
    ck_assert(crc_ok(fw.rt));
}
END_TEST

/* After SetVirtualAddressMap the kernel calls with its own page tables and
 * kernel-virtual pointers: here the first 16 MiB appear both at 0 and at
 * the direct map 0xffff888000000000 (2 MiB pages), and the stack and all
 * arguments are direct-map addresses. */
#define DIRECT_MAP 0xffff888000000000ULL

START_TEST(runtime_services_follow_the_guests_page_tables)
{
    ck_assert_uint_eq(set_var("Virt", GUID_TEST, ATTR_BS_RT, "paged", 5), EFI_SUCCESS);
    exit_boot_services();
    uint64_t size, map = virtual_map(&size);
    ck_assert_uint_eq(CALL(RT(SET_VIRTUAL_ADDRESS_MAP), size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_SUCCESS);
    uint64_t pml4 = scratch(0x2000);
    pml4 = (pml4 + 0xfff) & ~0xfffULL;
    uint64_t pdpt = (scratch(0x2000) + 0xfff) & ~0xfffULL, pd = (scratch(0x2000) + 0xfff) & ~0xfffULL;
    memset(hp(pml4), 0, 4096);
    memset(hp(pdpt), 0, 4096);
    memset(hp(pd), 0, 4096);
    wr64(pml4 + 8 * 0, pdpt | 3);
    wr64(pml4 + 8 * ((DIRECT_MAP >> 39) & 511), pdpt | 3);
    wr64(pdpt, pd | 3);
    for (unsigned i = 0; i < RAM_SIZE >> 21; i++)
        wr64(pd + 8 * i, ((uint64_t)i << 21) | 0x83);
    uint64_t name = put_ucs2("Virt"), guid = put_guid(GUID_TEST), size_p = put_u64(16), data = scratch(16);
    cur_view = (struct guest_view){ &gm, pml4, false };
    cur_rsp = DIRECT_MAP + STACK_TOP;
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), DIRECT_MAP + name, DIRECT_MAP + guid, 0, DIRECT_MAP + size_p,
                           DIRECT_MAP + data),
                      EFI_SUCCESS);
    ck_assert_mem_eq(hp(data), "paged", 5);
    ck_assert_uint_eq(rd64(size_p), 5);
    /* An address the guest's tables do not map. */
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), 0x0000400000000000ULL + name, DIRECT_MAP + guid, 0,
                           DIRECT_MAP + size_p, DIRECT_MAP + data),
                      EFI_INVALID_PARAMETER);
}
END_TEST

/* ---- hostile arguments --------------------------------------------------------------- */

#define H_GOOD  (SCRATCH + 0x100000)   /* a u64 holding 0x10000 */
#define H_GOOD2 (SCRATCH + 0x100100)
#define H_GUID  (SCRATCH + 0x100200)   /* a GUID */
#define H_NAME  (SCRATCH + 0x100300)   /* L"Foo" */
#define H_DPP   (SCRATCH + 0x100400)   /* a device path pointer to the last 2 bytes of RAM */
#define H_END   (RAM_SIZE - 4)         /* 4 bytes of RAM left */
#define H_OUT   (RAM_SIZE + 0x1000)
#define H_IMAGE 0x1111111111111111ULL  /* replaced by the image handle */
#define H_HUGE  (1ULL << 40)

static const struct hostile {
    const char *what;
    unsigned id;
    uint64_t a[6];
} hostile[] = {
    { "GetMemoryMap(MapSize outside RAM)", FW_ID_BS(BS_GET_MEMORY_MAP), { H_OUT, H_GOOD2, H_GOOD2, 0, 0 } },
    { "GetMemoryMap(MapSize spanning the end)", FW_ID_BS(BS_GET_MEMORY_MAP), { H_END, H_GOOD2, H_GOOD2, 0, 0 } },
    { "GetMemoryMap(MapSize NULL)", FW_ID_BS(BS_GET_MEMORY_MAP), { 0, H_GOOD2, H_GOOD2, 0, 0 } },
    { "GetMemoryMap(Map spanning the end)", FW_ID_BS(BS_GET_MEMORY_MAP), { H_GOOD, H_END, H_GOOD2, 0, 0 } },
    { "GetMemoryMap(Map NULL)", FW_ID_BS(BS_GET_MEMORY_MAP), { H_GOOD, 0, H_GOOD2, 0, 0 } },
    { "GetMemoryMap(DescriptorSize outside)", FW_ID_BS(BS_GET_MEMORY_MAP), { H_GOOD, H_GOOD2, H_GOOD2, H_OUT, 0 } },
    { "AllocatePages(Memory NULL)", FW_ID_BS(BS_ALLOCATE_PAGES), { 0, EFI_LOADER_DATA, 1, 0 } },
    { "AllocatePages(Memory outside)", FW_ID_BS(BS_ALLOCATE_PAGES), { 0, EFI_LOADER_DATA, 1, H_OUT } },
    { "AllocatePages(Memory spanning)", FW_ID_BS(BS_ALLOCATE_PAGES), { 0, EFI_LOADER_DATA, 1, H_END } },
    { "AllocatePages(2^40 pages)", FW_ID_BS(BS_ALLOCATE_PAGES), { 0, EFI_LOADER_DATA, H_HUGE, H_GOOD } },
    { "AllocatePool(2^40 bytes)", FW_ID_BS(BS_ALLOCATE_POOL), { EFI_LOADER_DATA, H_HUGE, H_GOOD } },
    { "AllocatePool(all ones)", FW_ID_BS(BS_ALLOCATE_POOL), { EFI_LOADER_DATA, UINT64_MAX, H_GOOD } },
    { "AllocatePool(Buffer outside)", FW_ID_BS(BS_ALLOCATE_POOL), { EFI_LOADER_DATA, 16, H_OUT } },
    { "AllocatePool(conventional)", FW_ID_BS(BS_ALLOCATE_POOL), { EFI_CONVENTIONAL_MEMORY, 16, H_GOOD } },
    { "FreePages(outside)", FW_ID_BS(BS_FREE_PAGES), { H_OUT & ~0xfffULL, 1 } },
    { "FreePages(all pages)", FW_ID_BS(BS_FREE_PAGES), { 0, UINT64_MAX } },
    { "FreePool(not a pool)", FW_ID_BS(BS_FREE_POOL), { 0x12345 } },
    { "HandleProtocol(Protocol outside)", FW_ID_BS(BS_HANDLE_PROTOCOL), { H_IMAGE, H_OUT, H_GOOD } },
    { "HandleProtocol(Interface spanning)", FW_ID_BS(BS_HANDLE_PROTOCOL), { H_IMAGE, H_GUID, H_END } },
    { "LocateProtocol(Protocol spanning)", FW_ID_BS(BS_LOCATE_PROTOCOL), { H_END, 0, H_GOOD } },
    { "LocateProtocol(Interface NULL)", FW_ID_BS(BS_LOCATE_PROTOCOL), { H_GUID, 0, 0 } },
    { "LocateHandle(Protocol NULL)", FW_ID_BS(BS_LOCATE_HANDLE), { EFI_BY_PROTOCOL, 0, 0, H_GOOD, H_GOOD2 } },
    { "LocateHandle(BufferSize outside)", FW_ID_BS(BS_LOCATE_HANDLE), { EFI_ALL_HANDLES, 0, 0, H_OUT, H_GOOD2 } },
    { "LocateHandle(Buffer spanning)", FW_ID_BS(BS_LOCATE_HANDLE), { EFI_ALL_HANDLES, 0, 0, H_GOOD, H_END } },
    { "LocateHandle(SearchType 7)", FW_ID_BS(BS_LOCATE_HANDLE), { 7, 0, 0, H_GOOD, H_GOOD2 } },
    { "LocateHandleBuffer(NoHandles outside)", FW_ID_BS(BS_LOCATE_HANDLE_BUFFER), { EFI_ALL_HANDLES, 0, 0, H_OUT, H_GOOD } },
    { "LocateDevicePath(DevicePath outside)", FW_ID_BS(BS_LOCATE_DEVICE_PATH), { H_GUID, H_OUT, H_GOOD } },
    { "LocateDevicePath(path at the end)", FW_ID_BS(BS_LOCATE_DEVICE_PATH), { H_GUID, H_DPP, H_GOOD } },
    { "InstallConfigurationTable(Guid NULL)", FW_ID_BS(BS_INSTALL_CONFIGURATION_TABLE), { 0, 0x600000 } },
    { "InstallConfigurationTable(Guid outside)", FW_ID_BS(BS_INSTALL_CONFIGURATION_TABLE), { H_OUT, 0x600000 } },
    { "CalculateCrc32(Data spanning)", FW_ID_BS(BS_CALCULATE_CRC32), { H_END, 16, H_GOOD } },
    { "CalculateCrc32(2^40 bytes)", FW_ID_BS(BS_CALCULATE_CRC32), { H_GOOD, H_HUGE, H_GOOD2 } },
    { "CalculateCrc32(Crc32 outside)", FW_ID_BS(BS_CALCULATE_CRC32), { H_GOOD, 16, H_OUT } },
    { "CalculateCrc32(Data NULL)", FW_ID_BS(BS_CALCULATE_CRC32), { 0, 16, H_GOOD } },
    { "CopyMem(Destination outside)", FW_ID_BS(BS_COPY_MEM), { H_OUT, H_GOOD, 16 } },
    { "CopyMem(Source spanning)", FW_ID_BS(BS_COPY_MEM), { H_GOOD, H_END, 16 } },
    { "CopyMem(Destination spanning)", FW_ID_BS(BS_COPY_MEM), { H_END, H_GOOD, 8 } },
    { "CopyMem(2^40 bytes)", FW_ID_BS(BS_COPY_MEM), { H_GOOD, H_GOOD2, H_HUGE } },
    { "SetMem(spanning)", FW_ID_BS(BS_SET_MEM), { H_END, 16, 0 } },
    { "SetMem(all ones bytes)", FW_ID_BS(BS_SET_MEM), { H_GOOD, UINT64_MAX, 0 } },
    { "GetNextMonotonicCount(outside)", FW_ID_BS(BS_GET_NEXT_MONOTONIC_COUNT), { H_OUT } },
    { "OutputString(NULL)", FW_ID_CONOUT(CONOUT_OUTPUT_STRING), { 0, 0 } },
    { "OutputString(outside)", FW_ID_CONOUT(CONOUT_OUTPUT_STRING), { 0, H_OUT } },
    { "QueryMode(Columns outside)", FW_ID_CONOUT(CONOUT_QUERY_MODE), { 0, 0, H_OUT, H_GOOD } },
    { "GetVariable(Name outside)", FW_ID_RT(RT_GET_VARIABLE), { H_OUT, H_GUID, 0, H_GOOD, H_GOOD2 } },
    { "GetVariable(Guid NULL)", FW_ID_RT(RT_GET_VARIABLE), { H_NAME, 0, 0, H_GOOD, H_GOOD2 } },
    { "GetVariable(DataSize outside)", FW_ID_RT(RT_GET_VARIABLE), { H_NAME, H_GUID, 0, H_OUT, H_GOOD2 } },
    { "SetVariable(Data spanning)", FW_ID_RT(RT_SET_VARIABLE), { H_NAME, H_GUID, ATTR_BS, 16, H_END } },
    { "SetVariable(2^40 bytes)", FW_ID_RT(RT_SET_VARIABLE), { H_NAME, H_GUID, ATTR_BS, H_HUGE, H_GOOD } },
    { "GetNextVariableName(Name outside)", FW_ID_RT(RT_GET_NEXT_VARIABLE_NAME), { H_GOOD, H_OUT, H_GUID } },
    { "GetTime(spanning)", FW_ID_RT(RT_GET_TIME), { H_END, 0 } },
    { "QueryVariableInfo(outside)", FW_ID_RT(RT_QUERY_VARIABLE_INFO), { ATTR_BS, H_OUT, H_GOOD, H_GOOD2 } },
    { "GetNextHighMonotonicCount(NULL)", FW_ID_RT(RT_GET_NEXT_HIGH_MONOTONIC_COUNT), { 0 } },
    { "SetVirtualAddressMap(before EBS)", FW_ID_RT(RT_SET_VIRTUAL_ADDRESS_MAP), { H_HUGE, 48, 1, H_OUT } },
};

START_TEST(hostile_arguments_give_errors_and_change_nothing)
{
    const efi_guid_t g = GUID_TEST;
    memcpy(hp(H_GUID), &g, sizeof(g));
    const uint16_t foo[] = { 'F', 'o', 'o', 0 };
    memcpy(hp(H_NAME), foo, sizeof(foo));
    wr64(H_DPP, RAM_SIZE - 2);
    ck_assert_uint_eq(set_var("Foo", GUID_TEST, ATTR_BS, "bar", 3), EFI_SUCCESS);
    uint64_t key = fw.map.key, tables = systab()->number_of_table_entries;
    for (unsigned i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        const struct hostile *h = &hostile[i];
        uint64_t a[6];
        for (unsigned j = 0; j < 6; j++)
            a[j] = h->a[j] == H_IMAGE ? fw.image_handle : h->a[j];
        wr64(H_GOOD, 0x10000);
        wr64(H_GOOD2, 0);
        efi_status_t s = call_args(h->id, a, 6);
        ck_assert_msg(is_error(s), "%s returned %s", h->what, efi_status_name(s));
        ck_assert_msg(fw.map.key == key, "%s changed the memory map", h->what);
        ck_assert_msg(systab()->number_of_table_entries == tables, "%s changed the configuration tables", h->what);
        ck_assert_msg(fw.stop == FW_RUN, "%s stopped the VM", h->what);
    }
    ck_assert_str_eq(console_text(), "");
}
END_TEST

START_TEST(unreadable_stack_arguments_give_invalid_parameter)
{
    uint64_t size_p = put_u64(0);
    uint64_t rsps[] = { RAM_SIZE - 0x28, RAM_SIZE - 0x2c, RAM_SIZE + 0x1000, 0x0000800000000000ULL };
    for (unsigned i = 0; i < sizeof(rsps) / sizeof(rsps[0]); i++) {
        struct fw_call c = { .rcx = size_p, .rdx = 0, .r8 = 0, .r9 = 0, .rsp = rsps[i], .view = cur_view };
        ck_assert_uint_eq(firmware_call(&fw, BS(GET_MEMORY_MAP), &c), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(rd64(size_p), 0);
    }
    ck_assert_ptr_nonnull(strstr(log_text(), "stack argument 5"));
}
END_TEST

START_TEST(unknown_service_ids_are_unsupported)
{
    const unsigned ids[] = { 0, FW_ID_BS(EFI_BOOT_SERVICES_COUNT), FW_ID_RT(0) - 1, FW_ID_RT(EFI_RUNTIME_SERVICES_COUNT),
                             FW_ID_CONOUT(CONOUT_COUNT), FW_ID_CONIN(CONIN_COUNT), 200, FW_ID_EXCEPTION(14), FW_ID_IMAGE_RETURN,
                             FW_MAX_THUNKS - 1, FW_MAX_THUNKS, 100000, 0xffffffffu };
    for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        ck_assert_uint_eq(CALL(ids[i], 1, 2, 3, 4), EFI_UNSUPPORTED);
        ck_assert_ptr_null(firmware_service_name(ids[i]));
    }
    ck_assert_ptr_nonnull(strstr(log_text(), "unknown service ID 4294967295"));
}
END_TEST

START_TEST(unimplemented_services_are_unsupported_and_reported_once)
{
    ck_assert_uint_eq(CALL(BS(REGISTER_PROTOCOL_NOTIFY), put_guid(GUID_TEST), 0, scratch(8)), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(REGISTER_PROTOCOL_NOTIFY), put_guid(GUID_TEST), 0, scratch(8)), EFI_UNSUPPORTED);
    const char *log = log_text(), *first = strstr(log, "RegisterProtocolNotify");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_null(strstr(first + 1, "RegisterProtocolNotify"));
    ck_assert_uint_eq(fw.calls_by_id[BS(REGISTER_PROTOCOL_NOTIFY)], 2);
}
END_TEST

/* How often the log holds needle. */
static unsigned log_count(const char *needle)
{
    unsigned n = 0;
    for (const char *p = log_text(); (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* Issue 26 item 8: a protocol no handle has, asked for through any lookup,
 * and a service slot not served, are each one line naming them. */
#define GUID_SIMPLE_FILE_SYSTEM EFI_GUID(0x964e5b22, 0x6459, 0x11d2, 0x8e, 0x39, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b)

START_TEST(unserved_protocols_and_services_name_themselves_once)
{
    uint64_t iface_p = scratch(8), n_p = scratch(8), buf_p = scratch(8);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.image_handle, put_guid(GUID_SIMPLE_FILE_SYSTEM), iface_p),
                      EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_SIMPLE_FILE_SYSTEM), 0, iface_p), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(BS(OPEN_PROTOCOL), fw.image_handle, put_guid(GUID_SIMPLE_FILE_SYSTEM), iface_p,
                           fw.image_handle, 0, 0x2), EFI_UNSUPPORTED);
    ck_assert_uint_eq(log_count("the guest asked for EFI_SIMPLE_FILE_SYSTEM_PROTOCOL, which handover does not serve: "
                                "HandleProtocol returns EFI_UNSUPPORTED"), 1);
    ck_assert_uint_eq(log_count("EFI_SIMPLE_FILE_SYSTEM_PROTOCOL"), 1);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE_BUFFER), EFI_BY_PROTOCOL, put_guid(GUID_GOP), 0, n_p, buf_p),
                      EFI_NOT_FOUND);
    ck_assert_uint_eq(log_count("the guest asked for EFI_GRAPHICS_OUTPUT_PROTOCOL, which handover does not serve: "
                                "LocateHandleBuffer returns EFI_NOT_FOUND"), 1);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_TEST), 0, iface_p), EFI_NOT_FOUND);
    ck_assert_uint_eq(log_count("the guest asked for protocol 3a1b2c4d-1111-2222-3344-5566778899aa, which handover "
                                "does not serve"), 1);
    /* Served, only not on that handle: nothing is missing. */
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.con_out_handle, put_guid(GUID_LOADED_IMAGE), iface_p),
                      EFI_UNSUPPORTED);
    ck_assert_uint_eq(log_count("EFI_LOADED_IMAGE_PROTOCOL"), 0);
    ck_assert_uint_eq(CALL(BS(REGISTER_PROTOCOL_NOTIFY), put_guid(GUID_TEST), 0, scratch(8)), EFI_UNSUPPORTED);
    ck_assert_uint_eq(log_count("the guest asked for RegisterProtocolNotify, which handover does not serve: "
                                "EFI_UNSUPPORTED"), 1);
}
END_TEST

START_TEST(trace_writes_one_json_line_per_call)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *t = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(t);
    fw.cfg.trace = t;
    fw.cfg.trace_limit = 1 << 20;
    uint64_t size_p = put_u64(0);
    efi_status_t s1 = CALL(BS(GET_MEMORY_MAP), size_p, 0, 0, 0, 0);
    efi_status_t s2 = CALL(77777, 0);
    fw.cfg.trace = NULL;
    fclose(t);
    bool one = buf && strstr(buf, "\"call\":\"GetMemoryMap\"") && strstr(buf, "\"status\":\"EFI_BUFFER_TOO_SMALL\"");
    bool two = buf && strstr(buf, "\"call\":\"unknown\"") && strstr(buf, "\"id\":77777");
    unsigned lines = 0;
    for (size_t i = 0; buf && i < len; i++)
        lines += buf[i] == '\n';
    bool starts = buf && buf[0] == '{';
    free(buf);
    ck_assert_uint_eq(s1, EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(s2, EFI_UNSUPPORTED);
    ck_assert(one);
    ck_assert(two);
    ck_assert(starts);
    ck_assert_uint_eq(lines, 2);
}
END_TEST

/* The "decoded" fields come from the service's row, its decoder; a call
 * without one, or whose fields are all unreadable, has none. */
START_TEST(trace_decodes_arguments_through_the_services_row)
{
    trace_to_memory();
    uint64_t iface_p = put_u64(0), out = scratch(64);
    efi_status_t s = CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_RNG_PROTOCOL), 0, iface_p);
    CALL(BS(LOCATE_HANDLE_BUFFER), EFI_ALL_HANDLES, 0, 0, out, out + 8);
    CALL(BS(FREE_PAGES), 0x5000, 3);
    CALL(FW_ID_RNG(RNG_GET_RNG), fw.rng, 0, 16, out);
    CALL(BS(STALL), 1);
    CALL(BS(HANDLE_PROTOCOL), fw.image_handle, 0, 0);
    char want[1024], got[1024];
    decoded_tails(got, sizeof(got));
    snprintf(want, sizeof(want),
             ",\"decoded\":{\"protocol\":\"EFI_RNG_PROTOCOL\",\"interface\":\"0x%llx\"}}\n"
             ",\"decoded\":{\"search\":\"AllHandles\"}}\n"
             ",\"decoded\":{\"address\":\"0x5000\",\"pages\":3}}\n"
             ",\"decoded\":{\"length\":16}}\n"
             "\n\n", (unsigned long long)fw.rng);
    ck_assert_uint_eq(s, EFI_SUCCESS);
    ck_assert_str_eq(got, want);
}
END_TEST

START_TEST(trace_stops_at_its_limit_and_says_so_once)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *t = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(t);
    fw.cfg.trace = t;
    fw.cfg.trace_limit = 400;
    uint64_t c_p = put_u64(0);
    for (int i = 0; i < 20; i++)
        CALL(BS(GET_NEXT_MONOTONIC_COUNT), c_p);
    fw.cfg.trace = NULL;
    fclose(t);
    size_t traced = len;
    free(buf);
    ck_assert_uint_gt(traced, 0);
    ck_assert_uint_le(traced, 400);
    const char *log = log_text(), *first = strstr(log, "trace limit");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_null(strstr(first + 1, "trace limit"));
}
END_TEST

/* ---- fault injection (--inject) ---------------------------------------------------- */

START_TEST(inject_specs_parse_and_bad_ones_are_refused)
{
    struct inject in;
    char err[128];
    memset(&in, 0, sizeof(in));
    ck_assert_int_eq(inject_parse(&in, "gmm-too-small", err, sizeof(err)), 0);
    ck_assert(in.on[INJECT_GMM_TOO_SMALL]);
    ck_assert_uint_eq(in.value[INJECT_GMM_TOO_SMALL], 1);
    ck_assert_int_eq(inject_parse(&in, "alloc-pages-above:0x100000000", err, sizeof(err)), 0);
    ck_assert_uint_eq(in.value[INJECT_ALLOC_PAGES_ABOVE], 0x100000000ULL);
    const char *bad[] = { "alloc-pages-fail", "alloc-pages-fail:0", "alloc-pages-fail:x", "ebs-stale-key:1",
                          "gmm-too-small:", "gmm", "nonsense:3", "" };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        ck_assert_msg(inject_parse(&in, bad[i], err, sizeof(err)) == -1, "\"%s\" accepted", bad[i]);
        ck_assert_ptr_nonnull(strstr(err, "--inject"));
    }
    ck_assert(!in.on[INJECT_ALLOC_PAGES_FAIL]);
}
END_TEST

START_TEST(injected_stale_key_and_short_map_exercise_the_stub_retries)
{
    fw.cfg.inject.on[INJECT_GMM_TOO_SMALL] = true;
    fw.cfg.inject.value[INJECT_GMM_TOO_SMALL] = 2;
    fw.cfg.inject.on[INJECT_EBS_STALE_KEY] = true;
    uint64_t size_p = put_u64(0), key_p = put_u64(0), dsize_p = put_u64(0), dver_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, 0, key_p, dsize_p, dver_p), EFI_BUFFER_TOO_SMALL);
    uint64_t size = rd64(size_p) + 4 * DESC_SIZE, map = scratch(size);
    for (int i = 0; i < 2; i++) {
        wr64(size_p, size);
        ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, map, key_p, dsize_p, dver_p), EFI_BUFFER_TOO_SMALL);
    }
    wr64(size_p, size);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, map, key_p, dsize_p, dver_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, rd64(key_p)), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.phase, FW_PHASE_BOOT);
    uint64_t key = map_key();
    ck_assert_uint_ne(key, rd64(key_p));   /* the map "changed" */
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, key), EFI_SUCCESS);
    ck_assert_ptr_nonnull(strstr(log_text(), "injected fault ebs-stale-key"));
}
END_TEST

START_TEST(injected_allocation_failures_leave_the_map_as_it_was)
{
    fw.cfg.inject.on[INJECT_ALLOC_PAGES_FAIL] = true;
    fw.cfg.inject.value[INJECT_ALLOC_PAGES_FAIL] = 2;
    fw.cfg.inject.on[INJECT_ALLOC_PAGES_ABOVE] = true;
    fw.cfg.inject.value[INJECT_ALLOC_PAGES_ABOVE] = MiB(8);
    fw.cfg.inject.on[INJECT_ALLOC_POOL_FAIL] = true;
    fw.cfg.inject.value[INJECT_ALLOC_POOL_FAIL] = 1;
    uint64_t mem_p = put_u64(MiB(4));
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, mem_p), EFI_SUCCESS);
    unsigned n = fw.map.n;
    wr64(mem_p, MiB(5));
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ADDRESS, EFI_LOADER_DATA, 1, mem_p),
                      EFI_OUT_OF_RESOURCES);                                   /* the 2nd call */
    ck_assert_int_eq(memmap_type_at(&fw.map, MiB(5)), EFI_CONVENTIONAL_MEMORY);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ANY_PAGES, EFI_LOADER_DATA, 1, mem_p),
                      EFI_OUT_OF_RESOURCES);                                   /* top of RAM is above 8 MiB */
    ck_assert_uint_eq(fw.map.n, n);
    ck_assert_int_eq(memmap_type_at(&fw.map, RAM_SIZE - 0x1000), EFI_CONVENTIONAL_MEMORY);
    wr64(mem_p, MiB(7));
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, 1, mem_p), EFI_SUCCESS);
    ck_assert_uint_lt(rd64(mem_p), MiB(8));
    uint64_t buf_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 64, buf_p), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 64, buf_p), EFI_SUCCESS);
}
END_TEST

START_TEST(injected_protocol_and_variable_faults)
{
    fw.cfg.inject.on[INJECT_NO_LOADED_IMAGE] = true;
    fw.cfg.inject.on[INJECT_GETVAR_ERROR] = true;
    uint64_t iface_p = put_u64(0x1234);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.image_handle, put_guid(GUID_LOADED_IMAGE), iface_p),
                      EFI_UNSUPPORTED);
    ck_assert_uint_eq(rd64(iface_p), 0);
    ck_assert_uint_eq(CALL(BS(HANDLE_PROTOCOL), fw.con_out_handle, put_guid(GUID_SIMPLE_TEXT_OUTPUT), iface_p),
                      EFI_SUCCESS);   /* other protocols unaffected */
    uint64_t size_p = put_u64(8);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("SecureBoot"), put_guid(GUID_GLOBAL_VARIABLE), 0, size_p,
                           scratch(8)),
                      EFI_DEVICE_ERROR);
    ck_assert_uint_eq(rd64(size_p), 8);
}
END_TEST

/* ---- RAM above the hole ------------------------------------------------------------------ */

START_TEST(firmware_map_covers_ram_on_both_sides_of_the_hole)
{
    const uint64_t size = GiB(3) + MiB(64);
    uint8_t *big = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ck_assert_ptr_ne(big, MAP_FAILED);
    struct guest_mem bgm;
    guest_mem_init(&bgm, big, size);
    struct firmware *f = malloc(sizeof(*f));
    struct fw_config cfg = { .base = FW_BASE };
    int rc = f ? firmware_init(f, &bgm, &cfg) : -1;
    int low = rc ? -2 : memmap_type_at(&f->map, GiB(3) - 1);
    int hole = rc ? -2 : memmap_type_at(&f->map, GiB(3));
    int high = rc ? -2 : memmap_type_at(&f->map, GiB(4) + MiB(64) - 1);
    int past = rc ? -2 : memmap_type_at(&f->map, GiB(4) + MiB(64));
    uint64_t a = UINT64_MAX;
    efi_status_t s = rc ? EFI_LOAD_ERROR : memmap_allocate(&f->map, EFI_ALLOCATE_MAX_ADDRESS, EFI_LOADER_DATA, 1, &a);
    if (f)
        firmware_free(f);
    free(f);
    munmap(big, size);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(low, EFI_CONVENTIONAL_MEMORY);
    ck_assert_int_eq(hole, -1);
    ck_assert_int_eq(high, EFI_CONVENTIONAL_MEMORY);
    ck_assert_int_eq(past, -1);
    ck_assert_uint_eq(s, EFI_SUCCESS);
    ck_assert_uint_eq(a, GiB(4) + MiB(64) - 0x1000);
}
END_TEST

/* ---- events and timers (UEFI 2.10 section 7.1), ConIn's keys (12.3) ------------------ */

#define EVT(x) BS(x##_EVENT)
#define NOTIFY_FN 0x1234560ULL   /* a guest notify function's address */
#define MS_100NS(ms) ((uint64_t)(ms) * 10000)   /* SetTimer's TriggerTime unit is 100 ns */

static uint64_t new_event(uint32_t type)
{
    uint64_t p = put_u64(0);
    ck_assert_uint_eq(CALL(EVT(CREATE), type, 0, 0, 0, p), EFI_SUCCESS);
    return rd64(p);
}

static uint64_t new_group_event(efi_guid_t group)
{
    uint64_t p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), 0, 0, 0, 0, put_guid(group), p), EFI_SUCCESS);
    return rd64(p);
}

static uint64_t wait_for_key(void) { return rd64(fw.con_in + 8 * CONIN_COUNT); }

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { 0, (long)ms * 1000000 };
    nanosleep(&ts, NULL);
}

/* WaitForEvent on the list; returns its status and *Index in *index. */
static efi_status_t wait_for(const uint64_t *events, unsigned n, uint64_t *index)
{
    uint64_t list = put(events, 8 * n), index_p = put_u64(~0ULL);
    efi_status_t s = CALL(BS(WAIT_FOR_EVENT), n, list, index_p);
    *index = rd64(index_p);
    return s;
}

START_TEST(create_event_makes_handles_in_the_firmware_region_and_wait_for_key_is_one)
{
    uint64_t plain = new_event(0), timer = new_event(EVT_TIMER);
    const uint64_t first = FW_BASE + FW_EVENTS_OFFSET;
    ck_assert_uint_eq(wait_for_key(), first);   /* made at init, the first event */
    ck_assert_uint_eq(plain, first + 8);
    ck_assert_uint_eq(timer, first + 16);
    ck_assert_uint_eq(memmap_type_at(&fw.map, plain), EFI_BOOT_SERVICES_DATA);
    ck_assert_uint_eq(CALL(EVT(CHECK), wait_for_key()), EFI_NOT_READY);   /* no --keys */
    ck_assert_uint_eq(CALL(EVT(CHECK), plain), EFI_NOT_READY);
    ck_assert_uint_eq(CALL(EVT(CHECK), timer), EFI_NOT_READY);
}
END_TEST

START_TEST(create_event_refuses_bad_types_tpls_and_pointers)
{
    uint64_t p = put_u64(0), far = RAM_SIZE - 4, group = put_guid(GUID_TEST);
    const uint64_t bad_types[] = { 1, EVT_RUNTIME, EVT_NOTIFY_WAIT | EVT_NOTIFY_SIGNAL, EVT_TIMER | EVT_RUNTIME,
                                   EVT_TIMER | EVT_SIGNAL_EXIT_BOOT_SERVICES, 0x20000000 };
    for (unsigned i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++)
        ck_assert_uint_eq(CALL(EVT(CREATE), bad_types[i], 8, NOTIFY_FN, 0, p), EFI_INVALID_PARAMETER);
    /* A notify type needs a function and a TPL above TPL_APPLICATION, below TPL_HIGH_LEVEL. */
    ck_assert_uint_eq(CALL(EVT(CREATE), EVT_NOTIFY_WAIT, 8, 0, 0, p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(EVT(CREATE), EVT_NOTIFY_SIGNAL, FW_TPL_APPLICATION, NOTIFY_FN, 0, p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(EVT(CREATE), EVT_NOTIFY_SIGNAL, FW_TPL_HIGH_LEVEL, NOTIFY_FN, 0, p), EFI_INVALID_PARAMETER);
    /* *Event NULL or outside RAM; an unreadable EventGroup; an exit-boot-services
     * type with a group of its own. */
    ck_assert_uint_eq(CALL(EVT(CREATE), 0, 0, 0, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(EVT(CREATE), 0, 0, 0, 0, far), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), 0, 0, 0, 0, far, p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_SIGNAL_EXIT_BOOT_SERVICES, 8, NOTIFY_FN, 0, group, p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(p), 0);
    ck_assert_uint_eq(fw.events.n, 1);   /* only WaitForKey */
    /* EVT_RUNTIME goes only with EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE; Type is a
     * UINT32, so RCX's upper half is not the caller's. */
    ck_assert_uint_eq(CALL(EVT(CREATE), 0xdead000080000000ULL, 0, 0, 0, p), EFI_SUCCESS);
}
END_TEST

/* ---- notify functions (UEFI 2.10 section 7.1; EDK2 Event.c, Tpl.c) --------------- */

#define TPL_CALLBACK 8
#define TPL_NOTIFY   16
#define NOTIFY_FN2   0x1234570ULL

static uint64_t new_notify_event(uint32_t type, uint64_t tpl, uint64_t fn, uint64_t context)
{
    uint64_t p = put_u64(0);
    ck_assert_uint_eq(CALL(EVT(CREATE), type, tpl, fn, context, p), EFI_SUCCESS);
    return rd64(p);
}

/* The vCPU was sent to the trampoline to call fn(event, context) at tpl:
 * RSP 16-byte aligned (the trampoline keeps it so at the call), below the
 * caller's frame, and readable. */
static void assert_notify_runs(uint64_t event, uint64_t fn, uint64_t context, uint64_t tpl, uint64_t below)
{
    ck_assert(fw.transfer.pending);
    ck_assert_uint_eq(fw.transfer.rip, firmware_thunk(&fw, FW_ID_NOTIFY_RETURN));
    ck_assert_uint_eq(fw.transfer.rcx, event);
    ck_assert_uint_eq(fw.transfer.rdx, context);
    ck_assert_uint_eq(fw.transfer.r8, fn);
    ck_assert_uint_eq(fw.transfer.rsp % 16, 0);
    ck_assert_uint_lt(fw.transfer.rsp, below);
    ck_assert_uint_eq(fw.tpl, tpl);
}

/* The function returned: the trampoline re-enters the firmware with RCX =
 * the event, RDX = the function, on the RSP it was given. */
static efi_status_t notify_returns(void)
{
    uint64_t saved = cur_rsp;
    cur_rsp = fw.transfer.rsp;
    efi_status_t s = CALL(FW_ID_NOTIFY_RETURN, fw.transfer.rcx, fw.transfer.r8);
    cur_rsp = saved;
    return s;
}

/* The call made at rsp returns to its caller with the TPL it was made at. */
static void assert_call_returns(unsigned id, uint64_t rsp, uint64_t tpl)
{
    ck_assert(fw.transfer.pending);
    ck_assert_uint_eq(fw.transfer.rip, firmware_thunk(&fw, id) + FW_THUNK_RET);
    ck_assert_uint_eq(fw.transfer.rsp, rsp);
    ck_assert_uint_eq(fw.tpl, tpl);
    ck_assert_uint_eq(fw.events.depth, 0);
}

START_TEST(signal_event_runs_the_notify_function_through_the_trampoline)
{
    const uint8_t *t = hp(firmware_thunk(&fw, FW_ID_NOTIFY_RETURN));
    static const uint8_t call_r8[] = { 0x51, 0x41, 0x50, 0x48, 0x83, 0xec, 0x20, 0x41, 0xff, 0xd0 };
    ck_assert_mem_eq(t, call_r8, sizeof(call_r8));
    uint32_t id;
    memcpy(&id, t + 17, 4);
    ck_assert_uint_eq(id, FW_ID_NOTIFY_RETURN);
    ck_assert_uint_eq(t[21], 0xe7);

    uint64_t e = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 0x777);
    for (int round = 0; round < 2; round++) {   /* unsignaled as it runs: a second signal runs it again */
        ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);
        assert_notify_runs(e, NOTIFY_FN, 0x777, TPL_CALLBACK, STACK_TOP);
        ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
        assert_call_returns(EVT(SIGNAL), STACK_TOP, FW_TPL_APPLICATION);
    }
    /* Not for CheckEvent or WaitForEvent (UEFI 2.10 section 7.1.8). */
    uint64_t index;
    ck_assert_uint_eq(CALL(EVT(CHECK), e), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(wait_for(&e, 1, &index), EFI_INVALID_PARAMETER);
    /* A closed event's queued function never runs. */
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), TPL_NOTIFY), FW_TPL_APPLICATION);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CLOSE), e), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(RESTORE_TPL), FW_TPL_APPLICATION), EFI_SUCCESS);
    ck_assert(!fw.transfer.pending);
}
END_TEST

START_TEST(restore_tpl_delivers_what_raise_tpl_held_back_highest_tpl_first)
{
    uint64_t a = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 1);
    uint64_t b = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_NOTIFY, NOTIFY_FN2, 2);
    uint64_t c = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 3);
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), TPL_NOTIFY), FW_TPL_APPLICATION);
    const uint64_t order[] = { c, a, b };   /* signaled in this order */
    for (unsigned i = 0; i < 3; i++) {
        ck_assert_uint_eq(CALL(EVT(SIGNAL), order[i]), EFI_SUCCESS);
        ck_assert(!fw.transfer.pending);   /* none is above TPL_NOTIFY */
    }
    ck_assert_uint_eq(CALL(BS(RESTORE_TPL), FW_TPL_APPLICATION), EFI_SUCCESS);
    assert_notify_runs(b, NOTIFY_FN2, 2, TPL_NOTIFY, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_notify_runs(c, NOTIFY_FN, 3, TPL_CALLBACK, STACK_TOP);   /* then in queue order */
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_notify_runs(a, NOTIFY_FN, 1, TPL_CALLBACK, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_call_returns(BS(RESTORE_TPL), STACK_TOP, FW_TPL_APPLICATION);
}
END_TEST

/* A notify function's own calls run only functions above its TPL; the
 * others wait until it returns. */
START_TEST(a_notify_function_calling_services_nests_only_above_its_tpl)
{
    uint64_t outer = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 1);
    uint64_t same = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 2);
    uint64_t high = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_NOTIFY, NOTIFY_FN2, 3);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), outer), EFI_SUCCESS);
    assert_notify_runs(outer, NOTIFY_FN, 1, TPL_CALLBACK, STACK_TOP);
    uint64_t outer_stack = fw.transfer.rsp, saved = cur_rsp;
    cur_rsp = outer_stack - 0x60;   /* inside the function */
    ck_assert_uint_eq(CALL(EVT(SIGNAL), same), EFI_SUCCESS);
    ck_assert(!fw.transfer.pending);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), high), EFI_SUCCESS);
    assert_notify_runs(high, NOTIFY_FN2, 3, TPL_NOTIFY, outer_stack - 0x60);
    ck_assert_uint_eq(fw.events.depth, 2);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    ck_assert_uint_eq(fw.transfer.rip, firmware_thunk(&fw, EVT(SIGNAL)) + FW_THUNK_RET);
    ck_assert_uint_eq(fw.transfer.rsp, outer_stack - 0x60);
    ck_assert_uint_eq(fw.tpl, TPL_CALLBACK);
    cur_rsp = saved;
    fw.transfer.rsp = outer_stack;
    fw.transfer.rcx = outer;
    fw.transfer.r8 = NOTIFY_FN;
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_notify_runs(same, NOTIFY_FN, 2, TPL_CALLBACK, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_call_returns(EVT(SIGNAL), STACK_TOP, FW_TPL_APPLICATION);
}
END_TEST

/* EVT_SIGNAL_EXIT_BOOT_SERVICES and CreateEventEx's group of that GUID are
 * one group; its functions run before boot services end (EDK2
 * CoreExitBootServices), and so do SetVirtualAddressMap's. */
START_TEST(exit_boot_services_and_set_virtual_address_map_run_their_groups_first)
{
    uint64_t p = put_u64(0);
    uint64_t ebs = new_notify_event(EVT_SIGNAL_EXIT_BOOT_SERVICES, TPL_NOTIFY, NOTIFY_FN, 1);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN2, 2,
                           put_guid(GUID_EVENT_GROUP_EXIT_BOOT_SERVICES), p), EFI_SUCCESS);
    uint64_t ex = rd64(p);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 3, put_guid(GUID_TEST), p),
                      EFI_SUCCESS);
    uint64_t vac = new_notify_event(EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE, TPL_NOTIFY, NOTIFY_FN2, 4);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, map_key()), EFI_SUCCESS);
    ck_assert_uint_eq(fw.phase, FW_PHASE_BOOT);   /* not yet */
    assert_notify_runs(ebs, NOTIFY_FN, 1, TPL_NOTIFY, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_notify_runs(ex, NOTIFY_FN2, 2, TPL_CALLBACK, STACK_TOP);
    ck_assert_uint_eq(fw.phase, FW_PHASE_BOOT);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);   /* the TEST group's and vac's are not signaled */
    assert_call_returns(BS(EXIT_BOOT_SERVICES), STACK_TOP, FW_TPL_APPLICATION);
    ck_assert_uint_eq(fw.phase, FW_PHASE_RUNTIME);
    ck_assert_uint_eq(systab()->boot_services, 0);

    uint64_t size, map = virtual_map(&size);
    ck_assert_uint_eq(CALL(RT(SET_VIRTUAL_ADDRESS_MAP), size, DESC_SIZE, EFI_MEMORY_DESCRIPTOR_VERSION, map),
                      EFI_SUCCESS);
    assert_notify_runs(vac, NOTIFY_FN2, 4, TPL_NOTIFY, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_call_returns(RT(SET_VIRTUAL_ADDRESS_MAP), STACK_TOP, FW_TPL_APPLICATION);
}
END_TEST

/* A notify-wait event's function runs when CheckEvent finds it
 * unsignaled, and CheckEvent then looks again; WaitForEvent is made again
 * after its list's functions ran. */
START_TEST(wait_notify_functions_run_from_check_event_and_wait_for_event)
{
    uint64_t w = new_notify_event(EVT_NOTIFY_WAIT, TPL_CALLBACK, NOTIFY_FN, 5);
    ck_assert_uint_eq(CALL(EVT(CHECK), w), EFI_NOT_READY);
    assert_notify_runs(w, NOTIFY_FN, 5, TPL_CALLBACK, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_NOT_READY);   /* it signaled nothing */
    assert_call_returns(EVT(CHECK), STACK_TOP, FW_TPL_APPLICATION);

    ck_assert_uint_eq(CALL(EVT(CHECK), w), EFI_NOT_READY);
    uint64_t saved = cur_rsp;
    cur_rsp = fw.transfer.rsp - 0x60;
    ck_assert_uint_eq(CALL(EVT(SIGNAL), w), EFI_SUCCESS);   /* the function signals its event */
    cur_rsp = saved;
    ck_assert_uint_eq(notify_returns(), EFI_SUCCESS);
    assert_call_returns(EVT(CHECK), STACK_TOP, FW_TPL_APPLICATION);
    ck_assert_uint_eq(CALL(EVT(CHECK), w), EFI_NOT_READY);  /* reset as reported, and the function ran again */
    ck_assert_uint_eq(notify_returns(), EFI_NOT_READY);

    uint64_t list = put_u64(w), index_p = put_u64(~0ULL);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 1, list, index_p), EFI_NOT_READY);
    assert_notify_runs(w, NOTIFY_FN, 5, TPL_CALLBACK, STACK_TOP);
    ck_assert_uint_eq(notify_returns(), EFI_NOT_READY);
    ck_assert_uint_eq(fw.transfer.rip, firmware_thunk(&fw, BS(WAIT_FOR_EVENT)));   /* made again */
    ck_assert_uint_eq(fw.transfer.rsp, STACK_TOP);
    ck_assert_uint_eq(fw.transfer.rcx, 1);
    ck_assert_uint_eq(fw.transfer.rdx, list);
    ck_assert_uint_eq(fw.transfer.r8, index_p);
    ck_assert_uint_gt(fw.sleep_ns, 0);
}
END_TEST

START_TEST(notify_functions_need_a_stack_and_a_running_function_to_return_from)
{
    ck_assert_uint_eq(CALL(FW_ID_NOTIFY_RETURN, 0, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.stop, FW_STOP_EXIT);
    ck_assert_ptr_nonnull(strstr(log_text(), "the notify trampoline reached with no notify function running"));
    fw.stop = FW_RUN;
    uint64_t e = new_notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_FN, 0);
    uint64_t saved = cur_rsp;
    cur_rsp = 0x40;   /* no room below the caller's RSP */
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);
    ck_assert(!fw.transfer.pending);
    ck_assert_ptr_nonnull(strstr(log_text(), "they stay queued"));
    cur_rsp = saved;
    ck_assert_uint_eq(CALL(BS(STALL), 0), EFI_SUCCESS);   /* any later call runs it */
    assert_notify_runs(e, NOTIFY_FN, 0, TPL_CALLBACK, STACK_TOP);
}
END_TEST

START_TEST(check_event_after_relative_timers_of_zero_and_of_an_hour)
{
    uint64_t now = new_event(EVT_TIMER), later = new_event(EVT_TIMER);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), now, EFI_TIMER_RELATIVE, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), later, EFI_TIMER_RELATIVE, MS_100NS(3600 * 1000)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), now), EFI_SUCCESS);       /* due at the next look */
    ck_assert_uint_eq(CALL(EVT(CHECK), now), EFI_NOT_READY);     /* reset as reported; relative fires once */
    ck_assert_uint_eq(CALL(EVT(CHECK), later), EFI_NOT_READY);
    /* A new setting replaces the old one; TimerCancel disarms. */
    ck_assert_uint_eq(CALL(BS(SET_TIMER), later, EFI_TIMER_RELATIVE, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), later, EFI_TIMER_CANCEL, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), later), EFI_NOT_READY);
    /* A trigger time too large to add stays in the future. */
    ck_assert_uint_eq(CALL(BS(SET_TIMER), later, EFI_TIMER_RELATIVE, ~0ULL), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), later), EFI_NOT_READY);
    /* Only a timer event takes a timer, of one of the three types. */
    ck_assert_uint_eq(CALL(BS(SET_TIMER), new_event(0), EFI_TIMER_RELATIVE, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), now, 3, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), wait_for_key(), EFI_TIMER_RELATIVE, 0), EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(periodic_timers_signal_once_per_period)
{
    uint64_t every = new_event(EVT_TIMER), tick = new_event(EVT_TIMER);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), every, EFI_TIMER_PERIODIC, 0), EFI_SUCCESS);
    for (unsigned i = 0; i < 3; i++)
        ck_assert_uint_eq(CALL(EVT(CHECK), every), EFI_SUCCESS);   /* a period of 0: due at every look */
    ck_assert_uint_eq(CALL(BS(SET_TIMER), tick, EFI_TIMER_PERIODIC, MS_100NS(150)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_NOT_READY);
    sleep_ms(170);
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_NOT_READY);
    sleep_ms(330);   /* two periods missed: one signal */
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_NOT_READY);
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), tick), EFI_SUCCESS);   /* the timer goes with it */
    ck_assert_uint_eq(CALL(EVT(CHECK), tick), EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(signal_check_and_close_and_stale_or_wild_handles)
{
    uint64_t e = new_event(0);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);   /* signaled is a state, not a count */
    ck_assert_uint_eq(CALL(EVT(CHECK), e), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), e), EFI_NOT_READY);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), e), EFI_SUCCESS);
    uint64_t again = new_event(0);
    ck_assert_uint_ne(again, e);   /* never reused */
    const uint64_t first = FW_BASE + FW_EVENTS_OFFSET;
    const uint64_t wild[] = { e, 0, first - 8, first + 4, again + 8, first + 8 * FW_MAX_EVENTS, RAM_SIZE + 8, ~0ULL,
                              fw.image_handle };
    for (unsigned i = 0; i < sizeof(wild) / sizeof(wild[0]); i++) {
        ck_assert_uint_eq(CALL(EVT(CHECK), wild[i]), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(CALL(EVT(SIGNAL), wild[i]), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), wild[i]), EFI_INVALID_PARAMETER);
        ck_assert_uint_eq(CALL(BS(SET_TIMER), wild[i], EFI_TIMER_RELATIVE, 0), EFI_INVALID_PARAMETER);
    }
    ck_assert_uint_eq(CALL(EVT(CHECK), again), EFI_NOT_READY);
}
END_TEST

START_TEST(event_handles_are_spent_once_and_said_once)
{
    uint64_t p = put_u64(0);
    while (fw.events.n < FW_MAX_EVENTS)
        ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), new_event(0)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CREATE), 0, 0, 0, 0, p), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(CALL(EVT(CREATE), EVT_TIMER, 0, 0, 0, p), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(rd64(p), 0);
    const char *first = strstr(log_text(), "event handles are spent");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_null(strstr(first + 1, "event handles are spent"));
}
END_TEST

START_TEST(event_groups_signal_together)
{
    const efi_guid_t other = GUID_GOP;
    uint64_t a1 = new_group_event(GUID_TEST), a2 = new_group_event(GUID_TEST), b = new_group_event(other);
    uint64_t lone = new_event(0), timer_p = put_u64(0);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), a1), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), a2), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), a1), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), b), EFI_NOT_READY);
    ck_assert_uint_eq(CALL(EVT(CHECK), lone), EFI_NOT_READY);
    /* A timer in the group signals the group when it is due. */
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT_EX), EVT_TIMER, 0, 0, 0, put_guid(GUID_TEST), timer_p), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), rd64(timer_p), EFI_TIMER_RELATIVE, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), a2), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), a1), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), rd64(timer_p)), EFI_SUCCESS);
    /* A closed member is out of the group. */
    ck_assert_uint_eq(CALL(BS(CLOSE_EVENT), a2), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(SIGNAL), a1), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), a1), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(EVT(CHECK), b), EFI_NOT_READY);
}
END_TEST

START_TEST(wait_for_event_returns_the_index_of_the_signaled_event)
{
    uint64_t e[3] = { new_event(0), new_event(EVT_TIMER), new_event(0) }, index;
    ck_assert_uint_eq(CALL(EVT(SIGNAL), e[2]), EFI_SUCCESS);
    ck_assert_uint_eq(wait_for(e, 3, &index), EFI_SUCCESS);
    ck_assert_uint_eq(index, 2);
    ck_assert_uint_eq(CALL(EVT(CHECK), e[2]), EFI_NOT_READY);   /* reset as reported */
    ck_assert(!fw.transfer.pending);
    /* The first of those signaled, in list order. */
    CALL(EVT(SIGNAL), e[2]);
    CALL(BS(SET_TIMER), e[1], EFI_TIMER_RELATIVE, 0);
    ck_assert_uint_eq(wait_for(e, 3, &index), EFI_SUCCESS);
    ck_assert_uint_eq(index, 1);
    ck_assert_uint_eq(wait_for(e, 3, &index), EFI_SUCCESS);
    ck_assert_uint_eq(index, 2);
}
END_TEST

START_TEST(wait_for_event_refuses_hostile_lists)
{
    uint64_t e[2] = { new_event(0), new_event(0) }, index, list = put(e, 16), index_p = put_u64(7);
    ck_assert_uint_eq(wait_for(e, 0, &index), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, 0, index_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, RAM_SIZE - 8, index_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 1ULL << 61, list, index_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, list, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, list, RAM_SIZE - 4), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(index_p), 7);
    /* An event that is not one: EFI_INVALID_PARAMETER with its index. */
    CALL(BS(CLOSE_EVENT), e[1]);
    ck_assert_uint_eq(wait_for(e, 2, &index), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(index, 1);
    /* Only at TPL_APPLICATION (UEFI 2.10 section 7.1.6). */
    CALL(EVT(SIGNAL), e[0]);
    CALL(BS(RAISE_TPL), 8);
    ck_assert_uint_eq(wait_for(e, 1, &index), EFI_UNSUPPORTED);
    CALL(BS(RESTORE_TPL), FW_TPL_APPLICATION);
    ck_assert_uint_eq(wait_for(e, 1, &index), EFI_SUCCESS);
    ck_assert(!fw.transfer.pending);
}
END_TEST

/* Nothing signaled: the vCPU makes the same call again, after the VMM
 * slept until the timer is due. */
START_TEST(wait_for_event_with_nothing_signaled_makes_the_call_again)
{
    uint64_t e[2] = { new_event(0), new_event(EVT_TIMER) }, list = put(e, 16), index_p = put_u64(9);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), e[1], EFI_TIMER_RELATIVE, MS_100NS(50)), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, list, index_p), EFI_NOT_READY);
    ck_assert(fw.transfer.pending && !fw.transfer.restore);
    ck_assert_uint_eq(fw.transfer.rip, firmware_thunk(&fw, BS(WAIT_FOR_EVENT)));
    ck_assert_uint_eq(fw.transfer.rsp, cur_rsp);   /* the caller's return address is still at RSP */
    ck_assert_uint_eq(fw.transfer.rcx, 2);
    ck_assert_uint_eq(fw.transfer.rdx, list);
    ck_assert_uint_gt(fw.sleep_ns, 0);
    ck_assert_uint_le(fw.sleep_ns, 50000000);
    ck_assert_uint_eq(rd64(index_p), 9);
    struct timespec ts = { 0, (long)fw.sleep_ns };
    nanosleep(&ts, NULL);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 2, list, index_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(index_p), 1);
    ck_assert(!fw.transfer.pending);
    /* No timer and no key to come: the longest sleep, and a word in the log, once. */
    for (unsigned i = 0; i < 2; i++) {
        ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 1, put_u64(wait_for_key()), index_p), EFI_NOT_READY);
        ck_assert(fw.transfer.pending);
        ck_assert_uint_eq(fw.sleep_ns, FW_WAIT_MAX_NS);
    }
    const char *first = strstr(log_text(), "nothing will signal");
    ck_assert_ptr_nonnull(first);
    ck_assert_ptr_null(strstr(first + 1, "nothing will signal"));
}
END_TEST

/* --keys, escapes and all, one a call, then EFI_NOT_READY; WaitForKey is
 * signaled while keys remain. */
START_TEST(read_key_stroke_delivers_the_keys_in_order_and_wait_for_key_follows)
{
    fw.cfg.keys = "a\\n\\r\\e\\t\\b\\\\\\U\\D\\L\\R\xc3\xa9\n";
    static const struct efi_input_key want[] = {
        { 0, 'a' }, { 0, 0x0d }, { 0, 0x0d }, { 0x17, 0 }, { 0, 0x09 }, { 0, 0x08 }, { 0, '\\' },
        { 0x01, 0 }, { 0x02, 0 }, { 0x04, 0 }, { 0x03, 0 }, { 0, 0xe9 }, { 0, 0x0d },
    };
    uint64_t key = scratch(4), timer = new_event(EVT_TIMER), index;
    CALL(BS(SET_TIMER), timer, EFI_TIMER_RELATIVE, MS_100NS(3600 * 1000));
    ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_RESET), fw.con_in, 0), EFI_SUCCESS);   /* drops no --keys */
    /* A key pointer outside RAM: refused, and the key stays. */
    ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_READ_KEY_STROKE), fw.con_in, RAM_SIZE - 2), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_READ_KEY_STROKE), fw.con_in, 0), EFI_INVALID_PARAMETER);
    for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        ck_assert_uint_eq(wait_for((const uint64_t[]){ timer, wait_for_key() }, 2, &index), EFI_SUCCESS);
        ck_assert_uint_eq(index, 1);
        ck_assert_uint_eq(CALL(EVT(CHECK), wait_for_key()), EFI_SUCCESS);   /* still keys: signaled again */
        ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_READ_KEY_STROKE), fw.con_in, key), EFI_SUCCESS);
        struct efi_input_key got;
        memcpy(&got, hp(key), sizeof(got));
        ck_assert_msg(got.scan_code == want[i].scan_code && got.unicode_char == want[i].unicode_char,
                      "key %u: scan 0x%x char 0x%x, want 0x%x 0x%x", i, got.scan_code, got.unicode_char,
                      want[i].scan_code, want[i].unicode_char);
    }
    ck_assert_uint_eq(CALL(EVT(CHECK), wait_for_key()), EFI_NOT_READY);
    ck_assert_uint_eq(CALL(FW_ID_CONIN(CONIN_READ_KEY_STROKE), fw.con_in, key), EFI_NOT_READY);
    ck_assert_uint_eq(fw.key_polls, 1);
}
END_TEST

START_TEST(keys_check_says_what_is_wrong)
{
    char err[200];
    struct efi_input_key k;
    ck_assert_int_eq(keys_check("", err, sizeof(err)), 0);
    ck_assert_int_eq(keys_check("yes\\n\\U\\\\", err, sizeof(err)), 0);
    ck_assert_int_eq(keys_check("ab\\q", err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "\\q at offset 2 names no key"));
    ck_assert_int_eq(keys_check("ab\\", err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "lone backslash"));
    ck_assert_int_eq(keys_check("\\\x01", err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "byte 0x01"));
    ck_assert_int_eq(keys_next("\xe2\x82\xac!", &k), 3);   /* UTF-8: one key per character */
    ck_assert_uint_eq(k.unicode_char, 0x20ac);
    ck_assert_int_eq(keys_next("", &k), 0);
}
END_TEST

START_TEST(trace_decodes_the_event_services)
{
    trace_to_memory();
    uint64_t p = put_u64(0), index_p = put_u64(0);
    CALL(EVT(CREATE), EVT_TIMER, 0, 0, 0, p);
    uint64_t e = rd64(p);
    CALL(BS(CREATE_EVENT_EX), EVT_NOTIFY_SIGNAL, 8, NOTIFY_FN, 0, put_guid(GUID_RANDOM_SEED), p);
    CALL(BS(SET_TIMER), e, EFI_TIMER_PERIODIC, 100);
    CALL(EVT(SIGNAL), e);
    CALL(BS(WAIT_FOR_EVENT), 2, put(((const uint64_t[]){ wait_for_key(), e }), 16), index_p);
    CALL(BS(WAIT_FOR_EVENT), 1, put_u64(wait_for_key()), index_p);
    char want[1024], got[1024];
    decoded_tails(got, sizeof(got));
    snprintf(want, sizeof(want),
             ",\"decoded\":{\"type\":\"EVT_TIMER\",\"event\":\"0x%llx\"}}\n"
             ",\"decoded\":{\"type\":\"EVT_NOTIFY_SIGNAL\",\"notify_tpl\":8,\"notify_function\":\"0x1234560\","
             "\"group\":\"LINUX_EFI_RANDOM_SEED\",\"event\":\"0x%llx\"}}\n"
             ",\"decoded\":{\"event\":\"0x%llx\",\"timer\":\"TimerPeriodic\",\"trigger_time_100ns\":100}}\n"
             ",\"decoded\":{\"event\":\"0x%llx\"}}\n"
             ",\"decoded\":{\"events\":2,\"index\":1}}\n"
             ",\"decoded\":{\"events\":1,\"wait\":\"none signaled: the call is made again\"}}\n",
             (unsigned long long)e, (unsigned long long)e + 8, (unsigned long long)e, (unsigned long long)e);
    ck_assert_str_eq(got, want);
}
END_TEST

Suite *firmware_suite(void)
{
    Suite *s = suite_create("firmware");
    struct { const char *name; const TTest *tests[24]; } groups[] = {
        { "tables", { tables_have_signatures_revisions_and_header_sizes, tables_carry_a_valid_crc32,
                      system_table_points_at_the_firmwares_structures, firmware_vendor_is_a_readable_ucs2_string,
                      service_pointers_are_thunks_calling_their_own_id,
                      test_service_constants_name_the_right_services,
                      firmware_memory_is_runtime_and_boot_services_memory,
                      firmware_init_refuses_a_base_it_cannot_use } },
        { "memory", { get_memory_map_size_probe_fills_size_and_descriptor_info,
                      get_memory_map_returns_every_descriptor_and_the_key,
                      map_key_changes_after_allocate_and_free_pages, map_key_changes_after_allocate_and_free_pool,
                      failed_memory_calls_leave_the_map_key_alone, allocate_pages_service_honours_each_allocate_type,
                      free_pool_null_is_harmless, allocate_address_takes_each_conventional_range_whole } },
        { "exit-boot-services", { exit_boot_services_refuses_a_stale_key_then_accepts_a_fresh_one,
                                  exit_boot_services_needs_the_image_handle,
                                  exit_boot_services_clears_boot_time_fields_and_keeps_the_crc_valid,
                                  boot_services_after_exit_are_unsupported } },
        { "variables", { get_variable_not_found_leaves_data_size_untouched,
                         set_then_get_variable_round_trips_data_and_attributes,
                         get_variable_too_small_reports_the_size_and_writes_no_data,
                         get_next_variable_name_walks_in_creation_order,
                         get_next_variable_name_too_small_reports_the_size, setting_size_zero_deletes_a_variable,
                         set_variable_refuses_bad_attributes_and_names, append_write_extends_a_variable,
                         runtime_get_variable_works_after_exit_boot_services,
                         variables_without_runtime_access_vanish_after_exit_boot_services,
                         query_variable_info_reports_the_store, store_limit_counts_the_host_cost_of_each_variable,
                         get_variable_with_null_data_size_is_invalid,
                         get_next_variable_name_with_null_size_is_invalid, set_variable_with_null_data_is_invalid } },
        { "protocols", { locate_protocol_not_found_sets_interface_to_null, locate_protocol_finds_the_console,
                         locate_handle_for_gop_is_not_found, locate_handle_reports_the_size_then_the_handles,
                         locate_handle_buffer_returns_a_pool_of_handles,
                         locate_device_path_for_the_initrd_is_exactly_not_found,
                         handle_protocol_loaded_image_describes_the_image, firmware_set_image_updates_the_loaded_image,
                         loaded_image_without_a_command_line_has_no_load_options,
                         handle_protocol_on_unknown_handles_and_protocols, rng_protocol_reports_the_raw_algorithm,
                         rng_with_a_seed_is_deterministic_and_checks_its_arguments } },
        { "handles", { install_protocol_interface_makes_a_handle_that_lookups_see,
                       reinstall_and_uninstall_need_the_installed_interface,
                       install_multiple_registers_the_stub_initrd_where_the_kernel_finds_it,
                       hostile_variadic_lists_are_refused_whole } },
        { "images", { load_image_maps_relocates_and_describes_a_pe_from_a_buffer,
                      load_image_refuses_what_it_cannot_load, load_image_reads_a_file_of_the_esp_volume,
                      load_image_keeps_the_device_path_it_copied_before_loading,
                      free_pages_refuses_an_images_pages,
                      start_image_enters_the_entry_and_its_return_restores_the_caller,
                      exit_unwinds_only_the_running_image_and_nests,
                      a_started_image_may_exit_boot_services_with_its_own_handle,
                      start_image_refuses_hostile_arguments, trace_decodes_the_handle_and_image_services } },
        { "config-tables", { install_configuration_table_adds_replaces_and_removes,
                             configuration_table_array_has_a_bound,
                             install_configuration_table_never_follows_a_guest_count_out_of_ram,
                             crc_update_ignores_a_header_size_the_guest_rewrote } },
        { "misc", { calculate_crc32_matches_zlib, copy_mem_handles_overlap_both_ways, set_mem_fills_exactly_the_buffer,
                    monotonic_count_tpl_and_watchdog, exit_and_reset_system_stop_the_vm,
                    get_time_gives_a_plausible_date, stall_asks_the_vcpu_to_sleep_after_the_call } },
        { "console", { output_string_converts_ucs2_to_utf8_and_drops_cr, output_string_keeps_the_last_nonempty_line,
                       output_string_prints_long_strings_whole,
                       output_string_running_off_ram_prints_nothing, conout_query_mode_offers_80x25_only,
                       output_string_stops_at_the_console_limit, firmware_log_stops_after_its_limit,
                       load_options_are_the_command_line_in_ucs2, read_key_stroke_never_has_a_key_and_says_so_once } },
        { "events", { create_event_makes_handles_in_the_firmware_region_and_wait_for_key_is_one,
                      create_event_refuses_bad_types_tpls_and_pointers,
                      signal_event_runs_the_notify_function_through_the_trampoline,
                      restore_tpl_delivers_what_raise_tpl_held_back_highest_tpl_first,
                      a_notify_function_calling_services_nests_only_above_its_tpl,
                      exit_boot_services_and_set_virtual_address_map_run_their_groups_first,
                      wait_notify_functions_run_from_check_event_and_wait_for_event,
                      notify_functions_need_a_stack_and_a_running_function_to_return_from,
                      check_event_after_relative_timers_of_zero_and_of_an_hour, periodic_timers_signal_once_per_period,
                      signal_check_and_close_and_stale_or_wild_handles, event_handles_are_spent_once_and_said_once,
                      event_groups_signal_together, wait_for_event_returns_the_index_of_the_signaled_event,
                      wait_for_event_refuses_hostile_lists, wait_for_event_with_nothing_signaled_makes_the_call_again,
                      read_key_stroke_delivers_the_keys_in_order_and_wait_for_key_follows,
                      keys_check_says_what_is_wrong, trace_decodes_the_event_services } },
        { "virtual-mode", { set_virtual_address_map_before_exit_is_unsupported,
                            set_virtual_address_map_moves_the_runtime_pointers,
                            set_virtual_address_map_refuses_bad_maps, runtime_services_follow_the_guests_page_tables } },
        { "inject", { inject_specs_parse_and_bad_ones_are_refused,
                      injected_stale_key_and_short_map_exercise_the_stub_retries,
                      injected_allocation_failures_leave_the_map_as_it_was, injected_protocol_and_variable_faults } },
        { "hostile", { hostile_arguments_give_errors_and_change_nothing,
                       unreadable_stack_arguments_give_invalid_parameter, unknown_service_ids_are_unsupported,
                       unimplemented_services_are_unsupported_and_reported_once,
                       unserved_protocols_and_services_name_themselves_once, trace_writes_one_json_line_per_call,
                       trace_decodes_arguments_through_the_services_row, trace_stops_at_its_limit_and_says_so_once,
                       firmware_map_covers_ram_on_both_sides_of_the_hole } },
    };
    for (unsigned g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
        TCase *tc = tcase_create(groups[g].name);
        tcase_add_checked_fixture(tc, fw_setup, fw_teardown);
        tcase_set_timeout(tc, 30);
        for (unsigned i = 0; i < 24 && groups[g].tests[i]; i++)
            tcase_add_test(tc, groups[g].tests[i]);
        suite_add_tcase(s, tc);
    }
    return s;
}
