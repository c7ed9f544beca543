/* libFuzzer harness for the device trees of --dtb (loader/dtb.c): a
 * --dtb FILE's bytes through dtb_check, which vmm/boot.c's read_dtb runs
 * before it passes the file to the kernel as SETUP_DTB setup_data, and
 * --dtb auto's machine, with --cmdline's bytes as bootargs, through
 * dtb_build into a buffer of a given size.
 *
 * Input format: a mode byte (bit 0), then
 *   0 auto: a u32 buffer size (% 64 KiB + 1: a blob is a few KiB, and
 *     any larger buffer, up to vmm/boot.c's 1 MiB, is as good), a RAM
 *     range count byte (% 3) and two ranges (start and size, u64 each;
 *     a second range starts after the first, as guest_mem_ranges gives
 *     them), a CPU count byte, a UART count byte (% 3) and two UARTs
 *     (port u16, IRQ byte; ports distinct, as COM1 and COM2 are), then
 *     bootargs: the rest, up to a NUL
 *   1 file: the rest, copied to a buffer of exactly its size
 *
 * Checks, from dtb.h: dtb_check accepts a file only when its header says
 * a flattened device tree whose blocks lie inside its totalsize and that
 * totalsize inside the file, and libfdt's full check reads its structure
 * block whole; dtb_build returns 0 or a blob of at most
 * the buffer's size that dtb_check and libfdt's full check accept, whose
 * /chosen bootargs are the command line and which has a node for each
 * CPU, RAM range and UART. abort() otherwise. */
#include <libfdt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../loader/dtb.h"
#include "fuzz_harness.h"
#include "fuzz_input.h"

#define DTB_BUFFER_MAX (64u << 10)
#define BOOTARGS_MAX 4096

/* Is [off, off + size) inside total? */
static bool inside(uint32_t off, uint32_t size, uint32_t total)
{
    return off <= total && size <= total - off;
}

static void check_file(const uint8_t *file, size_t len)
{
    if (dtb_check(file, len))
        return;
    CHECK(len >= sizeof(struct fdt_header));
    CHECK(fdt_magic(file) == FDT_MAGIC);
    uint32_t total = fdt_totalsize(file);
    CHECK(total <= len && total >= sizeof(struct fdt_header));
    CHECK(inside(fdt_off_mem_rsvmap(file), 0, total));
    CHECK(inside(fdt_off_dt_strings(file), fdt_version(file) >= 3 ? fdt_size_dt_strings(file) : 0, total));
    CHECK(inside(fdt_off_dt_struct(file), fdt_version(file) >= 17 ? fdt_size_dt_struct(file) : 0, total));
    CHECK(fdt_check_full(file, len) == 0);
}

static int count_nodes(const void *fdt, const char *prefix)
{
    int n = 0, node;
    fdt_for_each_subnode(node, fdt, 0) {
        const char *name = fdt_get_name(fdt, node, NULL);
        CHECK(name);
        n += !strncmp(name, prefix, strlen(prefix));
    }
    return n;
}

static void check_build(struct fuzz_in *in)
{
    size_t cap = in_u32(in) % DTB_BUFFER_MAX + 1;
    struct dtb_machine m;
    memset(&m, 0, sizeof(m));
    m.nram = in_u8(in) % 3;
    for (unsigned i = 0; i < 2; i++) {
        m.ram[i][0] = in_u64(in);
        m.ram[i][1] = in_u64(in);
    }
    if (m.nram == 2 && m.ram[1][0] <= m.ram[0][0])
        m.ram[1][0] = m.ram[0][0] + 1;
    m.cpus = in_u8(in);
    m.nuart = in_u8(in) % 3;
    for (unsigned i = 0; i < 2; i++) {
        m.uart[i].port = in_u16(in);
        m.uart[i].irq = in_u8(in);
    }
    if (m.uart[1].port == m.uart[0].port)
        m.uart[1].port++;
    static char bootargs[BOOTARGS_MAX + 1];
    size_t k = 0;
    while (in->n && k < BOOTARGS_MAX && *in->p)
        bootargs[k++] = (char)in_u8(in);
    bootargs[k] = 0;
    m.bootargs = bootargs;

    uint8_t *buf = malloc(cap);
    CHECK(buf);
    size_t len = dtb_build(buf, cap, &m);
    if (len) {
        CHECK(len <= cap);
        CHECK(dtb_check(buf, len) == 0);
        CHECK(fdt_check_full(buf, len) == 0);
        int chosen = fdt_path_offset(buf, "/chosen");
        CHECK(chosen >= 0);
        const char *got = fdt_getprop(buf, chosen, "bootargs", NULL);
        CHECK(got && !strcmp(got, bootargs));
        int cpus = fdt_path_offset(buf, "/cpus"), n = 0, node;
        CHECK(cpus >= 0);
        fdt_for_each_subnode(node, buf, cpus) n++;
        CHECK(n == (int)m.cpus);
        CHECK(count_nodes(buf, "memory@") == (int)m.nram);
        CHECK(count_nodes(buf, "serial@") == (int)m.nuart);
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = { data, size };
    if (in_u8(&in) & 1) {
        uint8_t *file = malloc(in.n ? in.n : 1);
        CHECK(file);
        size_t len = in.n;
        in_bytes(&in, file, len);
        check_file(file, len);
        free(file);
    } else {
        check_build(&in);
    }
    return 0;
}
