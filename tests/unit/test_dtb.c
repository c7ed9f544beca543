/* loader/dtb.c: the device tree for the kernel's SETUP_DTB setup_data,
 * read back with libfdt. */
#include <libfdt.h>

#include "suites.h"
#include "../../loader/dtb.h"

START_TEST(dtb_reads_back_with_libfdt)
{
    static uint8_t blob[16384];
    struct dtb_machine m = { .ram = { { 0, 0xc0000000 }, { 0x100000000, 0x40000000 } }, .nram = 2, .cpus = 2,
                             .bootargs = "console=ttyS0", .uart = { { 0x3f8, 4 }, { 0x2f8, 3 } }, .nuart = 1 };
    size_t n = dtb_build(blob, sizeof(blob), &m);
    ck_assert_uint_gt(n, 0);
    ck_assert_int_eq(dtb_check(blob, n), 0);
    int len;
    const char *args = fdt_getprop(blob, fdt_path_offset(blob, "/chosen"), "bootargs", &len);
    ck_assert_str_eq(args, "console=ttyS0");
    int mem = fdt_path_offset(blob, "/memory@100000000");
    ck_assert_int_ge(mem, 0);
    const fdt64_t *reg = fdt_getprop(blob, mem, "reg", &len);
    ck_assert_int_eq(len, 16);
    ck_assert_uint_eq(fdt64_to_cpu(reg[0]), 0x100000000ULL);
    ck_assert_uint_eq(fdt64_to_cpu(reg[1]), 0x40000000ULL);
    ck_assert_int_ge(fdt_path_offset(blob, "/cpus/cpu@1"), 0);
    ck_assert_int_lt(fdt_path_offset(blob, "/cpus/cpu@2"), 0);
    const char *compat = fdt_getprop(blob, fdt_path_offset(blob, "/serial@3f8"), "compatible", &len);
    ck_assert_str_eq(compat, "ns16550a");
    ck_assert_str_eq(fdt_getprop(blob, fdt_path_offset(blob, "/chosen"), "stdout-path", &len), "/serial@3f8");
    ck_assert_int_lt(fdt_path_offset(blob, "/serial@2f8"), 0);
    /* --exec-output: COM2 too, with its own port and interrupt. */
    m.nuart = 2;
    ck_assert_uint_gt(dtb_build(blob, sizeof(blob), &m), 0);
    int com2 = fdt_path_offset(blob, "/serial@2f8");
    ck_assert_int_ge(com2, 0);
    reg = fdt_getprop(blob, com2, "reg", &len);
    ck_assert_int_eq(len, 16);
    ck_assert_uint_eq(fdt64_to_cpu(reg[0]), 0x2f8);
    const fdt32_t *irq = fdt_getprop(blob, com2, "interrupts", &len);
    ck_assert_int_eq(len, 4);
    ck_assert_uint_eq(fdt32_to_cpu(irq[0]), 3);
    ck_assert_str_eq(fdt_getprop(blob, fdt_path_offset(blob, "/chosen"), "stdout-path", &len), "/serial@3f8");
    m.nuart = 1;
    /* Too small a buffer, and damaged blobs, are refused. */
    ck_assert_uint_eq(dtb_build(blob, 64, &m), 0);
    n = dtb_build(blob, sizeof(blob), &m);
    ck_assert_int_ne(dtb_check(blob, n - 1), 0);
    blob[0] ^= 0xff;
    ck_assert_int_ne(dtb_check(blob, n), 0);
}
END_TEST

/* A --dtb FILE whose header is sound but whose structure block is not
 * (a tag no FDT has, a property named past the strings block) is refused:
 * the kernel checks only the header before it unflattens the tree. */
START_TEST(dtb_with_a_bad_structure_block_is_refused)
{
    static uint8_t blob[16384];
    struct dtb_machine m = { .ram = { { 0, 0x20000000 } }, .nram = 1, .cpus = 1, .bootargs = "console=ttyS0",
                             .uart = { { 0x3f8, 4 } }, .nuart = 1 };
    size_t n = dtb_build(blob, sizeof(blob), &m);
    ck_assert_uint_gt(n, 0);
    ck_assert_int_eq(dtb_check(blob, n), 0);
    fdt32_t *first_tag = (fdt32_t *)(blob + fdt_off_dt_struct(blob));
    ck_assert_uint_eq(fdt32_to_cpu(*first_tag), FDT_BEGIN_NODE);
    *first_tag = cpu_to_fdt32(0x0badf00d);
    ck_assert_int_eq(fdt_check_header(blob), 0);
    ck_assert_int_ne(dtb_check(blob, n), 0);

    n = dtb_build(blob, sizeof(blob), &m);
    int chosen = fdt_path_offset(blob, "/chosen");
    ck_assert_int_ge(chosen, 0);
    int prop = fdt_first_property_offset(blob, chosen);
    ck_assert_int_ge(prop, 0);
    struct fdt_property *p = (struct fdt_property *)(blob + fdt_off_dt_struct(blob) + prop);
    p->nameoff = cpu_to_fdt32(fdt_size_dt_strings(blob) + 64);
    ck_assert_int_eq(fdt_check_header(blob), 0);
    ck_assert_int_ne(dtb_check(blob, n), 0);
}
END_TEST

Suite *dtb_suite(void)
{
    Suite *s = suite_create("dtb");
    TCase *t = tcase_create("dtb");
    tcase_add_test(t, dtb_reads_back_with_libfdt);
    tcase_add_test(t, dtb_with_a_bad_structure_block_is_refused);
    suite_add_tcase(s, t);
    return s;
}
