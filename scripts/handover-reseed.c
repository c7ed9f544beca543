/* handover-reseed: /handover/reseed in the archive handover appends for
 * --snapshot (vmm/host/add_files.c). Every guest restored from one
 * snapshot starts with the same CRNG state, and writing to /dev/urandom
 * only mixes into the input pool without reseeding the CRNG
 * (drivers/char/random.c, 5.18 and later): this credits the bytes handover
 * sends with the command (stdin) to the pool (RNDADDENTROPY) and reseeds
 * at once (RNDRESEEDCRNG, random(4)). Freestanding and static: the
 * initramfs may have no libc. Exit status 0, or which step failed. */
#include <asm/unistd.h>
#include <linux/fcntl.h>
#include <linux/random.h>

static long syscall3(long nr, long a, long b, long c)
{
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}

/* struct rand_pool_info: entropy_count (bits), buf_size (bytes), buf. */
static int pool[2 + 64];

int reseed_main(void);
int reseed_main(void)
{
    char *buf = (char *)&pool[2];
    long len = 0, n;
    while (len < (long)sizeof(pool) - 8 && (n = syscall3(__NR_read, 0, (long)(buf + len), (long)sizeof(pool) - 8 - len)) > 0)
        len += n;
    if (len <= 0)
        return 1;
    pool[0] = (int)(len * 4);   /* hex digits: 4 bits each */
    pool[1] = (int)len;
    long fd = syscall3(__NR_open, (long)"/dev/urandom", O_RDWR, 0);
    if (fd < 0)
        return 2;
    if (syscall3(__NR_ioctl, fd, RNDADDENTROPY, (long)pool) < 0)
        return 3;
    if (syscall3(__NR_ioctl, fd, RNDRESEEDCRNG, 0) < 0)
        return 4;
    return 0;
}

__asm__(".globl _start\n"
        "_start:\n"
        "\tcall reseed_main\n"
        "\tmov %eax, %edi\n"
        "\tmov $60, %eax\n"   /* exit */
        "\tsyscall\n");
