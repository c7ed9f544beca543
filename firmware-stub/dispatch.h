/* From a service ID to its row (dispatch.c). */
#ifndef HANDOVER_FW_DISPATCH_H
#define HANDOVER_FW_DISPATCH_H

#include "service.h"

/* The service an ID names, or NULL. */
const struct fw_service *fw_service_of(unsigned id);

#endif
