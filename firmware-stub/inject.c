#include "inject.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const inject_names[INJECT_KINDS] = {
    "gmm-too-small", "ebs-stale-key", "alloc-pages-fail", "alloc-pages-above", "alloc-pool-fail",
    "no-loaded-image", "getvar-error", "no-rng", "memmap-fragmented", "no-low-free",
};

/* Whether the spec takes :VALUE (1 = required, 2 = optional, default 1). */
static const int takes_value[INJECT_KINDS] = { 2, 0, 1, 1, 1, 0, 0, 0, 0, 0 };

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
    NULL,
};

int inject_parse(struct inject *in, const char *spec, char *err, unsigned errlen)
{
    size_t n = strcspn(spec, ":");
    for (int k = 0; k < INJECT_KINDS; k++) {
        if (strlen(inject_names[k]) != n || strncmp(spec, inject_names[k], n))
            continue;
        uint64_t v = 1;
        if (spec[n] == ':') {
            char *end;
            errno = 0;
            v = strtoull(spec + n + 1, &end, 0);
            if (!takes_value[k] || errno || end == spec + n + 1 || *end || !v || spec[n + 1] == '-') {
                snprintf(err, errlen, "--inject %s: %s", spec,
                         takes_value[k] ? "the value must be a positive number" : "takes no value");
                return -1;
            }
        } else if (takes_value[k] == 1) {
            snprintf(err, errlen, "--inject %s: needs a value, e.g. %s:2", spec, inject_names[k]);
            return -1;
        }
        in->on[k] = true;
        in->value[k] = v;
        return 0;
    }
    snprintf(err, errlen, "--inject %s: unknown fault (see --help)", spec);
    return -1;
}

