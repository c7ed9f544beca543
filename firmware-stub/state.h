/* The firmware's state (struct firmware) and the region it builds in guest
 * memory; every service works on these.
 *
 * The firmware occupies FW_REGION_SIZE bytes at the base it is given:
 *   +0x0000 thunks                       EfiRuntimeServicesCode
 *   +0x1000 systab, RT table, config     EfiRuntimeServicesData
 *           table array, FirmwareVendor
 *   +0x2000 BS table, protocols, handles EfiBootServicesData
 *           (ConOut, ConIn, LoadedImage, RNG, the initrd's LoadFile2,
 *           the memory attribute protocol, TCG2 with --tpm),
 *           event handles, handles made on demand
 *   +0x3000 LoadOptions (UCS-2)          EfiBootServicesData
 */
#ifndef HANDOVER_FW_STATE_H
#define HANDOVER_FW_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "efi.h"
#include "inject_kind.h"
#include "memmap.h"
#include "region.h"
#include "../guest/guest_mem.h"
#include "../guest/layout.h"

#define FW_THUNK_SIZE     8
#define FW_THUNK_RET      7   /* a thunk's RET, after mov eax, imm32 (5 bytes) and out imm8, eax (2) */
#define FW_MAX_THUNKS     (0x1000 / FW_THUNK_SIZE)

/* Service IDs are thunk slots. 0 is never a service. */
/* i: the service's index in its group (services.h). */
#define FW_ID_BS(i)        (1 + (i))      /* EFI_BOOT_SERVICES, enum efi_boot_service */
#define FW_ID_RT(i)        (64 + (i))     /* EFI_RUNTIME_SERVICES, enum efi_runtime_service */
#define FW_ID_CONOUT(i)    (96 + (i))     /* EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL, enum efi_conout_service */
#define FW_ID_CONIN(i)     (112 + (i))    /* EFI_SIMPLE_TEXT_INPUT_PROTOCOL, enum efi_conin_service */
#define FW_ID_RNG(i)       (128 + (i))    /* EFI_RNG_PROTOCOL, enum efi_rng_service */
#define FW_ID_MEMATTR(i)   (130 + (i))    /* EFI_MEMORY_ATTRIBUTE_PROTOCOL, enum efi_memattr_service */
#define FW_ID_LOADFILE2    136            /* EFI_LOAD_FILE2_PROTOCOL.LoadFile (the initrd) */
/* Return address of an entry point StartImage calls: its thunk pushes RAX
 * (the image's status) before the OUT, and has no RET. */
#define FW_ID_START_IMAGE_RETURN 137
#define FW_ID_TCG2(i)      (140 + (i))    /* EFI_TCG2_PROTOCOL (--tpm), enum efi_tcg2_service */
_Static_assert(FW_ID_BS(BS_COUNT) <= FW_ID_RT(0) && FW_ID_RT(RT_COUNT) <= FW_ID_CONOUT(0) &&
               FW_ID_CONOUT(CONOUT_COUNT) <= FW_ID_CONIN(0) && FW_ID_CONIN(CONIN_COUNT) <= FW_ID_RNG(0) &&
               FW_ID_RNG(RNG_COUNT) <= FW_ID_MEMATTR(0) && FW_ID_MEMATTR(MEMATTR_COUNT) <= FW_ID_LOADFILE2,
               "each group's IDs end before the next group's start");
/* The --esp volume (simple_fs.c): EFI_SIMPLE_FILE_SYSTEM_PROTOCOL.OpenVolume,
 * then EFI_FILE_PROTOCOL's functions (enum efi_file_service). */
#define FW_ID_FILE_SYSTEM  160
#define FW_ID_FILE(i)      (161 + (i))
_Static_assert(FW_ID_START_IMAGE_RETURN < FW_ID_TCG2(0) && FW_ID_TCG2(TCG2_COUNT) <= FW_ID_FILE_SYSTEM,
               "the TCG2 services' IDs sit between StartImage's return and the file services");
_Static_assert(FW_ID_START_IMAGE_RETURN < FW_ID_FILE_SYSTEM && FW_ID_FILE(FILE_COUNT) <= 256,
               "the file services' IDs sit between StartImage's return and the exceptions");
/* The --esp volume as a disk (block_io.c): EFI_BLOCK_IO_PROTOCOL's
 * functions (enum efi_block_io_service). */
#define FW_ID_BLOCK_IO(i)  (176 + (i))
_Static_assert(FW_ID_FILE(FILE_COUNT) <= FW_ID_BLOCK_IO(0) && FW_ID_BLOCK_IO(BLOCK_IO_COUNT) <= 256,
               "the block I/O services' IDs sit between the file services and the exceptions");
#define FW_ID_EXCEPTION(v) (256 + (v))    /* IDT vector v, 0..31: handled by the VMM */
#define FW_ID_IS_EXCEPTION(id) ((id) >= 256 && (id) < 288)
/* Return address of the top-level image's entry point, handled by the VMM;
 * its thunk pushes RAX (the status) before the OUT, and has no RET. */
#define FW_ID_IMAGE_RETURN 288
/* The notify trampoline (events.c): entered with RCX = Event, RDX =
 * Context, R8 = NotifyFunction and RSP 16-byte aligned, it calls the
 * function with the Microsoft x64 ABI (32 bytes of shadow space) and
 * re-enters the firmware with this ID, RCX = Event and RDX = the function:
 *   push rcx; push r8; sub rsp, 0x20; call r8; add rsp, 0x20; pop rdx;
 *   pop rcx; mov eax, FW_ID_NOTIFY_RETURN; out GUEST_PORT_HYPERCALL, eax
 * It fills three thunk slots and has no RET: the firmware moves the vCPU on. */
#define FW_ID_NOTIFY_RETURN 289
#define FW_NOTIFY_TRAMPOLINE_SLOTS 3
/* Notify functions running at once, one inside another: each runs at a
 * TPL above the last (TPL_APPLICATION < TPL < TPL_HIGH_LEVEL). */
#define FW_MAX_NOTIFY_DEPTH 32

#define FW_TPL_APPLICATION 4
#define FW_TPL_CALLBACK    8
#define FW_TPL_NOTIFY      16
#define FW_TPL_HIGH_LEVEL  31
#define FW_MEMORY_DESCRIPTOR_SIZE 48  /* as EDK2: 40 bytes plus padding; callers must use the stride */
#define FW_CMDLINE_MAX 2048   /* COMMAND_LINE_SIZE of x86 kernels */
/* The largest image file copied into host memory: LoadImage's SourceSize
 * (image.c), and BZIMAGE or APP.efi from the command line (vmm/main.c). */
#define FW_IMAGE_FILE_MAX (256u << 20)

enum fw_phase { FW_PHASE_BOOT, FW_PHASE_RUNTIME };

/* Why the firmware wants the VM to stop. */
enum fw_stop {
    FW_RUN = 0,
    FW_STOP_EXIT,        /* the top-level image called BS->Exit, or returned from its entry point */
    FW_STOP_RESET,       /* RT->ResetSystem */
    FW_STOP_REFUSED,     /* Secure Boot refused the top-level image before it started */
    FW_STOP_WATCHDOG,    /* the watchdog expired in boot services: the platform resets (watchdog.c) */
};

struct fw_config {
    uint64_t base;               /* guest-physical base of the firmware region */
    uint64_t image_base, image_size; /* the loaded image (LoadedImage protocol) */
    const char *cmdline;         /* becomes LoadOptions (UCS-2) */
    FILE *console;               /* ConOut text, UTF-8 */
    uint64_t *console_used;      /* bytes printed so far, shared with the serial console; NULL: no limit */
    uint64_t console_limit;      /* --console-limit: printed bytes at most, for both */
    FILE *log;                   /* diagnostics (stderr), FW_LOG_LIMIT lines at most */
    FILE *trace;                 /* JSON Lines, one per call; NULL: off */
    uint64_t trace_limit;        /* bytes of trace at most */
    struct inject inject;        /* faults to inject (--inject) */
    const uint8_t *initrd;       /* non-NULL: offered through LoadFile2 */
    uint64_t initrd_size;
    bool seeded;                 /* --seed: deterministic EFI_RNG_PROTOCOL */
    uint64_t seed;
    const char *keys;            /* --keys: what ConIn.ReadKeyStroke returns (keys.h); NULL: none */
    unsigned bits;               /* 32: an IA-32 firmware (--firmware-bits 32, width.h); otherwise x64 */
    bool secure_boot;            /* --secure-boot: PK, KEK, db, dbx and the modes (secure_boot_keys.h) */
    /* The firmware's monotonic time in ns, its timers' only clock (events.c);
     * NULL (the VMM): the host's CLOCK_MONOTONIC. The firmware reads time
     * only when it looks at its timers, so this one seam lets the unit tests
     * give a clock they advance by hand, and no test depends on how fast the
     * host runs it. */
    uint64_t (*clock_ns)(void);
    /* The watchdog armed as the image starts, in seconds; 0: none (as
     * a boot manager arms it before a boot option, watchdog.c). */
    uint64_t watchdog_seconds;
};

struct fw_variable;
struct fw_esp;      /* esp_volume.h */
struct fw_call;

struct fw_handle_protocol {
    uint64_t handle;
    efi_guid_t guid;
    uint64_t interface;
};

#define FW_MAX_PROTOCOLS 64
#define FW_MAX_IMAGES    8    /* images LoadImage holds at once */
#define FW_MAX_DYN_HANDLES    128   /* at FW_DYN_HANDLES_OFFSET (region.h) */
#define FW_MAX_EVENTS    96         /* at FW_EVENTS_OFFSET (region.h) */
/* WaitForEvent with nothing signaled: the vCPU makes the call again after
 * the VMM slept until the earliest timer is due, and at most this long. */
#define FW_WAIT_MAX_NS   1000000000ULL
/* A firmware's timer tick: EDK2's timer period, 10 ms. A periodic timer
 * is signaled at most once a tick (events.c), and a vCPU halted to wait
 * for a timer is woken once a tick (vmm/kvm/halt_wake.c). */
#define FW_TIMER_TICK_NS 10000000ULL
/* A firmware call's sleep (Stall, WaitForEvent) is taken in slices of at
 * most this long, each after a look whether the run is ending
 * (vmm/kvm/run.c): the whole wait, and a stop still prompt. */
#define FW_SLEEP_SLICE_NS 1000000000ULL
#define FW_MAX_POOLS     1024
#define FW_MAX_CONFIG_TABLES 64
/* A guest can make the firmware log (calls after ExitBootServices, bad IDs,
 * bad pointers) in a loop: the log stops after this many lines. */
#define FW_LOG_LIMIT     1000
/* ReadKeyStroke polls after which the log says no key will ever come (GRUB
 * polls some 10^4 times a second on an emulated KVM, 10^6 on hardware). */
#define FW_KEY_POLLS_REPORTED 100000
/* Protocols asked for and not served, each said once; more go unsaid. */
#define FW_MAX_UNSERVED  32

struct fw_pool {
    uint64_t addr, pages;
    bool own;            /* the firmware's (fw_pool_take): FreePool refuses it */
};

#define FW_TPM_PCRS       24   /* PCRs 0-23 (TCG PC Client Platform Firmware Profile, section 3.3.4) */
#define FW_TPM_DIGEST     32   /* the one bank served: SHA-256 */

/* --tpm: the PCRs' SHA-256 bank and the event log in guest memory
 * (tcg2.c). The log is a TCG2 crypto-agile log at log, its last entry at
 * last_entry; once GetEventLog has handed it out, each later event goes
 * to the final-events table at final_table too (TCG EFI Protocol
 * Specification, section 7). */
struct fw_tpm {
    bool on;
    uint8_t pcr[FW_TPM_PCRS][FW_TPM_DIGEST];
    uint32_t extended;           /* bit i: PCR i extended at least once */
    uint32_t update_counter;     /* extends so far: TPM2_PCR_Read's pcrUpdateCounter */
    uint64_t log, log_size, log_capacity, last_entry;
    uint64_t final_table, final_size, final_capacity, final_events;
    bool log_handed_out;         /* GetEventLog(EFI_TCG2_EVENT_LOG_FORMAT_TCG_2) called */
    bool truncated;              /* an event did not fit in the log */
};

/* The watchdog timer (UEFI 2.10 section 7.5.1, watchdog.c): its time on
 * the firmware's clock, and what it logs when it expires. */
#define FW_WATCHDOG_DATA_MAX 64   /* WatchdogData's string kept, in CHAR16s, its NUL included */
struct fw_watchdog {
    bool armed;
    uint64_t seconds;            /* the Timeout set */
    uint64_t due;                /* ns of the firmware's clock */
    uint64_t code;               /* WatchdogCode */
    char data[FW_WATCHDOG_DATA_MAX];   /* WatchdogData's string in ASCII (another CHAR16 is ?); "" when none */
};

/* An event CreateEvent made. Times are nanoseconds of the firmware's clock (struct fw_config.clock_ns). */
struct fw_event {
    bool open;                   /* made and not closed */
    bool signaled;
    uint32_t type;               /* EVT_* */
    bool in_group;               /* CreateEventEx's EventGroup: signaled together */
    efi_guid_t group;
    bool armed;                  /* a timer set and not cancelled */
    bool periodic;
    uint64_t due, period;        /* next signal; TimerPeriodic's period */
    uint64_t notify_function, notify_context, notify_tpl;   /* EVT_NOTIFY_* */
    bool queued;                 /* its notify function waits to run */
    uint64_t queued_at;          /* order among those queued at one TPL */
    uint64_t made;               /* order of CreateEvent calls (a group's order) */
    uint64_t closed_at;          /* closed: order of CloseEvent calls (the slot reused first) */
};

/* What the call that sent the vCPU to notify functions does once they
 * have run (events.c). */
enum fw_notify_then {
    FW_NOTIFY_RETURN,            /* return its status */
    FW_NOTIFY_CHECK_EVENT,       /* CheckEvent: look at the event again */
    FW_NOTIFY_WAIT_AGAIN,        /* WaitForEvent: make the call again */
    FW_NOTIFY_EXIT_BOOT_SERVICES,   /* ExitBootServices: finish it */
};

/* A call whose notify functions are running: where it returns to, and
 * the TPL it was made at, which is restored when none above it is left. */
struct fw_notify_frame {
    unsigned id;                 /* the service called */
    uint64_t rsp;                /* its caller's RSP at the call (the return address) */
    uint64_t status;
    enum fw_notify_then then;
    uint64_t args[3];            /* CheckEvent's event; WaitForEvent's, for the call made again */
    uint64_t tpl;
    uint64_t stack;              /* the trampoline's RSP, below the caller's frame */
};

struct fw_events {
    struct fw_event slot[FW_MAX_EVENTS];   /* handle: base + FW_EVENTS_OFFSET + 8 * index (events.c) */
    unsigned n;                  /* slots used so far (open, or closed and free again) */
    uint64_t made, closed;       /* CreateEvent and CloseEvent calls so far (fw_event.made, .closed_at) */
    uint64_t wait_for_key;       /* ConIn.WaitForKey: signaled while keys remain */
    struct fw_notify_frame frame[FW_MAX_NOTIFY_DEPTH];   /* innermost last */
    unsigned depth;
    uint64_t queued;             /* notifications queued so far (fw_event.queued_at) */
    bool timers_stopped;         /* ExitBootServices stopped the tick: no timer fires */
    bool spent_reported, stuck_reported, stack_reported;   /* one-time log lines */
};

/* The Microsoft x64 callee-saved registers besides RSP: StartImage hands
 * them back to its caller as they were (UEFI 2.10 section 7.4.2). */
struct fw_callee_saved {
    uint64_t rbx, rbp, rdi, rsi, r12, r13, r14, r15;
    uint8_t xmm[10][16];         /* XMM6-XMM15 */
};

/* Where the vCPU goes after a service that transfers control (StartImage
 * entering an image; Exit or the entry's return unwinding to StartImage's
 * caller): these registers instead of only RAX. */
struct fw_transfer {
    bool pending;                /* set by this call; the VMM loads it (RAX: the call's status) */
    uint64_t rip, rsp, rcx, rdx, r8;
    bool restore;                /* also load saved (an unwind) */
    struct fw_callee_saved saved;
};

/* An image LoadImage made (UEFI 2.10 section 7.4.1). */
struct fw_image {
    uint64_t handle;
    uint64_t base, pages;        /* its memory, of type code_type */
    uint64_t info;               /* pool page: LoadedImage, its device paths */
    uint64_t entry;
    uint16_t subsystem;
    bool started;
    unsigned depth;              /* 0: not running; n: the nth image StartImage entered */
    /* StartImage's caller, restored when the image exits: its stack and
     * registers, its TPL and the notify functions running around it */
    uint64_t caller_rsp;
    uint64_t caller_tpl;
    unsigned caller_notify_depth;
    struct fw_callee_saved caller_saved;
    uint64_t exit_data_size_ptr, exit_data_ptr;
    struct guest_view caller_view;
};

struct firmware {
    struct fw_config cfg;
    const struct guest_mem *gm;
    struct memmap map;
    enum fw_phase phase;         /* FW_PHASE_RUNTIME once ExitBootServices succeeded */
    bool virtual_mode;           /* SetVirtualAddressMap done */

    /* guest addresses of what the firmware built */
    uint64_t systab, bs, rt, config_tables, vendor;
    uint64_t image_handle, con_out, con_in, con_out_handle, con_in_handle;
    uint64_t loaded_image, image_device_path;

    uint64_t nconfig;            /* configuration tables installed */
    /* the handle database, in installation order (UEFI 2.10 section 7.3) */
    struct fw_handle_protocol protocols[FW_MAX_PROTOCOLS];
    unsigned nprotocols;
    struct fw_pool pools[FW_MAX_POOLS];
    unsigned npools;
    unsigned ndyn_handles;       /* handles made so far (FW_DYN_HANDLES_OFFSET) */
    struct fw_image images[FW_MAX_IMAGES];
    unsigned nimages;
    unsigned depth;              /* images started and not yet exited */
    const struct fw_call *call;  /* the call being served, NULL between calls */
    struct fw_transfer transfer;
    /* Set by this call (Stall, WaitForEvent making its call again): the
     * wait the guest asked for. The vCPU sleeps it (in FW_SLEEP_SLICE_NS slices)
     * before it resumes, outside the VMM's lock, so other vCPUs' exits and
     * a stop on --timeout or a signal do not wait. */
    uint64_t sleep_ns;
    /* Set by this call: WaitForEvent on events that nothing can signal
     * (events.c) but another vCPU; with none, the guest waits for good and
     * the VMM ends the run (vmm/kvm/run.c). */
    bool waits_for_good;
    struct fw_variable *variables;
    struct fw_esp *esp;          /* --esp: the volume served, its handle and open files; NULL: none */
    uint64_t esp_block_io;       /* --esp: the page of its disk's EFI_BLOCK_IO_PROTOCOLs (block_io.c); 0: none */
    uint64_t variable_bytes;
    uint64_t monotonic;
    uint64_t tpl;                /* current EFI_TPL */
    uint64_t rng_state;          /* --seed generator */
    uint64_t rng, rng_handle;    /* EFI_RNG_PROTOCOL */
    uint64_t initrd_handle, initrd_lf2, initrd_dp;  /* LoadFile2 initrd */
    uint64_t memattr, memattr_handle;   /* EFI_MEMORY_ATTRIBUTE_PROTOCOL */
    uint64_t tcg2, tcg2_handle;  /* EFI_TCG2_PROTOCOL (--tpm) */
    uint64_t vmgenid;            /* the VM generation ID's 16 bytes (ACPI, with --snapshot); 0: none */
    struct fw_tpm tpm;
    /* This call changed the firmware's page tables (memattr.c): the vCPU
     * must not return on translations it cached before (vmm/kvm/run.c). */
    bool tables_changed;
    /* Host time the firmware's clock did not count: a fault sweep's
     * snapshots and the time before a cell restored one (events.c
     * firmware_clock_resume). */
    uint64_t clock_stood_ns;
    struct fw_watchdog watchdog;
    struct fw_events events;
    size_t keys_taken;           /* bytes of cfg.keys ReadKeyStroke has returned */

    /* statistics and one-time reports */
    uint64_t calls, calls_by_id[FW_MAX_THUNKS];
    unsigned last_id;            /* the latest call's service ID */
    bool reported[FW_MAX_THUNKS];
    efi_guid_t unserved[FW_MAX_UNSERVED];   /* protocols asked for that no handle has, said once */
    unsigned nunserved;
    uint64_t seq;
    uint64_t trace_bytes;
    uint64_t key_polls;          /* ConIn.ReadKeyStroke calls answered EFI_NOT_READY */
    uint64_t log_lines;          /* fw_log lines written (FW_LOG_LIMIT) */

    /* the last non-empty line of OutputString text (the one being
     * assembled, or the last one ended), for diagnostics */
    char last_line[160];
    unsigned last_line_len;
    bool last_line_ended;

    enum fw_stop stop;
    uint64_t stop_status;        /* the image's EFI_STATUS (FW_STOP_EXIT), the refusal's (FW_STOP_REFUSED),
                                  * ResetSystem's type, the WatchdogCode (FW_STOP_WATCHDOG) */
};

/* What the VMM hands over on each call: the Microsoft x64 ABI registers and
 * the guest's view of memory (its CR3) for the arguments on the stack. */
struct fw_call {
    uint64_t rcx, rdx, r8, r9, rsp;
    struct guest_view view;
    struct fw_callee_saved saved;   /* XMM6-15 only if firmware_saves_context(id) */
};

/* Thunk address of a service ID. */
static inline uint64_t firmware_thunk(const struct firmware *fw, unsigned id)
{
    return fw->cfg.base + FW_RT_CODE_OFFSET + (uint64_t)id * FW_THUNK_SIZE;
}

#endif
