#include "files.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../vmm.h"

static FILE *open_fd(const char *what, const char *path, int flags, const char *mode, bool regular_only)
{
    int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
    struct stat st;
    if (fd < 0) {
        vmm_log("%s %s: %s%s", what, path, strerror(errno),
                errno == ENXIO ? " (a FIFO with no reader)" : "");
        return NULL;
    }
    if (fstat(fd, &st) < 0 || (regular_only && !S_ISREG(st.st_mode))) {
        vmm_log("%s %s: not a regular file", what, path);
        close(fd);
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    FILE *f = fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ? NULL : fdopen(fd, mode);
    if (!f) {
        vmm_log("%s %s: %s", what, path, strerror(errno));
        close(fd);
    }
    return f;
}

FILE *vmm_open_input(const char *what, const char *path)
{
    return open_fd(what, path, O_RDONLY, "rb", true);
}

FILE *vmm_open_output(const char *what, const char *path)
{
    return open_fd(what, path, O_WRONLY | O_CREAT | O_TRUNC, "w", false);
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
