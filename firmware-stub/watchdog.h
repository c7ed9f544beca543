/* The watchdog timer (UEFI 2.10 section 7.5.1): SetWatchdogTimer arms it
 * on the firmware's clock (events.c firmware_clock_ns); when it expires in
 * boot services the platform resets (watchdog.c). */
#ifndef HANDOVER_FW_WATCHDOG_H
#define HANDOVER_FW_WATCHDOG_H

#include <stdbool.h>

#include "service.h"

fw_handler fw_set_watchdog_timer;
fw_decoder fw_decode_set_watchdog_timer;
/* Arm it for seconds from now (0: disarm), with no code or data: as a
 * boot manager before it starts a boot option (UEFI 2.10 section 3.1.2). */
void fw_watchdog_arm(struct firmware *fw, uint64_t seconds);
/* ExitBootServices disarms it for good (UEFI 2.10 section 7.4.6). */
void fw_watchdog_disarm(struct firmware *fw);
/* Nanoseconds of the firmware's clock until it expires: 0 if past due,
 * UINT64_MAX if not armed. */
uint64_t firmware_watchdog_left_ns(const struct firmware *fw);
/* If it has expired and nothing else stopped the firmware, the firmware
 * stops (FW_STOP_WATCHDOG, its WatchdogCode in stop_status); whether the
 * firmware stops so now. */
bool firmware_watchdog_check(struct firmware *fw);

#endif
