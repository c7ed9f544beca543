/* EFI_TCG2_PROTOCOL (--tpm, firmware-stub/tcg2.c): the event log's bytes,
 * PCR extends against OpenSSL's own SHA-256, GetCapability's sizes,
 * SubmitCommand's TPM2_PCR_Read, and hostile arguments. */
#include "fw_fixture.h"

#include <openssl/evp.h>

#include "../../firmware-stub/boot_measurements.h"
#include "../../firmware-stub/tcg2.h"
#include "../../firmware-stub/tcg_log.h"
#include "../../firmware-stub/tpm2_command.h"

#define TCG2(x) FW_ID_TCG2(TCG2_##x)

static void sha256(const void *data, size_t len, uint8_t out[32])
{
    unsigned n;
    ck_assert_int_eq(EVP_Digest(data, len, out, &n, EVP_sha256(), NULL), 1);
}

/* What PCR p holds after extends of the digests of each of data[]. */
static void expected_pcr(const char *const data[], unsigned n, uint8_t out[32])
{
    memset(out, 0, 32);
    for (unsigned i = 0; i < n; i++) {
        uint8_t both[64];
        memcpy(both, out, 32);
        sha256(data[i], strlen(data[i]), both + 32);
        sha256(both, sizeof(both), out);
    }
}

static void install(void) { ck_assert_int_eq(firmware_install_tcg2(&fw), 0); }

/* An EFI_TCG2_EVENT in scratch: Size, the 14-byte header, then data. */
static uint64_t put_event(uint32_t pcr, uint32_t type, const char *data)
{
    uint8_t e[256] = { 0 };
    uint32_t len = (uint32_t)strlen(data), size = TCG2_EVENT_HEAD_SIZE + len, header_size = TCG2_EVENT_HEADER_SIZE;
    uint16_t version = TCG2_EVENT_HEADER_VERSION;
    memcpy(e, &size, 4);
    memcpy(e + 4, &header_size, 4);
    memcpy(e + 8, &version, 2);
    memcpy(e + 10, &pcr, 4);
    memcpy(e + 14, &type, 4);
    memcpy(e + 18, data, len);
    return put(e, size);
}

static efi_status_t measure(uint32_t pcr, const char *data, const char *event)
{
    return CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, put(data, strlen(data)), strlen(data),
                put_event(pcr, TCG_EV_IPL, event));
}

START_TEST(spec_id_event_is_the_profiles_bytes)
{
    static const uint8_t want[TCG_SPEC_ID_EVENT_SIZE] = {
        0, 0, 0, 0, 3, 0, 0, 0,                                     /* PCR 0, EV_NO_ACTION */
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 20-byte digest */
        33, 0, 0, 0,                                                /* EventSize */
        'S', 'p', 'e', 'c', ' ', 'I', 'D', ' ', 'E', 'v', 'e', 'n', 't', '0', '3', 0,
        0, 0, 0, 0,                                                 /* platformClass */
        0, 2, 2, 2,                                                 /* 2.0 errata 2, uintnSize 2 */
        1, 0, 0, 0, 0x0b, 0, 32, 0,                                 /* one algorithm: SHA-256, 32 bytes */
        0,                                                          /* vendorInfoSize */
    };
    uint8_t got[TCG_SPEC_ID_EVENT_SIZE];
    tcg_spec_id_event(got);
    ck_assert_mem_eq(got, want, sizeof(want));
}
END_TEST

START_TEST(event2_header_lays_out_one_sha256_digest)
{
    uint8_t digest[32], got[TCG_EVENT2_HEADER_SIZE];
    for (unsigned i = 0; i < 32; i++)
        digest[i] = (uint8_t)i;
    tcg_event2_header(got, 9, TCG_EV_EVENT_TAG, digest, 0x1234);
    ck_assert_uint_eq(TCG_EVENT2_HEADER_SIZE, 50);
    ck_assert_mem_eq(got, ((uint8_t[]){ 9, 0, 0, 0, 6, 0, 0, 0, 1, 0, 0, 0, 0x0b, 0 }), 14);
    ck_assert_mem_eq(got + 14, digest, 32);
    ck_assert_mem_eq(got + 46, ((uint8_t[]){ 0x34, 0x12, 0, 0 }), 4);
}
END_TEST

START_TEST(extends_match_openssl_and_the_log_records_them)
{
    install();
    ck_assert_uint_eq(measure(9, "initrd bytes", "Linux initrd"), EFI_SUCCESS);
    ck_assert_uint_eq(measure(9, "LoadOptions", "x"), EFI_SUCCESS);
    ck_assert_uint_eq(measure(11, ".linux", ""), EFI_SUCCESS);
    uint8_t want[32];
    expected_pcr((const char *const[]){ "initrd bytes", "LoadOptions" }, 2, want);
    ck_assert_mem_eq(fw.tpm.pcr[9], want, 32);
    expected_pcr((const char *const[]){ ".linux" }, 1, want);
    ck_assert_mem_eq(fw.tpm.pcr[11], want, 32);
    ck_assert_uint_eq(fw.tpm.extended, (1u << 9) | (1u << 11));
    /* The log: the Spec ID event, then three records, the last at last_entry. */
    const uint8_t *log = hp(fw.tpm.log);
    uint64_t at = TCG_SPEC_ID_EVENT_SIZE;
    ck_assert_mem_eq(log + 32, "Spec ID Event03", 16);
    const char *events[] = { "Linux initrd", "x", "" }, *data[] = { "initrd bytes", "LoadOptions", ".linux" };
    for (unsigned i = 0; i < 3; i++) {
        uint8_t digest[32];
        sha256(data[i], strlen(data[i]), digest);
        ck_assert_uint_eq(rd32(fw.tpm.log + at), i < 2 ? 9 : 11);
        ck_assert_uint_eq(rd32(fw.tpm.log + at + 4), TCG_EV_IPL);
        ck_assert_mem_eq(log + at + 14, digest, 32);
        ck_assert_uint_eq(rd32(fw.tpm.log + at + 46), strlen(events[i]));
        ck_assert_mem_eq(log + at + 50, events[i], strlen(events[i]));
        if (i == 2)
            ck_assert_uint_eq(fw.tpm.last_entry, fw.tpm.log + at);
        at += 50 + strlen(events[i]);
    }
    ck_assert_uint_eq(fw.tpm.log_size, at);
    /* EXTEND_ONLY: the PCR moves, the log does not. */
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, TCG2_EXTEND_ONLY, put("a", 1), 1,
                           put_event(12, TCG_EV_IPL, "a")), EFI_SUCCESS);
    ck_assert_uint_eq(fw.tpm.log_size, at);
    expected_pcr((const char *const[]){ "a" }, 1, want);
    ck_assert_mem_eq(fw.tpm.pcr[12], want, 32);
}
END_TEST

START_TEST(the_protocol_is_offered_only_once_installed)
{
    uint64_t iface_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_TCG2_PROTOCOL), 0, iface_p), EFI_NOT_FOUND);
    /* Its thunks called by ID, without --tpm: This NULL as fw.tcg2 is. */
    ck_assert_uint_eq(CALL(TCG2(GET_CAPABILITY), 0, put((uint8_t[36]){ 36 }, 36)), EFI_UNSUPPORTED);
    ck_assert_uint_eq(measure(9, "x", "x"), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(TCG2(GET_ACTIVE_PCR_BANKS), 0, iface_p), EFI_UNSUPPORTED);
    ck_assert_uint_eq(fw.tpm.extended, 0);
    install();
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), put_guid(GUID_TCG2_PROTOCOL), 0, iface_p), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(iface_p), fw.tcg2);
    for (unsigned i = 0; i < TCG2_COUNT; i++)
        ck_assert_uint_eq(rd64(fw.tcg2 + 8 * i), firmware_thunk(&fw, FW_ID_TCG2(i)));
    /* The final-events table: a configuration table, version 1, no events. */
    const struct efi_configuration_table *t =
        (const struct efi_configuration_table *)hp(systab()->configuration_table) + FIRMWARE_CONFIG_TABLES;
    const efi_guid_t final = GUID_TCG2_FINAL_EVENTS_TABLE;
    ck_assert_uint_eq(systab()->number_of_table_entries, FIRMWARE_CONFIG_TABLES + 1);
    ck_assert(guid_equal(&t->vendor_guid, &final));
    ck_assert_uint_eq(rd64(t->vendor_table), 1);
    ck_assert_uint_eq(rd64(t->vendor_table + 8), 0);
    ck_assert_int_eq(memmap_type_at(&fw.map, t->vendor_table), EFI_ACPI_MEMORY_NVS);
}
END_TEST

START_TEST(get_capability_answers_each_structure_size)
{
    install();
    uint8_t c[TCG2_CAPABILITY_SIZE] = { TCG2_CAPABILITY_SIZE };
    uint64_t cap = put(c, sizeof(c));
    ck_assert_uint_eq(CALL(TCG2(GET_CAPABILITY), fw.tcg2, cap), EFI_SUCCESS);
    const uint8_t *got = hp(cap);
    ck_assert_mem_eq(got, ((uint8_t[]){ 36, 1, 1, 1, 1 }), 5);
    ck_assert_uint_eq(rd32(cap + 8), TCG2_BOOT_HASH_ALG_SHA256);   /* HashAlgorithmBitmap */
    ck_assert_uint_eq(rd32(cap + 12), TCG2_LOG_FORMAT_TCG_2);      /* SupportedEventLogs */
    ck_assert_uint_eq(got[16], 1);                                  /* TPMPresentFlag */
    ck_assert_uint_eq(rd32(cap + 28), 1);                           /* NumberOfPCRBanks */
    ck_assert_uint_eq(rd32(cap + 32), TCG2_BOOT_HASH_ALG_SHA256);  /* ActivePcrBanks */
    /* A 1.0 caller's 28 bytes: the 1.0 structure, nothing written past it. */
    uint8_t old[40] = { TCG2_CAPABILITY_1_0_SIZE };
    memset(old + 28, 0xee, 12);
    cap = put(old, sizeof(old));
    ck_assert_uint_eq(CALL(TCG2(GET_CAPABILITY), fw.tcg2, cap), EFI_SUCCESS);
    ck_assert_mem_eq(hp(cap), ((uint8_t[]){ 28, 1, 0, 1, 0 }), 5);
    ck_assert_uint_eq(((uint8_t *)hp(cap))[28], 0xee);
    /* Smaller still: the size it needs. */
    cap = put((uint8_t[]){ 8 }, 1);
    ck_assert_uint_eq(CALL(TCG2(GET_CAPABILITY), fw.tcg2, cap), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(((uint8_t *)hp(cap))[0], TCG2_CAPABILITY_SIZE);
    ck_assert_uint_eq(CALL(TCG2(GET_CAPABILITY), fw.tcg2, 0), EFI_INVALID_PARAMETER);
    ((uint8_t *)hp(RAM_SIZE - 4))[0] = TCG2_CAPABILITY_SIZE;   /* a structure running past the end of RAM */
    ck_assert_uint_eq(CALL(TCG2(GET_CAPABILITY), fw.tcg2, RAM_SIZE - 4), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(GET_CAPABILITY), fw.tcg2 + 8, put(c, sizeof(c))), EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(get_event_log_hands_out_the_log_and_later_events_go_to_the_final_table)
{
    install();
    ck_assert_uint_eq(measure(9, "before", "b"), EFI_SUCCESS);
    uint64_t loc = put_u64(0), last = put_u64(0), trunc = put((uint8_t[]){ 0xff }, 1);
    ck_assert_uint_eq(CALL(TCG2(GET_EVENT_LOG), fw.tcg2, 1, loc, last, trunc), EFI_INVALID_PARAMETER);  /* TCG 1.2 */
    ck_assert_uint_eq(fw.tpm.final_events, 0);
    ck_assert_uint_eq(CALL(TCG2(GET_EVENT_LOG), fw.tcg2, TCG2_LOG_FORMAT_TCG_2, loc, last, trunc), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(loc), fw.tpm.log);
    ck_assert_uint_eq(rd64(last), fw.tpm.log + TCG_SPEC_ID_EVENT_SIZE);
    ck_assert_uint_eq(((uint8_t *)hp(trunc))[0], 0);
    ck_assert_uint_eq(measure(9, "after", "a"), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(fw.tpm.final_table + 8), 1);
    uint8_t digest[32];
    sha256("after", 5, digest);
    ck_assert_mem_eq(hp(fw.tpm.final_table + 16 + 14), digest, 32);
    ck_assert_mem_eq(hp(fw.tpm.final_table + 16), hp(fw.tpm.last_entry), 51);
    ck_assert_uint_eq(CALL(TCG2(GET_EVENT_LOG), fw.tcg2, TCG2_LOG_FORMAT_TCG_2, 0, last, trunc),
                      EFI_INVALID_PARAMETER);
}
END_TEST

/* An event whose data lies where its record goes, in the log: the record
 * holds the data as the guest passed it, in the log and the final-events
 * table alike (the header is not written over the data before it is read). */
START_TEST(an_event_inside_the_log_is_logged_as_it_was_passed)
{
    static const char data[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    install();
    uint64_t loc = put_u64(0), last = put_u64(0), trunc = scratch(1);
    ck_assert_uint_eq(CALL(TCG2(GET_EVENT_LOG), fw.tcg2, TCG2_LOG_FORMAT_TCG_2, loc, last, trunc), EFI_SUCCESS);
    uint64_t slot = fw.tpm.log + fw.tpm.log_size, ev = put_event(9, TCG_EV_IPL, data);
    uint64_t inside = slot + 20 - TCG2_EVENT_HEAD_SIZE;   /* its data 20 bytes into the record's header */
    memmove(hp(inside), hp(ev), TCG2_EVENT_HEAD_SIZE + strlen(data));
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, put("d", 1), 1, inside), EFI_SUCCESS);
    ck_assert_uint_eq(fw.tpm.last_entry, slot);
    ck_assert_uint_eq(rd32(slot + TCG_EVENT2_HEADER_SIZE - 4), strlen(data));
    ck_assert_mem_eq(hp(slot + TCG_EVENT2_HEADER_SIZE), data, strlen(data));
    ck_assert_mem_eq(hp(fw.tpm.final_table + TCG2_FINAL_HEADER_SIZE), hp(slot), TCG_EVENT2_HEADER_SIZE + strlen(data));
}
END_TEST

START_TEST(a_full_log_still_extends_and_says_truncated)
{
    install();
    static char big[3000];
    memset(big, 'e', sizeof(big) - 1);
    uint8_t e[TCG2_EVENT_HEAD_SIZE + sizeof(big)];
    uint64_t ev = put_event(9, TCG_EV_IPL, "");
    uint32_t size = (uint32_t)sizeof(e);
    memcpy(e, hp(ev), TCG2_EVENT_HEAD_SIZE);
    memcpy(e, &size, 4);
    memcpy(e + TCG2_EVENT_HEAD_SIZE, big, sizeof(big));
    ev = put(e, sizeof(e));
    unsigned fit = 0;
    efi_status_t s;
    while ((s = CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, put("d", 1), 1, ev)) == EFI_SUCCESS)
        fit++;
    ck_assert_uint_eq(s, EFI_VOLUME_FULL);
    ck_assert_uint_eq(fit, (TCG2_LOG_PAGES * 4096 - TCG_SPEC_ID_EVENT_SIZE) / (50 + sizeof(e) - TCG2_EVENT_HEAD_SIZE));
    ck_assert(fw.tpm.truncated);
    ck_assert_uint_eq(fw.tpm.update_counter, fit + 1);
    ck_assert_uint_le(fw.tpm.log_size, fw.tpm.log_capacity);
    uint64_t loc = put_u64(0), last = put_u64(0), trunc = scratch(1);
    ck_assert_uint_eq(CALL(TCG2(GET_EVENT_LOG), fw.tcg2, TCG2_LOG_FORMAT_TCG_2, loc, last, trunc), EFI_SUCCESS);
    ck_assert_uint_eq(((uint8_t *)hp(trunc))[0], 1);
}
END_TEST

/* Once an event has been dropped the log takes no more, even one that
 * would fit: a truncated log is all the events up to the first it lacks
 * (EDK2's TcgDxeLogEvent answers EFI_VOLUME_FULL from then on), never one
 * with a hole before its last entry. Each PCR is still extended. */
START_TEST(after_a_dropped_event_the_log_takes_no_more)
{
    static char big[151];
    memset(big, 'e', sizeof(big) - 1);
    install();
    ck_assert_uint_eq(measure(9, "one", "1"), EFI_SUCCESS);
    fw.tpm.log_capacity = fw.tpm.log_size + 100;   /* room for "3"'s 51-byte record, not for big's */
    uint64_t size = fw.tpm.log_size, last = fw.tpm.last_entry;
    ck_assert_uint_eq(measure(9, "two", big), EFI_VOLUME_FULL);
    uint8_t before[32];
    memcpy(before, fw.tpm.pcr[10], 32);
    ck_assert_uint_eq(measure(10, "three", "3"), EFI_VOLUME_FULL);
    ck_assert_mem_ne(fw.tpm.pcr[10], before, 32);
    ck_assert_uint_eq(fw.tpm.log_size, size);
    ck_assert_uint_eq(fw.tpm.last_entry, last);
    uint64_t loc = put_u64(0), last_p = put_u64(0), trunc = scratch(1);
    ck_assert_uint_eq(CALL(TCG2(GET_EVENT_LOG), fw.tcg2, TCG2_LOG_FORMAT_TCG_2, loc, last_p, trunc), EFI_SUCCESS);
    ck_assert_uint_eq(((uint8_t *)hp(trunc))[0], 1);
    ck_assert_uint_eq(measure(10, "four", "4"), EFI_VOLUME_FULL);
    ck_assert_uint_eq(rd64(fw.tpm.final_table + 8), 0);
}
END_TEST

START_TEST(hash_log_extend_event_refuses_hostile_arguments)
{
    install();
    uint64_t data = put("x", 1), ev = put_event(9, TCG_EV_IPL, "e");
    uint8_t e[TCG2_EVENT_HEAD_SIZE + 1];
    memcpy(e, hp(ev), sizeof(e));
    uint32_t v;
    /* Size smaller than the header; HeaderSize or HeaderVersion wrong; PCR 24. */
    const struct { unsigned at, width; uint32_t value; } bad[] = {
        { 0, 4, TCG2_EVENT_HEAD_SIZE - 1 }, { 0, 4, 0 }, { 4, 4, 13 }, { 4, 4, 0xffffffff }, { 8, 2, 2 },
        { 10, 4, FW_TPM_PCRS }, { 10, 4, 0xffffffff }, { 0, 4, 0xffffffff },
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint8_t h[sizeof(e)];
        memcpy(h, e, sizeof(e));
        v = bad[i].value;
        memcpy(h + bad[i].at, &v, bad[i].width);
        ck_assert_msg(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, data, 1, put(h, sizeof(h))) ==
                      EFI_INVALID_PARAMETER, "case %u", i);
    }
    /* The event or the data outside guest RAM, or a length that wraps. */
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, data, 1, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, data, 1, RAM_SIZE - 8), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, RAM_SIZE - 1, 2, ev), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, data, UINT64_MAX, ev), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, 0, 16, ev), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, 1ULL << 63, 1ULL << 63, ev),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, TCG2_PE_COFF_IMAGE, data, 1, ev), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), 0, 0, data, 1, ev), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(fw.tpm.extended, 0);
    ck_assert_uint_eq(fw.tpm.log_size, TCG_SPEC_ID_EVENT_SIZE);
    /* An empty buffer is measured too (its digest is SHA-256 of nothing). */
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, 0, 0, ev), EFI_SUCCESS);
    uint8_t want[32];
    expected_pcr((const char *const[]){ "" }, 1, want);
    ck_assert_mem_eq(fw.tpm.pcr[9], want, 32);
}
END_TEST

/* PE_COFF_IMAGE: the image file's Authenticode digest is extended and
 * logged, the one efitools' hash-to-efi-sig-list puts in dbx.esl; bytes
 * that are no PE image: EFI_UNSUPPORTED, nothing extended. */
START_TEST(pe_coff_image_extends_the_authenticode_digest)
{
    struct file image = fixture("unsigned.efi"), dbx = fixture("dbx.esl");
    const uint8_t *authenticode = dbx.data + dbx.size - 32;
    install();
    uint64_t at = put(image.data, image.size), ev = put_event(4, TCG_EV_EFI_BOOT_SERVICES_APPLICATION, "i");
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, TCG2_PE_COFF_IMAGE, at, image.size, ev), EFI_SUCCESS);
    uint8_t want[32] = { 0 };
    ck_assert(tcg_extend(want, authenticode));
    ck_assert_mem_eq(fw.tpm.pcr[4], want, 32);
    ck_assert_mem_eq(hp(fw.tpm.last_entry + 14), authenticode, 32);
    uint64_t size = fw.tpm.log_size;
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, TCG2_PE_COFF_IMAGE | TCG2_EXTEND_ONLY, at, 0x30, ev),
                      EFI_UNSUPPORTED);
    ck_assert_mem_eq(fw.tpm.pcr[4], want, 32);
    ck_assert_uint_eq(fw.tpm.log_size, size);
    ck_assert_msg(strstr(log_text(), "PE_COFF_IMAGE: Authenticode: no MS-DOS header: EFI_UNSUPPORTED"), "%s",
                  log_text());
    free(image.data);
    free(dbx.data);
}
END_TEST

/* EV_NO_ACTION: logged with a zero digest, no PCR extended. */
START_TEST(an_ev_no_action_event_is_logged_and_extends_nothing)
{
    install();
    uint64_t ev = put_event(0, TCG_EV_NO_ACTION, "info");
    ck_assert_uint_eq(CALL(TCG2(HASH_LOG_EXTEND_EVENT), fw.tcg2, 0, put("d", 1), 1, ev), EFI_SUCCESS);
    static const uint8_t zero[32];
    ck_assert_mem_eq(fw.tpm.pcr[0], zero, 32);
    ck_assert_uint_eq(fw.tpm.extended, 0);
    ck_assert_uint_eq(fw.tpm.update_counter, 0);
    ck_assert_uint_eq(rd32(fw.tpm.last_entry + 4), TCG_EV_NO_ACTION);
    ck_assert_mem_eq(hp(fw.tpm.last_entry + 14), zero, 32);
    ck_assert_mem_eq(hp(fw.tpm.last_entry + TCG_EVENT2_HEADER_SIZE), "info", 4);
}
END_TEST

/* A TPM2_PCR_Read command of the selections given: hash, then 3 bytes. */
static size_t pcr_read_command(uint8_t *c, const uint8_t (*sel)[5], unsigned n)
{
    size_t len = 14 + 6 * (size_t)n;
    uint8_t head[14] = { 0x80, 0x01, 0, 0, 0, (uint8_t)len, 0, 0, 0x01, 0x7e, 0, 0, 0, (uint8_t)n };
    memcpy(c, head, sizeof(head));
    for (unsigned i = 0; i < n; i++) {
        memcpy(c + 14 + 6 * i, sel[i], 2);
        c[16 + 6 * i] = 3;
        memcpy(c + 17 + 6 * i, sel[i] + 2, 3);
    }
    return len;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | p[2] << 8 | p[3]; }

START_TEST(submit_command_reads_pcrs_and_refuses_other_commands)
{
    install();
    ck_assert_uint_eq(measure(9, "initrd", "i"), EFI_SUCCESS);
    uint8_t c[64];
    /* SHA-1 PCR 0 (a bank it lacks), SHA-256 PCRs 0 and 9. */
    size_t len = pcr_read_command(c, (const uint8_t[][5]){ { 0, 4, 1, 0, 0 }, { 0, 0x0b, 1, 2, 0 } }, 2);
    uint64_t out = scratch(TPM2_RESPONSE_MAX);
    ck_assert_uint_eq(CALL(TCG2(SUBMIT_COMMAND), fw.tcg2, len, put(c, len), TPM2_RESPONSE_MAX, out), EFI_SUCCESS);
    const uint8_t *r = hp(out);
    size_t want_len = 10 + 4 + 4 + 2 * 6 + 4 + 2 * 34;
    ck_assert_mem_eq(r, ((uint8_t[]){ 0x80, 0x01 }), 2);
    ck_assert_uint_eq(be32(r + 2), want_len);
    ck_assert_uint_eq(be32(r + 6), TPM2_RC_SUCCESS);
    ck_assert_uint_eq(be32(r + 10), 1);   /* pcrUpdateCounter */
    ck_assert_uint_eq(be32(r + 14), 2);
    ck_assert_mem_eq(r + 18, ((uint8_t[]){ 0, 4, 3, 0, 0, 0, 0, 0x0b, 3, 1, 2, 0 }), 12);
    ck_assert_uint_eq(be32(r + 30), 2);
    static const uint8_t zero[32];
    ck_assert_mem_eq(r + 34, ((uint8_t[]){ 0, 32 }), 2);
    ck_assert_mem_eq(r + 36, zero, 32);
    ck_assert_mem_eq(r + 68, ((uint8_t[]){ 0, 32 }), 2);
    ck_assert_mem_eq(r + 70, fw.tpm.pcr[9], 32);
    /* The response does not fit. */
    ck_assert_uint_eq(CALL(TCG2(SUBMIT_COMMAND), fw.tcg2, len, put(c, len), want_len - 1, out), EFI_BUFFER_TOO_SMALL);
    /* TPM2_Startup: TPM_RC_COMMAND_CODE. */
    uint8_t startup[12] = { 0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x44, 0, 0 };
    ck_assert_uint_eq(CALL(TCG2(SUBMIT_COMMAND), fw.tcg2, 12, put(startup, 12), 64, out), EFI_SUCCESS);
    ck_assert_mem_eq(r, ((uint8_t[]){ 0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x01, 0x43 }), 10);
    /* The header checked in a TPM's order: the tag, the size, the code. */
    startup[1] = 0x02;   /* TPM_ST_SESSIONS: a tag, and the code is the fault */
    ck_assert_uint_eq(tpm2_answer(startup, 12, fw.tpm.pcr, 0, (uint8_t *)hp(out)), 10);
    ck_assert_uint_eq(be32(r + 6), TPM2_RC_COMMAND_CODE);
    startup[0] = 0x12, startup[1] = 0x34, startup[5] = 99;
    ck_assert_uint_eq(tpm2_answer(startup, 12, fw.tpm.pcr, 0, (uint8_t *)hp(out)), 10);
    ck_assert_uint_eq(be32(r + 6), TPM2_RC_BAD_TAG);
    /* Hostile commands: a size that is not the block's, selections past
     * the end, too many of them, a select that is not 3 bytes. */
    uint8_t h[64];
    memcpy(h, c, len);
    h[5] = 0xff;
    ck_assert_uint_eq(tpm2_answer(h, len, fw.tpm.pcr, 0, (uint8_t *)hp(out)), 10);
    ck_assert_uint_eq(be32(r + 6), TPM2_RC_COMMAND_SIZE);
    memcpy(h, c, len);
    h[13] = 3;
    ck_assert_uint_eq(tpm2_answer(h, len, fw.tpm.pcr, 0, (uint8_t *)hp(out)), 10);
    ck_assert_uint_eq(be32(r + 6), 0x1da);   /* TPM_RC_INSUFFICIENT + TPM_RC_P + TPM_RC_1 */
    memcpy(h, c, len);
    h[10] = 0xff;
    ck_assert_uint_eq(tpm2_answer(h, len, fw.tpm.pcr, 0, (uint8_t *)hp(out)), 10);
    ck_assert_uint_eq(be32(r + 6), 0x1d5);   /* TPM_RC_SIZE, the first parameter */
    memcpy(h, c, len);
    h[16] = 200;
    ck_assert_uint_eq(tpm2_answer(h, len, fw.tpm.pcr, 0, (uint8_t *)hp(out)), 10);
    ck_assert_uint_eq(be32(r + 6), 0x1c4);   /* TPM_RC_VALUE, the first parameter */
    ck_assert_uint_eq(tpm2_answer(h, 3, fw.tpm.pcr, 0, (uint8_t *)hp(out)), 10);
    ck_assert_uint_eq(be32(r + 6), TPM2_RC_INSUFFICIENT);
    /* All 24 SHA-256 PCRs asked: the first 8 come back, and the selection says so. */
    len = pcr_read_command(c, (const uint8_t[][5]){ { 0, 0x0b, 0xff, 0xff, 0xff } }, 1);
    ck_assert_uint_eq(tpm2_answer(c, len, fw.tpm.pcr, 0, (uint8_t *)hp(out)), 10 + 4 + 4 + 6 + 4 + 8 * 34);
    ck_assert_mem_eq(r + 18, ((uint8_t[]){ 0, 0x0b, 3, 0xff, 0, 0 }), 6);
    /* The blocks: NULL, empty, too big, outside RAM. */
    ck_assert_uint_eq(CALL(TCG2(SUBMIT_COMMAND), fw.tcg2, 12, 0, 64, out), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(SUBMIT_COMMAND), fw.tcg2, 0, put(startup, 12), 64, out), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(SUBMIT_COMMAND), fw.tcg2, TCG2_MAX_COMMAND_SIZE + 1, out, 64, out),
                      EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(SUBMIT_COMMAND), fw.tcg2, 12, RAM_SIZE - 4, 64, out), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(SUBMIT_COMMAND), fw.tcg2, 12, put(startup, 12), 64, RAM_SIZE - 4),
                      EFI_INVALID_PARAMETER);
}
END_TEST

START_TEST(pcr_banks_are_sha256_and_fixed)
{
    install();
    uint64_t banks = put_u64(0);
    ck_assert_uint_eq(CALL(TCG2(GET_ACTIVE_PCR_BANKS), fw.tcg2, banks), EFI_SUCCESS);
    ck_assert_uint_eq(rd32(banks), TCG2_BOOT_HASH_ALG_SHA256);
    ck_assert_uint_eq(CALL(TCG2(GET_ACTIVE_PCR_BANKS), fw.tcg2, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(SET_ACTIVE_PCR_BANKS), fw.tcg2, TCG2_BOOT_HASH_ALG_SHA256), EFI_UNSUPPORTED);
    /* No bank, or SHA-1 (a bank it lacks); This not the protocol. */
    ck_assert_uint_eq(CALL(TCG2(SET_ACTIVE_PCR_BANKS), fw.tcg2, 0), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(SET_ACTIVE_PCR_BANKS), fw.tcg2, 1), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(SET_ACTIVE_PCR_BANKS), fw.tcg2, 0xffffffff00000002ull), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(TCG2(SET_ACTIVE_PCR_BANKS), 0, TCG2_BOOT_HASH_ALG_SHA256), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(GET_RESULT_OF_SET_ACTIVE_PCR_BANKS), fw.tcg2, banks, banks), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(TCG2(GET_RESULT_OF_SET_ACTIVE_PCR_BANKS), fw.tcg2, 0, banks), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(TCG2(GET_RESULT_OF_SET_ACTIVE_PCR_BANKS), fw.tcg2, banks, RAM_SIZE - 2),
                      EFI_INVALID_PARAMETER);
    exit_boot_services();
    ck_assert_uint_eq(CALL(TCG2(GET_ACTIVE_PCR_BANKS), fw.tcg2, banks), EFI_UNSUPPORTED);   /* boot-time only */
}
END_TEST

/* --inject no-tpm and tpm-extend-fail: only with the protocol there, so
 * that a run without --tpm (and its sweep matrix) never sees them. */
START_TEST(injected_faults_apply_only_with_tpm)
{
    char err[128];
    ck_assert_int_eq(inject_parse(&fw.cfg.inject, "no-tpm", err, sizeof(err)), 0);
    ck_assert_int_eq(inject_parse(&fw.cfg.inject, "tpm-extend-fail@2", err, sizeof(err)), 0);
    uint64_t iface_p = put_u64(0), guid = put_guid(GUID_TCG2_PROTOCOL);
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), guid, 0, iface_p), EFI_NOT_FOUND);
    ck_assert_uint_eq(fw.cfg.inject.seen[INJECT_NO_TPM], 0);
    install();
    ck_assert_uint_eq(CALL(BS(LOCATE_PROTOCOL), guid, 0, iface_p), EFI_NOT_FOUND);
    ck_assert_uint_eq(rd64(iface_p), 0);
    ck_assert_uint_eq(fw.cfg.inject.count[INJECT_NO_TPM], 1);
    ck_assert_uint_eq(measure(9, "one", "1"), EFI_SUCCESS);
    uint8_t before[32];
    memcpy(before, fw.tpm.pcr[9], 32);
    ck_assert_uint_eq(measure(9, "two", "2"), EFI_DEVICE_ERROR);
    ck_assert_mem_eq(fw.tpm.pcr[9], before, 32);
    ck_assert_uint_eq(fw.tpm.update_counter, 1);
    ck_assert_msg(strstr(log_text(), "injected fault tpm-extend-fail: Tcg2.HashLogExtendEvent returns EFI_DEVICE_ERROR"),
                  "%s", log_text());
}
END_TEST

/* --inject tpm-log-full: the PCR extended, the event not logged, the log
 * marked truncated, EFI_VOLUME_FULL; without --tpm it never applies. */
START_TEST(an_injected_full_log_extends_and_drops_the_event)
{
    char err[128];
    ck_assert_int_eq(inject_parse(&fw.cfg.inject, "tpm-log-full@2", err, sizeof(err)), 0);
    install();
    ck_assert_uint_eq(measure(9, "one", "1"), EFI_SUCCESS);
    uint64_t size = fw.tpm.log_size;
    uint8_t before[32];
    memcpy(before, fw.tpm.pcr[9], 32);
    ck_assert_uint_eq(measure(9, "two", "2"), EFI_VOLUME_FULL);
    ck_assert_mem_ne(fw.tpm.pcr[9], before, 32);
    ck_assert_uint_eq(fw.tpm.log_size, size);
    ck_assert(fw.tpm.truncated);
    ck_assert_msg(strstr(log_text(), "injected fault tpm-log-full: Tcg2.HashLogExtendEvent returns EFI_VOLUME_FULL"),
                  "%s", log_text());
}
END_TEST

/* The firmware's own measurements: PCR 7's variables, PCR 4's action
 * and image, a separator in each of PCRs 0-7 (boot_measurements.h). */
START_TEST(the_firmware_measures_the_boot_option)
{
    static uint8_t image[0x400];
    char err[200];
    install();
    ck_assert_int_eq(firmware_measure_boot(&fw, image, sizeof(image), IMAGE_BASE, IMAGE_SIZE, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "Authenticode: no MS-DOS header");   /* all but the image measured */
    ck_assert_uint_eq(fw.tpm.extended, 0xff);
    uint8_t pcr[32] = { 0 }, digest[32];
    ck_assert(tcg_sha256((const uint8_t[4]){ 0 }, 4, digest) && tcg_extend(pcr, digest));
    ck_assert_mem_eq(fw.tpm.pcr[0], pcr, 32);
    ck_assert_uint_eq(fw.tpm.update_counter, 5 + 1 + 8);
}
END_TEST

/* With the log full from the start, every measurement still extends its
 * PCR (PCR 4 ends with the image's) and the first failure is the one
 * reported. */
START_TEST(a_full_log_leaves_every_boot_measurement_extended)
{
    struct file image = fixture("unsigned.efi"), dbx = fixture("dbx.esl");
    char err[200];
    install();
    fw.tpm.log_capacity = fw.tpm.log_size;
    ck_assert_int_eq(firmware_measure_boot(&fw, image.data, image.size, IMAGE_BASE, IMAGE_SIZE, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "the SecureBoot variable's measurement did not fit the event log");
    ck_assert(fw.tpm.truncated);
    ck_assert_uint_eq(fw.tpm.log_size, TCG_SPEC_ID_EVENT_SIZE);
    ck_assert_uint_eq(fw.tpm.extended, 0xff);
    ck_assert_uint_eq(fw.tpm.update_counter, 5 + 1 + 8 + 1);
    uint8_t pcr[32] = { 0 }, digest[32];
    ck_assert(tcg_sha256("Calling EFI Application from Boot Option", 40, digest) && tcg_extend(pcr, digest));
    ck_assert(tcg_sha256((const uint8_t[4]){ 0 }, 4, digest) && tcg_extend(pcr, digest));
    ck_assert(tcg_extend(pcr, dbx.data + dbx.size - 32));
    ck_assert_mem_eq(fw.tpm.pcr[4], pcr, 32);
    free(image.data);
    free(dbx.data);
}
END_TEST

Suite *fw_tcg2_suite(void)
{
    Suite *s = suite_create("fw-tcg2");
    fw_add_tcase(s, "tcg2", (const TTest *const[]){
        spec_id_event_is_the_profiles_bytes, event2_header_lays_out_one_sha256_digest,
        extends_match_openssl_and_the_log_records_them, the_protocol_is_offered_only_once_installed,
        get_capability_answers_each_structure_size,
        get_event_log_hands_out_the_log_and_later_events_go_to_the_final_table,
        an_event_inside_the_log_is_logged_as_it_was_passed, a_full_log_still_extends_and_says_truncated,
        after_a_dropped_event_the_log_takes_no_more,
        hash_log_extend_event_refuses_hostile_arguments, pe_coff_image_extends_the_authenticode_digest,
        an_ev_no_action_event_is_logged_and_extends_nothing,
        submit_command_reads_pcrs_and_refuses_other_commands,
        pcr_banks_are_sha256_and_fixed, injected_faults_apply_only_with_tpm,
        an_injected_full_log_extends_and_drops_the_event, the_firmware_measures_the_boot_option,
        a_full_log_leaves_every_boot_measurement_extended, NULL });
    return s;
}
