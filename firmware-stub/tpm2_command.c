/* TPM2_PCR_Read and the error responses (tpm2_command.h). */
#include "tpm2_command.h"

#include <string.h>

static uint32_t get_be(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static uint8_t *put_be(uint8_t *p, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> 8 * (n - 1 - i));
    return p + n;
}

static size_t error_response(uint32_t rc, uint8_t *out)
{
    uint8_t *p = put_be(out, TPM2_ST_NO_SESSIONS, 2);
    p = put_be(p, TPM2_HEADER_SIZE, 4);
    put_be(p, rc, 4);
    return TPM2_HEADER_SIZE;
}

/* A malformed pcrSelectionIn, TPM2_PCR_Read's one parameter. */
static size_t parameter_error(uint32_t rc, uint8_t *out)
{
    return error_response(rc + TPM2_RC_PARAMETER_1, out);
}

/* TPM2_PCR_Read (Part 3, section 22.4): pcrSelectionIn, a
 * TPML_PCR_SELECTION. The response's pcrSelectionOut names the PCRs whose
 * values it carries: of the SHA-256 bank, in order, at most
 * TPM2_PCR_READ_DIGESTS; another bank's selection comes back empty, as a
 * TPM without that bank answers. */
static size_t pcr_read(const uint8_t *params, size_t len, const uint8_t (*pcr)[TCG_SHA256_SIZE],
                       uint32_t update_counter, uint8_t *out)
{
    if (len < 4)
        return parameter_error(TPM2_RC_INSUFFICIENT, out);
    uint32_t count = get_be(params, 4);
    if (count > TPM2_MAX_SELECTIONS)
        return parameter_error(TPM2_RC_SIZE, out);
    uint8_t *p = out + TPM2_HEADER_SIZE;
    p = put_be(p, update_counter, 4);
    p = put_be(p, count, 4);
    const uint8_t *digests[TPM2_PCR_READ_DIGESTS];
    unsigned ndigests = 0;
    size_t at = 4;
    for (uint32_t i = 0; i < count; i++) {
        if (len - at < 3)
            return parameter_error(TPM2_RC_INSUFFICIENT, out);
        uint16_t hash = (uint16_t)get_be(params + at, 2);
        uint8_t size = params[at + 2];
        at += 3;
        if (size != TPM2_PCR_SELECT_SIZE)
            return parameter_error(TPM2_RC_VALUE, out);
        if (len - at < size)
            return parameter_error(TPM2_RC_INSUFFICIENT, out);
        uint8_t select[TPM2_PCR_SELECT_SIZE] = { 0 };
        for (unsigned n = 0; hash == TCG_ALG_SHA256 && n < 8 * TPM2_PCR_SELECT_SIZE; n++)
            if ((params[at + n / 8] >> (n % 8) & 1) && ndigests < TPM2_PCR_READ_DIGESTS) {
                select[n / 8] |= (uint8_t)(1u << (n % 8));
                digests[ndigests++] = pcr[n];
            }
        at += size;
        p = put_be(p, hash, 2);
        p = put_be(p, size, 1);
        memcpy(p, select, size);
        p += size;
    }
    if (at != len)
        return error_response(TPM2_RC_COMMAND_SIZE, out);
    p = put_be(p, ndigests, 4);
    for (unsigned i = 0; i < ndigests; i++) {
        p = put_be(p, TCG_SHA256_SIZE, 2);
        memcpy(p, digests[i], TCG_SHA256_SIZE);
        p += TCG_SHA256_SIZE;
    }
    size_t n = (size_t)(p - out);
    uint8_t *h = put_be(out, TPM2_ST_NO_SESSIONS, 2);
    h = put_be(h, (uint32_t)n, 4);
    put_be(h, TPM2_RC_SUCCESS, 4);
    return n;
}

size_t tpm2_answer(const uint8_t *in, size_t in_len, const uint8_t (*pcr)[TCG_SHA256_SIZE], uint32_t update_counter,
                   uint8_t out[TPM2_RESPONSE_MAX])
{
    /* The header in the order a TPM unmarshals it (Part 1, "Command Header
     * Validation"): the tag (either command tag), the size
     * against the bytes received, then the command code. */
    if (in_len < TPM2_HEADER_SIZE)
        return error_response(TPM2_RC_INSUFFICIENT, out);
    uint32_t tag = get_be(in, 2);
    if (tag != TPM2_ST_NO_SESSIONS && tag != TPM2_ST_SESSIONS)
        return error_response(TPM2_RC_BAD_TAG, out);
    if (get_be(in + 2, 4) != in_len)
        return error_response(TPM2_RC_COMMAND_SIZE, out);
    if (get_be(in + 6, 4) != TPM2_CC_PCR_READ)
        return error_response(TPM2_RC_COMMAND_CODE, out);
    /* A TPM2_PCR_Read with sessions (an audit session) is not served. */
    if (tag != TPM2_ST_NO_SESSIONS)
        return error_response(TPM2_RC_BAD_TAG, out);
    return pcr_read(in + TPM2_HEADER_SIZE, in_len - TPM2_HEADER_SIZE, pcr, update_counter, out);
}
