#include "inject.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const inject_names[INJECT_KINDS] = {
    "gmm-too-small", "ebs-stale-key", "alloc-pages-fail", "alloc-pages-above", "alloc-pool-fail",
    "no-loaded-image", "getvar-error", "no-rng", "memmap-fragmented", "no-low-free",
    "no-loadfile2",
};

/* Whether the spec takes :VALUE (1 = required, 2 = optional, default 1). */
static const int takes_value[INJECT_KINDS] = { 2, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0 };

bool inject_takes_from(enum inject_kind k)
{
    return k != INJECT_ALLOC_PAGES_FAIL && k != INJECT_ALLOC_POOL_FAIL && k != INJECT_MAP_FRAGMENTED &&
           k != INJECT_NO_LOW_FREE;
}

const char *const inject_help[] = {
    "gmm-too-small[:N]    GetMemoryMap returns EFI_BUFFER_TOO_SMALL N times (default 1)",
    "ebs-stale-key        ExitBootServices fails once: the map changed (EFI_INVALID_PARAMETER)",
    "alloc-pages-fail:N   the Nth AllocatePages fails with EFI_OUT_OF_RESOURCES",
    "alloc-pages-above:A  AllocatePages finds no memory at or above address A",
    "alloc-pool-fail:N    the Nth AllocatePool fails with EFI_OUT_OF_RESOURCES",
    "no-loaded-image      the image handle has no EFI_LOADED_IMAGE_PROTOCOL",
    "getvar-error         GetVariable fails with EFI_DEVICE_ERROR",
    "no-rng               no EFI_RNG_PROTOCOL (the stub falls back to RDRAND/RDTSC)",
    "memmap-fragmented    a reserved page every 2 MiB below 256 MiB (over 128 descriptors)",
    "no-low-free          no free RAM between 1 MiB and 4 GiB (use --mem above 4G)",
    "no-loadfile2         no LoadFile2 device path for the initrd (the stub boots without it)",
    "SPEC@K               arm the fault from the Kth call it applies to (not for the",
    "                     Nth-call and memory-map faults), e.g. gmm-too-small:1@2",
    NULL,
};

/* A positive number filling [s, end) exactly; 0 if it is not one. */
static uint64_t positive(const char *s, const char *end)
{
    char *stop;
    if (s == end || *s < '0' || *s > '9')   /* strtoull would skip spaces and take a sign */
        return 0;
    errno = 0;
    uint64_t v = strtoull(s, &stop, 0);
    return errno || stop != end ? 0 : v;
}

int inject_parse(struct inject *in, const char *spec, char *err, unsigned errlen)
{
    size_t n = strcspn(spec, ":@");
    const char *at = strchr(spec, '@');
    const char *end = at ? at : spec + strlen(spec);
    for (int k = 0; k < INJECT_KINDS; k++) {
        if (strlen(inject_names[k]) != n || strncmp(spec, inject_names[k], n))
            continue;
        uint64_t v = 1, from = 0;
        if (spec[n] == ':') {
            if (!takes_value[k] || !(v = positive(spec + n + 1, end))) {
                snprintf(err, errlen, "--inject %s: %s", spec,
                         takes_value[k] ? "the value must be a positive number" : "takes no value");
                return -1;
            }
        } else if (takes_value[k] == 1) {
            snprintf(err, errlen, "--inject %s: needs a value, e.g. %s:2", spec, inject_names[k]);
            return -1;
        }
        if (at && (!inject_takes_from((enum inject_kind)k) || !(from = positive(at + 1, at + strlen(at))))) {
            snprintf(err, errlen, "--inject %s: %s", spec,
                     inject_takes_from((enum inject_kind)k) ? "@K needs a positive call number"
                     : "takes no @K (its value names the call, or it holds for the whole boot)");
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
    int n = snprintf(buf, len, "%s", inject_names[k]);
    if (takes_value[k] && (takes_value[k] == 1 || in->value[k] != 1) && n >= 0 && (unsigned)n < len)
        n += snprintf(buf + n, len - (unsigned)n, k == INJECT_ALLOC_PAGES_ABOVE ? ":0x%llx" : ":%llu",
                      (unsigned long long)in->value[k]);
    if (in->from[k] > 1 && n >= 0 && (unsigned)n < len)
        snprintf(buf + n, len - (unsigned)n, "@%llu", (unsigned long long)in->from[k]);
}
