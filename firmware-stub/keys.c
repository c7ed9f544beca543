/* The --keys string, key by key (keys.h). */
#include <stdio.h>

#include "keys.h"
#include "ucs2.h"
#include "../guest/guest_text.h"

#define ESCAPES "\\n \\r \\e \\t \\b \\\\ \\U \\D \\L \\R"

/* An escape's key, by the letter after the backslash. */
static const struct { char c; struct efi_input_key key; } escapes[] = {
    { 'n', { EFI_SCAN_NULL, EFI_CHAR_CARRIAGE_RETURN } },
    { 'r', { EFI_SCAN_NULL, EFI_CHAR_CARRIAGE_RETURN } },
    { 'e', { EFI_SCAN_ESC, 0 } },
    { 't', { EFI_SCAN_NULL, EFI_CHAR_TAB } },
    { 'b', { EFI_SCAN_NULL, EFI_CHAR_BACKSPACE } },
    { '\\', { EFI_SCAN_NULL, '\\' } },
    { 'U', { EFI_SCAN_UP, 0 } },
    { 'D', { EFI_SCAN_DOWN, 0 } },
    { 'L', { EFI_SCAN_LEFT, 0 } },
    { 'R', { EFI_SCAN_RIGHT, 0 } },
};

int keys_next(const char *s, struct efi_input_key *key)
{
    if (!*s)
        return 0;
    if (*s == '\\') {
        for (size_t i = 0; i < sizeof(escapes) / sizeof(escapes[0]); i++)
            if (s[1] == escapes[i].c) {
                *key = escapes[i].key;
                return 2;
            }
        return -1;
    }
    /* A newline typed into the argument ($'...\n') is Enter, as \n is:
     * Enter is a carriage return (UEFI 2.10 section 12.3.3). */
    if (*s == '\n') {
        *key = (struct efi_input_key){ EFI_SCAN_NULL, EFI_CHAR_CARRIAGE_RETURN };
        return 1;
    }
    uint16_t c;
    int len = (int)fw_utf8_decode((const unsigned char *)s, &c);
    *key = (struct efi_input_key){ EFI_SCAN_NULL, c };
    return len;
}

int keys_check(const char *s, char *err, size_t errlen)
{
    struct efi_input_key key;
    for (size_t at = 0;;) {
        int n = keys_next(s + at, &key);
        if (!n)
            return 0;
        if (n > 0) {
            at += (size_t)n;
            continue;
        }
        unsigned char c = (unsigned char)s[at + 1];
        if (!c)
            snprintf(err, errlen, "--keys: ends in a lone backslash (write \\\\ for a backslash)");
        else if (!guest_text_printable(c))
            snprintf(err, errlen, "--keys: the backslash at offset %zu is followed by byte 0x%02x, which names no "
                     "key (the escapes are " ESCAPES ")", at, c);
        else
            snprintf(err, errlen, "--keys: \\%c at offset %zu names no key (the escapes are " ESCAPES ")", c, at);
        return -1;
    }
}
