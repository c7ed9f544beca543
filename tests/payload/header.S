/* header.S - the real-mode part of the payload bzImage and the two legacy
 * entry points of its protected-mode part.
 *
 * File layout (the link address equals the file offset; see payload.ld):
 *
 *   0x0000  "MZ" DOS header, e_lfanew at 0x3c
 *   0x0040  "PE\0\0", COFF header, PE32+ optional header, 2 section headers
 *   0x01f1  Linux setup header (boot protocol 2.15)
 *   0x0270  real-mode stub, kernel version string
 *   0x1000  protected-mode part ("startup_32"), = .text section
 *   0x1200  "startup_64" (64-bit boot protocol entry, unsupported)
 *   ....    efi_handover_entry (startup_32 + 0x200 + handover_offset),
 *           efi_pe_entry (AddressOfEntryPoint), the C code, rodata
 *   _data   .data section (4 KiB aligned), raw size padded to 0x200
 *   _edata  end of file; .bss follows in memory only (init_size covers it)
 *
 * Values that depend on the link (sizes, entry points) come from absolute
 * symbols computed in payload.ld, so this file has no relocations at all
 * against code or data.
 */

#define SETUP_SECTS     7               /* setup = (7 + 1) * 512 = 0x1000 */

#define LOADED_HIGH     0x01
#define XLF_KERNEL_64                   0x0001
#define XLF_CAN_BE_LOADED_ABOVE_4G      0x0002
#define XLF_EFI_HANDOVER_64             0x0008

/* PE/COFF constants (PE Format specification) */
#define IMAGE_FILE_MACHINE_AMD64        0x8664
#define IMAGE_FILE_EXECUTABLE_IMAGE     0x0002
#define IMAGE_FILE_LINE_NUMS_STRIPPED   0x0004
#define IMAGE_FILE_LARGE_ADDRESS_AWARE  0x0020
#define IMAGE_FILE_DEBUG_STRIPPED       0x0200
#define PE_OPT_MAGIC_PE32PLUS           0x020b
#define IMAGE_SUBSYSTEM_EFI_APPLICATION 10
#define IMAGE_DLLCHARACTERISTICS_NX_COMPAT 0x0100
#define IMAGE_SCN_CNT_CODE              0x00000020
#define IMAGE_SCN_CNT_INITIALIZED_DATA  0x00000040
#define IMAGE_SCN_MEM_EXECUTE           0x20000000
#define IMAGE_SCN_MEM_READ              0x40000000
#define IMAGE_SCN_MEM_WRITE             0x80000000
#define PE_NUM_DATA_DIRS                6

        .section .header, "a"
        .code16
        .globl  _header
_header:
        /* DOS header: only e_magic and e_lfanew matter. If a BIOS ever runs
         * this as a boot sector, "MZ" decodes as dec %bp; pop %dx and the
         * next bytes halt. */
        .ascii  "MZ"
        cli
1:      hlt
        jmp     1b
        .org    0x3c
        .long   pe_header - _header

        .org    0x40
pe_header:
        .ascii  "PE\0\0"
        /* COFF file header */
        .word   IMAGE_FILE_MACHINE_AMD64
        .word   (section_table_end - section_table) / 40   /* NumberOfSections */
        .long   0                       /* TimeDateStamp */
        .long   0                       /* PointerToSymbolTable */
        .long   0                       /* NumberOfSymbols */
        .word   section_table - optional_header         /* SizeOfOptionalHeader */
        .word   IMAGE_FILE_EXECUTABLE_IMAGE | IMAGE_FILE_LINE_NUMS_STRIPPED | \
                IMAGE_FILE_LARGE_ADDRESS_AWARE | IMAGE_FILE_DEBUG_STRIPPED

optional_header:
        .word   PE_OPT_MAGIC_PE32PLUS
        .byte   0x02, 0x14              /* linker version (informational) */
        .long   _pe_text_size           /* SizeOfCode */
        .long   _pe_data_raw_size       /* SizeOfInitializedData */
        .long   _pe_bss_size            /* SizeOfUninitializedData */
        .long   _pe_entry               /* AddressOfEntryPoint (RVA) */
        .long   _pe_text_start          /* BaseOfCode */
        /* Windows-specific fields (PE32+) */
        .quad   0                       /* ImageBase: position independent */
        .long   0x1000                  /* SectionAlignment */
        .long   0x200                   /* FileAlignment */
        .word   0, 0                    /* OperatingSystemVersion */
        .word   0, 1                    /* ImageVersion */
        .word   0, 0                    /* SubsystemVersion */
        .long   0                       /* Win32VersionValue */
        .long   _pe_image_size          /* SizeOfImage */
        .long   _pe_headers_size        /* SizeOfHeaders */
        .long   0                       /* CheckSum */
        .word   IMAGE_SUBSYSTEM_EFI_APPLICATION
        .word   IMAGE_DLLCHARACTERISTICS_NX_COMPAT
        .quad   0                       /* SizeOfStackReserve */
        .quad   0                       /* SizeOfStackCommit */
        .quad   0                       /* SizeOfHeapReserve */
        .quad   0                       /* SizeOfHeapCommit */
        .long   0                       /* LoaderFlags */
        .long   PE_NUM_DATA_DIRS        /* NumberOfRvaAndSizes */
        /* data directories: export, import, resource, exception,
         * certificate, base relocation - all empty (no relocations needed) */
        .rept   PE_NUM_DATA_DIRS
        .quad   0
        .endr

section_table:
        .ascii  ".text\0\0\0"
        .long   _pe_text_size           /* VirtualSize */
        .long   _pe_text_start          /* VirtualAddress */
        .long   _pe_text_size           /* SizeOfRawData */
        .long   _pe_text_start          /* PointerToRawData */
        .long   0, 0                    /* relocations, line numbers */
        .word   0, 0
        .long   IMAGE_SCN_CNT_CODE | IMAGE_SCN_MEM_EXECUTE | IMAGE_SCN_MEM_READ

        .ascii  ".data\0\0\0"
        .long   _pe_data_virt_size      /* VirtualSize: includes .bss */
        .long   _pe_data_start          /* VirtualAddress */
        .long   _pe_data_raw_size       /* SizeOfRawData */
        .long   _pe_data_start          /* PointerToRawData */
        .long   0, 0
        .word   0, 0
        .long   IMAGE_SCN_CNT_INITIALIZED_DATA | IMAGE_SCN_MEM_READ | IMAGE_SCN_MEM_WRITE
section_table_end:

        /* Linux setup header, Documentation/arch/x86/boot.rst */
        .org    0x1f1
        .byte   SETUP_SECTS             /* 0x1f1 setup_sects */
        .word   0                       /* 0x1f2 root_flags */
        .long   _hdr_syssize            /* 0x1f4 syssize (16-byte units) */
        .word   0                       /* 0x1f8 ram_size (obsolete) */
        .word   0xffff                  /* 0x1fa vid_mode: normal */
        .word   0                       /* 0x1fc root_dev */
        .word   0xaa55                  /* 0x1fe boot_flag */
        .byte   0xeb                    /* 0x200 jump: jmp short start_of_setup */
        .byte   start_of_setup - 1f
1:      .ascii  "HdrS"                  /* 0x202 header */
        .word   0x020f                  /* 0x206 version 2.15 */
        .long   0                       /* 0x208 realmode_swtch */
        .word   0x1000                  /* 0x20c start_sys_seg (obsolete) */
        .word   kernel_version - _header - 0x200 /* 0x20e kernel_version */
        .byte   0                       /* 0x210 type_of_loader */
        .byte   LOADED_HIGH             /* 0x211 loadflags */
        .word   0x8000                  /* 0x212 setup_move_size */
        .long   0x100000                /* 0x214 code32_start */
        .long   0                       /* 0x218 ramdisk_image */
        .long   0                       /* 0x21c ramdisk_size */
        .long   0                       /* 0x220 bootsect_kludge */
        .word   0                       /* 0x224 heap_end_ptr */
        .byte   0                       /* 0x226 ext_loader_ver */
        .byte   0                       /* 0x227 ext_loader_type */
        .long   0                       /* 0x228 cmd_line_ptr */
        .long   0x7fffffff              /* 0x22c initrd_addr_max */
        .long   0x200000                /* 0x230 kernel_alignment */
        .byte   1                       /* 0x234 relocatable_kernel */
        .byte   21                      /* 0x235 min_alignment (2 MiB) */
        .word   XLF_KERNEL_64 | XLF_CAN_BE_LOADED_ABOVE_4G | XLF_EFI_HANDOVER_64
                                        /* 0x236 xloadflags */
        .long   2047                    /* 0x238 cmdline_size */
        .long   0                       /* 0x23c hardware_subarch: PC */
        .quad   0                       /* 0x240 hardware_subarch_data */
        .long   0                       /* 0x248 payload_offset: no payload */
        .long   0                       /* 0x24c payload_length */
        .quad   0                       /* 0x250 setup_data */
        .quad   0x1000000               /* 0x258 pref_address */
        .long   _hdr_init_size          /* 0x260 init_size */
        .long   _hdr_handover_offset    /* 0x264 handover_offset */
        .long   _hdr_kernel_info_offset /* 0x268 kernel_info_offset */
setup_header_end:                       /* 0x26c */

        /* Entered only by a 16-bit real-mode boot, which is unsupported. */
start_of_setup:
        cli
1:      hlt
        jmp     1b

kernel_version:
        .asciz  "handover-payload (synthetic EFI test payload)"

        .org    0x1000 - 1
        .byte   0

/* ------------------------------------------------------------------ */
/* Protected-mode part. startup_32 must be the first byte of .text. */

        .section .text.startup32, "ax"
        .code32
        .globl  startup_32
startup_32:
        /* 32-bit boot protocol: not supported, halt forever. */
        cli
1:      hlt
        jmp     1b

        .org    0x200
        .code64
        .globl  startup_64
startup_64:
        /* 64-bit boot protocol (no EFI): report 0x7d on the exit port. */
        cli
        movb    $0x7d, %al
        outb    %al, $0xf4
1:      hlt
        jmp     1b

        .balign 16
        /* kernel_info (boot protocol 2.15), pointed to by kernel_info_offset */
        .globl  kernel_info
kernel_info:
        .ascii  "LToP"                  /* header */
        .long   kernel_info_var - kernel_info   /* size */
        .long   kernel_info_end - kernel_info   /* size_total */
        .long   0x80000009              /* setup_type_max: SETUP_INDIRECT | 9 */
kernel_info_var:
kernel_info_end:

        .section .note.GNU-stack, "", @progbits
