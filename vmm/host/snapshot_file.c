#include "snapshot_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

uint32_t snapshot_crc(const void *data, size_t n)
{
    return snapshot_crc_more((uint32_t)crc32(0L, Z_NULL, 0), data, n);
}

uint32_t snapshot_crc_more(uint32_t so_far, const void *data, size_t n)
{
    uLong crc = so_far;
    const uint8_t *p = data;
    while (n) {
        uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, p, chunk);
        p += chunk;
        n -= chunk;
    }
    return (uint32_t)crc;
}

void snapshot_put(struct snapshot_cursor *c, const void *data, size_t n)
{
    if (c->failed)
        return;
    if (n > SNAPSHOT_STATE_MAX - c->at) {
        c->failed = true;
        return;
    }
    if (c->at + n > c->len) {
        size_t want = c->len ? c->len : 4096;
        while (want < c->at + n)
            want *= 2;
        uint8_t *grown = realloc(c->buf, want);
        if (!grown) {
            c->failed = true;
            return;
        }
        c->buf = grown;
        c->len = want;
    }
    memcpy(c->buf + c->at, data, n);
    c->at += n;
}

bool snapshot_take(struct snapshot_cursor *c, void *dst, size_t n)
{
    if (c->failed || n > c->len - c->at) {
        c->failed = true;
        return false;
    }
    memcpy(dst, c->buf + c->at, n);
    c->at += n;
    return true;
}

void snapshot_seal(struct snapshot_header *h, const struct snapshot_inputs *in, const void *payload, size_t len,
                   uint64_t ram_size)
{
    memset(h, 0, sizeof(*h));
    memcpy(h->magic, SNAPSHOT_MAGIC, sizeof(h->magic));
    h->version = SNAPSHOT_VERSION;
    h->header_size = sizeof(*h);
    h->payload_size = len;
    h->ram_size = ram_size;
    h->inputs = *in;
    h->payload_crc = snapshot_crc(payload, len);
    h->header_crc = snapshot_crc(h, offsetof(struct snapshot_header, header_crc));
}

/* A header of another version of the format than this build's. */
static bool other_format(const struct snapshot_header *h)
{
    return h->version != SNAPSHOT_VERSION || h->header_size != sizeof(*h);
}

const char *snapshot_check(const void *file, size_t len, struct snapshot_header *h)
{
    static char why[128];
    if (len < sizeof(*h)) {
        snprintf(why, sizeof(why), "truncated: %zu bytes, shorter than the %zu-byte header", len, sizeof(*h));
        return why;
    }
    memcpy(h, file, sizeof(*h));
    if (memcmp(h->magic, SNAPSHOT_MAGIC, sizeof(h->magic)))
        return "not a handover snapshot (bad magic)";
    if (other_format(h)) {
        snprintf(why, sizeof(why), "version %u with a %u-byte header, this handover reads version %u (%zu bytes)",
                 h->version, h->header_size, SNAPSHOT_VERSION, sizeof(*h));
        return why;
    }
    if (h->header_crc != snapshot_crc(h, offsetof(struct snapshot_header, header_crc)))
        return "header corrupt (CRC-32 mismatch)";
    if (h->payload_size != len - sizeof(*h)) {
        snprintf(why, sizeof(why), "%s: %zu payload bytes, the header says %llu",
                 h->payload_size > len - sizeof(*h) ? "truncated" : "trailing bytes", len - sizeof(*h),
                 (unsigned long long)h->payload_size);
        return why;
    }
    if (h->payload_crc != snapshot_crc((const uint8_t *)file + sizeof(*h), len - sizeof(*h)))
        return "payload corrupt (CRC-32 mismatch)";
    return NULL;
}

bool snapshot_other_version(const void *file, size_t len)
{
    struct snapshot_header h;
    const size_t head = offsetof(struct snapshot_header, payload_size);
    if (len < head)
        return false;
    memcpy(&h, file, head);
    return !memcmp(h.magic, SNAPSHOT_MAGIC, sizeof(h.magic)) && other_format(&h);
}

bool snapshot_bools_valid(const void *data, const size_t *offsets, size_t n)
{
    const uint8_t *b = data;
    for (size_t i = 0; i < n; i++)
        if (b[offsets[i]] > 1)
            return false;
    return true;
}

bool snapshot_inputs_equal(const struct snapshot_inputs *a, const struct snapshot_inputs *b)
{
    return a->kernel_size == b->kernel_size && a->initrd_size == b->initrd_size &&
           a->options_size == b->options_size && a->kernel_crc == b->kernel_crc && a->initrd_crc == b->initrd_crc &&
           a->options_crc == b->options_crc && a->layout == b->layout;
}
