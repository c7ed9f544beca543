/* guest/guest_mem.c: bounds of guest-physical accesses (end of RAM, the
 * 32-bit hole, overflow of gpa + len) and guest-virtual accesses through
 * 4- and 5-level page tables built in the buffer (Intel SDM vol. 3A, 4.5). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "suites.h"
#include "../../guest/guest_mem.h"
#include "../../guest/guest_text.h"

#define MiB(n) ((uint64_t)(n) << 20)
#define GiB(n) ((uint64_t)(n) << 30)

#define PTE_P    0x1ULL
#define PTE_RW   0x2ULL
#define PTE_PS   0x80ULL
#define PTE_ADDR 0x000ffffffffff000ULL

/* ---- small RAM (16 MiB, malloc'd so ASan sees overruns) --------------------- */

#define RAM_SIZE MiB(16)
static uint8_t *ram;
static struct guest_mem gm;

static void small_setup(void)
{
    ram = calloc(1, RAM_SIZE);
    ck_assert_ptr_nonnull(ram);
    guest_mem_init(&gm, ram, RAM_SIZE);
}

static void small_teardown(void)
{
    free(ram);
    ram = NULL;
}

/* ---- RAM above the hole: 3.5 GiB of address space, touched sparsely ----------- */

#define BIG_SIZE (GiB(3) + MiB(512))
static uint8_t *big;
static struct guest_mem bgm;

static void big_setup(void)
{
    big = mmap(NULL, BIG_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ck_assert_ptr_ne(big, MAP_FAILED);
    guest_mem_init(&bgm, big, BIG_SIZE);
}

static void big_teardown(void)
{
    munmap(big, BIG_SIZE);
}

/* ---- page tables built in the buffer ---------------------------------------- */

#define TABLES_BASE MiB(1)
static uint64_t next_table, root;
static int levels;

static uint64_t *table_at(uint64_t pa) { return (uint64_t *)(ram + pa); }

static uint64_t new_table(void)
{
    uint64_t t = next_table;
    next_table += 4096;
    memset(ram + t, 0, 4096);
    return t;
}

static void tables_init(int nlevels)
{
    levels = nlevels;
    next_table = TABLES_BASE;
    root = new_table();
}

/* The entry for va at leaf_level (1: 4 KiB PTE, 2: 2 MiB PDE, 3: 1 GiB
 * PDPTE), creating the tables above it. */
static uint64_t *entry_for(uint64_t va, int leaf_level)
{
    uint64_t t = root;
    for (int l = levels; l > leaf_level; l--) {
        uint64_t *e = &table_at(t)[(va >> (12 + 9 * (l - 1))) & 511];
        if (!(*e & PTE_P))
            *e = new_table() | PTE_P | PTE_RW;
        t = *e & PTE_ADDR;
    }
    return &table_at(t)[(va >> (12 + 9 * (leaf_level - 1))) & 511];
}

static void map(uint64_t va, uint64_t pa, int leaf_level)
{
    *entry_for(va, leaf_level) = pa | PTE_P | PTE_RW | (leaf_level > 1 ? PTE_PS : 0);
}

static struct guest_view view(void) { return (struct guest_view){ &gm, root, levels == 5, false, false, false }; }

static bool translates_to(const struct guest_view *v, uint64_t va, uint64_t want)
{
    uint64_t pa = ~0ULL;
    return guest_view_translate(v, va, &pa) && pa == want;
}

/* ---- physical bounds ------------------------------------------------------------ */

START_TEST(small_ram_is_one_range_below_the_hole)
{
    struct guest_range r[2];
    ck_assert_int_eq(guest_mem_ranges(&gm, r), 1);
    ck_assert_uint_eq(r[0].start, 0);
    ck_assert_uint_eq(r[0].size, RAM_SIZE);
    ck_assert_uint_eq(guest_mem_top(&gm), RAM_SIZE);
}
END_TEST

START_TEST(pointers_stop_at_the_end_of_ram)
{
    ck_assert_ptr_eq(guest_mem_ptr(&gm, 0, RAM_SIZE), ram);
    ck_assert_ptr_eq(guest_mem_ptr(&gm, RAM_SIZE - 1, 1), ram + RAM_SIZE - 1);
    ck_assert_ptr_null(guest_mem_ptr(&gm, RAM_SIZE, 1));
    ck_assert_ptr_null(guest_mem_ptr(&gm, RAM_SIZE - 4, 8));     /* spans the end */
    ck_assert_ptr_null(guest_mem_ptr(&gm, 0, RAM_SIZE + 1));
    ck_assert_ptr_null(guest_mem_ptr(&gm, GUEST_HIGH_START, 1)); /* no high RAM */
}
END_TEST

START_TEST(gpa_plus_len_overflow_is_refused)
{
    ck_assert_ptr_null(guest_mem_ptr(&gm, 16, UINT64_MAX));
    ck_assert_ptr_null(guest_mem_ptr(&gm, 16, UINT64_MAX - 15));
    ck_assert_ptr_null(guest_mem_ptr(&gm, UINT64_MAX, 1));
    ck_assert_ptr_null(guest_mem_ptr(&gm, UINT64_MAX, 2));
    ck_assert_ptr_null(guest_mem_ptr(&gm, 0xfffffffffffff000ULL, 0x2000));
}
END_TEST

START_TEST(failed_physical_accesses_have_no_effect)
{
    uint8_t src[16], dst[16];
    memset(src, 0x5a, sizeof(src));
    memset(dst, 0x11, sizeof(dst));
    ck_assert(!guest_mem_write(&gm, RAM_SIZE - 8, src, 16));
    for (unsigned i = 0; i < 8; i++)
        ck_assert_uint_eq(ram[RAM_SIZE - 8 + i], 0);
    ck_assert(!guest_mem_read(&gm, RAM_SIZE - 8, dst, 16));
    ck_assert_uint_eq(dst[0], 0x11);
    ck_assert(guest_mem_write(&gm, RAM_SIZE - 16, src, 16));
    ck_assert(guest_mem_read(&gm, RAM_SIZE - 16, dst, 16));
    ck_assert_mem_eq(dst, src, 16);
}
END_TEST

START_TEST(ram_above_3g_continues_at_4g)
{
    struct guest_range r[2];
    ck_assert_int_eq(guest_mem_ranges(&bgm, r), 2);
    ck_assert_uint_eq(r[0].start, 0);
    ck_assert_uint_eq(r[0].size, GUEST_HOLE_START);
    ck_assert_uint_eq(r[1].start, GUEST_HIGH_START);
    ck_assert_uint_eq(r[1].size, MiB(512));
    ck_assert_uint_eq(guest_mem_top(&bgm), GUEST_HIGH_START + MiB(512));
    ck_assert_ptr_eq(guest_mem_ptr(&bgm, GUEST_HIGH_START, 8), big + GUEST_HOLE_START);
    ck_assert_ptr_eq(guest_mem_ptr(&bgm, GUEST_HOLE_START - 8, 8), big + GUEST_HOLE_START - 8);
    big[GUEST_HOLE_START + 0x123] = 0x77;
    uint8_t b = 0;
    ck_assert(guest_mem_read(&bgm, GUEST_HIGH_START + 0x123, &b, 1));
    ck_assert_uint_eq(b, 0x77);
}
END_TEST

/* With a touched bitmap, every page a pointer was handed out for is
 * marked, by the mapping's page numbers (above the hole too: 4 GiB is the
 * page after the last one below it); failed accesses mark nothing. */
START_TEST(pages_handed_to_host_code_are_marked)
{
    static uint8_t touched[BIG_SIZE / 4096 / 8 + 1];
    bgm.touched = touched;
    const uint64_t hole_page = GUEST_HOLE_START / 4096;
    uint8_t v[16] = { 1 };
    ck_assert(guest_mem_write(&bgm, 0x1ff8, v, 16));   /* pages 1 and 2 */
    ck_assert_ptr_nonnull(guest_mem_ptr(&bgm, GUEST_HIGH_START + 4096, 1));
    ck_assert(!guest_mem_write(&bgm, GUEST_HOLE_START - 4, v, 8));
    ck_assert_ptr_null(guest_mem_ptr(&bgm, GUEST_HOLE_START, 1));
    ck_assert(guest_mem_read(&bgm, 0x10000, v, 8));   /* a read marks nothing */
    unsigned marked = 0;
    for (uint64_t p = 0; p < BIG_SIZE / 4096; p++)
        if (touched[p / 8] & (1u << (p % 8))) {
            ck_assert(p == 1 || p == 2 || p == hole_page + 1);
            marked++;
        }
    ck_assert_uint_eq(marked, 3);
    bgm.touched = NULL;
}
END_TEST

START_TEST(the_hole_and_its_edges_are_not_ram)
{
    ck_assert_ptr_null(guest_mem_ptr(&bgm, GUEST_HOLE_START, 1));
    ck_assert_ptr_null(guest_mem_ptr(&bgm, 0xfee00000, 4));                 /* LAPIC */
    ck_assert_ptr_null(guest_mem_ptr(&bgm, GUEST_HIGH_START - 1, 1));
    ck_assert_ptr_null(guest_mem_ptr(&bgm, GUEST_HOLE_START - 4, 8));       /* spans into the hole */
    ck_assert_ptr_null(guest_mem_ptr(&bgm, GUEST_HIGH_START - 4, 8));       /* spans out of it */
    ck_assert_ptr_null(guest_mem_ptr(&bgm, GUEST_HIGH_START + MiB(512), 1));
    ck_assert_ptr_null(guest_mem_ptr(&bgm, GUEST_HIGH_START + MiB(512) - 4, 8));
    ck_assert_ptr_null(guest_mem_ptr(&bgm, GUEST_HIGH_START + 16, UINT64_MAX - 8));
    ck_assert_ptr_null(guest_mem_ptr(&bgm, 0, GUEST_HOLE_START + 1));
}
END_TEST

/* ---- guest-virtual: physical view ------------------------------------------------ */

START_TEST(view_without_paging_is_physical)
{
    struct guest_view v = { &gm, 0, false, false, false, false };
    uint64_t pa = 0;
    ck_assert(guest_view_translate(&v, 0x123456, &pa));
    ck_assert_uint_eq(pa, 0x123456);
    ck_assert(guest_view_write_u64(&v, 0x1000, 0x1122334455667788ULL));
    ck_assert_uint_eq(ram[0x1000], 0x88);
    uint64_t x = 0;
    ck_assert(guest_view_read_u64(&v, 0x1000, &x));
    ck_assert_uint_eq(x, 0x1122334455667788ULL);
    ck_assert(guest_view_accessible(&v, RAM_SIZE - 8, 8));
    ck_assert(!guest_view_accessible(&v, RAM_SIZE - 8, 9));
    ck_assert(!guest_view_read_u64(&v, RAM_SIZE - 4, &x));
    ck_assert(!guest_view_accessible(&v, UINT64_MAX - 3, 8));   /* va + len wraps */
}
END_TEST

/* ---- guest-virtual: 4-level paging -------------------------------------------------- */

START_TEST(four_level_4k_2m_and_1g_pages_translate)
{
    tables_init(4);
    map(0x00007f0000001000ULL, 0x200000, 1);     /* 4 KiB */
    map(0x0000000040000000ULL, 0x600000, 2);     /* 2 MiB */
    map(0x0000008000000000ULL, 0, 3);            /* 1 GiB, PML4 slot 1 */
    map(0xffff800000000000ULL, 0x300000, 1);     /* kernel half, PML4 slot 256 */
    struct guest_view v = view();
    ck_assert(translates_to(&v, 0x00007f0000001abcULL, 0x200abc));
    ck_assert(translates_to(&v, 0x0000000040123456ULL, 0x723456));
    ck_assert(translates_to(&v, 0x0000008000abcdefULL, 0xabcdef));
    ck_assert(translates_to(&v, 0xffff800000000010ULL, 0x300010));
    /* Not canonical (bits 63:47 differ): #GP on the CPU, so no page, though
     * the walk's indexes are those of the kernel-half address above. */
    uint64_t pa;
    ck_assert(!guest_view_translate(&v, 0x0000800000000010ULL, &pa));
    ck_assert(!guest_view_translate(&v, 0x7fff800000000010ULL, &pa));
    ck_assert(!guest_view_translate(&v, 0x8000800000000010ULL, &pa));
    uint8_t across[2];
    ck_assert(!guest_view_read(&v, 0x00007fffffffffffULL, across, 2));   /* into the hole */
    ram[0x723456] = 0x42;
    uint8_t b = 0;
    ck_assert(guest_view_read(&v, 0x0000000040123456ULL, &b, 1));
    ck_assert_uint_eq(b, 0x42);
}
END_TEST

START_TEST(non_present_entries_at_each_level_fail)
{
    tables_init(4);
    map(0x200000, 0x400000, 1);
    struct guest_view v = view();
    uint64_t pa;
    ck_assert(guest_view_translate(&v, 0x200000, &pa));
    ck_assert(!guest_view_translate(&v, 0x201000, &pa));                 /* PTE not present */
    ck_assert(!guest_view_translate(&v, 0x400000, &pa));                 /* PDE not present */
    ck_assert(!guest_view_translate(&v, 0x40000000, &pa));               /* PDPTE not present */
    ck_assert(!guest_view_translate(&v, 0x0000008000000000ULL, &pa));    /* PML4E not present */
    *entry_for(0x200000, 1) &= ~PTE_P;                                   /* present bit only */
    ck_assert(!guest_view_translate(&v, 0x200000, &pa));
    uint64_t x;
    ck_assert(!guest_view_read_u64(&v, 0x200000, &x));
}
END_TEST

START_TEST(tables_pointing_outside_ram_fail)
{
    tables_init(4);
    map(0x200000, 0x400000, 1);
    struct guest_view v = view();
    uint64_t *pde = entry_for(0x200000, 2);
    uint64_t saved = *pde;
    *pde = GiB(1) | PTE_P | PTE_RW;                  /* page table beyond RAM */
    uint64_t pa;
    ck_assert(!guest_view_translate(&v, 0x200000, &pa));
    *pde = saved;
    struct guest_view bad_root = { &gm, GiB(2), false, false, false, false };
    ck_assert(!guest_view_translate(&bad_root, 0x200000, &pa));
    /* A mapping whose target is outside RAM translates but cannot be accessed. */
    map(0x300000, GiB(3), 1);
    ck_assert(!guest_view_accessible(&v, 0x300000, 1));
    uint8_t b;
    ck_assert(!guest_view_read(&v, 0x300000, &b, 1));
}
END_TEST

START_TEST(reads_spanning_pages_follow_each_mapping)
{
    tables_init(4);
    map(0x10000000, 0x500000, 1);
    map(0x10001000, 0x380000, 1);                   /* physically below the first */
    memset(ram + 0x500ff8, 0xa1, 8);
    memset(ram + 0x380000, 0xb2, 8);
    struct guest_view v = view();
    uint8_t buf[16];
    ck_assert(guest_view_read(&v, 0x10000ff8, buf, 16));
    for (unsigned i = 0; i < 16; i++)
        ck_assert_uint_eq(buf[i], i < 8 ? 0xa1 : 0xb2);
    ck_assert(guest_view_fill(&v, 0x10000ffc, 0xcc, 8));
    ck_assert_uint_eq(ram[0x500ffc], 0xcc);
    ck_assert_uint_eq(ram[0x380003], 0xcc);
    ck_assert_uint_eq(ram[0x380004], 0xb2);
}
END_TEST

START_TEST(failed_virtual_writes_are_not_partial)
{
    tables_init(4);
    map(0x10000000, 0x500000, 1);                   /* next page unmapped */
    struct guest_view v = view();
    uint8_t src[32];
    memset(src, 0xee, sizeof(src));
    ck_assert(!guest_view_write(&v, 0x10000ff0, src, 32));
    ck_assert(!guest_view_fill(&v, 0x10000ff0, 0xee, 32));
    ck_assert(!guest_view_write_u64(&v, 0x10000ffc, ~0ULL));
    for (unsigned i = 0; i < 16; i++)
        ck_assert_uint_eq(ram[0x500ff0 + i], 0);
    /* A mapping to memory beyond RAM on the second page: same rule. */
    map(0x10001000, RAM_SIZE, 1);
    ck_assert(!guest_view_write(&v, 0x10000ff0, src, 32));
    ck_assert_uint_eq(ram[0x500ff0], 0);
}
END_TEST

/* ---- guest-virtual: 5-level paging ---------------------------------------------------- */

START_TEST(five_level_tables_use_the_pml5_index)
{
    tables_init(5);
    map(0x0001000000001000ULL, 0x200000, 1);     /* PML5 slot 1 */
    map(0xff00000000000000ULL, 0x600000, 2);     /* PML5 slot 256, 2 MiB page */
    map(0x0000000040000000ULL, 0, 3);            /* 1 GiB page under PML5 slot 0 */
    struct guest_view v = view();
    ck_assert(translates_to(&v, 0x0001000000001234ULL, 0x200234));
    ck_assert(translates_to(&v, 0xff00000000123456ULL, 0x723456));
    ck_assert(translates_to(&v, 0x0000000040abcdefULL, 0xabcdef));
    uint64_t pa;
    ck_assert(!guest_view_translate(&v, 0x0000000000001000ULL, &pa));
    /* Not canonical with LA57 (bits 63:56 differ), though slot 256's. */
    ck_assert(!guest_view_translate(&v, 0x0100000000123456ULL, &pa));
    ck_assert(!guest_view_translate(&v, 0xfe00000000123456ULL, &pa));
    /* The same tables read as 4-level: the PML5 is taken for a PML4. */
    struct guest_view v4 = { &gm, root, false, false, false, false };
    ck_assert(!translates_to(&v4, 0x0001000000001234ULL, 0x200234));
}
END_TEST

START_TEST(five_level_reads_and_writes)
{
    tables_init(5);
    map(0x0023000000000000ULL, 0x700000, 1);
    struct guest_view v = view();
    ck_assert(guest_view_write_u64(&v, 0x0023000000000008ULL, 0xdeadbeefcafef00dULL));
    uint64_t x = 0;
    memcpy(&x, ram + 0x700008, 8);
    ck_assert_uint_eq(x, 0xdeadbeefcafef00dULL);
    ck_assert(!guest_view_write_u64(&v, 0x0024000000000008ULL, 1));
}
END_TEST

/* Guest text on handover's own output: printable ASCII as itself, every
 * other byte (ESC, DEL, UTF-8 bytes) as \xNN, never cut inside an escape. */
static void log_line(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    guest_text_log_line(f, "handover: ", fmt, ap);
    va_end(ap);
}

START_TEST(guest_text_is_escaped_on_handovers_output)
{
    char out[32];
    ck_assert_uint_eq(guest_text_escape(out, sizeof(out), "ok \x1b[2J\x7f~\xc3\xa9\t"), 27);
    ck_assert_str_eq(out, "ok \\x1b[2J\\x7f~\\xc3\\xa9\\x09");
    ck_assert_uint_eq(guest_text_escape(out, 6, "ab\x1b"), 2);   /* "\x1b" would not fit */
    ck_assert_str_eq(out, "ab");
    ck_assert(guest_text_printable(' ') && guest_text_printable('~'));
    ck_assert(!guest_text_printable(0x1f) && !guest_text_printable(0x7f) && !guest_text_printable(0xe9));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    char line[3000];
    memset(line, 'x', sizeof(line) - 2);
    line[sizeof(line) - 2] = 0x1b;
    line[sizeof(line) - 1] = 0;
    log_line(f, "last console line: %s", "\x1b]0;owned\x07");
    log_line(f, "%s", line);   /* longer than the first buffer: whole, still escaped */
    fclose(f);
    ck_assert_ptr_nonnull(strstr(buf, "handover: last console line: \\x1b]0;owned\\x07\n"));
    ck_assert_ptr_nonnull(strstr(buf, "xxx\\x1b\n"));
    ck_assert_uint_eq(len, strlen("handover: last console line: \\x1b]0;owned\\x07\n") + 10 + 2998 + 4 + 1);
    ck_assert_ptr_null(memchr(buf, 0x1b, len));
    free(buf);
}
END_TEST

Suite *guest_mem_suite(void)
{
    Suite *s = suite_create("guest_mem");
    TCase *tc = tcase_create("physical");
    tcase_add_checked_fixture(tc, small_setup, small_teardown);
    tcase_add_test(tc, small_ram_is_one_range_below_the_hole);
    tcase_add_test(tc, pointers_stop_at_the_end_of_ram);
    tcase_add_test(tc, gpa_plus_len_overflow_is_refused);
    tcase_add_test(tc, failed_physical_accesses_have_no_effect);
    suite_add_tcase(s, tc);

    tc = tcase_create("hole");
    tcase_add_checked_fixture(tc, big_setup, big_teardown);
    tcase_add_test(tc, ram_above_3g_continues_at_4g);
    tcase_add_test(tc, the_hole_and_its_edges_are_not_ram);
    tcase_add_test(tc, pages_handed_to_host_code_are_marked);
    suite_add_tcase(s, tc);

    tc = tcase_create("paging");
    tcase_add_checked_fixture(tc, small_setup, small_teardown);
    tcase_add_test(tc, view_without_paging_is_physical);
    tcase_add_test(tc, four_level_4k_2m_and_1g_pages_translate);
    tcase_add_test(tc, non_present_entries_at_each_level_fail);
    tcase_add_test(tc, tables_pointing_outside_ram_fail);
    tcase_add_test(tc, reads_spanning_pages_follow_each_mapping);
    tcase_add_test(tc, failed_virtual_writes_are_not_partial);
    tcase_add_test(tc, five_level_tables_use_the_pml5_index);
    tcase_add_test(tc, five_level_reads_and_writes);
    suite_add_tcase(s, tc);

    tc = tcase_create("text");
    tcase_add_test(tc, guest_text_is_escaped_on_handovers_output);
    suite_add_tcase(s, tc);
    return s;
}
