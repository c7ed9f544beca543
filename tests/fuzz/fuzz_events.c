/* libFuzzer harness for the --keys parser (firmware-stub/keys.c), ConIn's
 * ReadKeyStroke and WaitForKey on those keys (console.c), and the event
 * services (events.c): CreateEvent(Ex), SetTimer, SignalEvent, CheckEvent,
 * WaitForEvent, CloseEvent, with RaiseTPL/RestoreTPL, all through
 * firmware_call on a fresh firmware per input.
 *
 * Every result is checked against a model of UEFI 2.10 section 7.1 as
 * events.c states it: a closed event's slot reused only once every slot has
 * been used, the one closed longest ago first, the type and TPL rules of
 * CreateEvent, a group signaled as one, a signaled event reset as CheckEvent
 * or WaitForEvent reports it, WaitForEvent only at TPL_APPLICATION and
 * returning at once (with the call to make again) when nothing is
 * signaled, WaitForKey signaled exactly while keys remain. An event with a
 * notify function is made and closed at once: its function would run in
 * the guest (the unit tests follow that path). Timers run on
 * host time, so the input can only set ones that are due at once (0) or
 * never during a run (about 1000 s and more): an input does the same each
 * time, but for a periodic timer of 0, due at once and then once a 10 ms
 * tick (FW_TIMER_TICK_NS), which a look may or may not find due: the model
 * lets each look signal that timer's events or not, and WaitForEvent
 * report one of them or go on.
 *
 * Input format (make-seeds.py has an encoder for it):
 *   mode byte: bit 0 the keys go to the firmware (when keys_check takes
 *              them, as vmm/options.c requires); bit 1 call trace on
 *   errlen byte: keys_check's error buffer is errlen % 128 + 1 bytes
 *   key length byte, then that many bytes: the --keys string (a NUL in it
 *              ends it early); keys_next and keys_check are checked on it
 *   then steps until the input ends, each an op byte, op % 8:
 *     0 CreateEvent    type byte (see type_of), TPL byte, notify byte
 *                      (0: NULL), pointer byte (see ptr)
 *     1 CreateEventEx  as CreateEvent, then a group byte: 0 NULL, 1-3 one
 *                      of three GUIDs, else an unreadable address
 *     2 SetTimer       event byte (see event), timer type byte (% 4, 3 is
 *                      invalid), trigger byte: % 3 0, 10^10 (1000 s), or a
 *                      u64 that follows ORed with 2^40
 *     3 SignalEvent    event byte
 *     4 CheckEvent     event byte
 *     5 WaitForEvent   count byte (0-7 events; 8: 0, 9: 1025, else 1-7),
 *                      that many event bytes, pointer byte for the index
 *     6 CloseEvent     event byte
 *     7 a byte: % 3 0 ReadKeyStroke with a pointer byte, 1 RaiseTPL and
 *                   2 RestoreTPL with a TPL byte
 *   event byte: < 0xf0 the handle of one of the slots used so far (closed ones too;
 *               the first is WaitForKey), else a handle never made
 *   ptr byte: % 4 0 a good slot, 1 NULL, 2 the last 4 bytes of RAM (room
 *             for an EFI_INPUT_KEY, not for a handle or an index), 3 past RAM
 * FUZZ_EVENTS_TRACE=1 in the environment prints each call and its status
 * on stderr, to see what an input does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/keys.h"
#include "../../guest/guest_mem.h"
#include "../../guest/layout.h"
#include "fuzz_input.h"
#include "fuzz_harness.h"

#define RAM_SIZE    (4ULL << 20)
#define PAGE        0x1000ULL
#define SCRATCH     GUEST_VMM_END
#define OUT_SLOT    (SCRATCH + 0x100)            /* *Event, *Index, *Key */
#define GROUP_SLOT  (SCRATCH + 0x200)            /* three group GUIDs */
#define LIST_SLOT   (SCRATCH + 0x400)            /* WaitForEvent's list */
#define STACK_RSP   (SCRATCH + 0x800)
#define NEVER_100NS 10000000000ULL               /* 1000 s: not during a run */
#define MAX_KEYS    256

static uint8_t *ram;
static FILE *devnull;
static bool verbose;   /* FUZZ_EVENTS_TRACE set: each call and its status on stderr */
static struct firmware fw;
static struct guest_mem gm;
static struct guest_view view;

static void setup_once(void)
{
    fuzz_host_once(&ram, RAM_SIZE, &devnull, &verbose, "FUZZ_EVENTS_TRACE");
}

/* ---- --keys ------------------------------------------------------------- */

static struct efi_input_key keys[MAX_KEYS];
static unsigned nkeys;

/* UTF-8 of a BMP code point (not a surrogate). */
static unsigned utf8(uint16_t c, uint8_t *out)
{
    if (c < 0x80)
        return out[0] = (uint8_t)c, 1;
    if (c < 0x800)
        return out[0] = (uint8_t)(0xc0 | c >> 6), out[1] = (uint8_t)(0x80 | (c & 0x3f)), 2;
    out[0] = (uint8_t)(0xe0 | c >> 12), out[1] = (uint8_t)(0x80 | (c >> 6 & 0x3f)), out[2] = (uint8_t)(0x80 | (c & 0x3f));
    return 3;
}

/* One key as keys.h describes it: a character is its key (UTF-8, one
 * key per character, U+FFFD for what is not one), a newline is Enter,
 * a backslash starts one of the escapes. */
static void check_key(const char *s, int n, const struct efi_input_key *k)
{
    const uint8_t *u = (const uint8_t *)s;
    CHECK(n >= 1 && n <= 4 && !memchr(s, 0, (size_t)n));
    if (k->scan_code)
        CHECK(!k->unicode_char && (k->scan_code <= EFI_SCAN_LEFT || k->scan_code == EFI_SCAN_ESC));
    if (u[0] == '\\') {
        CHECK(n == 2);
        CHECK(s[1] && (k->scan_code ? strchr("eUDLR", s[1]) != NULL : strchr("nrtb\\", s[1]) != NULL));
        return;
    }
    CHECK(!k->scan_code);
    if (u[0] == '\n') {
        CHECK(n == 1 && k->unicode_char == EFI_CHAR_CARRIAGE_RETURN);
    } else if (u[0] < 0x80) {
        CHECK(n == 1 && k->unicode_char == u[0]);
    } else if (k->unicode_char != 0xfffd) {
        /* A decoded character is exactly the bytes it took, shortest form. */
        uint8_t enc[3];
        CHECK(k->unicode_char >= 0x80 && (k->unicode_char < 0xd800 || k->unicode_char > 0xdfff));
        CHECK(utf8(k->unicode_char, enc) == (unsigned)n && !memcmp(enc, s, (size_t)n));
    }
}

/* keys_next walks s to its end, or to an escape naming no key, which
 * keys_check reports in a NUL-terminated message that fits its buffer. */
static bool check_keys(const char *s, size_t errlen)
{
    nkeys = 0;
    size_t at = 0;
    bool ok = true;
    for (;;) {
        struct efi_input_key k = { 0xdead, 0xbeef };
        int n = keys_next(s + at, &k);
        if (!n) {
            CHECK(!s[at]);
            break;
        }
        if (n < 0) {
            CHECK(s[at] == '\\');
            ok = false;
            break;
        }
        check_key(s + at, n, &k);
        if (nkeys < MAX_KEYS)
            keys[nkeys++] = k;
        at += (size_t)n;
    }
    char *err = malloc(errlen);   /* exactly errlen: ASan sees a write past it */
    if (!err)
        abort();
    memset(err, 'x', errlen);
    int rc = keys_check(s, err, errlen);
    CHECK(rc == (ok ? 0 : -1));
    if (rc)
        CHECK(memchr(err, 0, errlen) && (errlen < 9 || !strncmp(err, "--keys: ", 8)));
    free(err);
    return ok;
}

/* ---- the model ---------------------------------------------------------- */

/* T_TICK_FIRST: periodic 0, due at the next look; T_TICK: due again at
 * some look, once a tick has passed. */
enum timer { T_NONE, T_ONCE_NOW, T_TICK_FIRST, T_TICK, T_LATER };

struct mevent {
    bool open, signaled;
    uint32_t type;
    int group;            /* -1: none */
    enum timer timer;
    uint64_t closed_at;   /* closed: order of CloseEvent calls */
};

static struct mevent ev[FW_MAX_EVENTS];
static unsigned nmade;     /* slots used so far */
static uint64_t ncloses;   /* CloseEvent calls so far */
static unsigned keys_taken;
static bool keys_on;
static uint64_t tpl;

static uint64_t handle_of(unsigned i) { return fw.cfg.base + FW_EVENTS_OFFSET + 8ULL * i; }

static void signal_model(unsigned i)
{
    if (ev[i].group < 0) {
        ev[i].signaled = true;
        return;
    }
    for (unsigned j = 0; j < nmade; j++)
        if (ev[j].open && ev[j].group == ev[i].group)
            ev[j].signaled = true;
}

static void poll_model(void)
{
    for (unsigned i = 0; i < nmade; i++) {
        if (!ev[i].open || (ev[i].timer != T_ONCE_NOW && ev[i].timer != T_TICK_FIRST))
            continue;
        signal_model(i);
        ev[i].timer = ev[i].timer == T_ONCE_NOW ? T_NONE : T_TICK;
    }
    if (ev[0].open)
        ev[0].signaled = keys_on && keys_taken < nkeys;
}

/* Whether a tick may signal event i at a look: its own periodic timer of
 * 0, or one of its group's. */
static bool may_tick(unsigned i)
{
    for (unsigned j = 0; j < nmade; j++)
        if (ev[j].open && ev[j].timer == T_TICK && (j == i || (ev[i].group >= 0 && ev[j].group == ev[i].group)))
            return true;
    return false;
}

/* The model's index of a handle, or -1 for one that names no open event. */
static int index_of(uint64_t h)
{
    uint64_t first = handle_of(0);
    if (h < first || (h - first) % 8 || (h - first) / 8 >= nmade || !ev[(h - first) / 8].open)
        return -1;
    return (int)((h - first) / 8);
}

/* What CheckEvent (or WaitForEvent at this event) may return, given the
 * firmware's answer got: an event a tick may have signaled is reported or
 * not. */
static efi_status_t check_model(uint64_t h, efi_status_t got)
{
    int i = index_of(h);
    if (i < 0)
        return EFI_INVALID_PARAMETER;
    if (!ev[i].signaled && !(got == EFI_SUCCESS && may_tick((unsigned)i)))
        return EFI_NOT_READY;
    ev[i].signaled = false;
    return EFI_SUCCESS;
}

/* The firmware's events as the model has them. */
static void check_state(void)
{
    CHECK(fw.events.n == nmade && fw.tpl == tpl);
    uint64_t wait_for_key;
    memcpy(&wait_for_key, ram + fw.con_in + 8 * CONIN_COUNT, 8);
    CHECK(wait_for_key == handle_of(0) && fw.events.wait_for_key == handle_of(0));
    for (unsigned i = 0; i < nmade; i++) {
        const struct fw_event *e = &fw.events.slot[i];
        CHECK(e->open == ev[i].open);
        if (!e->open)
            continue;
        CHECK(e->type == ev[i].type && e->in_group == (ev[i].group >= 0));
        /* WaitForKey's state is refreshed when a service looks; a tick may
         * have signaled an event the model has not. */
        if (i && may_tick(i)) {
            CHECK(e->signaled || !ev[i].signaled);
            ev[i].signaled = e->signaled;
        } else if (i) {
            CHECK(e->signaled == ev[i].signaled);
        }
    }
}

/* ---- calls -------------------------------------------------------------- */

static efi_status_t call(unsigned id, uint64_t rcx, uint64_t rdx, uint64_t r8, uint64_t r9, const uint64_t *stack,
                         unsigned nstack)
{
    for (unsigned i = 0; i < nstack; i++)
        memcpy(ram + STACK_RSP + 0x28 + 8 * i, &stack[i], 8);
    struct fw_call c = { rcx, rdx, r8, r9, STACK_RSP, view, { 0 } };
    efi_status_t st = firmware_call(&fw, id, &c);
    if (verbose)
        fprintf(stderr, "%s(0x%llx, 0x%llx, 0x%llx, 0x%llx) = %s\n", firmware_service_name(id),
                (unsigned long long)rcx, (unsigned long long)rdx, (unsigned long long)r8, (unsigned long long)r9,
                id == FW_ID_BS(BS_RAISE_TPL) ? "(a TPL)" : efi_status_name(st));
    return st;
}

static uint64_t ptr(uint8_t b)
{
    switch (b % 4) {
    case 0: return OUT_SLOT;
    case 1: return 0;
    case 2: return RAM_SIZE - 4;
    default: return RAM_SIZE + b;
    }
}

static uint64_t event(uint8_t b)
{
    if (b < 0xf0 && nmade)
        return handle_of(b % nmade);
    switch (b % 4) {
    case 0: return handle_of(FW_MAX_EVENTS);
    case 1: return handle_of(nmade);
    case 2: return handle_of(0) + 4;
    default: return 0;
    }
}

static uint64_t type_of(uint8_t b, struct fuzz_in *in)
{
    static const uint32_t t[] = { 0, EVT_TIMER, EVT_NOTIFY_WAIT, EVT_NOTIFY_SIGNAL, EVT_TIMER | EVT_NOTIFY_WAIT,
                                  EVT_TIMER | EVT_NOTIFY_SIGNAL, EVT_SIGNAL_EXIT_BOOT_SERVICES,
                                  EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE };
    uint64_t v = b & 0x80 ? in_u32(in) : t[b % 8];
    if (b & 0x40)
        v |= 0xdead000000000000ULL;   /* the upper half of RCX is not the caller's */
    return v;
}

static bool valid_type(uint32_t type)
{
    return type == 0 || type == EVT_TIMER || type == EVT_NOTIFY_WAIT || type == EVT_NOTIFY_SIGNAL ||
           type == (EVT_TIMER | EVT_NOTIFY_WAIT) || type == (EVT_TIMER | EVT_NOTIFY_SIGNAL) ||
           type == EVT_SIGNAL_EXIT_BOOT_SERVICES || type == EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE;
}

/* The slot the firmware gives a new event (events.c): a slot never used
 * while one is left, then the one closed longest ago but WaitForKey's;
 * -1 when every one is open. */
static int free_slot(void)
{
    if (nmade < FW_MAX_EVENTS)
        return (int)nmade;
    int oldest = -1;
    for (unsigned i = 1; i < nmade; i++)
        if (!ev[i].open && (oldest < 0 || ev[i].closed_at < ev[oldest].closed_at))
            oldest = (int)i;
    return oldest;
}

static void close_model(unsigned i)
{
    ev[i] = (struct mevent){ .open = false, .group = -1, .closed_at = ++ncloses };
}

static void op_create(struct fuzz_in *in, bool ex)
{
    uint64_t type = type_of(in_u8(in), in);
    uint64_t ntpl = in_u8(in), notify = in_u8(in) ? 0x300000 : 0;
    uint64_t out = ptr(in_u8(in));
    uint8_t g = ex ? in_u8(in) : 0;
    uint64_t group = !g ? 0 : g <= 3 ? GROUP_SLOT + 16ULL * (g - 1) : RAM_SIZE - 8;
    memset(ram + OUT_SLOT, 0, 8);
    efi_status_t st = ex ? call(FW_ID_BS(BS_CREATE_EVENT_EX), type, ntpl, notify, 0, (uint64_t[]){ group, out }, 2)
                         : call(FW_ID_BS(BS_CREATE_EVENT), type, ntpl, notify, 0, (uint64_t[]){ out }, 1);
    uint32_t t = (uint32_t)type;
    efi_status_t want;
    if (out != OUT_SLOT || !valid_type(t))
        want = EFI_INVALID_PARAMETER;
    else if (group && (g > 3 || t == EVT_SIGNAL_EXIT_BOOT_SERVICES || t == EVT_SIGNAL_VIRTUAL_ADDRESS_CHANGE))
        want = EFI_INVALID_PARAMETER;
    else if ((t & (EVT_NOTIFY_WAIT | EVT_NOTIFY_SIGNAL)) &&
             (!notify || ntpl <= FW_TPL_APPLICATION || ntpl >= FW_TPL_HIGH_LEVEL))
        want = EFI_INVALID_PARAMETER;
    else
        want = free_slot() < 0 ? EFI_OUT_OF_RESOURCES : EFI_SUCCESS;
    CHECK(st == want);
    uint64_t h;
    memcpy(&h, ram + OUT_SLOT, 8);
    if (st != EFI_SUCCESS) {
        CHECK(!h);
        return;
    }
    unsigned slot = (unsigned)free_slot();
    CHECK(h == handle_of(slot));
    if (slot == nmade)
        nmade++;
    if (t & (EVT_NOTIFY_WAIT | EVT_NOTIFY_SIGNAL)) {
        /* Its function would run in the guest, through the firmware's
         * trampoline, which this model does not follow: made, then closed
         * before anything can signal it. */
        CHECK(call(FW_ID_BS(BS_CLOSE_EVENT), h, 0, 0, 0, NULL, 0) == EFI_SUCCESS);
        close_model(slot);
        return;
    }
    ev[slot] = (struct mevent){ .open = true, .type = t, .group = group ? g - 1 : -1, .timer = T_NONE };
}

static void op_set_timer(struct fuzz_in *in)
{
    uint64_t h = event(in_u8(in));
    uint8_t kind = in_u8(in) % 4, tb = in_u8(in) % 3;
    uint64_t trigger = tb == 0 ? 0 : tb == 1 ? NEVER_100NS : in_u64(in) | (1ULL << 40);
    efi_status_t st = call(FW_ID_BS(BS_SET_TIMER), h, kind, trigger, 0, NULL, 0);
    int i = index_of(h);
    if (i < 0 || !(ev[i].type & EVT_TIMER) || kind > EFI_TIMER_RELATIVE) {
        CHECK(st == EFI_INVALID_PARAMETER);
        return;
    }
    CHECK(st == EFI_SUCCESS);
    ev[i].timer = kind == EFI_TIMER_CANCEL ? T_NONE
                : trigger ? T_LATER : kind == EFI_TIMER_PERIODIC ? T_TICK_FIRST : T_ONCE_NOW;
}

static void op_signal(struct fuzz_in *in)
{
    uint64_t h = event(in_u8(in));
    efi_status_t st = call(FW_ID_BS(BS_SIGNAL_EVENT), h, 0, 0, 0, NULL, 0);
    int i = index_of(h);
    CHECK(st == (i < 0 ? EFI_INVALID_PARAMETER : EFI_SUCCESS));
    if (i >= 0)
        signal_model((unsigned)i);
}

static void op_check(struct fuzz_in *in)
{
    uint64_t h = event(in_u8(in));
    efi_status_t st = call(FW_ID_BS(BS_CHECK_EVENT), h, 0, 0, 0, NULL, 0);
    poll_model();
    CHECK(st == check_model(h, st));
}

static void op_close(struct fuzz_in *in)
{
    uint64_t h = event(in_u8(in));
    efi_status_t st = call(FW_ID_BS(BS_CLOSE_EVENT), h, 0, 0, 0, NULL, 0);
    int i = index_of(h);
    CHECK(st == (i < 0 ? EFI_INVALID_PARAMETER : EFI_SUCCESS));
    if (i >= 0)
        close_model((unsigned)i);
}

static void op_wait(struct fuzz_in *in)
{
    uint8_t c = in_u8(in) % 10;
    uint64_t n = c == 8 ? 0 : c == 9 ? 1025 : c % 8 ? c % 8 : 1;
    uint64_t list[8] = { 0 };
    for (unsigned i = 0; i < n && i < 8; i++)
        list[i] = event(in_u8(in));
    uint64_t idx = ptr(in_u8(in));
    memcpy(ram + LIST_SLOT, list, sizeof(list));
    memset(ram + OUT_SLOT, 0xff, 8);
    efi_status_t st = call(FW_ID_BS(BS_WAIT_FOR_EVENT), n, LIST_SLOT, idx, 0, NULL, 0);
    uint64_t got;
    memcpy(&got, ram + OUT_SLOT, 8);
    if (tpl != FW_TPL_APPLICATION) {
        CHECK(st == EFI_UNSUPPORTED && got == UINT64_MAX);
        return;
    }
    if (!n || n > 1024 || idx != OUT_SLOT) {
        CHECK(st == EFI_INVALID_PARAMETER && got == UINT64_MAX);
        return;
    }
    poll_model();
    for (unsigned i = 0; i < n; i++) {
        efi_status_t s = check_model(list[i], got == i ? st : EFI_NOT_READY);
        if (s != EFI_NOT_READY) {
            CHECK(st == s && got == i && !fw.transfer.pending);
            return;
        }
    }
    /* Nothing signaled: returns at once, the vCPU to make the call again
     * after sleeping at most FW_WAIT_MAX_NS. */
    CHECK(st == EFI_NOT_READY && got == UINT64_MAX);
    CHECK(fw.transfer.pending && fw.transfer.rip == firmware_thunk(&fw, FW_ID_BS(BS_WAIT_FOR_EVENT)) &&
          fw.transfer.rsp == STACK_RSP && fw.transfer.rcx == n && fw.transfer.rdx == LIST_SLOT);
    CHECK(fw.sleep_ns <= FW_WAIT_MAX_NS);
    bool armed = false;
    for (unsigned i = 0; i < n; i++) {
        int k = index_of(list[i]);
        armed |= k >= 0 && (ev[k].timer == T_LATER || ev[k].timer == T_TICK);
    }
    /* With no timer armed (and no notify function: none stays open here)
     * nothing but another vCPU can signal the list. */
    CHECK(fw.waits_for_good == !armed);
    if (!armed)
        CHECK(fw.sleep_ns == FW_WAIT_MAX_NS);
}

static void op_other(struct fuzz_in *in)
{
    uint8_t sub = in_u8(in) % 3;
    if (sub == 0) {
        uint64_t key = ptr(in_u8(in));
        memset(ram + OUT_SLOT, 0xff, 8);
        efi_status_t st = call(FW_ID_CONIN(CONIN_READ_KEY_STROKE), fw.con_in, key, 0, 0, NULL, 0);
        if (!keys_on || keys_taken >= nkeys) {
            CHECK(st == EFI_NOT_READY);
        } else if (key != OUT_SLOT && key != RAM_SIZE - 4) {   /* EFI_INPUT_KEY is 4 bytes */
            CHECK(st == EFI_INVALID_PARAMETER);   /* the key stays for the next call */
        } else {
            CHECK(st == EFI_SUCCESS && !memcmp(ram + key, &keys[keys_taken], sizeof(keys[0])));
            keys_taken++;
        }
        return;
    }
    uint64_t t = in_u8(in);
    efi_status_t st = call(FW_ID_BS(sub == 1 ? BS_RAISE_TPL : BS_RESTORE_TPL), t, 0, 0, 0, NULL, 0);
    if (sub == 1)
        CHECK(st == tpl);   /* RaiseTPL returns the previous TPL */
    if (t <= FW_TPL_HIGH_LEVEL)
        tpl = t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup_once();
    struct fuzz_in in = { data, size };
    uint8_t mode = in_u8(&in);
    size_t errlen = in_u8(&in) % 128 + 1u;
    size_t klen = in_u8(&in);
    char *s = malloc(klen + 1);   /* exactly the string: ASan sees a read past its NUL */
    if (!s)
        abort();
    in_bytes(&in, s, klen);
    s[klen] = 0;
    bool keys_ok = check_keys(s, errlen);

    memset(ram, 0, SCRATCH + PAGE);
    guest_mem_init(&gm, ram, RAM_SIZE);
    struct fw_config cfg = {
        .base = GUEST_FIRMWARE_BASE, .image_base = 0x300000, .image_size = 0x1000,
        .console = devnull, .log = devnull, .trace = mode & 2 ? devnull : NULL, .trace_limit = UINT64_MAX,
        .keys = mode & 1 && keys_ok ? s : NULL,
    };
    CHECK(firmware_init(&fw, &gm, &cfg) == 0);
    view = (struct guest_view){ &gm, 0, false, false, false, false };
    for (unsigned i = 0; i < 3; i++)
        memset(ram + GROUP_SLOT + 16 * i, 0x11 * (i + 1), 16);
    memset(ev, 0, sizeof(ev));
    ev[0] = (struct mevent){ .open = true, .type = 0, .group = -1 };   /* ConIn.WaitForKey */
    nmade = 1;
    ncloses = 0;
    keys_taken = 0;
    keys_on = cfg.keys != NULL;
    tpl = FW_TPL_APPLICATION;
    check_state();

    while (in.n) {
        uint8_t op = in_u8(&in);
        switch (op % 8) {
        case 0: op_create(&in, false); break;
        case 1: op_create(&in, true); break;
        case 2: op_set_timer(&in); break;
        case 3: op_signal(&in); break;
        case 4: op_check(&in); break;
        case 5: op_wait(&in); break;
        case 6: op_close(&in); break;
        default: op_other(&in); break;
        }
        check_state();
    }
    firmware_free(&fw);
    free(s);
    return 0;
}
