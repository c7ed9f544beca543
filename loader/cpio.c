#include "cpio.h"

#include <stdio.h>
#include <string.h>

#define NEWC_HEADER 110   /* "070701" and 13 eight-digit hex fields */
#define ALIGN4(x) (((x) + 3) & ~(size_t)3)

static size_t entry_size(const char *name, size_t len)
{
    return ALIGN4(NEWC_HEADER + strlen(name) + 1) + ALIGN4(len);
}

static size_t put_entry(char *p, unsigned ino, unsigned mode, const char *name, const void *data, size_t len)
{
    size_t namesize = strlen(name) + 1;
    char hdr[2 * NEWC_HEADER];
    snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", ino, mode, 0u, 0u,
             1u, 0u, (unsigned)len, 0u, 0u, 0u, 0u, (unsigned)namesize, 0u);
    size_t n = ALIGN4(NEWC_HEADER + namesize);
    memset(p, 0, n + ALIGN4(len));
    memcpy(p, hdr, NEWC_HEADER);
    memcpy(p + NEWC_HEADER, name, namesize);
    if (len)
        memcpy(p + n, data, len);
    return n + ALIGN4(len);
}

size_t cpio_file_archive_size(const char *name, size_t len)
{
    return entry_size(name, len) + entry_size("TRAILER!!!", 0);
}

size_t cpio_file_archive(void *buf, size_t cap, const char *name, const void *data, size_t len)
{
    size_t need = cpio_file_archive_size(name, len);
    if (need > cap || len > 0xffffffffu || strlen(name) > 4096)
        return 0;
    char *p = buf;
    p += put_entry(p, 1, 0100644, name, data, len);
    put_entry(p, 0, 0, "TRAILER!!!", NULL, 0);
    return need;
}
