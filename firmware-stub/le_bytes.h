/* Little-endian fields of on-disk structures (FAT, GPT), written a byte at
 * a time into a buffer of any alignment. */
#ifndef HANDOVER_FW_LE_BYTES_H
#define HANDOVER_FW_LE_BYTES_H

#include <stdint.h>

static inline void put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void put32(uint8_t *p, uint32_t v)
{
    put16(p, v);
    put16(p + 2, v >> 16);
}

static inline void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

#endif
