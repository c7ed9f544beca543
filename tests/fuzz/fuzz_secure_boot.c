/* libFuzzer harness for Secure Boot's parsers of guest input: the
 * EFI_SIGNATURE_LIST walker and append filter (firmware-stub/signature_list.c), the
 * Authenticode digest and db/dbx decision over an image LoadImage is given
 * (authenticode.c), PKCS#7 SignedData through libcrypto (signed_data.c),
 * and SetVariable's EFI_VARIABLE_AUTHENTICATION_2 (auth_variable.c).
 *
 * Input format: a mode byte (% 5), then the rest R, each part copied to a
 * buffer of its exact size (ASan sees a read past it):
 *   0 signature lists: R, then a stop byte k is R's first byte (the walk
 *     is stopped at the k-th signature in a second walk)
 *   1 an image file: R
 *   2 a signature: a u16 length L, L bytes of an X.509 certificate (DER)
 *     that the harness wraps in a signature list as the anchor, then the
 *     rest, a PKCS#7 ContentInfo (an Authenticode signature), also parsed
 *     as a bare SignedData over the certificate's bytes
 *   3 SetVariable's data for a key: R (a descriptor and signature lists)
 *   4 the variable services with Secure Boot on, called through
 *     firmware_call on a firmware of the build's width: a flags byte (bit 0:
 *     a PK is in the store, User Mode; bit 1: the call trace on, to
 *     /dev/null), then steps until the input ends, each an op byte:
 *       op % 6 == 0  write: a u16 offset into scratch, a length byte, the bytes
 *       op % 6 == 1  GetVariable(name, guid, attributes slot, size slot, data)
 *       op % 6 == 2  GetNextVariableName(size slot, name, guid)
 *       op % 6 == 3  SetVariable(name, guid, attributes u32, size, data)
 *       op % 6 == 4  QueryVariableInfo(attributes u32, three outputs)
 *       op % 6 == 5  the runtime phase, as after ExitBootServices
 *     A pointer is a byte k: k % 5 == 0 a known name or GUID (k / 5 picks
 *     it), 1 scratch plus a u16, 2 NULL, 3 the end of guest RAM less a
 *     byte, 4 the data buffer; a slot pointer is a byte k: k % 4 == 0 the
 *     slot, else as a pointer; a slot's value and a size are a u32 (a u64
 *     when the op byte's bit 7 is set: its low half on IA-32).
 * make-seeds.py writes seeds from the Secure Boot test fixtures.
 *
 * Built with FUZZ_SECURE_BOOT_BITS=32 (fuzz_secure_boot32), mode 4's
 * firmware is an IA-32 one (--firmware-bits 32, firmware-stub/width.h):
 * every argument a 4-byte cdecl stack slot, DataSize and
 * VariableNameSize 4-byte UINTNs. Modes 0-3 do not depend on the width.
 *
 * Checks, from the headers: the walker returns -1, 0 or 1, calls back
 * only inside the lists with data of its signature's size (32 for
 * SHA-256, 48 for X.509 SHA-256), visits exactly the signatures a
 * reference walk finds in the well-formed lists before a malformed one,
 * stops when told, and finds every SHA-256 and TBS digest it visited; lists appended to themselves add
 * nothing, to nothing all of themselves; the digest is deterministic, its
 * certificate table inside the file, an image is never allowed with no db,
 * always with its own digest in db (when its certificate table is well
 * formed and dbx is empty), never with its digest in dbx; a signature
 * with no anchor never verifies; a descriptor's parts tile the data.
 * Every error message ends inside its buffer. Mode 4: each status is one
 * UEFI 2.10 section 8.2 lists for the service; the store's byte count is
 * what its variables cost and within its limit, each variable within
 * its own, no two share a name and GUID; SecureBoot and SetupMode follow
 * PK; a GetVariable that succeeds wrote a visible variable's size, data
 * and attributes, one too small the larger size it needs and the
 * attributes; the 4 bytes above a 4-byte UINTN output and above
 * Attributes stay as they were. abort() otherwise; ASan and LeakSanitizer
 * watch libcrypto's objects and the store. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../firmware-stub/auth_variable.h"
#include "../../firmware-stub/authenticode.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/guids.h"
#include "../../firmware-stub/secure_boot_keys.h"
#include "../../firmware-stub/signature_list.h"
#include "../../firmware-stub/signed_data.h"
#include "../../firmware-stub/variable_store.h"
#include "fuzz_harness.h"
#include "fuzz_input.h"

#define ERR_LEN 300

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void check_err(const char *err, size_t len)
{
    CHECK(memchr(err, 0, len));
}

/* A copy of n bytes in a buffer of that size (NULL-safe for n 0). */
static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    if (!d)
        abort();
    memcpy(d, p, n);
    return d;
}

/* One signature list of one signature: type, data (the owner zero). */
static uint8_t *one_list(const efi_guid_t *type, const uint8_t *data, size_t size, size_t *list_size)
{
    *list_size = SIGLIST_HEADER_SIZE + SIGLIST_OWNER_SIZE + size;
    uint8_t *l = calloc(1, *list_size);
    if (!l)
        abort();
    uint32_t total = (uint32_t)*list_size, sig = (uint32_t)(SIGLIST_OWNER_SIZE + size);
    memcpy(l, type, sizeof(*type));
    memcpy(l + 16, &total, 4);
    memcpy(l + 24, &sig, 4);
    memcpy(l + SIGLIST_HEADER_SIZE + SIGLIST_OWNER_SIZE, data, size);
    return l;
}

/* ---- mode 0: signature lists --------------------------------------------------------------- */

struct visit {
    const uint8_t *d;
    size_t n;
    unsigned seen, stop_at;
    const uint8_t *sha256[64], *tbs_sha256[64];
    unsigned nsha256, ntbs_sha256;
};

static bool visited(const efi_guid_t *type, const uint8_t *data, size_t size, void *ctx)
{
    struct visit *v = ctx;
    CHECK(data >= v->d && size >= 1 && size <= v->n && data + size <= v->d + v->n);
    CHECK(type != NULL);
    if (guid_equal(type, &GUID_CERT_SHA256)) {
        CHECK(size == 32);
        if (v->nsha256 < 64)
            v->sha256[v->nsha256++] = data;
    }
    if (guid_equal(type, &GUID_CERT_X509_SHA256)) {
        CHECK(size == 48);
        if (v->ntbs_sha256 < 64)
            v->tbs_sha256[v->ntbs_sha256++] = data;
    }
    return ++v->seen == v->stop_at;
}

/* The walk as signature_list.h states it: the signatures of the
 * well-formed lists before the first malformed one (*ok false then). */
static unsigned reference_walk(const uint8_t *d, size_t n, bool *ok)
{
    unsigned count = 0;
    size_t at = 0;
    *ok = true;
    while (at < n) {
        if (n - at < SIGLIST_HEADER_SIZE) {
            *ok = false;
            return count;
        }
        uint64_t list = le32(d + at + 16), header = le32(d + at + 20), sig = le32(d + at + 24);
        bool sha256 = !memcmp(d + at, &GUID_CERT_SHA256, 16);
        bool tbs_sha256 = !memcmp(d + at, &GUID_CERT_X509_SHA256, 16);
        if (list < SIGLIST_HEADER_SIZE || list > n - at || SIGLIST_HEADER_SIZE + header > list) {
            *ok = false;
            return count;
        }
        uint64_t body = list - SIGLIST_HEADER_SIZE - header;
        if (sig <= SIGLIST_OWNER_SIZE || body == 0 || body % sig || (sha256 && sig != 48) ||
            (tbs_sha256 && sig != 64)) {
            *ok = false;
            return count;
        }
        count += (unsigned)(body / sig);
        at += list;
    }
    return count;
}

static void fuzz_lists(const uint8_t *d, size_t n)
{
    char err[ERR_LEN];
    bool ok;
    unsigned expected = reference_walk(d, n, &ok);
    struct visit v = { .d = d, .n = n };
    memset(err, 'x', sizeof(err));
    int rc = siglist_walk(d, n, visited, &v, err, sizeof(err));
    CHECK(rc == (ok ? 0 : -1));
    CHECK(v.seen == expected);
    if (rc)
        check_err(err, sizeof(err));
    CHECK(siglist_walk(d, n, NULL, NULL, err, sizeof(err)) == rc);
    for (unsigned i = 0; i < v.nsha256; i++)
        CHECK(siglist_has_sha256(d, n, v.sha256[i]));
    for (unsigned i = 0; i < v.ntbs_sha256; i++)
        CHECK(siglist_has_x509_sha256(d, n, v.tbs_sha256[i]));
    /* Appended to themselves, the lists add nothing; to nothing, all of
     * themselves (each list holds a signature). */
    uint8_t *out = malloc(n ? n : 1);
    if (!out)
        abort();
    CHECK(siglist_new_signatures(d, n, d, n, out) == 0);
    size_t all = siglist_new_signatures(NULL, 0, d, n, out);
    CHECK(ok ? all == n && !memcmp(out, d, n) : all == 0);
    free(out);
    /* Stopped at the k-th signature (k from the first byte). */
    struct visit stop = { .d = d, .n = n, .stop_at = n ? d[0] % 8 + 1 : 1 };
    rc = siglist_walk(d, n, visited, &stop, err, sizeof(err));
    CHECK(rc == (stop.stop_at <= expected ? 1 : ok ? 0 : -1));
    CHECK(stop.seen == (stop.stop_at <= expected ? stop.stop_at : expected));
}

/* ---- mode 1: an image -------------------------------------------------------------------- */

/* Is the certificate table WIN_CERTIFICATEs and nothing else (each
 * dwLength at least its 8-byte header, and padded to 8 bytes inside the
 * table)? */
static bool certificate_table_ok(const uint8_t *f, size_t at, size_t size)
{
    for (size_t off = 0; off < size;) {
        uint32_t len = size - off > 8 ? le32(f + at + off) : 0;
        size_t padded = ((size_t)len + 7) & ~(size_t)7;
        if (len < 8 || padded > size - off)
            return false;
        off += padded;
    }
    return true;
}

static void fuzz_image(const uint8_t *f, size_t n)
{
    uint8_t digest[32], again[32];
    size_t at = 0, size = 0, at2, size2;
    char err[ERR_LEN], why[400];
    memset(err, 'x', sizeof(err));
    int rc = authenticode_digest(f, n, digest, &at, &size, err, sizeof(err));
    memset(why, 'x', sizeof(why));
    CHECK(!authenticode_allowed(f, n, NULL, 0, NULL, 0, why, sizeof(why)));
    check_err(why, sizeof(why));
    if (rc) {
        check_err(err, sizeof(err));
        return;
    }
    CHECK(authenticode_digest(f, n, again, &at2, &size2, err, sizeof(err)) == 0);
    CHECK(!memcmp(digest, again, 32) && at == at2 && size == size2);
    CHECK(!size || (at <= n && size <= n - at));
    size_t list_size;
    uint8_t *list = one_list(&GUID_CERT_SHA256, digest, 32, &list_size);
    CHECK(authenticode_allowed(f, n, list, list_size, NULL, 0, why, sizeof(why)) ==
          certificate_table_ok(f, at, size));
    check_err(why, sizeof(why));
    CHECK(!authenticode_allowed(f, n, list, list_size, list, list_size, why, sizeof(why)));
    check_err(why, sizeof(why));
    free(list);
}

/* ---- mode 2: a signature ----------------------------------------------------------------- */

static void fuzz_signature(const uint8_t *cert, size_t cert_size, const uint8_t *der, size_t n)
{
    char err[ERR_LEN];
    size_t list_size;
    uint8_t *list = one_list(&GUID_CERT_X509, cert, cert_size, &list_size);
    const struct signed_data_anchors anchors = { { list }, { list_size }, list, list_size },
                                     none = { { NULL }, { 0 }, NULL, 0 };
    memset(err, 'x', sizeof(err));
    struct signed_data *sd = signed_data_parse(der, n, false, err, sizeof(err));
    if (!sd) {
        check_err(err, sizeof(err));
    } else {
        const uint8_t *content = NULL;
        size_t content_size = 0;
        uint8_t digest[32];
        if (signed_data_authenticode(sd, &content, &content_size, digest, err, sizeof(err))) {
            check_err(err, sizeof(err));
            content = der;
            content_size = n;
        } else {
            CHECK(content && content_size <= n);
        }
        CHECK(signed_data_verify(sd, content, content_size, &none, err, sizeof(err)) == -1);
        check_err(err, sizeof(err));
        int rc = signed_data_verify(sd, content, content_size, &anchors, err, sizeof(err));
        CHECK(rc == 0 || rc == -1);
        CHECK(signed_data_verify(sd, content, content_size, &anchors, err, sizeof(err)) == rc);
        (void)signed_data_carries_listed(sd, list, list_size);
        CHECK(!signed_data_carries_listed(sd, NULL, 0));
        signed_data_free(sd);
    }
    sd = signed_data_parse(der, n, true, err, sizeof(err));
    if (sd) {
        int rc = signed_data_verify(sd, cert, cert_size, &anchors, err, sizeof(err));
        CHECK(rc == 0 || rc == -1);
        signed_data_free(sd);
    } else {
        check_err(err, sizeof(err));
    }
    free(list);
}

/* ---- mode 3: an authenticated write ------------------------------------------------------ */

static void fuzz_auth2(const uint8_t *d, size_t n)
{
    struct auth2 a;
    char err[ERR_LEN];
    memset(err, 'x', sizeof(err));
    if (auth2_parse(d, n, &a, err, sizeof(err))) {
        check_err(err, sizeof(err));
        return;
    }
    CHECK(a.signature == d + EFI_TIME_SIZE + 24 && a.signature_size > 0);
    CHECK(a.payload == a.signature + a.signature_size && a.payload + a.payload_size == d + n);
    CHECK(!memcmp(a.timestamp, d, EFI_TIME_SIZE) && efi_time_compare(a.timestamp, d) == 0);
    int order = efi_time_compare(a.timestamp, a.payload_size >= EFI_TIME_SIZE ? a.payload : d);
    int back = efi_time_compare(a.payload_size >= EFI_TIME_SIZE ? a.payload : d, a.timestamp);
    CHECK((order > 0) == (back < 0) && (order == 0) == (back == 0));
    /* Setup Mode's PK: the new lists anchor their own signature. */
    static const uint16_t pk[] = { 'P', 'K' };
    const efi_guid_t global = GUID_GLOBAL_VARIABLE;
    const struct signed_data_anchors self = { { a.payload }, { a.payload_size }, NULL, 0 };
    int rc = auth2_verify(&a, pk, 2, &global, 0x27, &self, err, sizeof(err));
    CHECK(rc == 0 || rc == -1);
    if (rc)
        check_err(err, sizeof(err));
}

/* ---- mode 4: the variable services --------------------------------------------------------- */

#ifndef FUZZ_SECURE_BOOT_BITS
#define FUZZ_SECURE_BOOT_BITS 64
#endif
#define IA32 (FUZZ_SECURE_BOOT_BITS == 32)

/* Guest RAM: the firmware at 1 MiB; the two output slots below every
 * address a pointer argument can name (no call writes over them but
 * through them); the scratch the input writes, then the data buffer. */
#define RAM_SIZE    (4ULL << 20)
#define FW_BASE     0x100000ULL
#define SIZE_SLOT   0x200000ULL
#define ATTR_SLOT   0x200010ULL
#define SCRATCH     0x201000ULL
#define SCRATCH_MAX 0x10000ULL
#define DATA_BUF    0x220000ULL
#define STACK       0x300000ULL
#define SENTINEL    0xa5a5a5a5u

#define KEY_ATTRS (EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS | \
                   EFI_VARIABLE_TIME_BASED_AUTHENTICATED_WRITE_ACCESS)

static uint8_t *ram;
static FILE *devnull;
static bool verbose;
static struct guest_mem gm;
static struct firmware fw;

/* The names and GUIDs a pointer can pick, at the start of scratch. */
static const char *const known_names[] = { "PK", "KEK", "db", "dbx", "SecureBoot", "SetupMode", "Fuzz" };
#define NNAMES (sizeof(known_names) / sizeof(known_names[0]))
#define NKNOWN (NNAMES + 3)

static uint64_t known_at(unsigned i) { return SCRATCH + 32ULL * (i % NKNOWN); }

static void put_known(void)
{
    for (unsigned i = 0; i < NNAMES; i++)
        for (unsigned c = 0; c <= strlen(known_names[i]); c++)
            ram[known_at(i) + 2 * c] = (uint8_t)known_names[i][c];
    const efi_guid_t guids[3] = { GUID_GLOBAL_VARIABLE, GUID_IMAGE_SECURITY_DATABASE,
                                  EFI_GUID(0x3a1b2c4d, 0x1111, 0x2222, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa) };
    for (unsigned i = 0; i < 3; i++)
        memcpy(ram + known_at(NNAMES + i), &guids[i], sizeof(efi_guid_t));
}

static uint64_t pointer_of(struct fuzz_in *in, uint8_t k)
{
    switch (k % 5) {
    case 0: return known_at(k / 5u);
    case 1: return SCRATCH + in_u16(in);
    case 2: return 0;
    case 3: return RAM_SIZE - 1 - in_u8(in);
    default: return DATA_BUF;
    }
}

static uint64_t pointer(struct fuzz_in *in) { return pointer_of(in, in_u8(in)); }

static uint64_t slot_pointer(struct fuzz_in *in, uint64_t slot)
{
    uint8_t k = in_u8(in);
    return k % 4 == 0 ? slot : pointer_of(in, k);
}

static uint64_t size_value(struct fuzz_in *in, uint8_t op)
{
    return op & 0x80 ? in_u64(in) : in_u32(in);
}

/* A UINTN slot: its value, and on IA-32 the sentinel above it. */
static void fill_slot(uint64_t value)
{
    if (IA32) {
        uint32_t w[2] = { (uint32_t)value, SENTINEL };
        memcpy(ram + SIZE_SLOT, w, 8);
    } else {
        memcpy(ram + SIZE_SLOT, &value, 8);
    }
}

static uint64_t slot_value(void)
{
    uint64_t v = 0;
    memcpy(&v, ram + SIZE_SLOT, IA32 ? 4 : 8);
    return v;
}

static uint32_t rd32(uint64_t gpa)
{
    uint32_t v;
    memcpy(&v, ram + gpa, 4);
    return v;
}

/* The call as the guest makes it at the build's width. */
static efi_status_t call_service(unsigned id, const uint64_t *a, unsigned n)
{
    struct fw_call c = { .rsp = STACK, .view = { &gm, 0, false, false, false, false } };
    if (IA32) {
        memcpy(ram + STACK, &(uint32_t){ 0xfeedf00d }, 4);
        for (unsigned i = 0; i < n; i++)
            memcpy(ram + STACK + 4 + 4 * i, &(uint32_t){ (uint32_t)a[i] }, 4);
    } else {
        uint64_t *regs[4] = { &c.rcx, &c.rdx, &c.r8, &c.r9 };
        for (unsigned i = 0; i < n; i++) {
            if (i < 4)
                *regs[i] = a[i];
            else
                memcpy(ram + STACK + 0x28 + 8 * (i - 4), &a[i], 8);
        }
    }
    return firmware_call(&fw, id, &c);
}

static bool status_in(efi_status_t s, const efi_status_t *allowed, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (s == allowed[i])
            return true;
    return false;
}

static const struct fw_variable *named(const char *ascii, const efi_guid_t *g)
{
    uint16_t name[VAR_NAME_MAX];
    size_t len = fw_variable_ascii_name(ascii, name);
    struct fw_variable **p = fw_variable_find(&fw, name, len, g);
    return p ? *p : NULL;
}

/* The store's invariants after every call. */
static void check_store(void)
{
    uint64_t bytes = 0;
    for (const struct fw_variable *var = fw.variables; var; var = var->next) {
        CHECK(var->size <= VAR_DATA_MAX && var->name_len > 0 && var->name_len < VAR_NAME_MAX);
        CHECK(var->data != NULL);
        bytes += sizeof(struct fw_variable) + var->size;
        for (const struct fw_variable *o = var->next; o; o = o->next)
            CHECK(o->name_len != var->name_len || memcmp(o->name, var->name, 2 * var->name_len) ||
                  !guid_equal(&o->guid, &var->guid));
    }
    CHECK(bytes == fw.variable_bytes && bytes <= VAR_STORE_MAX);
    const efi_guid_t global = GUID_GLOBAL_VARIABLE;
    const struct fw_variable *sb = named("SecureBoot", &global), *setup = named("SetupMode", &global);
    bool pk = named("PK", &global) != NULL;
    CHECK(sb && sb->size == 1 && sb->data[0] == pk);
    CHECK(setup && setup->size == 1 && setup->data[0] == !pk);
    CHECK(rd32(ATTR_SLOT + 4) == SENTINEL);
    if (IA32)
        CHECK(rd32(SIZE_SLOT + 4) == SENTINEL);
}

/* A successful GetVariable into the slots and the data buffer wrote one
 * visible variable's size, data and attributes. */
static void check_got(uint64_t attrs_p)
{
    uint64_t size = slot_value();
    for (const struct fw_variable *var = fw.variables; var; var = var->next)
        if (var->size == size && !memcmp(ram + DATA_BUF, var->data, size) &&
            (!attrs_p || rd32(ATTR_SLOT) == var->attrs) &&
            (fw.phase == FW_PHASE_BOOT || (var->attrs & EFI_VARIABLE_RUNTIME_ACCESS)))
            return;
    CHECK(!"GetVariable's output is no visible variable");
}

static void op_get_variable(struct fuzz_in *in, uint8_t op)
{
    uint64_t a[5] = { pointer(in), pointer(in), 0, 0, 0 };
    a[2] = slot_pointer(in, ATTR_SLOT);
    a[3] = slot_pointer(in, SIZE_SLOT);
    a[4] = pointer(in);
    uint64_t given = size_value(in, op);
    fill_slot(given);
    memcpy(ram + ATTR_SLOT, (uint32_t[]){ 0, SENTINEL }, 8);
    efi_status_t s = call_service(FW_ID_RT(RT_GET_VARIABLE), a, 5);
    static const efi_status_t ok[] = { EFI_SUCCESS, EFI_NOT_FOUND, EFI_BUFFER_TOO_SMALL, EFI_INVALID_PARAMETER };
    CHECK(status_in(s, ok, 4));
    bool canonical = a[3] == SIZE_SLOT && a[4] == DATA_BUF && (!a[2] || a[2] == ATTR_SLOT);
    if (s == EFI_SUCCESS && canonical)
        check_got(a[2]);
    if (s == EFI_BUFFER_TOO_SMALL && a[3] == SIZE_SLOT)
        CHECK(slot_value() > (IA32 ? (uint32_t)given : given));
    if (s == EFI_BUFFER_TOO_SMALL && a[3] == SIZE_SLOT && a[2] == ATTR_SLOT)
        CHECK(rd32(ATTR_SLOT) != 0);   /* every variable has attributes; written on too small as on success */
}

static void op_get_next(struct fuzz_in *in, uint8_t op)
{
    uint64_t a[3] = { slot_pointer(in, SIZE_SLOT), pointer(in), pointer(in) };
    fill_slot(size_value(in, op));
    efi_status_t s = call_service(FW_ID_RT(RT_GET_NEXT_VARIABLE_NAME), a, 3);
    static const efi_status_t ok[] = { EFI_SUCCESS, EFI_NOT_FOUND, EFI_BUFFER_TOO_SMALL, EFI_INVALID_PARAMETER };
    CHECK(status_in(s, ok, 4));
}

static void op_set_variable(struct fuzz_in *in, uint8_t op)
{
    uint64_t a[5] = { pointer(in), pointer(in), in_u32(in), 0, 0 };
    a[3] = size_value(in, op);
    a[4] = pointer(in);
    efi_status_t s = call_service(FW_ID_RT(RT_SET_VARIABLE), a, 5);
    static const efi_status_t ok[] = { EFI_SUCCESS, EFI_INVALID_PARAMETER, EFI_OUT_OF_RESOURCES, EFI_WRITE_PROTECTED,
                                       EFI_SECURITY_VIOLATION, EFI_NOT_FOUND, EFI_UNSUPPORTED };
    CHECK(status_in(s, ok, 7));
}

static void op_query(struct fuzz_in *in)
{
    uint64_t a[4] = { in_u32(in), pointer(in), pointer(in), pointer(in) };
    efi_status_t s = call_service(FW_ID_RT(RT_QUERY_VARIABLE_INFO), a, 4);
    static const efi_status_t ok[] = { EFI_SUCCESS, EFI_INVALID_PARAMETER, EFI_UNSUPPORTED };
    CHECK(status_in(s, ok, 3));
}

static void fuzz_variables(struct fuzz_in *in)
{
    fuzz_host_once(&ram, RAM_SIZE, &devnull, &verbose, "FUZZ_SECURE_BOOT_TRACE");
    if (madvise(ram, RAM_SIZE, MADV_DONTNEED))
        abort();
    uint8_t flags = in_u8(in);
    guest_mem_init(&gm, ram, RAM_SIZE);
    struct fw_config cfg = { .base = FW_BASE, .image_base = RAM_SIZE, .console = devnull,
                             .log = verbose ? stderr : devnull, .trace = verbose ? stderr : flags & 2 ? devnull : NULL,
                             .trace_limit = UINT64_MAX, .bits = FUZZ_SECURE_BOOT_BITS, .secure_boot = true };
    CHECK(firmware_init(&fw, &gm, &cfg) == 0);
    if (flags & 1) {
        /* A PK (its certificate no real one): User Mode, where every key
         * write needs a signature that then fails to verify. */
        static const uint8_t cert[] = { 0x30, 0x03, 0x02, 0x01, 0x01 };
        size_t pk_size;
        uint8_t *pk = one_list(&GUID_CERT_X509, cert, sizeof(cert), &pk_size);
        uint16_t name[2] = { 'P', 'K' };
        const efi_guid_t global = GUID_GLOBAL_VARIABLE;
        CHECK(fw_variable_put(&fw, NULL, name, 2, &global, KEY_ATTRS, pk, pk_size));
        CHECK(fw_secure_boot_init(&fw) == 0);
        CHECK(firmware_secure_boot_state(&fw) == FW_SECURE_BOOT_USER_MODE);
    }
    put_known();
    memcpy(ram + ATTR_SLOT, (uint32_t[]){ 0, SENTINEL }, 8);
    fill_slot(0);
    check_store();
    while (in->n) {
        uint8_t op = in_u8(in);
        switch (op % 6) {
        case 0: {
            uint64_t at = SCRATCH + in_u16(in);
            uint8_t len = in_u8(in);
            in_bytes(in, ram + at, len);
            break;
        }
        case 1: op_get_variable(in, op); break;
        case 2: op_get_next(in, op); break;
        case 3: op_set_variable(in, op); break;
        case 4: op_query(in); break;
        default: fw.phase = FW_PHASE_RUNTIME; break;
        }
        check_store();
    }
    firmware_free(&fw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    unsigned mode = in_u8(&in) % 5;
    if (mode == 4) {
        fuzz_variables(&in);
        return 0;
    }
    if (mode == 2) {
        size_t cert_size = in_u16(&in);
        if (cert_size > in.n)
            cert_size = in.n;
        uint8_t *cert = dup_exact(in.p, cert_size), *der = dup_exact(in.p + cert_size, in.n - cert_size);
        fuzz_signature(cert, cert_size, der, in.n - cert_size);
        free(cert);
        free(der);
        return 0;
    }
    uint8_t *rest = dup_exact(in.p, in.n);
    if (mode == 0)
        fuzz_lists(rest, in.n);
    else if (mode == 1)
        fuzz_image(rest, in.n);
    else
        fuzz_auth2(rest, in.n);
    free(rest);
    return 0;
}
