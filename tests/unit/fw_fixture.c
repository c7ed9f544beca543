/* The firmware under test and the guest-side helpers (fw_fixture.h). */
#include <stddef.h>
#include <stdlib.h>
#include <zlib.h>

#include "fw_fixture.h"

uint8_t *ram;
struct guest_mem gm;
struct firmware fw;
FILE *con, *log_file;
char *log_buf;
size_t log_len;
struct guest_view cur_view;
uint64_t cur_rsp;
struct fw_callee_saved cur_saved;

static unsigned fixture_bits;   /* the next firmware's cfg.bits */
static bool fixture_secure_boot; /* and its cfg.secure_boot */
static char *con_buf;
static size_t con_len;
static uint64_t scratch_next;
static char *trace_buf;
static size_t trace_len;

/* The firmware's clock (struct fw_config.clock_ns): it moves only when a
 * test advances it, so no timer test depends on how fast the host runs it. */
#define FIXTURE_CLOCK_START_NS 1000000000000ULL   /* 1000 s, as a host's uptime */
static uint64_t clock_now_ns;

static uint64_t fixture_clock_ns(void) { return clock_now_ns; }

void advance_clock_ns(uint64_t ns) { clock_now_ns += ns; }

static void fw_setup(void)
{
    ram = calloc(1, RAM_SIZE);
    ck_assert_ptr_nonnull(ram);
    guest_mem_init(&gm, ram, RAM_SIZE);
    con = open_memstream(&con_buf, &con_len);
    log_file = open_memstream(&log_buf, &log_len);
    ck_assert(con && log_file);
    struct fw_config cfg = { .base = FW_BASE, .image_base = IMAGE_BASE, .image_size = IMAGE_SIZE,
                             .cmdline = CMDLINE, .console = con, .log = log_file, .bits = fixture_bits,
                             .secure_boot = fixture_secure_boot, .clock_ns = fixture_clock_ns };
    clock_now_ns = FIXTURE_CLOCK_START_NS;
    ck_assert_int_eq(firmware_init(&fw, &gm, &cfg), 0);
    ck_assert_uint_eq(memmap_reserve(&fw.map, SCRATCH, SCRATCH_SIZE >> 12, EFI_LOADER_DATA), EFI_SUCCESS);
    scratch_next = SCRATCH;
    cur_view = (struct guest_view){ &gm, 0, false, false, false, false };
    cur_rsp = STACK_TOP;
    memset(&cur_saved, 0, sizeof(cur_saved));
}

static void fw_teardown(void)
{
    firmware_free(&fw);
    fclose(con);
    fclose(log_file);
    free(con_buf);
    free(log_buf);
    free(ram);
    ram = NULL;
}

static void fw_setup_ia32(void)
{
    fixture_bits = 32;
    fw_setup();
    fixture_bits = 0;
}

static TCase *new_tcase(Suite *s, const char *name, void (*setup)(void))
{
    TCase *tc = tcase_create(name);
    tcase_add_checked_fixture(tc, setup, fw_teardown);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);
    return tc;
}

static void add_tcase(Suite *s, const char *name, const TTest *const tests[], void (*setup)(void))
{
    TCase *tc = new_tcase(s, name, setup);
    for (unsigned i = 0; tests[i]; i++)
        tcase_add_test(tc, tests[i]);
}

TCase *fw_tcase(Suite *s, const char *name)
{
    return new_tcase(s, name, fw_setup);
}

void fw_add_tcase(Suite *s, const char *name, const TTest *const tests[])
{
    add_tcase(s, name, tests, fw_setup);
}

void fw_add_tcase_ia32(Suite *s, const char *name, const TTest *const tests[])
{
    add_tcase(s, name, tests, fw_setup_ia32);
}

static void fw_setup_secure_boot(void)
{
    fixture_secure_boot = true;
    fw_setup();
    fixture_secure_boot = false;
}

void fw_add_tcase_secure_boot(Suite *s, const char *name, const TTest *const tests[])
{
    add_tcase(s, name, tests, fw_setup_secure_boot);
}

static void fw_setup_ia32_secure_boot(void)
{
    fixture_bits = 32;
    fw_setup_secure_boot();
    fixture_bits = 0;
}

void fw_add_tcase_ia32_secure_boot(Suite *s, const char *name, const TTest *const tests[])
{
    add_tcase(s, name, tests, fw_setup_ia32_secure_boot);
}

/* ---- guest memory ---------------------------------------------------------------------- */

uint64_t scratch(size_t len)
{
    uint64_t a = scratch_next;
    scratch_next += (len + 15) & ~(size_t)15;
    ck_assert_uint_le(scratch_next, STACK_TOP - 0x1000);
    return a;
}

uint64_t put(const void *p, size_t len) { uint64_t a = scratch(len); memcpy(hp(a), p, len); return a; }
uint64_t put_u64(uint64_t v) { return put(&v, 8); }
uint64_t put_guid(efi_guid_t g) { return put(&g, sizeof(g)); }

uint64_t put_ucs2(const char *s)
{
    size_t n = strlen(s);
    uint64_t a = scratch(2 * (n + 1));
    for (size_t i = 0; i <= n; i++)
        ((uint16_t *)hp(a))[i] = (uint8_t)s[i];
    return a;
}

bool ucs2_equals(uint64_t gpa, const char *s)
{
    const uint16_t *u = hp(gpa);
    size_t i = 0;
    for (; s[i]; i++)
        if (u[i] != (uint8_t)s[i])
            return false;
    return u[i] == 0;
}

uint64_t put_vendor_media_path(efi_guid_t vendor)
{
    uint8_t path[24] = { EFI_DEV_MEDIA, EFI_DEV_MEDIA_VENDOR, 20, 0 };
    memcpy(path + 4, &vendor, 16);
    path[20] = EFI_DEV_END_PATH;
    path[21] = EFI_DEV_END_ENTIRE;
    path[22] = 4;
    return put(path, sizeof(path));
}

/* ---- calls ----------------------------------------------------------------------------- */

efi_status_t call_args(unsigned id, const uint64_t *a, unsigned n)
{
    struct fw_call c = { .rsp = cur_rsp, .view = cur_view, .saved = cur_saved };
    uint64_t *regs[4] = { &c.rcx, &c.rdx, &c.r8, &c.r9 };
    for (unsigned i = 0; i < 4; i++)
        *regs[i] = i < n ? a[i] : 0xdead0000 + i;   /* unused registers hold junk */
    for (unsigned i = 4; i < n; i++)
        ck_assert(guest_view_write_u64(&cur_view, cur_rsp + 0x28 + 8 * (i - 4), a[i]));
    return firmware_call(&fw, id, &c);
}

efi_status_t call_args32(unsigned id, const uint64_t *a, unsigned n, unsigned wide)
{
    struct fw_call c = { 0xdead0000, 0xdead0001, 0xdead0002, 0xdead0003, cur_rsp, cur_view, cur_saved };
    uint64_t at = cur_rsp;
    ck_assert(guest_view_write(&cur_view, at, &(uint32_t){ 0xfeedf00d }, 4));   /* the return address */
    at += 4;
    for (unsigned i = 0; i < n; i++) {
        unsigned len = wide & (1u << i) ? 8 : 4;
        ck_assert(len == 8 || a[i] <= UINT32_MAX);
        ck_assert(guest_view_write(&cur_view, at, &a[i], len));
        at += len;
    }
    return firmware_call(&fw, id, &c);
}

uint64_t map_key_with(uint64_t *map_out, uint64_t *size_out)
{
    uint64_t size_p = put_u64(0), key_p = put_u64(0), dsize_p = put_u64(0), dver_p = put_u64(0);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, 0, key_p, dsize_p, dver_p), EFI_BUFFER_TOO_SMALL);
    uint64_t size = rd64(size_p) + 2 * DESC_SIZE;
    wr64(size_p, size);
    uint64_t map = scratch(size);
    ck_assert_uint_eq(CALL(BS(GET_MEMORY_MAP), size_p, map, key_p, dsize_p, dver_p), EFI_SUCCESS);
    if (map_out)
        *map_out = map;
    if (size_out)
        *size_out = rd64(size_p);
    return rd64(key_p);
}

uint64_t map_key(void) { return map_key_with(NULL, NULL); }

void exit_boot_services(void)
{
    uint64_t key = map_key();
    ck_assert_uint_eq(CALL(BS(EXIT_BOOT_SERVICES), fw.image_handle, key), EFI_SUCCESS);
}

efi_status_t set_var(const char *name, efi_guid_t g, uint64_t attrs, const void *data, size_t len)
{
    return CALL(RT(SET_VARIABLE), put_ucs2(name), put_guid(g), attrs, len, len ? put(data, len) : 0);
}

uint64_t interface_of(uint64_t handle, efi_guid_t g, efi_status_t *s)
{
    uint64_t iface_p = put_u64(0x5a5a);
    *s = CALL(BS(HANDLE_PROTOCOL), handle, put_guid(g), iface_p);
    return rd64(iface_p);
}

uint64_t virtual_map(uint64_t *size)
{
    uint64_t map = scratch(MEMMAP_MAX_ENTRIES * DESC_SIZE), n = 0;
    for (unsigned i = 0; i < fw.map.n; i++) {
        const struct memmap_entry *e = &fw.map.e[i];
        if (!(e->attribute & EFI_MEMORY_RUNTIME))
            continue;
        struct efi_memory_descriptor d = { e->type, 0, e->start, 0, e->pages, e->attribute };
        d.virtual_start = e->type == EFI_RUNTIME_SERVICES_CODE ? VA_CODE : VA_DATA;
        memcpy(hp(map + n * DESC_SIZE), &d, sizeof(d));
        n++;
    }
    *size = n * DESC_SIZE;
    return map;
}

/* ---- what the firmware built and wrote ------------------------------------------------- */

bool crc_ok(uint64_t table)
{
    struct efi_table_header h;
    memcpy(&h, hp(table), sizeof(h));
    uint8_t copy[512];
    if (h.header_size > sizeof(copy))
        return false;
    memcpy(copy, hp(table), h.header_size);
    memset(copy + offsetof(struct efi_table_header, crc32), 0, 4);
    return (uint32_t)crc32(0, copy, h.header_size) == h.crc32;
}

const char *log_text(void)
{
    fflush(log_file);
    return log_buf ? log_buf : "";
}

const char *console_text(void)
{
    fflush(con);
    return con_buf ? con_buf : "";
}

void trace_to_memory(void)
{
    fw.cfg.trace = open_memstream(&trace_buf, &trace_len);
    ck_assert_ptr_nonnull(fw.cfg.trace);
    fw.cfg.trace_limit = 1 << 20;
}

void trace_lines(char *got, size_t cap)
{
    fclose(fw.cfg.trace);
    fw.cfg.trace = NULL;
    ck_assert_uint_lt(trace_len, cap);
    memcpy(got, trace_buf ? trace_buf : "", trace_len + 1);
    free(trace_buf);
    trace_buf = NULL;
}

void decoded_tails(char *got, size_t cap)
{
    fclose(fw.cfg.trace);
    fw.cfg.trace = NULL;
    size_t n = 0;
    got[0] = 0;
    for (char *line = trace_buf; line && *line; line = strchr(line, '\n') + 1) {
        char *end = strchr(line, '\n'), *d = strstr(line, ",\"decoded\"");
        const char *tail = d && d < end ? d : end;
        n += (size_t)snprintf(got + n, cap - n, "%.*s", (int)(end + 1 - tail), tail);
        ck_assert_uint_lt(n, cap);
    }
    free(trace_buf);
    trace_buf = NULL;
}

struct file fixture(const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", SECURE_BOOT_DIR, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f, "%s: missing (made by tests/secure-boot-fixtures.sh)", path);
    struct file out = { malloc(1 << 20), 0 };
    ck_assert_ptr_nonnull(out.data);
    out.size = fread(out.data, 1, 1 << 20, f);
    fclose(f);
    ck_assert_uint_gt(out.size, 0);
    return out;
}
