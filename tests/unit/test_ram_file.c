/* vmm/host/ram_file.c: --snapshot's RAM file reads back as the RAM was,
 * with its pages of zeros left as holes, and a restore's copy of it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* A restore copies the file into RAM that reads as zeros: data and
 * holes come back as the RAM was. */
START_TEST(a_restore_reads_back_data_and_holes)
{
    ram[4096] = 3;
    memset(ram + (2u << 20), 0x5a, 2 * 4096);
    ram[RAM_SIZE - 1] = 4;
    uint64_t written = 0;
    ck_assert_int_eq(ram_file_write(fd, ram, RAM_SIZE, &written), 0);
    memset(back, 0, RAM_SIZE);
    ck_assert_int_eq(ram_file_read(fd, back, RAM_SIZE), 0);
    ck_assert(!memcmp(back, ram, RAM_SIZE));
}
END_TEST

/* The restored RAM is the guest's own: a file cut short or rewritten
 * while the guest runs changes nothing in it. With a mapping of the file
 * (before), the read below of a page past the new end raised SIGBUS. */
START_TEST(a_file_cut_short_after_the_restore_leaves_the_ram_whole)
{
    memset(ram, 0xc3, RAM_SIZE);
    uint64_t written = 0;
    ck_assert_int_eq(ram_file_write(fd, ram, RAM_SIZE, &written), 0);
    memset(back, 0, RAM_SIZE);
    ck_assert_int_eq(ram_file_read(fd, back, RAM_SIZE), 0);
    ck_assert_int_eq(ftruncate(fd, 4096), 0);
    ck_assert_int_eq(pwrite(fd, "x", 1, 0), 1);
    ck_assert(!memcmp(back, ram, RAM_SIZE));
}
END_TEST

/* A file of another size is not this RAM (the restore checked it before:
 * another size now means it changed since). */
START_TEST(a_file_of_another_size_is_refused)
{
    ram[0] = 1;
    uint64_t written = 0;
    ck_assert_int_eq(ram_file_write(fd, ram, RAM_SIZE - 4096, &written), 0);
    errno = 0;
    ck_assert_int_eq(ram_file_read(fd, back, RAM_SIZE), -1);
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_int_eq(ram_file_read(-1, back, RAM_SIZE), -1);
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

Suite *ram_file_suite(void)
{
    Suite *s = suite_create("ram_file");
    TCase *tc = tcase_create("sparse");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, pages_of_zeros_are_holes_and_the_rest_reads_back);
    tcase_add_test(tc, all_zero_ram_writes_nothing);
    tcase_add_test(tc, a_size_not_in_whole_pages_keeps_its_tail);
    tcase_add_test(tc, a_failed_write_is_said);
    tcase_add_test(tc, a_restore_reads_back_data_and_holes);
    tcase_add_test(tc, a_file_cut_short_after_the_restore_leaves_the_ram_whole);
    tcase_add_test(tc, a_file_of_another_size_is_refused);
    tcase_add_test(tc, a_fifo_opens_without_waiting_for_a_writer);
    suite_add_tcase(s, tc);
    return s;
}
