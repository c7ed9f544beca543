/* The watchdog timer, UEFI 2.10 section 7.5.1: "If the watchdog timer
 * expires, the event is logged by the firmware. The system may then
 * either reset with the Runtime Service ResetSystem() or perform a
 * platform specific action that must eventually cause the platform to be
 * reset." handover's platform reset ends the run (FW_STOP_WATCHDOG): a
 * boot loader stuck in boot services is what the watchdog is for, and a
 * run it ends is no success (vmm/kvm/run.c).
 *
 * Its time is the firmware's clock, as its timers' (events.c). It is
 * looked at after every call, and by the VMM while the guest runs without
 * calls (halted or looping: vmm/kvm/halt_wake.c kicks vCPU 0 once a timer
 * tick) and while a call's sleep runs (Stall, WaitForEvent). */
#include "watchdog.h"

#include <string.h>

#include "events.h"
#include "trace_decode.h"

#define NS_PER_S 1000000000ULL
/* A longer Timeout (UINTN seconds) is never: about 136 years. */
#define MAX_TIMEOUT_S (1ULL << 32)

void fw_watchdog_arm(struct firmware *fw, uint64_t seconds)
{
    uint64_t s = seconds > MAX_TIMEOUT_S ? MAX_TIMEOUT_S : seconds;
    fw->watchdog = (struct fw_watchdog){ .armed = seconds != 0, .seconds = seconds,
                                         .due = firmware_clock_ns(fw) + s * NS_PER_S };
}

void fw_watchdog_disarm(struct firmware *fw)
{
    fw->watchdog.armed = false;
}

uint64_t firmware_watchdog_left_ns(const struct firmware *fw)
{
    if (!fw->watchdog.armed)
        return UINT64_MAX;
    uint64_t now = firmware_clock_ns(fw);
    return fw->watchdog.due > now ? fw->watchdog.due - now : 0;
}

bool firmware_watchdog_check(struct firmware *fw)
{
    if (fw->stop != FW_RUN || fw->phase != FW_PHASE_BOOT || firmware_watchdog_left_ns(fw))
        return false;
    fw->watchdog.armed = false;
    fw->stop = FW_STOP_WATCHDOG;
    fw->stop_status = fw->watchdog.code;
    return true;
}

/* WatchdogData's string (a CHAR16 string, then binary data if the caller
 * wants: DataSize bytes in all) into out, printable ASCII (JSON-safe),
 * up to its NUL, DataSize or FW_WATCHDOG_DATA_MAX - 1 characters; false
 * if guest memory does not hold that much. NULL is no data. */
static bool read_data(const struct guest_view *v, uint64_t data, uint64_t size, char *out)
{
    uint64_t n = 0, max = size / 2 < FW_WATCHDOG_DATA_MAX - 1 ? size / 2 : FW_WATCHDOG_DATA_MAX - 1;
    for (uint16_t c = 1; data && n < max; n++) {
        if (!guest_view_read(v, data + 2 * n, &c, 2))
            return false;
        if (!c)
            break;
        out[n] = fw_trace_ascii(c);
    }
    out[n] = 0;
    return true;
}

/* EDK2's CoreSetWatchdogTimer refuses no WatchdogCode (it hands only the
 * Timeout to the watchdog driver), and GRUB and shim disarm it with code 0,
 * one the firmware reserves: every code is taken. A WatchdogData outside
 * guest memory is refused, as any bad pointer. */
efi_status_t fw_set_watchdog_timer(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t timeout = a[0], code = a[1], size = a[2], data = a[3];
    char text[FW_WATCHDOG_DATA_MAX];
    if (!read_data(v, data, size, text))
        return EFI_INVALID_PARAMETER;
    fw_watchdog_arm(fw, timeout);
    fw->watchdog.code = code;
    memcpy(fw->watchdog.data, text, sizeof(text));
    return EFI_SUCCESS;
}

void fw_decode_set_watchdog_timer(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                  const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    char text[FW_WATCHDOG_DATA_MAX];
    fw_trace_u64(o, "timeout_s", a[0]);
    fw_trace_hex(o, "code", a[1]);
    if (a[3] && read_data(v, a[3], a[2], text))
        fw_trace_str(o, "data", text);
}
