/* libFuzzer harness for the notify functions the firmware runs in the
 * guest (events.c): events with notify functions, signaled, checked,
 * waited for, closed and timed, TPLs raised and restored, and the
 * functions' own calls and returns (NotifyFunction.Return), nested, with
 * ExitBootServices' group, all through firmware_call on a fresh firmware
 * per input. fuzz_events follows the events without notify functions
 * against an exact model; this harness plays the guest's side of the
 * trampoline and checks what events.c promises of it:
 *   - a call that lets functions run sends the vCPU to the trampoline
 *     (FW_ID_NOTIFY_RETURN) with RCX the event, RDX its context, R8 its
 *     function, at the event's TPL, above the TPL the call was made at,
 *     on a 16-byte aligned RSP below the caller's;
 *   - the functions' returns end, each time, with the call returning to
 *     its caller's RSP (or, WaitForEvent, being made again there) at the
 *     TPL it was made at, and the firmware's notify depth is the number
 *     of calls the harness has inside functions;
 *   - a return with no function running stops the run; after
 *     ExitBootServices no timer is armed;
 *   - when the input ends, returning from every function running ends
 *     within DRAIN_RETURNS returns: a timer due again as its function
 *     returns must not run it for ever.
 *
 * Input format, steps until the input ends, each an op byte, op % 10:
 *   0 CreateEvent(Ex) a type byte (% 6: signal, wait, timer|signal,
 *                     timer|wait, exit-boot-services, a plain timer), a TPL
 *                     byte (% 4: 8, 16, 30, or the byte itself), a group
 *                     byte (% 4: none, group A, group B, the
 *                     exit-boot-services group by GUID); function and
 *                     context are the event's number
 *   1 SignalEvent     event byte (see event)
 *   2 CheckEvent      event byte
 *   3 WaitForEvent    count byte (% 4 + 1), that many event bytes
 *   4 CloseEvent      event byte
 *   5 RaiseTPL / RestoreTPL: a byte (bit 0 which), a TPL byte (% 4: 4, 8,
 *                     16, 31)
 *   6 SetTimer        event byte, timer type byte (% 3), trigger byte
 *                     (odd: never during a run, about 1000 s; even: 0)
 *   7 the running notify function returns (one is made to return with
 *     none running only when the op byte is 0xf7)
 *   8 ExitBootServices with the current map key
 *   9 Stall(0): a plain call, after which due functions run
 *   event byte: one of the events made so far, or (0xff) a handle never
 *   made
 * FUZZ_NOTIFY_TRACE=1 in the environment prints each call and its status
 * on stderr. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../firmware-stub/events.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/guids.h"
#include "../../guest/guest_mem.h"
#include "../../guest/layout.h"
#include "fuzz_input.h"
#include "fuzz_harness.h"

#define RAM_SIZE      (4ULL << 20)
#define SCRATCH       GUEST_VMM_END
#define OUT_SLOT      (SCRATCH + 0x100)          /* *Event, *Index */
#define GROUP_SLOT    (SCRATCH + 0x200)          /* two group GUIDs, then exit-boot-services' */
#define LIST_SLOT     (SCRATCH + 0x400)          /* WaitForEvent's list */
#define STACK_TOP     (SCRATCH + 0x8000)
#define CALL_BELOW    0x60                       /* a function's calls: this far below its trampoline RSP */
#define FN_BASE       0x200000ULL                /* event i's notify function: FN_BASE + 0x10 * i */
#define NEVER_100NS   10000000000ULL             /* 1000 s: not during a run */
#define DRAIN_RETURNS 100000
#define MAX_MADE      (4 * FW_MAX_EVENTS)   /* past the slots: closed ones are reused */

static uint8_t *ram;
static FILE *devnull;
static bool verbose;   /* FUZZ_NOTIFY_TRACE set: each call and its status on stderr */
static struct firmware fw;
static struct guest_mem gm;
static struct guest_view view;

/* A call the guest made that is waiting for notify functions to run:
 * where it returns to, the TPL it was made at, the trampoline's RSP. */
struct frame {
    unsigned id;
    uint64_t caller_rsp, tpl, tramp_rsp;
};

static struct frame frames[FW_MAX_NOTIFY_DEPTH];
/* The trampoline transfer each running function was entered with: the
 * RCX and R8 it returns with (its own calls replace fw.transfer). */
static struct fw_transfer running[FW_MAX_NOTIFY_DEPTH];
static unsigned depth;
static uint64_t cur_rsp;               /* where the guest code running now makes its calls */
static uint64_t made[MAX_MADE];        /* the handles made so far */
static uint64_t made_tpl[MAX_MADE];
static unsigned nmade;

static efi_status_t call_at(unsigned id, uint64_t rsp, uint64_t rcx, uint64_t rdx, uint64_t r8, uint64_t r9,
                            const uint64_t *stack, unsigned nstack)
{
    for (unsigned i = 0; i < nstack; i++)
        memcpy(ram + rsp + 0x28 + 8 * i, &stack[i], 8);
    struct fw_call c = { rcx, rdx, r8, r9, rsp, view, { 0 } };
    efi_status_t st = firmware_call(&fw, id, &c);
    if (verbose)
        fprintf(stderr, "%*s%s(0x%llx, 0x%llx, 0x%llx) = 0x%llx, tpl %llu\n", 2 * depth, "",
                firmware_service_name(id), (unsigned long long)rcx, (unsigned long long)rdx,
                (unsigned long long)r8, (unsigned long long)st, (unsigned long long)fw.tpl);
    return st;
}

/* The event a trampoline transfer runs, as made here; -1 if none. The
 * latest made with that handle: a closed event's slot is reused once every
 * slot has been used (events.c). */
static int made_index(uint64_t handle)
{
    for (unsigned i = nmade; i-- > 0;)
        if (made[i] == handle)
            return (int)i;
    return -1;
}

/* The vCPU went to the trampoline to run a function above tpl. */
static void check_runs_notify(uint64_t tpl, uint64_t below)
{
    const struct fw_transfer *t = &fw.transfer;
    CHECK(t->rip == firmware_thunk(&fw, FW_ID_NOTIFY_RETURN));
    int i = made_index(t->rcx);
    CHECK(i >= 0 && t->rdx == (uint64_t)i && t->r8 == FN_BASE + 0x10ULL * (unsigned)i);
    CHECK(fw.tpl == made_tpl[i] && fw.tpl > tpl && fw.tpl < FW_TPL_HIGH_LEVEL);
    CHECK(t->rsp % 16 == 0 && t->rsp < below && t->rsp >= SCRATCH);
}

/* After a call, or a return from a function: where the vCPU goes. */
static void follow(unsigned id, uint64_t rsp, uint64_t tpl)
{
    if (fw.transfer.pending && fw.transfer.rip == firmware_thunk(&fw, FW_ID_NOTIFY_RETURN)) {
        check_runs_notify(tpl, rsp);
        CHECK(depth < FW_MAX_NOTIFY_DEPTH);
        frames[depth++] = (struct frame){ id, rsp, tpl, fw.transfer.rsp };
        cur_rsp = fw.transfer.rsp - CALL_BELOW;
    }
    CHECK(fw.events.depth == depth);
}

/* A call of the guest code running now. Its functions run above the TPL
 * it leaves (RaiseTPL's and RestoreTPL's argument), and it returns at
 * that TPL. */
static efi_status_t guest_call(unsigned id, uint64_t rcx, uint64_t rdx, uint64_t r8, uint64_t r9,
                               const uint64_t *stack, unsigned nstack)
{
    uint64_t rsp = cur_rsp, tpl = fw.tpl;
    bool sets_tpl = id == FW_ID_BS(BS_RAISE_TPL) || id == FW_ID_BS(BS_RESTORE_TPL);
    if (sets_tpl && rcx <= FW_TPL_HIGH_LEVEL && fw.phase == FW_PHASE_BOOT)
        tpl = rcx;
    efi_status_t st = call_at(id, rsp, rcx, rdx, r8, r9, stack, nstack);
    if (fw.stop == FW_RUN)
        follow(id, rsp, tpl);
    return st;
}

/* The innermost running function returns to the trampoline: another runs,
 * or the call it ran in returns (or, WaitForEvent, is made again) at its
 * caller's RSP and TPL. */
static void notify_returns(void)
{
    struct frame *f = &frames[depth - 1];
    call_at(FW_ID_NOTIFY_RETURN, f->tramp_rsp, fw.transfer.rcx, fw.transfer.r8, 0, 0, NULL, 0);
    CHECK(fw.stop == FW_RUN && fw.transfer.pending);
    if (fw.transfer.rip == firmware_thunk(&fw, FW_ID_NOTIFY_RETURN)) {
        check_runs_notify(f->tpl, f->caller_rsp);
        CHECK(fw.transfer.rsp == f->tramp_rsp && fw.events.depth == depth);
        cur_rsp = f->tramp_rsp - CALL_BELOW;
        return;
    }
    bool again = f->id == FW_ID_BS(BS_WAIT_FOR_EVENT) && fw.transfer.rip == firmware_thunk(&fw, f->id);
    CHECK(again || fw.transfer.rip == firmware_thunk(&fw, f->id) + FW_THUNK_RET);
    CHECK(fw.transfer.rsp == f->caller_rsp && fw.tpl == f->tpl);
    depth--;
    CHECK(fw.events.depth == depth);
    cur_rsp = f->caller_rsp;
}

static uint64_t event(uint8_t b)
{
    if (b == 0xff || !nmade)
        return fw.cfg.base + FW_EVENTS_OFFSET + 8ULL * FW_MAX_EVENTS;
    return made[b % nmade];
}

static void op_create(struct fuzz_in *in)
{
    static const uint32_t types[] = { EVT_NOTIFY_SIGNAL, EVT_NOTIFY_WAIT, EVT_TIMER | EVT_NOTIFY_SIGNAL,
                                      EVT_TIMER | EVT_NOTIFY_WAIT, EVT_SIGNAL_EXIT_BOOT_SERVICES, EVT_TIMER };
    static const uint64_t tpls[] = { 8, 16, 30 };
    uint32_t type = types[in_u8(in) % 6];
    uint8_t tb = in_u8(in), g = in_u8(in) % 4;
    uint64_t tpl = tb % 4 < 3 ? tpls[tb % 4] : tb;
    uint64_t group = g && type != EVT_SIGNAL_EXIT_BOOT_SERVICES ? GROUP_SLOT + 16ULL * (g - 1) : 0;
    if (nmade == MAX_MADE)   /* made here: each one the model knows */
        return;
    memset(ram + OUT_SLOT, 0, 8);
    efi_status_t st = guest_call(FW_ID_BS(BS_CREATE_EVENT_EX), type, tpl, FN_BASE + 0x10ULL * nmade, nmade,
                                 (const uint64_t[]){ group, OUT_SLOT }, 2);
    if (st != EFI_SUCCESS)
        return;
    memcpy(&made[nmade], ram + OUT_SLOT, 8);
    made_tpl[nmade++] = tpl;
}

static void op_wait(struct fuzz_in *in)
{
    unsigned n = in_u8(in) % 4 + 1;
    uint64_t list[4];
    for (unsigned i = 0; i < n; i++)
        list[i] = event(in_u8(in));
    memcpy(ram + LIST_SLOT, list, sizeof(list));
    guest_call(FW_ID_BS(BS_WAIT_FOR_EVENT), n, LIST_SLOT, OUT_SLOT, 0, NULL, 0);
}

static void op_tpl(struct fuzz_in *in)
{
    static const uint64_t tpls[] = { FW_TPL_APPLICATION, 8, 16, FW_TPL_HIGH_LEVEL };
    bool raise = in_u8(in) & 1;
    guest_call(FW_ID_BS(raise ? BS_RAISE_TPL : BS_RESTORE_TPL), tpls[in_u8(in) % 4], 0, 0, 0, NULL, 0);
}

static void op_set_timer(struct fuzz_in *in)
{
    uint64_t h = event(in_u8(in));
    uint8_t kind = in_u8(in) % 3;
    guest_call(FW_ID_BS(BS_SET_TIMER), h, kind, in_u8(in) & 1 ? NEVER_100NS : 0, 0, NULL, 0);
}

/* Op 7: the innermost function returns; the stray return (none running)
 * stops the run. False when the run has stopped. */
static bool op_return(uint8_t op)
{
    if (depth) {
        fw.transfer = running[depth - 1];
        notify_returns();
        return true;
    }
    if (op != 0xf7)
        return true;
    call_at(FW_ID_NOTIFY_RETURN, cur_rsp, 0, 0, 0, 0, NULL, 0);
    CHECK(fw.stop == FW_STOP_EXIT);
    return false;
}

static void op_exit_boot_services(void)
{
    guest_call(FW_ID_BS(BS_EXIT_BOOT_SERVICES), fw.image_handle, fw.map.key, 0, 0, NULL, 0);
}

/* After an op: a function entered (nested, or the next at the same
 * depth) is the running one. */
static void note_running(unsigned before)
{
    if (depth > before || (depth && fw.transfer.pending &&
                           fw.transfer.rip == firmware_thunk(&fw, FW_ID_NOTIFY_RETURN)))
        running[depth - 1] = fw.transfer;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_host_once(&ram, RAM_SIZE, &devnull, &verbose, "FUZZ_NOTIFY_TRACE");
    struct fuzz_in in = { data, size };
    memset(ram, 0, STACK_TOP + FUZZ_PAGE);
    guest_mem_init(&gm, ram, RAM_SIZE);
    struct fw_config cfg = {
        .base = GUEST_FIRMWARE_BASE, .image_base = 0x300000, .image_size = 0x1000,
        .console = devnull, .log = devnull, .trace_limit = UINT64_MAX,
    };
    CHECK(firmware_init(&fw, &gm, &cfg) == 0);
    view = (struct guest_view){ &gm, 0, false, false, false, false };
    memset(ram + GROUP_SLOT, 0x11, 16);
    memset(ram + GROUP_SLOT + 16, 0x22, 16);
    memcpy(ram + GROUP_SLOT + 32, &GUID_EVENT_GROUP_EXIT_BOOT_SERVICES, 16);
    depth = nmade = 0;
    cur_rsp = STACK_TOP;

    bool run = true;
    while (run && in.n) {
        uint8_t op = in_u8(&in);
        unsigned before = depth;
        switch (op % 10) {
        case 0: op_create(&in); break;
        case 1: guest_call(FW_ID_BS(BS_SIGNAL_EVENT), event(in_u8(&in)), 0, 0, 0, NULL, 0); break;
        case 2: guest_call(FW_ID_BS(BS_CHECK_EVENT), event(in_u8(&in)), 0, 0, 0, NULL, 0); break;
        case 3: op_wait(&in); break;
        case 4: guest_call(FW_ID_BS(BS_CLOSE_EVENT), event(in_u8(&in)), 0, 0, 0, NULL, 0); break;
        case 5: op_tpl(&in); break;
        case 6: op_set_timer(&in); break;
        case 7: run = op_return(op); break;
        case 8: op_exit_boot_services(); break;
        default: guest_call(FW_ID_BS(BS_STALL), 0, 0, 0, 0, NULL, 0); break;
        }
        if (!run)
            break;
        note_running(before);
        CHECK(fw.tpl <= FW_TPL_HIGH_LEVEL);
        if (fw.phase == FW_PHASE_RUNTIME)
            CHECK(!firmware_timer_armed(&fw));
    }
    for (unsigned n = 0; run && depth; n++) {
        CHECK(n < DRAIN_RETURNS);
        fw.transfer = running[depth - 1];
        notify_returns();
        note_running(depth);
    }
    firmware_free(&fw);
    return 0;
}
