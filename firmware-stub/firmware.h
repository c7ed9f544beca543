/* The fake EFI firmware: tables, protocols and services living in guest
 * memory, served by host C code. The guest reaches a service through a
 * thunk (`mov eax, ID; out GUEST_PORT_HYPERCALL, eax; ret`); the VMM passes
 * the ID and the registers to firmware_call(). This header, with the ones
 * it includes, is the firmware's interface to the VMM; acpi.h and keys.h
 * add the ACPI tables and the --keys syntax.
 *
 * Inside, the files keep to ranks (tests/integration/layering.sh lists
 * them): the spec's types and names at the bottom, then the firmware's
 * state, what every service uses (the log, trace output, the handle
 * database, the pool), the services, the service tables, and at the top
 * the dispatch (dispatch.c) and the building of the tables (tables.c). A
 * file includes only headers of its own rank or lower, and calls only
 * into lower ranks. */
#ifndef HANDOVER_FIRMWARE_H
#define HANDOVER_FIRMWARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "inject.h"
#include "state.h"

/* Build every table and protocol in guest memory. The memory map must
 * already hold RAM; the firmware reserves its own region in it. */
int firmware_init(struct firmware *fw, const struct guest_mem *gm, const struct fw_config *cfg);
void firmware_free(struct firmware *fw);
/* LoadOptions as a boot manager passes them: the UTF-8 string s as UCS-2,
 * NUL-terminated, at most max - 1 characters (a malformed sequence, or a
 * character outside the BMP, becomes U+FFFD). Returns LoadOptionsSize: the
 * bytes written, the NUL included. */
size_t firmware_load_options(const char *s, uint16_t *out, size_t max);
/* Describe the loaded image in its LoadedImage protocol, once placed. */
void firmware_set_image(struct firmware *fw, uint64_t base, uint64_t size);
/* Serve one call; returns the EFI_STATUS for RAX (an IA-32 firmware's
 * caller gets efi_status32 of it in EAX). If fw->transfer.pending
 * afterwards, the vCPU continues with those registers instead. */
uint64_t firmware_call(struct firmware *fw, unsigned id, const struct fw_call *call);
/* Does the service save the caller's context (StartImage), so that the
 * call must carry XMM6-XMM15 too? */
bool firmware_saves_context(unsigned id);

/* The guest address of the protocol GUID a lookup service (HandleProtocol,
 * OpenProtocol, LocateProtocol, LocateDevicePath, LocateHandle(Buffer)
 * ByProtocol) is given; 0 for any other call. UEFI 2.10 sections
 * 7.3.7-7.3.16. */
uint64_t firmware_protocol_arg(const struct firmware *fw, unsigned id, const struct fw_call *call);
/* The address a successful AllocatePages got (its *Memory, read after the
 * call); 0 for any other call. */
uint64_t firmware_allocated(const struct firmware *fw, unsigned id, const struct fw_call *call, uint64_t status);
/* The inject kinds (bit k: enum inject_kind k) that apply to this call,
 * made now; the memory-map faults apply to the boot's first call. */
unsigned firmware_inject_applies(const struct firmware *fw, unsigned id, const struct fw_call *call);
/* dst becomes a copy of src with its own variable store (for snapshots);
 * -1 if out of memory. dst must not hold a store of its own. */
int firmware_copy(struct firmware *dst, const struct firmware *src);
/* Host memory a copy of fw holds (its variable store included). */
uint64_t firmware_copy_bytes(const struct firmware *fw);
/* The service's name for an ID, or NULL. */
const char *firmware_service_name(unsigned id);

#endif
