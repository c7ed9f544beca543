#include "snapshot_payload.h"

#include <stddef.h>
#include <stdlib.h>

#include "../../firmware-stub/firmware.h"

/* What a snapshot's guest was built with beyond its inputs: 2, the ACPI
 * tables with the VM generation ID and its page of NVS memory, which a
 * restore writes to (a snapshot of a guest without them is not restored);
 * 3, the boot record's CPUID and firmware CRCs. */
#define GUEST_BUILD 3

uint32_t snapshot_layout_crc(void)
{
    const uint64_t sizes[] = { sizeof(struct snapshot_header), sizeof(struct boot_record), sizeof(struct vcpu_state),
                               sizeof(struct kvm_msr_entry), sizeof(struct vm_state), sizeof(struct device_snapshot),
                               sizeof(struct firmware_runtime), sizeof(struct clock_state), GUEST_BUILD };
    return snapshot_crc(sizes, sizeof(sizes));
}

void saved_state_put(struct snapshot_cursor *out, const struct saved_state *s)
{
    struct vcpu_state kept = s->cpu;
    kept.msrs = NULL;   /* the pointer means nothing in a file */
    snapshot_put(out, &s->boot, sizeof(s->boot));
    snapshot_put(out, &kept, sizeof(kept));
    snapshot_put(out, s->cpu.msrs, s->cpu.nmsrs * sizeof(*s->cpu.msrs));
    snapshot_put(out, &s->chips, sizeof(s->chips));
    snapshot_put(out, &s->dev, sizeof(s->dev));
    snapshot_put(out, &s->fw, sizeof(s->fw));
    snapshot_put(out, &s->clock, sizeof(s->clock));
}

bool saved_state_take(struct snapshot_cursor *cur, struct saved_state *s)
{
    snapshot_take(cur, &s->boot, sizeof(s->boot));
    snapshot_take(cur, &s->cpu, sizeof(s->cpu));
    s->cpu.msrs = NULL;
    const size_t cpu_bools[] = { offsetof(struct vcpu_state, has_xsave), offsetof(struct vcpu_state, has_xcrs) };
    if (!cur->failed && s->cpu.nmsrs <= SNAPSHOT_MSRS_MAX &&
        (s->cpu.msrs = calloc(s->cpu.nmsrs + 1, sizeof(*s->cpu.msrs))))
        snapshot_take(cur, s->cpu.msrs, s->cpu.nmsrs * sizeof(*s->cpu.msrs));
    snapshot_take(cur, &s->chips, sizeof(s->chips));
    snapshot_take(cur, &s->dev, sizeof(s->dev));
    snapshot_take(cur, &s->fw, sizeof(s->fw));
    snapshot_take(cur, &s->clock, sizeof(s->clock));
    if (!s->cpu.msrs || cur->failed || cur->at != cur->len || s->dev.len > sizeof(s->dev.bytes) ||
        !snapshot_bools_valid(&s->cpu, cpu_bools, sizeof(cpu_bools) / sizeof(cpu_bools[0])) ||
        s->fw.phase > FW_PHASE_RUNTIME) {
        free(s->cpu.msrs);
        s->cpu.msrs = NULL;
        return false;
    }
    return true;
}
