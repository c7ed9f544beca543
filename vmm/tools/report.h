/* --report FILE and --kunit-json FILE (report.c): what a run keeps for
 * them as it goes, and their writers. The JSON of plain structs, no VM:
 * report_hooks.c gathers them from one. */
#ifndef HANDOVER_REPORT_H
#define HANDOVER_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../../firmware-stub/memmap.h"
#include "../../firmware-stub/state.h"
#include "../../guest/bootparam.h"
#include "../../guest/guest_mem.h"
#include "../verdict/ktap.h"
#include "../verdict/memattr_check.h"
#include "../verdict/run_counters.h"

/* What a run keeps as it goes; each NULL until kept. */
struct report_data {
    struct memmap *map_at_ebs;
    struct memattr_check *memattr_at_ebs;
    struct boot_params *bp_copy;
    char *console_log;                /* the first REPORT_CONSOLE_MAX bytes */
    size_t console_log_len;
};

/* What the report says of the run at its end, besides what it kept. */
struct report_facts {
    const char *kernel;               /* the image's path; NULL: none given */
    const char *kernel_version;       /* "" if the image has none */
    uint16_t protocol, xloadflags;    /* the setup header's */
    const char *entry;                /* vmm_entry_name */
    const char *cmdline;
    int exit_status;
    const char *end_reason;           /* verdict/end_reason.h */
    const char *not_started_at;       /* the boot step it stopped at; NULL: the guest was entered */
    const char *efi_status;           /* the top-level image's, if it ended by Exit or return or Secure
                                         * Boot refused it; else NULL */
    uint64_t firmware_calls;
    const uint64_t *calls_by_id;      /* [FW_MAX_THUNKS] */
    const struct run_counters *counters;
    const double *milestone_at;       /* [MILESTONE_COUNT], seconds; 0: not reached */
    const struct guest_mem *mem;      /* the e820 past the zero page (setup_data); the RAM the host backed */
    const char *exec;                 /* --exec CMD; NULL: none */
    bool exec_status_known;           /* it reported its status, exec_status */
    int exec_status;
    const char *exec_output;          /* --exec-output FILE; NULL: none */
    const struct ktap *kunit;         /* --kunit's reader; NULL: no --kunit */
    const struct fw_tpm *tpm;         /* --tpm's PCRs; NULL: no --tpm */
    const char *secure_boot;          /* --secure-boot's mode at the end; NULL: no --secure-boot */
};

/* At ExitBootServices: the memory map and the kernel's protection (the
 * memattr check of the page tables in gm); at the kernel: the zero page;
 * each console byte. A copy that cannot be allocated is left out. */
void report_keep_map(struct report_data *r, const struct memmap *m);
void report_keep_memattr(struct report_data *r, const struct guest_mem *gm, const struct memmap *m);
void report_keep_boot_params(struct report_data *r, const struct boot_params *bp);
void report_keep_console(struct report_data *r, uint8_t byte);
void report_data_free(struct report_data *r);

/* The report; -1 with errno on failure (EILSEQ: a string that is not UTF-8). */
int report_write(FILE *out, const struct report_facts *f, const struct report_data *d);
/* --kunit-json: kunit.py --json's format, for the image at kernel (NULL:
 * none), the guest entered or not; -1 with errno on failure. */
int report_write_kunit_json(FILE *out, const struct ktap *k, const char *kernel, bool started);

#endif
