/* The fault kinds (inject.h), one descriptor each: its spec, its help,
 * the calls it applies to and what it does to them; dispatch.c runs the
 * hooks. */
#include "inject.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guids.h"
#include "memory.h"
#include "secure_boot_keys.h"
#include "service.h"
#include "tcg2.h"
#include "width.h"

/* ---- applies ------------------------------------------------------------ */

/* GetMemoryMap: only calls with a buffer the real map could fit; a size
 * probe gets EFI_BUFFER_TOO_SMALL anyway. */
static bool map_buffer_given(const struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                             const struct guest_view *v, const uint64_t *a)
{
    (void)k, (void)s;
    uint64_t size_ptr = a[0], size;
    return fw_read_uintn(fw, v, size_ptr, &size) && size > 0;
}

static bool asks_for(const struct fw_service *s, const struct guest_view *v, const uint64_t *a,
                     const efi_guid_t *protocol)
{
    uint64_t gp = fw_protocol_arg(s, a);
    efi_guid_t g;
    return gp && guest_view_read(v, gp, &g, sizeof(g)) && guid_equal(&g, protocol);
}

static bool asks_for_loaded_image(const struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                                  const struct guest_view *v, const uint64_t *a)
{
    (void)fw, (void)k;
    return asks_for(s, v, a, &GUID_LOADED_IMAGE);
}

static bool asks_for_rng(const struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                         const struct guest_view *v, const uint64_t *a)
{
    (void)fw, (void)k;
    return asks_for(s, v, a, &GUID_RNG_PROTOCOL);
}

/* Only with --tpm: without it the protocol is missing anyway. */
static bool asks_for_tcg2(const struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                          const struct guest_view *v, const uint64_t *a)
{
    (void)k;
    return fw->tpm.on && asks_for(s, v, a, &GUID_TCG2_PROTOCOL);
}

static bool tpm_on(const struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                   const struct guest_view *v, const uint64_t *a)
{
    (void)k, (void)s, (void)v, (void)a;
    return fw->tpm.on;
}

/* Image verification happens only in User Mode (secure_boot_keys.h). */
static bool secure_boot_enforced(const struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                                 const struct guest_view *v, const uint64_t *a)
{
    (void)k, (void)s, (void)v, (void)a;
    return firmware_secure_boot_state(fw) == FW_SECURE_BOOT_USER_MODE;
}

/* The stub's LocateDevicePath asks for LoadFile2 on the initrd's vendor
 * media path: only meaningful when an initrd is offered. */
static bool asks_for_initrd(const struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                            const struct guest_view *v, const uint64_t *a)
{
    (void)k;
    return fw->initrd_lf2 && asks_for(s, v, a, &GUID_LOAD_FILE2_PROTOCOL);
}

/* ---- before the call ---------------------------------------------------- */

static bool map_too_small(struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                          const struct guest_view *v, const uint64_t *a, efi_status_t *status)
{
    (void)s;
    const struct inject *in = &fw->cfg.inject;
    uint64_t size_ptr = a[0];
    if (in->count[k] >= in->value[k])
        return false;
    /* As the spec says: MapSize returns the size needed. */
    fw_write_uintn(fw, v, size_ptr, (uint64_t)fw->map.n * FW_MEMORY_DESCRIPTOR_SIZE);
    *status = EFI_BUFFER_TOO_SMALL;
    return true;
}

static bool stale_key(struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                      const struct guest_view *v, const uint64_t *a, efi_status_t *status)
{
    (void)s, (void)v;
    uint64_t map_key = a[1];
    if (fw->cfg.inject.count[k] || map_key != fw->map.key)
        return false;
    fw->map.key++;   /* as if an event had changed the map */
    *status = EFI_INVALID_PARAMETER;
    return true;
}

/* The Nth call the kind applies to fails. */
static bool nth_call_fails(struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                           const struct guest_view *v, const uint64_t *a, efi_status_t *status)
{
    (void)s, (void)v, (void)a;
    if (fw->cfg.inject.seen[k] != fw->cfg.inject.value[k])
        return false;
    *status = EFI_OUT_OF_RESOURCES;
    return true;
}

/* The protocol is not there, as the lookup reports it (struct fw_lookup). */
static bool protocol_missing(struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                             const struct guest_view *v, const uint64_t *a, efi_status_t *status)
{
    (void)k;
    uint64_t interface_ptr = fw_interface_arg(s, a);
    if (interface_ptr)
        fw_write_uintn(fw, v, interface_ptr, 0);
    *status = s->lookup.not_found;
    return true;
}

static bool device_error(struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                         const struct guest_view *v, const uint64_t *a, efi_status_t *status)
{
    (void)fw, (void)k, (void)s, (void)v, (void)a;
    *status = EFI_DEVICE_ERROR;
    return true;
}

/* LoadImage as when the image's verification failed (image.c). */
static bool security_violation(struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                               const struct guest_view *v, const uint64_t *a, efi_status_t *status)
{
    (void)fw, (void)k, (void)s, (void)v, (void)a;
    *status = EFI_SECURITY_VIOLATION;
    return true;
}

/* HashLogExtendEvent as with no room left in the log (tcg2.c). */
static bool log_full(struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                     const struct guest_view *v, const uint64_t *a, efi_status_t *status)
{
    (void)k, (void)s;
    *status = fw_tcg2_extend_log_full(fw, v, a);
    return true;
}

/* What a change of memory attributes returns when the firmware has no
 * page for a page table (UEFI 2.10 section 37.7). */
static bool out_of_resources(struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                             const struct guest_view *v, const uint64_t *a, efi_status_t *status)
{
    (void)fw, (void)k, (void)s, (void)v, (void)a;
    *status = EFI_OUT_OF_RESOURCES;
    return true;
}

/* ---- after the call ----------------------------------------------------- */

/* An allocation that landed at or above the address is undone and fails:
 * EFI_NOT_FOUND for AllocateAddress, as when those pages are not free
 * (UEFI 2.10 section 7.2.1). Type is a 32-bit enum, read as
 * fw_allocate_pages reads it. */
static bool allocated_above(struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                            const struct guest_view *v, const uint64_t *a, efi_status_t *status)
{
    (void)s;
    uint32_t type = (uint32_t)a[0];
    uint64_t pages = a[2], addr;
    if (*status != EFI_SUCCESS || !fw_allocated_pages(v, a, &addr) ||
        addr + (pages << 12) <= fw->cfg.inject.value[k])
        return false;
    memmap_free(&fw->map, addr, pages);
    *status = type == EFI_ALLOCATE_ADDRESS ? EFI_NOT_FOUND : EFI_OUT_OF_RESOURCES;
    return true;
}

/* The memory-map faults are marked on every map the guest reads. */
static bool map_read(struct firmware *fw, enum inject_kind k, const struct fw_service *s,
                     const struct guest_view *v, const uint64_t *a, efi_status_t *status)
{
    (void)fw, (void)k, (void)v, (void)a;
    return s->id == FW_ID_BS(BS_GET_MEMORY_MAP) && *status == EFI_SUCCESS;
}

/* ---- the memory map ----------------------------------------------------- */

/* The last page of every 2 MiB below 256 MiB that is still free. */
static void fragment_map(struct firmware *fw)
{
    for (uint64_t a = (2ULL << 20) - 0x1000; a < (256ULL << 20); a += 2ULL << 20)
        memmap_reserve(&fw->map, a, 1, EFI_RESERVED_MEMORY_TYPE);
}

/* Every free page from 1 MiB to 4 GiB becomes boot-services data. */
static void take_low_free(struct firmware *fw)
{
    for (unsigned i = 0; i < fw->map.n; i++) {
        const struct memmap_entry *e = &fw->map.e[i];
        if (e->type == EFI_CONVENTIONAL_MEMORY && e->start >= 0x100000 && e->start < 0x100000000ULL) {
            uint64_t end = e->start + (e->pages << 12);
            if (end > 0x100000000ULL)
                end = 0x100000000ULL;
            memmap_reserve(&fw->map, e->start, (end - e->start) >> 12, EFI_BOOT_SERVICES_DATA);
        }
    }
}

bool firmware_inject_memmap(struct firmware *fw)
{
    bool any = false;
    for (unsigned k = 0; k < INJECT_KINDS; k++)
        if (fw->cfg.inject.on[k] && inject_faults[k].memmap) {
            inject_faults[k].memmap(fw);
            any = true;
        }
    return any;
}

/* ---- the kinds ---------------------------------------------------------- */

const struct inject_fault inject_faults[INJECT_KINDS] = {
    /* --fault-sweep tries N = 1 and 2 (vmm/tools/sweep_matrix.c sweep_plan_cells). */
    [INJECT_GMM_TOO_SMALL] = { .name = "gmm-too-small", .value = INJECT_VALUE_OPTIONAL, .takes_from = true,
                               .help = "GetMemoryMap returns EFI_BUFFER_TOO_SMALL N times (default 1)",
                               .applies = map_buffer_given, .before = map_too_small },
    [INJECT_EBS_STALE_KEY] = { .name = "ebs-stale-key", .takes_from = true,
                               .help = "ExitBootServices fails once: the map changed (EFI_INVALID_PARAMETER)",
                               .before = stale_key },
    /* --fault-sweep's N is the call's number (vmm/tools/sweep_matrix.c sweep_plan_cells). */
    [INJECT_ALLOC_PAGES_FAIL] = { .name = "alloc-pages-fail", .value = INJECT_VALUE_REQUIRED,
                                  .help = "the Nth AllocatePages fails with EFI_OUT_OF_RESOURCES",
                                  .before = nth_call_fails },
    /* --fault-sweep's A is the address the call got (vmm/tools/sweep_matrix.c sweep_plan_cells). */
    [INJECT_ALLOC_PAGES_ABOVE] = { .name = "alloc-pages-above", .value = INJECT_VALUE_REQUIRED, .hex = true,
                                   .takes_from = true,
                                   .help = "AllocatePages finds no memory at or above address A",
                                   .after = allocated_above },
    /* --fault-sweep's N is the call's number (vmm/tools/sweep_matrix.c sweep_plan_cells). */
    [INJECT_ALLOC_POOL_FAIL] = { .name = "alloc-pool-fail", .value = INJECT_VALUE_REQUIRED,
                                 .help = "the Nth AllocatePool fails with EFI_OUT_OF_RESOURCES",
                                 .before = nth_call_fails },
    [INJECT_NO_LOADED_IMAGE] = { .name = "no-loaded-image", .takes_from = true,
                                 .help = "the image handle has no EFI_LOADED_IMAGE_PROTOCOL",
                                 .scope = INJECT_ON_LOOKUPS, .applies = asks_for_loaded_image,
                                 .before = protocol_missing },
    [INJECT_GETVAR_ERROR] = { .name = "getvar-error", .takes_from = true,
                              .help = "GetVariable fails with EFI_DEVICE_ERROR", .before = device_error },
    [INJECT_NO_RNG] = { .name = "no-rng", .takes_from = true,
                        .help = "no EFI_RNG_PROTOCOL (the stub falls back to RDRAND/RDTSC)",
                        .scope = INJECT_ON_LOOKUPS, .applies = asks_for_rng, .before = protocol_missing },
    [INJECT_MAP_FRAGMENTED] = { .name = "memmap-fragmented",
                                .help = "a reserved page every 2 MiB below 256 MiB (over 128 descriptors)",
                                .scope = INJECT_ON_BOOT, .after = map_read, .memmap = fragment_map },
    /* --fault-sweep skips it without RAM above 4 GiB (vmm/tools/sweep_matrix.c sweep_plan_cells). */
    [INJECT_NO_LOW_FREE] = { .name = "no-low-free",
                             .help = "no free RAM between 1 MiB and 4 GiB (use --mem above 4G)",
                             .scope = INJECT_ON_BOOT, .after = map_read, .memmap = take_low_free },
    [INJECT_NO_LOADFILE2] = { .name = "no-loadfile2", .takes_from = true,
                              .help = "no LoadFile2 device path for the initrd (the stub boots without it)",
                              .applies = asks_for_initrd, .before = protocol_missing },
    [INJECT_FILE_READ_ERROR] = { .name = "file-read-error", .takes_from = true,
                                 .help = "File.Read on the --esp volume fails with EFI_DEVICE_ERROR",
                                 .before = device_error },
    [INJECT_MEMATTR_FAIL] = { .name = "memattr-fail", .takes_from = true,
                              .help = "Set/ClearMemoryAttributes fail with EFI_OUT_OF_RESOURCES",
                              .before = out_of_resources },
    [INJECT_NO_TPM] = { .name = "no-tpm", .takes_from = true,
                        .help = "with --tpm: no EFI_TCG2_PROTOCOL (nothing is measured)",
                        .scope = INJECT_ON_LOOKUPS, .applies = asks_for_tcg2, .before = protocol_missing },
    [INJECT_TPM_EXTEND_FAIL] = { .name = "tpm-extend-fail", .takes_from = true,
                                 .help = "with --tpm: Tcg2.HashLogExtendEvent fails with EFI_DEVICE_ERROR",
                                 .before = device_error },
    [INJECT_BLOCK_READ_ERROR] = { .name = "block-read-error", .takes_from = true,
                                  .help = "BlockIo.ReadBlocks on the --esp disk fails with EFI_DEVICE_ERROR",
                                  .before = device_error },
    [INJECT_TPM_LOG_FULL] = { .name = "tpm-log-full", .takes_from = true,
                              .help = "with --tpm: the event log is full for Tcg2.HashLogExtendEvent (the PCR "
                                      "extended, the event dropped, EFI_VOLUME_FULL)",
                              .applies = tpm_on, .before = log_full },
    [INJECT_SECURE_BOOT_REFUSE] = { .name = "secure-boot-refuse", .takes_from = true,
                                    .help = "with --secure-boot in User Mode: LoadImage refuses the image "
                                            "(EFI_SECURITY_VIOLATION), as if its signature did not verify",
                                    .applies = secure_boot_enforced, .before = security_violation },
};

/* ---- specs -------------------------------------------------------------- */

/* A positive number filling [s, end) exactly; 0 if it is not one.
 * Decimal, or hexadecimal after 0x, as every number option reads
 * (vmm/options.c read_number): never octal, which strtoull's base 0 would
 * make of "010" (eight). */
static uint64_t positive(const char *s, const char *end)
{
    char *stop;
    if (s == end || *s < '0' || *s > '9')   /* strtoull would skip spaces and take a sign */
        return 0;
    errno = 0;
    uint64_t v = strtoull(s, &stop, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
    return errno || stop != end ? 0 : v;
}

int inject_parse(struct inject *in, const char *spec, char *err, unsigned errlen)
{
    size_t n = strcspn(spec, ":@");
    const char *at = strchr(spec, '@');
    const char *end = at ? at : spec + strlen(spec);
    for (int k = 0; k < INJECT_KINDS; k++) {
        const struct inject_fault *f = &inject_faults[k];
        if (strlen(f->name) != n || strncmp(spec, f->name, n))
            continue;
        uint64_t v = 1, from = 0;
        if (spec[n] == ':') {
            if (f->value == INJECT_VALUE_NONE || !(v = positive(spec + n + 1, end))) {
                snprintf(err, errlen, "--inject %s: %s", spec,
                         f->value != INJECT_VALUE_NONE ? "the value must be a positive number" : "takes no value");
                return -1;
            }
        } else if (f->value == INJECT_VALUE_REQUIRED) {
            snprintf(err, errlen, "--inject %s: needs a value, e.g. %s:2", spec, f->name);
            return -1;
        }
        if (at && (!f->takes_from || !(from = positive(at + 1, at + strlen(at))))) {
            snprintf(err, errlen, "--inject %s: %s", spec,
                     f->takes_from ? "@K needs a positive call number"
                     : "takes no @K (its value names the call, or it holds for the whole boot)");
            return -1;
        }
        /* A run arms each fault once: a second spec would silently
         * replace the first. */
        if (in->on[k]) {
            snprintf(err, errlen, "--inject %s: %s is already given (one --inject per fault)", spec, f->name);
            return -1;
        }
        in->on[k] = true;
        in->value[k] = v;
        in->from[k] = from;
        return 0;
    }
    snprintf(err, errlen, "--inject %s: unknown fault (see --help)", spec);
    return -1;
}

void inject_spec(const struct inject *in, enum inject_kind k, char *buf, unsigned len)
{
    const struct inject_fault *f = &inject_faults[k];
    int n = snprintf(buf, len, "%s", f->name);
    if ((f->value == INJECT_VALUE_REQUIRED || (f->value == INJECT_VALUE_OPTIONAL && in->value[k] != 1)) &&
        n >= 0 && (unsigned)n < len)
        n += snprintf(buf + n, len - (unsigned)n, f->hex ? ":0x%llx" : ":%llu", (unsigned long long)in->value[k]);
    if (in->from[k] > 1 && n >= 0 && (unsigned)n < len)
        snprintf(buf + n, len - (unsigned)n, "@%llu", (unsigned long long)in->from[k]);
}

/* One fault's lines: its spec, then its help from column 21, wrapped at
 * spaces to INJECT_HELP_WIDTH characters a line; their length (as
 * snprintf counts it). */
static size_t help_entry(char *buf, size_t len, const char *indent, const char *spec, const char *help)
{
    size_t n = 0;
    const char *label = spec;
    do {
        size_t take = strlen(help);
        if (take > INJECT_HELP_WIDTH) {
            take = INJECT_HELP_WIDTH;
            while (take && help[take] != ' ')
                take--;
            if (!take)
                take = INJECT_HELP_WIDTH;
        }
        n += (size_t)snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, "%s%-20s %.*s\n", indent, label,
                              (int)take, help);
        label = "";
        help += take;
        while (*help == ' ')
            help++;
    } while (*help);
    return n;
}

void inject_help(char *buf, size_t len, const char *indent)
{
    static const char *const from[] = {
        "SPEC@K               arm the fault from the Kth call it applies to (not for the",
        "                     Nth-call and memory-map faults), e.g. gmm-too-small:1@2",
    };
    size_t n = 0;
    buf[0] = 0;
    for (unsigned k = 0; k < INJECT_KINDS && n < len; k++) {
        const struct inject_fault *f = &inject_faults[k];
        const char *value = f->value == INJECT_VALUE_NONE ? "" : f->value == INJECT_VALUE_OPTIONAL ? "[:N]"
                            : f->hex ? ":A" : ":N";
        char spec[32];
        snprintf(spec, sizeof(spec), "%s%s", f->name, value);
        n += help_entry(buf + n, len - n, indent, spec, f->help);
    }
    for (unsigned i = 0; i < 2 && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s\n", indent, from[i]);
}
