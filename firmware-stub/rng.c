/* EFI_RNG_PROTOCOL (UEFI 2.10 section 37.5), backed by the host's
 * getrandom(2), or with --seed by a deterministic generator (splitmix64),
 * so that the stub's KASLR seed, and with it the whole boot trace, can be
 * reproduced. */
#include <string.h>
#include <sys/random.h>

#include "internal.h"

#define GUID_RNG_ALGORITHM_RAW EFI_GUID(0xe43176d7, 0xab20, 0x4b0e, 0x9e, 0x23, 0x9a, 0x7c, 0x8e, 0x8b, 0x89, 0xc4)
#define RNG_MAX_REQUEST (1u << 20)

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int fill_random(struct firmware *fw, uint8_t *buf, size_t len)
{
    if (fw->cfg.seeded) {
        for (size_t i = 0; i < len; i += 8) {
            uint64_t v = splitmix64(&fw->rng_state);
            memcpy(buf + i, &v, len - i < 8 ? len - i : 8);
        }
        return 0;
    }
    while (len) {
        ssize_t n = getrandom(buf, len, 0);
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static efi_status_t get_info(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)fw;
    uint64_t size;
    efi_guid_t raw = GUID_RNG_ALGORITHM_RAW;
    if (!a[1] || !guest_view_read_u64(v, a[1], &size))
        return EFI_INVALID_PARAMETER;
    guest_view_write_u64(v, a[1], sizeof(raw));
    if (size < sizeof(raw))
        return EFI_BUFFER_TOO_SMALL;
    return guest_view_write(v, a[2], &raw, sizeof(raw)) ? EFI_SUCCESS : EFI_INVALID_PARAMETER;
}

static efi_status_t get_rng(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    static uint8_t buf[RNG_MAX_REQUEST];
    efi_guid_t alg, raw = GUID_RNG_ALGORITHM_RAW;
    if (a[1] && (!guest_view_read(v, a[1], &alg, sizeof(alg)) || !guid_equal(&alg, &raw)))
        return EFI_UNSUPPORTED;
    if (!a[2] || a[2] > RNG_MAX_REQUEST || !a[3] || !guest_view_accessible(v, a[3], a[2]))
        return EFI_INVALID_PARAMETER;
    if (fill_random(fw, buf, a[2]))
        return EFI_DEVICE_ERROR;
    guest_view_write(v, a[3], buf, a[2]);
    return EFI_SUCCESS;
}

const struct fw_service fw_rng_services[2] = {
    { FW_ID_RNG(0), "Rng.GetInfo", 3, get_info },
    { FW_ID_RNG(1), "Rng.GetRNG", 4, get_rng },
};
