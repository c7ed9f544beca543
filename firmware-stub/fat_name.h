/* FAT's names (Microsoft's FAT specification, "fatgen103", sections 6
 * and 7): the 8.3 short name every directory entry has, the long-name
 * (VFAT) entries before it for a name that is not one, and the volume
 * label. Pure: strings in, bytes out. */
#ifndef HANDOVER_FW_FAT_NAME_H
#define HANDOVER_FW_FAT_NAME_H

#include <stdbool.h>
#include <stdint.h>

#define FAT_DIR_ENTRY_SIZE 32   /* bytes of a directory entry, short or long */
#define FAT_SHORT_NAME     11   /* DIR_Name: 8 + 3 characters, space-padded, no dot */
#define FAT_LFN_CHARS      13   /* UCS-2 characters a long-name entry holds */
#define FAT_ATTR_LONG_NAME 0x0f

/* The short names of a directory's n children, names[i] of lens[i] UCS-2
 * characters each (unique however cased, as a volume's siblings are), into
 * short_name[i]: a valid upper-case 8.3 name as it is (long_name[i] false);
 * a name that is one but for case upper-cased; any other a basis name with
 * the first "~N" tail no sibling has (fatgen103 section 7: the numeric
 * tail). long_name[i] then says it needs long-name entries. -1 if memory
 * runs out. */
int fat_short_names(const uint16_t *const *names, const unsigned *lens, unsigned n,
                    uint8_t (*short_name)[FAT_SHORT_NAME], bool *long_name);

/* How many long-name entries a name of len characters takes. */
unsigned fat_lfn_entries(unsigned len);
/* Its long-name entries, fat_lfn_entries(len) * FAT_DIR_ENTRY_SIZE bytes
 * into out, in the order they precede the short entry (the last part
 * first, its ordinal flagged 0x40), each with the short name's checksum. */
void fat_lfn_write(uint8_t *out, const uint16_t *name, unsigned len, const uint8_t short_name[FAT_SHORT_NAME]);
/* The checksum long-name entries carry of their short name (fatgen103
 * section 7). */
uint8_t fat_short_name_checksum(const uint8_t short_name[FAT_SHORT_NAME]);

/* The volume label from a NUL-terminated UCS-2 string: leading spaces
 * left out, upper-cased, a character a label may not hold as '_',
 * space-padded; "NO NAME" when nothing is left (fatgen103 section 3.1,
 * BS_VolLab). False then. */
bool fat_label(const uint16_t *label, uint8_t out[FAT_SHORT_NAME]);

#endif
