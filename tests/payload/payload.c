/* payload.c - synthetic EFI test payload for handover.
 *
 * A freestanding EFI application wrapped in a bzImage (see header.S). It is
 * entered either through the EFI handover entry (efi_handover_entry, SysV
 * ABI) or the PE/COFF entry (efi_pe_entry, Microsoft x64 ABI), picks a mode
 * from `payload=NAME` on its command line, exercises the firmware and reports
 * TAP-like lines on the serial port (see README.md). The exit status written
 * to port 0xF4 is the number of failures.
 *
 * Everything is position independent: code and data are only reached
 * RIP-relative, and there are no pointers in initialised data (the build
 * fails if the link leaves any relocation).
 */
#include <stdarg.h>
#include <stdbool.h>

#include "efi.h"

#pragma GCC visibility push(hidden)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NORETURN __attribute__((noreturn))

/* Guest ABI of the VMM */
#define SERIAL_PORT      0x3f8
#define SERIAL_LSR       (SERIAL_PORT + 5)
#define SERIAL_LSR_THRE  0x20
#define EXIT_PORT        0xf4
#define HYPERCALL_PORT   0xec
#define EXIT_EXCEPTION   0x7e

#define MAX_CMDLINE      2048

/* struct boot_params offsets (arch/x86/include/uapi/asm/bootparam.h) */
#define BP_SIZE              4096
#define BP_EXT_CMD_LINE_PTR  0x0c8
#define BP_EFI_INFO          0x1c0
#define BP_E820_ENTRIES      0x1e8
#define BP_HDR_ROOT_FLAGS    0x1f2
#define BP_HDR_VID_MODE      0x1fa
#define BP_HDR_MAGIC         0x202
#define BP_HDR_VERSION       0x206
#define BP_HDR_TYPE_OF_LOADER 0x210
#define BP_HDR_CODE32_START  0x214
#define BP_HDR_CMD_LINE_PTR  0x228
#define BP_HDR_INITRD_ADDR_MAX 0x22c
#define BP_E820_TABLE        0x2d0
#define BP_E820_MAX          128

#define E820_TYPE_RAM        1
#define E820_TYPE_RESERVED   2
#define E820_TYPE_ACPI       3
#define E820_TYPE_NVS        4
#define E820_TYPE_PMEM       7
#define E820_TYPE_SOFT_RESERVED 0xefffffff

struct efi_info {
    uint32_t efi_loader_signature;
    uint32_t efi_systab;
    uint32_t efi_memdesc_size;
    uint32_t efi_memdesc_version;
    uint32_t efi_memmap;
    uint32_t efi_memmap_size;
    uint32_t efi_systab_hi;
    uint32_t efi_memmap_hi;
};

struct boot_e820_entry {
    uint64_t addr;
    uint64_t size;
    uint32_t type;
} __attribute__((packed));

_Static_assert(sizeof(struct efi_info) == 32, "efi_info");
_Static_assert(sizeof(struct boot_e820_entry) == 20, "e820 entry");

/* ------------------------------------------------------------------ */
/* GUIDs (UEFI spec and Linux include/linux/efi.h values)              */

static const efi_guid_t loaded_image_guid =
    EFI_GUID(0x5b1b31a1, 0x9562, 0x11d2, 0x8e, 0x3f, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b);
static const efi_guid_t loaded_image_device_path_guid =
    EFI_GUID(0xbc62157e, 0x3e33, 0x4fec, 0x99, 0x20, 0x2d, 0x3b, 0x36, 0xd7, 0x50, 0xdf);
static const efi_guid_t device_path_guid =
    EFI_GUID(0x09576e91, 0x6d3f, 0x11d2, 0x8e, 0x39, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b);
static const efi_guid_t rng_guid =
    EFI_GUID(0x3152bca5, 0xeade, 0x433d, 0x86, 0x2e, 0xc0, 0x1c, 0xdc, 0x29, 0x1f, 0x44);
static const efi_guid_t gop_guid =
    EFI_GUID(0x9042a9de, 0x23dc, 0x4a38, 0x96, 0xfb, 0x7a, 0xde, 0xd0, 0x80, 0x51, 0x6a);
static const efi_guid_t uga_guid =
    EFI_GUID(0x982c298b, 0xf4fa, 0x41cb, 0xb8, 0x38, 0x77, 0xaa, 0x68, 0x8f, 0xb8, 0x39);
static const efi_guid_t pci_io_guid =
    EFI_GUID(0x4cf5b200, 0x68b8, 0x4ca5, 0x9e, 0xec, 0xb2, 0x3e, 0x3f, 0x50, 0x02, 0x9a);
static const efi_guid_t load_file2_guid =
    EFI_GUID(0x4006c0c1, 0xfcb3, 0x403e, 0x99, 0x6d, 0x4a, 0x6c, 0x87, 0x24, 0xe0, 0x6d);
static const efi_guid_t linux_initrd_media_guid =
    EFI_GUID(0x5568e427, 0x68fc, 0x4f3d, 0xac, 0x74, 0xca, 0x55, 0x52, 0x31, 0xcc, 0x68);
static const efi_guid_t memattr_guid =
    EFI_GUID(0xf4560cf6, 0x40ec, 0x4b4a, 0xa1, 0x92, 0xbf, 0x1d, 0x57, 0xd0, 0xb1, 0x89);
static const efi_guid_t global_variable_guid =
    EFI_GUID(0x8be4df61, 0x93ca, 0x11d2, 0xaa, 0x0d, 0x00, 0xe0, 0x98, 0x03, 0x2b, 0x8c);
/* Made up for the payload (random, not registered anywhere). */
static const efi_guid_t payload_unknown_guid =
    EFI_GUID(0x7a3c1e52, 0x94d0, 0x4b6f, 0x8e, 0x21, 0x5d, 0xc4, 0x0b, 0x9a, 0x63, 0xf7);
static const efi_guid_t payload_table_guid =
    EFI_GUID(0x1f0e6b3d, 0x2c47, 0x4a95, 0xb1, 0x08, 0xe6, 0x7d, 0x3a, 0x52, 0xc9, 0x14);
static const efi_guid_t payload_vendor_guid =
    EFI_GUID(0xc2d95a60, 0x71e8, 0x4f03, 0x9b, 0x5c, 0x40, 0x1a, 0xe7, 0x86, 0x2d, 0x3e);
static const efi_guid_t payload_race_guid =
    EFI_GUID(0x9742778a, 0xe6e6, 0x4566, 0xae, 0x14, 0x56, 0x31, 0xc2, 0xbb, 0x51, 0xcc);

/* ------------------------------------------------------------------ */
/* State                                                              */

static struct {
    efi_handle_t image;
    efi_system_table_t *st;
    efi_boot_services_t *bs;
    efi_runtime_services_t *rt;
    uint8_t *bp;                /* boot_params: given (handover) or made (PE) */
    bool pe_entry;
    uint64_t entry_addr;        /* address of the entry point we came through */
    char cmdline[MAX_CMDLINE];
    unsigned test_no;
    unsigned failures;
} g;

volatile uint64_t payload_bp_count;     /* bumped by the #BP handler (traps.S) */

/* Linker-script symbols */
extern char __bss_start[], __bss_end[];
extern char payload_trap_stubs[];

/* Entry points (referenced by payload.ld for the headers) */
void efi_handover_entry(efi_handle_t image, efi_system_table_t *st, void *bp);
EFIAPI efi_status_t efi_pe_entry(efi_handle_t image, efi_system_table_t *st);
NORETURN void payload_trap_report(uint64_t vector, uint64_t rip, uint64_t error);

/* ------------------------------------------------------------------ */
/* Freestanding basics. gcc may emit calls to these four itself.       */

void *memset(void *dst, int c, size_t n)
{
    void *d = dst;
    asm volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
    return dst;
}

void *memcpy(void *dst, const void *src, size_t n)
{
    void *d = dst;
    asm volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    if (d <= s || d >= s + n)
        return memcpy(dst, src, n);
    while (n--)
        d[n] = s[n];
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

static size_t str_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

static bool guid_eq(const efi_guid_t *a, const efi_guid_t *b)
{
    return memcmp(a, b, sizeof(*a)) == 0;
}

static inline void outb(uint16_t port, uint8_t v)
{
    asm volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
    uint8_t v;
    asm volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
    return v;
}

static NORETURN void halt_forever(void)
{
    for (;;)
        asm volatile("cli; hlt");
}

static NORETURN void exit_vm(unsigned status)
{
    outb(EXIT_PORT, (uint8_t)status);
    halt_forever();
}

/* ------------------------------------------------------------------ */
/* Serial console and a small printf (%s %c %d %u %x %p, l modifier)   */

static void serial_putc(char c)
{
    for (int i = 0; i < 100000 && !(inb(SERIAL_LSR) & SERIAL_LSR_THRE); i++)
        asm volatile("pause");
    outb(SERIAL_PORT, (uint8_t)c);
}

static void put_str(const char *s)
{
    while (*s)
        serial_putc(*s++);
}

static void put_uint(uint64_t v, unsigned base)
{
    char buf[24];
    int i = 0;
    do {
        unsigned d = (unsigned)(v % base);
        buf[i++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v /= base;
    } while (v);
    while (i)
        serial_putc(buf[--i]);
}

static void vprint(const char *fmt, va_list ap)
{
    for (; *fmt; fmt++) {
        if (*fmt != '%') {
            serial_putc(*fmt);
            continue;
        }
        fmt++;
        bool is_long = false;
        if (*fmt == 'l') {
            is_long = true;
            fmt++;
        }
        switch (*fmt) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            put_str(s ? s : "(null)");
            break;
        }
        case 'c':
            serial_putc((char)va_arg(ap, int));
            break;
        case 'd': {
            int64_t v = is_long ? va_arg(ap, long) : va_arg(ap, int);
            if (v < 0) {
                serial_putc('-');
                put_uint((uint64_t)0 - (uint64_t)v, 10);
            } else {
                put_uint((uint64_t)v, 10);
            }
            break;
        }
        case 'u':
            put_uint(is_long ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 10);
            break;
        case 'x':
            put_uint(is_long ? va_arg(ap, unsigned long) : va_arg(ap, unsigned), 16);
            break;
        case 'p':
            put_str("0x");
            put_uint((uint64_t)(uintptr_t)va_arg(ap, void *), 16);
            break;
        case '%':
            serial_putc('%');
            break;
        default:
            serial_putc('?');
            if (!*fmt)
                return;
            break;
        }
    }
}

__attribute__((format(printf, 1, 2)))
static void print(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint(fmt, ap);
    va_end(ap);
}

/* Prints a UCS-2 string as ASCII (at most max characters). */
static void put_ucs2(const efi_char16_t *s, size_t max)
{
    for (size_t i = 0; i < max && s[i]; i++)
        serial_putc(s[i] >= 0x20 && s[i] < 0x7f ? (char)s[i] : '?');
}

/* ------------------------------------------------------------------ */
/* TAP-like reporting                                                 */

__attribute__((format(printf, 3, 4)))
static bool checkf(bool cond, const char *name, const char *fmt, ...)
{
    g.test_no++;
    if (cond) {
        print("ok %u - %s\n", g.test_no, name);
        return true;
    }
    g.failures++;
    print("not ok %u - %s: ", g.test_no, name);
    va_list ap;
    va_start(ap, fmt);
    vprint(fmt, ap);
    va_end(ap);
    serial_putc('\n');
    return false;
}

static bool check_status(efi_status_t got, efi_status_t want, const char *name)
{
    return checkf(got == want, name, "expected status 0x%lx, got 0x%lx", want, got);
}

/* The call must fail (any error status) and must not crash the VMM. */
static bool check_error(efi_status_t got, const char *name)
{
    return checkf(EFI_IS_ERROR(got), name, "expected an error status, got 0x%lx", got);
}

static void skip(const char *name, const char *why)
{
    g.test_no++;
    print("ok %u - %s # SKIP %s\n", g.test_no, name, why);
}

static void survived(const char *name, efi_status_t status)
{
    g.test_no++;
    print("ok %u - %s # status 0x%lx\n", g.test_no, name, status);
}

static NORETURN void finish(void)
{
    print("payload: done, %u failures\n", g.failures);
    exit_vm(g.failures > 0x7f ? 0x7f : g.failures);
}

/* ------------------------------------------------------------------ */
/* CRC32 (IEEE 802.3, reflected polynomial 0xEDB88320)                 */

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
    }
    return crc;
}

static uint32_t crc32(const void *p, size_t n)
{
    return ~crc32_update(0xffffffffu, p, n);
}

/* CRC of an EFI table header: HeaderSize bytes, CRC32 field taken as 0. */
static uint32_t table_crc32(const efi_table_header_t *hdr)
{
    static const uint8_t zero[4];
    const uint8_t *p = (const uint8_t *)hdr;
    uint32_t size = hdr->header_size;
    uint32_t crc = 0xffffffffu;
    if (size < EFI_TABLE_CRC32_OFFSET + 4)
        return ~crc32_update(crc, p, size);
    crc = crc32_update(crc, p, EFI_TABLE_CRC32_OFFSET);
    crc = crc32_update(crc, zero, 4);
    crc = crc32_update(crc, p + EFI_TABLE_CRC32_OFFSET + 4, size - EFI_TABLE_CRC32_OFFSET - 4);
    return ~crc;
}

/* ------------------------------------------------------------------ */
/* Command line                                                       */

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Returns the text after `key` in the first word that starts with it. */
static const char *cmdline_option(const char *key)
{
    size_t n = str_len(key);
    const char *p = g.cmdline;
    while (*p) {
        while (is_space(*p))
            p++;
        if (!*p)
            break;
        if (memcmp(p, key, n) == 0)
            return p + n;
        while (*p && !is_space(*p))
            p++;
    }
    return NULL;
}

/* Is the word at p exactly `word`? */
static bool word_is(const char *p, const char *word)
{
    size_t n = str_len(word);
    return memcmp(p, word, n) == 0 && (p[n] == 0 || is_space(p[n]));
}

static void cmdline_from_ascii(const char *s)
{
    size_t i = 0;
    if (s)
        for (; i < MAX_CMDLINE - 1 && s[i]; i++)
            g.cmdline[i] = s[i];
    g.cmdline[i] = 0;
}

static void cmdline_from_ucs2(const efi_char16_t *s, uint64_t bytes)
{
    size_t i = 0;
    if (s)
        for (; i < MAX_CMDLINE - 1 && i < bytes / 2 && s[i]; i++)
            g.cmdline[i] = s[i] < 0x80 ? (char)s[i] : '?';
    g.cmdline[i] = 0;
}

/* ------------------------------------------------------------------ */
/* Memory map helper                                                  */

static uint8_t mm_storage[16384] __attribute__((aligned(16)));
static struct {
    uint8_t *buf;
    uint64_t buf_size;  /* capacity */
    uint64_t size;      /* size returned */
    uint64_t key;
    uint64_t desc_size;
    uint32_t desc_version;
} mm;

static efi_status_t get_map_into(void *buf, uint64_t capacity)
{
    mm.buf = buf;
    mm.buf_size = capacity;
    mm.size = capacity;
    mm.desc_size = 0;
    mm.desc_version = 0;
    return g.bs->get_memory_map(&mm.size, (efi_memory_descriptor_t *)buf, &mm.key,
                                &mm.desc_size, &mm.desc_version);
}

static efi_status_t get_map(void)
{
    return get_map_into(mm_storage, sizeof(mm_storage));
}

static uint64_t mm_count(void)
{
    if (mm.desc_size < sizeof(efi_memory_descriptor_t) || mm.size > mm.buf_size)
        return 0;
    return mm.size / mm.desc_size;
}

static efi_memory_descriptor_t *mm_desc(uint64_t i)
{
    return (efi_memory_descriptor_t *)(mm.buf + i * mm.desc_size);
}

static uint64_t desc_end(const efi_memory_descriptor_t *d)
{
    return d->physical_start + d->number_of_pages * EFI_PAGE_SIZE;
}

static efi_memory_descriptor_t *mm_find(uint64_t addr)
{
    for (uint64_t i = 0; i < mm_count(); i++) {
        efi_memory_descriptor_t *d = mm_desc(i);
        if (addr >= d->physical_start && addr < desc_end(d))
            return d;
    }
    return NULL;
}

/* Highest end address of memory in the map (everything but MMIO/reserved). */
static uint64_t mm_top_of_ram(void)
{
    uint64_t top = 0;
    for (uint64_t i = 0; i < mm_count(); i++) {
        efi_memory_descriptor_t *d = mm_desc(i);
        if (d->type == EfiMemoryMappedIO || d->type == EfiMemoryMappedIOPortSpace ||
            d->type == EfiReservedMemoryType || d->type == EfiUnusableMemory)
            continue;
        if (desc_end(d) > top)
            top = desc_end(d);
    }
    return top;
}

/* Retries once on a stale key, like the kernel's efi_exit_boot_services. */
static efi_status_t exit_boot_services_with_retry(void)
{
    efi_status_t s = g.bs->exit_boot_services(g.image, mm.key);
    if (s == EFI_INVALID_PARAMETER) {
        s = get_map_into(mm.buf, mm.buf_size);
        if (s == EFI_SUCCESS)
            s = g.bs->exit_boot_services(g.image, mm.key);
    }
    return s;
}

/* ------------------------------------------------------------------ */
/* services mode                                                      */

static void check_table_header(const efi_table_header_t *h, uint64_t sig, uint32_t size,
                               const char *n_sig, const char *n_size, const char *n_crc)
{
    checkf(h->signature == sig, n_sig, "expected 0x%lx, got 0x%lx", sig, h->signature);
    checkf(h->header_size == size, n_size, "expected %u, got %u", size, h->header_size);
    uint32_t want = h->header_size <= 4096 ? table_crc32(h) : 0;
    checkf(h->header_size <= 4096 && h->crc32 == want, n_crc,
           "header says 0x%x, computed 0x%x", h->crc32, want);
}

static void test_tables(void)
{
    efi_system_table_t *st = g.st;
    checkf(st->hdr.signature == EFI_SYSTEM_TABLE_SIGNATURE, "systab_signature",
           "expected 0x%lx, got 0x%lx", EFI_SYSTEM_TABLE_SIGNATURE, st->hdr.signature);
    checkf(st->hdr.revision >= (2u << 16), "systab_revision", "expected >= 0x20000, got 0x%x",
           st->hdr.revision);
    checkf(st->hdr.header_size == sizeof(*st), "systab_header_size", "expected %u, got %u",
           (unsigned)sizeof(*st), st->hdr.header_size);
    uint32_t want = st->hdr.header_size <= 4096 ? table_crc32(&st->hdr) : 0;
    checkf(st->hdr.header_size <= 4096 && st->hdr.crc32 == want, "systab_crc32",
           "header says 0x%x, computed 0x%x", st->hdr.crc32, want);

    check_table_header(&g.bs->hdr, EFI_BOOT_SERVICES_SIGNATURE, sizeof(efi_boot_services_t),
                       "bs_signature", "bs_header_size", "bs_crc32");
    check_table_header(&g.rt->hdr, EFI_RUNTIME_SERVICES_SIGNATURE,
                       sizeof(efi_runtime_services_t),
                       "rt_signature", "rt_header_size", "rt_crc32");

    const efi_char16_t *v = st->firmware_vendor;
    size_t len = 0;
    bool printable = v != NULL;
    if (v) {
        for (; len < 256 && v[len]; len++)
            if (v[len] < 0x20 || v[len] > 0x7e)
                printable = false;
    }
    if (checkf(printable && len > 0 && len < 256, "fw_vendor",
               "vendor %p is not a printable NUL-terminated UCS-2 string (len %lu)",
               (const void *)v, (unsigned long)len)) {
        print("payload: firmware vendor \"");
        put_ucs2(v, 256);
        print("\" revision 0x%x\n", st->firmware_revision);
    }

    if (checkf(st->con_out != NULL, "conout", "ConOut is NULL")) {
        efi_status_t s = st->con_out->output_string(st->con_out,
                                                    u"payload: hello from ConOut\r\n");
        check_status(s, EFI_SUCCESS, "conout_output_string");
    } else {
        skip("conout_output_string", "no ConOut");
    }
    checkf(st->con_in != NULL, "conin", "ConIn is NULL");
}

static void test_crc_mem(void)
{
    static const char text[] = "123456789";
    uint32_t fw = 0;
    uint32_t mine = crc32(text, 9);
    efi_status_t s = g.bs->calculate_crc32(text, 9, &fw);
    checkf(s == EFI_SUCCESS && fw == mine && mine == 0xcbf43926u, "bs_calculate_crc32",
           "status 0x%lx, firmware 0x%x, payload 0x%x, expected 0xcbf43926", s, fw, mine);

    char buf[17];
    memcpy(buf, "0123456789abcdef", 17);
    g.bs->copy_mem(buf + 2, buf, 8);            /* forward overlap */
    bool fwd = memcmp(buf, "0101234567abcdef", 17) == 0;
    memcpy(buf, "0123456789abcdef", 17);
    g.bs->copy_mem(buf, buf + 2, 8);            /* backward overlap */
    bool bwd = memcmp(buf, "2345678989abcdef", 17) == 0;
    checkf(fwd && bwd, "bs_copy_mem", "overlapping copy wrong (forward %s, backward %s)",
           fwd ? "ok" : "bad", bwd ? "ok" : "bad");

    memcpy(buf, "0123456789abcdef", 17);
    g.bs->set_mem(buf + 1, 5, 'Z');
    checkf(memcmp(buf, "0ZZZZZ6789abcdef", 17) == 0, "bs_set_mem", "got \"%s\"", buf);
}

static void test_memory_map(void)
{
    uint64_t size = 0, key = 0, dsize = 0;
    uint32_t dver = 0;
    efi_status_t s = g.bs->get_memory_map(&size, NULL, &key, &dsize, &dver);
    checkf(s == EFI_BUFFER_TOO_SMALL && size > 0 && dsize >= sizeof(efi_memory_descriptor_t),
           "get_memory_map_probe", "status 0x%lx (want 0x%lx), size %lu, desc_size %lu",
           s, EFI_BUFFER_TOO_SMALL, size, dsize);

    s = get_map();
    checkf(s == EFI_SUCCESS && mm.size > 0 && mm.size <= sizeof(mm_storage) &&
           mm.desc_size >= sizeof(efi_memory_descriptor_t) && mm.size % mm.desc_size == 0,
           "get_memory_map", "status 0x%lx, size %lu, desc_size %lu", s, mm.size, mm.desc_size);
    checkf(mm.desc_version == 1, "memmap_desc_version", "expected 1, got %u", mm.desc_version);

    uint64_t n = mm_count();
    print("payload: memory map: %lu descriptors of %lu bytes, key 0x%lx\n",
          n, mm.desc_size, mm.key);
    bool sorted = n > 0;
    uint64_t bad = 0;
    for (uint64_t i = 0; i < n; i++) {
        efi_memory_descriptor_t *d = mm_desc(i);
        if (d->number_of_pages == 0 || (d->physical_start & (EFI_PAGE_SIZE - 1)) ||
            desc_end(d) <= d->physical_start ||
            (i > 0 && d->physical_start < desc_end(mm_desc(i - 1)))) {
            sorted = false;
            bad = i;
            break;
        }
    }
    checkf(sorted, "memmap_sorted", "descriptor %lu (of %lu) out of order, empty or overlapping",
           bad, n);

    efi_memory_descriptor_t *d = mm_find(g.entry_addr);
    checkf(d && d->type == EfiLoaderCode, "memmap_image_loader_code",
           "entry 0x%lx is in type %d", g.entry_addr, d ? (int)d->type : -1);
    d = mm_find((uint64_t)(uintptr_t)g.st);
    checkf(d && d->type == EfiRuntimeServicesData, "memmap_systab_rt_data",
           "systab %p is in type %d", (void *)g.st, d ? (int)d->type : -1);
}

static bool pages_writable(uint64_t addr, uint64_t pages)
{
    for (uint64_t p = 0; p < pages; p++) {
        volatile uint64_t *q = (volatile uint64_t *)(uintptr_t)(addr + p * EFI_PAGE_SIZE);
        q[0] = 0x5041594c4f414430ull + p;
        q[511] = ~(0x5041594c4f414430ull + p);
    }
    for (uint64_t p = 0; p < pages; p++) {
        volatile uint64_t *q = (volatile uint64_t *)(uintptr_t)(addr + p * EFI_PAGE_SIZE);
        if (q[0] != 0x5041594c4f414430ull + p || q[511] != ~(0x5041594c4f414430ull + p))
            return false;
    }
    return true;
}

static void test_allocate_pages(void)
{
    get_map();
    uint64_t key0 = mm.key;
    efi_physical_addr_t a = 0;
    efi_status_t s = g.bs->allocate_pages(AllocateAnyPages, EfiLoaderData, 3, &a);
    bool ok = checkf(s == EFI_SUCCESS && a != 0 && (a & (EFI_PAGE_SIZE - 1)) == 0,
                     "allocate_pages_any", "status 0x%lx, address 0x%lx", s, a);
    if (!ok) {
        skip("map_key_changes_alloc", "no allocation");
        skip("pages_writable", "no allocation");
        skip("free_pages", "no allocation");
        skip("map_key_changes_free", "no allocation");
    } else {
        s = get_map();
        uint64_t key1 = mm.key;
        checkf(s == EFI_SUCCESS && key1 != key0, "map_key_changes_alloc",
               "status 0x%lx, key before 0x%lx, after 0x%lx", s, key0, key1);
        efi_memory_descriptor_t *d = mm_find(a);
        if (d && d->type != EfiLoaderData)
            print("payload: note: allocated pages are in a type %u descriptor\n", d->type);
        checkf(pages_writable(a, 3), "pages_writable", "pages at 0x%lx do not keep data", a);
        s = g.bs->free_pages(a, 3);
        check_status(s, EFI_SUCCESS, "free_pages");
        efi_status_t s2 = get_map();
        checkf(s2 == EFI_SUCCESS && mm.key != key1, "map_key_changes_free",
               "status 0x%lx, key before 0x%lx, after 0x%lx", s2, key1, mm.key);
    }

    /* An address the firmware never handed out: the last page of the
     * highest conventional descriptor. */
    get_map();
    efi_physical_addr_t never = 0;
    for (uint64_t i = 0; i < mm_count(); i++) {
        efi_memory_descriptor_t *d = mm_desc(i);
        if (d->type == EfiConventionalMemory && desc_end(d) > never + EFI_PAGE_SIZE)
            never = desc_end(d) - EFI_PAGE_SIZE;
    }
    s = g.bs->free_pages(never, 1);
    checkf(s == EFI_NOT_FOUND || s == EFI_INVALID_PARAMETER, "free_pages_unallocated",
           "FreePages(0x%lx) returned 0x%lx, expected NOT_FOUND or INVALID_PARAMETER",
           never, s);
}

static void test_allocate_pages_special(void)
{
    efi_physical_addr_t a = ~0ull;
    efi_status_t s = g.bs->allocate_pages(AllocateMaxAddress, EfiLoaderData, 1, &a);
    efi_status_t f = s == EFI_SUCCESS ? g.bs->free_pages(a, 1) : EFI_SUCCESS;
    checkf(s == EFI_SUCCESS && !(a & (EFI_PAGE_SIZE - 1)) && f == EFI_SUCCESS,
           "allocate_pages_max_any", "status 0x%lx, address 0x%lx, free 0x%lx", s, a, f);

    a = 0xffffffffull;
    s = g.bs->allocate_pages(AllocateMaxAddress, EfiLoaderData, 1, &a);
    f = s == EFI_SUCCESS ? g.bs->free_pages(a, 1) : EFI_SUCCESS;
    checkf(s == EFI_SUCCESS && !(a & (EFI_PAGE_SIZE - 1)) && a + EFI_PAGE_SIZE - 1 <= 0xffffffffull
           && f == EFI_SUCCESS,
           "allocate_pages_max_4g", "status 0x%lx, address 0x%lx, free 0x%lx", s, a, f);

    const efi_physical_addr_t fixed = 0x2000000;
    get_map();
    efi_memory_descriptor_t *d = mm_find(fixed);
    int type = d ? (int)d->type : -1;
    bool conventional = d && d->type == EfiConventionalMemory &&
                        desc_end(d) >= fixed + 512 * EFI_PAGE_SIZE;
    a = fixed;
    s = g.bs->allocate_pages(AllocateAddress, EfiLoaderCode, 512, &a);
    bool got = s == EFI_SUCCESS;
    checkf(got && a == fixed, "allocate_pages_address",
           "status 0x%lx, address 0x%lx (wanted 0x%lx; the map has type %d there%s)", s, a,
           fixed, type, conventional ? "" : ", not 2 MiB of conventional memory");
    a = fixed;
    s = g.bs->allocate_pages(AllocateAddress, EfiLoaderCode, 512, &a);
    check_status(s, EFI_NOT_FOUND, "allocate_pages_address_twice");
    if (s == EFI_SUCCESS)
        g.bs->free_pages(fixed, 512);
    if (got)
        check_status(g.bs->free_pages(fixed, 512), EFI_SUCCESS, "free_pages_address");
    else
        skip("free_pages_address", "not allocated");
}

static void test_pool(void)
{
    void *p1 = NULL, *p2 = NULL;
    efi_status_t s = g.bs->allocate_pool(EfiLoaderData, 100, &p1);
    if (s != EFI_SUCCESS)
        p1 = NULL;
    bool ok1 = p1 && !((uintptr_t)p1 & 7);
    if (ok1) {
        memset(p1, 0xa5, 100);
        for (int i = 0; i < 100; i++)
            ok1 = ok1 && ((volatile uint8_t *)p1)[i] == 0xa5;
    }
    checkf(ok1, "allocate_pool_loader_data", "status 0x%lx, pointer %p", s, p1);

    s = g.bs->allocate_pool(EfiACPIReclaimMemory, 5000, &p2);
    if (s != EFI_SUCCESS)
        p2 = NULL;
    bool ok2 = p2 && !((uintptr_t)p2 & 7);
    if (ok2) {
        volatile uint8_t *b = p2;
        b[0] = 0x11;
        b[2500] = 0x22;
        b[4999] = 0x33;
        ok2 = b[0] == 0x11 && b[2500] == 0x22 && b[4999] == 0x33;
    }
    checkf(ok2, "allocate_pool_acpi_reclaim", "status 0x%lx, pointer %p", s, p2);

    if (p1 || p2) {
        efi_status_t f1 = p1 ? g.bs->free_pool(p1) : EFI_SUCCESS;
        efi_status_t f2 = p2 ? g.bs->free_pool(p2) : EFI_SUCCESS;
        checkf(f1 == EFI_SUCCESS && f2 == EFI_SUCCESS, "free_pool",
               "FreePool returned 0x%lx and 0x%lx", f1, f2);
    } else {
        skip("free_pool", "nothing allocated");
    }

    s = g.bs->free_pool(NULL);
    survived("free_pool_null", s);
}

static bool device_path_ends(const efi_device_path_t *dp)
{
    const uint8_t *p = (const uint8_t *)dp;
    for (int i = 0; i < 64 && p; i++) {
        const efi_device_path_t *n = (const efi_device_path_t *)p;
        unsigned len = n->length[0] | (unsigned)n->length[1] << 8;
        if (n->type == EFI_DP_TYPE_END && n->sub_type == EFI_DP_END_ENTIRE)
            return len == 4;
        if (len < 4)
            return false;
        p += len;
    }
    return false;
}

static void test_loaded_image(void)
{
    efi_loaded_image_t *li = NULL;
    efi_status_t s = g.bs->handle_protocol(g.image, &loaded_image_guid, (void **)&li);
    if (!checkf(s == EFI_SUCCESS && li, "handle_protocol_loaded_image",
                "status 0x%lx, interface %p", s, (void *)li)) {
        skip("loaded_image_covers_entry", "no LoadedImage");
        skip("loaded_image_systab", "no LoadedImage");
        li = NULL;
    } else {
        uint64_t base = (uint64_t)(uintptr_t)li->image_base;
        checkf(g.entry_addr >= base && g.entry_addr < base + li->image_size,
               "loaded_image_covers_entry", "ImageBase 0x%lx ImageSize 0x%lx, entry 0x%lx",
               base, li->image_size, g.entry_addr);
        checkf(li->system_table == g.st, "loaded_image_systab", "SystemTable %p, systab %p",
               (void *)li->system_table, (void *)g.st);
    }

    efi_loaded_image_t *li2 = NULL;
    s = g.bs->open_protocol(g.image, &loaded_image_guid, (void **)&li2, g.image, NULL,
                            EFI_OPEN_PROTOCOL_GET_PROTOCOL);
    checkf(s == EFI_SUCCESS && li2 && li2 == li, "open_protocol_loaded_image",
           "status 0x%lx, interface %p, HandleProtocol gave %p", s, (void *)li2, (void *)li);

    efi_device_path_t *dp = NULL;
    s = g.bs->handle_protocol(g.image, &loaded_image_device_path_guid, (void **)&dp);
    if (s != EFI_SUCCESS || !dp) {
        dp = NULL;
        s = g.bs->handle_protocol(g.image, &device_path_guid, (void **)&dp);
    }
    checkf(s == EFI_SUCCESS && dp && device_path_ends(dp), "image_device_path",
           "status 0x%lx, device path %p (no End node)", s, (void *)dp);
}

static void test_locate_protocol(void)
{
    void *junk = (void *)(uintptr_t)0xdeadbeef0badf00dull;
    void *iface = junk;
    efi_status_t s = g.bs->locate_protocol(&rng_guid, NULL, &iface);
    checkf((s == EFI_SUCCESS && iface && iface != junk) || (s == EFI_NOT_FOUND && !iface),
           "locate_protocol_rng", "status 0x%lx, interface %p", s, iface);

    iface = junk;
    s = g.bs->locate_protocol(&payload_unknown_guid, NULL, &iface);
    checkf(s == EFI_NOT_FOUND && iface == NULL, "locate_protocol_unknown",
           "status 0x%lx (want 0x%lx), interface %p (want NULL)", s, EFI_NOT_FOUND, iface);
}

static void test_locate_handle(void)
{
    uint64_t size = 0;
    efi_status_t s = g.bs->locate_handle(ByProtocol, &gop_guid, NULL, &size, NULL);
    check_status(s, EFI_NOT_FOUND, "locate_handle_gop");
    size = 0;
    s = g.bs->locate_handle(ByProtocol, &uga_guid, NULL, &size, NULL);
    check_status(s, EFI_NOT_FOUND, "locate_handle_uga");
    size = 0;
    s = g.bs->locate_handle(ByProtocol, &pci_io_guid, NULL, &size, NULL);
    check_status(s, EFI_NOT_FOUND, "locate_handle_pci_io");

    uint64_t n = 0;
    efi_handle_t *buf = NULL;
    s = g.bs->locate_handle_buffer(ByProtocol, &gop_guid, NULL, &n, &buf);
    check_status(s, EFI_NOT_FOUND, "locate_handle_buffer_gop");

    n = 0;
    buf = NULL;
    s = g.bs->locate_handle_buffer(ByProtocol, &loaded_image_guid, NULL, &n, &buf);
    bool found = false;
    if (s == EFI_SUCCESS && buf)
        for (uint64_t i = 0; i < n && i < 1024; i++)
            found = found || buf[i] == g.image;
    checkf(s == EFI_SUCCESS && found, "locate_handle_buffer_loaded_image",
           "status 0x%lx, %lu handles at %p, image handle %sfound", s, n, (void *)buf,
           found ? "" : "not ");
    if (s == EFI_SUCCESS && buf)
        g.bs->free_pool(buf);
}

/* VenMedia(LINUX_EFI_INITRD_MEDIA)/End, as the kernel's stub builds it. */
struct initrd_device_path {
    efi_device_path_t vendor;
    efi_guid_t guid;
    efi_device_path_t end;
} __attribute__((packed));

static void test_locate_device_path(void)
{
    struct initrd_device_path path = {
        .vendor = { EFI_DP_TYPE_MEDIA, EFI_DP_MEDIA_VENDOR, { 20, 0 } },
        .guid = linux_initrd_media_guid,
        .end = { EFI_DP_TYPE_END, EFI_DP_END_ENTIRE, { 4, 0 } },
    };
    efi_device_path_t *dp = &path.vendor;
    efi_handle_t h = NULL;
    efi_status_t s = g.bs->locate_device_path(&load_file2_guid, &dp, &h);
    const char *opt = cmdline_option("payload.initrd=");
    if (opt && word_is(opt, "1")) {
        checkf(s == EFI_SUCCESS && h && dp == &path.end, "locate_device_path_initrd",
               "status 0x%lx, handle %p, remaining path %p (end node at %p)", s, h,
               (void *)dp, (void *)&path.end);
    } else {
        check_status(s, EFI_NOT_FOUND, "locate_device_path_initrd");
    }
}

static int64_t find_config_table(const efi_guid_t *guid)
{
    efi_configuration_table_t *t = g.st->configuration_table;
    for (uint64_t i = 0; t && i < g.st->number_of_table_entries && i < 4096; i++)
        if (guid_eq(&t[i].vendor_guid, guid))
            return (int64_t)i;
    return -1;
}

static void test_config_table(void)
{
    static uint64_t table_data[2] = { 0x7061796c6f616421ull, 0 };
    uint64_t n0 = g.st->number_of_table_entries;
    efi_status_t s = g.bs->install_configuration_table(&payload_table_guid, table_data);
    uint64_t n1 = g.st->number_of_table_entries;
    int64_t i = find_config_table(&payload_table_guid);
    void *seen = i >= 0 ? g.st->configuration_table[i].vendor_table : NULL;
    checkf(s == EFI_SUCCESS && n1 == n0 + 1 && seen == table_data, "install_config_table",
           "status 0x%lx, entries %lu -> %lu, table %p (want %p)", s, n0, n1, seen,
           (void *)table_data);
    uint32_t want = table_crc32(&g.st->hdr);
    checkf(g.st->hdr.crc32 == want, "systab_crc32_after_install",
           "header says 0x%x, computed 0x%x", g.st->hdr.crc32, want);

    s = g.bs->install_configuration_table(&payload_table_guid, NULL);
    uint64_t n2 = g.st->number_of_table_entries;
    i = find_config_table(&payload_table_guid);
    checkf(s == EFI_SUCCESS && n2 == n0 && i < 0, "remove_config_table",
           "status 0x%lx, entries %lu -> %lu, still present: %s", s, n1, n2,
           i >= 0 ? "yes" : "no");
}

static void check_variable_absent(const efi_char16_t *name, const char *test)
{
    uint8_t data[8] = { 0 };
    uint64_t size = 1;
    efi_status_t s = g.rt->get_variable(name, &global_variable_guid, NULL, &size, data);
    checkf(s == EFI_NOT_FOUND && size == 1, test,
           "status 0x%lx (want 0x%lx), size %lu (want 1)", s, EFI_NOT_FOUND, size);
}

static const efi_char16_t payload_var_name[] = u"PayloadTest";

static bool ucs2_eq(const efi_char16_t *a, const efi_char16_t *b, size_t max)
{
    for (size_t i = 0; i < max; i++) {
        if (a[i] != b[i])
            return false;
        if (!a[i])
            return true;
    }
    return false;
}

static void test_variables(void)
{
    const uint32_t attrs = EFI_VARIABLE_NON_VOLATILE | EFI_VARIABLE_BOOTSERVICE_ACCESS |
                           EFI_VARIABLE_RUNTIME_ACCESS;
    check_variable_absent(u"SecureBoot", "get_variable_secureboot");
    check_variable_absent(u"SetupMode", "get_variable_setupmode");

    efi_status_t s = g.rt->set_variable(payload_var_name, &payload_vendor_guid, attrs, 4,
                                        "abcd");
    check_status(s, EFI_SUCCESS, "set_variable");

    uint8_t data[16] = { 0 };
    uint64_t size = sizeof(data);
    uint32_t got_attrs = 0;
    s = g.rt->get_variable(payload_var_name, &payload_vendor_guid, &got_attrs, &size, data);
    checkf(s == EFI_SUCCESS && size == 4 && memcmp(data, "abcd", 4) == 0 && got_attrs == attrs,
           "get_variable", "status 0x%lx, size %lu, data[0] 0x%x, attributes 0x%x", s, size,
           data[0], got_attrs);

    size = 1;
    s = g.rt->get_variable(payload_var_name, &payload_vendor_guid, NULL, &size, data);
    checkf(s == EFI_BUFFER_TOO_SMALL && size == 4, "get_variable_too_small",
           "status 0x%lx (want 0x%lx), size %lu (want 4)", s, EFI_BUFFER_TOO_SMALL, size);

    efi_char16_t name[128];
    efi_guid_t vendor;
    memset(&vendor, 0, sizeof(vendor));
    name[0] = 0;
    bool found = false;
    int count = 0;
    s = EFI_SUCCESS;
    for (; count < 256; count++) {
        uint64_t nsize = sizeof(name);
        s = g.rt->get_next_variable_name(&nsize, name, &vendor);
        if (s != EFI_SUCCESS)
            break;
        if (ucs2_eq(name, payload_var_name, ARRAY_SIZE(name)) &&
            guid_eq(&vendor, &payload_vendor_guid))
            found = true;
    }
    checkf(found && s == EFI_NOT_FOUND, "get_next_variable_name",
           "after %d names: status 0x%lx (want NOT_FOUND at the end), PayloadTest %sfound",
           count, s, found ? "" : "not ");

    s = g.rt->set_variable(payload_var_name, &payload_vendor_guid, attrs, 0, NULL);
    size = sizeof(data);
    efi_status_t s2 = g.rt->get_variable(payload_var_name, &payload_vendor_guid, NULL, &size,
                                         data);
    checkf(s == EFI_SUCCESS && s2 == EFI_NOT_FOUND, "delete_variable",
           "SetVariable(size 0) 0x%lx, then GetVariable 0x%lx", s, s2);
}

static void test_misc(void)
{
    check_status(g.bs->set_watchdog_timer(0, 0, 0, NULL), EFI_SUCCESS, "set_watchdog_timer");
    check_status(g.bs->stall(10), EFI_SUCCESS, "stall");
    check_error(g.bs->connect_controller(NULL, NULL, NULL, 0), "connect_controller");
}

static bool test_exit_boot_services(void)
{
    efi_status_t s = get_map();
    if (s != EFI_SUCCESS) {
        checkf(false, "exit_boot_services_stale_key", "GetMemoryMap failed: 0x%lx", s);
        checkf(false, "exit_boot_services", "GetMemoryMap failed: 0x%lx", s);
        return false;
    }
    s = g.bs->exit_boot_services(g.image, mm.key - 1);
    check_status(s, EFI_INVALID_PARAMETER, "exit_boot_services_stale_key");

    efi_status_t m = get_map();
    s = m == EFI_SUCCESS ? g.bs->exit_boot_services(g.image, mm.key) : m;
    return checkf(s == EFI_SUCCESS, "exit_boot_services",
                  "GetMemoryMap 0x%lx, ExitBootServices 0x%lx", m, s);
}

static void test_after_ebs(void)
{
    void *p = NULL;
    check_error(g.bs->allocate_pool(EfiLoaderData, 64, &p), "after_ebs_allocate_pool");
    check_variable_absent(u"SecureBoot", "after_ebs_get_variable_secureboot");

    /* After ExitBootServices only NON_VOLATILE runtime variables can be
     * set; a volatile one is not made (UEFI 2.10 section 8.2, SetVariable). */
    const uint32_t rt = EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS;
    efi_status_t s = g.rt->set_variable(u"PayloadVolatile", &payload_vendor_guid, rt, 4, "wxyz");
    uint8_t data[8] = { 0 };
    uint64_t size = sizeof(data);
    efi_status_t s2 = g.rt->get_variable(u"PayloadVolatile", &payload_vendor_guid, NULL, &size, data);
    checkf(s == EFI_INVALID_PARAMETER && s2 == EFI_NOT_FOUND, "after_ebs_volatile_variable_not_made",
           "set 0x%lx (want 0x%lx), get 0x%lx (want 0x%lx)", s, EFI_INVALID_PARAMETER, s2, EFI_NOT_FOUND);

    const uint32_t attrs = EFI_VARIABLE_NON_VOLATILE | rt;
    s = g.rt->set_variable(u"PayloadStored", &payload_vendor_guid, attrs, 4, "wxyz");
    size = sizeof(data);
    uint32_t got_attrs = 0;
    s2 = g.rt->get_variable(u"PayloadStored", &payload_vendor_guid, &got_attrs, &size, data);
    efi_status_t s3 = g.rt->set_variable(u"PayloadStored", &payload_vendor_guid, attrs, 0, NULL);
    checkf(s == EFI_SUCCESS && s2 == EFI_SUCCESS && size == 4 &&
           memcmp(data, "wxyz", 4) == 0 && got_attrs == attrs && s3 == EFI_SUCCESS,
           "after_ebs_non_volatile_variable",
           "set 0x%lx, get 0x%lx (size %lu, attributes 0x%x), delete 0x%lx", s, s2, size,
           got_attrs, s3);
}

static NORETURN void mode_services(void)
{
    test_tables();
    test_crc_mem();
    test_memory_map();
    test_allocate_pages();
    test_allocate_pages_special();
    test_pool();
    test_loaded_image();
    test_locate_protocol();
    test_locate_handle();
    test_locate_device_path();
    test_config_table();
    test_variables();
    test_misc();
    if (test_exit_boot_services())
        test_after_ebs();
    finish();
}

/* ------------------------------------------------------------------ */
/* stop-at-ebs mode: the kernel stub's last steps                     */

#define FAKE_KERNEL_ADDR ((uint64_t)0x3000000)

static uint32_t e820_type(const efi_memory_descriptor_t *d)
{
    switch (d->type) {
    case EfiLoaderCode:
    case EfiLoaderData:
    case EfiBootServicesCode:
    case EfiBootServicesData:
    case EfiConventionalMemory:
        return (d->attribute & EFI_MEMORY_SP) ? E820_TYPE_SOFT_RESERVED : E820_TYPE_RAM;
    case EfiACPIReclaimMemory:
        return E820_TYPE_ACPI;
    case EfiACPIMemoryNVS:
        return E820_TYPE_NVS;
    case EfiPersistentMemory:
        return E820_TYPE_PMEM;
    default:    /* reserved, runtime code/data, MMIO, port space, PAL, unusable */
        return E820_TYPE_RESERVED;
    }
}

/* Like the kernel's setup_e820: map order, adjacent same-type merged. */
static unsigned fill_e820(uint8_t *bp, bool *overflow)
{
    struct boot_e820_entry *e = (struct boot_e820_entry *)(bp + BP_E820_TABLE);
    unsigned n = 0;
    *overflow = false;
    for (uint64_t i = 0; i < mm_count(); i++) {
        efi_memory_descriptor_t *d = mm_desc(i);
        uint32_t type = e820_type(d);
        uint64_t start = d->physical_start, size = d->number_of_pages * EFI_PAGE_SIZE;
        if (n > 0 && e[n - 1].type == type && e[n - 1].addr + e[n - 1].size == start) {
            e[n - 1].size += size;
            continue;
        }
        if (n == BP_E820_MAX) {
            *overflow = true;
            break;
        }
        e[n].addr = start;
        e[n].size = size;
        e[n].type = type;
        n++;
    }
    bp[BP_E820_ENTRIES] = (uint8_t)n;
    return n;
}

static void put_u16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static void put_u32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* payload.hang-on-fail (with payload=stop-at-ebs): a failed step spins
 * instead of finishing, so a fault sweep's cell ends at its timeout. */
static NORETURN void stop_fail(void)
{
    if (cmdline_option("payload.hang-on-fail")) {
        print("payload: hanging after a failed step, as asked\n");
        for (;;)
            asm volatile("pause");
    }
    finish();
}

/* payload.hog=N (with payload=stop-at-ebs): N rounds of dirtying 8 MiB of
 * RAM and calling GetVariable, a call the fault sweep snapshots: what a
 * guest does to make --fault-sweep hold ever more host memory. */
static void hog_rounds(void)
{
    const char *arg = cmdline_option("payload.hog=");
    unsigned n = 0;
    for (; arg && *arg >= '0' && *arg <= '9'; arg++)
        n = n * 10 + (unsigned)(*arg - '0');
    if (!n)
        return;
    enum { HOG_PAGES = 2048 };
    efi_physical_addr_t a = 0xffffffffull;
    efi_status_t s = g.bs->allocate_pages(AllocateMaxAddress, EfiLoaderData, HOG_PAGES, &a);
    if (!checkf(s == EFI_SUCCESS, "hog_alloc", "status 0x%lx", s))
        return;
    for (unsigned i = 0; i < n; i++) {
        memset((void *)(uintptr_t)a, (int)(i + 1), HOG_PAGES * 4096ull);
        uint8_t data[8];
        uint64_t size = sizeof(data);
        (void)g.rt->get_variable(u"SecureBoot", &global_variable_guid, NULL, &size, data);
    }
    print("payload: hog: %u rounds of 8 MiB\n", n);
}

/* payload.timer-across-call (with payload=stop-at-ebs): a timer of 1 s
 * armed before a GetVariable the fault sweep snapshots is not due as that
 * call returns, and is due after a Stall of 2 s. A sweep cell restored at
 * that call runs on the firmware's clock of the snapshot, resumed; on a
 * deadline kept from the boot without faults (its Stall long past) the
 * timer would be due at once and the cell fail here. */
static void timer_across_call(void)
{
    if (!cmdline_option("payload.timer-across-call"))
        return;
    efi_event_t timer = NULL;
    void *first = NULL;
    /* The sweep's first snapshot compares all of guest RAM: taken here,
     * before the timer runs. */
    if (g.bs->allocate_pool(EfiLoaderData, 64, &first) == EFI_SUCCESS)
        g.bs->free_pool(first);
    bool ok = check_status(g.bs->create_event(EVT_TIMER, 0, NULL, NULL, &timer), EFI_SUCCESS, "timer_create") &&
              check_status(g.bs->set_timer(timer, TimerRelative, 10000000), EFI_SUCCESS, "timer_set_1_s");
    uint8_t data[8];
    uint64_t size = sizeof(data);
    (void)g.rt->get_variable(u"SecureBoot", &global_variable_guid, NULL, &size, data);
    ok = ok && check_status(g.bs->check_event(timer), EFI_NOT_READY, "timer_not_due_after_the_call") &&
         check_status(g.bs->stall(2000000), EFI_SUCCESS, "timer_stall_2_s") &&
         check_status(g.bs->check_event(timer), EFI_SUCCESS, "timer_due_after_the_stall");
    if (!ok)
        stop_fail();
    g.bs->close_event(timer);
}

static NORETURN void mode_stop_at_ebs(void)
{
    efi_status_t s;

    hog_rounds();
    timer_across_call();

    if (g.pe_entry) {
        /* Like efi_pe_entry: a zeroed boot_params page below 4 GiB and an
         * ASCII copy of the command line. */
        efi_physical_addr_t a = 0xffffffffull;
        s = g.bs->allocate_pages(AllocateMaxAddress, EfiLoaderData, 1, &a);
        if (!checkf(s == EFI_SUCCESS, "stop_alloc_boot_params", "status 0x%lx", s))
            stop_fail();
        g.bp = (uint8_t *)(uintptr_t)a;
        memset(g.bp, 0, BP_SIZE);
        size_t len = str_len(g.cmdline) + 1;
        char *cmd = NULL;
        s = g.bs->allocate_pool(EfiLoaderData, len, (void **)&cmd);
        if (!checkf(s == EFI_SUCCESS, "stop_alloc_cmdline", "status 0x%lx", s))
            stop_fail();
        memcpy(cmd, g.cmdline, len);
        uint64_t c = (uint64_t)(uintptr_t)cmd;
        put_u16(g.bp + BP_HDR_ROOT_FLAGS, 1);
        put_u16(g.bp + BP_HDR_VID_MODE, 0xffff);
        g.bp[BP_HDR_TYPE_OF_LOADER] = 0x21;
        put_u32(g.bp + BP_HDR_INITRD_ADDR_MAX, 0x7fffffff);
        put_u32(g.bp + BP_HDR_CMD_LINE_PTR, (uint32_t)c);
        put_u32(g.bp + BP_EXT_CMD_LINE_PTR, (uint32_t)(c >> 32));
    }
    if (!checkf(g.bp != NULL, "stop_boot_params", "no boot_params"))
        stop_fail();

    efi_physical_addr_t k = FAKE_KERNEL_ADDR;
    s = g.bs->allocate_pages(AllocateAddress, EfiLoaderCode, 1, &k);
    if (!checkf(s == EFI_SUCCESS && k == FAKE_KERNEL_ADDR, "stop_alloc_kernel",
                "status 0x%lx, address 0x%lx", s, k))
        stop_fail();
    static const uint8_t hlt_loop[3] = { 0xf4, 0xeb, 0xfd };   /* hlt; jmp .-3 */
    memcpy((void *)(uintptr_t)k, hlt_loop, sizeof(hlt_loop));
    /* payload.loader: a boot loader's setup header, as GRUB's `linux`
     * builds it before its own ExitBootServices (boot.rst): the kernel's
     * entry is code32_start. */
    if (cmdline_option("payload.loader")) {
        put_u32(g.bp + BP_HDR_MAGIC, 0x53726448);   /* "HdrS" */
        put_u16(g.bp + BP_HDR_VERSION, 0x020f);
        put_u32(g.bp + BP_HDR_CODE32_START, (uint32_t)FAKE_KERNEL_ADDR);
    }

    uint64_t size = 0, key = 0, dsize = 0;
    uint32_t dver = 0;
    s = g.bs->get_memory_map(&size, NULL, &key, &dsize, &dver);
    if (!checkf(s == EFI_BUFFER_TOO_SMALL && size && dsize >= sizeof(efi_memory_descriptor_t),
                "stop_get_memory_map_probe", "status 0x%lx, size %lu, desc_size %lu",
                s, size, dsize))
        stop_fail();

    uint64_t cap = size + 8 * dsize;            /* slack, as the stub allocates */
    void *map = NULL;
    s = g.bs->allocate_pool(EfiACPIReclaimMemory, cap, &map);
    if (!checkf(s == EFI_SUCCESS && map, "stop_alloc_memory_map", "status 0x%lx", s))
        stop_fail();

    s = get_map_into(map, cap);
    if (!checkf(s == EFI_SUCCESS, "stop_get_memory_map", "status 0x%lx", s))
        stop_fail();
    print("payload: exiting boot services, key 0x%lx\n", mm.key);
    s = exit_boot_services_with_retry();
    if (!checkf(s == EFI_SUCCESS, "stop_exit_boot_services", "status 0x%lx", s))
        stop_fail();

    /* efi_info and e820, as the kernel's exit_boot_func/setup_e820 do. */
    struct efi_info ei;
    uint64_t systab = (uint64_t)(uintptr_t)g.st, memmap = (uint64_t)(uintptr_t)map;
    /* payload.bad-signature: no EL64 but a terminal's escape sequence,
     * which the stop's summary must show escaped. */
    memcpy(&ei.efi_loader_signature, cmdline_option("payload.bad-signature") ? "\x1b[2J" : "EL64", 4);
    ei.efi_systab = (uint32_t)systab;
    ei.efi_systab_hi = (uint32_t)(systab >> 32);
    ei.efi_memdesc_size = (uint32_t)mm.desc_size;
    ei.efi_memdesc_version = mm.desc_version;
    ei.efi_memmap = (uint32_t)memmap;
    ei.efi_memmap_hi = (uint32_t)(memmap >> 32);
    ei.efi_memmap_size = (uint32_t)mm.size;
    memcpy(g.bp + BP_EFI_INFO, &ei, sizeof(ei));

    bool overflow;
    unsigned n = fill_e820(g.bp, &overflow);
    if (!checkf(n > 0 && !overflow, "stop_e820", "%u entries%s", n,
                overflow ? ", more than 128 needed" : ""))
        stop_fail();

    print("payload: entering kernel at 0x%lx, boot_params %p, %u e820 entries\n",
          FAKE_KERNEL_ADDR, (void *)g.bp, n);
    asm volatile("jmp *%0" : : "r"(FAKE_KERNEL_ADDR), "S"(g.bp) : "memory");
    __builtin_unreachable();
}

/* ------------------------------------------------------------------ */
/* fallbacks mode: instructions the host's emulator may not handle     */

#define PAYLOAD_TRAP_VECTORS   32
#define PAYLOAD_TRAP_STUB_SIZE 16

struct idt_gate {
    uint16_t offset_lo;
    uint16_t selector;
    uint8_t ist;
    uint8_t type_attr;
    uint16_t offset_mid;
    uint32_t offset_hi;
    uint32_t reserved;
};

struct descriptor_ptr {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

static struct idt_gate idt[PAYLOAD_TRAP_VECTORS] __attribute__((aligned(16)));

void payload_trap_report(uint64_t vector, uint64_t rip, uint64_t error)
{
    print("payload: exception %lu at 0x%lx (error code 0x%lx)\n", vector, rip, error);
    exit_vm(EXIT_EXCEPTION);
}

static void install_idt(void)
{
    uint16_t cs;
    asm volatile("mov %%cs, %0" : "=r"(cs));
    uint64_t base = (uint64_t)(uintptr_t)payload_trap_stubs;
    for (unsigned v = 0; v < PAYLOAD_TRAP_VECTORS; v++) {
        uint64_t h = base + v * PAYLOAD_TRAP_STUB_SIZE;
        idt[v].offset_lo = (uint16_t)h;
        idt[v].selector = cs;
        idt[v].ist = 0;
        idt[v].type_attr = 0x8e;        /* present, DPL 0, 64-bit interrupt gate */
        idt[v].offset_mid = (uint16_t)(h >> 16);
        idt[v].offset_hi = (uint32_t)(h >> 32);
        idt[v].reserved = 0;
    }
    struct descriptor_ptr p = { sizeof(idt) - 1, (uint64_t)(uintptr_t)idt };
    asm volatile("lidt %0" : : "m"(p) : "memory");
}

static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
    asm volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3])
                 : "a"(leaf), "c"(sub));
}

static uint64_t read_rflags(void)
{
    uint64_t f;
    asm volatile("pushfq; popq %0" : "=r"(f) : : "memory");
    return f;
}

static unsigned soft_popcount(uint64_t v)
{
    unsigned n = 0;
    for (; v; v &= v - 1)
        n++;
    return n;
}

#define RFLAGS_AC (1ull << 18)

static NORETURN void mode_fallbacks(void)
{
    install_idt();
    payload_bp_count = 0;
    asm volatile("int3" : : : "memory");
    checkf(payload_bp_count == 1, "int3", "#BP handler ran %lu times, expected 1",
           (uint64_t)payload_bp_count);

    uint32_t r[4];
    cpuid(0, 0, r);
    uint32_t max_leaf = r[0];
    bool smap = false;
    if (max_leaf >= 7) {
        cpuid(7, 0, r);
        smap = (r[1] >> 20) & 1;
    }
    if (smap) {
        asm volatile("stac" : : : "cc", "memory");
        uint64_t f = read_rflags();
        checkf(f & RFLAGS_AC, "stac", "RFLAGS 0x%lx after stac, AC clear", f);
        asm volatile("clac" : : : "cc", "memory");
        f = read_rflags();
        checkf(!(f & RFLAGS_AC), "clac", "RFLAGS 0x%lx after clac, AC set", f);
    } else {
        skip("stac", "no SMAP");
        skip("clac", "no SMAP");
    }

    cpuid(1, 0, r);
    if ((r[2] >> 23) & 1) {
        static const uint64_t values[] = {
            0, 1, 0xff, 0x8000000000000001ull, 0x123456789abcdef0ull, ~0ull,
        };
        bool ok = true, zf_ok = true;
        uint64_t bad = 0, got_bad = 0;
        for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
            uint64_t v = values[i], cnt;
            uint8_t zf;
            asm volatile("popcnt %%rbx, %%rax\n\tsetz %1"
                         : "=a"(cnt), "=qm"(zf) : "b"(v) : "cc");
            if (cnt != soft_popcount(v) && ok) {
                ok = false;
                bad = v;
                got_bad = cnt;
            }
            if (zf != (v == 0))
                zf_ok = false;
        }
        checkf(ok, "popcnt", "popcnt(0x%lx): expected %u, got %lu", bad, soft_popcount(bad),
               got_bad);
        checkf(zf_ok, "popcnt_zf", "ZF not set exactly when the source is 0");
    } else {
        skip("popcnt", "no POPCNT");
        skip("popcnt_zf", "no POPCNT");
    }

    asm volatile("fwait" : : : "memory");
    checkf(true, "fwait", "unreachable");
    finish();
}

/* pit mode: PIT channel 2 through port 0x61, as Linux's TSC calibration
 * uses it (arch/x86/kernel/tsc.c pit_calibrate_tsc, quick_pit_calibrate):
 * gate on and speaker off in port 0x61, channel 2 in mode 0 with a count,
 * then OUT2 (port 0x61 bit 5) is low until the count runs out and high
 * after. KVM's in-kernel PIT serves port 0x61 itself (KVM_CREATE_PIT2 with
 * KVM_PIT_SPEAKER_DUMMY); a VMM that answered it from user space with a
 * constant would fail here. */
#define PORT_PIT_CH2   0x42
#define PORT_PIT_MODE  0x43
#define PORT_NMI_SC    0x61   /* system control port B */
#define NMI_SC_GATE2   0x01
#define NMI_SC_SPEAKER 0x02
#define NMI_SC_OUT2    0x20

static NORETURN void mode_pit(void)
{
    outb(PORT_NMI_SC, (uint8_t)((inb(PORT_NMI_SC) & ~NMI_SC_SPEAKER) | NMI_SC_GATE2));
    outb(PORT_PIT_MODE, 0xb0);          /* channel 2, lobyte/hibyte, mode 0, binary */
    outb(PORT_PIT_CH2, 0xff);           /* 0xffff ticks of 1.193182 MHz: about 55 ms */
    outb(PORT_PIT_CH2, 0xff);
    uint8_t first = inb(PORT_NMI_SC);
    checkf(first & NMI_SC_GATE2, "pit_gate", "port 0x61 reads 0x%lx after setting the gate", (uint64_t)first);
    checkf(!(first & NMI_SC_OUT2), "pit_out2_low", "OUT2 already high (port 0x61 0x%lx) right after the count was loaded",
           (uint64_t)first);
    uint64_t polls = 0;
    while (!(inb(PORT_NMI_SC) & NMI_SC_OUT2) && polls < 100000000)
        polls++;
    checkf(polls < 100000000, "pit_out2_rises", "OUT2 still low after %lu reads of port 0x61", polls);
    finish();
}

/* ------------------------------------------------------------------ */
/* race mode: a second vCPU rewrites the system table's HeaderSize     */
/* while the BSP calls InstallConfigurationTable                       */

/* After each InstallConfigurationTable the VMM recomputes the system
 * table's CRC32 (firmware-stub/system_table.c fw_update_crc). It once read
 * HeaderSize from guest memory twice, for the bounds check and for the CRC
 * length, so another vCPU that flipped it between 0x78 and 0xfffffff0 made
 * the VMM read 4 GiB of host memory. AP 1 does that flipping here, for real:
 * the BSP starts it with INIT, INIT deassert, SIPI, SIPI through the local
 * APIC's ICR (Intel SDM vol. 3A, 8.4.4.1 "Typical BSP Initialization
 * Sequence"; Linux arch/x86/kernel/smpboot.c wakeup_secondary_cpu_via_init),
 * the SIPI vector pointing at race_ap_start copied below 1 MiB, and the AP
 * goes to 32-bit protected mode (the system table is above 1 MiB) and loops
 * there writing HeaderSize, while the BSP installs and removes a table.
 * Then the BSP stops the AP with an INIT (back to wait-for-SIPI, SDM vol.
 * 3A, 8.4.1) and checks the firmware leaves a consistent header. */
#define RACE_AP_PAGE        ((uint64_t)0x8000)  /* SIPI vector 0x08 */
#define RACE_AP_APIC_ID     1                   /* APIC IDs are 0..N-1 */
#define RACE_DEFAULT_CALLS  200000
#define EFI_TABLE_HEADER_SIZE_OFFSET 12         /* EFI_TABLE_HEADER.HeaderSize */

#define MSR_IA32_APIC_BASE  0x1b
#define APIC_BASE_EXTD      (1ull << 10)        /* x2APIC mode */
#define APIC_BASE_EN        (1ull << 11)        /* xAPIC global enable */
#define APIC_BASE_ADDR_MASK 0x000ffffffffff000ull

/* Local APIC registers and ICR fields (SDM vol. 3A, 10.6.1, Figure 10-12) */
#define APIC_ICR_LOW        0x300
#define APIC_ICR_HIGH       0x310
#define APIC_DM_INIT        0x00500
#define APIC_DM_STARTUP     0x00600
#define APIC_ICR_BUSY       0x01000             /* delivery status: send pending */
#define APIC_INT_ASSERT     0x04000
#define APIC_INT_LEVELTRIG  0x08000

/* The AP's code. A SIPI with vector V starts the AP in real mode with CS
 * selector V << 8, base V << 12, and IP 0 (SDM vol. 3A, 8.4.4.1), so
 * everything is reached relative to CS (DS = CS, and EBX the page's
 * physical address). The AP fills in its own GDTR base and far pointer,
 * sets CR0.PE (and clears CD and NW, which INIT sets) and far-jumps to
 * 32-bit code at once (SDM vol. 3A, 9.9.1), with a flat GDT; paging stays
 * off, so the system table's address is used as it is. The loop writes
 * 0x78 and 0xfffffff0 into the word at race_ap_target (the system table's
 * HeaderSize, filled in by the BSP) and counts its rounds in race_ap_count.
 * Each value is held for the same short spin: the VMM must read 0x78 first
 * and 0xfffffff0 next, and back-to-back stores would leave 0x78 there for
 * almost no time at all. No stack and no interrupts: cli, and nothing sends
 * the AP any but INIT. */
#define RACE_AP_HOLD "16"       /* spin rounds per value */
asm(
    "   .pushsection .rodata.race_ap, \"a\"\n"
    "   .globl race_ap_start, race_ap_target, race_ap_count, race_ap_end\n"
    "   .hidden race_ap_start, race_ap_target, race_ap_count, race_ap_end\n"
    "   .balign 16\n"
    "   .code16\n"
    "race_ap_start:\n"
    "   cli\n"
    "   movw %cs, %ax\n"
    "   movw %ax, %ds\n"
    "   movzwl %ax, %ebx\n"
    "   shll $4, %ebx\n"                                 /* EBX = the page's address */
    "   leal race_ap_gdt - race_ap_start(%ebx), %eax\n"
    "   movl %eax, race_ap_gdtr + 2 - race_ap_start\n"
    "   leal race_ap_32 - race_ap_start(%ebx), %eax\n"
    "   movl %eax, race_ap_far - race_ap_start\n"
    "   lgdtl race_ap_gdtr - race_ap_start\n"
    "   movl %cr0, %eax\n"
    "   andl $0x9fffffff, %eax\n"                        /* CD and NW off */
    "   orl $1, %eax\n"                                  /* PE on */
    "   movl %eax, %cr0\n"
    "   ljmpl *race_ap_far - race_ap_start\n"            /* CS = 0x08, 32-bit */
    "   .code32\n"
    "race_ap_32:\n"
    "   movl $0x10, %eax\n"
    "   movl %eax, %ds\n"
    "   movl %eax, %es\n"
    "   movl %eax, %ss\n"
    "   movl race_ap_target - race_ap_start(%ebx), %edi\n"
    "1: movl $0x78, (%edi)\n"
    "   movl $" RACE_AP_HOLD ", %ecx\n"
    "2: decl %ecx\n"
    "   jnz 2b\n"
    "   movl $0xfffffff0, (%edi)\n"
    "   movl $" RACE_AP_HOLD ", %ecx\n"
    "3: decl %ecx\n"
    "   jnz 3b\n"
    "   incl race_ap_count - race_ap_start(%ebx)\n"
    "   jmp 1b\n"
    "   .balign 8\n"
    "race_ap_gdt:\n"
    "   .quad 0\n"
    "   .quad 0x00cf9b000000ffff\n"                      /* 0x08: code, 32-bit, base 0, 4 GiB */
    "   .quad 0x00cf93000000ffff\n"                      /* 0x10: data, base 0, 4 GiB */
    "race_ap_gdtr:\n"
    "   .word 3 * 8 - 1\n"
    "   .long 0\n"                                       /* base: set by the AP */
    "race_ap_far:\n"
    "   .long 0\n"                                       /* offset: set by the AP */
    "   .word 0x08\n"
    "race_ap_target:\n"
    "   .long 0\n"                                       /* set by the BSP */
    "race_ap_count:\n"
    "   .long 0\n"
    "race_ap_end:\n"
    "   .code64\n"
    "   .popsection\n");

extern const char race_ap_start[], race_ap_target[], race_ap_count[], race_ap_end[];

static uint64_t rdmsr(uint32_t msr)
{
    uint32_t lo, hi;
    asm volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
    return lo | (uint64_t)hi << 32;
}

static volatile uint32_t *apic_reg(uint64_t base, unsigned reg)
{
    return (volatile uint32_t *)(uintptr_t)(base + reg);
}

/* xAPIC ICR: the high half first, since writing the low half sends the IPI
 * (SDM vol. 3A, 10.6.1); then wait for the delivery status to clear, like
 * Linux's safe_apic_wait_icr_idle. */
static bool apic_send_ipi(uint64_t apic, uint32_t apic_id, uint32_t icr_low)
{
    *apic_reg(apic, APIC_ICR_HIGH) = apic_id << 24;
    *apic_reg(apic, APIC_ICR_LOW) = icr_low;
    for (int i = 0; i < 1000; i++) {
        if (!(*apic_reg(apic, APIC_ICR_LOW) & APIC_ICR_BUSY))
            return true;
        g.bs->stall(10);
    }
    return false;
}

/* INIT assert and deassert; the deassert is what older processors need and
 * what Linux still sends (SDM vol. 3A, 10.6.1, "INIT Level De-assert"). */
static bool race_send_init(uint64_t apic)
{
    bool ok = apic_send_ipi(apic, RACE_AP_APIC_ID, APIC_INT_LEVELTRIG | APIC_INT_ASSERT | APIC_DM_INIT);
    g.bs->stall(10000);                 /* 10 ms (SDM vol. 3A, 8.4.4.1) */
    return apic_send_ipi(apic, RACE_AP_APIC_ID, APIC_INT_LEVELTRIG | APIC_DM_INIT) && ok;
}

/* INIT-SIPI-SIPI; the second SIPI is ignored by an AP that already runs. */
static bool race_start_ap(uint64_t apic, uint64_t page)
{
    bool ok = race_send_init(apic);
    for (int i = 0; i < 2; i++) {
        ok = apic_send_ipi(apic, RACE_AP_APIC_ID, APIC_DM_STARTUP | (uint32_t)(page >> 12)) && ok;
        g.bs->stall(200);               /* 200 us */
    }
    return ok;
}

/* Has the AP's counter stood still over three 1 ms stalls in a row? The
 * stall sleeps in the VMM, so the AP's thread runs meanwhile even where
 * both vCPUs share one host CPU. */
static bool race_ap_still(volatile uint32_t *count, unsigned tries)
{
    unsigned still = 0;
    for (unsigned i = 0; i < tries && still < 3; i++) {
        uint32_t c = *count;
        g.bs->stall(1000);
        still = *count == c ? still + 1 : 0;
    }
    return still >= 3;
}

/* Copies the AP's code to RACE_AP_PAGE, which the memory map must show as
 * conventional RAM and which is allocated first, so nothing else uses it. */
static uint8_t *race_trampoline(void)
{
    efi_status_t s = get_map();
    efi_memory_descriptor_t *d = s == EFI_SUCCESS ? mm_find(RACE_AP_PAGE) : NULL;
    efi_physical_addr_t page = RACE_AP_PAGE;
    efi_status_t a = d && d->type == EfiConventionalMemory ?
        g.bs->allocate_pages(AllocateAddress, EfiLoaderCode, 1, &page) : EFI_NOT_FOUND;
    if (!checkf(a == EFI_SUCCESS && page == RACE_AP_PAGE, "race_trampoline_page",
                "page 0x%lx: map type %d, AllocatePages(AllocateAddress) 0x%lx", RACE_AP_PAGE,
                d ? (int)d->type : -1, a))
        return NULL;
    uint8_t *p = (uint8_t *)(uintptr_t)page;
    memcpy(p, race_ap_start, (size_t)(race_ap_end - race_ap_start));
    uint32_t target = (uint32_t)((uintptr_t)g.st + EFI_TABLE_HEADER_SIZE_OFFSET);
    put_u32(p + (race_ap_target - race_ap_start), target);
    put_u32(p + (race_ap_count - race_ap_start), 0);
    return p;
}

/* The calls, alternately installing and removing payload_race_guid's
 * table; each must succeed. Returns the number of calls made. */
static uint64_t race_calls(uint64_t n)
{
    static uint64_t race_table[2] = { 0x72616365ull, 0 };
    uint64_t i;
    efi_status_t s = EFI_SUCCESS;
    for (i = 0; i < n; i++) {
        s = g.bs->install_configuration_table(&payload_race_guid, (i & 1) ? NULL : race_table);
        if (s != EFI_SUCCESS)
            break;
    }
    checkf(s == EFI_SUCCESS, "race_install_config_table", "call %lu of %lu (%s) returned 0x%lx",
           i + 1, n, (i & 1) ? "remove" : "install", s);
    return i;
}

static NORETURN void mode_race(void)
{
    const char *arg = cmdline_option("payload.race=");
    uint64_t n = 0;
    for (; arg && *arg >= '0' && *arg <= '9'; arg++)
        n = n * 10 + (uint64_t)(*arg - '0');
    if (!n)
        n = RACE_DEFAULT_CALLS;
    if ((uint64_t)(uintptr_t)g.st + EFI_TABLE_HEADER_SIZE_OFFSET + 4 > 0xffffffffull) {
        checkf(false, "race_systab_below_4g", "systab %p: out of the AP's reach", (void *)g.st);
        finish();
    }

    uint64_t apic = rdmsr(MSR_IA32_APIC_BASE);
    if (!checkf((apic & APIC_BASE_EN) && !(apic & APIC_BASE_EXTD), "race_xapic",
                "IA32_APIC_BASE 0x%lx: want the xAPIC enabled and x2APIC off", apic))
        finish();
    apic &= APIC_BASE_ADDR_MASK;

    uint8_t *page = race_trampoline();
    if (!page)
        finish();
    volatile uint32_t *count = (volatile uint32_t *)(void *)(page + (race_ap_count - race_ap_start));

    bool sent = race_start_ap(apic, (uint64_t)(uintptr_t)page);
    unsigned waited = 0;
    for (; *count == 0 && waited < 5000; waited++)
        g.bs->stall(1000);
    checkf(*count != 0, "race_ap_started",
           "AP %u did not run the code at %p after %u ms (IPIs %s; is there a second vCPU, --cpus 2?)",
           RACE_AP_APIC_ID, (void *)page, waited, sent ? "sent" : "stuck in the ICR");

    uint32_t before = *count;
    uint64_t done = race_calls(n);
    uint32_t during = *count - before;
    print("payload: race: %lu calls, AP %u wrote HeaderSize %u times meanwhile\n", done,
          RACE_AP_APIC_ID, 2 * during);
    checkf(during > 0, "race_ap_ran_during_calls", "the AP's counter stood still (0x%x)", before);

    /* With the AP back in wait-for-SIPI, one more install and remove: the
     * firmware must leave the header as it made it, whatever the AP left.
     * The BSP leaves the bad size itself, so that this does not depend on
     * where the INIT caught the AP: a firmware that takes the size from
     * guest memory fails here even when the race above never hit. */
    race_send_init(apic);
    if (checkf(race_ap_still(count, 1000), "race_ap_stopped", "AP still counting after INIT (0x%x)",
               *count)) {
        *(volatile uint32_t *)&g.st->hdr.header_size = 0xfffffff0u;
        efi_status_t s1 = g.bs->install_configuration_table(&payload_race_guid, page);
        efi_status_t s2 = g.bs->install_configuration_table(&payload_race_guid, NULL);
        uint32_t size = g.st->hdr.header_size;
        uint32_t want = size == sizeof(*g.st) ? table_crc32(&g.st->hdr) : 0;
        checkf(s1 == EFI_SUCCESS && s2 == EFI_SUCCESS && size == sizeof(*g.st) &&
               g.st->hdr.crc32 == want, "race_systab_header_after",
               "install 0x%lx, remove 0x%lx, HeaderSize 0x%x (want 0x%x), CRC32 0x%x (computed 0x%x)",
               s1, s2, size, (unsigned)sizeof(*g.st), g.st->hdr.crc32, want);
    } else {
        skip("race_systab_header_after", "the AP did not stop");
    }
    finish();
}

/* ------------------------------------------------------------------ */
/* small modes                                                        */

static NORETURN void mode_loop(void)
{
    print("payload: looping\n");
    for (;;)
        asm volatile("pause");
}

/* As systemd-boot's assert halts (efi_assert → freeze): Stall(60 s) forever. */
static NORETURN void mode_halt(void)
{
    print("payload: halting\n");
    for (;;)
        g.bs->stall(60 * 1000 * 1000);
}

static NORETURN void mode_triple_fault(void)
{
    print("payload: triple fault\n");
    struct descriptor_ptr p = { 0, 0 };
    asm volatile("lidt %0\n\tud2" : : "m"(p) : "memory");
    halt_forever();
}

/* As a Hyper-V guest reports its crash (arch/x86/hyperv/hv_init.c,
 * hyperv_report_panic): CRASH_NOTIFY written to the crash control MSR,
 * which KVM turns into KVM_SYSTEM_EVENT_CRASH when the VMM's CPUID shows
 * Hyper-V, and refuses with a #GP when not (arch/x86/kvm/hyperv.c). */
static NORETURN void mode_hv_crash(void)
{
    print("payload: reporting a crash through the Hyper-V crash control MSR\n");
    uint64_t notify = 1ull << 63;
    asm volatile("wrmsr" : : "c"(0x40000105u), "a"((uint32_t)notify), "d"((uint32_t)(notify >> 32)));
    halt_forever();
}

/* As panic() with panic=N, N != 0 (kernel/panic.c): its line, then
 * emergency_restart through the i8042 instead of the end marker. */
static NORETURN void mode_panic_reset(void)
{
    print("Kernel panic - not syncing: payload\nRebooting in 1 seconds..\n");
    outb(0x64, 0xfe);
    halt_forever();
}

static NORETURN void mode_exit(const char *arg)
{
    unsigned v = 0;
    for (; *arg >= '0' && *arg <= '9'; arg++)
        v = v * 10 + (unsigned)(*arg - '0');
    exit_vm(v);
}

/* Exit with EFI_LOAD_ERROR, as a stub giving up; with success, as an
 * application done. */
/* secure-boot mode: what --secure-boot serves, as the kernel stub and a
 * boot loader meet it                                                 */

#define BP_RAMDISK_IMAGE     0x218
#define BP_RAMDISK_SIZE      0x21c
#define BP_EXT_RAMDISK_IMAGE 0x0c0
#define BP_EXT_RAMDISK_SIZE  0x0c4

static int variable_byte(const efi_char16_t *name)
{
    uint8_t data[8] = { 0 };
    uint64_t size = sizeof(data);
    efi_status_t s = g.rt->get_variable(name, &global_variable_guid, NULL, &size, data);
    return s == EFI_SUCCESS && size == 1 ? data[0] : -1;
}

/* The modes payload.secureboot=N expects (the kernel stub reads SecureBoot
 * and SetupMode: efi_get_secureboot), that they are read-only, then
 * LoadImage of the initrd (boot_params' ramdisk: the handover entry) with
 * the status payload.load= names: success or security-violation; then
 * ExitBootServices. */
static NORETURN void mode_secure_boot(void)
{
    int secure_boot = variable_byte(u"SecureBoot"), setup_mode = variable_byte(u"SetupMode");
    print("payload: SecureBoot %d, SetupMode %d\n", secure_boot, setup_mode);
    const char *want = cmdline_option("payload.secureboot=");
    int expect = want && *want == '1' ? 1 : 0;
    checkf(secure_boot == expect && setup_mode == !expect, "secure_boot_modes", "SecureBoot %d, SetupMode %d",
           secure_boot, setup_mode);
    uint8_t one = 1;
    efi_status_t s = g.rt->set_variable(u"SecureBoot", &global_variable_guid,
                                        EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS, 1, &one);
    check_status(s, EFI_WRITE_PROTECTED, "secure_boot_read_only");
    const char *load = cmdline_option("payload.load=");
    if (load && g.bp) {
        uint32_t lo, size, hi = 0, size_hi = 0;
        memcpy(&lo, (uint8_t *)g.bp + BP_RAMDISK_IMAGE, 4);
        memcpy(&size, (uint8_t *)g.bp + BP_RAMDISK_SIZE, 4);
        memcpy(&hi, (uint8_t *)g.bp + BP_EXT_RAMDISK_IMAGE, 4);
        memcpy(&size_hi, (uint8_t *)g.bp + BP_EXT_RAMDISK_SIZE, 4);
        void *image = (void *)(uintptr_t)(lo | (uint64_t)hi << 32);
        uint64_t bytes = size | (uint64_t)size_hi << 32;
        efi_handle_t h = NULL;
        s = g.bs->load_image(0, g.image, NULL, image, bytes, &h);
        print("payload: LoadImage of the initrd (%lu bytes): 0x%lx\n", bytes, s);
        bool success = word_is(load, "success");
        checkf(success ? s == EFI_SUCCESS && h : s == EFI_SECURITY_VIOLATION && !h, "secure_boot_load_image",
               "status 0x%lx, handle %p (want %s)", s, h, success ? "success" : "security-violation");
        if (s == EFI_SUCCESS)
            check_status(g.bs->unload_image(h), EFI_SUCCESS, "secure_boot_unload_image");
    }
    /* ExitBootServices last: --fault-sweep compares its cells with a boot
     * that reached it. */
    s = get_map();
    check_status(s == EFI_SUCCESS ? exit_boot_services_with_retry() : s, EFI_SUCCESS, "secure_boot_exit_boot_services");
    finish();
}

static NORETURN void mode_efi_exit(bool success)
{
    print("payload: calling BS->Exit(%s)\n", success ? "EFI_SUCCESS" : "EFI_LOAD_ERROR");
    efi_status_t s = g.bs->exit(g.image, success ? EFI_SUCCESS : EFI_LOAD_ERROR, 0, NULL);
    checkf(false, "efi_exit", "Exit returned 0x%lx", s);
    finish();
}

/* ------------------------------------------------------------------ */
/* events mode: a timer waited for, and the keys of --keys 'x\n'       */

/* 1 s: long enough that two calls under the sanitizer build, in an L1 on
 * a busy host, still come before it is due (20 ms did not). */
#define EVENTS_TIMER_100NS 10000000

static NORETURN void mode_events(void)
{
    efi_boot_services_t *bs = g.bs;
    efi_simple_text_input_t *in = g.st->con_in;
    efi_event_t timer = NULL;
    uint64_t index = 99;
    check_status(bs->create_event(EVT_TIMER, 0, NULL, NULL, &timer), EFI_SUCCESS, "create_event_timer");
    check_status(bs->set_timer(timer, TimerRelative, EVENTS_TIMER_100NS), EFI_SUCCESS, "set_timer_relative");
    check_status(bs->check_event(timer), EFI_NOT_READY, "check_event_before_due");
    /* Not due yet: the firmware has the vCPU make the call again until it is. */
    check_status(bs->wait_for_event(1, &timer, &index), EFI_SUCCESS, "wait_for_event_timer");
    checkf(index == 0, "wait_for_event_index", "index %lu, expected 0", index);
    check_status(bs->check_event(timer), EFI_NOT_READY, "check_event_reset_by_wait");
    check_status(bs->set_timer(timer, TimerPeriodic, 0), EFI_SUCCESS, "set_timer_periodic_0");
    check_status(bs->check_event(timer), EFI_SUCCESS, "check_event_periodic_0");

    /* The keys: WaitForKey signaled while they last, one per ReadKeyStroke. */
    static const efi_input_key_t want[] = { { 0, 'x' }, { 0, 0x0d } };
    efi_event_t both[2];
    both[0] = timer;
    both[1] = in->wait_for_key;
    check_status(in->reset(in, 0), EFI_SUCCESS, "conin_reset");
    check_status(bs->set_timer(timer, TimerRelative, 36000000000ull), EFI_SUCCESS, "set_timer_an_hour");
    for (unsigned i = 0; i < ARRAY_SIZE(want); i++) {
        efi_input_key_t key = { 0xffff, 0xffff };
        index = 99;
        check_status(bs->wait_for_event(2, both, &index), EFI_SUCCESS, "wait_for_key");
        checkf(index == 1, "wait_for_key_index", "index %lu, expected 1", index);
        check_status(in->read_key_stroke(in, &key), EFI_SUCCESS, "read_key_stroke");
        checkf(key.scan_code == want[i].scan_code && key.unicode_char == want[i].unicode_char, "read_key_value",
               "scan 0x%x char 0x%x, expected 0x%x 0x%x", key.scan_code, key.unicode_char, want[i].scan_code,
               want[i].unicode_char);
    }
    efi_input_key_t key;
    check_status(bs->check_event(in->wait_for_key), EFI_NOT_READY, "wait_for_key_after_the_last");
    check_status(in->read_key_stroke(in, &key), EFI_NOT_READY, "read_key_stroke_no_more");
    check_status(bs->close_event(timer), EFI_SUCCESS, "close_event");
    check_status(bs->check_event(timer), EFI_INVALID_PARAMETER, "check_event_closed");
    finish();
}

/* wait-for-key mode: WaitForEvent on ConIn.WaitForKey alone, as a
 * "press any key" prompt waits; with no --keys nothing will end it. */
static NORETURN void mode_wait_for_key(void)
{
    efi_simple_text_input_t *in = g.st->con_in;
    efi_input_key_t key;
    uint64_t index = 99;
    print("payload: waiting for a key\n");
    check_status(g.bs->wait_for_event(1, &in->wait_for_key, &index), EFI_SUCCESS, "wait_for_key_alone");
    check_status(in->read_key_stroke(in, &key), EFI_SUCCESS, "read_key_stroke_after_the_wait");
    finish();
}

/* stall-long mode: Stall waits at least the time asked (UEFI 2.10
 * section 7.5.2), on the clock the timers run on: a Stall longer than
 * 10 s outlasts a timer set a little shorter (a Stall past 10 s ended
 * after 10). */
static NORETURN void mode_stall_long(void)
{
    efi_event_t timer;
    print("payload: stalling 10.5 s\n");
    check_status(g.bs->create_event(EVT_TIMER, 0, NULL, NULL, &timer), EFI_SUCCESS, "create_event_timer");
    check_status(g.bs->set_timer(timer, TimerRelative, 104000000), EFI_SUCCESS, "set_timer_10_4_s");
    check_status(g.bs->stall(10500000), EFI_SUCCESS, "stall_10_5_s");
    check_status(g.bs->check_event(timer), EFI_SUCCESS, "stall_outlasts_a_shorter_timer");
    finish();
}

/* halt-for-key mode: HLT before each look at ConIn, with no timer, as a
 * loop that naps until the next interrupt and then polls; a firmware's
 * tick ends each HLT, so the --keys key is found. */
static NORETURN void mode_halt_for_key(void)
{
    efi_simple_text_input_t *in = g.st->con_in;
    efi_input_key_t key;
    print("payload: halting until a key\n");
    do
        asm volatile("hlt");
    while (in->read_key_stroke(in, &key) != EFI_SUCCESS);
    finish();
}

/* halt-after-ebs mode: ExitBootServices, then `cli; hlt` for good, as a
 * kernel that dies early with interrupts off does; with
 * payload.say-halted, first the line kernel/reboot.c kernel_halt prints
 * before machine_halt stops its CPUs so (halt -f). */
static NORETURN void mode_halt_after_ebs(void)
{
    efi_status_t s = get_map();
    s = s == EFI_SUCCESS ? exit_boot_services_with_retry() : s;
    if (!checkf(s == EFI_SUCCESS, "halt_exit_boot_services", "status 0x%lx", s))
        finish();
    if (cmdline_option("payload.say-halted"))
        print("reboot: System halted\n");
    print("payload: halting for good after ExitBootServices\n");
    halt_forever();
}

/* ------------------------------------------------------------------ */
/* watchdog modes: SetWatchdogTimer, then a wait no call ends          */

enum watchdog_wait { WATCHDOG_SPIN, WATCHDOG_HALT, WATCHDOG_STALL, WATCHDOG_DISARMED };

#define WATCHDOG_CODE 0x48414e444f564552ull   /* "HANDOVER": above the codes the firmware reserves, 0-0xFFFF */

/* A 2 s watchdog (UEFI 2.10 section 7.5.1), then a loop with no call, a
 * HLT with interrupts off, or Stall(60 s): the watchdog expires and the
 * platform resets. Disarmed (a Timeout of 0) before a Stall longer than
 * it, it never expires. */
static NORETURN void mode_watchdog(enum watchdog_wait wait)
{
    static efi_char16_t data[] = u"payload stuck";
    check_status(g.bs->set_watchdog_timer(2, WATCHDOG_CODE, sizeof(data), data), EFI_SUCCESS, "set_watchdog_timer_2_s");
    print("payload: watchdog armed\n");
    if (wait == WATCHDOG_DISARMED) {
        check_status(g.bs->set_watchdog_timer(0, 0, 0, NULL), EFI_SUCCESS, "set_watchdog_timer_0");
        check_status(g.bs->stall(3 * 1000 * 1000), EFI_SUCCESS, "stall_past_the_disarmed_watchdog");
        finish();
    }
    for (;;) {
        if (wait == WATCHDOG_HALT)
            asm volatile("cli; hlt");
        else if (wait == WATCHDOG_STALL)
            g.bs->stall(60 * 1000 * 1000);
        else
            asm volatile("pause");
    }
}

/* ------------------------------------------------------------------ */
/* notify mode: the firmware calls the payload's notify functions     */

enum { NOTIFY_SIGNALED, NOTIFY_GROUP_A, NOTIFY_GROUP_B, NOTIFY_WAIT_SIGNALS, NOTIFY_EBS, NOTIFY_KINDS };

static struct {
    unsigned calls[NOTIFY_KINDS];
    efi_event_t event[NOTIFY_KINDS];     /* the Event each was last called with */
    uint64_t tpl[NOTIFY_KINDS];          /* the TPL it ran at */
} notified;
static uint64_t notify_entry_rsp __attribute__((used));   /* RSP as the last function was entered */
static const int notify_kind[NOTIFY_KINDS] = { 0, 1, 2, 3, 4 };

/* Called by the firmware's trampoline with the Microsoft x64 ABI: the
 * context names the kind. The current TPL is what RaiseTPL returns. */
__attribute__((used, noipa)) static EFIAPI void notify_record(efi_event_t event, const int *context)
{
    unsigned k = (unsigned)*context;
    notified.calls[k]++;
    notified.event[k] = event;
    if (k != NOTIFY_EBS) {   /* boot services end as the EBS function runs: RaiseTPL is not for it */
        notified.tpl[k] = g.bs->raise_tpl(TPL_HIGH_LEVEL);
        g.bs->restore_tpl(notified.tpl[k]);
    }
    if (k == NOTIFY_WAIT_SIGNALS)
        g.bs->signal_event(event);
}
extern void notify_entry(void) __attribute__((visibility("hidden")));
/* notify_entry: records RSP at the entry (8 mod 16 after the CALL, as the
 * ABI has it), then is notify_record. */
asm(".text\n"
    "notify_entry:\n"
    "    mov %rsp, notify_entry_rsp(%rip)\n"
    "    jmp notify_record\n");

static efi_event_t notify_event(uint32_t type, uint64_t tpl, unsigned kind, const efi_guid_t *group)
{
    efi_event_t e = NULL;
    efi_status_t s = group ? g.bs->create_event_ex(type, tpl, (void *)notify_entry, &notify_kind[kind], group, &e)
                           : g.bs->create_event(type, tpl, (void *)notify_entry, (void *)&notify_kind[kind], &e);
    checkf(s == EFI_SUCCESS && e, "notify_create_event", "type 0x%x: status 0x%lx", type, s);
    return e;
}

static bool notified_once_more(unsigned kind, unsigned calls, efi_event_t e, uint64_t tpl, const char *name)
{
    return checkf(notified.calls[kind] == calls && notified.event[kind] == e && notified.tpl[kind] == tpl, name,
                  "%u calls (expected %u), event %p (expected %p), at TPL %lu (expected %lu)",
                  notified.calls[kind], calls, notified.event[kind], e, notified.tpl[kind], tpl);
}

static NORETURN void mode_notify(void)
{
    efi_boot_services_t *bs = g.bs;
    efi_event_t e = notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_SIGNALED, NULL);
    check_status(bs->signal_event(e), EFI_SUCCESS, "notify_signal_event");
    notified_once_more(NOTIFY_SIGNALED, 1, e, TPL_CALLBACK, "notify_signal_ran_before_signal_event_returned");
    checkf(notify_entry_rsp % 16 == 8, "notify_entry_stack_aligned", "RSP 0x%lx at the entry", notify_entry_rsp);
    check_status(bs->check_event(e), EFI_INVALID_PARAMETER, "notify_signal_check_event_invalid");

    uint64_t old = bs->raise_tpl(TPL_NOTIFY);
    checkf(old == TPL_APPLICATION, "notify_raise_tpl", "old TPL %lu", old);
    check_status(bs->signal_event(e), EFI_SUCCESS, "notify_signal_at_tpl_notify");
    notified_once_more(NOTIFY_SIGNALED, 1, e, TPL_CALLBACK, "notify_held_back_at_tpl_notify");
    bs->restore_tpl(old);
    notified_once_more(NOTIFY_SIGNALED, 2, e, TPL_CALLBACK, "notify_restore_tpl_delivers");

    efi_event_t a = notify_event(EVT_NOTIFY_SIGNAL, TPL_CALLBACK, NOTIFY_GROUP_A, &payload_vendor_guid);
    efi_event_t b = notify_event(EVT_NOTIFY_SIGNAL, TPL_NOTIFY, NOTIFY_GROUP_B, &payload_vendor_guid);
    check_status(bs->signal_event(a), EFI_SUCCESS, "notify_signal_group");
    notified_once_more(NOTIFY_GROUP_A, 1, a, TPL_CALLBACK, "notify_group_signaled_member");
    notified_once_more(NOTIFY_GROUP_B, 1, b, TPL_NOTIFY, "notify_group_other_member");

    efi_event_t w = notify_event(EVT_NOTIFY_WAIT, TPL_CALLBACK, NOTIFY_WAIT_SIGNALS, NULL);
    check_status(bs->check_event(w), EFI_SUCCESS, "notify_wait_check_event_after_its_function");
    notified_once_more(NOTIFY_WAIT_SIGNALS, 1, w, TPL_CALLBACK, "notify_wait_ran_once");

    efi_event_t ebs = notify_event(EVT_SIGNAL_EXIT_BOOT_SERVICES, TPL_NOTIFY, NOTIFY_EBS, NULL);
    efi_status_t s = get_map();
    s = s == EFI_SUCCESS ? exit_boot_services_with_retry() : s;
    check_status(s, EFI_SUCCESS, "notify_exit_boot_services");
    checkf(notified.calls[NOTIFY_EBS] == 1 && notified.event[NOTIFY_EBS] == ebs, "notify_ebs_ran_before_it_returned",
           "%u calls, event %p (expected %p)", notified.calls[NOTIFY_EBS], notified.event[NOTIFY_EBS], ebs);
    finish();
}

/* ------------------------------------------------------------------ */
/* memattr modes: EFI_MEMORY_ATTRIBUTE_PROTOCOL on the firmware's page */
/* tables, then an access the protection forbids, which must fault    */

static bool memattr_is(efi_memory_attribute_protocol_t *ma, uint64_t base, uint64_t len, uint64_t want,
                       const char *name)
{
    uint64_t attr = ~0ull;
    efi_status_t s = ma->get_memory_attributes(ma, base, len, &attr);
    return checkf(s == EFI_SUCCESS && attr == want, name, "status 0x%lx, attributes 0x%lx (expected 0x%lx)", s,
                  attr, want);
}

/* exec: the page ends execute-protected and is called, else read-only
 * and written. */
static NORETURN void mode_memattr(bool exec)
{
    efi_memory_attribute_protocol_t *ma = NULL;
    efi_status_t s = g.bs->locate_protocol(&memattr_guid, NULL, (void **)&ma);
    if (!checkf(s == EFI_SUCCESS && ma, "memattr_locate", "status 0x%lx, interface %p", s, (void *)ma))
        finish();
    efi_physical_addr_t p = 0;
    if (!check_status(g.bs->allocate_pages(AllocateAnyPages, EfiLoaderCode, 4, &p), EFI_SUCCESS, "memattr_allocate"))
        finish();
    uint64_t page = p + EFI_PAGE_SIZE;
    volatile uint8_t *bytes = (volatile uint8_t *)(uintptr_t)page;
    bytes[0] = 0xc3;   /* RET: the TLB now holds the page writable and executable */
    memattr_is(ma, p, 4 * EFI_PAGE_SIZE, 0, "memattr_get_uniform");
    check_status(ma->set_memory_attributes(ma, page, EFI_PAGE_SIZE, EFI_MEMORY_RO | EFI_MEMORY_XP), EFI_SUCCESS,
                 "memattr_set_ro_xp");
    memattr_is(ma, page, EFI_PAGE_SIZE, EFI_MEMORY_RO | EFI_MEMORY_XP, "memattr_get_what_was_set");
    uint64_t attr = ~0ull;
    check_status(ma->get_memory_attributes(ma, p, 4 * EFI_PAGE_SIZE, &attr), EFI_NO_MAPPING, "memattr_get_mixed");
    check_status(ma->clear_memory_attributes(ma, page, EFI_PAGE_SIZE, exec ? EFI_MEMORY_RO : EFI_MEMORY_XP),
                 EFI_SUCCESS, "memattr_clear");
    memattr_is(ma, page, EFI_PAGE_SIZE, exec ? EFI_MEMORY_XP : EFI_MEMORY_RO, "memattr_get_what_was_cleared");
    memattr_is(ma, p, EFI_PAGE_SIZE, 0, "memattr_neighbour_untouched");
    check_status(ma->set_memory_attributes(ma, page + 0x800, EFI_PAGE_SIZE, EFI_MEMORY_RO), EFI_INVALID_PARAMETER,
                 "memattr_set_unaligned");
    check_status(ma->set_memory_attributes(ma, page, EFI_PAGE_SIZE, 0x8), EFI_INVALID_PARAMETER,
                 "memattr_set_not_a_protection");
    check_status(ma->get_memory_attributes(ma, page, EFI_PAGE_SIZE, NULL), EFI_INVALID_PARAMETER, "memattr_get_null");
    check_status(ma->set_memory_attributes(ma, 0x100000, EFI_PAGE_SIZE, EFI_MEMORY_XP), EFI_ACCESS_DENIED,
                 "memattr_set_firmware_pages");
    check_status(ma->set_memory_attributes(ma, 0xfffffffffffff000ull, EFI_PAGE_SIZE, EFI_MEMORY_RO), EFI_UNSUPPORTED,
                 "memattr_set_outside_ram");
    /* The firmware flushed the TLB before the call returned: this faults. */
    print("payload: %s the protected page at 0x%lx\n", exec ? "calling" : "writing to", page);
    if (exec)
        ((void (*)(void))(uintptr_t)page)();
    else
        bytes[1] = 0;
    checkf(false, "memattr_protection_holds", "the %s did not fault", exec ? "call" : "write");
    finish();
}

/* ------------------------------------------------------------------ */
/* hostile mode                                                       */

#define OUTSIDE_RAM ((uint64_t)0x7ff000000000)

/* A thunk's body with an arbitrary service ID; the arguments are zero. */
static uint64_t raw_hypercall(uint32_t id)
{
    uint64_t rax = id, rcx = 0, rdx = 0;
    register uint64_t r8 asm("r8") = 0;
    register uint64_t r9 asm("r9") = 0;
    asm volatile("outl %%eax, %5"
                 : "+a"(rax), "+c"(rcx), "+d"(rdx), "+r"(r8), "+r"(r9)
                 : "i"(HYPERCALL_PORT)
                 : "r10", "r11", "memory");
    return rax;
}

static void hostile_memory_map(uint64_t top)
{
    uint64_t key, dsize;
    uint32_t dver;
    check_error(g.bs->get_memory_map(NULL, (efi_memory_descriptor_t *)mm_storage, &key, &dsize,
                                     &dver), "hostile_gmm_size_null");
    check_error(g.bs->get_memory_map((uint64_t *)(uintptr_t)OUTSIDE_RAM,
                                     (efi_memory_descriptor_t *)mm_storage, &key, &dsize,
                                     &dver), "hostile_gmm_size_outside_ram");
    if (top >= 4096)
        check_error(g.bs->get_memory_map((uint64_t *)(uintptr_t)(top - 4),
                                         (efi_memory_descriptor_t *)mm_storage, &key, &dsize,
                                         &dver), "hostile_gmm_size_end_of_ram");
    else
        skip("hostile_gmm_size_end_of_ram", "top of RAM unknown");

    uint8_t raw[16] __attribute__((aligned(8)));
    memset(raw, 0, sizeof(raw));
    efi_status_t s = g.bs->get_memory_map((uint64_t *)(void *)(raw + 1), NULL, &key, &dsize,
                                          &dver);
    survived("hostile_gmm_size_misaligned", s);
}

static void hostile_allocate(void)
{
    efi_physical_addr_t a = 0;
    efi_status_t s = g.bs->allocate_pages(AllocateAnyPages, EfiLoaderData, 0, &a);
    check_error(s, "hostile_alloc_pages_zero");
    if (s == EFI_SUCCESS)
        g.bs->free_pages(a, 0);

    a = 0;
    s = g.bs->allocate_pages(AllocateAnyPages, EfiLoaderData, 1ull << 52, &a);
    check_error(s, "hostile_alloc_pages_huge");

    a = 0;
    s = g.bs->allocate_pages(AllocateAnyPages, 0x6fff0000u, 1, &a);
    check_status(s, EFI_INVALID_PARAMETER, "hostile_alloc_pages_bad_memory_type");
    if (s == EFI_SUCCESS)
        g.bs->free_pages(a, 1);

    a = 0;
    s = g.bs->allocate_pages(7, EfiLoaderData, 1, &a);
    check_error(s, "hostile_alloc_pages_bad_allocate_type");
    if (s == EFI_SUCCESS)
        g.bs->free_pages(a, 1);

    a = 0x2000123;
    s = g.bs->allocate_pages(AllocateAddress, EfiLoaderData, 1, &a);
    check_error(s, "hostile_alloc_pages_unaligned");
    if (s == EFI_SUCCESS)
        g.bs->free_pages(a, 1);

    void *p = NULL;
    s = g.bs->allocate_pool(EfiLoaderData, ~0ull, &p);
    check_error(s, "hostile_alloc_pool_huge");

    /* Memory the pool never handed out, with plausible-looking garbage. */
    static uint64_t fake_pool[8] = { 0x100, 0x100, 0x100, 0x100, 0x100, 0x100, 0x100, 0x100 };
    check_error(g.bs->free_pool(&fake_pool[4]), "hostile_free_pool_bogus");

    g.bs->copy_mem((void *)(uintptr_t)0x1000, (void *)(uintptr_t)0xfffffffffffff000ull, 0x2000);
    survived("hostile_copy_mem_overflow", 0);
}

static void hostile_output_string(uint64_t top)
{
    efi_simple_text_output_t *out = g.st->con_out;
    if (!out) {
        skip("hostile_output_string_null", "no ConOut");
        skip("hostile_output_string_unterminated", "no ConOut");
        return;
    }
    check_error(out->output_string(out, NULL), "hostile_output_string_null");

    efi_physical_addr_t a = top - EFI_PAGE_SIZE;
    efi_status_t s = top >= EFI_PAGE_SIZE ?
        g.bs->allocate_pages(AllocateAddress, EfiLoaderData, 1, &a) : EFI_NOT_FOUND;
    if (s != EFI_SUCCESS) {
        skip("hostile_output_string_unterminated", "cannot allocate the last page of RAM");
        return;
    }
    efi_char16_t *tail = (efi_char16_t *)(uintptr_t)(top - 8);
    for (int i = 0; i < 4; i++)
        tail[i] = (efi_char16_t)('W' + i);
    check_error(out->output_string(out, tail), "hostile_output_string_unterminated");
    g.bs->free_pages(a, 1);
}

static void hostile_variables(void)
{
    uint8_t data[16];
    uint64_t size = sizeof(data);
    const uint32_t attrs = EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS;
    check_error(g.rt->get_variable(NULL, &global_variable_guid, NULL, &size, data),
                "hostile_get_variable_null_name");
    size = sizeof(data);
    check_error(g.rt->get_variable((const efi_char16_t *)(uintptr_t)OUTSIDE_RAM,
                                   &global_variable_guid, NULL, &size, data),
                "hostile_get_variable_name_outside_ram");

    /* An existing variable, so that the firmware really has data to copy. */
    efi_status_t s = g.rt->set_variable(u"PayloadHostile", &payload_vendor_guid, attrs, 4,
                                        "evil");
    if (s != EFI_SUCCESS)
        print("payload: note: SetVariable(PayloadHostile) returned 0x%lx\n", s);
    size = ~0ull;
    check_error(g.rt->get_variable(u"PayloadHostile", &payload_vendor_guid, NULL, &size, data),
                "hostile_get_variable_huge_size");
    check_error(g.rt->set_variable(u"PayloadHostile", &payload_vendor_guid, attrs,
                                   1ull << 40, data),
                "hostile_set_variable_huge_size");
    g.rt->set_variable(u"PayloadHostile", &payload_vendor_guid, attrs, 0, NULL);
}

static void hostile_handles(void)
{
    static uint64_t table_data;
    efi_status_t s = g.bs->install_configuration_table(NULL, &table_data);
    check_status(s, EFI_INVALID_PARAMETER, "hostile_install_config_table_null_guid");

    uint64_t size = ~0ull;
    s = g.bs->locate_handle(ByProtocol, &loaded_image_guid, NULL, &size,
                            (efi_handle_t *)(uintptr_t)OUTSIDE_RAM);
    check_error(s, "hostile_locate_handle_huge_buffer");

    void *iface = NULL;
    s = g.bs->handle_protocol((efi_handle_t)(uintptr_t)0x12345678, &loaded_image_guid, &iface);
    check_error(s, "hostile_handle_protocol_bogus_handle");

    uint64_t r = raw_hypercall(0);
    checkf(EFI_IS_ERROR(r), "hostile_service_id_0", "RAX 0x%lx", r);
    r = raw_hypercall(0xffff);
    checkf(EFI_IS_ERROR(r), "hostile_service_id_ffff", "RAX 0x%lx", r);
    r = raw_hypercall(0xffffffffu);
    checkf(EFI_IS_ERROR(r), "hostile_service_id_ffffffff", "RAX 0x%lx", r);
}

static NORETURN void mode_hostile(void)
{
    efi_status_t s = get_map();
    uint64_t top = s == EFI_SUCCESS ? mm_top_of_ram() : 0;
    print("payload: top of RAM 0x%lx\n", top);

    hostile_memory_map(top);
    hostile_allocate();
    hostile_output_string(top);
    hostile_variables();
    hostile_handles();

    s = get_map();
    efi_status_t e = s == EFI_SUCCESS ?
        g.bs->exit_boot_services((efi_handle_t)(uintptr_t)0x12345678, mm.key) : s;
    check_error(e, "hostile_exit_boot_services_bogus_handle");

    s = get_map();
    s = s == EFI_SUCCESS ? exit_boot_services_with_retry() : s;
    check_status(s, EFI_SUCCESS, "hostile_exit_boot_services");
    s = g.bs->exit_boot_services(g.image, mm.key);
    check_error(s, "hostile_exit_boot_services_again");
    finish();
}

/* ------------------------------------------------------------------ */
/* Entry                                                              */

static inline void zero_bss(void)
{
    void *d = __bss_start;
    uint64_t n = (uint64_t)(__bss_end - __bss_start) / 8;
    asm volatile("cld; rep stosq" : "+D"(d), "+c"(n) : "a"(0ull) : "memory", "cc");
}

static NORETURN void payload_main(void)
{
    g.bs = g.st ? g.st->boot_services : NULL;
    g.rt = g.st ? g.st->runtime_services : NULL;
    print("payload: entry %s at 0x%lx, handle %p, systab %p, boot_params %p\n",
          g.pe_entry ? "pe" : "handover", g.entry_addr, g.image, (void *)g.st,
          (void *)g.bp);
    print("payload: cmdline \"%s\"\n", g.cmdline);

    const char *mode = cmdline_option("payload=");
    if (!mode || word_is(mode, "services") || word_is(mode, "")) {
        mode = "services";
    }
    if (memcmp(mode, "exit=", 5) == 0 && mode[5] >= '0' && mode[5] <= '9')
        mode_exit(mode + 5);
    if (word_is(mode, "loop"))
        mode_loop();
    if (word_is(mode, "triple-fault"))
        mode_triple_fault();
    if (word_is(mode, "panic-reset"))
        mode_panic_reset();
    if (word_is(mode, "hv-crash"))
        mode_hv_crash();
    if (word_is(mode, "fallbacks"))
        mode_fallbacks();
    if (word_is(mode, "pit"))
        mode_pit();

    /* The remaining modes need the firmware. */
    if (!g.st || !g.bs || !g.rt) {
        checkf(false, "firmware", "systab %p, boot services %p, runtime services %p",
               (void *)g.st, g.st ? (void *)g.bs : NULL, g.st ? (void *)g.rt : NULL);
        finish();
    }
    if (word_is(mode, "services"))
        mode_services();
    if (word_is(mode, "stop-at-ebs"))
        mode_stop_at_ebs();
    if (word_is(mode, "efi-exit"))
        mode_efi_exit(false);
    if (word_is(mode, "efi-exit-success"))
        mode_efi_exit(true);
    if (word_is(mode, "hostile"))
        mode_hostile();
    if (word_is(mode, "race"))
        mode_race();
    if (word_is(mode, "events"))
        mode_events();
    if (word_is(mode, "halt"))
        mode_halt();
    if (word_is(mode, "wait-for-key"))
        mode_wait_for_key();
    if (word_is(mode, "halt-for-key"))
        mode_halt_for_key();
    if (word_is(mode, "halt-after-ebs"))
        mode_halt_after_ebs();
    if (word_is(mode, "stall-long"))
        mode_stall_long();
    if (word_is(mode, "notify"))
        mode_notify();
    if (word_is(mode, "memattr"))
        mode_memattr(false);
    if (word_is(mode, "memattr-xp"))
        mode_memattr(true);
    if (word_is(mode, "secure-boot"))
        mode_secure_boot();
    if (word_is(mode, "watchdog-spin"))
        mode_watchdog(WATCHDOG_SPIN);
    if (word_is(mode, "watchdog-halt"))
        mode_watchdog(WATCHDOG_HALT);
    if (word_is(mode, "watchdog-stall"))
        mode_watchdog(WATCHDOG_STALL);
    if (word_is(mode, "watchdog-disarmed"))
        mode_watchdog(WATCHDOG_DISARMED);

    size_t n = 0;
    while (mode[n] && !is_space(mode[n]))
        n++;
    char name[32];
    if (n >= sizeof(name))
        n = sizeof(name) - 1;
    memcpy(name, mode, n);
    name[n] = 0;
    checkf(false, "mode", "unknown mode \"%s\"", name);
    finish();
}

void efi_handover_entry(efi_handle_t image, efi_system_table_t *st, void *bp)
{
    zero_bss();
    g.image = image;
    g.st = st;
    g.bp = bp;
    g.pe_entry = false;
    g.entry_addr = (uint64_t)(uintptr_t)&efi_handover_entry;
    if (bp) {
        uint64_t p = 0;
        uint32_t lo, hi;
        memcpy(&lo, (uint8_t *)bp + BP_HDR_CMD_LINE_PTR, 4);
        memcpy(&hi, (uint8_t *)bp + BP_EXT_CMD_LINE_PTR, 4);
        p = lo | (uint64_t)hi << 32;
        cmdline_from_ascii((const char *)(uintptr_t)p);
    }
    payload_main();
}

EFIAPI efi_status_t efi_pe_entry(efi_handle_t image, efi_system_table_t *st)
{
    zero_bss();
    g.image = image;
    g.st = st;
    g.bp = NULL;
    g.pe_entry = true;
    g.entry_addr = (uint64_t)(uintptr_t)&efi_pe_entry;
    if (st && st->boot_services) {
        efi_loaded_image_t *li = NULL;
        efi_status_t s = st->boot_services->handle_protocol(image, &loaded_image_guid,
                                                            (void **)&li);
        if (s == EFI_SUCCESS && li)
            cmdline_from_ucs2(li->load_options, li->load_options_size);
        else
            print("payload: HandleProtocol(LoadedImage) failed: 0x%lx\n", s);
    }
    const char *mode = cmdline_option("payload=");
    if (mode && word_is(mode, "efi-return")) {
        print("payload: returning EFI_SUCCESS from the PE entry\n");
        return EFI_SUCCESS;
    }
    payload_main();
}
