/* Reading the --esp folder (esp_dir.h). Directories are read in name
 * order, so the guest sees the same volume from the same folder. */
#include "esp_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* A directory as the host knows it, whatever path led to it. */
struct dir_id {
    dev_t dev;
    ino_t ino;
};

struct reader {
    const char *dir;
    int root;                    /* DIR, every open is beneath it */
    struct dir_id open_dirs[VOLUME_DEPTH_MAX + 1];   /* the directories being read, by depth: DIR first */
    struct volume *vol;
    void (*note)(const char *line);
    char *err;
    size_t errlen;
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static void left_out(struct reader *r, const char *rel, const char *why)
{
    char line[PATH_MAX + 160];
    snprintf(line, sizeof(line), "--esp %s: %s: %s: left out", r->dir, rel, why);
    if (r->note)
        r->note(line);
}

/* rel (relative to DIR) opened beneath DIR: no "..", absolute or
 * /proc symlink leads out (openat2(2)). O_NONBLOCK: a FIFO never blocks. */
static int open_beneath(int root, const char *rel, int flags)
{
    struct open_how how = { .flags = (uint64_t)(flags | O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK),
                            .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
    return (int)syscall(SYS_openat2, root, rel, &how, sizeof(how));
}

/* A name as UCS-2, strictly: -1 for bytes that are not UTF-8, or a
 * character outside the BMP. */
static long ucs2_name(const char *s, uint16_t *out, unsigned max)
{
    const unsigned char *p = (const unsigned char *)s;
    unsigned n = 0;
    while (*p) {
        unsigned len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : 0;
        if (!len || n >= max)
            return -1;
        uint32_t c = len == 1 ? *p : *p & (0x7f >> len);
        for (unsigned i = 1; i < len; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return -1;
            c = c << 6 | (p[i] & 0x3f);
        }
        if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (c >= 0xd800 && c <= 0xdfff))
            return -1;
        out[n++] = (uint16_t)c;
        p += len;
    }
    return n;
}

static int read_file(struct reader *r, int fd, const char *rel, uint64_t size, uint8_t **out)
{
    if (size > VOLUME_FILE_MAX)
        return fail(r, "--esp %s: %s: %llu bytes, more than a file may have (%llu MiB)", r->dir, rel,
                    (unsigned long long)size, VOLUME_FILE_MAX >> 20);
    if (r->vol->base_bytes + size > VOLUME_BASE_MAX)
        return fail(r, "--esp %s: the files come to more than %llu MiB", r->dir, VOLUME_BASE_MAX >> 20);
    uint8_t *data = malloc(size ? size : 1);
    if (!data)
        return fail(r, "--esp %s: %s: out of memory", r->dir, rel);
    for (uint64_t got = 0; got < size;) {
        ssize_t n = pread(fd, data + got, size - got, (off_t)got);
        if (n <= 0) {
            free(data);
            return fail(r, "--esp %s: %s: %s", r->dir, rel, n ? strerror(errno) : "shorter than it was");
        }
        got += (uint64_t)n;
    }
    *out = data;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in the directory at rel, sorted; NULL with err set. */
static char **list(struct reader *r, int fd, const char *rel, size_t *count)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        fail(r, "--esp %s: %s: %s", r->dir, rel, strerror(errno));
        return NULL;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **more = cap <= VOLUME_NODES_MAX * 2 ? realloc(names, cap * sizeof(*names)) : NULL;
            if (!more)
                goto failed;
            names = more;
        }
        if (!(names[n] = strdup(e->d_name)))
            goto failed;
        n++;
    }
    if (errno)
        goto failed;
    closedir(d);
    if (n)   /* an empty folder has no array: qsort's base may not be NULL */
        qsort(names, n, sizeof(*names), by_name);
    *count = n;
    return names ? names : calloc(1, sizeof(*names));
failed:
    fail(r, "--esp %s: %s: cannot list it (%s)", r->dir, rel, errno ? strerror(errno) : "too many entries");
    while (n)
        free(names[--n]);
    free(names);
    closedir(d);
    return NULL;
}

static int read_dir(struct reader *r, const char *rel, unsigned parent, unsigned depth);

/* Whether st is DIR or a directory below it that is being read, at
 * depth or above: followed, a symlink to it would copy the folder into
 * itself until a bound refused the whole folder. */
static bool being_read(const struct reader *r, const struct stat *st, unsigned depth)
{
    for (unsigned i = 0; i <= depth; i++)
        if (r->open_dirs[i].dev == st->st_dev && r->open_dirs[i].ino == st->st_ino)
            return true;
    return false;
}

/* One entry of a directory: added to parent, or left out. */
static int read_entry(struct reader *r, const char *rel, const char *name, unsigned parent, unsigned depth)
{
    struct stat st;
    uint16_t uname[VOLUME_NAME_MAX];
    long ulen = ucs2_name(name, uname, VOLUME_NAME_MAX);
    if (ulen < 0) {
        left_out(r, rel, "its name is not UTF-8 of at most 255 UCS-2 characters");
        return 0;
    }
    if (!volume_name_valid(uname, (unsigned)ulen)) {
        left_out(r, rel, "its name holds a character FAT names cannot hold "
                         "(a control character or one of \" * : < > ? \\ |)");
        return 0;
    }
    /* The type of what the path leads to (a symlink followed), checked
     * before anything is opened: a device node never is. */
    if (fstatat(r->root, rel, &st, 0)) {
        left_out(r, rel, errno == ENOENT ? "a dangling symlink" : strerror(errno));
        return 0;
    }
    if (!(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
        left_out(r, rel, "not a regular file or a directory");
        return 0;
    }
    int fd = open_beneath(r->root, rel, S_ISDIR(st.st_mode) ? O_DIRECTORY : 0);
    if (fd < 0) {
        if (errno == EXDEV || errno == ELOOP) {
            left_out(r, rel, "a symlink leading out of the folder");
            return 0;
        }
        return fail(r, "--esp %s: %s: %s", r->dir, rel, strerror(errno));
    }
    if (fstat(fd, &st) || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
        close(fd);
        left_out(r, rel, "not a regular file or a directory");
        return 0;
    }
    if (S_ISDIR(st.st_mode) && being_read(r, &st, depth)) {
        close(fd);
        left_out(r, rel, "a symlink back to a directory it is in (a loop)");
        return 0;
    }
    if (volume_child(r->vol, parent, uname, (unsigned)ulen) >= 0) {
        close(fd);
        left_out(r, rel, "another entry has this name but for case");
        return 0;
    }
    if (r->vol->n >= VOLUME_NODES_MAX) {
        close(fd);
        return fail(r, "--esp %s: more than %u files and directories", r->dir, VOLUME_NODES_MAX - 1);
    }
    uint8_t *data = NULL;
    bool dir = S_ISDIR(st.st_mode);
    if (!dir && read_file(r, fd, rel, (uint64_t)st.st_size, &data)) {
        close(fd);
        return -1;
    }
    close(fd);
    long node = volume_add(r->vol, parent, uname, (unsigned)ulen, dir, data, dir ? 0 : (uint64_t)st.st_size,
                           (int64_t)st.st_mtime);
    if (node < 0) {
        free(data);
        return fail(r, "--esp %s: %s: cannot add it to the volume (out of memory)", r->dir, rel);
    }
    return dir ? read_dir(r, rel, (unsigned)node, depth + 1) : 0;
}

static int read_dir(struct reader *r, const char *rel, unsigned parent, unsigned depth)
{
    if (depth > VOLUME_DEPTH_MAX)
        return fail(r, "--esp %s: %s: more than %u levels of directories", r->dir, rel, VOLUME_DEPTH_MAX);
    struct stat st;
    int fd = open_beneath(r->root, rel, O_DIRECTORY);
    if (fd < 0 || fstat(fd, &st)) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return fail(r, "--esp %s: %s: %s", r->dir, rel, strerror(e));
    }
    r->open_dirs[depth] = (struct dir_id){ st.st_dev, st.st_ino };
    size_t n = 0;
    char **names = list(r, fd, rel, &n);
    if (!names)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        char child[PATH_MAX];
        int len = strcmp(rel, ".") ? snprintf(child, sizeof(child), "%s/%s", rel, names[i])
                                   : snprintf(child, sizeof(child), "%s", names[i]);
        if (!rc && (len < 0 || (size_t)len >= sizeof(child)))
            rc = fail(r, "--esp %s: %s/%s: path too long", r->dir, rel, names[i]);
        if (!rc)
            rc = read_entry(r, child, names[i], parent, depth);
        free(names[i]);
    }
    free(names);
    return rc;
}

int esp_dir_read(const char *dir, struct volume *vol, void (*note)(const char *line), char *err, size_t errlen)
{
    struct stat st;
    struct reader r = { .dir = dir, .vol = vol, .note = note, .err = err, .errlen = errlen };
    memset(vol, 0, sizeof(*vol));
    r.root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
    if (r.root < 0)
        return fail(&r, "--esp %s: %s", dir, errno == ENOTDIR ? "not a directory" : strerror(errno));
    int rc = fstat(r.root, &st) ? fail(&r, "--esp %s: %s", dir, strerror(errno))
           : volume_init(vol, (int64_t)st.st_mtime) ? fail(&r, "--esp %s: out of memory", dir)
           : read_dir(&r, ".", VOLUME_ROOT, 0);
    close(r.root);
    return rc;
}

int esp_dir_image_path(const char *dir, const char *image, char *out, size_t len)
{
    char d[PATH_MAX], f[PATH_MAX];
    if (!realpath(dir, d) || !realpath(image, f))
        return -1;
    size_t n = strlen(d);
    if (n == 1)
        n = 0;   /* DIR is / */
    if (strncmp(f, d, n) || f[n] != '/' || strlen(f + n + 1) >= len)
        return -1;
    snprintf(out, len, "%s", f + n + 1);
    return 0;
}
