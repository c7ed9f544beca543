/* loader/cpio.c: the newc archive --exec packs for the guest, and the
 * names it refuses. */
#include <string.h>

#include "suites.h"
#include "../../loader/cpio.h"

START_TEST(cpio_archive_is_newc)
{
    struct cpio_builder b;
    const char *cmd = "echo hi";
    cpio_begin(&b, 1 << 20);
    cpio_add_file(&b, "handover/cmd", 0644, cmd, strlen(cmd));
    size_t n = cpio_end(&b);
    ck_assert_uint_eq(n, 124 + 8 + 124);   /* header+name padded, data padded, trailer */
    ck_assert_uint_eq(n % 4, 0);
    const char *buf = b.buf;
    ck_assert(!memcmp(buf, "070701", 6));
    /* mode (2nd field), filesize (7th) and namesize (12th), 8 hex digits each */
    ck_assert(!memcmp(buf + 6 + 1 * 8, "000081A4", 8));
    ck_assert(!memcmp(buf + 6 + 6 * 8, "00000007", 8));
    ck_assert(!memcmp(buf + 6 + 11 * 8, "0000000D", 8));
    ck_assert_str_eq(buf + 110, "handover/cmd");
    ck_assert(!memcmp(buf + 124, cmd, 7));   /* 110 + 13 = 123, padded to 124 */
    ck_assert(memmem(buf, n, "TRAILER!!!", 10) != NULL);
    cpio_free(&b);

    /* A directory entry, and an archive past its bound fails whole. */
    cpio_begin(&b, 300);
    cpio_add_dir(&b, "lib");
    ck_assert(!memcmp(b.buf + 6 + 1 * 8, "000041ED", 8));
    cpio_add_file(&b, "lib/big", 0755, cmd, 200);
    ck_assert_uint_eq(cpio_end(&b), 0);
    cpio_free(&b);
}
END_TEST

/* A cpio name is unpacked relative to the guest's / as it stands: none
 * may climb out with ".." or be absolute. */
START_TEST(cpio_names_never_climb)
{
    static const char *const safe[] = { "lib", "lib/x86_64-linux-gnu/libc.so.6", "a..b", "..a/.b", "TRAILER!!!" };
    static const char *const unsafe[] = { "", "..", ".", "/etc/passwd", "a/../b", "a/..", "../a", "a//b", "a/",
                                          "a/./b" };
    for (size_t i = 0; i < sizeof(safe) / sizeof(safe[0]); i++)
        ck_assert_msg(cpio_name_safe(safe[i]), "%s", safe[i]);
    for (size_t i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++)
        ck_assert_msg(!cpio_name_safe(unsafe[i]), "%s", unsafe[i]);
    struct cpio_builder b;
    cpio_begin(&b, 1 << 20);
    cpio_add_file(&b, "bin/../../etc/shadow", 0644, "x", 1);
    ck_assert_uint_eq(cpio_end(&b), 0);
    cpio_free(&b);
}
END_TEST

/* A symlink's target is its data, without a NUL; an empty target, or one
 * longer than the kernel takes (PATH_MAX with its NUL), fails the archive. */
START_TEST(cpio_symlink_keeps_its_target_as_data)
{
    struct cpio_builder b;
    cpio_begin(&b, 1 << 20);
    cpio_add_symlink(&b, "lib", "usr/lib");
    size_t n = cpio_end(&b);
    ck_assert_uint_gt(n, 0);
    ck_assert(!memcmp(b.buf + 6 + 1 * 8, "0000A1FF", 8));   /* S_IFLNK | 0777 */
    ck_assert(!memcmp(b.buf + 6 + 6 * 8, "00000007", 8));
    ck_assert(!memcmp(b.buf + 116, "usr/lib", 7));          /* 110 + 4 (name and NUL) = 114, padded to 116 */
    cpio_free(&b);

    static char long_target[4097];
    memset(long_target, 'a', 4096);
    const char *bad[] = { "", long_target };
    for (size_t i = 0; i < 2; i++) {
        cpio_begin(&b, 1 << 20);
        cpio_add_symlink(&b, "lib", bad[i]);
        ck_assert_uint_eq(cpio_end(&b), 0);
        cpio_free(&b);
    }
}
END_TEST

Suite *cpio_suite(void)
{
    Suite *s = suite_create("cpio");
    TCase *t = tcase_create("cpio");
    tcase_add_test(t, cpio_archive_is_newc);
    tcase_add_test(t, cpio_names_never_climb);
    tcase_add_test(t, cpio_symlink_keeps_its_target_as_data);
    suite_add_tcase(s, t);
    return s;
}
