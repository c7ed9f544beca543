/* The variable services (UEFI 2.10 section 8.2): GetVariable, SetVariable,
 * GetNextVariableName and QueryVariableInfo, before and after
 * ExitBootServices, and the store's bound. */
#include "fw_fixture.h"
#include "../../firmware-stub/variable_store.h"

/* The variable name under GUID_TEST holds the len bytes at want. */
static void expect_test_variable(const char *name, const void *want, size_t len)
{
    uint64_t size_p = put_u64(64), data = scratch(64);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2(name), put_guid(GUID_TEST), 0, size_p, data), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(size_p), len);
    ck_assert_mem_eq(hp(data), want, len);
}

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

/* Attributes is a UINT32: the upper half of its register is not the
 * caller's, in SetVariable as in QueryVariableInfo. */
START_TEST(variable_attributes_ignore_the_upper_half_of_their_register)
{
    const uint64_t junk = 0xdead000000000000ULL;
    uint64_t data = put("v", 1), max_p = put_u64(0), rem_p = put_u64(0), size_p = put_u64(0);
    ck_assert_uint_eq(CALL(RT(SET_VARIABLE), put_ucs2("Junk"), put_guid(GUID_TEST), junk | ATTR_BS_RT, 1, data),
                      EFI_SUCCESS);
    uint64_t attr_p = put_u64(0), got_p = put_u64(8), buf = scratch(8);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Junk"), put_guid(GUID_TEST), attr_p, got_p, buf), EFI_SUCCESS);
    ck_assert_uint_eq(rd32(attr_p), ATTR_BS_RT);
    ck_assert_uint_eq(CALL(RT(QUERY_VARIABLE_INFO), junk | ATTR_BS_RT, max_p, rem_p, size_p), EFI_SUCCESS);
    ck_assert_uint_ne(rd64(max_p), 0);
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
                      EFI_INVALID_PARAMETER);
}
END_TEST

/* docs/security.md's bound: a name of 511 characters and its NUL is taken,
 * one of 512 (no NUL within VAR_NAME_MAX characters) is not. */
START_TEST(a_variable_name_has_at_most_511_characters)
{
    char name[VAR_NAME_MAX + 1];
    memset(name, 'n', VAR_NAME_MAX - 1);
    name[VAR_NAME_MAX - 1] = 0;
    ck_assert_uint_eq(set_var(name, GUID_TEST, ATTR_BS, "x", 1), EFI_SUCCESS);
    memset(name, 'm', VAR_NAME_MAX);
    name[VAR_NAME_MAX] = 0;
    ck_assert_uint_eq(set_var(name, GUID_TEST, ATTR_BS, "x", 1), EFI_INVALID_PARAMETER);
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

/* A variable keeps its attributes (UEFI 2.10 section 8.2, SetVariable()):
 * a DataSize of 0 with other attributes deletes nothing, and APPEND_WRITE
 * with no access attributes neither deletes nor appends. Attributes 0
 * still deletes. */
START_TEST(set_variable_with_other_attributes_neither_deletes_nor_writes)
{
    ck_assert_uint_eq(set_var("Kept", GUID_TEST, ATTR_BS_RT, "abc", 3), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Kept", GUID_TEST, ATTR_BS, NULL, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(set_var("Kept", GUID_TEST, ATTR_NV_BS_RT, NULL, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(set_var("Kept", GUID_TEST, EFI_VARIABLE_APPEND_WRITE, "def", 3), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(set_var("Kept", GUID_TEST, EFI_VARIABLE_APPEND_WRITE, NULL, 0), EFI_INVALID_PARAMETER);
    expect_test_variable("Kept", "abc", 3);
    ck_assert_uint_eq(set_var("Kept", GUID_TEST, 0, NULL, 0), EFI_SUCCESS);
    ck_assert_ptr_null(fw.variables);
}
END_TEST

/* Without Secure Boot the mode variables are not there, and no guest
 * makes them: a SecureBoot of 1 would tell the kernel Secure Boot is on
 * (UEFI 2.10 section 3.3: read-only). */
START_TEST(the_secure_boot_modes_cannot_be_made_without_secure_boot)
{
    ck_assert_uint_eq(set_var("SecureBoot", GUID_GLOBAL_VARIABLE, ATTR_BS_RT, "\1", 1), EFI_WRITE_PROTECTED);
    ck_assert_uint_eq(set_var("SetupMode", GUID_GLOBAL_VARIABLE, ATTR_BS_RT, "\0", 1), EFI_WRITE_PROTECTED);
    ck_assert_uint_eq(set_var("AuditMode", GUID_GLOBAL_VARIABLE, ATTR_NV_BS_RT, "\0", 1), EFI_WRITE_PROTECTED);
    ck_assert_uint_eq(set_var("DeployedMode", GUID_GLOBAL_VARIABLE, ATTR_BS, "\0", 1), EFI_WRITE_PROTECTED);
    ck_assert_ptr_null(fw.variables);
    /* The same names under another GUID are anyone's. */
    ck_assert_uint_eq(set_var("SecureBoot", GUID_TEST, ATTR_BS_RT, "\1", 1), EFI_SUCCESS);
}
END_TEST

/* An append of nothing to a variable that is not there creates nothing
 * (EDK2's UpdateVariable: EFI_SUCCESS, no variable). */
START_TEST(an_empty_append_creates_no_variable)
{
    ck_assert_uint_eq(set_var("None", GUID_TEST, ATTR_BS_RT | EFI_VARIABLE_APPEND_WRITE, NULL, 0), EFI_SUCCESS);
    uint64_t size_p = put_u64(8), data = scratch(8);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("None"), put_guid(GUID_TEST), 0, size_p, data), EFI_NOT_FOUND);
}
END_TEST

START_TEST(runtime_get_variable_works_after_exit_boot_services)
{
    ck_assert_uint_eq(set_var("Kept", GUID_TEST, ATTR_BS_RT, "rt", 2), EFI_SUCCESS);
    exit_boot_services();
    uint64_t size_p = put_u64(8), data = scratch(8);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Kept"), put_guid(GUID_TEST), 0, size_p, data), EFI_SUCCESS);
    ck_assert_mem_eq(hp(data), "rt", 2);
}
END_TEST

/* After ExitBootServices only NV|BS|RT variables can be set; a volatile
 * one with RUNTIME_ACCESS is read-only data (UEFI 2.10 section 8.2,
 * SetVariable()): not rewritten, appended to or deleted, and no new one
 * is made. */
START_TEST(runtime_writes_only_non_volatile_variables)
{
    ck_assert_uint_eq(set_var("Volatile", GUID_TEST, ATTR_BS_RT, "rt", 2), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Stored", GUID_TEST, ATTR_NV_BS_RT, "nv", 2), EFI_SUCCESS);
    exit_boot_services();
    ck_assert_uint_eq(set_var("Volatile", GUID_TEST, ATTR_BS_RT, "RT", 2), EFI_WRITE_PROTECTED);
    ck_assert_uint_eq(set_var("Volatile", GUID_TEST, ATTR_BS_RT | EFI_VARIABLE_APPEND_WRITE, "!", 1),
                      EFI_WRITE_PROTECTED);
    ck_assert_uint_eq(set_var("Volatile", GUID_TEST, 0, NULL, 0), EFI_WRITE_PROTECTED);
    ck_assert_uint_eq(set_var("New", GUID_TEST, ATTR_BS_RT, "n", 1), EFI_INVALID_PARAMETER);
    expect_test_variable("Volatile", "rt", 2);
    uint64_t size_p = put_u64(8), data = scratch(8);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("New"), put_guid(GUID_TEST), 0, size_p, data), EFI_NOT_FOUND);
    ck_assert_uint_eq(set_var("Stored", GUID_TEST, ATTR_NV_BS_RT, "NV", 2), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Made", GUID_TEST, ATTR_NV_BS_RT, "m", 1), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Stored", GUID_TEST, 0, NULL, 0), EFI_SUCCESS);
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

/* UEFI 2.10 GetNextVariableName: EFI_INVALID_PARAMETER if the NUL is not
 * in the first VariableNameSize bytes of VariableName (as EDK2's
 * VariableServiceGetNextVariableName: StrnLenS within the size). */
START_TEST(get_next_variable_name_needs_the_nul_within_the_size)
{
    ck_assert_uint_eq(set_var("First", GUID_TEST, ATTR_BS_RT, "1", 1), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Second", GUID_TEST, ATTR_BS_RT, "2", 1), EFI_SUCCESS);
    uint64_t name = put_ucs2("First"), guid = put_guid(GUID_TEST), size_p = put_u64(2 * 5);
    scratch(64);
    ck_assert_uint_eq(CALL(RT(GET_NEXT_VARIABLE_NAME), size_p, name, guid), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(size_p), 2 * 5);
    ck_assert(ucs2_equals(name, "First"));
    uint64_t empty = put_ucs2("");
    wr64(size_p, 0);
    ck_assert_uint_eq(CALL(RT(GET_NEXT_VARIABLE_NAME), size_p, empty, guid), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(size_p), 0);
    wr64(size_p, 2 * 6);   /* the NUL is the last character the size holds */
    ck_assert_uint_eq(CALL(RT(GET_NEXT_VARIABLE_NAME), size_p, name, guid), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), 2 * sizeof("Second"));
}
END_TEST

/* UEFI 2.10 QueryVariableInfo: EFI_INVALID_PARAMETER for an invalid
 * combination of attributes: RUNTIME_ACCESS without BOOTSERVICE_ACCESS
 * (section 8.2: runtime access implies boot service access), and after
 * ExitBootServices one without RUNTIME_ACCESS (EDK2's
 * VariableServiceQueryVariableInfo refuses both). */
START_TEST(query_variable_info_refuses_invalid_attribute_combinations)
{
    uint64_t max_p = put_u64(7), rem_p = put_u64(7), size_p = put_u64(7);
    ck_assert_uint_eq(CALL(RT(QUERY_VARIABLE_INFO), EFI_VARIABLE_RUNTIME_ACCESS, max_p, rem_p, size_p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(RT(QUERY_VARIABLE_INFO), EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_RUNTIME_ACCESS, max_p,
                           rem_p, size_p),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(max_p), 7);
    ck_assert_uint_eq(CALL(RT(QUERY_VARIABLE_INFO), ATTR_BS, max_p, rem_p, size_p), EFI_SUCCESS);
    exit_boot_services();
    wr64(max_p, 7);
    ck_assert_uint_eq(CALL(RT(QUERY_VARIABLE_INFO), ATTR_BS, max_p, rem_p, size_p), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(max_p), 7);
    ck_assert_uint_eq(CALL(RT(QUERY_VARIABLE_INFO), ATTR_NV_BS_RT, max_p, rem_p, size_p), EFI_SUCCESS);
}
END_TEST

/* UEFI 2.10 GetVariable: Attributes, when not NULL, is set on output both
 * when EFI_SUCCESS and when EFI_BUFFER_TOO_SMALL is returned (EDK2's
 * VariableServiceGetVariable writes it in both cases). */
START_TEST(get_variable_too_small_still_reports_the_attributes)
{
    ck_assert_uint_eq(set_var("Blob", GUID_TEST, ATTR_NV_BS_RT, "0123456789", 10), EFI_SUCCESS);
    uint64_t size_p = put_u64(4), attr_p = put_u64(0x77);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Blob"), put_guid(GUID_TEST), attr_p, size_p, 0),
                      EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), 10);
    ck_assert_uint_eq(rd64(attr_p), ATTR_NV_BS_RT);
    /* Attributes outside guest RAM: refused before DataSize is written. */
    wr64(size_p, 4);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("Blob"), put_guid(GUID_TEST), RAM_SIZE - 2, size_p, 0),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(rd64(size_p), 4);
}
END_TEST

/* UEFI 2.10 SetVariable: EFI_INVALID_PARAMETER when the DataSize exceeds
 * the maximum allowed, EFI_OUT_OF_RESOURCES when the store has no room
 * (EDK2 refuses a variable, or an append, past its MaxVariableSize with
 * EFI_INVALID_PARAMETER too). */
START_TEST(set_variable_past_the_variable_limit_is_invalid_and_past_the_store_out_of_resources)
{
    uint64_t big = scratch(VAR_DATA_MAX + 1);
    ck_assert_uint_eq(CALL(RT(SET_VARIABLE), put_ucs2("Big"), put_guid(GUID_TEST), ATTR_BS, VAR_DATA_MAX + 1, big),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(RT(SET_VARIABLE), put_ucs2("Big"), put_guid(GUID_TEST), ATTR_BS, VAR_DATA_MAX, big),
                      EFI_SUCCESS);
    ck_assert_uint_eq(CALL(RT(SET_VARIABLE), put_ucs2("Big"), put_guid(GUID_TEST), ATTR_BS | EFI_VARIABLE_APPEND_WRITE,
                           1, big),
                      EFI_INVALID_PARAMETER);
    /* Variables within the limit until the store is full. */
    efi_status_t s = EFI_SUCCESS;
    for (unsigned i = 0; i < 40 && s == EFI_SUCCESS; i++) {
        char name[8] = { 'B', (char)('a' + i % 26), (char)('a' + i / 26), 0 };
        s = CALL(RT(SET_VARIABLE), put_ucs2(name), put_guid(GUID_TEST), ATTR_BS, VAR_DATA_MAX, big);
    }
    ck_assert_uint_eq(s, EFI_OUT_OF_RESOURCES);
}
END_TEST

/* QueryVariableInfo's MaximumVariableSize is a size SetVariable then
 * takes: below VAR_DATA_MAX once the store has less room than that, 0
 * when it has none (UEFI 2.10 section 8.2, QueryVariableInfo()). */
START_TEST(query_variable_info_maximum_size_fits_the_room_left)
{
    uint64_t big = scratch(VAR_DATA_MAX);
    efi_status_t s = EFI_SUCCESS;
    for (unsigned i = 0; i < 40 && s == EFI_SUCCESS; i++) {
        char name[8] = { 'B', (char)('a' + i % 26), (char)('a' + i / 26), 0 };
        s = CALL(RT(SET_VARIABLE), put_ucs2(name), put_guid(GUID_TEST), ATTR_BS, VAR_DATA_MAX, big);
    }
    ck_assert_uint_eq(s, EFI_OUT_OF_RESOURCES);
    uint64_t max_p = put_u64(0), rem_p = put_u64(0), size_p = put_u64(0);
    ck_assert_uint_eq(CALL(RT(QUERY_VARIABLE_INFO), ATTR_BS, max_p, rem_p, size_p), EFI_SUCCESS);
    uint64_t largest = rd64(size_p);
    ck_assert_uint_gt(largest, 0);
    ck_assert_uint_lt(largest, rd64(rem_p));
    ck_assert_uint_eq(CALL(RT(SET_VARIABLE), put_ucs2("Last"), put_guid(GUID_TEST), ATTR_BS, largest + 1, big),
                      EFI_OUT_OF_RESOURCES);
    ck_assert_uint_eq(CALL(RT(SET_VARIABLE), put_ucs2("Last"), put_guid(GUID_TEST), ATTR_BS, largest, big),
                      EFI_SUCCESS);
    ck_assert_uint_eq(CALL(RT(QUERY_VARIABLE_INFO), ATTR_BS, max_p, rem_p, size_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(rem_p), 0);
    ck_assert_uint_eq(rd64(size_p), 0);
}
END_TEST

/* After ExitBootServices a variable without RUNTIME_ACCESS is not there
 * for the caller: writing its name anew (NV, BS and RT) makes a
 * variable GetVariable then reads, in its place, not a second variable
 * of the same name and GUID that the hidden one shadows. */
START_TEST(a_runtime_write_replaces_a_hidden_boot_only_variable)
{
    ck_assert_uint_eq(set_var("Hidden", GUID_TEST, ATTR_BS, "boot", 4), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("After", GUID_TEST, ATTR_BS_RT, "a", 1), EFI_SUCCESS);
    exit_boot_services();
    ck_assert_uint_eq(set_var("Hidden", GUID_TEST, ATTR_NV_BS_RT, "rt", 2), EFI_SUCCESS);
    expect_test_variable("Hidden", "rt", 2);
    unsigned named = 0;
    for (const struct fw_variable *var = fw.variables; var; var = var->next)
        named += var->name_len == 6 && var->name[0] == 'H';
    ck_assert_uint_eq(named, 1);
    ck_assert_uint_eq(set_var("Hidden", GUID_TEST, 0, NULL, 0), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("Hidden", GUID_TEST, 0, NULL, 0), EFI_NOT_FOUND);
}
END_TEST

/* Nor does GetNextVariableName take the hidden variable's name as a place
 * to go on from (EDK2 skips such variables at runtime). */
START_TEST(get_next_variable_name_does_not_go_on_from_a_hidden_variable)
{
    ck_assert_uint_eq(set_var("Hidden", GUID_TEST, ATTR_BS, "boot", 4), EFI_SUCCESS);
    ck_assert_uint_eq(set_var("After", GUID_TEST, ATTR_BS_RT, "a", 1), EFI_SUCCESS);
    exit_boot_services();
    uint64_t name = put_ucs2("Hidden"), guid = put_guid(GUID_TEST), size_p = put_u64(64);
    scratch(64);
    ck_assert_uint_eq(CALL(RT(GET_NEXT_VARIABLE_NAME), size_p, name, guid), EFI_INVALID_PARAMETER);
    ck_assert(ucs2_equals(name, "Hidden"));
}
END_TEST

/* ---- an IA-32 firmware (--firmware-bits 32) --------------------------------------------- */

/* A UINTN slot whose upper half holds a sentinel: a 4-byte write keeps it. */
#define SENTINEL 0xa5a5a5a500000000ULL
static uint64_t uintn_slot(uint32_t v) { return put_u64(SENTINEL | v); }
static bool upper_kept(uint64_t gpa) { return rd32(gpa + 4) == (uint32_t)(SENTINEL >> 32); }

static efi_status_t set_var32(const char *name, efi_guid_t g, uint32_t attrs, const void *data, uint32_t len)
{
    return CALL32(RT(SET_VARIABLE), 0, put_ucs2(name), put_guid(g), attrs, len, len ? put(data, len) : 0);
}

/* DataSize is a 4-byte UINTN in and out; Attributes a UINT32. */
START_TEST(ia32_get_variable_reads_and_writes_a_4_byte_data_size)
{
    ck_assert_uint_eq(set_var32("Blob", GUID_TEST, ATTR_BS_RT, "0123456789", 10), EFI_SUCCESS);
    uint64_t size_p = uintn_slot(4), attr_p = put_u64(SENTINEL), data = scratch(16);
    memset(hp(data), 0xee, 16);
    ck_assert_uint_eq(CALL32(RT(GET_VARIABLE), 0, put_ucs2("Blob"), put_guid(GUID_TEST), attr_p, size_p, data),
                      EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd32(size_p), 10);
    ck_assert(upper_kept(size_p));
    ck_assert_uint_eq(((uint8_t *)hp(data))[0], 0xee);
    wr64(size_p, SENTINEL | 16);
    ck_assert_uint_eq(CALL32(RT(GET_VARIABLE), 0, put_ucs2("Blob"), put_guid(GUID_TEST), attr_p, size_p, data),
                      EFI_SUCCESS);
    ck_assert_uint_eq(rd32(size_p), 10);
    ck_assert(upper_kept(size_p));
    ck_assert_uint_eq(rd64(attr_p), SENTINEL | ATTR_BS_RT);
    ck_assert_mem_eq(hp(data), "0123456789", 10);
}
END_TEST

START_TEST(ia32_get_next_variable_name_reads_and_writes_a_4_byte_size)
{
    ck_assert_uint_eq(set_var32("LongerName", GUID_TEST, ATTR_BS_RT, "x", 1), EFI_SUCCESS);
    uint64_t name = scratch(64), guid = put_guid(GUID_TEST), size_p = uintn_slot(4);
    ((uint16_t *)hp(name))[0] = 0;
    ck_assert_uint_eq(CALL32(RT(GET_NEXT_VARIABLE_NAME), 0, size_p, name, guid), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd32(size_p), 2 * sizeof("LongerName"));
    ck_assert(upper_kept(size_p));
    wr64(size_p, SENTINEL | 64);
    ck_assert_uint_eq(CALL32(RT(GET_NEXT_VARIABLE_NAME), 0, size_p, name, guid), EFI_SUCCESS);
    ck_assert(ucs2_equals(name, "LongerName"));
    ck_assert_uint_eq(rd32(size_p), 2 * sizeof("LongerName"));
    ck_assert(upper_kept(size_p));
}
END_TEST

/* Its three outputs are UINT64s at both widths (UEFI 2.10 section 8.2). */
START_TEST(ia32_query_variable_info_writes_uint64_outputs)
{
    uint64_t max_p = put_u64(SENTINEL), rem_p = put_u64(SENTINEL), size_p = put_u64(SENTINEL);
    ck_assert_uint_eq(CALL32(RT(QUERY_VARIABLE_INFO), 0, ATTR_BS_RT, max_p, rem_p, size_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(max_p), 1u << 20);
    ck_assert_uint_eq(rd64(rem_p), (1u << 20) - fw.variable_bytes);
    ck_assert_uint_eq(rd64(size_p), 64u << 10);
}
END_TEST

/* The largest DataSize a 4-byte slot holds is refused before anything is
 * allocated or read, as a 64-bit one is. */
START_TEST(ia32_set_variable_refuses_a_4_gib_data_size)
{
    uint64_t data = scratch(16);
    ck_assert_uint_eq(CALL32(RT(SET_VARIABLE), 0, put_ucs2("Big"), put_guid(GUID_TEST), ATTR_BS_RT, UINT32_MAX, data),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL32(RT(SET_VARIABLE), 0, put_ucs2("Big"), put_guid(GUID_TEST),
                             ATTR_BS_RT | EFI_VARIABLE_APPEND_WRITE, UINT32_MAX, data),
                      EFI_INVALID_PARAMETER);
    ck_assert_ptr_null(fw.variables);
}
END_TEST

Suite *fw_variables_suite(void)
{
    Suite *s = suite_create("fw-variables");
    fw_add_tcase(s, "variables", (const TTest *const[]){
        get_variable_not_found_leaves_data_size_untouched, set_then_get_variable_round_trips_data_and_attributes,
        get_variable_too_small_reports_the_size_and_writes_no_data, get_next_variable_name_walks_in_creation_order,
        get_next_variable_name_too_small_reports_the_size, setting_size_zero_deletes_a_variable,
        set_variable_refuses_bad_attributes_and_names, variable_attributes_ignore_the_upper_half_of_their_register,
        a_variable_name_has_at_most_511_characters,
        append_write_extends_a_variable, set_variable_with_other_attributes_neither_deletes_nor_writes,
        the_secure_boot_modes_cannot_be_made_without_secure_boot,
        an_empty_append_creates_no_variable,
        runtime_get_variable_works_after_exit_boot_services, runtime_writes_only_non_volatile_variables,
        variables_without_runtime_access_vanish_after_exit_boot_services, query_variable_info_reports_the_store,
        store_limit_counts_the_host_cost_of_each_variable, get_variable_with_null_data_size_is_invalid,
        get_next_variable_name_with_null_size_is_invalid, set_variable_with_null_data_is_invalid,
        get_next_variable_name_needs_the_nul_within_the_size,
        query_variable_info_refuses_invalid_attribute_combinations, get_variable_too_small_still_reports_the_attributes,
        set_variable_past_the_variable_limit_is_invalid_and_past_the_store_out_of_resources,
        query_variable_info_maximum_size_fits_the_room_left,
        a_runtime_write_replaces_a_hidden_boot_only_variable, get_next_variable_name_does_not_go_on_from_a_hidden_variable,
        NULL });
    fw_add_tcase_ia32(s, "variables-ia32", (const TTest *const[]){
        ia32_get_variable_reads_and_writes_a_4_byte_data_size, ia32_get_next_variable_name_reads_and_writes_a_4_byte_size,
        ia32_query_variable_info_writes_uint64_outputs, ia32_set_variable_refuses_a_4_gib_data_size, NULL });
    return s;
}
