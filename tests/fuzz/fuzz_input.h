/* A cursor over a fuzzer's input: every read succeeds, giving zeros once
 * the input runs out, so a harness never has to check lengths and every
 * byte string is a valid program. */
#ifndef HANDOVER_FUZZ_INPUT_H
#define HANDOVER_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fuzz_in {
    const uint8_t *p;
    size_t n;
};

static inline uint8_t in_u8(struct fuzz_in *in)
{
    if (!in->n)
        return 0;
    in->n--;
    return *in->p++;
}

/* bytes (1..8) little-endian bytes */
static inline uint64_t in_uint(struct fuzz_in *in, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)in_u8(in) << (8 * i);
    return v;
}

static inline uint16_t in_u16(struct fuzz_in *in) { return (uint16_t)in_uint(in, 2); }
static inline uint32_t in_u32(struct fuzz_in *in) { return (uint32_t)in_uint(in, 4); }
static inline uint64_t in_u64(struct fuzz_in *in) { return in_uint(in, 8); }

/* Copy up to len bytes into dst, zero-filling what the input lacks. */
static inline void in_bytes(struct fuzz_in *in, void *dst, size_t len)
{
    size_t n = len < in->n ? len : in->n;
    memcpy(dst, in->p, n);
    memset((uint8_t *)dst + n, 0, len - n);
    in->p += n;
    in->n -= n;
}

#endif
