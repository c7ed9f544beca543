#include "ram_file.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
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

int file_pwrite_all(int fd, const uint8_t *p, size_t len, uint64_t at)
{
    while (len) {
        ssize_t n = pwrite(fd, p, len, (off_t)at);
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

/* The mapping on_sigbus guards, and what it says as it ends the run. */
static uint8_t *mapped;
static uint64_t mapped_size;
static int mapped_exit_status;
static char mapped_why[320];
static size_t mapped_why_len;

/* A page past the end of a file cut short in place while mapped raises
 * SIGBUS at the access (mmap(2)). One in the RAM file's mapping ends the
 * run with a line saying why; any other SIGBUS takes its default action
 * once the handler returns. Only async-signal-safe calls. */
static void on_sigbus(int sig, siginfo_t *si, void *context)
{
    (void)context;
    const uint8_t *at = si->si_addr;
    if (!mapped || at < mapped || at >= mapped + mapped_size) {
        signal(sig, SIG_DFL);
        return;
    }
    ssize_t n = write(STDERR_FILENO, mapped_why, mapped_why_len);
    (void)n;
    _exit(mapped_exit_status);
}

int ram_file_map(int fd, void *at, uint64_t size, int exit_status)
{
    struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
    sigemptyset(&sa.sa_mask);
    if (mmap(at, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
        return -1;
    mapped = at;
    mapped_size = size;
    mapped_exit_status = exit_status;
    int n = snprintf(mapped_why, sizeof(mapped_why),
                     "handover: --snapshot: the RAM file was cut short while the restored guest ran (a snapshot's "
                     "files are replaced by renaming new ones into place, never rewritten)\n"
                     "handover: end: host-error, exit status %d\n", exit_status);
    mapped_why_len = n > 0 && (size_t)n < sizeof(mapped_why) ? (size_t)n : 0;
    return sigaction(SIGBUS, &sa, NULL);
}
