#include "add_files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../loader/elf_deps.h"
#include "files.h"
#include "handover_init.h"   /* generated from scripts/handover-init.sh (Makefile) */
#include "handover_reseed.h" /* compiled from scripts/handover-reseed.c (Makefile) */
#include "log.h"

/* Where the dynamic linker looks by default on Debian (ld.so(8), and
 * /etc/ld.so.conf.d/x86_64-linux-gnu.conf). */
static const char *const lib_dirs[] = {
    "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
};
/* Where x86-64 interpreters live: glibc's /lib64/ld-linux-x86-64.so.2
 * (the x86-64 psABI, "Program Interpreter"), Debian's multiarch copy,
 * musl's /lib/ld-musl-x86_64.so.1. */
static const char *const loader_dirs[] = {
    "/lib64", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/x86_64-linux-gnu", "/lib",
};
#define NDIRS(a) (sizeof(a) / sizeof((a)[0]))

struct add_state {
    struct cpio_builder *b;
    char (*done)[ELF_DEPS_NAME];   /* guest paths already in the archive */
    unsigned ndone;
};

static bool already(struct add_state *st, const char *guest)
{
    for (unsigned i = 0; i < st->ndone; i++)
        if (!strcmp(st->done[i], guest))
            return true;
    return false;
}

#define LINK_DEPTH 8   /* symlinks followed through parents' targets; a loop ends there */

static void add_parents(struct add_state *st, const char *name, unsigned depth);

/* Where the symlink dir (a guest path) points, as a guest path: its
 * target from the top, or from the link's own directory. False if that is
 * no plain relative name (a ".." in it) or too long. */
static bool link_points_to(const char *dir, const char *target, char *to, size_t len)
{
    const char *slash = strrchr(dir, '/');
    int n = target[0] == '/' ? snprintf(to, len, "%s", target + 1)
                             : snprintf(to, len, "%.*s%s%s", slash ? (int)(slash - dir) : 0, dir, slash ? "/" : "",
                                        target);
    return n > 0 && (size_t)n < len && cpio_name_safe(to);
}

/* A directory of a guest path, as the host has it at the same path (the
 * libraries' and the interpreter's guest paths are the host's). A symlink
 * there to a directory (merged /usr: /lib -> usr/lib) goes in as that
 * symlink, after the directories it points to: a directory entry where an
 * --initrd has the symlink would replace it (init/initramfs.c,
 * clean_path), and that initrd's /lib would then hold only what this
 * archive brings. Anything else (a loop, a link to no directory, a target
 * with "..") goes in as a directory. */
static void add_dir(struct add_state *st, const char *dir, unsigned depth)
{
    char host[ELF_DEPS_NAME + 1], target[ELF_DEPS_NAME], to[ELF_DEPS_NAME];
    struct stat sb;
    snprintf(host, sizeof(host), "/%s", dir);
    ssize_t n = depth < LINK_DEPTH && !stat(host, &sb) && S_ISDIR(sb.st_mode)
                    ? readlink(host, target, sizeof(target) - 1) : -1;
    if (n > 0) {
        target[n] = 0;
        if (link_points_to(dir, target, to, sizeof(to))) {
            add_parents(st, to, depth + 1);
            add_dir(st, to, depth + 1);
            cpio_add_symlink(st->b, dir, target);
            return;
        }
    }
    cpio_add_dir(st->b, dir);
}

/* The parent directories of a guest path ("a/b/c" gives "a" and "a/b"). */
static void add_parents(struct add_state *st, const char *name, unsigned depth)
{
    char dir[ELF_DEPS_NAME];
    for (const char *s = strchr(name, '/'); s; s = strchr(s + 1, '/')) {
        size_t n = (size_t)(s - name);
        if (n == 0 || n >= sizeof(dir))
            continue;
        memcpy(dir, name, n);
        dir[n] = 0;
        add_dir(st, dir, depth);
    }
}

/* Exactly the size fstat gave, and then the end of the file: a file that
 * grew or shrank while it was read, or one whose size stat does not know
 * (/proc and /sys files say 0 or 4096), would be packed cut short. */
static bool read_exactly(FILE *f, uint8_t *buf, size_t len)
{
    return fread(buf, 1, len, f) == len && fgetc(f) == EOF && !ferror(f);
}

static uint8_t *read_whole(const char *what, const char *path, size_t *len, unsigned *perm)
{
    FILE *f = vmm_open_input(what, path);
    struct stat sb;
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    if (fstat(fileno(f), &sb) || sb.st_size > (off_t)ADD_MAX_BYTES) {
        vmm_log("%s %s: larger than the %llu MiB --add allows", what, path, ADD_MAX_BYTES >> 20);
    } else if (!(buf = malloc(sb.st_size ? (size_t)sb.st_size : 1))) {
        vmm_log("%s %s: out of memory", what, path);
    } else if (!read_exactly(f, buf, (size_t)sb.st_size)) {
        if (ferror(f))
            vmm_log("%s %s: %s", what, path, strerror(errno));
        else
            vmm_log("%s %s: its size said %lld bytes, the read found otherwise: it changed while read, or is a "
                    "/proc or /sys file", what, path, (long long)sb.st_size);
        free(buf);
        buf = NULL;
    } else {
        *len = (size_t)sb.st_size;
        *perm = sb.st_mode & 0777u;
    }
    fclose(f);
    return buf;
}

/* A file name alone, no directory: what a lookup in dirs may take. */
static bool bare_name(const char *name)
{
    return !strchr(name, '/') && cpio_name_safe(name);
}

/* The first regular file called name in dirs; the names in an added
 * program are its word, never a host path to follow. */
static int find_in(const char *const *dirs, size_t ndirs, const char *name, char *out, size_t len)
{
    struct stat st;
    for (size_t i = 0; bare_name(name) && i < ndirs; i++) {
        int n = snprintf(out, len, "%s/%s", dirs[i], name);
        if (n > 0 && (size_t)n < len && !stat(out, &st) && S_ISREG(st.st_mode))
            return 0;   /* a name too long for out is not looked up cut short */
    }
    return -1;
}

static int add_one(struct add_state *st, const char *host, const char *guest);

/* PT_INTERP: the host's interpreter of that file name from loader_dirs,
 * at the guest path the program names (absolute, without ".."). */
static int add_interpreter(struct add_state *st, const char *prog, const char *interp)
{
    char path[ELF_DEPS_NAME];
    const char *base = strrchr(interp, '/');
    if (interp[0] != '/' || !cpio_name_safe(interp + 1)) {
        vmm_log("--add %s: its interpreter %s is not an absolute path without '..'", prog, interp);
        return -1;
    }
    if (find_in(loader_dirs, NDIRS(loader_dirs), base + 1, path, sizeof(path))) {
        vmm_log("--add %s: its interpreter %s: no %s in /lib64, /lib/x86_64-linux-gnu, /usr/lib64, "
                "/usr/lib/x86_64-linux-gnu or /lib", prog, interp, base + 1);
        return -1;
    }
    return add_one(st, path, interp);
}

/* DT_NEEDED: a bare library name, from lib_dirs, at the same path in the
 * guest. A name with a '/' (which ld.so would take as a path) is refused. */
static int add_library(struct add_state *st, const char *prog, const char *name)
{
    char path[ELF_DEPS_NAME];
    if (!bare_name(name)) {
        vmm_log("--add %s: needs %s, not a bare library name: only those are looked up", prog, name);
        return -1;
    }
    if (find_in(lib_dirs, NDIRS(lib_dirs), name, path, sizeof(path))) {
        vmm_log("--add %s: needs %s, which is in none of the library directories", prog, name);
        return -1;
    }
    return add_one(st, path, path);
}

/* Put host file `host` at guest path `guest` (absolute), then whatever it
 * needs to run. */
static int add_one(struct add_state *st, const char *host, const char *guest)
{
    const char *name = guest + strspn(guest, "/");
    if (!cpio_name_safe(name)) {
        vmm_log("--add %s: the guest path %s has an empty, '.' or '..' component", host, guest);
        return -1;
    }
    if (already(st, name))
        return 0;
    if (st->ndone == ADD_MAX_FILES) {
        vmm_log("--add: more than %d files with their libraries", ADD_MAX_FILES);
        return -1;
    }
    snprintf(st->done[st->ndone++], ELF_DEPS_NAME, "%s", name);
    size_t len = 0;
    unsigned perm = 0;
    uint8_t *data = read_whole("--add", host, &len, &perm);
    if (!data)
        return -1;
    add_parents(st, name, 0);
    cpio_add_file(st->b, name, perm, data, len);
    static struct elf_deps deps;
    int rc = 0;
    bool elf = elf_deps_read(data, len, &deps) == 0;
    free(data);
    if (elf && deps.more_needed) {
        vmm_log("--add %s: needs more than %d libraries", host, ELF_DEPS_MAX);
        rc = -1;
    } else if (elf && deps.unreadable_needed) {
        vmm_log("--add %s: a DT_NEEDED entry names no library the file holds (its string table or the name is not "
                "in the file, or the name is not NUL-terminated within %d bytes): it cannot be packed with all it needs",
                host, ELF_DEPS_NAME - 1);
        rc = -1;
    } else if (elf && deps.foreign_dynamic) {
        vmm_log("--add %s: a dynamically linked program for another machine than x86-64 (an i386 one, say): "
                "its libraries are not looked up; add a static build, or put it with its libraries in --initrd",
                host);
        rc = -1;
    } else if (elf) {
        struct elf_deps mine = deps;   /* the recursion reuses the static */
        if (mine.interp[0])
            rc = add_interpreter(st, host, mine.interp);
        for (unsigned i = 0; !rc && i < mine.nneeded; i++)
            rc = add_library(st, host, mine.needed[i]);
    }
    return rc;
}

/* A file handover writes itself, kept among the names taken so that no
 * --add takes its name. */
static void add_own(struct add_state *st, const char *name, unsigned perm, const void *data, size_t len)
{
    snprintf(st->done[st->ndone++], ELF_DEPS_NAME, "%s", name);
    cpio_add_file(st->b, name, perm, data, len);
}

/* --exec without --initrd: the init archive that scripts/build-initramfs.sh
 * builds, made here: the directories /init uses, /init itself and the
 * host's busybox (a static one; a dynamic one brings its libraries, as
 * --add does). Built in memory each run: a few milliseconds, so there is
 * no cache to keep (NOTES-h27.md). */
static int add_init_base(struct add_state *st)
{
    static const char *const dirs[] = { "bin", "sbin", "dev", "proc", "sys", "tmp" };
    for (size_t i = 0; i < NDIRS(dirs); i++)
        cpio_add_dir(st->b, dirs[i]);
    add_own(st, "init", 0755, handover_init_sh, sizeof(handover_init_sh) - 1);
    if (access(HOST_BUSYBOX, R_OK)) {
        vmm_log("--exec packs the host's %s with its /init: %s (apt-get install busybox-static), or give --initrd",
                HOST_BUSYBOX, strerror(errno));
        return -1;
    }
    return add_one(st, HOST_BUSYBOX, HOST_BUSYBOX);
}

/* The files of /handover that /init reads (docs/guest-abi.md). */
static void add_exec_files(struct add_state *st, const struct add_files_request *r)
{
    if (r->exec)
        cpio_add_dir(st->b, "handover");
    if (r->exec && r->snapshot) {
        add_own(st, "handover/snapshot-wait", 0644, "", 0);
        add_own(st, "handover/reseed", 0755, handover_reseed, sizeof(handover_reseed));
    } else if (r->exec) {
        add_own(st, "handover/cmd", 0644, r->exec, strlen(r->exec));
        add_own(st, "handover/run", 0644, r->run_id, strlen(r->run_id));
    }
    if (r->exec_output)
        add_own(st, "handover/output", 0644, EXEC_OUTPUT_TTY, strlen(EXEC_OUTPUT_TTY));
}

/* One --add HOST[:GUEST]. A guest path already taken (by handover's own
 * files, an earlier --add or the libraries it brought) is refused: the
 * kernel would unpack the later file over the earlier one, and a second
 * library of a name is never packed. */
static int add_spec(struct add_state *st, const char *spec)
{
    char host[ELF_DEPS_NAME], guest[2 * ELF_DEPS_NAME];
    const char *colon = strchr(spec, ':');
    size_t hn = colon ? (size_t)(colon - spec) : strlen(spec);
    if (!hn || (colon && (colon[1] != '/' || strlen(colon + 1) >= sizeof(guest)))) {
        vmm_log("--add %s: give HOST_PATH or HOST_PATH:/GUEST_PATH (an absolute guest path)", spec);
        return -1;
    }
    if (hn >= sizeof(host)) {
        vmm_log("--add %s: the host path is longer than %d bytes", spec, ELF_DEPS_NAME - 1);
        return -1;
    }
    memcpy(host, spec, hn);
    host[hn] = 0;
    const char *base = strrchr(host, '/');
    /* The default guest path is the file's name in /, the directory
     * /init runs the command in: --exec ./my-test --add build/my-test. */
    snprintf(guest, sizeof(guest), "%s%s", colon ? "" : "/", colon ? colon + 1 : base ? base + 1 : host);
    if (strlen(guest) >= ELF_DEPS_NAME) {
        vmm_log("--add %s: the guest path is too long", spec);
        return -1;
    }
    if (already(st, guest + strspn(guest, "/"))) {
        vmm_log("--add %s: %s is in the archive already (handover's own file, or an earlier --add or a library "
                "it needs)", spec, guest);
        return -1;
    }
    return add_one(st, host, guest);
}

int add_files_archive(const struct add_files_request *r, struct cpio_builder *b)
{
    cpio_begin(b, ADD_MAX_BYTES);
    struct add_state st = { b, calloc(ADD_MAX_FILES, ELF_DEPS_NAME), 0 };
    if (!st.done) {
        vmm_log("--add: out of memory");
        return -1;
    }
    add_exec_files(&st, r);
    int rc = r->whole_initrd ? add_init_base(&st) : 0;
    for (unsigned i = 0; !rc && i < r->nadds; i++)
        rc = add_spec(&st, r->adds[i]);
    free(st.done);
    if (!rc && !cpio_end(b)) {
        vmm_log("--add: the files come to more than %llu MiB", ADD_MAX_BYTES >> 20);
        rc = -1;
    }
    if (rc)
        cpio_free(b);
    return rc;
}
