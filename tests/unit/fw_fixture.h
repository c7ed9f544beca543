/* The firmware under test, shared by the test_fw_*.c suites: firmware-stub/
 * built over a 16 MiB buffer and called as the guest would, through
 * firmware_call() with the Microsoft x64 ABI (RCX, RDX, R8, R9, then
 * RSP+0x28...). Arguments live in a scratch area of guest RAM that the
 * memory map marks LoaderData, so the firmware's own allocations never land
 * on them. Each test runs on a fresh firmware (a checked fixture). */
#ifndef HANDOVER_UNIT_FW_FIXTURE_H
#define HANDOVER_UNIT_FW_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "suites.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/guids.h"

#define MiB(n) ((uint64_t)(n) << 20)
#define GiB(n) ((uint64_t)(n) << 30)

#define RAM_SIZE     MiB(16)
#define FW_BASE      0x100000ULL
#define SCRATCH      0x200000ULL
#define SCRATCH_SIZE 0x200000ULL
#define STACK_TOP    (SCRATCH + SCRATCH_SIZE - 0x1000)
#define IMAGE_BASE   0x1000000ULL
#define IMAGE_SIZE   0x400000ULL
#define CMDLINE      "console=ttyS0 root=/dev/vda quiet"
#define DESC_SIZE    48   /* what GetMemoryMap reports; callers use it as the stride */

/* Service indices: firmware-stub/services.h. */
#define BS(x) FW_ID_BS(BS_##x)
#define RT(x) FW_ID_RT(RT_##x)

#define ATTR_BS    EFI_VARIABLE_BOOTSERVICE_ACCESS
#define ATTR_BS_RT (EFI_VARIABLE_BOOTSERVICE_ACCESS | EFI_VARIABLE_RUNTIME_ACCESS)
#define ATTR_NV_BS_RT (EFI_VARIABLE_NON_VOLATILE | ATTR_BS_RT)

/* A GUID nobody else uses, and those the tests need that guids.h does not
 * have. Values from the UEFI 2.10 spec and the kernel's include/linux/efi.h. */
#define GUID_TEST     EFI_GUID(0x3a1b2c4d, 0x1111, 0x2222, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa)
#define GUID_GOP      EFI_GUID(0x9042a9de, 0x23dc, 0x4a38, 0x96, 0xfb, 0x7a, 0xde, 0xd0, 0x80, 0x51, 0x6a)
#define GUID_BOOT_MEMMAP EFI_GUID(0x800f683f, 0xd08b, 0x423a, 0xa2, 0x93, 0x96, 0x5c, 0x3c, 0x6f, 0xe2, 0xb4)
#define GUID_RANDOM_SEED EFI_GUID(0x1ce1e5bc, 0x7ceb, 0x42f2, 0x81, 0xe5, 0x8a, 0xad, 0xf1, 0x80, 0xf5, 0x7b)
#define GUID_STUB_PAYLOAD EFI_GUID(0x55c5d1f8, 0x04cd, 0x46b5, 0x8a, 0x20, 0xe5, 0x6c, 0xbb, 0x30, 0x52, 0xd0)

/* The configuration tables firmware_init installs itself: EFI_RT_PROPERTIES_TABLE. */
#define FIRMWARE_CONFIG_TABLES 1

/* The virtual addresses virtual_map() moves runtime code and data to. */
#define VA_CODE 0xfffffffeffe00000ULL
#define VA_DATA 0xfffffffeffd00000ULL

extern uint8_t *ram;
extern struct guest_mem gm;
extern struct firmware fw;
extern FILE *con, *log_file;
extern char *log_buf;
extern size_t log_len;
extern struct guest_view cur_view;   /* the view and stack the next call is made with */
extern uint64_t cur_rsp;
extern struct fw_callee_saved cur_saved;   /* and the caller's callee-saved registers */

/* A test case of a firmware suite: each test on a fresh firmware. tests
 * ends with NULL. */
void fw_add_tcase(Suite *s, const char *name, const TTest *const tests[]);
/* The test case alone, in s, for a suite that adds a fixture of its own
 * (run after the firmware's) and its tests. */
TCase *fw_tcase(Suite *s, const char *name);
/* The same on an IA-32 firmware (cfg.bits 32): call it with CALL32. */
void fw_add_tcase_ia32(Suite *s, const char *name, const TTest *const tests[]);
/* The same with Secure Boot on (cfg.secure_boot), in Setup Mode. */
void fw_add_tcase_secure_boot(Suite *s, const char *name, const TTest *const tests[]);
/* Both: an IA-32 firmware with Secure Boot on, in Setup Mode. */
void fw_add_tcase_ia32_secure_boot(Suite *s, const char *name, const TTest *const tests[]);

/* The firmware's clock stands still between steps; this moves it on. */
void advance_clock_ns(uint64_t ns);

/* ---- guest memory ---------------------------------------------------------------------- */

static inline void *hp(uint64_t gpa) { return ram + gpa; }
static inline uint64_t rd64(uint64_t gpa) { uint64_t v; memcpy(&v, ram + gpa, 8); return v; }
static inline uint32_t rd32(uint64_t gpa) { uint32_t v; memcpy(&v, ram + gpa, 4); return v; }
static inline void wr64(uint64_t gpa, uint64_t v) { memcpy(ram + gpa, &v, 8); }

/* len bytes of scratch, 16-byte aligned; then the same filled in. */
uint64_t scratch(size_t len);
uint64_t put(const void *p, size_t len);
uint64_t put_u64(uint64_t v);
uint64_t put_guid(efi_guid_t g);
uint64_t put_ucs2(const char *s);
bool ucs2_equals(uint64_t gpa, const char *s);
/* VenMedia(vendor)/End, as systemd-stub builds its initrd and payload paths. */
uint64_t put_vendor_media_path(efi_guid_t vendor);

/* A file tests/secure-boot-fixtures.sh made in SECURE_BOOT_DIR (keys,
 * signed and unsigned images), read whole; its data is the caller's to free. */
struct file { uint8_t *data; size_t size; };
struct file fixture(const char *name);

/* ---- calls ----------------------------------------------------------------------------- */

/* A call as the guest makes it: four register arguments, the rest on the
 * stack above the shadow space and return address. */
efi_status_t call_args(unsigned id, const uint64_t *a, unsigned n);
#define CALL(id, ...) call_args((id), (const uint64_t[]){ __VA_ARGS__ }, \
                                (unsigned)(sizeof((uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t)))

/* A call to an IA-32 firmware, as a mixed-mode stub makes it (cdecl): a
 * return address at RSP, then each argument, 4 bytes, or 8 where bit i of
 * wide is set (a UINT64 argument). */
efi_status_t call_args32(unsigned id, const uint64_t *a, unsigned n, unsigned wide);
#define CALL32(id, wide, ...) call_args32((id), (const uint64_t[]){ __VA_ARGS__ }, \
                                          (unsigned)(sizeof((uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t)), (wide))

/* GetMemoryMap as the stub does it: probe, then fetch; returns the key. */
uint64_t map_key_with(uint64_t *map_out, uint64_t *size_out);
uint64_t map_key(void);
void exit_boot_services(void);
efi_status_t set_var(const char *name, efi_guid_t g, uint64_t attrs, const void *data, size_t len);
/* HandleProtocol(handle, g); its status in *s. */
uint64_t interface_of(uint64_t handle, efi_guid_t g, efi_status_t *s);
/* The runtime descriptors of the firmware's map, relocated as the kernel
 * does (efi_map_regions): code at VA_CODE, data at VA_DATA. */
uint64_t virtual_map(uint64_t *size);

/* ---- what the firmware built and wrote ------------------------------------------------- */

bool crc_ok(uint64_t table);
static inline struct efi_system_table *systab(void) { return hp(fw.systab); }
const char *log_text(void);
const char *console_text(void);

/* The trace of the calls made between trace_to_memory and decoded_tails:
 * each line's tail from its "decoded" on (or just its newline), into got. */
void trace_to_memory(void);
/* The whole trace written since trace_to_memory, into got. */
void trace_lines(char *got, size_t cap);
void decoded_tails(char *got, size_t cap);

#endif
