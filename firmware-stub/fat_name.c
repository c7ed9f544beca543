/* FAT's short names, long-name entries and label (fat_name.h). */
#include "fat_name.h"

#include <stdlib.h>
#include <string.h>

#define BASE_CHARS  8
#define EXT_CHARS   3
#define LFN_LAST    0x40        /* LDIR_Ord of the last part, which comes first */
#define TAIL_MAX    999999      /* "~999999" fills all but one character of the base */

static const char no_name[FAT_SHORT_NAME] = "NO NAME    ";

static uint16_t upper(uint16_t c)
{
    return c >= 'a' && c <= 'z' ? (uint16_t)(c - 'a' + 'A') : c;
}

/* A character a short name may hold (fatgen103 section 6.1), leaving out
 * the OEM code page's upper half (no code page is assumed) and the space. */
static bool short_char(uint16_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || (c > 0 && c < 0x80 && strchr("$%'-_@~`!(){}^#&", c));
}

/* name as an 8.3 name: true when it is one, or one but for case (then
 * *exact is false). */
static bool as_short(const uint16_t *name, unsigned len, uint8_t out[FAT_SHORT_NAME], bool *exact)
{
    unsigned dot = len;
    for (unsigned i = 0; i < len; i++)
        if (name[i] == '.') {
            if (dot != len)
                return false;
            dot = i;
        }
    unsigned ext = dot < len ? len - dot - 1 : 0;
    if (!dot || dot > BASE_CHARS || ext > EXT_CHARS || (dot < len && !ext))
        return false;
    memset(out, ' ', FAT_SHORT_NAME);
    *exact = true;
    for (unsigned i = 0; i < len; i++) {
        if (i == dot)
            continue;
        uint16_t c = upper(name[i]);
        if (!short_char(c))
            return false;
        *exact = *exact && c == name[i];
        out[i < dot ? i : BASE_CHARS + i - dot - 1] = (uint8_t)c;
    }
    return true;
}

/* The basis name (fatgen103 section 7): upper-cased, spaces and leading
 * periods left out, a character a short name may not hold as '_'; the
 * base up to the first period, the extension after the last. */
static unsigned basis(const uint16_t *name, unsigned len, uint8_t base[BASE_CHARS], uint8_t ext[EXT_CHARS])
{
    unsigned start = 0, last_dot = len, n = 0;
    while (start < len && (name[start] == '.' || name[start] == ' '))
        start++;
    for (unsigned i = start; i < len; i++)
        if (name[i] == '.')
            last_dot = i;
    memset(ext, ' ', EXT_CHARS);
    for (unsigned i = start; i < len && name[i] != '.' && n < BASE_CHARS; i++)
        if (name[i] != ' ')
            base[n++] = short_char(upper(name[i])) ? (uint8_t)upper(name[i]) : '_';
    for (unsigned i = last_dot + 1, e = 0; i < len && e < EXT_CHARS; i++)
        if (name[i] != ' ')
            ext[e++] = short_char(upper(name[i])) ? (uint8_t)upper(name[i]) : '_';
    if (!n)
        base[n++] = '_';
    return n;
}

static void with_tail(const uint8_t *base, unsigned base_len, const uint8_t ext[EXT_CHARS], unsigned k,
                      uint8_t out[FAT_SHORT_NAME])
{
    char tail[BASE_CHARS + 1];
    unsigned tail_len = 0;
    for (unsigned v = k; v; v /= 10)
        tail[tail_len++] = (char)('0' + v % 10);
    tail[tail_len++] = '~';
    unsigned keep = base_len < BASE_CHARS - tail_len ? base_len : BASE_CHARS - tail_len;
    memset(out, ' ', FAT_SHORT_NAME);
    memcpy(out, base, keep);
    for (unsigned i = 0; i < tail_len; i++)
        out[keep + i] = (uint8_t)tail[tail_len - 1 - i];
    memcpy(out + BASE_CHARS, ext, EXT_CHARS);
}

/* The short names taken so far: an open-addressed set of indices + 1 into
 * the names being made. */
struct taken {
    unsigned *slot;
    size_t mask;
    uint8_t (*name)[FAT_SHORT_NAME];
};

static size_t hash(const uint8_t s[FAT_SHORT_NAME])
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (unsigned i = 0; i < FAT_SHORT_NAME; i++)
        h = (h ^ s[i]) * 16777619u;
    return h;
}

/* The slot holding s, or the empty one where it would go. */
static unsigned *find(const struct taken *t, const uint8_t s[FAT_SHORT_NAME])
{
    size_t i = hash(s) & t->mask;
    while (t->slot[i] && memcmp(t->name[t->slot[i] - 1], s, FAT_SHORT_NAME))
        i = (i + 1) & t->mask;
    return &t->slot[i];
}

int fat_short_names(const uint16_t *const *names, const unsigned *lens, unsigned n,
                    uint8_t (*short_name)[FAT_SHORT_NAME], bool *long_name)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)n + 2)
        cap *= 2;
    struct taken t = { .slot = calloc(cap, sizeof(unsigned)), .mask = cap - 1, .name = short_name };
    bool *pending = calloc(n ? n : 1, sizeof(bool));
    int rc = t.slot && pending ? 0 : -1;
    /* Names that are 8.3 already, or but for case, keep them. */
    for (unsigned i = 0; !rc && i < n; i++) {
        bool exact;
        unsigned *slot;
        if (as_short(names[i], lens[i], short_name[i], &exact) && !*(slot = find(&t, short_name[i]))) {
            *slot = i + 1;
            long_name[i] = !exact;
        } else {
            pending[i] = true;
        }
    }
    for (unsigned i = 0; !rc && i < n; i++) {
        if (!pending[i])
            continue;
        uint8_t base[BASE_CHARS], ext[EXT_CHARS];
        unsigned base_len = basis(names[i], lens[i], base, ext);
        unsigned *slot = NULL;
        for (unsigned k = 1; k <= TAIL_MAX && !slot; k++) {
            with_tail(base, base_len, ext, k, short_name[i]);
            slot = find(&t, short_name[i]);
            slot = *slot ? NULL : slot;
        }
        if (!slot) {
            rc = -1;
            break;
        }
        *slot = i + 1;
        long_name[i] = true;
    }
    free(t.slot);
    free(pending);
    return rc;
}

unsigned fat_lfn_entries(unsigned len)
{
    return (len + FAT_LFN_CHARS - 1) / FAT_LFN_CHARS;
}

uint8_t fat_short_name_checksum(const uint8_t short_name[FAT_SHORT_NAME])
{
    uint8_t sum = 0;
    for (unsigned i = 0; i < FAT_SHORT_NAME; i++)
        sum = (uint8_t)(((sum & 1) << 7) + (sum >> 1) + short_name[i]);
    return sum;
}

void fat_lfn_write(uint8_t *out, const uint16_t *name, unsigned len, const uint8_t short_name[FAT_SHORT_NAME])
{
    /* Where LDIR_Name1, LDIR_Name2 and LDIR_Name3 put the 13 characters. */
    static const uint8_t at[FAT_LFN_CHARS] = { 1, 3, 5, 7, 9, 14, 16, 18, 20, 22, 24, 28, 30 };
    unsigned n = fat_lfn_entries(len);
    uint8_t sum = fat_short_name_checksum(short_name);
    for (unsigned e = 0; e < n; e++) {
        unsigned ord = n - e;
        uint8_t *d = out + (size_t)e * FAT_DIR_ENTRY_SIZE;
        memset(d, 0, FAT_DIR_ENTRY_SIZE);
        d[0] = (uint8_t)(ord | (ord == n ? LFN_LAST : 0));
        d[11] = FAT_ATTR_LONG_NAME;
        d[13] = sum;
        for (unsigned j = 0; j < FAT_LFN_CHARS; j++) {
            unsigned i = (ord - 1) * FAT_LFN_CHARS + j;
            uint16_t c = i < len ? name[i] : i == len ? 0 : 0xffff;   /* NUL-terminated, then padded */
            d[at[j]] = (uint8_t)c;
            d[at[j] + 1] = (uint8_t)(c >> 8);
        }
    }
}

bool fat_label(const uint16_t *label, uint8_t out[FAT_SHORT_NAME])
{
    /* Leading spaces left out: DIR_Name[0] may not be one (fatgen103
     * section 6.1), nor then BS_VolLab's. */
    while (*label == ' ')
        label++;
    memset(out, ' ', FAT_SHORT_NAME);
    for (unsigned i = 0; i < FAT_SHORT_NAME && label[i]; i++) {
        uint16_t c = upper(label[i]);
        out[i] = c == ' ' || short_char(c) ? (uint8_t)c : '_';
    }
    if (!*label)
        memcpy(out, no_name, FAT_SHORT_NAME);
    return *label != 0;
}
