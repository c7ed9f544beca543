/* SetWatchdogTimer and the watchdog it arms (UEFI 2.10 section 7.5.1),
 * on the fixture's clock: it expires on time and stops the firmware
 * (FW_STOP_WATCHDOG), a new call replaces the last, 0 disables it,
 * ExitBootServices disarms it, and an application can be started with
 * it armed, as a boot manager starts a boot option (section 3.1.2). */
#include "fw_fixture.h"
#include "../../firmware-stub/events.h"
#include "../../firmware-stub/watchdog.h"

#define S_NS 1000000000ULL

static efi_status_t set_watchdog(uint64_t seconds, uint64_t code, uint64_t size, uint64_t data)
{
    return CALL(BS(SET_WATCHDOG_TIMER), seconds, code, size, data);
}

/* Any call: the firmware looks at the watchdog after each. */
static void some_call(void)
{
    ck_assert_uint_eq(CALL(BS(GET_NEXT_MONOTONIC_COUNT), put_u64(0)), EFI_SUCCESS);
}

START_TEST(watchdog_expires_on_time_with_its_code_and_data)
{
    uint64_t data = put_ucs2("loader stuck");
    ck_assert_uint_eq(set_watchdog(5, 0x10001, 2 * 13, data), EFI_SUCCESS);
    ck_assert(fw.watchdog.armed);
    ck_assert_uint_eq(firmware_watchdog_left_ns(&fw), 5 * S_NS);
    advance_clock_ns(5 * S_NS - 1);
    some_call();
    ck_assert_int_eq(fw.stop, FW_RUN);
    ck_assert(!firmware_watchdog_check(&fw));
    advance_clock_ns(1);
    ck_assert(firmware_watchdog_check(&fw));
    ck_assert_int_eq(fw.stop, FW_STOP_WATCHDOG);
    ck_assert_uint_eq(fw.stop_status, 0x10001);
    ck_assert_str_eq(fw.watchdog.data, "loader stuck");
    ck_assert(!fw.watchdog.armed);   /* it fires once */
    ck_assert(!firmware_watchdog_check(&fw));
}
END_TEST

START_TEST(watchdog_expiry_is_noticed_at_the_next_call)
{
    ck_assert_uint_eq(set_watchdog(1, 0x20000, 0, 0), EFI_SUCCESS);
    advance_clock_ns(2 * S_NS);
    some_call();
    ck_assert_int_eq(fw.stop, FW_STOP_WATCHDOG);
    ck_assert_uint_eq(fw.stop_status, 0x20000);
    ck_assert_str_eq(fw.watchdog.data, "");
}
END_TEST

/* Another stop (the image's Exit) is not overwritten. */
START_TEST(watchdog_leaves_another_stop_alone)
{
    ck_assert_uint_eq(set_watchdog(1, 0x20000, 0, 0), EFI_SUCCESS);
    advance_clock_ns(2 * S_NS);
    fw.stop = FW_STOP_RESET;
    ck_assert(!firmware_watchdog_check(&fw));
    ck_assert_int_eq(fw.stop, FW_STOP_RESET);
}
END_TEST

START_TEST(watchdog_rearmed_restarts_and_zero_disables_it)
{
    ck_assert_uint_eq(set_watchdog(5, 0x10000, 0, 0), EFI_SUCCESS);
    advance_clock_ns(4 * S_NS);
    ck_assert_uint_eq(set_watchdog(10, 0x10002, 0, 0), EFI_SUCCESS);   /* the new time counts from now */
    ck_assert_uint_eq(firmware_watchdog_left_ns(&fw), 10 * S_NS);
    advance_clock_ns(9 * S_NS);
    some_call();
    ck_assert_int_eq(fw.stop, FW_RUN);
    ck_assert_uint_eq(set_watchdog(0, 0, 0, 0), EFI_SUCCESS);   /* GRUB's and shim's call: code 0 taken */
    ck_assert(!fw.watchdog.armed);
    ck_assert_uint_eq(firmware_watchdog_left_ns(&fw), UINT64_MAX);
    advance_clock_ns(3600 * S_NS);
    some_call();
    ck_assert_int_eq(fw.stop, FW_RUN);
}
END_TEST

START_TEST(exit_boot_services_disarms_the_watchdog)
{
    ck_assert_uint_eq(set_watchdog(2, 0x10000, 0, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, map_key() + 1), EFI_INVALID_PARAMETER);
    ck_assert(fw.watchdog.armed);   /* a stale key: boot services go on, and it with them */
    exit_boot_services();
    ck_assert(!fw.watchdog.armed);
    advance_clock_ns(10 * S_NS);
    ck_assert(!firmware_watchdog_check(&fw));
    ck_assert_int_eq(fw.stop, FW_RUN);
}
END_TEST

/* WatchdogData: a CHAR16 string, then binary data if any, DataSize bytes
 * in all; what is logged stops at its NUL, at DataSize or at
 * FW_WATCHDOG_DATA_MAX - 1 characters, printable ASCII only. */
START_TEST(watchdog_data_is_read_within_its_size)
{
    uint64_t data = put_ucs2("abc\"def");
    ck_assert_uint_eq(set_watchdog(9, 0x10000, 2 * 3, data), EFI_SUCCESS);
    ck_assert_str_eq(fw.watchdog.data, "abc");
    ck_assert_uint_eq(set_watchdog(9, 0x10000, 100, data), EFI_SUCCESS);
    ck_assert_str_eq(fw.watchdog.data, "abc?def");
    ck_assert_uint_eq(set_watchdog(9, 0x10000, 100, 0), EFI_SUCCESS);   /* OPTIONAL */
    ck_assert_str_eq(fw.watchdog.data, "");
    char longer[200];
    memset(longer, 'x', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = 0;
    ck_assert_uint_eq(set_watchdog(9, 0x10000, sizeof(longer) * 2, put_ucs2(longer)), EFI_SUCCESS);
    ck_assert_uint_eq(strlen(fw.watchdog.data), FW_WATCHDOG_DATA_MAX - 1);
}
END_TEST

/* A WatchdogData outside guest RAM is refused, and the watchdog stays as
 * it was. */
START_TEST(watchdog_data_outside_ram_is_refused)
{
    ck_assert_uint_eq(set_watchdog(9, 0x10000, 0, 0), EFI_SUCCESS);
    memcpy(hp(RAM_SIZE - 2), "A", 2);   /* L"A", its NUL past the end of RAM */
    ck_assert_uint_eq(set_watchdog(1, 0x10001, 8, RAM_SIZE - 2), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(set_watchdog(0, 0, 8, UINT64_MAX - 1), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(firmware_watchdog_left_ns(&fw), 9 * S_NS);
    ck_assert_uint_eq(fw.watchdog.code, 0x10000);
}
END_TEST

/* A Timeout of any UINTN: the time does not wrap into one that expires
 * at once. */
START_TEST(watchdog_longest_timeout_does_not_wrap)
{
    ck_assert_uint_eq(set_watchdog(UINT64_MAX, 0x10000, 0, 0), EFI_SUCCESS);
    ck_assert_uint_ge(firmware_watchdog_left_ns(&fw), 100ULL * 365 * 86400 * S_NS);
    advance_clock_ns(86400 * S_NS);
    some_call();
    ck_assert_int_eq(fw.stop, FW_RUN);
}
END_TEST

/* An application that halts (HLT) with only the watchdog armed can
 * never go on: the watchdog could only reset the platform, minutes later
 * (memtest86+ halts so with the boot manager's 300 s armed). The halt is
 * for good now (vmm/kvm/halt_wake.c ends the run, saying why). */
START_TEST(watchdog_armed_does_not_keep_a_dead_halt)
{
    ck_assert(!firmware_halt_can_end(&fw));
    ck_assert_uint_eq(set_watchdog(5, 0x10000, 0, 0), EFI_SUCCESS);
    ck_assert(!firmware_halt_can_end(&fw));
}
END_TEST

/* WaitForEvent on ConIn.WaitForKey with no key to come is a wait for
 * good, the watchdog armed or not; a watchdog that expired before the
 * call still resets the platform there, and that call then waits for
 * nothing: not for good (vmm/kvm/run.c ended such a run as a guest crash,
 * exit status 4, with end reason watchdog), nor a Stall's time. */
START_TEST(watchdog_armed_does_not_keep_a_dead_wait)
{
    uint64_t key = put_u64(fw.events.wait_for_key), index_p = put_u64(0);
    ck_assert_uint_eq(set_watchdog(3, 0x10000, 0, 0), EFI_SUCCESS);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 1, key, index_p), EFI_NOT_READY);
    ck_assert(fw.waits_for_good);
    advance_clock_ns(3 * S_NS);
    ck_assert_uint_eq(CALL(BS(WAIT_FOR_EVENT), 1, key, index_p), EFI_NOT_READY);
    ck_assert_int_eq(fw.stop, FW_STOP_WATCHDOG);
    ck_assert(!fw.waits_for_good);
    ck_assert_uint_eq(fw.sleep_ns, 0);
    fw.stop = FW_RUN;
    ck_assert_uint_eq(set_watchdog(1, 0x10000, 0, 0), EFI_SUCCESS);
    advance_clock_ns(S_NS);
    ck_assert_uint_eq(CALL(BS(STALL), 10 * 1000000), EFI_SUCCESS);
    ck_assert_int_eq(fw.stop, FW_STOP_WATCHDOG);
    ck_assert_uint_eq(fw.sleep_ns, 0);
}
END_TEST

/* A fault sweep's cell restores a snapshot taken long before
 * (vmm/tools/fault_sweep.c): the firmware's clock resumes where the
 * snapshot left it, so its timers and its watchdog are as far from due
 * as they were then, and run on from there. */
START_TEST(clock_resumed_keeps_timers_and_watchdog_as_far_from_due)
{
    uint64_t p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(CREATE_EVENT), EVT_TIMER, 0, 0, 0, p), EFI_SUCCESS);
    uint64_t timer = rd64(p);
    ck_assert_uint_eq(CALL(BS(SET_TIMER), timer, EFI_TIMER_RELATIVE, 5 * S_NS / 100), EFI_SUCCESS);
    ck_assert_uint_eq(set_watchdog(10, 0x10000, 0, 0), EFI_SUCCESS);
    advance_clock_ns(4 * S_NS);
    uint64_t at = firmware_clock_ns(&fw);   /* the snapshot */
    advance_clock_ns(600 * S_NS);           /* the cells before this one ran */
    firmware_clock_resume(&fw, at);
    ck_assert_uint_eq(firmware_watchdog_left_ns(&fw), 6 * S_NS);
    ck_assert_uint_eq(CALL(BS(CHECK_EVENT), timer), EFI_NOT_READY);
    ck_assert_uint_eq(firmware_clock_ns(&fw), at);
    ck_assert_int_eq(fw.stop, FW_RUN);
    advance_clock_ns(S_NS);
    ck_assert_uint_eq(CALL(BS(CHECK_EVENT), timer), EFI_SUCCESS);
    ck_assert_uint_eq(firmware_watchdog_left_ns(&fw), 5 * S_NS);
    advance_clock_ns(5 * S_NS);
    some_call();
    ck_assert_int_eq(fw.stop, FW_STOP_WATCHDOG);
}
END_TEST

/* fw_config.watchdog_seconds: armed as the image starts, with code 0 and
 * no data, as EDK2's boot manager does (EfiBootManagerBoot). */
START_TEST(watchdog_armed_by_the_config_as_the_image_starts)
{
    ck_assert(!fw.watchdog.armed);   /* the fixture's: none */
    struct fw_config cfg = fw.cfg;
    cfg.watchdog_seconds = 300;
    firmware_free(&fw);
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
    ck_assert(fw.watchdog.armed);
    ck_assert_uint_eq(firmware_watchdog_left_ns(&fw), 300 * S_NS);
    advance_clock_ns(300 * S_NS);
    ck_assert(firmware_watchdog_check(&fw));
    ck_assert_uint_eq(fw.stop_status, 0);
}
END_TEST

START_TEST(set_watchdog_timer_traces_its_time_code_and_data)
{
    uint64_t data = put_ucs2("sd-boot");
    trace_to_memory();
    ck_assert_uint_eq(set_watchdog(300, 0x10000, 16, data), EFI_SUCCESS);
    char got[1024];
    trace_lines(got, sizeof(got));
    ck_assert_ptr_nonnull(strstr(got, "\"decoded\":{\"timeout_s\":300,\"code\":\"0x10000\",\"data\":\"sd-boot\"}"));
}
END_TEST

Suite *fw_watchdog_suite(void)
{
    Suite *s = suite_create("fw-watchdog");
    fw_add_tcase(s, "watchdog", (const TTest *const[]){
        watchdog_expires_on_time_with_its_code_and_data, watchdog_expiry_is_noticed_at_the_next_call,
        watchdog_leaves_another_stop_alone, watchdog_rearmed_restarts_and_zero_disables_it,
        exit_boot_services_disarms_the_watchdog, watchdog_data_is_read_within_its_size,
        watchdog_data_outside_ram_is_refused, watchdog_longest_timeout_does_not_wrap, watchdog_armed_does_not_keep_a_dead_halt,
        watchdog_armed_does_not_keep_a_dead_wait,
        clock_resumed_keeps_timers_and_watchdog_as_far_from_due,
        watchdog_armed_by_the_config_as_the_image_starts, set_watchdog_timer_traces_its_time_code_and_data, NULL });
    return s;
}
