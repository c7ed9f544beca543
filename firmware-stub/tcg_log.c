/* The event log's records and PCR extends (tcg_log.h). */
#include "tcg_log.h"

#include <string.h>

#include <openssl/evp.h>

static uint8_t *put_u8(uint8_t *p, uint8_t v)
{
    *p = v;
    return p + 1;
}

static uint8_t *put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    return p + 2;
}

static uint8_t *put_u32(uint8_t *p, uint32_t v)
{
    for (unsigned i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> 8 * i);
    return p + 4;
}

static uint8_t *put_bytes(uint8_t *p, const void *src, size_t n)
{
    memcpy(p, src, n);
    return p + n;
}

/* Section 10.4.5.1: platformClass 0 (client), spec version 2.0 errata 2
 * (rev 1.05), UINTN of 8 bytes (uintnSize 2), the one bank, no vendor
 * information. The record's own digest is 20 zero bytes. */
void tcg_spec_id_event(uint8_t out[TCG_SPEC_ID_EVENT_SIZE])
{
    static const char signature[16] = "Spec ID Event03";
    uint8_t *p = put_u32(out, 0);
    p = put_u32(p, TCG_EV_NO_ACTION);
    memset(p, 0, 20);
    p = put_u32(p + 20, TCG_SPEC_ID_EVENT_SIZE - 32);
    p = put_bytes(p, signature, sizeof(signature));
    p = put_u32(p, 0);
    p = put_u8(p, 0);   /* specVersionMinor */
    p = put_u8(p, 2);   /* specVersionMajor */
    p = put_u8(p, 2);   /* specErrata */
    p = put_u8(p, 2);   /* uintnSize */
    p = put_u32(p, 1);  /* numberOfAlgorithms */
    p = put_u16(p, TCG_ALG_SHA256);
    p = put_u16(p, TCG_SHA256_SIZE);
    put_u8(p, 0);       /* vendorInfoSize */
}

void tcg_event2_header(uint8_t out[TCG_EVENT2_HEADER_SIZE], uint32_t pcr, uint32_t type,
                       const uint8_t digest[TCG_SHA256_SIZE], uint32_t event_size)
{
    uint8_t *p = put_u32(out, pcr);
    p = put_u32(p, type);
    p = put_u32(p, 1);
    p = put_u16(p, TCG_ALG_SHA256);
    p = put_bytes(p, digest, TCG_SHA256_SIZE);
    put_u32(p, event_size);
}

bool tcg_sha256(const void *data, size_t len, uint8_t out[TCG_SHA256_SIZE])
{
    unsigned n = 0;
    return EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) == 1 && n == TCG_SHA256_SIZE;
}

bool tcg_extend(uint8_t pcr[TCG_SHA256_SIZE], const uint8_t digest[TCG_SHA256_SIZE])
{
    uint8_t both[2 * TCG_SHA256_SIZE];
    memcpy(both, pcr, TCG_SHA256_SIZE);
    memcpy(both + TCG_SHA256_SIZE, digest, TCG_SHA256_SIZE);
    return tcg_sha256(both, sizeof(both), pcr);
}
