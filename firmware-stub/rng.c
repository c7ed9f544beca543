/* EFI_RNG_PROTOCOL (UEFI 2.10 section 37.5), backed by the host's
 * getrandom(2), or with --seed by a deterministic generator (splitmix64),
 * so that the stub's KASLR seed, and with it the whole boot trace, can be
 * reproduced. */
#include "rng.h"

#include <string.h>
#include <sys/random.h>

#include "guids.h"
#include "trace_decode.h"
#include "width.h"

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
    uint64_t list_size_ptr = a[1], list = a[2];
    uint64_t size;
    efi_guid_t raw = GUID_RNG_ALGORITHM_RAW;
    if (!list_size_ptr || !fw_read_uintn(fw, v, list_size_ptr, &size))
        return EFI_INVALID_PARAMETER;
    if (size >= sizeof(raw) && !fw_writable(v, list, sizeof(raw)))
        return EFI_INVALID_PARAMETER;   /* before the size is written: a failed call writes nothing */
    fw_write_uintn(fw, v, list_size_ptr, sizeof(raw));
    if (size < sizeof(raw))
        return EFI_BUFFER_TOO_SMALL;
    guest_view_write(v, list, &raw, sizeof(raw));
    return EFI_SUCCESS;
}

static efi_status_t get_rng(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t algorithm = a[1], length = a[2], value = a[3];
    static uint8_t buf[RNG_MAX_REQUEST];
    efi_guid_t alg, raw = GUID_RNG_ALGORITHM_RAW;
    if (algorithm && (!guest_view_read(v, algorithm, &alg, sizeof(alg)) || !guid_equal(&alg, &raw)))
        return EFI_UNSUPPORTED;
    if (!length || length > RNG_MAX_REQUEST || !value || !guest_view_accessible(v, value, length))
        return EFI_INVALID_PARAMETER;
    if (fill_random(fw, buf, length))
        return EFI_DEVICE_ERROR;
    guest_view_write(v, value, buf, length);
    return EFI_SUCCESS;
}

static void decode_get_rng(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                           const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_u64(o, "length", a[2]);
}

#define RNG(i, ...) [i] = { .id = FW_ID_RNG(i), __VA_ARGS__ }   /* i: enum efi_rng_service */

const struct fw_service fw_rng_services[RNG_COUNT] = {
    RNG(RNG_GET_INFO, .name = "Rng.GetInfo", .nargs = 3, .fn = get_info),
    RNG(RNG_GET_RNG, .name = "Rng.GetRNG", .nargs = 4, .fn = get_rng, .decode = decode_get_rng),
};
