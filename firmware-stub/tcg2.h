/* EFI_TCG2_PROTOCOL (TCG EFI Protocol Specification, family 2.0, rev
 * 1.22), offered with --tpm: a TPM's measurements kept in the VMM. Its
 * service table, the building of the protocol, its event log and the
 * final-events table, and the results a run reports. */
#ifndef HANDOVER_FW_TCG2_H
#define HANDOVER_FW_TCG2_H

#include "service.h"
#include "tcg_log.h"

/* EFI_TCG2_BOOT_SERVICE_CAPABILITY (section 6.4), naturally aligned: its
 * size in protocol 1.1, and in 1.0 (up to ManufacturerID). */
#define TCG2_CAPABILITY_SIZE     36
#define TCG2_CAPABILITY_1_0_SIZE 28
/* EFI_TCG2_EVENT (section 6.6): Size, then the packed
 * EFI_TCG2_EVENT_HEADER (HeaderSize, HeaderVersion, PCRIndex, EventType). */
#define TCG2_EVENT_HEADER_SIZE   14
#define TCG2_EVENT_HEAD_SIZE     (4 + TCG2_EVENT_HEADER_SIZE)
#define TCG2_EVENT_HEADER_VERSION 1
#define TCG2_EXTEND_ONLY         0x1ull
#define TCG2_PE_COFF_IMAGE       0x10ull
#define TCG2_LOG_FORMAT_TCG_2    0x2
#define TCG2_BOOT_HASH_ALG_SHA256 0x2
#define TCG2_MAX_COMMAND_SIZE    4096      /* MaxCommandSize, MaxResponseSize */
#define TCG2_LOG_PAGES           16        /* the event log, EfiBootServicesData */
#define TCG2_FINAL_PAGES         4         /* the final-events table, EfiACPIMemoryNVS */
#define TCG2_FINAL_HEADER_SIZE   16        /* EFI_TCG2_FINAL_EVENTS_TABLE: Version, NumberOfEvents */

extern const struct fw_service fw_tcg2_services[TCG2_COUNT];

/* Build the protocol on a handle of its own, its event log (the Spec ID
 * event first) and the final-events table, a configuration table; the
 * memory map must already hold what the VMM keeps. -1 when guest memory
 * or the handle database is full, OpenSSL fails, or the firmware is
 * IA-32's (logged: the protocol is served in the x64 layout only). */
int firmware_install_tcg2(struct firmware *fw);

/* The firmware's own measurement: digest extends pcr and the event (its
 * type and size bytes of data) is logged. -1 without --tpm, or if the log
 * is full (the PCR is extended then, and the log marked truncated). */
int fw_tcg2_measure(struct firmware *fw, unsigned pcr, uint32_t type, const uint8_t digest[TCG_SHA256_SIZE],
                    const void *event, uint32_t size);
/* HashLogExtendEvent (a: its arguments) as with a full log: the PCR
 * extended, the event dropped, the log marked truncated, EFI_VOLUME_FULL. */
efi_status_t fw_tcg2_extend_log_full(struct firmware *fw, const struct guest_view *v, const uint64_t *a);

#endif
