/* The state file of a --snapshot directory (vmm/tools/warm_boot.h): a header
 * that says what the file is and what it was made from, then the payload
 * (the vCPU, the irqchips, the devices, the firmware, the clock). Guest
 * RAM is a file of its own, mapped as it is. Nothing here touches KVM or
 * a file: the checks work on bytes, so the unit tests give them any. */
#ifndef HANDOVER_SNAPSHOT_FILE_H
#define HANDOVER_SNAPSHOT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SNAPSHOT_MAGIC "HOVRSNAP"
/* 2: the saved /init reads "SEED LEN RUN" (scripts/handover-init.sh); one
 * of version 1 would take "LEN RUN" for the length. */
#define SNAPSHOT_VERSION 2
/* A state file larger than this is not one (a vCPU's MSRs are a few KiB). */
#define SNAPSHOT_STATE_MAX (1u << 20)

/* What a snapshot was made from: the kernel's and the initrd's bytes
 * (with the archive handover appends) and the options that shape the VM,
 * each as its length and zlib's CRC-32. Another snapshot's inputs differ
 * in some field: a new snapshot is made, never a wrong one restored. */
struct snapshot_inputs {
    uint64_t kernel_size, initrd_size, options_size;
    uint32_t kernel_crc, initrd_crc, options_crc;
    uint32_t layout;   /* the CRC-32 of the sizes of the saved structures: another build's are refused */
};

/* All fields little-endian, as this x86-64 host writes them. */
struct snapshot_header {
    char magic[8];
    uint32_t version;
    uint32_t header_size;     /* sizeof(struct snapshot_header) */
    uint64_t payload_size;    /* bytes after the header */
    uint64_t ram_size;        /* bytes of the RAM file */
    struct snapshot_inputs inputs;
    uint32_t payload_crc;
    uint32_t header_crc;      /* over every byte above */
};

/* A payload being written or read, in order, with its bounds checked. */
struct snapshot_cursor {
    uint8_t *buf;
    size_t len, at;
    bool failed;              /* a put past the end (or out of memory), or a take past the end */
};

/* Append n bytes (the buffer grows up to SNAPSHOT_STATE_MAX). */
void snapshot_put(struct snapshot_cursor *c, const void *data, size_t n);
/* The next n bytes into dst: false (and failed set) if there are fewer. */
bool snapshot_take(struct snapshot_cursor *c, void *dst, size_t n);

/* zlib's CRC-32 of n bytes; _more goes on from the CRC of the bytes before. */
uint32_t snapshot_crc(const void *data, size_t n);
uint32_t snapshot_crc_more(uint32_t so_far, const void *data, size_t n);

/* The header for a payload of len bytes and RAM of ram_size bytes. */
void snapshot_seal(struct snapshot_header *h, const struct snapshot_inputs *in, const void *payload, size_t len,
                   uint64_t ram_size);
/* A whole state file of len bytes: NULL with the header in *h, or what is
 * wrong with it, as a phrase ("truncated: 120 of 4096 bytes"; why points
 * into a static buffer). */
const char *snapshot_check(const void *file, size_t len, struct snapshot_header *h);
/* Whether a state file of len bytes is handover's, but of another version
 * of the format (its magic, then another version or header size): a
 * snapshot an older or newer handover made, which this one replaces. */
bool snapshot_other_version(const void *file, size_t len);
/* Whether the byte at each of the n offsets into data, a structure
 * taken from a state file, is 0 or 1: a bool that holds another value is
 * undefined when read (C11 6.2.6.1), so a payload's bools are checked as
 * bytes before any is read. */
bool snapshot_bools_valid(const void *data, const size_t *offsets, size_t n);
bool snapshot_inputs_equal(const struct snapshot_inputs *a, const struct snapshot_inputs *b);

#endif
