/* The TCG2 crypto-agile event log's records and the PCR arithmetic, on
 * plain buffers (TCG PC Client Platform Firmware Profile, rev 1.05,
 * sections 10.2 and 10.4): the log starts with a TCG_PCR_EVENT holding
 * the "Spec ID Event03", then one TCG_PCR_EVENT2 per measurement. One bank
 * is served, SHA-256, hashed by OpenSSL. All integers are little-endian
 * (the log's, unlike the TPM's commands). */
#ifndef HANDOVER_FW_TCG_LOG_H
#define HANDOVER_FW_TCG_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TCG_SHA256_SIZE   32
#define TCG_ALG_SHA256    0x000b          /* TPM_ALG_SHA256 (TPM 2.0 Library, Part 2, 6.3) */
#define TCG_EV_NO_ACTION  0x00000003
#define TCG_EV_EVENT_TAG  0x00000006
#define TCG_EV_IPL        0x0000000d
#define TCG_EV_SEPARATOR  0x00000004
#define TCG_EV_EFI_VARIABLE_DRIVER_CONFIG    0x80000001
#define TCG_EV_EFI_BOOT_SERVICES_APPLICATION 0x80000003
#define TCG_EV_EFI_ACTION 0x80000007

/* TCG_PCR_EVENT (PCRIndex, EventType, a 20-byte Digest, EventSize) with the
 * 33-byte TCG_EfiSpecIDEvent of one algorithm and no vendor data. */
#define TCG_SPEC_ID_EVENT_SIZE (32 + 33)
/* TCG_PCR_EVENT2 before its event data: PCRIndex, EventType, a
 * TPML_DIGEST_VALUES of one SHA-256 digest, EventSize. */
#define TCG_EVENT2_HEADER_SIZE (4 + 4 + 4 + 2 + TCG_SHA256_SIZE + 4)

/* Write the log's first record, TCG_SPEC_ID_EVENT_SIZE bytes. */
void tcg_spec_id_event(uint8_t out[TCG_SPEC_ID_EVENT_SIZE]);
/* Write a TCG_PCR_EVENT2's header, TCG_EVENT2_HEADER_SIZE bytes; its
 * event_size bytes of event data follow it. */
void tcg_event2_header(uint8_t out[TCG_EVENT2_HEADER_SIZE], uint32_t pcr, uint32_t type,
                       const uint8_t digest[TCG_SHA256_SIZE], uint32_t event_size);
/* SHA-256 of len bytes; false if OpenSSL fails. */
bool tcg_sha256(const void *data, size_t len, uint8_t out[TCG_SHA256_SIZE]);
/* TPM2_PCR_Extend on one bank: pcr = SHA-256(pcr || digest). */
bool tcg_extend(uint8_t pcr[TCG_SHA256_SIZE], const uint8_t digest[TCG_SHA256_SIZE]);

#endif
