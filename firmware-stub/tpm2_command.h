/* The TPM 2.0 commands EFI_TCG2_PROTOCOL.SubmitCommand answers, on plain
 * buffers (TPM 2.0 Library, Part 3): TPM2_PCR_Read of the SHA-256 bank;
 * any other command gets a TPM_RC_COMMAND_CODE response. Commands and
 * responses are big-endian. */
#ifndef HANDOVER_FW_TPM2_COMMAND_H
#define HANDOVER_FW_TPM2_COMMAND_H

#include <stddef.h>
#include <stdint.h>

#include "tcg_log.h"

#define TPM2_ST_NO_SESSIONS      0x8001
#define TPM2_ST_SESSIONS         0x8002
#define TPM2_CC_PCR_READ         0x0000017e
#define TPM2_RC_SUCCESS          0x000
#define TPM2_RC_BAD_TAG          0x01e
#define TPM2_RC_INSUFFICIENT     0x09a     /* the command ends before its parameters do */
#define TPM2_RC_VALUE            0x084
#define TPM2_RC_SIZE             0x095
/* TPM_RC_P + TPM_RC_1 (Part 2, 6.6.3): added to a format-one code (bit 7
 * set) that is about the command's first parameter, as the TPM's command
 * dispatcher reports an unmarshalling failure. */
#define TPM2_RC_PARAMETER_1      (0x040 + 0x100)
#define TPM2_RC_COMMAND_SIZE     0x142
#define TPM2_RC_COMMAND_CODE     0x143

#define TPM2_HEADER_SIZE         10        /* tag, size, code */
#define TPM2_PCR_SELECT_SIZE     3         /* PCR_SELECT_MIN = PCR_SELECT_MAX: 24 PCRs */
#define TPM2_MAX_SELECTIONS      16        /* TPML_PCR_SELECTION's count at most (HASH_COUNT) */
#define TPM2_PCR_READ_DIGESTS    8         /* digests one TPM2_PCR_Read returns at most */
/* The largest response: header, pcrUpdateCounter, TPM2_MAX_SELECTIONS
 * selections, TPM2_PCR_READ_DIGESTS digests. */
#define TPM2_RESPONSE_MAX \
    (TPM2_HEADER_SIZE + 4 + 4 + TPM2_MAX_SELECTIONS * (3 + TPM2_PCR_SELECT_SIZE) + 4 + \
     TPM2_PCR_READ_DIGESTS * (2 + TCG_SHA256_SIZE))

/* Answer the command in[0..in_len) into out (TPM2_RESPONSE_MAX bytes);
 * returns the response's size. pcr: the SHA-256 bank, 24 PCRs;
 * update_counter: pcrUpdateCounter. */
size_t tpm2_answer(const uint8_t *in, size_t in_len, const uint8_t (*pcr)[TCG_SHA256_SIZE], uint32_t update_counter,
                   uint8_t out[TPM2_RESPONSE_MAX]);

#endif
