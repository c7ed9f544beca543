/* vmm/host/snapshot_file.c: --snapshot's state file is restored only
 * when its header and payload are whole and unchanged, and made again
 * when its inputs differ. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "../../vmm/host/snapshot_file.h"
#include "../../vmm/tools/snapshot_payload.h"

static const struct snapshot_inputs inputs = { .kernel_size = 8u << 20, .initrd_size = 1234, .options_size = 40,
                                               .kernel_crc = 0x1111, .initrd_crc = 0x2222, .options_crc = 0x3333,
                                               .layout = 0x4444 };
static uint8_t file[sizeof(struct snapshot_header) + 100];

static void make_file(void)
{
    uint8_t payload[100];
    for (size_t i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)(i * 7);
    struct snapshot_header h;
    snapshot_seal(&h, &inputs, payload, sizeof(payload), 256u << 20);
    memcpy(file, &h, sizeof(h));
    memcpy(file + sizeof(h), payload, sizeof(payload));
}

START_TEST(sealed_file_checks_out_with_its_header)
{
    struct snapshot_header h;
    ck_assert_ptr_null(snapshot_check(file, sizeof(file), &h));
    ck_assert_uint_eq(h.version, SNAPSHOT_VERSION);
    ck_assert_uint_eq(h.payload_size, 100);
    ck_assert_uint_eq(h.ram_size, 256u << 20);
    ck_assert(snapshot_inputs_equal(&h.inputs, &inputs));
}
END_TEST

START_TEST(truncated_files_are_refused)
{
    struct snapshot_header h;
    const char *why = snapshot_check(file, sizeof(file) - 1, &h);
    ck_assert_ptr_nonnull(why);
    ck_assert_ptr_nonnull(strstr(why, "truncated"));
    why = snapshot_check(file, 10, &h);
    ck_assert_ptr_nonnull(strstr(why, "truncated"));
    ck_assert_ptr_nonnull(snapshot_check(file, 0, &h));
}
END_TEST

START_TEST(a_flipped_bit_anywhere_is_refused)
{
    struct snapshot_header h;
    for (size_t i = 0; i < sizeof(file); i++) {
        file[i] ^= 0x10;
        ck_assert_msg(snapshot_check(file, sizeof(file), &h) != NULL, "byte %zu flipped and accepted", i);
        file[i] ^= 0x10;
    }
    ck_assert_ptr_null(snapshot_check(file, sizeof(file), &h));
}
END_TEST

START_TEST(magic_version_and_payload_are_named)
{
    struct snapshot_header h;
    file[0] = 'X';
    ck_assert_ptr_nonnull(strstr(snapshot_check(file, sizeof(file), &h), "magic"));
    make_file();
    file[sizeof(struct snapshot_header) + 5] ^= 1;
    ck_assert_ptr_nonnull(strstr(snapshot_check(file, sizeof(file), &h), "payload corrupt"));
    make_file();
    struct snapshot_header *hp = (struct snapshot_header *)(void *)file;
    hp->version = SNAPSHOT_VERSION - 1;   /* an older handover's */
    const char *why = snapshot_check(file, sizeof(file), &h);
    ck_assert_ptr_nonnull(why);
    char want[32];
    snprintf(want, sizeof(want), "version %u", SNAPSHOT_VERSION - 1);
    ck_assert_ptr_nonnull(strstr(why, want));
}
END_TEST

/* A state file of another version of the format is handover's own, made
 * by an older or newer one, and is replaced; one that is not handover's,
 * or is corrupt within this version, is not (it is refused). */
START_TEST(another_version_is_told_from_corruption)
{
    ck_assert(!snapshot_other_version(file, sizeof(file)));
    struct snapshot_header *hp = (struct snapshot_header *)(void *)file;
    hp->version = SNAPSHOT_VERSION - 1;
    ck_assert(snapshot_other_version(file, sizeof(file)));
    ck_assert(snapshot_other_version(file, 16));
    ck_assert(!snapshot_other_version(file, 15));
    file[0] = 'X';
    ck_assert(!snapshot_other_version(file, sizeof(file)));
    make_file();
    file[sizeof(struct snapshot_header) + 5] ^= 1;
    ck_assert(!snapshot_other_version(file, sizeof(file)));
}
END_TEST

START_TEST(trailing_bytes_are_refused)
{
    uint8_t longer[sizeof(file) + 1];
    memcpy(longer, file, sizeof(file));
    longer[sizeof(file)] = 0;
    struct snapshot_header h;
    ck_assert_ptr_nonnull(strstr(snapshot_check(longer, sizeof(longer), &h), "trailing"));
}
END_TEST

START_TEST(any_other_input_is_another_snapshot)
{
    struct snapshot_inputs other = inputs;
    ck_assert(snapshot_inputs_equal(&other, &inputs));
    other.options_crc++;
    ck_assert(!snapshot_inputs_equal(&other, &inputs));
    other = inputs;
    other.initrd_size++;
    ck_assert(!snapshot_inputs_equal(&other, &inputs));
    other = inputs;
    other.layout++;
    ck_assert(!snapshot_inputs_equal(&other, &inputs));
}
END_TEST

START_TEST(cursor_takes_what_was_put_and_no_more)
{
    struct snapshot_cursor c = { 0 };
    const uint32_t a = 0xdeadbeef;
    const char b[] = "payload";
    snapshot_put(&c, &a, sizeof(a));
    snapshot_put(&c, b, sizeof(b));
    ck_assert(!c.failed);
    struct snapshot_cursor r = { c.buf, c.at, 0, false };
    uint32_t a2;
    char b2[sizeof(b)];
    ck_assert(snapshot_take(&r, &a2, sizeof(a2)));
    ck_assert(snapshot_take(&r, b2, sizeof(b2)));
    ck_assert_uint_eq(a2, a);
    ck_assert_str_eq(b2, b);
    ck_assert(!snapshot_take(&r, &a2, 1));
    ck_assert(r.failed);
    free(c.buf);
}
END_TEST

START_TEST(crc_goes_on_across_pieces)
{
    const char s[] = "123456789";
    ck_assert_uint_eq(snapshot_crc(s, 9), 0xcbf43926);   /* the CRC-32 check value */
    ck_assert_uint_eq(snapshot_crc_more(snapshot_crc(s, 4), s + 4, 5), 0xcbf43926);
}
END_TEST

/* A state file is any bytes with a CRC: a bool in its payload that is
 * neither 0 nor 1 is found as a byte, before it is read. */
START_TEST(bools_other_than_0_or_1_are_found)
{
    struct with_bools { uint32_t n; bool a; uint8_t pad; bool b; } st;
    const size_t at[] = { offsetof(struct with_bools, a), offsetof(struct with_bools, b) };
    memset(&st, 0, sizeof(st));
    st.pad = 7;
    st.n = 0x02020202;
    ck_assert(snapshot_bools_valid(&st, at, 2));
    for (size_t i = 0; i < 2; i++) {
        uint8_t *bytes = (uint8_t *)&st;
        bytes[at[i]] = 1;
        ck_assert(snapshot_bools_valid(&st, at, 2));
        bytes[at[i]] = 2;
        ck_assert(!snapshot_bools_valid(&st, at, 2));
        bytes[at[i]] = 0;
    }
}
END_TEST

/* vmm/tools/snapshot_payload.c: a restore takes back what a save put,
 * and refuses a payload it cannot take whole, leaving nothing to free. */
static struct saved_state put_state;
static struct kvm_msr_entry put_msrs[3] = { { .index = 0x10, .data = 123 }, { .index = 0x174 }, { .index = 0xc0000080 } };

static struct snapshot_cursor saved_payload(void)
{
    memset(&put_state, 0, sizeof(put_state));
    put_state.boot = (struct boot_record){ 1, 0xabcd, 0x1234, 0 };
    put_state.cpu.nmsrs = 3;
    put_state.cpu.msrs = put_msrs;
    put_state.cpu.has_xsave = true;
    put_state.fw = (struct firmware_runtime){ 1, 1, 42 };
    put_state.clock.tsc_khz = 2000000;
    struct snapshot_cursor out = { 0 };
    saved_state_put(&out, &put_state);
    ck_assert(!out.failed);
    out.len = out.at;
    out.at = 0;
    return out;
}

START_TEST(saved_state_is_taken_back_as_put)
{
    struct snapshot_cursor cur = saved_payload();
    struct saved_state got;
    ck_assert(saved_state_take(&cur, &got));
    ck_assert_uint_eq(got.cpu.nmsrs, 3);
    ck_assert(!memcmp(got.cpu.msrs, put_msrs, sizeof(put_msrs)));
    ck_assert(got.cpu.has_xsave && !got.cpu.has_xcrs);
    ck_assert(!memcmp(&got.boot, &put_state.boot, sizeof(got.boot)));
    ck_assert(!memcmp(&got.fw, &put_state.fw, sizeof(got.fw)));
    ck_assert_uint_eq(got.clock.tsc_khz, 2000000);
    free(got.cpu.msrs);
    free(cur.buf);
}
END_TEST

/* Each way a payload is not one: cut short, a byte too many, more MSRs
 * than SNAPSHOT_MSRS_MAX, a bool that is 2, a phase past runtime. */
START_TEST(payloads_that_are_not_whole_or_valid_are_refused)
{
    const size_t nmsrs_at = sizeof(struct boot_record) + offsetof(struct vcpu_state, nmsrs);
    const size_t xsave_at = sizeof(struct boot_record) + offsetof(struct vcpu_state, has_xsave);
    for (int how = 0; how < 5; how++) {
        struct snapshot_cursor cur = saved_payload();
        size_t fw_at = cur.len - sizeof(struct clock_state) - sizeof(struct firmware_runtime);
        uint32_t many = SNAPSHOT_MSRS_MAX + 1, phase = 2;
        if (how == 0)
            cur.len -= 1;
        if (how == 1) {
            cur.buf = realloc(cur.buf, cur.len + 1);
            ck_assert_ptr_nonnull(cur.buf);
            cur.buf[cur.len++] = 0;
        }
        if (how == 2)
            memcpy(cur.buf + nmsrs_at, &many, sizeof(many));
        if (how == 3)
            cur.buf[xsave_at] = 2;
        if (how == 4)
            memcpy(cur.buf + fw_at, &phase, sizeof(phase));
        struct saved_state got;
        ck_assert_msg(!saved_state_take(&cur, &got), "case %d taken", how);
        ck_assert_ptr_null(got.cpu.msrs);
        free(cur.buf);
    }
}
END_TEST

Suite *snapshot_file_suite(void)
{
    Suite *s = suite_create("snapshot_file");
    TCase *tc = tcase_create("state-file");
    tcase_add_checked_fixture(tc, make_file, NULL);
    tcase_add_test(tc, sealed_file_checks_out_with_its_header);
    tcase_add_test(tc, truncated_files_are_refused);
    tcase_add_test(tc, a_flipped_bit_anywhere_is_refused);
    tcase_add_test(tc, magic_version_and_payload_are_named);
    tcase_add_test(tc, another_version_is_told_from_corruption);
    tcase_add_test(tc, trailing_bytes_are_refused);
    tcase_add_test(tc, any_other_input_is_another_snapshot);
    tcase_add_test(tc, cursor_takes_what_was_put_and_no_more);
    tcase_add_test(tc, crc_goes_on_across_pieces);
    tcase_add_test(tc, bools_other_than_0_or_1_are_found);
    tcase_add_test(tc, saved_state_is_taken_back_as_put);
    tcase_add_test(tc, payloads_that_are_not_whole_or_valid_are_refused);
    suite_add_tcase(s, tc);
    return s;
}
