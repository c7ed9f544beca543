#include "cpio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEWC_HEADER 110   /* "070701" and 13 eight-digit hex fields */
#define NEWC_NAME_MAX 4096
#define MODE_FILE 0100000u
#define MODE_DIR  0040000u
#define MODE_LINK 0120000u
#define ALIGN4(x) (((x) + 3) & ~(size_t)3)

void cpio_begin(struct cpio_builder *b, size_t max)
{
    memset(b, 0, sizeof(*b));
    b->max = max;
}

/* The kernel's init/initramfs.c creates each name relative to / as it
 * stands: a ".." component would climb out of where the name says. */
bool cpio_name_safe(const char *name)
{
    for (const char *c = name;; c++) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        c += n;
        if (!*c)
            return true;
    }
}

static void put_entry(struct cpio_builder *b, unsigned mode, const char *name, const void *data, size_t len)
{
    size_t namesize = strlen(name) + 1;
    if (b->failed || namesize > NEWC_NAME_MAX || len > 0xffffffffu || !cpio_name_safe(name)) {
        b->failed = true;
        return;
    }
    size_t n = ALIGN4(NEWC_HEADER + namesize), need = n + ALIGN4(len);
    if (need > b->max - b->len || need + b->len < need) {
        b->failed = true;
        return;
    }
    if (b->len + need > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + need)
            cap *= 2;
        char *p = realloc(b->buf, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->buf = p;
        b->cap = cap;
    }
    char *p = b->buf + b->len;
    char hdr[2 * NEWC_HEADER];
    unsigned ino = mode ? ++b->ino : 0;
    snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", ino, mode, 0u, 0u,
             (mode & MODE_DIR) ? 2u : 1u, 0u, (unsigned)len, 0u, 0u, 0u, 0u, (unsigned)namesize, 0u);
    memset(p, 0, need);
    memcpy(p, hdr, NEWC_HEADER);
    memcpy(p + NEWC_HEADER, name, namesize);
    if (len)
        memcpy(p + n, data, len);
    b->len += need;
}

void cpio_add_dir(struct cpio_builder *b, const char *name)
{
    put_entry(b, MODE_DIR | 0755u, name, NULL, 0);
}

void cpio_add_file(struct cpio_builder *b, const char *name, unsigned perm, const void *data, size_t len)
{
    put_entry(b, MODE_FILE | (perm & 07777u), name, data, len);
}

/* newc keeps a link's target as its data, without a NUL; the kernel skips
 * a target longer than PATH_MAX (init/initramfs.c, do_header). */
void cpio_add_symlink(struct cpio_builder *b, const char *name, const char *target)
{
    size_t len = strlen(target);
    if (!len || len >= NEWC_NAME_MAX) {
        b->failed = true;
        return;
    }
    put_entry(b, MODE_LINK | 0777u, name, target, len);
}

size_t cpio_end(struct cpio_builder *b)
{
    put_entry(b, 0, "TRAILER!!!", NULL, 0);
    return b->failed ? 0 : b->len;
}

void cpio_free(struct cpio_builder *b)
{
    free(b->buf);
    memset(b, 0, sizeof(*b));
}
