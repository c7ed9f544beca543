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
/* Is buf[0..len) a valid FDT blob of exactly totalsize <= len? */
int dtb_check(const void *buf, size_t len);

#endif
