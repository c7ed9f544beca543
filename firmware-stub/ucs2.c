/* UCS-2 strings (ucs2.h). */
#include "ucs2.h"

unsigned fw_utf8_decode(const unsigned char *s, uint16_t *out)
{
    unsigned len = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3
                 : (s[0] & 0xf8) == 0xf0 ? 4 : 0;
    if (!len) {
        *out = 0xfffd;
        return 1;
    }
    uint32_t c = len == 1 ? s[0] : s[0] & (0x7f >> len);
    for (unsigned i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            *out = 0xfffd;
            return i;
        }
        c = c << 6 | (s[i] & 0x3f);
    }
    static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    *out = c < min[len] || c > 0xffff || (c >= 0xd800 && c <= 0xdfff) ? 0xfffd : (uint16_t)c;
    return len;
}

long fw_read_ucs2(const struct guest_view *v, uint64_t addr, uint16_t *buf, size_t max)
{
    if (!addr)
        return -1;
    for (size_t i = 0; i < max; i++) {
        if (!guest_view_read(v, addr + 2 * i, &buf[i], 2))
            return -1;
        if (!buf[i])
            return (long)i;
    }
    return -1;
}
