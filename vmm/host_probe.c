/* The XRSTOR probe: a throwaway VM runs, in real mode,
 *   xor ecx,ecx; mov eax,1; xor edx,edx; xsetbv; xrstor [0x2000]; hlt
 * and the host either reaches the HLT or reports an emulation failure.
 * Exception vectors all lead to a HLT at another address (the IVT is zero,
 * and 0:0 and 0:0xF4 hold HLT), so a fault cannot hang the probe. */
#include "host_probe.h"

#include <linux/kvm.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PROBE_MEM   0x4000
#define PROBE_CODE  0x1000
#define CR4_OSXSAVE (1u << 18)

static const uint8_t probe_code[] = {
    0x66, 0x31, 0xc9,                         /* xor ecx, ecx */
    0x66, 0xb8, 0x01, 0x00, 0x00, 0x00,       /* mov eax, 1 (XCR0 = x87) */
    0x66, 0x31, 0xd2,                         /* xor edx, edx */
    0x0f, 0x01, 0xd1,                         /* xsetbv */
    0x0f, 0xae, 0x2e, 0x00, 0x20,             /* xrstor [0x2000] */
    0xf4,                                     /* hlt */
};

static bool cpuid_has_xsave(int kvm_fd, int vcpu)
{
    int nent = 128;
    struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + nent * sizeof(struct kvm_cpuid_entry2));
    bool xsave = false;
    if (!c)
        return false;
    c->nent = (uint32_t)nent;
    if (ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, c) == 0 && ioctl(vcpu, KVM_SET_CPUID2, c) == 0)
        for (uint32_t i = 0; i < c->nent; i++)
            if (c->entries[i].function == 1)
                xsave = c->entries[i].ecx & (1u << 26);
    free(c);
    return xsave;
}

bool host_needs_noxsave(int kvm_fd)
{
    bool needs = false;
    int vm = -1, vcpu = -1;
    uint8_t *mem = MAP_FAILED;
    struct kvm_run *run = MAP_FAILED;
    int run_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);

    if (run_size <= 0 || (vm = ioctl(kvm_fd, KVM_CREATE_VM, 0)) < 0)
        goto out;
    mem = mmap(NULL, PROBE_MEM, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        goto out;
    mem[0] = 0xf4;
    mem[0xf4] = 0xf4;
    memcpy(mem + PROBE_CODE, probe_code, sizeof(probe_code));
    struct kvm_userspace_memory_region region = { .slot = 0, .guest_phys_addr = 0, .memory_size = PROBE_MEM,
                                                  .userspace_addr = (uint64_t)(uintptr_t)mem };
    if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0 || (vcpu = ioctl(vm, KVM_CREATE_VCPU, 0)) < 0)
        goto out;
    run = mmap(NULL, (size_t)run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
    if (run == MAP_FAILED || !cpuid_has_xsave(kvm_fd, vcpu))
        goto out;
    struct kvm_sregs s;
    struct kvm_regs r = { .rip = PROBE_CODE, .rflags = 2 };
    if (ioctl(vcpu, KVM_GET_SREGS, &s) < 0)
        goto out;
    s.cs.base = 0;
    s.cs.selector = 0;
    s.cr4 |= CR4_OSXSAVE;
    if (ioctl(vcpu, KVM_SET_SREGS, &s) < 0 || ioctl(vcpu, KVM_SET_REGS, &r) < 0)
        goto out;
    if (ioctl(vcpu, KVM_RUN, 0) < 0)
        goto out;
    needs = run->exit_reason == KVM_EXIT_INTERNAL_ERROR;
out:
    if (run != MAP_FAILED)
        munmap(run, (size_t)run_size);
    if (mem != MAP_FAILED)
        munmap(mem, PROBE_MEM);
    if (vcpu >= 0)
        close(vcpu);
    if (vm >= 0)
        close(vm);
    return needs;
}
