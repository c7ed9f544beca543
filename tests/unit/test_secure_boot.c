/* Secure Boot: the signature lists, the EFI_VARIABLE_AUTHENTICATION_2
 * descriptor and the Authenticode digest refusing what is malformed, then
 * the firmware with Secure Boot on: PK, KEK, db and dbx enrolled from the
 * files sign-efi-sig-list makes, the modes derived from PK, key writes
 * that need a signature, and LoadImage admitting what db allows and dbx
 * does not forbid. The keys and signed images are made at build time by
 * tests/secure-boot-fixtures.sh in SECURE_BOOT_DIR (openssl, efitools,
 * sbsign over the synthetic payload). */
#include <stdlib.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>

#include "fw_fixture.h"
#include "../../firmware-stub/auth_variable.h"
#include "../../firmware-stub/authenticode.h"
#include "../../firmware-stub/secure_boot_keys.h"
#include "../../firmware-stub/signature_list.h"
#include "../../firmware-stub/signed_data.h"

#define TIME_BASED EFI_VARIABLE_TIME_BASED_AUTHENTICATED_WRITE_ACCESS
#define KEY_ATTRS  (ATTR_NV_BS_RT | TIME_BASED)

/* A list of n SHA-256 signatures, each filled with its index. */
static size_t sha256_list(uint8_t *d, unsigned n)
{
    efi_guid_t type = GUID_CERT_SHA256;
    uint32_t size = SIGLIST_HEADER_SIZE + 48 * n;
    memset(d, 0, size);
    memcpy(d, &type, 16);
    memcpy(d + 16, &size, 4);
    memcpy(d + 24, &(uint32_t){ 48 }, 4);
    for (unsigned i = 0; i < n; i++)
        memset(d + SIGLIST_HEADER_SIZE + 48 * i + 16, (int)i + 1, 32);
    return size;
}

static bool count(const efi_guid_t *type, const uint8_t *data, size_t size, void *ctx)
{
    (void)type, (void)data, (void)size;
    ++*(unsigned *)ctx;
    return false;
}

START_TEST(signature_lists_are_walked_and_malformed_ones_refused)
{
    uint8_t d[256], digest[32];
    char err[200];
    unsigned n = 0;
    size_t size = sha256_list(d, 2);
    ck_assert_int_eq(siglist_walk(d, size, count, &n, err, sizeof(err)), 0);
    ck_assert_uint_eq(n, 2);
    memset(digest, 2, 32);
    ck_assert(siglist_has_sha256(d, size, digest));
    memset(digest, 3, 32);
    ck_assert(!siglist_has_sha256(d, size, digest));
    ck_assert_int_eq(siglist_walk(d, 10, NULL, NULL, err, sizeof(err)), -1);          /* a header cut short */
    ck_assert_str_eq(err, "signature list at offset 0: 10 bytes left, its header takes 28");
    ck_assert_int_eq(siglist_walk(d, size - 1, NULL, NULL, err, sizeof(err)), -1);    /* SignatureListSize past the end */
    memcpy(d + 24, &(uint32_t){ 40 }, 4);                                               /* SHA-256 in 24-byte signatures */
    ck_assert_int_eq(siglist_walk(d, size, NULL, NULL, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "a SHA-256 signature is 48 bytes"));
    memcpy(d + 24, &(uint32_t){ 0 }, 4);                                                /* SignatureSize 0 */
    ck_assert_int_eq(siglist_walk(d, size, NULL, NULL, err, sizeof(err)), -1);
    sha256_list(d, 2);
    memcpy(d + 20, &(uint32_t){ 0xfffffff0 }, 4);                                       /* SignatureHeaderSize huge */
    ck_assert_int_eq(siglist_walk(d, size, NULL, NULL, err, sizeof(err)), -1);
    ck_assert_int_eq(siglist_walk(d, 0, NULL, NULL, err, sizeof(err)), 0);              /* no lists */
}
END_TEST

/* EFI_CERT_X509_SHA256's data is a TBSCertificate's SHA-256 and an
 * EFI_TIME (UEFI 2.10 section 32.4.1): 48 bytes, 64 with the owner, as
 * EDK2's CheckSignatureListFormat holds it; only its digest is matched. */
START_TEST(x509_sha256_signatures_are_64_bytes)
{
    uint8_t d[256], digest[32];
    char err[200];
    const efi_guid_t type = GUID_CERT_X509_SHA256;
    size_t size = sha256_list(d, 2);
    memcpy(d, &type, sizeof(type));
    ck_assert_int_eq(siglist_walk(d, size, NULL, NULL, err, sizeof(err)), -1);         /* 48-byte signatures */
    ck_assert_ptr_nonnull(strstr(err, "an X.509 SHA-256 signature is 64 bytes"));
    memcpy(d + 24, &(uint32_t){ 64 }, 4);                                               /* 64 does not divide 96 */
    ck_assert_int_eq(siglist_walk(d, size, NULL, NULL, err, sizeof(err)), -1);
    memcpy(d + 16, &(uint32_t){ SIGLIST_HEADER_SIZE + 64 }, 4);                         /* one of 64 bytes */
    memset(d + SIGLIST_HEADER_SIZE + 48, 0xee, 16);                                     /* its revocation time */
    ck_assert_int_eq(siglist_walk(d, SIGLIST_HEADER_SIZE + 64, NULL, NULL, err, sizeof(err)), 0);
    memset(digest, 1, 32);
    ck_assert(siglist_has_x509_sha256(d, SIGLIST_HEADER_SIZE + 64, digest));
    ck_assert(!siglist_has_sha256(d, SIGLIST_HEADER_SIZE + 64, digest));               /* another type */
    memset(digest, 2, 32);
    ck_assert(!siglist_has_x509_sha256(d, SIGLIST_HEADER_SIZE + 64, digest));
}
END_TEST

START_TEST(authentication_descriptors_are_split_and_malformed_ones_refused)
{
    struct file auth = fixture("keys/db.auth"), esl = fixture("keys/db.esl");
    struct auth2 a;
    char err[200];
    ck_assert_int_eq(auth2_parse(auth.data, auth.size, &a, err, sizeof(err)), 0);
    ck_assert_uint_eq(a.payload_size, esl.size);
    ck_assert_mem_eq(a.payload, esl.data, esl.size);
    ck_assert_int_eq(auth2_parse(auth.data, 39, &a, err, sizeof(err)), -1);
    auth.data[15] = 1;   /* Pad2 */
    ck_assert_int_eq(auth2_parse(auth.data, auth.size, &a, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "Pad2"));
    auth.data[15] = 0;
    auth.data[16 + 6] = 0x02;   /* wCertificateType WIN_CERT_TYPE_PKCS_SIGNED_DATA, not the GUID kind */
    ck_assert_int_eq(auth2_parse(auth.data, auth.size, &a, err, sizeof(err)), -1);
    auth.data[16 + 6] = 0xf1;
    memcpy(auth.data + 16, &(uint32_t){ 0x7fffffff }, 4);   /* dwLength past the data */
    ck_assert_int_eq(auth2_parse(auth.data, auth.size, &a, err, sizeof(err)), -1);
    ck_assert_ptr_nonnull(strstr(err, "dwLength"));
    ck_assert_ptr_null(signed_data_parse(esl.data, esl.size, true, err, sizeof(err)));   /* not PKCS#7 */
    ck_assert_ptr_nonnull(strstr(err, "PKCS#7: not a DER SignedData"));
    free(auth.data);
    free(esl.data);
}
END_TEST

START_TEST(the_authenticode_digest_is_efitools_and_malformed_images_are_refused)
{
    struct file unsigned_image = fixture("unsigned.efi"), signed_image = fixture("db-signed.efi"),
                dbx = fixture("dbx.esl");
    uint8_t a[32], b[32];
    size_t at, size;
    char err[200];
    ck_assert_int_eq(authenticode_digest(unsigned_image.data, unsigned_image.size, a, &at, &size, err, sizeof(err)), 0);
    ck_assert_uint_eq(size, 0);
    ck_assert_int_eq(authenticode_digest(signed_image.data, signed_image.size, b, &at, &size, err, sizeof(err)), 0);
    ck_assert_uint_gt(size, 0);
    ck_assert_uint_eq(at + size, signed_image.size);
    ck_assert_mem_eq(a, b, 32);                                /* the signature is not hashed */
    ck_assert_mem_eq(a, dbx.data + dbx.size - 32, 32);         /* hash-to-efi-sig-list's digest */
    ck_assert_int_eq(authenticode_digest(signed_image.data, 0x30, a, &at, &size, err, sizeof(err)), -1);
    ck_assert_int_eq(authenticode_digest(signed_image.data, at + 8, a, &at, &size, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "Authenticode: the certificate table goes past the file");
    memset(signed_image.data + 0x3c, 0xff, 4);                 /* e_lfanew far past the end */
    ck_assert_int_eq(authenticode_digest(signed_image.data, signed_image.size, a, &at, &size, err, sizeof(err)), -1);
    free(unsigned_image.data);
    free(signed_image.data);
    free(dbx.data);
}
END_TEST

static uint32_t le32_at(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static void put_le32_at(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* db-signed.efi's last section header, and its certificate table entry
 * (PE32+: data directory 4 of the optional header). */
static size_t last_section_header(const uint8_t *f)
{
    uint32_t pe = le32_at(f + 0x3c);
    uint16_t nsections = (uint16_t)(f[pe + 6] | f[pe + 7] << 8), opt_size = (uint16_t)(f[pe + 20] | f[pe + 21] << 8);
    return pe + 24 + opt_size + 40u * (nsections - 1u);
}

static size_t cert_table_entry(const uint8_t *f)
{
    return le32_at(f + 0x3c) + 24 + 112 + 8 * 4;
}

/* Data after the sections is hashed up to the certificate table; sections
 * whose raw data runs into the table are refused, as EDK2's HashPeImage
 * refuses them (mImageSize < CertSize + SumOfBytesHashed). */
START_TEST(sections_that_run_into_the_certificate_table_are_refused)
{
    struct file signed_image = fixture("db-signed.efi");
    uint8_t digest[32];
    size_t at, size;
    char err[200];
    uint8_t *raw_size = signed_image.data + last_section_header(signed_image.data) + 16;
    put_le32_at(raw_size, le32_at(raw_size) + 8);   /* its last 8 bytes are the table's first 8 */
    ck_assert_int_eq(authenticode_digest(signed_image.data, signed_image.size, digest, &at, &size, err, sizeof(err)),
                     -1);
    ck_assert_str_eq(err, "Authenticode: the sections' raw data runs into the certificate table");
    free(signed_image.data);
}
END_TEST

/* The certificate table holds WIN_CERTIFICATEs, each padded to 8 bytes,
 * and nothing else: EDK2's DxeImageVerificationHandler refuses an image
 * whose walk of the table does not end at its end (OffSet !=
 * SecDataDirEnd), whatever its signatures say. Here the one signature db
 * allows, its table first cut before the padding, then given 4 bytes
 * more; neither changes the image's digest. */
START_TEST(a_certificate_table_with_bytes_past_its_win_certificates_is_refused)
{
    struct file signed_image = fixture("db-signed.efi"), db = fixture("keys/db.esl");
    char why[400];
    uint8_t *f = signed_image.data;
    size_t entry = cert_table_entry(f), n = signed_image.size;
    uint32_t table_size = le32_at(f + entry + 4), dw_length = le32_at(f + le32_at(f + entry));
    ck_assert(authenticode_allowed(f, n, db.data, db.size, NULL, 0, why, sizeof(why)));
    ck_assert_uint_eq(dw_length, 1558);   /* padded to 1560 in the table */
    put_le32_at(f + entry + 4, dw_length);
    ck_assert(!authenticode_allowed(f, n - (table_size - dw_length), db.data, db.size, NULL, 0, why, sizeof(why)));
    ck_assert_str_eq(why, "Authenticode: the certificate table's last 1558 bytes are not a WIN_CERTIFICATE "
                          "padded to 8 bytes (dwLength 1558)");
    uint8_t *longer = calloc(1, n + 4);
    memcpy(longer, f, n);
    put_le32_at(longer + entry + 4, table_size + 4);
    ck_assert(!authenticode_allowed(longer, n + 4, db.data, db.size, NULL, 0, why, sizeof(why)));
    ck_assert_str_eq(why, "Authenticode: the certificate table's last 4 bytes are not a WIN_CERTIFICATE "
                          "padded to 8 bytes (dwLength 0)");
    free(longer);
    free(signed_image.data);
    free(db.data);
}
END_TEST

/* ---- the firmware with Secure Boot on ------------------------------------------------------ */

static void enrol(const char *dir, const char *key)
{
    char name[256], err[512];
    snprintf(name, sizeof(name), "%s/%s.auth", dir, key);
    struct file f = fixture(name);
    ck_assert_msg(!firmware_secure_boot_enroll(&fw, key, f.data, f.size, err, sizeof(err)), "%s: %s", name, err);
    free(f.data);
}

/* A ContentInfo of SignedData (no signer) whose content is
 * SpcIndirectDataContent of the n bytes at spc (its whole DER), parsed. */
static struct signed_data *authenticode_of(const uint8_t *spc, int n)
{
    PKCS7 *p7 = PKCS7_new(), *inner = PKCS7_new();
    ASN1_STRING *seq = ASN1_STRING_new();
    ck_assert(p7 && inner && seq && PKCS7_set_type(p7, NID_pkcs7_signed) && ASN1_STRING_set(seq, spc, n));
    inner->type = OBJ_txt2obj("1.3.6.1.4.1.311.2.1.4", 1);
    inner->d.other = ASN1_TYPE_new();
    ck_assert(inner->type && inner->d.other);
    ASN1_TYPE_set(inner->d.other, V_ASN1_SEQUENCE, seq);
    ck_assert(PKCS7_set_content(p7, inner));
    unsigned char *der = NULL;
    int size = i2d_PKCS7(p7, &der);
    char err[200];
    ck_assert_int_gt(size, 0);
    struct signed_data *sd = signed_data_parse(der, (size_t)size, false, err, sizeof(err));
    ck_assert_msg(sd != NULL, "%s", err);
    OPENSSL_free(der);
    PKCS7_free(p7);
    return sd;
}

/* Authenticode's SpcIndirectDataContent is DER (the Authenticode PE
 * specification; EDK2's AuthenticodeVerify reads the digest as the
 * content's last 32 bytes, which only a DigestInfo that ends it makes the
 * same digest): bytes after the DigestInfo, or an indefinite length, are
 * refused, not read past. */
START_TEST(spc_indirect_data_content_is_der)
{
    static const uint8_t digest_info[] = {
        0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01,   /* sha256 */
        0x05, 0x00, 0x04, 0x20,                                                                     /* NULL, 32 bytes */
    };
    static const uint8_t data[] = { 0x30, 0x00 };   /* SpcAttributeTypeAndOptionalValue, empty here */
    uint8_t spc[96], digest[32];
    const uint8_t *content;
    size_t content_size;
    char err[200];
    /* SEQUENCE { data, DigestInfo { sha256, NULL, 32 bytes of 0x5a } } */
    size_t n = 2;
    memcpy(spc + n, data, sizeof(data)), n += sizeof(data);
    memcpy(spc + n, digest_info, sizeof(digest_info)), n += sizeof(digest_info);
    memset(spc + n, 0x5a, 32), n += 32;
    spc[0] = 0x30, spc[1] = (uint8_t)(n - 2);
    struct signed_data *sd = authenticode_of(spc, (int)n);
    ck_assert_int_eq(signed_data_authenticode(sd, &content, &content_size, digest, err, sizeof(err)), 0);
    ck_assert_uint_eq(content_size, n - 2);
    ck_assert_uint_eq(digest[31], 0x5a);
    signed_data_free(sd);

    spc[n++] = 0, spc[1]++;                                     /* a byte after the DigestInfo */
    sd = authenticode_of(spc, (int)n);
    ck_assert_int_eq(signed_data_authenticode(sd, &content, &content_size, digest, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "PKCS#7: SpcIndirectDataContent's messageDigest is not a DigestInfo in DER that ends it");
    signed_data_free(sd);

    /* the DigestInfo's length indefinite, and its end-of-contents octets */
    spc[5] = 0x80, spc[n - 1] = 0, spc[n++] = 0, spc[1]++;
    sd = authenticode_of(spc, (int)n);
    ck_assert_int_eq(signed_data_authenticode(sd, &content, &content_size, digest, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "PKCS#7: SpcIndirectDataContent's messageDigest is not a DigestInfo in DER that ends it");
    signed_data_free(sd);

    static const uint8_t indefinite_data[] = { 0x30, 0x06, 0x30, 0x80, 0x00, 0x00, 0x05, 0x00 };
    sd = authenticode_of(indefinite_data, sizeof(indefinite_data));
    ck_assert_int_eq(signed_data_authenticode(sd, &content, &content_size, digest, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "PKCS#7: SpcIndirectDataContent's data is not DER");
    signed_data_free(sd);
}
END_TEST

/* The key set in dir, PK last; dbx only where the set has one. */
static void enrol_all(const char *dir)
{
    char dbx[512];
    snprintf(dbx, sizeof(dbx), "%s/%s/dbx.auth", SECURE_BOOT_DIR, dir);
    enrol(dir, "db");
    if (!access(dbx, F_OK))
        enrol(dir, "dbx");
    enrol(dir, "KEK");
    enrol(dir, "PK");
}

static int mode(const char *name)
{
    uint64_t size_p = put_u64(8), attr_p = put_u64(0), data = scratch(8);
    if (CALL(RT(GET_VARIABLE), put_ucs2(name), put_guid(GUID_GLOBAL_VARIABLE), attr_p, size_p, data) != EFI_SUCCESS)
        return -1;
    ck_assert_uint_eq(rd64(size_p), 1);
    ck_assert_uint_eq(rd32(attr_p), ATTR_BS_RT);
    return *(uint8_t *)hp(data);
}

static efi_status_t load(const char *image)
{
    struct file f = fixture(image);
    uint64_t h_p = put_u64(0);
    efi_status_t s = CALL(BS(LOAD_IMAGE), 0, fw.image_handle, 0, put(f.data, f.size), f.size, h_p);
    ck_assert(s == EFI_SUCCESS ? rd64(h_p) != 0 : rd64(h_p) == 0);
    free(f.data);
    return s;
}

/* LoadImage of image refused, the firmware log saying why. */
static void load_refused(const char *image, const char *why)
{
    ck_assert_uint_eq(load(image), EFI_SECURITY_VIOLATION);
    ck_assert_msg(strstr(log_text(), why) != NULL, "%s: no \"%s\" in the log", image, why);
}

START_TEST(setup_mode_until_pk_then_user_mode)
{
    ck_assert_int_eq(firmware_secure_boot_state(&fw), FW_SECURE_BOOT_SETUP_MODE);
    ck_assert_int_eq(mode("SetupMode"), 1);
    ck_assert_int_eq(mode("SecureBoot"), 0);
    ck_assert_int_eq(mode("AuditMode"), 0);
    ck_assert_int_eq(mode("DeployedMode"), 0);
    enrol("keys", "db");
    enrol("keys", "KEK");
    ck_assert_int_eq(mode("SetupMode"), 1);
    enrol("keys", "PK");
    ck_assert_int_eq(firmware_secure_boot_state(&fw), FW_SECURE_BOOT_USER_MODE);
    ck_assert_int_eq(mode("SetupMode"), 0);
    ck_assert_int_eq(mode("SecureBoot"), 1);
    uint64_t size_p = put_u64(4096), attr_p = put_u64(0), data = scratch(4096);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("PK"), put_guid(GUID_GLOBAL_VARIABLE), attr_p, size_p, data),
                      EFI_SUCCESS);
    ck_assert_uint_eq(rd32(attr_p), KEY_ATTRS);
    struct file esl = fixture("keys/PK.esl");
    ck_assert_uint_eq(rd64(size_p), esl.size);
    ck_assert_mem_eq(hp(data), esl.data, esl.size);
    free(esl.data);
}
END_TEST

START_TEST(the_modes_are_read_only)
{
    ck_assert_uint_eq(set_var("SecureBoot", GUID_GLOBAL_VARIABLE, ATTR_BS_RT, "\1", 1), EFI_WRITE_PROTECTED);
    ck_assert_uint_eq(set_var("SetupMode", GUID_GLOBAL_VARIABLE, ATTR_BS_RT, "\0", 1), EFI_WRITE_PROTECTED);
    ck_assert_uint_eq(set_var("DeployedMode", GUID_GLOBAL_VARIABLE, 0, NULL, 0), EFI_WRITE_PROTECTED);
    ck_assert_int_eq(mode("SetupMode"), 1);
}
END_TEST

START_TEST(key_writes_need_a_signature_by_pk_or_kek_and_a_later_timestamp)
{
    enrol_all("keys");
    struct file other = fixture("other-db.auth"), old = fixture("old-db.auth"), again = fixture("keys/db.auth");
    const efi_guid_t db = GUID_IMAGE_SECURITY_DATABASE;
    ck_assert_uint_eq(set_var("db", db, KEY_ATTRS, other.data, other.size), EFI_SECURITY_VIOLATION);
    ck_assert_ptr_nonnull(strstr(log_text(), "SetVariable(db): EFI_SECURITY_VIOLATION: its signature: "));
    ck_assert_uint_eq(set_var("db", db, KEY_ATTRS, old.data, old.size), EFI_SECURITY_VIOLATION);
    ck_assert_uint_eq(set_var("db", db, KEY_ATTRS, again.data, again.size), EFI_SECURITY_VIOLATION);   /* a replay */
    ck_assert_ptr_nonnull(strstr(log_text(), "its TimeStamp is not later than the one db was written with"));
    ck_assert_uint_eq(set_var("db", db, ATTR_NV_BS_RT, again.data, again.size), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(set_var("db", db, KEY_ATTRS, "not a descriptor", 16), EFI_SECURITY_VIOLATION);
    ck_assert_uint_eq(set_var("PK", GUID_GLOBAL_VARIABLE, KEY_ATTRS, other.data, other.size), EFI_SECURITY_VIOLATION);
    /* Outside the key variables the authenticated attribute is not served. */
    ck_assert_uint_eq(set_var("Other", GUID_TEST, KEY_ATTRS, again.data, again.size), EFI_UNSUPPORTED);
    ck_assert_uint_eq(CALL(RT(SET_VARIABLE), put_ucs2("db"), put_guid(db), KEY_ATTRS, 100, 0x7fffffffffffULL),
                      EFI_INVALID_PARAMETER);   /* data outside guest RAM */
    ck_assert_int_eq(firmware_secure_boot_state(&fw), FW_SECURE_BOOT_USER_MODE);
    free(other.data);
    free(old.data);
    free(again.data);
}
END_TEST

/* An append adds only the signatures the key does not hold yet (UEFI 2.10
 * section 8.2.2; EDK2's FilterSignatureList), so replaying a signed append,
 * which has no TimeStamp to refuse it by, cannot grow db until the store
 * refuses the next real update. */
START_TEST(an_append_adds_only_signatures_not_there_yet)
{
    enrol_all("keys");
    struct file add = fixture("append-other-db.auth"), db = fixture("keys/db.esl"), other = fixture("other.esl");
    const efi_guid_t g = GUID_IMAGE_SECURITY_DATABASE;
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(set_var("db", g, KEY_ATTRS | EFI_VARIABLE_APPEND_WRITE, add.data, add.size), EFI_SUCCESS);
    uint64_t size_p = put_u64(8192), data = scratch(8192);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("db"), put_guid(g), 0, size_p, data), EFI_SUCCESS);
    ck_assert_uint_eq(rd64(size_p), db.size + other.size);
    ck_assert_mem_eq(hp(data), db.data, db.size);
    ck_assert_mem_eq((uint8_t *)hp(data) + db.size, other.data, other.size);
    free(add.data);
    free(db.data);
    free(other.data);
}
END_TEST

/* A signed append of nothing to a key that is not there creates nothing:
 * EDK2's UpdateVariable returns success and writes no variable. */
START_TEST(an_empty_append_to_an_absent_key_creates_nothing)
{
    enrol_all("keys");
    struct file add = fixture("append-nothing-dbx.auth");
    const efi_guid_t g = GUID_IMAGE_SECURITY_DATABASE;
    ck_assert_uint_eq(set_var("dbx", g, KEY_ATTRS | EFI_VARIABLE_APPEND_WRITE, add.data, add.size), EFI_SUCCESS);
    uint64_t size_p = put_u64(8), data = scratch(8);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("dbx"), put_guid(g), 0, size_p, data), EFI_NOT_FOUND);
    free(add.data);
}
END_TEST

START_TEST(load_image_admits_only_what_db_signed)
{
    enrol_all("keys");
    ck_assert_uint_eq(load("db-signed.efi"), EFI_SUCCESS);
    load_refused("unsigned.efi", "LoadImage: Secure Boot refused the image (EFI_SECURITY_VIOLATION): "
                                 "not signed, and its SHA-256 ");
    load_refused("other-signed.efi", "its signature is not anchored in db");
    load_refused("tampered.efi", "its signature is for another image");
}
END_TEST

/* The same signature in a WIN_CERTIFICATE_UEFI_GUID of type
 * EFI_CERT_TYPE_PKCS7_GUID (UEFI 2.10 section 32.2.4), which EDK2 reads. */
START_TEST(load_image_reads_a_signature_in_the_uefi_guid_form)
{
    enrol_all("keys");
    ck_assert_uint_eq(load("db-signed-uefi-guid.efi"), EFI_SUCCESS);
}
END_TEST

START_TEST(load_image_refuses_what_dbx_lists)
{
    enrol_all("dbx-keys");
    load_refused("db-signed.efi", "is in dbx");
}
END_TEST

/* Every signature is held against dbx, also those after one db allows,
 * as EDK2's DxeImageVerificationHandler checks each one's
 * IsForbiddenByDbx: here the second signature's certificate is in dbx. */
START_TEST(load_image_refuses_a_later_signature_dbx_lists)
{
    enrol_all("other-dbx-keys");
    ck_assert_uint_eq(load("db-signed.efi"), EFI_SUCCESS);
    load_refused("db-other-signed.efi", "its signature carries a certificate that is in dbx");
}
END_TEST

/* A leaf's signature (the CA not carried) is anchored by the CA in db. */
START_TEST(load_image_admits_what_a_db_ca_anchors)
{
    enrol_all("ca-keys");
    ck_assert_uint_eq(load("ca-signed.efi"), EFI_SUCCESS);
    ck_assert_uint_eq(load("db-signed.efi"), EFI_SECURITY_VIOLATION);
}
END_TEST

/* A dbx certificate revokes every signature that chains to it, not only
 * one that carries it (EDK2's IsForbiddenByDbx verifies the signature with
 * each dbx certificate as its root): the CA in db and in dbx. */
START_TEST(load_image_refuses_what_chains_to_a_dbx_certificate)
{
    enrol_all("ca-dbx-keys");
    load_refused("ca-signed.efi", "its signature chains to a certificate that is in dbx");
}
END_TEST

/* A dbx EFI_CERT_X509_SHA256 signature revokes the certificate whose
 * TBSCertificate hashes to it: one the image's signature carries (EDK2's
 * IsForbiddenByDbx through IsCertHashFoundInDbx), whatever its revocation
 * time, as no timestamp is trusted here (dbt is not served). */
START_TEST(load_image_refuses_a_signer_dbx_revokes_by_tbs_hash)
{
    enrol_all("tbs-dbx-keys");
    load_refused("db-signed.efi", "its signature carries a certificate whose TBSCertificate's SHA-256 is in dbx");
    ck_assert_uint_eq(load("unsigned.efi"), EFI_SECURITY_VIOLATION);
}
END_TEST

/* Another certificate's TBS hash in dbx leaves db's signer be, and
 * revokes the second signature of an image signed twice. */
START_TEST(load_image_admits_a_signer_whose_tbs_hash_dbx_lacks)
{
    enrol_all("other-tbs-dbx-keys");
    ck_assert_uint_eq(load("db-signed.efi"), EFI_SUCCESS);
    load_refused("db-other-signed.efi", "whose TBSCertificate's SHA-256 is in dbx");
}
END_TEST

/* A db CA that dbx revokes by its TBS hash anchors nothing (EDK2's
 * IsAllowedByDb checks the root it verified with): the leaf it issued,
 * which the signature carries alone, is not admitted. */
START_TEST(load_image_refuses_what_only_a_revoked_db_ca_anchors)
{
    enrol_all("ca-tbs-dbx-keys");
    load_refused("ca-signed.efi", "its signature is not anchored in db: no X.509 certificate to anchor it; "
                                  "1 certificate left out, dbx revoking it by the SHA-256 of its "
                                  "TBSCertificate");
}
END_TEST

START_TEST(setup_mode_admits_any_image)
{
    enrol("keys", "db");
    ck_assert_uint_eq(load("unsigned.efi"), EFI_SUCCESS);
    ck_assert_uint_eq(load("other-signed.efi"), EFI_SUCCESS);
}
END_TEST

/* --inject secure-boot-refuse: LoadImage refused as if the signature
 * failed, and only where images are checked (User Mode). */
START_TEST(an_injected_refusal_applies_in_user_mode_only)
{
    char err[200];
    ck_assert_int_eq(inject_parse(&fw.cfg.inject, "secure-boot-refuse", err, sizeof(err)), 0);
    ck_assert_uint_eq(load("db-signed.efi"), EFI_SUCCESS);
    ck_assert_uint_eq(fw.cfg.inject.seen[INJECT_SECURE_BOOT_REFUSE], 0);
    enrol_all("keys");
    ck_assert_uint_eq(load("db-signed.efi"), EFI_SECURITY_VIOLATION);
    ck_assert_uint_eq(fw.cfg.inject.count[INJECT_SECURE_BOOT_REFUSE], 1);
    ck_assert_ptr_nonnull(strstr(log_text(), "injected fault secure-boot-refuse: LoadImage returns EFI_SECURITY_VIOLATION"));
}
END_TEST

/* An unsigned EFI_VARIABLE_AUTHENTICATION_2 (Setup Mode checks no
 * signature of db) over n distinct SHA-256 signatures from first on. */
static size_t setup_mode_append(uint8_t *d, unsigned first, unsigned n)
{
    static const uint8_t head[EFI_TIME_SIZE + 24] = {
        0xe9, 0x07, 1, 1, [EFI_TIME_SIZE] = 25, 0, 0, 0, 0x00, 0x02, 0xf1, 0x0e,   /* 2025-01-01, dwLength 25 */
    };
    const efi_guid_t pkcs7 = GUID_CERT_TYPE_PKCS7, sha256 = GUID_CERT_SHA256;
    uint8_t *l = d + sizeof(head) + 1;
    uint32_t size = SIGLIST_HEADER_SIZE + 48 * n;
    memcpy(d, head, sizeof(head));
    memcpy(d + EFI_TIME_SIZE + 8, &pkcs7, sizeof(pkcs7));
    d[sizeof(head)] = 0x30;   /* the signature: one byte, never checked here */
    memset(l, 0, size);
    memcpy(l, &sha256, 16);
    memcpy(l + 16, &size, 4);
    memcpy(l + 24, &(uint32_t){ 48 }, 4);
    for (unsigned i = 0; i < n; i++)
        memcpy(l + SIGLIST_HEADER_SIZE + 48 * i + 16, &(uint32_t){ first + i }, 4);
    return sizeof(head) + 1 + size;
}

/* A dbx write in Setup Mode (no signature checked) of one list of type,
 * one 48-byte signature in it, refused as EFI_INVALID_PARAMETER for why;
 * dbx is not made. */
static void dbx_of_type_is_invalid(efi_guid_t type, const char *why)
{
    uint8_t d[256];
    const efi_guid_t g = GUID_IMAGE_SECURITY_DATABASE;
    size_t n = setup_mode_append(d, 0, 1);
    memcpy(d + EFI_TIME_SIZE + 24 + 1, &type, sizeof(type));   /* the list's SignatureType */
    ck_assert_uint_eq(set_var("dbx", g, KEY_ATTRS, d, n), EFI_INVALID_PARAMETER);
    ck_assert_msg(strstr(log_text(), why) != NULL, "no \"%s\" in the log", why);
    uint64_t size_p = put_u64(0);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("dbx"), put_guid(g), 0, size_p, 0), EFI_NOT_FOUND);
}

/* An EFI_CERT_X509_GUID signature is a DER X.509 certificate (UEFI 2.10
 * section 32.4.1): one libcrypto cannot read would anchor or revoke
 * nothing, and its write is EFI_INVALID_PARAMETER, as EDK2's
 * CheckSignatureListFormat refuses it. Here a "certificate" that is 32
 * bytes of a digest. */
START_TEST(a_key_write_whose_certificate_is_not_one_is_invalid)
{
    dbx_of_type_is_invalid(GUID_CERT_X509, "SetVariable(dbx): EFI_INVALID_PARAMETER: an EFI_CERT_X509_GUID signature "
                                           "is not a DER X.509 certificate");
}
END_TEST

/* An EFI_CERT_X509_SHA256 signature that is not 64 bytes (here 48, a
 * SHA-256 one's size) is EFI_INVALID_PARAMETER, as EDK2's
 * CheckSignatureListFormat refuses it; fixtures enrol the 64-byte ones. */
START_TEST(a_key_write_with_a_short_x509_sha256_signature_is_invalid)
{
    dbx_of_type_is_invalid(GUID_CERT_X509_SHA256, "SetVariable(dbx): EFI_INVALID_PARAMETER: signature list at offset "
                                                  "0: SignatureSize 48 does not divide its 48 bytes of signatures (an "
                                                  "X.509 SHA-256 signature is 64 bytes)");
}
END_TEST

/* A key past a variable's 64 KiB is EFI_INVALID_PARAMETER, as any
 * variable's DataSize past the maximum (UEFI 2.10 section 8.2). */
START_TEST(a_key_past_the_variable_limit_is_invalid)
{
    static uint8_t d[64 << 10];
    const efi_guid_t g = GUID_IMAGE_SECURITY_DATABASE;
    size_t n = setup_mode_append(d, 0, 800);
    ck_assert_uint_eq(set_var("db", g, KEY_ATTRS | EFI_VARIABLE_APPEND_WRITE, d, n), EFI_SUCCESS);
    n = setup_mode_append(d, 800, 800);
    ck_assert_uint_eq(set_var("db", g, KEY_ATTRS | EFI_VARIABLE_APPEND_WRITE, d, n), EFI_INVALID_PARAMETER);
    ck_assert_uint_eq(CALL(RT(SET_VARIABLE), put_ucs2("db"), put_guid(g), KEY_ATTRS, (64 << 10) + 1, put(d, 16)),
                      EFI_INVALID_PARAMETER);
    uint64_t size_p = put_u64(0);
    ck_assert_uint_eq(CALL(RT(GET_VARIABLE), put_ucs2("db"), put_guid(g), 0, size_p, 0), EFI_BUFFER_TOO_SMALL);
    ck_assert_uint_eq(rd64(size_p), SIGLIST_HEADER_SIZE + 48 * 800);
}
END_TEST

/* The PEM fixture name as libcrypto reads it: a key or a certificate. */
static void *pem_fixture(const char *name, bool key)
{
    struct file f = fixture(name);
    BIO *b = BIO_new_mem_buf(f.data, (int)f.size);
    void *pem = key ? (void *)PEM_read_bio_PrivateKey(b, NULL, NULL, NULL)
                    : (void *)PEM_read_bio_X509(b, NULL, NULL, NULL);
    ck_assert_ptr_nonnull(pem);
    BIO_free(b);
    free(f.data);
    return pem;
}

/* A write of db's own lists (keys/db.esl) with a TimeStamp in 2098, signed
 * by KEK as sign-efi-sig-list signs (a bare, detached SignedData with no
 * signed attributes) but with the digest md: SetVariable's data. */
static struct file db_write_digested_by(const EVP_MD *md)
{
    struct file esl = fixture("keys/db.esl"), out = { malloc(1 << 16), 0 };
    const efi_guid_t db = GUID_IMAGE_SECURITY_DATABASE, pkcs7 = GUID_CERT_TYPE_PKCS7;
    const uint8_t when[EFI_TIME_SIZE] = { 0x32, 0x08, 1, 1 }, name[] = { 'd', 0, 'b', 0 };
    const uint32_t attrs = KEY_ATTRS;
    BIO *signed_bytes = BIO_new(BIO_s_mem());
    ck_assert(out.data && signed_bytes);
    BIO_write(signed_bytes, name, sizeof(name));
    BIO_write(signed_bytes, &db, sizeof(db));
    BIO_write(signed_bytes, &attrs, 4);
    BIO_write(signed_bytes, when, sizeof(when));
    BIO_write(signed_bytes, esl.data, (int)esl.size);
    X509 *cert = pem_fixture("keys/KEK.crt", false);
    EVP_PKEY *key = pem_fixture("keys/KEK.key", true);
    const int flags = PKCS7_BINARY | PKCS7_DETACHED | PKCS7_NOATTR;
    PKCS7 *p7 = PKCS7_sign(NULL, NULL, NULL, NULL, flags | PKCS7_PARTIAL);
    ck_assert(p7 && PKCS7_sign_add_signer(p7, cert, key, md, flags) && PKCS7_final(p7, signed_bytes, flags));
    unsigned char *der = NULL;
    int der_size = i2d_PKCS7_SIGNED(p7->d.sign, &der);
    ck_assert_int_gt(der_size, 0);
    const uint32_t dw_length = 24 + (uint32_t)der_size;
    memcpy(out.data, when, sizeof(when));
    memcpy(out.data + EFI_TIME_SIZE, &dw_length, 4);
    memcpy(out.data + EFI_TIME_SIZE + 4, (const uint8_t[]){ 0x00, 0x02, 0xf1, 0x0e }, 4);
    memcpy(out.data + EFI_TIME_SIZE + 8, &pkcs7, sizeof(pkcs7));
    memcpy(out.data + EFI_TIME_SIZE + 24, der, (size_t)der_size);
    memcpy(out.data + EFI_TIME_SIZE + dw_length, esl.data, esl.size);
    out.size = EFI_TIME_SIZE + dw_length + esl.size;
    OPENSSL_free(der);
    PKCS7_free(p7);
    EVP_PKEY_free(key);
    X509_free(cert);
    BIO_free(signed_bytes);
    free(esl.data);
    return out;
}

/* An authenticated variable's SignedData digests with SHA-256 and nothing
 * else (UEFI 2.10 section 8.2.2: "Only a digest algorithm of SHA-256 is
 * accepted"; EDK2's VerifyTimeBasedPayload checks the OID): a write that
 * KEK signed over SHA-1 or SHA-384, which libcrypto verifies, is
 * EFI_SECURITY_VIOLATION, the same write over SHA-256 taken. */
START_TEST(a_key_write_digested_by_other_than_sha256_is_refused)
{
    enrol_all("keys");
    const efi_guid_t g = GUID_IMAGE_SECURITY_DATABASE;
    const EVP_MD *const refused[] = { EVP_sha1(), EVP_sha384() };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        struct file w = db_write_digested_by(refused[i]);
        ck_assert_uint_eq(set_var("db", g, KEY_ATTRS, w.data, w.size), EFI_SECURITY_VIOLATION);
        ck_assert_ptr_nonnull(strstr(log_text(), "SetVariable(db): EFI_SECURITY_VIOLATION: its signature: PKCS#7: "
                                                 "a digestAlgorithm is not SHA-256"));
        free(w.data);
    }
    struct file w = db_write_digested_by(EVP_sha256());
    ck_assert_uint_eq(set_var("db", g, KEY_ATTRS, w.data, w.size), EFI_SUCCESS);
    free(w.data);
}
END_TEST

/* ---- an IA-32 firmware with Secure Boot on ----------------------------------------------- */

static efi_status_t set_key32(const char *name, efi_guid_t g, uint32_t attrs, const struct file *f)
{
    return CALL32(RT(SET_VARIABLE), 0, put_ucs2(name), put_guid(g), attrs, (uint32_t)f->size, put(f->data, f->size));
}

/* The keys written through SetVariable's cdecl arguments (DataSize a
 * 4-byte UINTN) and the modes read back with a 4-byte DataSize. LoadImage
 * is not served at this width (image.c), so no guest image reaches
 * Authenticode. */
START_TEST(ia32_key_writes_take_the_ia32_layout)
{
    const efi_guid_t global = GUID_GLOBAL_VARIABLE, db_g = GUID_IMAGE_SECURITY_DATABASE;
    struct file db = fixture("keys/db.auth"), kek = fixture("keys/KEK.auth"), pk = fixture("keys/PK.auth");
    ck_assert_uint_eq(set_key32("db", db_g, KEY_ATTRS, &db), EFI_SUCCESS);
    ck_assert_uint_eq(set_key32("KEK", global, KEY_ATTRS, &kek), EFI_SUCCESS);
    ck_assert_uint_eq(set_key32("PK", global, KEY_ATTRS, &pk), EFI_SUCCESS);
    ck_assert_int_eq(firmware_secure_boot_state(&fw), FW_SECURE_BOOT_USER_MODE);
    ck_assert_uint_eq(set_key32("db", db_g, KEY_ATTRS, &db), EFI_SECURITY_VIOLATION);   /* a replay */
    uint64_t size_p = put_u64(0xa5a5a5a500000008ULL), attr_p = put_u64(0), data = scratch(8);
    ck_assert_uint_eq(CALL32(RT(GET_VARIABLE), 0, put_ucs2("SecureBoot"), put_guid(global), attr_p, size_p, data),
                      EFI_SUCCESS);
    ck_assert_uint_eq(rd64(size_p), 0xa5a5a5a500000001ULL);
    ck_assert_uint_eq(*(uint8_t *)hp(data), 1);
    ck_assert_uint_eq(CALL32(RT(SET_VARIABLE), 0, put_ucs2("db"), put_guid(db_g), KEY_ATTRS, UINT32_MAX, data),
                      EFI_INVALID_PARAMETER);
    free(db.data);
    free(kek.data);
    free(pk.data);
}
END_TEST

Suite *secure_boot_suite(void)
{
    Suite *s = suite_create("secure_boot");
    TCase *tc = tcase_create("checks");
    tcase_add_test(tc, signature_lists_are_walked_and_malformed_ones_refused);
    tcase_add_test(tc, x509_sha256_signatures_are_64_bytes);
    tcase_add_test(tc, spc_indirect_data_content_is_der);
    tcase_add_test(tc, authentication_descriptors_are_split_and_malformed_ones_refused);
    tcase_add_test(tc, the_authenticode_digest_is_efitools_and_malformed_images_are_refused);
    tcase_add_test(tc, sections_that_run_into_the_certificate_table_are_refused);
    tcase_add_test(tc, a_certificate_table_with_bytes_past_its_win_certificates_is_refused);
    suite_add_tcase(s, tc);
    const TTest *const firmware[] = {
        setup_mode_until_pk_then_user_mode, the_modes_are_read_only,
        key_writes_need_a_signature_by_pk_or_kek_and_a_later_timestamp, an_append_adds_only_signatures_not_there_yet,
        an_empty_append_to_an_absent_key_creates_nothing,
        load_image_admits_only_what_db_signed, load_image_reads_a_signature_in_the_uefi_guid_form,
        load_image_refuses_what_dbx_lists, load_image_refuses_a_later_signature_dbx_lists,
        load_image_admits_what_a_db_ca_anchors, load_image_refuses_what_chains_to_a_dbx_certificate,
        load_image_refuses_a_signer_dbx_revokes_by_tbs_hash, load_image_admits_a_signer_whose_tbs_hash_dbx_lacks,
        load_image_refuses_what_only_a_revoked_db_ca_anchors,
        setup_mode_admits_any_image, an_injected_refusal_applies_in_user_mode_only,
        a_key_past_the_variable_limit_is_invalid, a_key_write_whose_certificate_is_not_one_is_invalid,
        a_key_write_with_a_short_x509_sha256_signature_is_invalid, a_key_write_digested_by_other_than_sha256_is_refused,
        NULL,
    };
    fw_add_tcase_secure_boot(s, "firmware", firmware);
    fw_add_tcase_ia32_secure_boot(s, "firmware-ia32", (const TTest *const[]){
        ia32_key_writes_take_the_ia32_layout, NULL });
    return s;
}
