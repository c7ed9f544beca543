/* --snapshot's RAM file (vmm/tools/warm_boot.h): guest RAM written sparse. */
#ifndef HANDOVER_RAM_FILE_H
#define HANDOVER_RAM_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* size bytes of ram into fd from offset 0: the file's size is set first,
 * and each 4 KiB page of zeros is left out, a hole that reads as zeros and
 * takes no disk. *written: the bytes written. 0, or -1 with errno. */
int ram_file_write(int fd, const uint8_t *ram, uint64_t size, uint64_t *written);
/* The RAM file of size bytes copied into ram, which reads as zeros: only
 * the file's data is read (SEEK_DATA/SEEK_HOLE), its holes are left as
 * the zeros they stand for. A copy, not a mapping of the file: pages of a
 * mapping past a file cut short while the guest runs raise SIGBUS, and
 * pages not yet touched would read what another writer put there since.
 * 0, or -1 with errno: EINVAL if fd is not a regular file of size bytes,
 * EIO if its size changed while it was read. */
int ram_file_read(int fd, uint8_t *ram, uint64_t size);
/* All len bytes at offset at, however many pwrites it takes: 0, or -1 with errno. */
int file_pwrite_all(int fd, const uint8_t *p, size_t len, uint64_t at);
/* PATH opened to read without blocking (a FIFO's open() would wait for a
 * writer forever), its stat in *st: the fd, or -1 with errno. The caller
 * checks st->st_mode: a FIFO opens, and is not a file to read. */
int file_open_nonblocking(const char *path, struct stat *st);

#endif
