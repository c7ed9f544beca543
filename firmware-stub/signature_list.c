/* EFI_SIGNATURE_LIST sequences (signature_list.h). */
#include "signature_list.h"

#include <stdio.h>
#include <string.h>

#include "guids.h"

#define SHA256_SIZE 32

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The signature types whose data has one size (UEFI 2.10 section 32.4.1;
 * EDK2's CheckSignatureListFormat checks each against its
 * mSupportSigItem): a SHA-256 digest, and a TBSCertificate's SHA-256 with
 * its EFI_TIME of revocation. */
static const struct { efi_guid_t type; uint32_t data_size; const char *what; } fixed_size[] = {
    { GUID_CERT_SHA256, SHA256_SIZE, "a SHA-256 signature is 48 bytes" },
    { GUID_CERT_X509_SHA256, SHA256_SIZE + EFI_TIME_SIZE, "an X.509 SHA-256 signature is 64 bytes" },
};

/* Why a signature of type cannot be sig_size bytes; NULL if it can. */
static const char *wrong_size(const efi_guid_t *type, uint32_t sig_size)
{
    for (size_t i = 0; i < sizeof(fixed_size) / sizeof(fixed_size[0]); i++)
        if (guid_equal(type, &fixed_size[i].type))
            return sig_size == SIGLIST_OWNER_SIZE + fixed_size[i].data_size ? NULL : fixed_size[i].what;
    return NULL;
}

int siglist_walk(const uint8_t *d, size_t n, siglist_fn *fn, void *ctx, char *err, size_t errlen)
{
    for (size_t at = 0; at < n;) {
        efi_guid_t type;
        if (n - at < SIGLIST_HEADER_SIZE) {
            snprintf(err, errlen, "signature list at offset %zu: %zu bytes left, its header takes %d", at, n - at,
                     SIGLIST_HEADER_SIZE);
            return -1;
        }
        memcpy(&type, d + at, sizeof(type));
        uint32_t list_size = le32(d + at + 16), header_size = le32(d + at + 20), sig_size = le32(d + at + 24);
        if (list_size > n - at || list_size < SIGLIST_HEADER_SIZE ||
            header_size > list_size - SIGLIST_HEADER_SIZE) {
            snprintf(err, errlen, "signature list at offset %zu: SignatureListSize %u and SignatureHeaderSize %u "
                     "do not fit the %zu bytes left", at, list_size, header_size, n - at);
            return -1;
        }
        uint32_t body = list_size - SIGLIST_HEADER_SIZE - header_size;
        const char *size_rule = wrong_size(&type, sig_size);
        if (sig_size <= SIGLIST_OWNER_SIZE || body == 0 || body % sig_size || size_rule) {
            snprintf(err, errlen, "signature list at offset %zu: SignatureSize %u does not divide its %u bytes of "
                     "signatures%s%s%s", at, sig_size, body, size_rule ? " (" : "", size_rule ? size_rule : "",
                     size_rule ? ")" : "");
            return -1;
        }
        const uint8_t *sig = d + at + SIGLIST_HEADER_SIZE + header_size;
        for (uint32_t off = 0; fn && off < body; off += sig_size)
            if (fn(&type, sig + off + SIGLIST_OWNER_SIZE, sig_size - SIGLIST_OWNER_SIZE, ctx))
                return 1;
        at += list_size;
    }
    return 0;
}

/* A SHA-256 digest looked for among the signatures of one type, whose
 * data it begins. */
struct digest_of { efi_guid_t type; const uint8_t *digest; };

static bool same_digest(const efi_guid_t *type, const uint8_t *data, size_t size, void *ctx)
{
    const struct digest_of *d = ctx;
    return guid_equal(type, &d->type) && size >= SHA256_SIZE && !memcmp(data, d->digest, SHA256_SIZE);
}

static bool has_digest(const uint8_t *d, size_t n, efi_guid_t type, const uint8_t digest[32])
{
    char err[1];
    struct digest_of want = { type, digest };
    return siglist_walk(d, n, same_digest, &want, err, sizeof(err)) == 1;
}

bool siglist_has_sha256(const uint8_t *d, size_t n, const uint8_t digest[32])
{
    return has_digest(d, n, GUID_CERT_SHA256, digest);
}

bool siglist_has_x509_sha256(const uint8_t *d, size_t n, const uint8_t tbs_digest[32])
{
    return has_digest(d, n, GUID_CERT_X509_SHA256, tbs_digest);
}

/* One EFI_SIGNATURE_DATA (owner and data, size bytes) of a type. */
struct signature { const uint8_t *type; const uint8_t *bytes; size_t size; };

static bool same_signature(const efi_guid_t *type, const uint8_t *data, size_t size, void *ctx)
{
    const struct signature *s = ctx;
    /* data follows its owner inside the list */
    return !memcmp(type, s->type, sizeof(*type)) && size + SIGLIST_OWNER_SIZE == s->size &&
           !memcmp(data - SIGLIST_OWNER_SIZE, s->bytes, s->size);
}

size_t siglist_new_signatures(const uint8_t *have, size_t have_size, const uint8_t *add, size_t n, uint8_t *out)
{
    char err[1];
    size_t out_size = 0;
    if (siglist_walk(add, n, NULL, NULL, err, sizeof(err)) < 0)
        return 0;
    for (size_t at = 0; at < n;) {
        uint32_t list_size = le32(add + at + 16), sig_size = le32(add + at + 24);
        size_t head = SIGLIST_HEADER_SIZE + le32(add + at + 20), kept = head;
        uint8_t *list = out + out_size;
        memcpy(list, add + at, head);
        for (size_t off = head; off < list_size; off += sig_size) {
            struct signature s = { add + at, add + at + off, sig_size };
            if (siglist_walk(have, have_size, same_signature, &s, err, sizeof(err)) != 1) {
                memcpy(list + kept, s.bytes, sig_size);
                kept += sig_size;
            }
        }
        if (kept > head) {
            for (unsigned i = 0; i < 4; i++)
                list[16 + i] = (uint8_t)(kept >> 8 * i);
            out_size += kept;
        }
        at += list_size;
    }
    return out_size;
}
