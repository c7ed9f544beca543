/* The XRSTOR probe: a throwaway VM, set up in long mode exactly as the real
 * one (x86_setup.c), asks its own CPUID (on this machine's nested KVM the
 * guest sees XSAVE even where KVM_GET_SUPPORTED_CPUID does not list it),
 * and where XSAVE is offered does what the kernel's FPU init does: set
 * CR4.OSXSAVE, XCR0 = every feature of CPUID leaf 0xd, then xrstor64. The
 * host either reaches one of the HLTs or reports an emulation failure. The
 * IDT is empty, so a fault ends in a triple-fault exit, never a hang. */
#include "host_probe.h"

#include <errno.h>
#include <linux/kvm.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../guest/guest_mem.h"
#include "../../guest/layout.h"
#include "../x86/x86_setup.h"

#define PROBE_MEM   0x200000
#define PROBE_CODE  0x1000

static const uint8_t probe_code[] = {
    0xb8, 0x01, 0x00, 0x00, 0x00,             /* mov eax, 1 */
    0x0f, 0xa2,                               /* cpuid */
    0x0f, 0xba, 0xe1, 0x1a,                   /* bt ecx, 26 (XSAVE) */
    0x73, 0x2d,                               /* jnc no_xsave */
    0x0f, 0x20, 0xe0,                         /* mov rax, cr4 */
    0x48, 0x0f, 0xba, 0xe8, 0x12,             /* bts rax, 18 (OSXSAVE) */
    0x0f, 0x22, 0xe0,                         /* mov cr4, rax */
    0xb8, 0x0d, 0x00, 0x00, 0x00,             /* mov eax, 0xd */
    0x31, 0xc9,                               /* xor ecx, ecx */
    0x0f, 0xa2,                               /* cpuid: edx:eax = supported XCR0 */
    0x31, 0xc9,                               /* xor ecx, ecx */
    0x0f, 0x01, 0xd1,                         /* xsetbv */
    0xb8, 0xff, 0xff, 0xff, 0xff,             /* mov eax, -1 */
    0xba, 0xff, 0xff, 0xff, 0xff,             /* mov edx, -1 */
    0xbf, 0x00, 0x20, 0x00, 0x00,             /* mov edi, 0x2000 (a zeroed XSAVE area) */
    0x48, 0x0f, 0xae, 0x2f,                   /* xrstor64 [rdi] */
    0xf4,                                     /* hlt: XRSTOR ran */
    0xf4,                                     /* no_xsave: hlt */
};
_Static_assert(sizeof(probe_code) == 13 + 0x2d + 1, "jnc lands on the last hlt");

struct kvm_cpuid2 *host_supported_cpuid(int kvm_fd)
{
    for (int nent = 64; nent <= 1024; nent *= 2) {
        struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + nent * sizeof(struct kvm_cpuid_entry2));
        if (!c)
            return NULL;
        c->nent = (uint32_t)nent;
        if (ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, c) == 0)
            return c;
        free(c);
        if (errno != E2BIG)
            return NULL;
    }
    return NULL;
}

static bool set_supported_cpuid(int kvm_fd, int vcpu)
{
    struct kvm_cpuid2 *c = host_supported_cpuid(kvm_fd);
    bool ok = c && ioctl(vcpu, KVM_SET_CPUID2, c) == 0;
    free(c);
    return ok;
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
    struct kvm_userspace_memory_region region = { .slot = 0, .guest_phys_addr = 0, .memory_size = PROBE_MEM,
                                                  .userspace_addr = (uint64_t)(uintptr_t)mem };
    if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0 || (vcpu = ioctl(vm, KVM_CREATE_VCPU, 0)) < 0)
        goto out;
    run = mmap(NULL, (size_t)run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu, 0);
    if (run == MAP_FAILED || !set_supported_cpuid(kvm_fd, vcpu))
        goto out;
    struct guest_mem gm;
    guest_mem_init(&gm, mem, PROBE_MEM);
    if (x86_setup_page_tables(&gm) < 0)
        goto out;
    x86_setup_gdt(&gm);
    memcpy(mem + PROBE_CODE, probe_code, sizeof(probe_code));

    struct kvm_sregs s;
    struct kvm_regs r = { .rip = PROBE_CODE, .rsp = PROBE_CODE, .rflags = 2 };
    if (ioctl(vcpu, KVM_GET_SREGS, &s) < 0)
        goto out;
    x86_setup_sregs(&s);
    s.idt.limit = 0;
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
