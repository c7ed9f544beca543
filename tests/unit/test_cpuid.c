/* vmm/x86/cpuid.c: the guest CPUID normalized from what KVM supports. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"
#include "../../vmm/x86/cpuid.h"

static struct kvm_cpuid2 *table(const char *vendor)
{
    static const struct kvm_cpuid_entry2 rows[] = {
        { .function = 0, .eax = 0x1f },
        { .function = 1, .ebx = 0x00000800, .ecx = CPUID_1_ECX_MONITOR | 1, .edx = CPUID_1_EDX_HTT },
        { .function = 4, .index = 0, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX, .eax = (1 << 5) | 1 },
        { .function = 4, .index = 3, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX, .eax = (3 << 5) | 3 },
        { .function = 7, .index = 0, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX, .ecx = CPUID_7_ECX_LA57 | 1 },
        { .function = 0xb, .index = 0, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX, .eax = 9, .ebx = 9 },
        { .function = 0xb, .index = 1, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX },
        { .function = 0xb, .index = 2, .flags = KVM_CPUID_FLAG_SIGNIFCANT_INDEX, .eax = 9 },
        { .function = CPUID_KVM_FEATURES, .eax = 0xffff },
        { .function = 0x80000001, .ecx = 0 },
        { .function = 0x80000008, .ecx = 0x0000f0ff },
        { .function = 0x8000001e, .eax = 7, .ebx = 7, .ecx = 7 },
        { .function = 0x8000001f, .eax = 0x1000f, .ebx = 0x16f, .ecx = 0x1fd, .edx = 0x64 },  /* SME, SEV... */
    };
    size_t n = sizeof(rows) / sizeof(rows[0]);
    struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + n * sizeof(rows[0]));
    c->nent = (uint32_t)n;
    memcpy(c->entries, rows, sizeof(rows));
    memcpy(&c->entries[0].ebx, vendor, 4);
    memcpy(&c->entries[0].edx, vendor + 4, 4);
    memcpy(&c->entries[0].ecx, vendor + 8, 4);
    return c;
}

START_TEST(cpuid_hypervisor_and_topology_amd)
{
    struct kvm_cpuid2 *c = table("AuthenticAMD");
    cpuid_normalize(c, 2, 4);
    struct kvm_cpuid_entry2 *l1 = cpuid_find(c, 1, 0);
    ck_assert(l1->ecx & CPUID_1_ECX_HYPERVISOR);
    ck_assert(!(l1->ecx & CPUID_1_ECX_MONITOR));
    ck_assert_uint_eq(l1->ecx & 1, 1);                 /* the rest kept */
    ck_assert_uint_eq(l1->ebx >> 24, 2);               /* APIC ID */
    ck_assert_uint_eq((l1->ebx >> 16) & 0xff, 4);      /* logical processors */
    ck_assert_uint_eq(l1->ebx & 0xffff, 0x0800);       /* CLFLUSH size kept */
    ck_assert(l1->edx & CPUID_1_EDX_HTT);
    ck_assert_uint_eq(cpuid_find(c, 7, 0)->ecx, 1);    /* LA57 cleared */
    struct kvm_cpuid_entry2 *smt = cpuid_find(c, 0xb, 0), *core = cpuid_find(c, 0xb, 1), *inv = cpuid_find(c, 0xb, 2);
    ck_assert_uint_eq(smt->eax, 0);
    ck_assert_uint_eq(smt->ebx, 1);
    ck_assert_uint_eq(smt->ecx, 0x100);
    ck_assert_uint_eq(core->eax, 2);                   /* 4 CPUs: 2 bits of APIC ID */
    ck_assert_uint_eq(core->ebx, 4);
    ck_assert_uint_eq(core->ecx, 0x201);
    ck_assert_uint_eq(inv->ebx, 0);
    ck_assert_uint_eq(inv->ecx, 2);
    ck_assert_uint_eq(smt->edx, 2);
    ck_assert_uint_eq(core->edx, 2);
    ck_assert_uint_eq(cpuid_find(c, CPUID_KVM_FEATURES, 0)->eax, 0xffff & ~0x2a80u);
    ck_assert_uint_eq(cpuid_find(c, 0x80000001, 0)->ecx, 2);             /* CmpLegacy */
    ck_assert_uint_eq(cpuid_find(c, 0x80000008, 0)->ecx, (2u << 12) | 3);  /* ApicIdSize 2, NC 3 */
    ck_assert_uint_eq(cpuid_find(c, 0x8000001e, 0)->eax, 2);
    ck_assert_uint_eq(cpuid_find(c, 0x8000001e, 0)->ebx, 2);
    ck_assert_uint_eq(cpuid_find(c, 0x8000001e, 0)->ecx, 0);
    /* Intel's cache leaf is left alone on AMD. */
    ck_assert_uint_eq(cpuid_find(c, 4, 3)->eax, (3 << 5) | 3);
    free(c);
}
END_TEST

START_TEST(cpuid_topology_intel_and_one_cpu)
{
    struct kvm_cpuid2 *c = table("GenuineIntel");
    cpuid_normalize(c, 1, 3);
    ck_assert_uint_eq(cpuid_find(c, 4, 0)->eax >> 26, 2);              /* cores - 1 */
    ck_assert_uint_eq((cpuid_find(c, 4, 0)->eax >> 14) & 0xfff, 0);    /* L1 per core */
    ck_assert_uint_eq((cpuid_find(c, 4, 3)->eax >> 14) & 0xfff, 2);    /* L3 for the package */
    ck_assert_uint_eq(cpuid_find(c, 0xb, 1)->eax, 2);                  /* 3 CPUs need 2 bits */
    ck_assert_uint_eq(cpuid_find(c, 0x80000008, 0)->ecx, 0xf0ff);      /* AMD leaves untouched */
    free(c);

    c = table("AuthenticAMD");
    cpuid_normalize(c, 0, 1);
    ck_assert(!(cpuid_find(c, 1, 0)->edx & CPUID_1_EDX_HTT));
    ck_assert_uint_eq((cpuid_find(c, 1, 0)->ebx >> 16) & 0xff, 1);
    ck_assert_uint_eq(cpuid_find(c, 0xb, 1)->eax, 0);
    ck_assert_uint_eq(cpuid_find(c, 0x80000001, 0)->ecx & CPUID_80000001_ECX_CMP_LEGACY, 0);
    ck_assert_ptr_null(cpuid_find(c, 0x40000010, 0));
    free(c);
}
END_TEST

/* The guest is no SEV guest: leaf 0x8000001F says no memory encryption
 * on either vendor, as QEMU reports it. */
START_TEST(cpuid_reports_no_memory_encryption)
{
    static const char *const vendors[] = { "AuthenticAMD", "GenuineIntel" };
    for (size_t i = 0; i < 2; i++) {
        struct kvm_cpuid2 *c = table(vendors[i]);
        cpuid_normalize(c, 0, 1);
        const struct kvm_cpuid_entry2 *e = cpuid_find(c, 0x8000001f, 0);
        ck_assert_ptr_nonnull(e);
        ck_assert_uint_eq(e->eax | e->ebx | e->ecx | e->edx, 0);
        free(c);
    }
}
END_TEST

Suite *cpuid_suite(void)
{
    Suite *s = suite_create("cpuid");
    TCase *t = tcase_create("normalize");
    tcase_add_test(t, cpuid_hypervisor_and_topology_amd);
    tcase_add_test(t, cpuid_topology_intel_and_one_cpu);
    tcase_add_test(t, cpuid_reports_no_memory_encryption);
    suite_add_tcase(s, t);
    return s;
}
