/* libFuzzer harness for the archive --exec and --add build (loader/cpio.c,
 * which vmm/host/add_files.c feeds with the guest paths a user gives as
 * --add HOST:GUEST and with the names an added program's ELF brings):
 * cpio_name_safe, cpio_add_dir, cpio_add_file and cpio_end, read back by
 * a reference newc reader (the kernel's init/initramfs.c rules,
 * Documentation/driver-api/early-userspace/buffer-format.rst).
 *
 * Input format: a u32 limit (the builder's max, % 1 MiB), then entries
 * until the input ends: a kind byte (bit 0: a file, else a directory;
 * bits 1-7 with the next byte: the file's permission bits), a name (bytes
 * up to a NUL or the input's end, at most 8191, so that names past the
 * 4096-byte limit are tried), and for a file a u16 length L and L bytes.
 *
 * Checks, from cpio.h: cpio_name_safe agrees with a reference walk of the
 * components; the archive fails exactly when a name is unsafe or longer
 * than newc allows or the entries pass the limit; else cpio_end returns
 * its size, at most the limit, and the archive reads back as the entries
 * in order (magic, each field hex, inode numbers counting up from 1, the
 * mode and size given, the name with its NUL, data at 4-byte alignment),
 * ending in TRAILER!!! at exactly that size. abort() otherwise. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../loader/cpio.h"
#include "fuzz_harness.h"
#include "fuzz_input.h"

#define NAME_MAX_READ 8191
#define NEWC_NAME_MAX 4096
#define NEWC_HEADER 110
#define ENTRIES_MAX 64
#define ALIGN4(x) (((x) + 3) & ~(size_t)3)

struct entry {
    bool file;
    unsigned perm;
    char name[NAME_MAX_READ + 1];
    const uint8_t *data;
    size_t len;
};

static bool reference_safe(const char *name)
{
    const char *c = name;
    for (;;) {
        const char *slash = strchr(c, '/');
        size_t n = slash ? (size_t)(slash - c) : strlen(c);
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return false;
        if (!slash)
            return true;
        c = slash + 1;
    }
}

static unsigned long field(const char *hdr, unsigned i)
{
    char hex[9];
    memcpy(hex, hdr + 6 + 8 * i, 8);
    hex[8] = 0;
    for (unsigned k = 0; k < 8; k++)
        CHECK((hex[k] >= '0' && hex[k] <= '9') || (hex[k] >= 'A' && hex[k] <= 'F'));
    return strtoul(hex, NULL, 16);
}

/* The entry at *at: its mode, name and data as the kernel reads them. */
static void read_entry(const char *a, size_t size, size_t *at, unsigned ino, unsigned mode, const char *name,
                       const void *data, size_t len)
{
    CHECK(size - *at >= NEWC_HEADER);
    const char *hdr = a + *at;
    CHECK(!memcmp(hdr, "070701", 6));
    CHECK(field(hdr, 0) == ino && field(hdr, 1) == mode && field(hdr, 6) == len);
    size_t namesize = field(hdr, 11);
    CHECK(namesize == strlen(name) + 1);
    CHECK(size - *at >= ALIGN4(NEWC_HEADER + namesize));
    CHECK(!memcmp(hdr + NEWC_HEADER, name, namesize));
    *at += ALIGN4(NEWC_HEADER + namesize);
    CHECK(size - *at >= ALIGN4(len));
    CHECK(!len || !memcmp(a + *at, data, len));
    *at += ALIGN4(len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct entry e[ENTRIES_MAX];
    struct fuzz_in in = { data, size };
    size_t max = in_u32(&in) % (1u << 20);
    unsigned n = 0;
    while (in.n && n < ENTRIES_MAX) {
        struct entry *x = &e[n++];
        uint8_t kind = in_u8(&in);
        x->file = kind & 1;
        x->perm = (unsigned)(kind >> 1) << 8 | in_u8(&in);
        size_t k = 0;
        while (in.n && k < NAME_MAX_READ && *in.p)
            x->name[k++] = (char)in_u8(&in);
        x->name[k] = 0;
        in_u8(&in);   /* the NUL */
        x->len = 0;
        x->data = in.p;
        if (x->file) {
            x->len = in_u16(&in);
            x->data = in.p;
            if (x->len > in.n)
                x->len = in.n;
            in.p += x->len;
            in.n -= x->len;
        }
    }

    struct cpio_builder b;
    cpio_begin(&b, max);
    bool fails = false;
    size_t need = 0;
    for (unsigned i = 0; i < n; i++) {
        bool safe = cpio_name_safe(e[i].name);
        CHECK(safe == reference_safe(e[i].name));
        size_t namesize = strlen(e[i].name) + 1;
        need += ALIGN4(NEWC_HEADER + namesize) + ALIGN4(e[i].len);
        fails |= !safe || namesize > NEWC_NAME_MAX || need > max;
        if (e[i].file)
            cpio_add_file(&b, e[i].name, e[i].perm, e[i].data, e[i].len);
        else
            cpio_add_dir(&b, e[i].name);
        CHECK(b.failed == fails);
    }
    need += ALIGN4(NEWC_HEADER + sizeof("TRAILER!!!"));
    fails |= need > max;
    size_t len = cpio_end(&b);
    CHECK(b.failed == fails);
    if (fails) {
        CHECK(len == 0);
    } else {
        CHECK(len == need && len <= max && len == b.len);
        size_t at = 0;
        for (unsigned i = 0; i < n; i++) {
            unsigned mode = e[i].file ? 0100000u | (e[i].perm & 07777u) : 0040755u;
            read_entry(b.buf, len, &at, i + 1, mode, e[i].name, e[i].data, e[i].len);
        }
        read_entry(b.buf, len, &at, 0, 0, "TRAILER!!!", NULL, 0);
        CHECK(at == len);
    }
    cpio_free(&b);
    return 0;
}
