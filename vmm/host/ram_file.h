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
/* fd's first size bytes mapped copy-on-write over at (MAP_FIXED): the
 * file is never written, and only the pages the guest touches are read.
 * If the file is cut short in place while mapped, handover's next access
 * past its end ends the process with exit_status and a line saying why,
 * not a crash (a vCPU's gets EFAULT from KVM_RUN). 0, or -1 with errno. */
int ram_file_map(int fd, void *at, uint64_t size, int exit_status);
/* All len bytes at offset at, however many pwrites it takes: 0, or -1 with errno. */
int file_pwrite_all(int fd, const uint8_t *p, size_t len, uint64_t at);
/* PATH opened to read without blocking (a FIFO's open() would wait for a
 * writer forever), its stat in *st: the fd, or -1 with errno. The caller
 * checks st->st_mode: a FIFO opens, and is not a file to read. */
int file_open_nonblocking(const char *path, struct stat *st);

#endif
