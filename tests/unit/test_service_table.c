/* The service rows (struct fw_service) and the fault descriptors
 * (struct inject_fault) as the one place each fact lives: every slot of
 * every table filled and consistent, the protocol lookups of UEFI 2.10
 * sections 7.3.7-7.3.16 where the rows say they are, and --help's fault
 * lines, the parser and inject_spec() all from the descriptors
 * (test_fw_dispatch.c, test_fw_events.c and test_fw_image.c have the
 * "decoded" fields a row's decoder writes). */
#include <string.h>

#include "suites.h"
#include "../../firmware-stub/boot_services.h"
#include "../../firmware-stub/console.h"
#include "../../firmware-stub/dispatch.h"
#include "../../firmware-stub/firmware.h"
#include "../../firmware-stub/memattr.h"
#include "../../firmware-stub/rng.h"
#include "../../firmware-stub/runtime_services.h"
#include "../../firmware-stub/tcg2.h"

#define STACK 0x3f0000ULL

/* ---- the rows ----------------------------------------------------------------------- */

/* Every ID that names a service, and how many there are. */
static unsigned service_ids(unsigned *ids)
{
    unsigned n = 0;
    for (unsigned id = 0; id < FW_MAX_THUNKS; id++)
        if (fw_service_of(id))
            ids[n++] = id;
    return n;
}

START_TEST(every_slot_has_its_row)
{
    unsigned ids[FW_MAX_THUNKS];
    unsigned n = service_ids(ids);
    /* ... the memory attribute functions, the TCG2 functions, SimpleFileSystem.OpenVolume, the File functions, the
     * BlockIo functions, and LoadFile2.LoadFile, StartImage.Return and NotifyFunction.Return */
    ck_assert_uint_eq(n, BS_COUNT + RT_COUNT + CONOUT_COUNT + CONIN_COUNT + RNG_COUNT + MEMATTR_COUNT + TCG2_COUNT + 1 +
                             FILE_COUNT + BLOCK_IO_COUNT + 3);
    for (unsigned i = 0; i < n; i++) {
        const struct fw_service *s = fw_service_of(ids[i]);
        /* A slot the designated initializers missed has id 0 and no name. */
        ck_assert_uint_eq(s->id, ids[i]);
        ck_assert_msg(s->name && s->name[0], "service %u has no name", ids[i]);
        ck_assert_str_eq(firmware_service_name(ids[i]), s->name);
        ck_assert_msg(s->nargs <= 8, "%s: %u arguments, firmware_call fetches 8", s->name, s->nargs);
        /* StartImage.Return's one argument is the status its thunk pushed. */
        ck_assert_msg(!s->fn || s->nargs > 0 || ids[i] == FW_ID_START_IMAGE_RETURN,
                      "%s has a handler but no arguments", s->name);
        ck_assert_msg(!s->decode || s->fn, "%s decodes a call it does not serve", s->name);
    }
    /* The kernel's names for a few, by index (include/linux/efi.h). */
    ck_assert_str_eq(fw_boot_services[BS_ALLOCATE_PAGES].name, "AllocatePages");
    ck_assert_str_eq(fw_boot_services[BS_CREATE_EVENT_EX].name, "CreateEventEx");
    ck_assert_str_eq(fw_runtime_services[RT_QUERY_VARIABLE_INFO].name, "QueryVariableInfo");
    ck_assert_str_eq(fw_conout_services[CONOUT_ENABLE_CURSOR].name, "ConOut.EnableCursor");
    ck_assert_str_eq(fw_rng_services[RNG_GET_RNG].name, "Rng.GetRNG");
    ck_assert_str_eq(fw_memattr_services[MEMATTR_CLEAR].name, "MemoryAttribute.ClearMemoryAttributes");
    ck_assert_str_eq(fw_tcg2_services[TCG2_HASH_LOG_EXTEND_EVENT].name, "Tcg2.HashLogExtendEvent");
}
END_TEST

/* UEFI 2.10: HandleProtocol (7.3.7), LocateHandle (7.3.8), LocateDevicePath
 * (7.3.9), OpenProtocol (7.3.10), LocateHandleBuffer (7.3.15) and
 * LocateProtocol (7.3.16) take a protocol GUID; nothing else does. */
START_TEST(protocol_lookups_are_where_the_spec_puts_them)
{
    static const struct firmware x64;   /* cfg.bits 0: the x64 binding */
    static const struct { unsigned bs, guid; bool by_protocol; efi_status_t not_found; } want[] = {
        { BS_HANDLE_PROTOCOL, 1, false, EFI_UNSUPPORTED }, { BS_LOCATE_HANDLE, 1, true, EFI_NOT_FOUND },
        { BS_LOCATE_DEVICE_PATH, 0, false, EFI_NOT_FOUND }, { BS_OPEN_PROTOCOL, 1, false, EFI_UNSUPPORTED },
        { BS_LOCATE_HANDLE_BUFFER, 1, true, EFI_NOT_FOUND }, { BS_LOCATE_PROTOCOL, 0, false, EFI_NOT_FOUND },
    };
    unsigned ids[FW_MAX_THUNKS], lookups = 0;
    unsigned n = service_ids(ids);
    for (unsigned i = 0; i < n; i++) {
        const struct fw_service *s = fw_service_of(ids[i]);
        if (!s->lookup.not_found)
            continue;
        lookups++;
        ck_assert_msg(s->lookup.guid < s->nargs, "%s: GUID argument %u of %u", s->name, s->lookup.guid, s->nargs);
        ck_assert_msg(!s->lookup.clears_interface || s->nargs > 2, "%s has no *Interface", s->name);
    }
    ck_assert_uint_eq(lookups, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const struct fw_service *s = &fw_boot_services[want[i].bs];
        ck_assert_uint_eq(s->lookup.not_found, want[i].not_found);
        ck_assert_uint_eq(s->lookup.by_protocol, want[i].by_protocol);
        /* The row resolves to the argument, through the public call too. */
        struct fw_call c = { EFI_BY_PROTOCOL, 0x1111, 0x2222, 0x3333, STACK, { NULL, 0, false, false, false, false }, { 0 } };
        const uint64_t regs[4] = { c.rcx, c.rdx, c.r8, c.r9 };
        ck_assert_uint_eq(firmware_protocol_arg(&x64, s->id, &c), regs[want[i].guid]);
        c.rcx = EFI_ALL_HANDLES;
        ck_assert_uint_eq(firmware_protocol_arg(&x64, s->id, &c),
                          want[i].by_protocol ? 0 : want[i].guid ? 0x1111 : EFI_ALL_HANDLES);
    }
    struct fw_call c = { 0x1111, 0x2222, 0x3333, 0x4444, STACK, { NULL, 0, false, false, false, false }, { 0 } };
    ck_assert_uint_eq(firmware_protocol_arg(&x64, FW_ID_BS(BS_CLOSE_PROTOCOL), &c), 0);
    ck_assert_uint_eq(firmware_protocol_arg(&x64, FW_ID_BS(BS_COUNT), &c), 0);
}
END_TEST

/* A row names only the kinds that go by rows; every such kind is named. */
START_TEST(row_faults_are_service_scoped_kinds)
{
    unsigned ids[FW_MAX_THUNKS], named = 0;
    unsigned n = service_ids(ids);
    for (unsigned i = 0; i < n; i++) {
        const struct fw_service *s = fw_service_of(ids[i]);
        for (unsigned k = 0; k < INJECT_KINDS; k++)
            if (s->faults & (1u << k))
                ck_assert_msg(inject_faults[k].scope == INJECT_ON_SERVICES, "%s names %s", s->name,
                              inject_faults[k].name);
        ck_assert_msg(!(s->faults >> INJECT_KINDS), "%s names no kind", s->name);
        named |= s->faults;
    }
    for (unsigned k = 0; k < INJECT_KINDS; k++)
        ck_assert_msg((inject_faults[k].scope == INJECT_ON_SERVICES) == !!(named & (1u << k)),
                      "%s: scope and rows disagree", inject_faults[k].name);
    ck_assert_uint_eq(fw_boot_services[BS_ALLOCATE_PAGES].faults,
                      1u << INJECT_ALLOC_PAGES_FAIL | 1u << INJECT_ALLOC_PAGES_ABOVE);
}
END_TEST

/* ---- the fault descriptors ----------------------------------------------------------- */

START_TEST(every_kind_is_described)
{
    for (unsigned k = 0; k < INJECT_KINDS; k++) {
        const struct inject_fault *f = &inject_faults[k];
        ck_assert_msg(f->name && f->name[0] && f->help && f->help[0], "kind %u has no name or help", k);
        ck_assert_msg(f->before || f->after, "%s does nothing to a call", f->name);
        /* Whole-boot kinds change the map, and only they; SPEC@K means nothing for them. */
        ck_assert_uint_eq(f->scope == INJECT_ON_BOOT, f->memmap != NULL);
        ck_assert(!(f->scope == INJECT_ON_BOOT && f->takes_from));
        ck_assert(!f->hex || f->value != INJECT_VALUE_NONE);
        for (unsigned j = 0; j < k; j++)
            ck_assert_str_ne(inject_faults[j].name, f->name);
    }
}
END_TEST

/* Each kind, armed as a sweep would arm it, is written by inject_spec()
 * and read back by inject_parse() to the same fault. */
START_TEST(every_kind_parses_back_from_its_spec)
{
    for (unsigned k = 0; k < INJECT_KINDS; k++) {
        const struct inject_fault *f = &inject_faults[k];
        struct inject in = { .on = { false } }, back = { .on = { false } };
        in.on[k] = true;
        in.value[k] = f->hex ? 0x2000000 : f->value != INJECT_VALUE_NONE ? 3 : 1;
        in.from[k] = f->takes_from ? 4 : 0;
        char spec[64], err[128];
        inject_spec(&in, (enum inject_kind)k, spec, sizeof(spec));
        ck_assert_msg(!strncmp(spec, f->name, strlen(f->name)), "%s: %s", f->name, spec);
        ck_assert_msg(inject_parse(&back, spec, err, sizeof(err)) == 0, "%s: %s", spec, err);
        ck_assert_mem_eq(back.on, in.on, sizeof(in.on));
        ck_assert_uint_eq(back.value[k], in.value[k]);
        ck_assert_uint_eq(back.from[k], in.from[k]);
        /* And a value it takes none of is refused, with the parser's words. */
        if (f->value == INJECT_VALUE_NONE) {
            snprintf(spec, sizeof(spec), "%s:1", f->name);
            ck_assert_int_eq(inject_parse(&back, spec, err, sizeof(err)), -1);
            ck_assert_msg(strstr(err, ": takes no value"), "%s", err);
        }
    }
}
END_TEST

START_TEST(help_lines_come_from_the_descriptors)
{
    char help[2048];
    inject_help(help, sizeof(help), "  ");
    const char *line = help;
    for (unsigned k = 0; k < INJECT_KINDS; k++) {
        const struct inject_fault *f = &inject_faults[k];
        ck_assert_msg(!strncmp(line + 2, f->name, strlen(f->name)), "fault %u: %.60s", k, line);
        /* The description starts in column 21 after the indent, wrapped
         * at spaces onto lines that leave the spec's column blank. */
        char text[256] = "";
        do {
            const char *end = strchr(line, '\n');
            ck_assert_ptr_nonnull(end);
            ck_assert_uint_le((size_t)(end - line), 2 + 21 + INJECT_HELP_WIDTH);
            if (text[0])
                strcat(text, " ");
            strncat(text, line + 23, (size_t)(end - line - 23));
            line = end + 1;
        } while (!strncmp(line, "                       ", 23));
        ck_assert_str_eq(text, f->help);
    }
    ck_assert(!strncmp(line, "  SPEC@K ", 9));
    ck_assert(strstr(help, "  alloc-pages-above:A  AllocatePages finds no memory at or above address A\n"));
    ck_assert(strstr(help, "  gmm-too-small[:N]    GetMemoryMap returns"));
    ck_assert(strstr(help, "  ebs-stale-key        ExitBootServices"));
}
END_TEST

Suite *service_table_suite(void)
{
    Suite *s = suite_create("service-table");
    TCase *rows = tcase_create("rows");
    tcase_add_test(rows, every_slot_has_its_row);
    tcase_add_test(rows, protocol_lookups_are_where_the_spec_puts_them);
    tcase_add_test(rows, row_faults_are_service_scoped_kinds);
    tcase_add_test(rows, every_kind_is_described);
    tcase_add_test(rows, every_kind_parses_back_from_its_spec);
    tcase_add_test(rows, help_lines_come_from_the_descriptors);
    suite_add_tcase(s, rows);
    return s;
}
