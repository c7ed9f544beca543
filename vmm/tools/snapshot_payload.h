/* The payload of --snapshot's state file (vmm/tools/warm_boot.h,
 * docs/snapshots.md): what a save keeps besides the RAM, in its order, and
 * the checks a restore makes of it before any of it is used. Pure: no
 * KVM and no file, so that the unit tests and fuzz_snapshot use the very
 * order and checks warm_boot.c does. */
#ifndef HANDOVER_SNAPSHOT_PAYLOAD_H
#define HANDOVER_SNAPSHOT_PAYLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "../devices/persist.h"
#include "../host/snapshot_file.h"
#include "../kvm/snapshot.h"

/* More MSRs than this in a payload is not one (KVM lists a few hundred). */
#define SNAPSHOT_MSRS_MAX 4096

/* How the saved guest was booted, first in the payload: read before the
 * VM is built, so that a restore builds it as the cold boot did without
 * asking the host again. */
struct boot_record {
    uint32_t noxsave_added;  /* the XRSTOR probe added noxsave to the command line (main.c) */
    uint32_t cpuid_crc;      /* the CRC-32 of vCPU 0's CPUID entries: a restore needs the same */
    uint32_t firmware_crc;   /* the CRC-32 of the firmware's runtime thunks and VM generation ID address: likewise */
    uint32_t reserved;
};

/* What the firmware must keep for the kernel's runtime services after a
 * restore; the rest of its state (the memory map, the variables the boot
 * did not change) is rebuilt as the cold boot built it. */
struct firmware_runtime {
    uint32_t phase;
    uint32_t virtual_mode;
    uint64_t monotonic;
};

struct clock_state {
    uint64_t kvmclock_ns;      /* KVM_GET_CLOCK at the save */
    uint64_t kvm_realtime_ns;  /* the host's CLOCK_REALTIME KVM read with it; 0: KVM gave none */
    uint64_t realtime_ns;      /* the host's CLOCK_REALTIME, read by handover after it */
    uint32_t tsc_khz;          /* the guest's TSC frequency (KVM_GET_TSC_KHZ); 0: unknown */
    uint32_t reserved;
};

/* The payload, in its order; cpu.msrs (cpu.nmsrs of them) follow cpu. */
struct saved_state {
    struct boot_record boot;
    struct vcpu_state cpu;
    struct vm_state chips;
    struct device_snapshot dev;
    struct firmware_runtime fw;
    struct clock_state clock;
};

/* The CRC-32 of the sizes of what the payload holds as this build lays it
 * out, and of how it builds the guest (the inputs' layout field). */
uint32_t snapshot_layout_crc(void);
/* s appended to out (out->failed says whether all of it fit). */
void saved_state_put(struct snapshot_cursor *out, const struct saved_state *s);
/* The payload at cur into *s: true with s->cpu.msrs allocated (free it),
 * or false with nothing to free: cut short, bytes left over, more than
 * SNAPSHOT_MSRS_MAX MSRs, a bool that is neither 0 nor 1, the devices'
 * length past their bytes, a firmware phase past runtime, or no memory. */
bool saved_state_take(struct snapshot_cursor *cur, struct saved_state *s);

#endif
