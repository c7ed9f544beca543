#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

/* open() that never blocks (a FIFO, a device); -1 logged. */
static int open_nonblocking(const char *what, const char *path, int flags)
{
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
    if (fd < 0)
        vmm_log("%s %s: %s%s", what, path, strerror(errno), errno == ENXIO ? " (a FIFO with no reader)" : "");
    return fd;
}

/* A blocking stream over fd; NULL (fd closed) logged. */
static FILE *blocking_stream(const char *what, const char *path, int fd, const char *mode)
{
    int fl = fcntl(fd, F_GETFL);
    FILE *f = fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ? NULL : fdopen(fd, mode);
    if (!f) {
        vmm_log("%s %s: %s", what, path, strerror(errno));
        close(fd);
    }
    return f;
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Checked before it is opened: opening a device node can act on it (a
 * watchdog is armed by its open, O_NONBLOCK or not), and a FIFO's writer
 * wakes. Symlinks are followed (the library directories are full of
 * them); what is opened must be the regular file stat found. */
FILE *vmm_open_input(const char *what, const char *path)
{
    struct stat found, opened;
    if (stat(path, &found) < 0) {
        vmm_log("%s %s: %s", what, path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(found.st_mode)) {
        vmm_log("%s %s: not a regular file", what, path);
        return NULL;
    }
    int fd = open_nonblocking(what, path, O_RDONLY);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &opened) < 0 || !same_inode(&found, &opened)) {
        vmm_log("%s %s: replaced while it was being opened", what, path);
        close(fd);
        return NULL;
    }
    return blocking_stream(what, path, fd, "rb");
}

FILE *vmm_open_output(const char *what, const char *path)
{
    int fd = open_nonblocking(what, path, O_WRONLY | O_CREAT | O_TRUNC);
    return fd < 0 ? NULL : blocking_stream(what, path, fd, "w");
}

/* The output's absolute path, every symlink resolved: the file's own if
 * it exists, else its directory's and its name, where open() creates it.
 * False if neither resolves (the open then fails on its own). */
static bool resolved_output(const char *path, char out[PATH_MAX])
{
    if (realpath(path, out))
        return true;
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if ((size_t)(slash - path) >= sizeof(dir))
        return false;
    else
        snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    char real_dir[PATH_MAX];
    if (!realpath(dir, real_dir))
        return false;
    const char *name = slash ? slash + 1 : path;
    return snprintf(out, PATH_MAX, "%s/%s", strcmp(real_dir, "/") ? real_dir : "", name) < PATH_MAX;
}

/* Whether the resolved path lies under the resolved directory dir. */
static bool path_within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return !strcmp(dir, "/") || (!strncmp(path, dir, n) && path[n] == '/');
}

bool vmm_output_clobbers(const char *what, const char *path, const struct named_path *named, unsigned n)
{
    struct stat out, other;
    /* Not a regular file: created by the open, or a device or FIFO several
     * outputs may share. */
    bool regular = stat(path, &out) == 0 && S_ISREG(out.st_mode);
    char real[PATH_MAX], dir[PATH_MAX];
    bool resolved = resolved_output(path, real);
    for (unsigned i = 0; i < n; i++) {
        if (!named[i].path || !strcmp(named[i].what, what))
            continue;
        if (named[i].dir) {
            if (!resolved || !realpath(named[i].path, dir) || !path_within(real, dir))
                continue;
            vmm_log("%s %s: inside %s %s, a directory the run reads: give a file outside it", what, path,
                    named[i].what, named[i].path);
            return true;
        }
        if (!regular || stat(named[i].path, &other) < 0 || !same_inode(&out, &other))
            continue;
        vmm_log("%s %s: the same file as %s %s, which opening it would overwrite: give another file", what, path,
                named[i].what, named[i].path);
        return true;
    }
    return false;
}

int vmm_reserve_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0)
            continue;
        int n = open("/dev/null", O_RDWR);
        if (n != fd) {
            if (n >= 0)
                close(n);
            return -1;
        }
    }
    return 0;
}
