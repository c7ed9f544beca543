/* EFI_TCG2_PROTOCOL (tcg2.h). What its clients need: the kernel's EFI stub
 * measures the initrd and LoadOptions into PCR 9 through
 * HashLogExtendEvent and copies the log GetEventLog names into a
 * LINUX_EFI_TPM_EVENT_LOG table (drivers/firmware/efi/libstub/
 * efi-stub-helper.c efi_measure_tagged_event, tpm.c
 * efi_retrieve_tpm2_eventlog); systemd-stub asks GetCapability for
 * TPMPresentFlag, then measures a UKI's sections into PCR 11 and its
 * command line into PCR 12 (src/boot/efi/measure.c). There is no TPM
 * device: SubmitCommand answers TPM2_PCR_Read from the same PCRs. */
#include "tcg2.h"

#include <stdlib.h>
#include <string.h>

#include "authenticode.h"
#include "guids.h"
#include "handles.h"
#include "log.h"
#include "system_table.h"
#include "tcg_log.h"
#include "tpm2_command.h"
#include "trace_decode.h"
#include "width.h"

_Static_assert(FW_EVENTS_OFFSET + 8 * FW_MAX_EVENTS <= FW_TCG2_OFFSET &&
               FW_TCG2_OFFSET + 8 * TCG2_COUNT <= FW_DYN_HANDLES_OFFSET,
               "the TCG2 protocol sits between the events and the handles made on demand");

static uint64_t u32_arg(uint64_t a) { return a & 0xffffffffu; }

/* A call through the protocol's thunks: EFI_UNSUPPORTED without --tpm (a
 * guest that calls the thunks by their IDs), EFI_INVALID_PARAMETER for a
 * This that is not the protocol. */
static efi_status_t check_this(const struct firmware *fw, uint64_t this)
{
    return !fw->tpm.on ? EFI_UNSUPPORTED : this != fw->tcg2 ? EFI_INVALID_PARAMETER : EFI_SUCCESS;
}

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> 8 * i);
}

static uint32_t get_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Section 6.4: a caller's Size below the structure's gets the 1.0
 * structure if it holds that (a client of protocol 1.0), else the size
 * it needs and EFI_BUFFER_TOO_SMALL. */
static efi_status_t get_capability(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t this = a[0], cap = a[1];
    uint8_t size, c[TCG2_CAPABILITY_SIZE] = { 0 };
    efi_status_t s = check_this(fw, this);
    if (s != EFI_SUCCESS)
        return s;
    if (!cap || !guest_view_read(v, cap, &size, 1))
        return EFI_INVALID_PARAMETER;
    bool v1_0 = size < TCG2_CAPABILITY_SIZE;
    if (v1_0 && size < TCG2_CAPABILITY_1_0_SIZE) {
        size = TCG2_CAPABILITY_SIZE;
        return guest_view_write(v, cap, &size, 1) ? EFI_BUFFER_TOO_SMALL : EFI_INVALID_PARAMETER;
    }
    c[0] = v1_0 ? TCG2_CAPABILITY_1_0_SIZE : TCG2_CAPABILITY_SIZE;
    c[1] = 1, c[2] = v1_0 ? 0 : 1;              /* StructureVersion */
    c[3] = 1, c[4] = v1_0 ? 0 : 1;              /* ProtocolVersion */
    put_le(c + 8, TCG2_BOOT_HASH_ALG_SHA256, 4); /* HashAlgorithmBitmap */
    put_le(c + 12, TCG2_LOG_FORMAT_TCG_2, 4);    /* SupportedEventLogs */
    c[16] = 1;                                   /* TPMPresentFlag */
    put_le(c + 18, TCG2_MAX_COMMAND_SIZE, 2);
    put_le(c + 20, TCG2_MAX_COMMAND_SIZE, 2);
    put_le(c + 24, 0, 4);                        /* ManufacturerID: none */
    put_le(c + 28, 1, 4);                        /* NumberOfPCRBanks */
    put_le(c + 32, TCG2_BOOT_HASH_ALG_SHA256, 4);  /* ActivePcrBanks */
    return guest_view_write(v, cap, c, c[0]) ? EFI_SUCCESS : EFI_INVALID_PARAMETER;
}

/* Section 6.5. Only the crypto-agile format is kept; asked for it, the log
 * is handed out, and later events go to the final-events table too. */
static efi_status_t get_event_log(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t this = a[0], format = u32_arg(a[1]), location = a[2], last_entry = a[3], truncated = a[4];
    efi_status_t s = check_this(fw, this);
    if (s != EFI_SUCCESS)
        return s;
    if (format != TCG2_LOG_FORMAT_TCG_2 || !fw_writable(v, location, 8) ||
        !fw_writable(v, last_entry, 8) || !fw_writable(v, truncated, 1))
        return EFI_INVALID_PARAMETER;
    uint8_t t = fw->tpm.truncated;
    guest_view_write_u64(v, location, fw->tpm.log);
    guest_view_write_u64(v, last_entry, fw->tpm.last_entry);
    guest_view_write(v, truncated, &t, 1);
    fw->tpm.log_handed_out = true;
    return EFI_SUCCESS;
}

/* An event's data: the guest's (data in the view), or the firmware's own
 * (host: its bytes). */
struct event_data {
    const struct guest_view *v;
    uint64_t data;
    const uint8_t *host;
    uint32_t size;
};

/* The TCG_PCR_EVENT2 record (its header, then the event's data), made in
 * host memory before it is written anywhere: the guest's event data may
 * lie where the record goes (the log is guest RAM too), and the log and
 * the final-events table must get the same bytes. NULL if out of memory
 * or the data cannot be read. */
static uint8_t *event2_record(const uint32_t head[2], const uint8_t *digest, const struct event_data *e)
{
    uint8_t *r = malloc(TCG_EVENT2_HEADER_SIZE + (size_t)e->size);
    if (!r)
        return NULL;
    tcg_event2_header(r, head[0], head[1], digest, e->size);
    if (e->host)
        memcpy(r + TCG_EVENT2_HEADER_SIZE, e->host, e->size);
    else if (e->size && !guest_view_read(e->v, e->data, r + TCG_EVENT2_HEADER_SIZE, e->size)) {
        free(r);
        return NULL;
    }
    return r;
}

/* Log the event: in the log, and once the log is handed out in the
 * final-events table too. false if it did not fit (the log is then
 * truncated) or its data could not be read. A truncated log takes no more
 * events, so that it stays every event up to the first it lacks (EDK2's
 * TcgDxeLogEvent answers EFI_VOLUME_FULL from then on). */
static bool log_event(struct firmware *fw, const uint32_t head[2], const uint8_t *digest, const struct event_data *e)
{
    struct fw_tpm *t = &fw->tpm;
    uint64_t n = TCG_EVENT2_HEADER_SIZE + (uint64_t)e->size;
    if (t->truncated || n > t->log_capacity - t->log_size ||
        (t->log_handed_out && n > t->final_capacity - t->final_size)) {
        t->truncated = true;
        return false;
    }
    uint8_t *record = event2_record(head, digest, e);
    uint8_t *count = guest_mem_ptr(fw->gm, t->final_table + 8, 8);
    bool ok = record && count && guest_mem_write(fw->gm, t->log + t->log_size, record, n) &&
              (!t->log_handed_out ||
               guest_mem_write(fw->gm, t->final_table + TCG2_FINAL_HEADER_SIZE + t->final_size, record, n));
    free(record);
    if (!ok)
        return false;
    t->last_entry = t->log + t->log_size;
    t->log_size += n;
    if (t->log_handed_out) {
        t->final_size += n;
        put_le(count, ++t->final_events, 8);
    }
    return true;
}

/* Section 6.6: the digest HashLogExtendEvent extends, of DataToHash's
 * bytes, or with PE_COFF_IMAGE of the PE/COFF image file they hold: its
 * Authenticode digest, as EDK2's Tcg2Dxe (MeasurePeImageAndExtend) and
 * Secure Boot hash it. Bytes that are no image it can hash get the
 * section's EFI_UNSUPPORTED ("the PE/COFF image type is not supported"). */
static efi_status_t digest_to_extend(struct firmware *fw, uint64_t flags, const uint8_t *bytes, uint64_t len,
                                     uint8_t digest[TCG_SHA256_SIZE])
{
    char err[160];
    size_t cert_offset, cert_size;
    if (!(flags & TCG2_PE_COFF_IMAGE)) {
        if (tcg_sha256(bytes, len, digest))
            return EFI_SUCCESS;
        fw_log(fw, "Tcg2.HashLogExtendEvent: OpenSSL's SHA-256 failed: EFI_DEVICE_ERROR");
        return EFI_DEVICE_ERROR;
    }
    if (authenticode_digest(bytes, len, digest, &cert_offset, &cert_size, err, sizeof(err)) == 0)
        return EFI_SUCCESS;
    fw_log(fw, "Tcg2.HashLogExtendEvent: PE_COFF_IMAGE: %s: EFI_UNSUPPORTED", err);
    return EFI_UNSUPPORTED;
}

/* The digest extends PCRIndex, and is the record's. An EV_NO_ACTION
 * event extends no PCR and is logged with a zero digest (PC Client
 * Platform Firmware Profile, the event types: "not extended"; EDK2's
 * TcgDxeHashLogExtendEvent). */
static efi_status_t extend_pcr(struct firmware *fw, uint64_t flags, const uint8_t *bytes, uint64_t len,
                               const uint32_t pcr_type[2], uint8_t digest[TCG_SHA256_SIZE])
{
    if (pcr_type[1] == TCG_EV_NO_ACTION) {
        memset(digest, 0, TCG_SHA256_SIZE);
        return EFI_SUCCESS;
    }
    efi_status_t s = digest_to_extend(fw, flags, bytes, len, digest);
    if (s != EFI_SUCCESS)
        return s;
    if (!tcg_extend(fw->tpm.pcr[pcr_type[0]], digest)) {
        fw_log(fw, "Tcg2.HashLogExtendEvent: OpenSSL's SHA-256 failed: EFI_DEVICE_ERROR");
        return EFI_DEVICE_ERROR;
    }
    fw->tpm.extended |= 1u << pcr_type[0];
    fw->tpm.update_counter++;
    return EFI_SUCCESS;
}

/* Section 6.6: the digest of DataToHash (a physical address) extends
 * PCRIndex; EfiTcgEvent's header and data become the log's record.
 * log_full: as if the log had no room left (--inject tpm-log-full). */
static efi_status_t extend_and_log(struct firmware *fw, const struct guest_view *v, const uint64_t *a, bool log_full)
{
    uint64_t this = a[0], flags = a[1], data = a[2], len = a[3], event = a[4];
    uint8_t head[TCG2_EVENT_HEAD_SIZE];
    efi_status_t s = check_this(fw, this);
    if (s != EFI_SUCCESS)
        return s;
    if (!event || !guest_view_read(v, event, head, sizeof(head)))
        return EFI_INVALID_PARAMETER;
    uint32_t size = get_le32(head), header_size = get_le32(head + 4);
    uint16_t version = (uint16_t)(head[8] | head[9] << 8);
    const uint32_t pcr_type[2] = { get_le32(head + 10), get_le32(head + 14) };
    if (header_size != TCG2_EVENT_HEADER_SIZE || version != TCG2_EVENT_HEADER_VERSION || size < TCG2_EVENT_HEAD_SIZE ||
        pcr_type[0] >= FW_TPM_PCRS || !guest_view_accessible(v, event, size))
        return EFI_INVALID_PARAMETER;
    const uint8_t *bytes = len ? guest_mem_ptr(fw->gm, data, len) : (const uint8_t *)"";
    if (!bytes || (len && !data))
        return EFI_INVALID_PARAMETER;
    uint8_t digest[TCG_SHA256_SIZE];
    s = extend_pcr(fw, flags, bytes, len, pcr_type, digest);
    if (s != EFI_SUCCESS)
        return s;
    if (flags & TCG2_EXTEND_ONLY)
        return EFI_SUCCESS;
    const struct event_data e = { v, event + TCG2_EVENT_HEAD_SIZE, NULL, size - TCG2_EVENT_HEAD_SIZE };
    if (log_full)
        fw->tpm.truncated = true;
    if (log_full || !log_event(fw, pcr_type, digest, &e)) {
        fw_log(fw, "Tcg2.HashLogExtendEvent: PCR %u %s, its %u-byte event not logged (the log is full): "
               "EFI_VOLUME_FULL", pcr_type[0], pcr_type[1] == TCG_EV_NO_ACTION ? "not extended (EV_NO_ACTION)" :
               "extended", size - TCG2_EVENT_HEAD_SIZE);
        return EFI_VOLUME_FULL;
    }
    return EFI_SUCCESS;
}

static efi_status_t hash_log_extend_event(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    return extend_and_log(fw, v, a, false);
}

efi_status_t fw_tcg2_extend_log_full(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    return extend_and_log(fw, v, a, true);
}

int fw_tcg2_measure(struct firmware *fw, unsigned pcr, uint32_t type, const uint8_t digest[TCG_SHA256_SIZE],
                    const void *event, uint32_t size)
{
    const uint32_t head[2] = { pcr, type };
    const struct event_data e = { NULL, 0, event, size };
    if (!fw->tpm.on || pcr >= FW_TPM_PCRS || !tcg_extend(fw->tpm.pcr[pcr], digest))
        return -1;
    fw->tpm.extended |= 1u << pcr;
    fw->tpm.update_counter++;
    return log_event(fw, head, digest, &e) ? 0 : -1;
}

/* Section 6.7: the command's bytes in, the TPM's response out. */
static efi_status_t submit_command(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t this = a[0], in_size = u32_arg(a[1]), in = a[2], out_size = u32_arg(a[3]), out = a[4];
    uint8_t command[TCG2_MAX_COMMAND_SIZE], response[TPM2_RESPONSE_MAX];
    efi_status_t s = check_this(fw, this);
    if (s != EFI_SUCCESS)
        return s;
    if (!in || !in_size || in_size > sizeof(command) || !out || !out_size ||
        !guest_view_read(v, in, command, in_size))
        return EFI_INVALID_PARAMETER;
    size_t n = tpm2_answer(command, in_size, (const uint8_t (*)[TCG_SHA256_SIZE])fw->tpm.pcr, fw->tpm.update_counter,
                           response);
    if (n > out_size)
        return EFI_BUFFER_TOO_SMALL;
    return guest_view_write(v, out, response, n) ? EFI_SUCCESS : EFI_INVALID_PARAMETER;
}

static efi_status_t get_active_pcr_banks(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint8_t banks[4];
    put_le(banks, TCG2_BOOT_HASH_ALG_SHA256, 4);
    efi_status_t s = check_this(fw, a[0]);
    if (s != EFI_SUCCESS)
        return s;
    if (!fw_writable(v, a[1], 4))
        return EFI_INVALID_PARAMETER;
    guest_view_write(v, a[1], banks, 4);
    return EFI_SUCCESS;
}

/* Sections 6.9 and 6.10: the banks cannot change (there is no reset for a
 * change to take effect at), so a request for them, and for its result,
 * is EFI_UNSUPPORTED; a request that names no bank or one this TPM lacks
 * is EFI_INVALID_PARAMETER first, as EDK2's Tcg2SetActivePCRBanks checks. */
static efi_status_t set_active_pcr_banks(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t banks = u32_arg(a[1]);
    efi_status_t s = check_this(fw, a[0]);
    if (s != EFI_SUCCESS)
        return s;
    return !banks || (banks & ~(uint64_t)TCG2_BOOT_HASH_ALG_SHA256) ? EFI_INVALID_PARAMETER : EFI_UNSUPPORTED;
}

static efi_status_t get_result_of_set_active_pcr_banks(struct firmware *fw, const struct guest_view *v,
                                                       const uint64_t *a)
{
    efi_status_t s = check_this(fw, a[0]);
    if (s != EFI_SUCCESS)
        return s;
    return fw_writable(v, a[1], 4) && fw_writable(v, a[2], 4) ? EFI_UNSUPPORTED : EFI_INVALID_PARAMETER;
}

int firmware_install_tcg2(struct firmware *fw)
{
    /* The protocol's function table is 8-byte pointers, and
     * HashLogExtendEvent reads its UINT64 arguments as x64 passes them:
     * an IA-32 caller would find neither. */
    if (fw_ia32(fw)) {
        fw_log(fw, "--tpm: not served by an IA-32 firmware (EFI_TCG2_PROTOCOL is in the x64 layout only)");
        return -1;
    }
    struct fw_tpm *t = &fw->tpm;
    uint64_t log, final;
    uint8_t digest[TCG_SHA256_SIZE];
    /* A digest now, before the sandbox: OpenSSL reads its configuration on
     * its first use. */
    if (!tcg_sha256("", 0, digest) ||
        memmap_take_below(&fw->map, EFI_BOOT_SERVICES_DATA, TCG2_LOG_PAGES, 0xffffffffULL, &log) ||
        memmap_take_below(&fw->map, EFI_ACPI_MEMORY_NVS, TCG2_FINAL_PAGES, 0xffffffffULL, &final))
        return -1;
    uint8_t *l = guest_mem_ptr(fw->gm, log, TCG2_LOG_PAGES * EFI_PAGE_SIZE);
    uint8_t *f = guest_mem_ptr(fw->gm, final, TCG2_FINAL_PAGES * EFI_PAGE_SIZE);
    uint64_t *ptrs = guest_mem_ptr(fw->gm, fw->cfg.base + FW_TCG2_OFFSET, 8 * TCG2_COUNT);
    uint64_t handle = fw_new_handle(fw);
    if (!l || !f || !ptrs || !handle)
        return -1;
    memset(l, 0, TCG2_LOG_PAGES * EFI_PAGE_SIZE);
    memset(f, 0, TCG2_FINAL_PAGES * EFI_PAGE_SIZE);
    tcg_spec_id_event(l);
    put_le(f, 1, 8);   /* EFI_TCG2_FINAL_EVENTS_TABLE_VERSION */
    *t = (struct fw_tpm){ .on = true, .log = log, .log_size = TCG_SPEC_ID_EVENT_SIZE,
                          .log_capacity = TCG2_LOG_PAGES * EFI_PAGE_SIZE, .last_entry = log, .final_table = final,
                          .final_capacity = TCG2_FINAL_PAGES * EFI_PAGE_SIZE - TCG2_FINAL_HEADER_SIZE };
    for (unsigned i = 0; i < TCG2_COUNT; i++)
        ptrs[i] = firmware_thunk(fw, FW_ID_TCG2(i));
    fw->tcg2 = fw->cfg.base + FW_TCG2_OFFSET;
    fw->tcg2_handle = handle;
    if (fw_add_protocol(fw, handle, &GUID_TCG2_PROTOCOL, fw->tcg2) ||
        fw_install_config_table(fw, &GUID_TCG2_FINAL_EVENTS_TABLE, final) != EFI_SUCCESS)
        return -1;
    return 0;
}

static void decode_get_event_log(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                 const uint64_t *a, efi_status_t status)
{
    (void)s;
    fw_trace_u64(o, "format", u32_arg(a[1]));
    if (status == EFI_SUCCESS) {
        fw_trace_ptr_u64(o, "location", v, a[2], true);
        fw_trace_ptr_u64(o, "last_entry", v, a[3], true);
    }
}

static void decode_hash_log_extend_event(struct fw_trace_out *o, const struct fw_service *s,
                                         const struct guest_view *v, const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    uint8_t head[TCG2_EVENT_HEAD_SIZE];
    fw_trace_hex(o, "flags", a[1]);
    fw_trace_hex(o, "data", a[2]);
    fw_trace_u64(o, "length", a[3]);
    if (a[4] && guest_view_read(v, a[4], head, sizeof(head))) {
        fw_trace_u64(o, "pcr", get_le32(head + 10));
        fw_trace_hex(o, "event_type", get_le32(head + 14));
        fw_trace_u64(o, "event_size", get_le32(head));
    }
}

static void decode_submit_command(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                  const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    uint8_t h[TPM2_HEADER_SIZE];
    if (u32_arg(a[1]) >= sizeof(h) && a[2] && guest_view_read(v, a[2], h, sizeof(h)))
        fw_trace_hex(o, "command_code", (uint32_t)h[6] << 24 | (uint32_t)h[7] << 16 | h[8] << 8 | h[9]);
}

#define TCG2(i, ...) [i] = { .id = FW_ID_TCG2(i), __VA_ARGS__ }   /* i: enum efi_tcg2_service */

const struct fw_service fw_tcg2_services[TCG2_COUNT] = {
    TCG2(TCG2_GET_CAPABILITY, .name = "Tcg2.GetCapability", .nargs = 2, .fn = get_capability),
    TCG2(TCG2_GET_EVENT_LOG, .name = "Tcg2.GetEventLog", .nargs = 5, .fn = get_event_log,
         .decode = decode_get_event_log),
    TCG2(TCG2_HASH_LOG_EXTEND_EVENT, .name = "Tcg2.HashLogExtendEvent", .nargs = 5, .fn = hash_log_extend_event,
         .decode = decode_hash_log_extend_event, .faults = FW_FAULT(TPM_EXTEND_FAIL) | FW_FAULT(TPM_LOG_FULL)),
    TCG2(TCG2_SUBMIT_COMMAND, .name = "Tcg2.SubmitCommand", .nargs = 5, .fn = submit_command,
         .decode = decode_submit_command),
    TCG2(TCG2_GET_ACTIVE_PCR_BANKS, .name = "Tcg2.GetActivePcrBanks", .nargs = 2, .fn = get_active_pcr_banks),
    TCG2(TCG2_SET_ACTIVE_PCR_BANKS, .name = "Tcg2.SetActivePcrBanks", .nargs = 2, .fn = set_active_pcr_banks),
    TCG2(TCG2_GET_RESULT_OF_SET_ACTIVE_PCR_BANKS, .name = "Tcg2.GetResultOfSetActivePcrBanks", .nargs = 3,
         .fn = get_result_of_set_active_pcr_banks),
};
