/* vmm/host/files.c: a whole output (--report, --kunit-json, the sweep
 * matrix, --tpm-log) is at its path only whole: the old file until the
 * new one is complete, then the new one; a process killed in between
 * leaves the old file and nothing beside it. Each test works in a
 * directory of its own. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "suites.h"
#include "log_capture.h"
#include "../../vmm/host/files.h"

static char dir[] = "/tmp/handover-files-XXXXXX";
static char path[sizeof(dir) + 32];

static void setup(void)
{
    strcpy(dir, "/tmp/handover-files-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/report.json", dir);
    log_capture_start();
}

static void teardown(void)
{
    log_capture_stop();
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && unlinkat(dirfd(d), e->d_name, 0))
            unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);
    if (d)
        closedir(d);
    rmdir(dir);
}

static void write_file(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* The file's text ("" if it is absent). */
static const char *text_of(const char *p)
{
    static char buf[256];
    FILE *f = fopen(p, "r");
    size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    return buf;
}

/* The names in the test's directory, each followed by a space. */
static const char *listing(void)
{
    static char names[256];
    names[0] = 0;
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            strncat(names, e->d_name, sizeof(names) - strlen(names) - 2);
            strcat(names, " ");
        }
    closedir(d);
    return names;
}

START_TEST(old_file_stays_until_the_new_one_is_whole)
{
    write_file(path, "old\n");
    struct whole_output o;
    ck_assert_int_eq(vmm_open_whole("--report", path, &o), 0);
    fputs("new, half", o.f);
    fflush(o.f);
    ck_assert_str_eq(text_of(path), "old\n");
    ck_assert_str_eq(listing(), "report.json ");
    fputs(" and the rest\n", o.f);
    ck_assert_int_eq(vmm_whole_commit(&o), 0);
    ck_assert_ptr_null(o.f);
    ck_assert_str_eq(text_of(path), "new, half and the rest\n");
    ck_assert_str_eq(listing(), "report.json ");
}
END_TEST

/* Whether two stats are of one file, and the path's text is text. */
static bool same_file_and_text(const struct stat *a, const struct stat *b, const char *text)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && !strcmp(text_of(path), text);
}

/* body run in a child over an earlier "old\n" at the path (it ends
 * the child itself); the child's wait status. */
static int in_child(void (*body)(void))
{
    write_file(path, "old\n");
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        body();
        _exit(1);
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return st;
}

static void write_half_and_get_killed(void)
{
    struct whole_output o;
    if (vmm_open_whole("--report", path, &o) == 0) {
        fputs("{\"half\": ", o.f);
        fflush(o.f);
        raise(SIGKILL);
    }
}

/* SIGKILL (a CI job's timeout, the OOM killer) halfway through: O_TRUNC
 * at the start had emptied the old file, and the new one stayed cut. */
START_TEST(killed_halfway_leaves_the_old_file_and_nothing_else)
{
    int st = in_child(write_half_and_get_killed);
    ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    ck_assert_str_eq(text_of(path), "old\n");
    ck_assert_str_eq(listing(), "report.json ");
}
END_TEST

START_TEST(new_file_appears_only_when_whole)
{
    struct whole_output o;
    ck_assert_int_eq(vmm_open_whole("--report", path, &o), 0);
    fputs("new\n", o.f);
    fflush(o.f);
    ck_assert_str_eq(listing(), "");
    ck_assert_int_eq(vmm_whole_commit(&o), 0);
    ck_assert_str_eq(text_of(path), "new\n");
}
END_TEST

/* Not complete (the writer failed, or never wrote): no file at the path,
 * not even the earlier run's, which a script would read as this one's. */
START_TEST(discarded_leaves_no_file)
{
    write_file(path, "old\n");
    struct whole_output o;
    ck_assert_int_eq(vmm_open_whole("--report", path, &o), 0);
    fputs("cut", o.f);
    errno = EILSEQ;
    ck_assert_int_eq(vmm_whole_finish(&o, -1), -1);
    ck_assert_int_eq(errno, EILSEQ);
    ck_assert_ptr_null(o.f);
    ck_assert_str_eq(listing(), "");
}
END_TEST

/* Past RLIMIT_FSIZE (as the sandbox sets it): exits 0 if the commit
 * failed with EFBIG. */
static void write_past_the_size_limit(void)
{
    struct rlimit small = { 16, 16 };
    struct whole_output o;
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &small) || vmm_open_whole("--report", path, &o))
        _exit(2);
    fputs("more than sixteen bytes of report\n", o.f);
    _exit(vmm_whole_commit(&o) == -1 && errno == EFBIG ? 0 : 1);
}

/* A write the file system refuses is found at the commit: -1 with its
 * errno, and no file left. */
START_TEST(failed_write_is_never_put_in_place)
{
    int st = in_child(write_past_the_size_limit);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 0);
    ck_assert_str_eq(listing(), "");
}
END_TEST

/* A FIFO (a reader waiting on a named pipe, like --report /dev/stdout
 * into a pipe) is written straight through, and stays a FIFO. */
START_TEST(fifo_is_written_straight_through)
{
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    int reader = open(path, O_RDONLY | O_NONBLOCK);
    ck_assert_int_ge(reader, 0);
    struct whole_output o;
    ck_assert_int_eq(vmm_open_whole("--report", path, &o), 0);
    ck_assert_int_eq(o.dir_fd, -1);
    fputs("through\n", o.f);
    ck_assert_int_eq(vmm_whole_commit(&o), 0);
    char buf[16] = { 0 };
    ck_assert_int_eq(read(reader, buf, sizeof(buf) - 1), 8);
    close(reader);
    ck_assert_str_eq(buf, "through\n");
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
}
END_TEST

/* body run in a child, as in_child, ends with status 0. */
static void child_exits_0(void (*body)(void))
{
    int st = in_child(body);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 0);
}

/* In a child: the file at path opened for appending as its fd (stdout or
 * stderr, as a shell's >> makes it), its stat in *st; status 2 if not. */
static void append_log_as(int fd, struct stat *st)
{
    int log = open(path, O_WRONLY | O_APPEND);
    if (log < 0 || dup2(log, fd) < 0 || fstat(fd, st))
        _exit(2);
}

/* --report /dev/stdout >> ci.log: the run's stdout, a file the shell
 * opened, is written through where it stands, not truncated nor renamed
 * over (the shell's descriptor, and what it writes next, would then go to
 * a file no name reaches); exits 0 when the log holds the earlier line and
 * the report after it, in the same file. */
static void report_to_a_redirected_stdout(void)
{
    struct stat before, after;
    append_log_as(STDOUT_FILENO, &before);
    struct whole_output o;
    if (vmm_open_whole("--report", "/dev/stdout", &o))
        _exit(3);
    fputs("report\n", o.f);
    if (vmm_whole_commit(&o) || stat(path, &after))
        _exit(4);
    _exit(same_file_and_text(&before, &after, "old\nreport\n") ? 0 : 5);
}

START_TEST(redirected_stdout_is_written_through)
{
    child_exits_0(report_to_a_redirected_stdout);
}
END_TEST

/* --trace-efi /dev/stderr 2>> ci.log: a stream output that is the run's
 * own stderr goes on where the log stands, not reopened with O_TRUNC over
 * what the log held; exits 0 when the log holds both lines. */
static void trace_to_a_redirected_stderr(void)
{
    struct stat before, after;
    append_log_as(STDERR_FILENO, &before);
    FILE *f = vmm_open_output("--trace-efi", "/dev/stderr");
    if (!f)
        _exit(3);
    fputs("trace\n", f);
    if (fclose(f) || stat(path, &after))
        _exit(4);
    _exit(same_file_and_text(&before, &after, "old\ntrace\n") ? 0 : 5);
}

START_TEST(redirected_stderr_stream_is_written_through)
{
    child_exits_0(trace_to_a_redirected_stderr);
}
END_TEST

/* A symlink's target is replaced, in its own directory; the link stays. */
START_TEST(symlink_target_is_replaced)
{
    char target[sizeof(dir) + 32];
    snprintf(target, sizeof(target), "%s/target.json", dir);
    write_file(target, "old\n");
    ck_assert_int_eq(symlink("target.json", path), 0);
    struct whole_output o;
    ck_assert_int_eq(vmm_open_whole("--report", path, &o), 0);
    fputs("new\n", o.f);
    ck_assert_int_eq(vmm_whole_commit(&o), 0);
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_str_eq(text_of(target), "new\n");
}
END_TEST

/* Refused when opened, before any guest, as open() refused it. */
START_TEST(unwritable_path_is_refused_at_once)
{
    char missing[sizeof(dir) + 32];
    snprintf(missing, sizeof(missing), "%s/no/such/report.json", dir);
    struct whole_output o;
    ck_assert_int_eq(vmm_open_whole("--report", missing, &o), -1);
    ck_assert_ptr_nonnull(strstr(log_captured(), "/no/such/report.json: No such file or directory"));
    ck_assert_int_eq(vmm_open_whole("--report", dir, &o), -1);
    ck_assert_ptr_nonnull(strstr(log_captured(), ": Is a directory"));
}
END_TEST

/* The test's directories a and b, b a bind mount of a, in a mount
 * namespace of the child's own; the child ends with status 2 if it
 * cannot make them. */
static void bind_a_onto_b(void)
{
    char a[sizeof(dir) + 8], b[sizeof(dir) + 8];
    snprintf(a, sizeof(a), "%s/a", dir);
    snprintf(b, sizeof(b), "%s/b", dir);
    if ((unshare(CLONE_NEWNS) && unshare(CLONE_NEWUSER | CLONE_NEWNS)) ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) || mount(a, b, NULL, MS_BIND, NULL))
        _exit(2);
}

/* Through the bind mount: --kunit-json b/results.json, not made yet, is
 * the --report a/results.json (else status 4), and b/x.json lies inside
 * --esp a (else 8). */
static void outputs_compared_across_a_bind_mount(void)
{
    bind_a_onto_b();
    char in_a[sizeof(dir) + 32], in_b[sizeof(dir) + 32], esp[sizeof(dir) + 8], other[sizeof(dir) + 32];
    snprintf(in_a, sizeof(in_a), "%s/a/results.json", dir);
    snprintf(in_b, sizeof(in_b), "%s/b/results.json", dir);
    snprintf(esp, sizeof(esp), "%s/a", dir);
    snprintf(other, sizeof(other), "%s/b/x.json", dir);
    const struct named_path report = { "--report", in_a, false }, esp_dir = { "--esp", esp, true };
    bool same = vmm_output_clobbers("--kunit-json", in_b, &report, 1);
    bool inside = vmm_output_clobbers("--report", other, &esp_dir, 1);
    _exit((same ? 0 : 4) | (inside ? 0 : 8));
}

/* Two outputs, or an output and a directory the run reads, compared by
 * inode, not by path: realpath(3) resolves symlinks, not bind mounts
 * (mount(8) --bind), so the same file not made yet had two paths. */
START_TEST(outputs_one_file_through_a_bind_mount)
{
    char sub[sizeof(dir) + 8];
    snprintf(sub, sizeof(sub), "%s/a", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    snprintf(sub, sizeof(sub), "%s/b", dir);
    ck_assert_int_eq(mkdir(sub, 0700), 0);
    child_exits_0(outputs_compared_across_a_bind_mount);
}
END_TEST

Suite *files_suite(void)
{
    Suite *s = suite_create("files");
    TCase *tc = tcase_create("whole outputs");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, old_file_stays_until_the_new_one_is_whole);
    tcase_add_test(tc, killed_halfway_leaves_the_old_file_and_nothing_else);
    tcase_add_test(tc, new_file_appears_only_when_whole);
    tcase_add_test(tc, discarded_leaves_no_file);
    tcase_add_test(tc, failed_write_is_never_put_in_place);
    tcase_add_test(tc, fifo_is_written_straight_through);
    tcase_add_test(tc, redirected_stdout_is_written_through);
    tcase_add_test(tc, redirected_stderr_stream_is_written_through);
    tcase_add_test(tc, symlink_target_is_replaced);
    tcase_add_test(tc, unwritable_path_is_refused_at_once);
    tcase_add_test(tc, outputs_one_file_through_a_bind_mount);
    suite_add_tcase(s, tc);
    return s;
}
