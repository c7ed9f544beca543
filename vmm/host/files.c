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

/* The run's own stdout or stderr, if st is its file (by inode); else -1. */
static int own_stream(const struct stat *st)
{
    struct stat fd_st;
    for (int fd = STDOUT_FILENO; fd <= STDERR_FILENO; fd++)
        if (fstat(fd, &fd_st) == 0 && same_inode(st, &fd_st))
            return fd;
    return -1;
}

/* A stream over a copy of the descriptor own, which writes where own
 * stands (its offset, O_APPEND and all: one open file description); NULL
 * logged. */
static FILE *through_own_stream(const char *what, const char *path, int own)
{
    int fd = fcntl(own, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        vmm_log("%s %s: %s", what, path, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return f;
}

/* The run's own stdout or stderr (--trace-efi /dev/stderr 2>> ci.log) is
 * written through where it stands: reopened with O_TRUNC, the log the
 * shell opened would lose what it held. */
FILE *vmm_open_output(const char *what, const char *path)
{
    struct stat st;
    int own = stat(path, &st) == 0 ? own_stream(&st) : -1;
    if (own >= 0)
        return through_own_stream(what, path, own);
    int fd = open_nonblocking(what, path, O_WRONLY | O_CREAT | O_TRUNC);
    return fd < 0 ? NULL : blocking_stream(what, path, fd, "w");
}

/* path's directory (everything before its last slash: "/" for a name at
 * the root, "." for a name alone) into dir, and its name; false if the
 * directory is too long. */
static bool split_path(const char *path, char dir[PATH_MAX], const char **name)
{
    const char *slash = strrchr(path, '/');
    size_t len = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    *name = slash ? slash + 1 : path;
    if (len >= PATH_MAX)
        return false;
    snprintf(dir, PATH_MAX, "%.*s", slash ? (int)len : 1, slash ? path : ".");
    return true;
}

/* The output's absolute path, every symlink resolved: the file's own if
 * it exists; else where open(O_CREAT) would create it: a dangling
 * symlink's target (up to the kernel's 40 symlinks), or its directory's
 * path and its name. False if none resolves (the open then fails on its
 * own). */
static bool resolved_output(const char *path, char out[PATH_MAX])
{
    char at[PATH_MAX], dir[PATH_MAX], target[PATH_MAX], real_dir[PATH_MAX];
    const char *name;
    if (snprintf(at, sizeof(at), "%s", path) >= PATH_MAX)
        return false;
    for (int links = 0; !realpath(at, out); links++) {
        if (!split_path(at, dir, &name))
            return false;
        ssize_t n = links < 40 ? readlink(at, target, sizeof(target) - 1) : -1;
        if (n <= 0)
            return realpath(dir, real_dir) &&
                   snprintf(out, PATH_MAX, "%s/%s", strcmp(real_dir, "/") ? real_dir : "", name) < PATH_MAX;
        target[n] = 0;
        int len = target[0] == '/' ? snprintf(at, sizeof(at), "%s", target)
                                   : snprintf(at, sizeof(at), "%s/%s", dir, target);
        if (len >= PATH_MAX)
            return false;
    }
    return true;
}

/* real split into o's directory (opened) and name; -1 with errno. */
static int open_directory(const char *real, struct whole_output *o)
{
    char dir[PATH_MAX];
    const char *name;
    split_path(real, dir, &name);
    if (strlen(name) > NAME_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(o->name, sizeof(o->name), "%s", name);
    snprintf(o->temp, sizeof(o->temp), ".%.200s.handover-%ld", o->name, (long)getpid());
    o->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return o->dir_fd < 0 ? -1 : 0;
}

/* The file the output is written to, in o's directory: unnamed where the
 * file system has O_TMPFILE (open(2)), else named temp from the start (a
 * stale one of an earlier process with this pid is removed, not opened,
 * so that a link left under the name is never written through). */
static int create_temp(struct whole_output *o)
{
    int fd = openat(o->dir_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
        return fd;
    o->named_temp = true;
    if (unlinkat(o->dir_fd, o->temp, 0) && errno != ENOENT)
        return -1;
    return openat(o->dir_fd, o->temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

int vmm_open_whole(const char *what, const char *path, struct whole_output *o)
{
    *o = (struct whole_output){ .dir_fd = -1 };
    struct stat st;
    /* The run's own stdout or stderr (--report /dev/stdout), whatever the
     * shell made it, is written through where it stands: a file the shell
     * opened (> out.json, >> ci.log) renamed over would leave the shell's
     * descriptor, and all written there next, on a file no name reaches.
     * A FIFO or a device cannot be replaced: it is written straight
     * through (and a directory refused by open, as before). */
    if (stat(path, &st) == 0 && (own_stream(&st) >= 0 || !S_ISREG(st.st_mode))) {
        o->f = vmm_open_output(what, path);
        return o->f ? 0 : -1;
    }
    char real[PATH_MAX];
    int fd = -1;
    if (resolved_output(path, real) && open_directory(real, o) == 0 &&
               /* a file the run could not have written is refused at once, as open() refused it */
               (faccessat(o->dir_fd, o->name, W_OK, AT_EACCESS) == 0 || errno == ENOENT)) {
        fd = create_temp(o);
    }
    if (fd >= 0 && !(o->f = fdopen(fd, "w")))
        close(fd);
    if (o->f)
        return 0;
    vmm_log("%s %s: %s", what, path, strerror(errno));
    if (o->dir_fd >= 0)
        close(o->dir_fd);
    o->dir_fd = -1;
    return -1;
}

/* The unnamed file given the name temp (a stale one removed first).
 * linkat's AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH before Linux 6.10;
 * the link through /proc is the one open(2) gives for O_TMPFILE. */
static int link_temp(const struct whole_output *o)
{
    if (o->named_temp)
        return 0;
    if (unlinkat(o->dir_fd, o->temp, 0) && errno != ENOENT)
        return -1;
    int fd = fileno(o->f);
    if (linkat(fd, "", o->dir_fd, o->temp, AT_EMPTY_PATH) == 0)
        return 0;
    char proc[32];
    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    return linkat(AT_FDCWD, proc, o->dir_fd, o->temp, AT_SYMLINK_FOLLOW);
}

int vmm_whole_commit(struct whole_output *o)
{
    int e = 0;
    if (fflush(o->f) == EOF)
        e = errno;
    else if (ferror(o->f))
        e = EIO;   /* a write failed, and its errno is gone */
    /* Synced before the rename: a host that crashes after it finds the
     * new file whole, not a name whose data never reached the disk. */
    else if (o->dir_fd >= 0 &&
             (fsync(fileno(o->f)) || link_temp(o) || renameat(o->dir_fd, o->temp, o->dir_fd, o->name)))
        e = errno;
    if (e) {
        errno = e;
        vmm_whole_discard(o);
        return -1;
    }
    int rc = fclose(o->f);
    o->f = NULL;
    if (o->dir_fd >= 0) {
        e = errno;
        close(o->dir_fd);
        errno = e;
    }
    o->dir_fd = -1;
    return rc ? -1 : 0;
}

int vmm_whole_finish(struct whole_output *o, int written)
{
    if (!written)
        return vmm_whole_commit(o);
    vmm_whole_discard(o);
    return -1;
}

void vmm_whole_discard(struct whole_output *o)
{
    int e = errno;
    if (!o->f)
        return;
    fclose(o->f);
    o->f = NULL;
    if (o->dir_fd >= 0) {
        unlinkat(o->dir_fd, o->temp, 0);
        unlinkat(o->dir_fd, o->name, 0);
        close(o->dir_fd);
    }
    o->dir_fd = -1;
    errno = e;
}

/* Whether the resolved path lies under the directory dir: one of its
 * parents is dir, by inode (realpath(3) resolves symlinks, not a bind
 * mount of dir, which is dir all the same). */
static bool path_within(const char *path, const char *dir)
{
    struct stat d, parent;
    char at[PATH_MAX];
    if (stat(dir, &d) < 0 || snprintf(at, sizeof(at), "%s", path) >= PATH_MAX)
        return false;
    for (char *slash; (slash = strrchr(at, '/'));) {
        bool root = slash == at;
        slash[root ? 1 : 0] = 0;   /* at is its parent now: "/" at the root */
        if (stat(at, &parent) == 0 && same_inode(&parent, &d))
            return true;
        if (root)
            return false;
    }
    return false;
}

/* Whether two resolved paths name one place: the same name in the same
 * directory, by inode (as path_within). */
static bool same_place(const char *a, const char *b)
{
    char dir_a[PATH_MAX], dir_b[PATH_MAX];
    const char *name_a, *name_b;
    struct stat st_a, st_b;
    return split_path(a, dir_a, &name_a) && split_path(b, dir_b, &name_b) && !strcmp(name_a, name_b) &&
           stat(dir_a, &st_a) == 0 && stat(dir_b, &st_b) == 0 && same_inode(&st_a, &st_b);
}

/* Whether the output (out: its stat, if it exists; real: its resolved
 * path, or NULL) is the file other names: the same inode, or where the
 * output is not made yet (a whole output appears only at the run's end),
 * the same place. A device or FIFO several outputs may share. */
static bool same_file(const struct stat *out, bool exists, const char *real, const char *other)
{
    struct stat st;
    char other_real[PATH_MAX];
    if (exists)
        return S_ISREG(out->st_mode) && stat(other, &st) == 0 && same_inode(out, &st);
    return real && resolved_output(other, other_real) && same_place(real, other_real);
}

bool vmm_output_clobbers(const char *what, const char *path, const struct named_path *named, unsigned n)
{
    struct stat out;
    bool exists = stat(path, &out) == 0;
    char real[PATH_MAX];
    bool resolved = resolved_output(path, real);
    for (unsigned i = 0; i < n; i++) {
        if (!named[i].path || !strcmp(named[i].what, what))
            continue;
        if (named[i].dir) {
            if (!resolved || !path_within(real, named[i].path))
                continue;
            vmm_log("%s %s: inside %s %s, a directory the run reads: give a file outside it", what, path,
                    named[i].what, named[i].path);
            return true;
        }
        if (!same_file(&out, exists, resolved ? real : NULL, named[i].path))
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
