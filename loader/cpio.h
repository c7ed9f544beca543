/* Writing "newc" cpio archives (the initramfs format the kernel unpacks,
 * Documentation/driver-api/early-userspace/buffer-format.rst). Archives
 * may be concatenated: the kernel unpacks each in turn. */
#ifndef HANDOVER_CPIO_H
#define HANDOVER_CPIO_H

#include <stdbool.h>
#include <stddef.h>

/* An archive being built in a growing buffer. */
struct cpio_builder {
    char *buf;
    size_t len, cap, max;   /* max: the archive may not grow beyond it */
    unsigned ino;
    bool failed;            /* out of memory, past max, or a bad entry */
};

void cpio_begin(struct cpio_builder *b, size_t max);
/* A name the kernel unpacks where it says: relative, not empty, no empty,
 * "." or ".." component. Entries with any other name fail the archive. */
bool cpio_name_safe(const char *name);
/* A directory (mode 0755); the kernel needs a file's parent directories
 * before the file. */
void cpio_add_dir(struct cpio_builder *b, const char *name);
/* A regular file with the given permission bits (e.g. 0755). */
void cpio_add_file(struct cpio_builder *b, const char *name, unsigned perm, const void *data, size_t len);
/* A symbolic link to target (as readlink gives it: relative to the
 * link's directory, or absolute in the guest), 1 to 4095 bytes. */
void cpio_add_symlink(struct cpio_builder *b, const char *name, const char *target);
/* The trailer: returns the archive's size, 0 if anything failed. */
size_t cpio_end(struct cpio_builder *b);
void cpio_free(struct cpio_builder *b);

#endif
