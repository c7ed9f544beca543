/* --keys: the keys ConIn.ReadKeyStroke returns, written as a string. A
 * character is its key (UnicodeChar; a newline is Enter too); escapes name
 * the rest: \n or \r Enter, \e Escape, \t Tab, \b Backspace, \\ a
 * backslash, \U \D \L \R the arrows (UEFI 2.10 section 12.3.3, table 12-4). */
#ifndef HANDOVER_KEYS_H
#define HANDOVER_KEYS_H

#include <stddef.h>

#include "efi.h"

/* The key at s into *key: returns the bytes it takes, 0 at the end of s,
 * or -1 for an escape that names no key. */
int keys_next(const char *s, struct efi_input_key *key);
/* Is every key of s well written? 0, or -1 with what is wrong in err. */
int keys_check(const char *s, char *err, size_t errlen);

#endif
