/* PE32+ (x64) and PE32 (IA-32) EFI images: parsing, validation and
 * mapping as UEFI's LoadImage does it (UEFI 2.10 §7.4 LoadImage;
 * Microsoft PE/COFF specification: COFF file header, optional header,
 * data directories, section table, "The .reloc Section"). The file stays
 * a plain buffer; the image is mapped into guest memory at any base (a
 * PE32 one below 4 GiB) and relocated there. */
#ifndef HANDOVER_PE_H
#define HANDOVER_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../guest/guest_mem.h"

/* Limits that keep a hostile file harmless. A UKI with several profiles
 * carries some twenty sections. */
#define PE_MAX_SECTIONS   32
#define PE_MAX_IMAGE_SIZE (1u << 30)

/* COFF Machine values ("Machine Types"): an x64 image is PE32+, an IA-32
 * one PE32 (UEFI 2.10 §2.1.1 lists both as the images of their
 * platforms). */
#define PE_MACHINE_X64  0x8664
#define PE_MACHINE_I386 0x014c

/* Optional header Subsystem values UEFI loads (UEFI 2.10 §2.1.1). */
#define PE_SUBSYSTEM_EFI_APPLICATION         10
#define PE_SUBSYSTEM_EFI_BOOT_SERVICE_DRIVER 11
#define PE_SUBSYSTEM_EFI_RUNTIME_DRIVER      12

/* COFF Characteristics: no base relocations, the image loads only at ImageBase. */
#define PE_FILE_RELOCS_STRIPPED 0x0001
/* DllCharacteristics: the sections keep W^X (no section both writable and executable). */
#define PE_DLLCHARACTERISTICS_NX_COMPAT 0x0100

/* Section Characteristics (PE/COFF "Section Flags"). */
#define PE_SCN_MEM_EXECUTE 0x20000000u
#define PE_SCN_MEM_WRITE   0x80000000u

/* Base relocation types ("Base Relocation Types") pe_load applies. */
#define PE_REL_BASED_ABSOLUTE 0    /* padding: skipped */
#define PE_REL_BASED_HIGHLOW  3    /* the low 32 bits of the delta added to a dword */
#define PE_REL_BASED_DIR64    10   /* the delta added to a qword */

struct pe_section {
    char name[9];              /* printable: goes into error messages */
    uint32_t virtual_address, virtual_size;
    uint32_t raw_offset, raw_size;
    uint32_t characteristics;
};

struct pe_image {
    const uint8_t *data;       /* the file; must outlive the struct */
    size_t size;
    uint16_t machine;          /* PE_MACHINE_X64 (PE32+) or PE_MACHINE_I386 (PE32) */
    uint16_t file_characteristics;   /* COFF header Characteristics */
    uint16_t subsystem;
    uint16_t dll_characteristics;
    uint64_t image_base;       /* preferred load address (a PE32 one 4 bytes in the file) */
    uint32_t entry;            /* AddressOfEntryPoint (RVA) */
    uint32_t size_of_image;
    uint32_t size_of_headers;
    uint32_t section_alignment;
    uint32_t reloc_rva, reloc_size;  /* base relocation directory; size 0: none */
    unsigned nsections;
    struct pe_section sections[PE_MAX_SECTIONS];
};

/* Does data start with an MS-DOS header ("MZ", e_lfanew present)? */
bool pe_is_mz(const void *data, size_t size);

/* Parse and validate, base relocation blocks included: an x64 PE32+ or an
 * IA-32 PE32 image (pe->machine says which; the caller refuses the one its
 * firmware does not run). On failure returns
 * -1 with a one-line message starting "PE: " and naming the offending
 * field in err. */
int pe_parse(struct pe_image *pe, const void *data, size_t size, char *err, size_t errlen);

/* Bytes the mapped image spans: SizeOfImage rounded up to whole pages,
 * as LoadImage allocates it. */
uint64_t pe_image_size(const struct pe_image *pe);

/* Map the image at base: headers and sections copied, every byte not
 * backed by raw data zeroed (BSS), base relocations applied for
 * base - ImageBase. Returns -1 with a message in err (which may be NULL
 * with errlen 0) when the image does not fit guest RAM there, reaches past
 * 4 GiB when it is PE32, or cannot move; nothing is written then. */
int pe_load(const struct pe_image *pe, const struct guest_mem *gm, uint64_t base, char *err, size_t errlen);

#endif
