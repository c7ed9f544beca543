/* With --tpm, what a firmware measures before it starts the boot option,
 * as EDK2's Tcg2Dxe does (TCG PC Client Platform Firmware Profile, rev
 * 1.05, sections 3.3.4 and 10.4.4): the Secure Boot variables into PCR 7,
 * the EV_EFI_ACTION "Calling EFI Application from Boot Option" into PCR 4,
 * an EV_SEPARATOR into each of PCRs 0-7, then the image's Authenticode
 * digest into PCR 4. */
#ifndef HANDOVER_FW_BOOT_MEASUREMENTS_H
#define HANDOVER_FW_BOOT_MEASUREMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "state.h"

/* The measurements, once the image file (size bytes) is placed at base
 * (mem_size bytes in memory). -1 with the first failure's reason in err
 * (the log is full, the image has no PE header to hash); each PCR is
 * extended all the same. */
int firmware_measure_boot(struct firmware *fw, const uint8_t *image, size_t size, uint64_t base, uint64_t mem_size,
                          char *err, size_t errlen);

#endif
