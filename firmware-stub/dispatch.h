/* From a service ID to its row (dispatch.c). */
#ifndef HANDOVER_FW_DISPATCH_H
#define HANDOVER_FW_DISPATCH_H

#include "service.h"

/* The service an ID names, or NULL. */
const struct fw_service *fw_service_of(unsigned id);
/* An IA-32 firmware's call: its first nargs arguments from the cdecl stack
 * into a[] (width.h); returns nargs, or the index of the first one not
 * readable. s may be NULL (an unknown ID: 4-byte arguments). */
unsigned fw_stack_args32(const struct fw_service *s, const struct fw_call *call, uint64_t *a, unsigned nargs);

#endif
