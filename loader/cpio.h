/* Writing "newc" cpio archives (the initramfs format the kernel unpacks,
 * Documentation/driver-api/early-userspace/buffer-format.rst). Archives
 * may be concatenated: the kernel unpacks each in turn. */
#ifndef HANDOVER_CPIO_H
#define HANDOVER_CPIO_H

#include <stddef.h>

/* Bytes an archive holding one regular file and the trailer needs. */
size_t cpio_file_archive_size(const char *name, size_t len);
/* Write that archive into buf (cap bytes); returns its size, 0 if it does
 * not fit. The file gets mode 0644, owner root. */
size_t cpio_file_archive(void *buf, size_t cap, const char *name, const void *data, size_t len);

#endif
