/* UCS-2, the firmware's strings (UEFI 2.10 section 2.3.1, CHAR16): made
 * from UTF-8 and read from guest memory. */
#ifndef HANDOVER_FW_UCS2_H
#define HANDOVER_FW_UCS2_H

#include <stddef.h>
#include <stdint.h>

#include "../guest/guest_mem.h"

/* One UTF-8 sequence at s: its code point (U+FFFD for a malformed or
 * overlong one, or one outside the BMP, which UCS-2 cannot hold) and its
 * length in bytes (at least 1; a NUL ends a sequence). */
unsigned fw_utf8_decode(const unsigned char *s, uint16_t *out);
/* Read a NUL-terminated UCS-2 string of at most max chars (including the
 * NUL) from guest memory; returns its length without NUL, or -1. */
long fw_read_ucs2(const struct guest_view *v, uint64_t addr, uint16_t *buf, size_t max);

#endif
