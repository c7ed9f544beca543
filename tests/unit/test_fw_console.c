/* The console protocols (UEFI 2.10 chapter 12): ConOut's OutputString and
 * QueryMode, the --console-limit budget it shares with the serial
 * console; ConIn's ReadKeyStroke with no keyboard, and the --keys string
 * it reads from (firmware-stub/keys.c). WaitForKey: test_fw_events.c. */
#include "fw_fixture.h"
#include "../../firmware-stub/keys.h"

/* ---- ConOut ---------------------------------------------------------------------------- */

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
    /* Rows it cannot write fail the call before Columns is written. */
    uint64_t cols2 = put_u64(0);
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_QUERY_MODE), fw.con_out, 0, cols2, RAM_SIZE - 4),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(cols2), 0);
    /* ... and NULL is no place to write them (guest address 0 is RAM). */
    wr64(0, 0);
    ck_assert_uint_eq(CALL(FW_ID_CONOUT(CONOUT_QUERY_MODE), fw.con_out, 0, 0, rows), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(0), 0);
    ck_assert_uint_eq(CALL(FW_ID_CONIN(1), fw.con_in, scratch(8)), EFI_NOT_READY);
}
END_TEST

/* ---- ConIn and --keys ------------------------------------------------------------------ */

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

Suite *fw_console_suite(void)
{
    Suite *s = suite_create("fw-console");
    fw_add_tcase(s, "conout", (const TTest *const[]){
        output_string_converts_ucs2_to_utf8_and_drops_cr, output_string_keeps_the_last_nonempty_line,
        output_string_prints_long_strings_whole, output_string_stops_at_the_console_limit,
        output_string_running_off_ram_prints_nothing, conout_query_mode_offers_80x25_only, NULL });
    fw_add_tcase(s, "conin", (const TTest *const[]){
        read_key_stroke_never_has_a_key_and_says_so_once, keys_check_says_what_is_wrong, NULL });
    return s;
}
