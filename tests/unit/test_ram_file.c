/* vmm/host/ram_file.c: --snapshot's RAM file reads back as the RAM was,
 * with its pages of zeros left as holes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "../../vmm/host/ram_file.h"

#define RAM_SIZE (4u << 20)

static uint8_t *ram, *back;
static int fd = -1;

static void setup(void)
{
    ram = calloc(1, RAM_SIZE);
    back = malloc(RAM_SIZE);
    char name[] = "/tmp/handover-ram-file-XXXXXX";
    fd = mkstemp(name);
    ck_assert(ram && back && fd >= 0);
    unlink(name);
}

static void teardown(void)
{
    free(ram);
    free(back);
    close(fd);
}

static void read_back(void)
{
    ck_assert_int_eq(pread(fd, back, RAM_SIZE, 0), RAM_SIZE);
    ck_assert(!memcmp(back, ram, RAM_SIZE));
}

START_TEST(pages_of_zeros_are_holes_and_the_rest_reads_back)
{
    ram[0] = 1;                           /* the first page */
    memset(ram + (1u << 20), 0xa5, 3 * 4096);   /* three pages in one run */
    ram[RAM_SIZE - 1] = 2;                /* the last byte */
    uint64_t written = 0;
    ck_assert_int_eq(ram_file_write(fd, ram, RAM_SIZE, &written), 0);
    ck_assert_uint_eq(written, 5 * 4096);
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    ck_assert_int_eq(st.st_size, RAM_SIZE);
    read_back();
    /* A hole right after the first page, where the file system keeps holes
     * at page size (tmpfs, ext4); data again at the run. */
    off_t hole = lseek(fd, 0, SEEK_HOLE);
    ck_assert(hole == 4096 || hole == RAM_SIZE);
    ck_assert_int_eq(lseek(fd, 4096, SEEK_DATA) <= (1 << 20), 1);
}
END_TEST

START_TEST(all_zero_ram_writes_nothing)
{
    uint64_t written = 1;
    ck_assert_int_eq(ram_file_write(fd, ram, RAM_SIZE, &written), 0);
    ck_assert_uint_eq(written, 0);
    read_back();
}
END_TEST

START_TEST(a_size_not_in_whole_pages_keeps_its_tail)
{
    const uint64_t size = 3 * 4096 + 5;
    ram[size - 1] = 7;
    uint64_t written = 0;
    ck_assert_int_eq(ram_file_write(fd, ram, size, &written), 0);
    ck_assert_uint_eq(written, 5);
    uint8_t last = 0;
    ck_assert_int_eq(pread(fd, &last, 1, (off_t)size - 1), 1);
    ck_assert_uint_eq(last, 7);
}
END_TEST

START_TEST(a_failed_write_is_said)
{
    ram[0] = 1;
    uint64_t written = 0;
    ck_assert_int_eq(ram_file_write(-1, ram, RAM_SIZE, &written), -1);
}
END_TEST

/* --snapshot's state or ram file a FIFO: open() returns at once (it used
 * to wait for a writer forever, before --timeout was armed). */
START_TEST(a_fifo_opens_without_waiting_for_a_writer)
{
    char dir[] = "/tmp/handover-ram-fifo-XXXXXX", path[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/ram", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    struct stat st;
    int fifo = file_open_nonblocking(path, &st);
    ck_assert_int_ge(fifo, 0);
    ck_assert(S_ISFIFO(st.st_mode));
    close(fifo);
    unlink(path);
    rmdir(dir);
    ck_assert_int_eq(file_open_nonblocking(path, &st), -1);
}
END_TEST

/* A RAM file cut short in place under a restored guest: handover's next
 * access to a page past its new end raised SIGBUS and killed it. Now the
 * run ends with the status given and a line saying why. In a child, which
 * it ends. */
START_TEST(a_file_cut_short_under_its_mapping_ends_the_run_with_a_reason)
{
    memset(ram, 0x5a, RAM_SIZE);
    uint64_t written = 0;
    ck_assert_int_eq(ram_file_write(fd, ram, RAM_SIZE, &written), 0);
    int err[2];
    ck_assert_int_eq(pipe(err), 0);
    pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        dup2(err[1], STDERR_FILENO);
        uint8_t *at = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (at == MAP_FAILED || ram_file_map(fd, at, RAM_SIZE, 3) || at[RAM_SIZE - 1] != 0x5a ||
            ftruncate(fd, 4096))
            _exit(90);
        volatile uint8_t past_the_end = at[RAM_SIZE - 1];
        (void)past_the_end;
        _exit(91);
    }
    close(err[1]);
    char said[512] = { 0 };
    ssize_t n = read(err[0], said, sizeof(said) - 1);
    close(err[0]);
    int status;
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert_msg(WIFEXITED(status), "the child did not exit (signal %d)", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    ck_assert_int_eq(WEXITSTATUS(status), 3);
    ck_assert_int_gt(n, 0);
    ck_assert_ptr_nonnull(strstr(said, "the RAM file was cut short while the restored guest ran"));
    ck_assert_ptr_nonnull(strstr(said, "end: host-error, exit status 3"));
}
END_TEST

Suite *ram_file_suite(void)
{
    Suite *s = suite_create("ram_file");
    TCase *tc = tcase_create("sparse");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, pages_of_zeros_are_holes_and_the_rest_reads_back);
    tcase_add_test(tc, all_zero_ram_writes_nothing);
    tcase_add_test(tc, a_size_not_in_whole_pages_keeps_its_tail);
    tcase_add_test(tc, a_failed_write_is_said);
    tcase_add_test(tc, a_fifo_opens_without_waiting_for_a_writer);
    tcase_add_test(tc, a_file_cut_short_under_its_mapping_ends_the_run_with_a_reason);
    suite_add_tcase(s, tc);
    return s;
}
