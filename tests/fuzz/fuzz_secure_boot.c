/* libFuzzer harness for Secure Boot's parsers of guest input: the
 * EFI_SIGNATURE_LIST walker and append filter (firmware-stub/signature_list.c), the
 * Authenticode digest and db/dbx decision over an image LoadImage is given
 * (authenticode.c), PKCS#7 SignedData through libcrypto (signed_data.c),
 * and SetVariable's EFI_VARIABLE_AUTHENTICATION_2 (auth_variable.c).
 *
 * Input format: a mode byte (% 4), then the rest R, each part copied to a
 * buffer of its exact size (ASan sees a read past it):
 *   0 signature lists: R, then a stop byte k is R's first byte (the walk
 *     is stopped at the k-th signature in a second walk)
 *   1 an image file: R
 *   2 a signature: a u16 length L, L bytes of an X.509 certificate (DER)
 *     that the harness wraps in a signature list as the anchor, then the
 *     rest, a PKCS#7 ContentInfo (an Authenticode signature), also parsed
 *     as a bare SignedData over the certificate's bytes
 *   3 SetVariable's data for a key: R (a descriptor and signature lists)
 * make-seeds.py writes seeds from the Secure Boot test fixtures.
 *
 * Checks, from the headers: the walker returns -1, 0 or 1, calls back
 * only inside the lists with data of its signature's size (32 for
 * SHA-256), visits exactly the signatures a reference walk finds in the
 * well-formed lists before a malformed one, stops when told, and finds
 * every SHA-256 digest it visited; lists appended to themselves add
 * nothing, to nothing all of themselves; the digest is deterministic, its
 * certificate table inside the file, an image is never allowed with no db,
 * always with its own digest in db (when its certificate table is well
 * formed and dbx is empty), never with its digest in dbx; a signature
 * with no anchor never verifies; a descriptor's parts tile the data.
 * Every error message ends inside its buffer. abort() otherwise; ASan and
 * LeakSanitizer watch libcrypto's objects. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../firmware-stub/auth_variable.h"
#include "../../firmware-stub/authenticode.h"
#include "../../firmware-stub/guids.h"
#include "../../firmware-stub/signature_list.h"
#include "../../firmware-stub/signed_data.h"
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
    const uint8_t *sha256[64];
    unsigned nsha256;
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
        if (list < SIGLIST_HEADER_SIZE || list > n - at || SIGLIST_HEADER_SIZE + header > list) {
            *ok = false;
            return count;
        }
        uint64_t body = list - SIGLIST_HEADER_SIZE - header;
        if (sig <= SIGLIST_OWNER_SIZE || body == 0 || body % sig || (sha256 && sig != 48)) {
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

/* Are the certificate table's WIN_CERTIFICATEs well formed (each dwLength
 * at least its 8-byte header and inside the table, 8-byte aligned)? */
static bool certificate_table_ok(const uint8_t *f, size_t at, size_t size)
{
    for (size_t off = 0; off + 8 <= size;) {
        uint32_t len = le32(f + at + off);
        if (len < 8 || len > size - off)
            return false;
        off += ((size_t)len + 7) & ~(size_t)7;
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
    const struct signed_data_anchors anchors = { { list }, { list_size } }, none = { { NULL }, { 0 } };
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
    const struct signed_data_anchors self = { { a.payload }, { a.payload_size } };
    int rc = auth2_verify(&a, pk, 2, &global, 0x27, &self, err, sizeof(err));
    CHECK(rc == 0 || rc == -1);
    if (rc)
        check_err(err, sizeof(err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    unsigned mode = in_u8(&in) % 4;
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
