/* PKCS#7 SignedData through libcrypto (signed_data.h). The checks follow
 * EDK2's CryptoPkg (Pkcs7Verify, AuthenticodeVerify): the content type of
 * an Authenticode signature is SPC_INDIRECT_DATA_OBJID, the data signed is
 * the SpcIndirectDataContent without its SEQUENCE header, and the chain may
 * end at any certificate of the trusted lists. */
#include "signed_data.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include "guids.h"
#include "signature_list.h"

#define SPC_INDIRECT_DATA_OBJID "1.3.6.1.4.1.311.2.1.4"
#define SHA256_SIZE 32

struct signed_data {
    PKCS7 *p7;
};

/* libcrypto's last error as text, its queue emptied. */
static void crypto_error(char *err, size_t errlen, const char *what)
{
    unsigned long e = ERR_peek_last_error();
    char text[160] = "no reason given";
    if (e)
        ERR_error_string_n(e, text, sizeof(text));
    ERR_clear_error();
    snprintf(err, errlen, "%s (%s)", what, text);
}

struct signed_data *signed_data_parse(const uint8_t *der, size_t n, bool bare, char *err, size_t errlen)
{
    const unsigned char *p = der;
    PKCS7 *p7 = NULL;
    if (n > LONG_MAX / 2) {
        snprintf(err, errlen, "PKCS#7: %zu bytes is too large", n);
        return NULL;
    }
    if (bare) {
        PKCS7_SIGNED *signed_data = d2i_PKCS7_SIGNED(NULL, &p, (long)n);
        if (signed_data && (p7 = PKCS7_new()) && PKCS7_set_type(p7, NID_pkcs7_signed)) {
            PKCS7_SIGNED_free(p7->d.sign);
            p7->d.sign = signed_data;
        } else {
            PKCS7_SIGNED_free(signed_data);
            PKCS7_free(p7);
            p7 = NULL;
        }
    } else {
        p7 = d2i_PKCS7(NULL, &p, (long)n);
    }
    if (!p7 || !PKCS7_type_is_signed(p7) || !p7->d.sign || !p7->d.sign->contents) {
        PKCS7_free(p7);
        crypto_error(err, errlen, bare ? "PKCS#7: not a DER SignedData" : "PKCS#7: not a DER ContentInfo of SignedData");
        return NULL;
    }
    struct signed_data *sd = OPENSSL_zalloc(sizeof(*sd));
    if (!sd) {
        PKCS7_free(p7);
        snprintf(err, errlen, "PKCS#7: out of memory");
        return NULL;
    }
    sd->p7 = p7;
    return sd;
}

void signed_data_free(struct signed_data *sd)
{
    if (!sd)
        return;
    PKCS7_free(sd->p7);
    OPENSSL_free(sd);
}

/* Are the bytes from der to end the DER of sig, all of them? libcrypto
 * encodes a DigestInfo in DER whatever form it read. */
static bool is_der(const X509_SIG *sig, const unsigned char *der, const unsigned char *end)
{
    unsigned char *again = NULL;
    int n = i2d_X509_SIG(sig, &again);
    bool same = n > 0 && n == end - der && !memcmp(again, der, (size_t)n);
    OPENSSL_free(again);
    return same;
}

int signed_data_authenticode(const struct signed_data *sd, const uint8_t **content, size_t *content_size,
                             uint8_t digest[32], char *err, size_t errlen)
{
    const PKCS7 *inner = sd->p7->d.sign->contents;
    char oid[64] = "";
    if (inner->type)
        OBJ_obj2txt(oid, sizeof(oid), inner->type, 1);
    if (strcmp(oid, SPC_INDIRECT_DATA_OBJID) || !inner->d.other || inner->d.other->type != V_ASN1_SEQUENCE) {
        snprintf(err, errlen, "PKCS#7: content type %s is not Authenticode's SpcIndirectDataContent (%s)",
                 *oid ? oid : "(none)", SPC_INDIRECT_DATA_OBJID);
        return -1;
    }
    const ASN1_STRING *seq = inner->d.other->value.sequence;
    const unsigned char *p = seq->data, *end = seq->data + seq->length;
    long len, first_len;
    int tag, cls;
    /* SpcIndirectDataContent ::= SEQUENCE { data SpcAttributeTypeAndOptionalValue,
     * messageDigest DigestInfo } (Authenticode PE specification), in DER:
     * definite lengths (0x01 of ASN1_get_object: an indefinite one), and
     * nothing after the DigestInfo. EDK2's AuthenticodeVerify takes the
     * content's last 32 bytes as the digest: a form where those are not
     * the DigestInfo's would admit another image there than here. */
    if ((ASN1_get_object(&p, &len, &tag, &cls, end - p) & 0x81) || tag != V_ASN1_SEQUENCE || len != end - p) {
        ERR_clear_error();
        snprintf(err, errlen, "PKCS#7: SpcIndirectDataContent is not a DER SEQUENCE");
        return -1;
    }
    *content = p;
    *content_size = (size_t)len;
    const unsigned char *digest_info = p;
    if ((ASN1_get_object(&digest_info, &first_len, &tag, &cls, end - p) & 0x81) || first_len > end - digest_info) {
        ERR_clear_error();
        snprintf(err, errlen, "PKCS#7: SpcIndirectDataContent's data is not DER");
        return -1;
    }
    digest_info += first_len;
    const unsigned char *digest_info_start = digest_info;
    X509_SIG *sig = d2i_X509_SIG(NULL, &digest_info, end - digest_info);
    const X509_ALGOR *alg;
    const ASN1_OCTET_STRING *md;
    if (!sig || !is_der(sig, digest_info_start, end)) {
        X509_SIG_free(sig);
        ERR_clear_error();
        snprintf(err, errlen, "PKCS#7: SpcIndirectDataContent's messageDigest is not a DigestInfo in DER that ends it");
        return -1;
    }
    X509_SIG_get0(sig, &alg, &md);
    int nid = OBJ_obj2nid(alg->algorithm);
    int ok = nid == NID_sha256 && ASN1_STRING_length(md) == SHA256_SIZE;
    if (ok)
        memcpy(digest, ASN1_STRING_get0_data(md), SHA256_SIZE);
    else
        snprintf(err, errlen, "PKCS#7: the image digest is %s, not SHA-256 (the one served)",
                 nid == NID_undef ? "of an unknown algorithm" : OBJ_nid2sn(nid));
    X509_SIG_free(sig);
    return ok ? 0 : -1;
}

bool signed_data_is_certificate(const uint8_t *der, size_t n)
{
    const unsigned char *p = der;
    X509 *cert = n <= LONG_MAX ? d2i_X509(NULL, &p, (long)n) : NULL;
    X509_free(cert);
    ERR_clear_error();
    return cert != NULL;
}

/* The SHA-256 of a DER certificate's TBSCertificate, as its bytes stand
 * in der: EDK2's X509GetTBSCert takes the first element of the outer
 * SEQUENCE as it is. i2d_re_X509_tbs would encode it anew, which for a
 * certificate not quite in DER hashes other bytes than its issuer signed
 * and a dbx entry was made from. false if der is no SEQUENCE holding one. */
static bool tbs_sha256(const uint8_t *der, size_t n, uint8_t digest[SHA256_SIZE])
{
    const unsigned char *p = der, *tbs;
    long len, tbs_len;
    int tag, cls;
    /* 0x80: a header that does not fit; 0x01: an indefinite length */
    if (n > LONG_MAX || (ASN1_get_object(&p, &len, &tag, &cls, (long)n) & 0x81) || tag != V_ASN1_SEQUENCE) {
        ERR_clear_error();
        return false;
    }
    tbs = p;
    if ((ASN1_get_object(&p, &tbs_len, &tag, &cls, len) & 0x81) || tag != V_ASN1_SEQUENCE) {
        ERR_clear_error();
        return false;
    }
    return EVP_Digest(tbs, (size_t)(p - tbs) + (size_t)tbs_len, digest, NULL, EVP_sha256(), NULL) == 1;
}

/* Does dbx (lists, NULL: none) revoke the DER certificate by the SHA-256
 * of its TBSCertificate (an EFI_CERT_X509_SHA256 signature)? */
static bool tbs_revoked(const uint8_t *der, size_t n, const uint8_t *lists, size_t size)
{
    uint8_t digest[SHA256_SIZE];
    return lists && tbs_sha256(der, n, digest) && siglist_has_x509_sha256(lists, size, digest);
}

/* The store the anchors go to, and the lists that revoke some of them. */
struct anchoring { X509_STORE *store; const uint8_t *revoked; size_t revoked_size; unsigned left_out; };

static bool add_anchor(const efi_guid_t *type, const uint8_t *data, size_t size, void *ctx)
{
    struct anchoring *a = ctx;
    if (!guid_equal(type, &GUID_CERT_X509) || size > LONG_MAX)
        return false;
    if (tbs_revoked(data, size, a->revoked, a->revoked_size)) {
        a->left_out++;
        return false;
    }
    const unsigned char *p = data;
    X509 *cert = d2i_X509(NULL, &p, (long)size);
    if (cert) {
        X509_STORE_add_cert(a->store, cert);
        X509_free(cert);
    }
    ERR_clear_error();
    return false;
}

/* Does every digestAlgorithm of the SignedData name a digest libcrypto
 * serves? PKCS7_verify's own PKCS7_dataInit is tried on in and its
 * digest BIOs freed again: when that call fails inside PKCS7_verify (an
 * unknown algorithm), OpenSSL 3.0 leaks the memory BIO it copied the
 * content into, a leak each call a guest could repeat. */
static bool digests_served(PKCS7 *p7, BIO *in)
{
    BIO *chain = PKCS7_dataInit(p7, in);
    if (!chain)
        return false;
    while (chain && chain != in) {
        BIO *next = BIO_pop(chain);
        BIO_free(chain);
        chain = next;
    }
    return true;
}

int signed_data_verify(const struct signed_data *sd, const uint8_t *content, size_t content_size,
                       const struct signed_data_anchors *anchors, char *err, size_t errlen)
{
    X509_STORE *store = X509_STORE_new();
    BIO *in = content_size <= INT_MAX ? BIO_new_mem_buf(content, (int)content_size) : NULL;
    int rc = -1;
    if (!store || !in) {
        snprintf(err, errlen, "PKCS#7: out of memory");
        goto out;
    }
    char list_err[1], left_out[120] = "";
    struct anchoring a = { store, anchors->revoked, anchors->revoked_size, 0 };
    for (unsigned i = 0; i < SIGNED_DATA_MAX_ANCHORS; i++)
        if (anchors->list[i])
            siglist_walk(anchors->list[i], anchors->size[i], add_anchor, &a, list_err, sizeof(list_err));
    if (a.left_out)
        snprintf(left_out, sizeof(left_out), "; %u certificate%s left out, dbx revoking %s by the SHA-256 of %s "
                 "TBSCertificate", a.left_out, a.left_out == 1 ? "" : "s", a.left_out == 1 ? "it" : "them",
                 a.left_out == 1 ? "its" : "their");
    STACK_OF(X509_OBJECT) *objects = X509_STORE_get0_objects(store);
    if (!objects || sk_X509_OBJECT_num(objects) == 0) {
        snprintf(err, errlen, "no X.509 certificate to anchor it%s", left_out);
        goto out;
    }
    X509_STORE_set_flags(store, X509_V_FLAG_PARTIAL_CHAIN | X509_V_FLAG_NO_CHECK_TIME);
    X509_STORE_set_purpose(store, X509_PURPOSE_ANY);
    if (!digests_served(sd->p7, in))
        crypto_error(err, errlen, "PKCS#7: a digestAlgorithm is not one libcrypto serves");
    else if (PKCS7_verify(sd->p7, NULL, store, in, NULL, PKCS7_BINARY) == 1)
        rc = 0;
    else {
        char what[200];
        snprintf(what, sizeof(what), "no signer verifies with an anchored certificate%s", left_out);
        crypto_error(err, errlen, what);
    }
out:
    BIO_free(in);
    X509_STORE_free(store);
    return rc;
}

static bool is_sha256(const X509_ALGOR *alg)
{
    return alg && OBJ_obj2nid(alg->algorithm) == NID_sha256;
}

bool signed_data_digests_are_sha256(const struct signed_data *sd)
{
    const PKCS7_SIGNED *s = sd->p7->d.sign;
    if (sk_X509_ALGOR_num(s->md_algs) <= 0)
        return false;
    for (int i = 0; i < sk_X509_ALGOR_num(s->md_algs); i++)
        if (!is_sha256(sk_X509_ALGOR_value(s->md_algs, i)))
            return false;
    for (int i = 0; i < sk_PKCS7_SIGNER_INFO_num(s->signer_info); i++)
        if (!is_sha256(sk_PKCS7_SIGNER_INFO_value(s->signer_info, i)->digest_alg))
            return false;
    return true;
}

struct listed { const uint8_t *der; int size; };

static bool same_certificate(const efi_guid_t *type, const uint8_t *data, size_t size, void *ctx)
{
    const struct listed *c = ctx;
    return guid_equal(type, &GUID_CERT_X509) && size == (size_t)c->size && !memcmp(data, c->der, size);
}

/* How the lists name one certificate (its DER, n bytes). */
static enum signed_data_listing listing_of(const uint8_t *der, int n, const uint8_t *lists, size_t size)
{
    char err[1];
    struct listed c = { der, n };
    if (n <= 0)
        return SIGNED_DATA_NOT_LISTED;
    if (siglist_walk(lists, size, same_certificate, &c, err, sizeof(err)) == 1)
        return SIGNED_DATA_LISTED_CERTIFICATE;
    return tbs_revoked(der, (size_t)n, lists, size) ? SIGNED_DATA_LISTED_TBS_SHA256 : SIGNED_DATA_NOT_LISTED;
}

enum signed_data_listing signed_data_carries_listed(const struct signed_data *sd, const uint8_t *lists, size_t size)
{
    STACK_OF(X509) *certs = sd->p7->d.sign->cert;
    enum signed_data_listing found = SIGNED_DATA_NOT_LISTED;
    for (int i = 0; lists && !found && i < sk_X509_num(certs); i++) {
        /* the encoding the certificate was read from, kept by libcrypto */
        unsigned char *der = NULL;
        int n = i2d_X509(sk_X509_value(certs, i), &der);
        found = listing_of(der, n, lists, size);
        OPENSSL_free(der);
    }
    return found;
}
