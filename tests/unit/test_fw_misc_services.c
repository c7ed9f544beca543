/* The small boot services (UEFI 2.10 section 7.5, Miscellaneous Boot
 * Services, with RaiseTPL/RestoreTPL of 7.1): CalculateCrc32, CopyMem,
 * SetMem, GetNextMonotonicCount, Stall (SetWatchdogTimer: test_fw_watchdog.c). */
#include <sys/mman.h>
#include <zlib.h>

#include "fw_fixture.h"

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

/* CopyMem and CalculateCrc32 over more than 256 MiB, in a guest that has
 * it: UEFI 2.10 sections 7.5.3 and 7.5.7 bound neither. Guest RAM of
 * BIG_RAM, mapped lazily (pages only read stay the shared zero page). */
#define BIG_RAM MiB(264)
#define BIG_LEN (MiB(256) + 0x3000)

struct big_guest {
    uint8_t *ram;
    struct guest_mem gm;
    struct firmware fw;
};

static void big_guest_init(struct big_guest *g)
{
    g->ram = mmap(NULL, BIG_RAM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ck_assert_ptr_ne(g->ram, MAP_FAILED);
    guest_mem_init(&g->gm, g->ram, BIG_RAM);
    struct fw_config cfg = { .base = FW_BASE };
    ck_assert_int_eq(firmware_init(&g->fw, &g->gm, &cfg), 0);
}

static efi_status_t big_call(struct big_guest *g, unsigned id, uint64_t a0, uint64_t a1, uint64_t a2)
{
    struct fw_call c = { .rcx = a0, .rdx = a1, .r8 = a2, .rsp = SCRATCH,
                         .view = { &g->gm, 0, false, false, false, false } };
    return firmware_call(&g->fw, id, &c);
}

static void big_guest_free(struct big_guest *g)
{
    firmware_free(&g->fw);
    munmap(g->ram, BIG_RAM);
}

START_TEST(crc32_and_copy_mem_serve_more_than_256_mib)
{
    struct big_guest g;
    big_guest_init(&g);
    const uint64_t src = MiB(4), crc_p = SCRATCH;
    memcpy(g.ram + src, "head", 4);
    memcpy(g.ram + src + BIG_LEN - 4, "tail", 4);
    efi_status_t crc_status = big_call(&g, BS(CALCULATE_CRC32), src, BIG_LEN, crc_p);
    uint32_t crc;
    memcpy(&crc, g.ram + crc_p, 4);
    uint32_t want = (uint32_t)crc32(0, g.ram + src, (uInt)BIG_LEN);
    /* Overlapping, the destination above: copied from the end. */
    efi_status_t copy_status = big_call(&g, BS(COPY_MEM), src + 0x1000, src, BIG_LEN);
    bool head = !memcmp(g.ram + src + 0x1000, "head", 4);
    bool tail = !memcmp(g.ram + src + 0x1000 + BIG_LEN - 4, "tail", 4);
    bool kept = !memcmp(g.ram + src, "head", 4);   /* below the destination */
    big_guest_free(&g);
    ck_assert_str_eq(efi_status_name(crc_status), "EFI_SUCCESS");
    ck_assert_uint_eq(crc, want);
    ck_assert_str_eq(efi_status_name(copy_status), "EFI_SUCCESS");
    ck_assert(head && tail && kept);
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

START_TEST(monotonic_count_and_tpl)
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
}
END_TEST

/* RaiseTPL returns the previous TPL, not a status (UEFI 2.10 section
 * 7.1): its trace line names that TPL, never a status code of the same
 * number (4 is EFI_WARN_BUFFER_TOO_SMALL). */
START_TEST(raise_tpl_traces_the_previous_tpl)
{
    trace_to_memory();
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), 16), FW_TPL_APPLICATION);
    ck_assert_uint_eq(CALL(BS(RAISE_TPL), 31), 16);
    ck_assert_uint_eq(CALL(BS(RESTORE_TPL), FW_TPL_APPLICATION), EFI_SUCCESS);
    char got[1024];
    trace_lines(got, sizeof(got));
    ck_assert_ptr_nonnull(strstr(got, "\"call\":\"RaiseTPL\",\"args\":[\"0x10\"],\"status\":\"TPL_APPLICATION\""));
    ck_assert_ptr_nonnull(strstr(got, "\"decoded\":{\"previous_tpl\":4}"));
    ck_assert_ptr_nonnull(strstr(got, "\"call\":\"RaiseTPL\",\"args\":[\"0x1f\"],\"status\":\"TPL_NOTIFY\""));
    ck_assert_ptr_nonnull(strstr(got, "\"call\":\"RestoreTPL\",\"args\":[\"0x4\"],\"status\":\"EFI_SUCCESS\""));
}
END_TEST

/* GetNextHighMonotonicCount (UEFI 2.10 section 8.5.2) moves the high 32
 * bits of the count GetNextMonotonicCount returns, by one a call; a call
 * refused for its HighCount (NULL, outside RAM) moves nothing. */
START_TEST(high_monotonic_count_moves_only_when_served)
{
    uint64_t c_p = put_u64(0), high_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(GET_NEXT_MONOTONIC_COUNT), c_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(c_p) >> 32, 0);
    ck_assert_uint_eq(CALL(RT(GET_NEXT_HIGH_MONOTONIC_COUNT), 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(RT(GET_NEXT_HIGH_MONOTONIC_COUNT), RAM_SIZE - 2), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(RT(GET_NEXT_HIGH_MONOTONIC_COUNT), high_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd32(high_p), 1);
    ck_assert_uint_eq(CALL(BS(GET_NEXT_MONOTONIC_COUNT), c_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(c_p) >> 32, 1);
}
END_TEST

/* Stall waits for real: GRUB calibrates the TSC against Stall(1000) when
 * it has no other clock (grub-core/kern/i386/tsc.c). It does not sleep in
 * the call, which runs under the VMM's lock: it asks the vCPU to sleep
 * after it; the next call asks for nothing. A Stall that slept in the call
 * would not return from Stall(UINT64_MAX / 100) here, and Check's timeout
 * would fail the test: no threshold on the host's clock. */
START_TEST(stall_asks_the_vcpu_to_sleep_after_the_call)
{
    ck_assert_uint_eq(CALL(BS(STALL), 5000000), EFI_SUCCESS);
    ck_assert_uint_eq(fw.sleep_ns, 5000000000ULL);
    ck_assert_uint_eq(CALL(BS(STALL), 60000000), EFI_SUCCESS);
    ck_assert_uint_eq(fw.sleep_ns, 60000000000ULL);
    ck_assert_uint_eq(CALL(BS(STALL), UINT64_MAX / 100), EFI_SUCCESS);
    ck_assert_uint_eq(fw.sleep_ns, UINT64_MAX);
    ck_assert_uint_eq(CALL(BS(GET_NEXT_MONOTONIC_COUNT), put_u64(0)), EFI_SUCCESS);
    ck_assert_uint_eq(fw.sleep_ns, 0);
}
END_TEST

Suite *fw_misc_services_suite(void)
{
    Suite *s = suite_create("fw-misc-services");
    fw_add_tcase(s, "misc", (const TTest *const[]){
        calculate_crc32_matches_zlib, copy_mem_handles_overlap_both_ways, crc32_and_copy_mem_serve_more_than_256_mib,
        set_mem_fills_exactly_the_buffer,
        monotonic_count_and_tpl, raise_tpl_traces_the_previous_tpl, high_monotonic_count_moves_only_when_served, stall_asks_the_vcpu_to_sleep_after_the_call, NULL });
    return s;
}
