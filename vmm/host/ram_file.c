#include "ram_file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#define PAGE 4096u
#define RUN_MAX (8u << 20)   /* bytes per pwrite */

static bool page_zero(const uint8_t *p, size_t len)
{
    const uint64_t *q = (const uint64_t *)(const void *)p;
    for (size_t i = 0; i < len / 8; i++)
        if (q[i])
            return false;
    for (size_t i = len & ~(size_t)7; i < len; i++)
        if (p[i])
            return false;
    return true;
}

/* All len bytes at offset at, read (into p) or written (from it), however
 * many calls it takes; a file that ends before them is EIO. p is only
 * read when writing, so a const buffer may be passed for that. */
static int file_io_all(int fd, uint8_t *p, size_t len, uint64_t at, bool writing)
{
    while (len) {
        ssize_t n = writing ? pwrite(fd, p, len, (off_t)at) : pread(fd, p, len, (off_t)at);
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
        at += (uint64_t)n;
    }
    return 0;
}

int file_pwrite_all(int fd, const uint8_t *p, size_t len, uint64_t at)
{
    return file_io_all(fd, (uint8_t *)p, len, at, true);
}

int ram_file_write(int fd, const uint8_t *ram, uint64_t size, uint64_t *written)
{
    if (ftruncate(fd, (off_t)size))
        return -1;
    *written = 0;
    for (uint64_t at = 0; at < size;) {
        size_t len = size - at < PAGE ? (size_t)(size - at) : PAGE;
        if (page_zero(ram + at, len)) {
            at += len;
            continue;
        }
        uint64_t end = at + len;
        while (end < size && end - at < RUN_MAX && size - end >= PAGE && !page_zero(ram + end, PAGE))
            end += PAGE;
        if (file_pwrite_all(fd, ram + at, (size_t)(end - at), at))
            return -1;
        *written += end - at;
        at = end;
    }
    return 0;
}

static bool regular_of_size(int fd, uint64_t size)
{
    struct stat st;
    return !fstat(fd, &st) && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size;
}

int ram_file_read(int fd, uint8_t *ram, uint64_t size)
{
    if (!regular_of_size(fd, size)) {
        errno = EINVAL;
        return -1;
    }
    for (uint64_t at = 0; at < size;) {
        off_t data = lseek(fd, (off_t)at, SEEK_DATA);
        if (data < 0 && errno == ENXIO)
            break;   /* holes to the end */
        off_t hole = data < 0 ? -1 : lseek(fd, data, SEEK_HOLE);
        if (hole < 0)
            return -1;
        uint64_t end = (uint64_t)hole < size ? (uint64_t)hole : size;
        if ((uint64_t)data >= end)
            break;
        if (file_io_all(fd, ram + data, (size_t)(end - (uint64_t)data), (uint64_t)data, false))
            return -1;
        at = end;
    }
    /* Cut short while read, its end is a hole to SEEK_DATA; grown, it is no longer this RAM. */
    if (!regular_of_size(fd, size)) {
        errno = EIO;
        return -1;
    }
    return 0;
}

int file_open_nonblocking(const char *path, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && fstat(fd, st)) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}
