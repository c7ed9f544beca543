/* A flattened device tree describing the machine (memory, CPUs, serial
 * ports, chosen/bootargs), built with libfdt, for the kernel's SETUP_DTB
 * setup_data (Documentation/arch/x86/boot.rst, "setup_data"). */
#ifndef HANDOVER_DTB_H
#define HANDOVER_DTB_H

#include <stddef.h>
#include <stdint.h>

struct dtb_machine {
    uint64_t ram[2][2];        /* {start, size} */
    unsigned nram;
    unsigned cpus;
    const char *bootargs;
    struct { uint16_t port; uint8_t irq; } uart[2];   /* 8250s; the first is stdout-path */
    unsigned nuart;
};

/* Build into buf; returns the blob's size, or 0 if it does not fit. */
size_t dtb_build(void *buf, size_t cap, const struct dtb_machine *m);
/* 0 if buf[0..len) starts with a valid FDT blob of totalsize <= len:
 * its header, and its structure block read whole by libfdt's
 * fdt_check_full (tags, nesting, names in the strings block). */
int dtb_check(const void *buf, size_t len);

#endif
