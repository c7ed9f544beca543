/* Memory services (UEFI 2.10 section 7.2): GetMemoryMap, AllocatePages,
 * FreePages, AllocatePool and FreePool through firmware_call, and the map
 * key they change; the map firmware_init builds around the hole below
 * 4 GiB. The allocator itself: test_memmap.c. */
#include <stdlib.h>
#include <sys/mman.h>

#include "fw_fixture.h"

#include "../../firmware-stub/acpi.h"
#include "../../firmware-stub/tcg2.h"

/* ---- GetMemoryMap and the map key ------------------------------------------------------ */

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

/* ---- AllocatePages and FreePool -------------------------------------------------------- */

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
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), EFI_ALLOCATE_ANY_PAGES, 0x100000010ULL, 1, mem_p),
                      EFI_INVALID_PARAMETER);   /* 0x10: no such type */
    ck_assert_uint_eq(rd64(mem_p), 0x800000);
}
END_TEST

/* Enums are 32 bits: the upper half of the register that carries one is
 * not the caller's (the Microsoft x64 convention leaves it undefined), so
 * it is ignored, never refused. */
START_TEST(enum_arguments_ignore_the_upper_half_of_their_register)
{
    const uint64_t junk = 0xdead000000000000ULL;
    uint64_t mem_p = put_u64(0), pool_p = put_u64(0), handle_p = put_u64(0), size_p = put_u64(64), buf = scratch(64);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_PAGES), junk | EFI_ALLOCATE_ANY_PAGES, junk | EFI_LOADER_DATA, 1, mem_p),
                      EFI_SUCCESS);
    ck_assert_int_eq(memmap_type_at(&fw.map, rd64(mem_p)), EFI_LOADER_DATA);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), junk | EFI_LOADER_DATA, 16, pool_p), EFI_SUCCESS);
    ck_assert_uint_ne(rd64(pool_p), 0);
    uint64_t g = put_guid(EFI_GUID(0x1b2c3d4e, 0x5f60, 0x4172, 0x83, 0x94, 0xa5, 0xb6, 0xc7, 0xd8, 0xe9, 0xfa));
    ck_assert_uint_eq(CALL(BS(INSTALL_PROTOCOL_INTERFACE), handle_p, g, junk | EFI_NATIVE_INTERFACE, 0x1234),
                      EFI_SUCCESS);
    ck_assert_uint_ne(rd64(handle_p), 0);
    ck_assert_uint_eq(CALL(BS(LOCATE_HANDLE), junk | EFI_BY_PROTOCOL, g, 0, size_p, buf), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(size_p), 8);
    ck_assert_uint_eq(rd64(buf), rd64(handle_p));
}
END_TEST

/* A pool allocation's pages are FreePool's to give back, not FreePages'
 * (EFI_NOT_FOUND: AllocatePages did not allocate them): freed under the
 * pool, they could be handed out again, to LoadImage say, and the
 * pool's FreePool would then free that. */
START_TEST(free_pages_refuses_a_pool_allocations_pages)
{
    uint64_t buf_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 0x2000, buf_p), EFI_SUCCESS);
    uint64_t buf = rd64(buf_p), k = map_key();
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), buf, 2), EFI_NOT_FOUND);
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), buf + 0x1000, 1), EFI_NOT_FOUND);
    ck_assert_int_eq(memmap_type_at(&fw.map, buf), EFI_LOADER_DATA);
    ck_assert_int_eq(memmap_type_at(&fw.map, buf + 0x1000), EFI_LOADER_DATA);
    ck_assert_uint_eq(map_key(), k);
    ck_assert_ptr_nonnull(strstr(log_text(), "would free a pool allocation's pages"));
    ck_assert_uint_eq(CALL(BS(FREE_POOL), buf), EFI_SUCCESS);
    ck_assert_int_eq(memmap_type_at(&fw.map, buf), EFI_CONVENTIONAL_MEMORY);
}
END_TEST

/* The ACPI tables, the VM generation ID's page and the TPM's two logs
 * are the firmware's, which it keeps serving (the VMM writes a new
 * generation ID on restore, HashLogExtendEvent appends to the logs):
 * AllocatePages did not allocate them, so FreePages answers EFI_NOT_FOUND
 * (UEFI 2.10 section 7.2.2) and the allocator never hands them out. */
START_TEST(free_pages_refuses_the_firmwares_tables)
{
    uint64_t rsdp = firmware_install_acpi(&fw, 1, false, true);
    ck_assert_uint_ne(rsdp, 0);
    ck_assert_int_eq(firmware_install_tcg2(&fw), 0);
    const uint64_t pages[][2] = {
        { rsdp & ~0xfffULL, 1 }, { fw.vmgenid, 1 }, { fw.tpm.log, 1 }, { fw.tpm.final_table, 1 },
    };
    uint64_t k = map_key();
    for (unsigned i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
        int type = memmap_type_at(&fw.map, pages[i][0]);
        ck_assert_uint_eq(CALL(BS(FREE_PAGES), pages[i][0], pages[i][1]), EFI_NOT_FOUND);
        ck_assert_int_eq(memmap_type_at(&fw.map, pages[i][0]), type);
    }
    ck_assert_uint_eq(map_key(), k);
}
END_TEST

/* A FreePool that cannot give its pages back (the map has no descriptor
 * left to split its type's range with) keeps the allocation: forgotten,
 * a retry would be told it was never allocated, and FreePages could then
 * free its pages. */
START_TEST(free_pool_that_fails_keeps_the_allocation)
{
    uint64_t buf[3];
    for (unsigned i = 0; i < 3; i++) {
        uint64_t buf_p = put_u64(0);
        ck_assert_uint_eq(CALL(BS(ALLOCATE_POOL), EFI_LOADER_DATA, 0x1000, buf_p), EFI_SUCCESS);
        buf[i] = rd64(buf_p);
    }
    ck_assert_uint_eq(buf[1], buf[0] - 0x1000);   /* one LoaderData range: freeing buf[1] splits it */
    static struct memmap before;
    before = fw.map;
    for (uint64_t a = MiB(1); a < buf[2] && fw.map.n < MEMMAP_MAX_ENTRIES - 1; a += 0x2000)
        memmap_reserve(&fw.map, a, 1, EFI_RESERVED_MEMORY_TYPE);
    ck_assert_uint_ge(fw.map.n, MEMMAP_MAX_ENTRIES - 1);
    unsigned pools = fw.npools;
    ck_assert_uint_eq(CALL(BS(FREE_POOL), buf[1]), EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(fw.npools, pools);
    ck_assert_uint_eq(CALL(BS(FREE_PAGES), buf[1], 1), EFI_NOT_FOUND);
    fw.map = before;
    ck_assert_uint_eq(CALL(BS(FREE_POOL), buf[1]), EFI_SUCCESS);
    ck_assert_int_eq(memmap_type_at(&fw.map, buf[1]), EFI_CONVENTIONAL_MEMORY);
}
END_TEST

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

/* ---- RAM above the hole ---------------------------------------------------------------- */

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

Suite *fw_memory_suite(void)
{
    Suite *s = suite_create("fw-memory");
    fw_add_tcase(s, "memory", (const TTest *const[]){
        get_memory_map_size_probe_fills_size_and_descriptor_info,
        get_memory_map_returns_every_descriptor_and_the_key,
        map_key_changes_after_allocate_and_free_pages, map_key_changes_after_allocate_and_free_pool,
        failed_memory_calls_leave_the_map_key_alone, allocate_pages_service_honours_each_allocate_type,
        enum_arguments_ignore_the_upper_half_of_their_register,
        free_pool_null_is_harmless, free_pages_refuses_a_pool_allocations_pages,
        free_pages_refuses_the_firmwares_tables, free_pool_that_fails_keeps_the_allocation,
        allocate_address_takes_each_conventional_range_whole,
        firmware_map_covers_ram_on_both_sides_of_the_hole, NULL });
    return s;
}
