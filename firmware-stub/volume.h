/* A volume as the firmware serves it to the guest (--esp DIR): a tree of
 * directories and files held in host memory, names in UCS-2, looked up
 * as FAT does (case-insensitively, the letters of ASCII and Latin-1
 * folded as EDK2's FAT driver folds them). The host folder
 * is read into a base volume once, before the guest runs
 * (vmm/host/esp_dir.c); the firmware works on a copy of it, whose guest
 * writes (the overlay) are its own and never reach the host. Pure: no
 * file system calls. */
#ifndef HANDOVER_VOLUME_H
#define HANDOVER_VOLUME_H

#include <stdbool.h>
#include <stdint.h>

#define VOLUME_NAME_MAX    255            /* UCS-2 characters of a name, as FAT's long names */
#define VOLUME_PATH_MAX    1024           /* UCS-2 characters of a path the guest gives */
#define VOLUME_NODES_MAX   4096           /* files and directories, the root included */
#define VOLUME_DEPTH_MAX   16             /* directories below the root */
#define VOLUME_FILE_MAX    (256ULL << 20) /* bytes of one file */
#define VOLUME_BASE_MAX    (1ULL << 30)   /* bytes of all the host folder's files */
#define VOLUME_OVERLAY_MAX (64ULL << 20)  /* bytes the guest may write; then EFI_VOLUME_FULL */
#define VOLUME_ROOT        0

/* EFI_FILE_INFO.Attribute bits (UEFI 2.10 section 13.5.16). */
#define VOLUME_ATTR_READ_ONLY 0x01ULL
#define VOLUME_ATTR_HIDDEN    0x02ULL
#define VOLUME_ATTR_SYSTEM    0x04ULL
#define VOLUME_ATTR_DIRECTORY 0x10ULL
#define VOLUME_ATTR_ARCHIVE   0x20ULL
#define VOLUME_ATTR_VALID     0x37ULL

struct volume_node {
    uint16_t *name;          /* NUL-terminated UCS-2; "" for the root */
    unsigned parent;         /* the root is its own parent */
    bool dir;
    bool deleted;            /* by the guest: its index stays, unused */
    uint64_t attribute;      /* VOLUME_ATTR_* */
    int64_t mtime;           /* seconds since the epoch, UTC */
    const uint8_t *data;     /* size bytes */
    uint64_t size;
    bool overlay;            /* data is this volume's own copy (guest writes) */
};

struct volume {
    struct volume_node *node;
    unsigned n, cap;
    bool owns_base;          /* the base volume: it frees the data the host read */
    uint64_t base_bytes;     /* bytes of the host's files */
    uint64_t overlay_bytes;  /* bytes of the guest's own copies */
    uint16_t label[32];      /* EFI_FILE_SYSTEM_VOLUME_LABEL */
};

/* What a path names, from volume_resolve. */
enum volume_found {
    VOLUME_FOUND,            /* node */
    VOLUME_LAST_MISSING,     /* all but the last component: parent and last/last_len say where to create it */
    VOLUME_MISSING,          /* a directory on the way is missing, or is a file */
    VOLUME_ABOVE_ROOT,       /* ".." above the root */
    VOLUME_BAD_NAME,         /* a component longer than VOLUME_NAME_MAX */
};

struct volume_lookup {
    enum volume_found found;
    unsigned node, parent;
    const uint16_t *last;    /* into the path: the last component */
    unsigned last_len;
    bool dir_named;          /* the path ends in '\': it names a directory */
};

/* An empty base volume: the root directory only, with mtime. -1 if out
 * of memory. */
int volume_init(struct volume *vol, int64_t mtime);
void volume_free(struct volume *vol);
/* dst becomes a copy of src: its own names and overlay data, src's base
 * data shared (the base volume outlives every copy). -1 if out of memory. */
int volume_copy(struct volume *dst, const struct volume *src);
/* Host memory a copy holds besides the base data. */
uint64_t volume_copy_bytes(const struct volume *vol);

/* Add a child of the directory parent (a name volume_name_valid takes,
 * none of its siblings' names however cased). A file's data is taken
 * over: owned by the base volume, or by a copy as overlay data. The
 * node's index, or -1. */
long volume_add(struct volume *vol, unsigned parent, const uint16_t *name, unsigned name_len, bool dir,
                uint8_t *data, uint64_t size, int64_t mtime);
/* The child of dir named name (name_len characters), or -1. */
long volume_child(const struct volume *vol, unsigned dir, const uint16_t *name, unsigned name_len);
/* Resolve a path, NUL-terminated UCS-2 of '\'-separated components, from
 * the directory from ('\' first: from the root). Empty components and
 * "." stay where they are; ".." goes to the parent, never above the root.
 * A path ending in '\' names a directory: a file there is VOLUME_MISSING. */
void volume_resolve(const struct volume *vol, unsigned from, const uint16_t *path, struct volume_lookup *out);
/* The live child of dir after index `after` (0: the first), or -1: a
 * directory's entries in order, for Read. */
long volume_next_child(const struct volume *vol, unsigned dir, unsigned after);
/* Guest writes, to the copy's overlay: write len bytes at pos (the file
 * grows, zero-filled), or truncate/extend to size. 0, or -1 when the file
 * would pass VOLUME_FILE_MAX or the overlay VOLUME_OVERLAY_MAX, or memory
 * runs out. */
int volume_write(struct volume *vol, unsigned node, uint64_t pos, const uint8_t *buf, uint64_t len);
int volume_set_size(struct volume *vol, unsigned node, uint64_t size);
/* A new name (in the same directory); -1 if a sibling has it or it is
 * invalid (volume_may_rename false), or memory runs out. */
bool volume_may_rename(const struct volume *vol, unsigned node, const uint16_t *name, unsigned name_len);
int volume_rename(struct volume *vol, unsigned node, const uint16_t *name, unsigned name_len);
/* Delete a file or an empty directory (not the root); -1 otherwise. */
int volume_delete(struct volume *vol, unsigned node);
/* Whether a volume may hold the name (len characters): 1 to
 * VOLUME_NAME_MAX of them, not "." or "..", no control character and none
 * of " * / : < > ? \ | (none of which FAT's long names may hold either). */
bool volume_name_valid(const uint16_t *name, unsigned len);
/* Characters of a NUL-terminated UCS-2 string. */
unsigned volume_name_len(const uint16_t *s);

#endif
