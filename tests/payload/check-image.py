#!/usr/bin/env python3
"""Check a bzImage the way a strict EFI-handover / PE boot loader would.

Usage: check-image.py [--elf payload.elf] [--quiet] IMAGE

Parses the DOS/PE/COFF headers and the Linux setup header (boot protocol
2.15, Documentation/arch/x86/boot.rst), prints the fields, and checks that
they are consistent with each other and with the file: sections inside the
file and mapped flat (VirtualAddress == PointerToRawData), both entry points
inside executable code, syssize/init_size/SizeOfImage covering the image and
its BSS, the handover entry at startup_32 + 0x200 + handover_offset. With
--elf, the header values are also compared with the linked ELF's symbols.

Exit status 0 if all checks pass, 1 otherwise. Standard library only.
"""
import argparse
import struct
import sys


class Checker:
    def __init__(self, quiet=False):
        self.errors = []
        self.quiet = quiet

    def show(self, name, value, fmt="0x{:x}"):
        if not self.quiet:
            text = fmt.format(value) if isinstance(value, int) else str(value)
            print(f"  {name:<28} {text}")

    def section(self, title):
        if not self.quiet:
            print(title)

    def check(self, cond, msg):
        if not cond:
            self.errors.append(msg)
        return cond


def u8(b, o):
    return b[o]


def u16(b, o):
    return struct.unpack_from("<H", b, o)[0]


def u32(b, o):
    return struct.unpack_from("<I", b, o)[0]


def u64(b, o):
    return struct.unpack_from("<Q", b, o)[0]


def align_up(v, a):
    return (v + a - 1) // a * a


def elf_symbols(path):
    """Returns {name: value} from an ELF64 little-endian file's .symtab."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError(f"{path}: not an ELF64 little-endian file")
    shoff = u64(data, 0x28)
    shentsize = u16(data, 0x3a)
    shnum = u16(data, 0x3c)
    sections = []
    for i in range(shnum):
        o = shoff + i * shentsize
        sh_type = u32(data, o + 4)
        sh_offset = u64(data, o + 0x18)
        sh_size = u64(data, o + 0x20)
        sh_link = u32(data, o + 0x28)
        sh_entsize = u64(data, o + 0x38)
        sections.append((sh_type, sh_offset, sh_size, sh_link, sh_entsize))
    syms = {}
    for sh_type, off, size, link, entsize in sections:
        if sh_type != 2:  # SHT_SYMTAB
            continue
        stroff = sections[link][1]
        for o in range(off, off + size, entsize or 24):
            name_off = u32(data, o)
            value = u64(data, o + 8)
            end = data.index(b"\0", stroff + name_off)
            name = data[stroff + name_off:end].decode()
            if name:
                syms[name] = value
    return syms


def check_image(path, elf, quiet):
    c = Checker(quiet)
    img = open(path, "rb").read()
    size = len(img)
    if not c.check(size >= 0x1000, f"file too small ({size} bytes)"):
        return c

    # ---- DOS and PE/COFF headers -----------------------------------
    c.section(f"{path}: {size} bytes (0x{size:x})")
    c.section("DOS / PE header")
    c.check(img[0:2] == b"MZ", "no MZ signature at offset 0")
    pe = u32(img, 0x3c)
    c.show("e_lfanew", pe)
    if not c.check(pe + 24 <= size and img[pe:pe + 4] == b"PE\0\0",
                   "no PE\\0\\0 signature at e_lfanew"):
        return c
    coff = pe + 4
    machine = u16(img, coff)
    nsect = u16(img, coff + 2)
    opt_size = u16(img, coff + 16)
    characteristics = u16(img, coff + 18)
    c.show("Machine", machine)
    c.show("NumberOfSections", nsect, "{}")
    c.show("SizeOfOptionalHeader", opt_size)
    c.show("Characteristics", characteristics)
    c.check(machine == 0x8664, f"Machine 0x{machine:x}, expected 0x8664 (x86-64)")
    c.check(characteristics & 0x0002, "COFF Characteristics lacks EXECUTABLE_IMAGE")

    opt = coff + 20
    magic = u16(img, opt)
    c.show("optional header magic", magic)
    if not c.check(magic == 0x20b, f"optional header magic 0x{magic:x}, expected 0x20b (PE32+)"):
        return c
    c.check(opt_size >= 112, f"SizeOfOptionalHeader {opt_size} < 112")
    size_of_code = u32(img, opt + 4)
    size_of_idata = u32(img, opt + 8)
    size_of_udata = u32(img, opt + 12)
    entry_rva = u32(img, opt + 16)
    base_of_code = u32(img, opt + 20)
    image_base = u64(img, opt + 24)
    sect_align = u32(img, opt + 32)
    file_align = u32(img, opt + 36)
    size_of_image = u32(img, opt + 56)
    size_of_headers = u32(img, opt + 60)
    subsystem = u16(img, opt + 68)
    dll_chars = u16(img, opt + 70)
    n_rva = u32(img, opt + 108)
    for name, val in [("SizeOfCode", size_of_code), ("SizeOfInitializedData", size_of_idata),
                      ("SizeOfUninitializedData", size_of_udata),
                      ("AddressOfEntryPoint", entry_rva), ("BaseOfCode", base_of_code),
                      ("ImageBase", image_base), ("SectionAlignment", sect_align),
                      ("FileAlignment", file_align), ("SizeOfImage", size_of_image),
                      ("SizeOfHeaders", size_of_headers), ("Subsystem", subsystem),
                      ("DllCharacteristics", dll_chars), ("NumberOfRvaAndSizes", n_rva)]:
        c.show(name, val)
    c.check(sect_align == 0x1000, f"SectionAlignment 0x{sect_align:x}, expected 0x1000")
    c.check(file_align == 0x200, f"FileAlignment 0x{file_align:x}, expected 0x200")
    c.check(size_of_image % 0x1000 == 0, "SizeOfImage not a multiple of 0x1000")
    c.check(size_of_headers % file_align == 0 if file_align else False,
            "SizeOfHeaders not a multiple of FileAlignment")
    c.check(subsystem == 10, f"Subsystem {subsystem}, expected 10 (EFI application)")
    c.check(image_base % 0x10000 == 0, "ImageBase not 64 KiB aligned")
    c.check(n_rva >= 6, f"NumberOfRvaAndSizes {n_rva} < 6")
    c.check(opt_size == 112 + 8 * n_rva,
            f"SizeOfOptionalHeader {opt_size} != 112 + 8 * NumberOfRvaAndSizes")
    if n_rva >= 6:
        reloc_rva, reloc_size = u32(img, opt + 112 + 5 * 8), u32(img, opt + 112 + 5 * 8 + 4)
        c.show("BaseRelocationTable", f"rva 0x{reloc_rva:x} size 0x{reloc_size:x}")
        c.check(reloc_size == 0 or reloc_rva + reloc_size <= size_of_image,
                "base relocation table outside the image")

    # ---- sections ---------------------------------------------------
    c.section("sections")
    sect_off = opt + opt_size
    c.check(sect_off + 40 * nsect <= size_of_headers,
            "section table extends past SizeOfHeaders")
    sections = []
    for i in range(nsect):
        o = sect_off + 40 * i
        name = img[o:o + 8].rstrip(b"\0").decode("ascii", "replace")
        vsize, va, rawsize, rawptr = struct.unpack_from("<IIII", img, o + 8)
        chars = u32(img, o + 36)
        sections.append((name, va, vsize, rawptr, rawsize, chars))
        c.show(f"{name}", f"va 0x{va:x} vsize 0x{vsize:x} raw 0x{rawptr:x}+0x{rawsize:x} "
               f"flags 0x{chars:08x}", "{}")
        c.check(va % sect_align == 0, f"section {name}: VirtualAddress not section-aligned")
        c.check(va == rawptr, f"section {name}: VirtualAddress 0x{va:x} != "
                f"PointerToRawData 0x{rawptr:x} (image would not map flat)")
        c.check(rawsize % file_align == 0, f"section {name}: SizeOfRawData not file-aligned")
        c.check(rawptr % file_align == 0, f"section {name}: PointerToRawData not file-aligned")
        c.check(rawptr + rawsize <= size, f"section {name}: raw data past the end of the file")
        c.check(rawsize > 0, f"section {name}: no raw data")
        c.check(va + max(vsize, rawsize) <= size_of_image,
                f"section {name}: extends past SizeOfImage")
        c.check(va >= size_of_headers, f"section {name}: overlaps the headers")
    for a, b in zip(sections, sections[1:]):
        c.check(a[1] + max(a[2], a[4]) <= b[1],
                f"sections {a[0]} and {b[0]} overlap or are out of order")
    names = [s[0] for s in sections]
    c.check(".text" in names and ".data" in names, "missing .text or .data section")
    c.check(any(s[2] > s[4] for s in sections), "no section with VirtualSize > SizeOfRawData "
            "(no BSS)")
    image_end = max([s[1] + max(s[2], s[4]) for s in sections] or [0])
    c.check(align_up(image_end, 0x1000) == size_of_image,
            f"SizeOfImage 0x{size_of_image:x} != aligned end of sections "
            f"0x{align_up(image_end, 0x1000):x}")
    file_end = max([s[3] + s[4] for s in sections] or [0])
    c.check(file_end == size, f"file has 0x{size - file_end:x} bytes beyond the last section")

    def section_of(rva):
        for s in sections:
            if s[1] <= rva < s[1] + max(s[2], s[4]):
                return s
        return None

    text = section_of(entry_rva)
    c.check(text is not None and text[5] & 0x20000000 and entry_rva < text[1] + text[4],
            "AddressOfEntryPoint not inside an executable section's raw data")
    c.check(text is not None and text[1] == base_of_code, "BaseOfCode is not the entry's section")
    code = sum(s[4] for s in sections if s[5] & 0x20)
    idata = sum(s[4] for s in sections if s[5] & 0x40)
    c.check(size_of_code == code, f"SizeOfCode 0x{size_of_code:x} != code sections 0x{code:x}")
    c.check(size_of_idata == idata,
            f"SizeOfInitializedData 0x{size_of_idata:x} != data sections 0x{idata:x}")

    # ---- Linux setup header ---------------------------------------
    c.section("setup header")
    setup_sects = u8(img, 0x1f1) or 4
    setup_size = (setup_sects + 1) * 512
    syssize = u32(img, 0x1f4)
    boot_flag = u16(img, 0x1fe)
    jump = img[0x200:0x202]
    hdrs = img[0x202:0x206]
    version = u16(img, 0x206)
    kver = u16(img, 0x20e)
    loadflags = u8(img, 0x211)
    code32_start = u32(img, 0x214)
    initrd_addr_max = u32(img, 0x22c)
    kernel_alignment = u32(img, 0x230)
    relocatable = u8(img, 0x234)
    min_alignment = u8(img, 0x235)
    xloadflags = u16(img, 0x236)
    cmdline_size = u32(img, 0x238)
    subarch = u32(img, 0x23c)
    payload_offset = u32(img, 0x248)
    payload_length = u32(img, 0x24c)
    setup_data = u64(img, 0x250)
    pref_address = u64(img, 0x258)
    init_size = u32(img, 0x260)
    handover_offset = u32(img, 0x264)
    kernel_info_offset = u32(img, 0x268)
    c.show("setup_sects", setup_sects, "{}")
    c.show("min_alignment", min_alignment, "{} (2^n)")
    c.show("cmdline_size", cmdline_size, "{}")
    for name, val in [("setup size", setup_size),
                      ("syssize", syssize), ("boot_flag", boot_flag), ("version", version),
                      ("loadflags", loadflags), ("code32_start", code32_start),
                      ("initrd_addr_max", initrd_addr_max),
                      ("kernel_alignment", kernel_alignment),
                      ("relocatable_kernel", relocatable), ("xloadflags", xloadflags),
                      ("hardware_subarch", subarch), ("payload_offset", payload_offset),
                      ("payload_length", payload_length), ("setup_data", setup_data),
                      ("pref_address", pref_address), ("init_size", init_size),
                      ("handover_offset", handover_offset),
                      ("kernel_info_offset", kernel_info_offset)]:
        c.show(name, val)
    c.show("header", hdrs.decode("ascii", "replace"), "{}")
    c.check(boot_flag == 0xaa55, f"boot_flag 0x{boot_flag:x}, expected 0xaa55")
    c.check(hdrs == b"HdrS", "no HdrS magic at 0x202")
    c.check(version == 0x020f, f"boot protocol version 0x{version:x}, expected 0x020f")
    c.check(jump[0] == 0xeb and 0x202 + jump[1] < setup_size and 0x202 + jump[1] >= 0x26c,
            "jump at 0x200 is not a short jmp past the setup header")
    c.check(setup_size <= size, "setup part larger than the file")
    c.check(pe + 24 + opt_size + 40 * nsect <= 0x1f1 or pe >= 0x26c,
            "PE headers overlap the setup header")
    c.check(sect_off + 40 * nsect <= setup_size, "PE headers not inside the setup part")
    c.check(size_of_headers <= setup_size, "SizeOfHeaders larger than the setup part")
    pm_size = size - setup_size
    c.show("protected-mode part", f"file 0x{setup_size:x}..0x{size:x} (0x{pm_size:x} bytes)",
           "{}")
    c.check(syssize * 16 >= pm_size and syssize * 16 < pm_size + 16,
            f"syssize {syssize} * 16 does not match the protected-mode size 0x{pm_size:x}")
    c.check(loadflags & 0x01, "loadflags lacks LOADED_HIGH")
    c.check(code32_start == 0x100000, f"code32_start 0x{code32_start:x}, expected 0x100000")
    c.check(kernel_alignment == 0x200000,
            f"kernel_alignment 0x{kernel_alignment:x}, expected 0x200000")
    c.check(relocatable == 1, "relocatable_kernel is not 1")
    c.check(min_alignment == 21 and (1 << min_alignment) <= kernel_alignment,
            f"min_alignment {min_alignment}, expected 21")
    want_xlf = 0x1 | 0x2 | 0x8
    c.check(xloadflags & want_xlf == want_xlf,
            f"xloadflags 0x{xloadflags:x} lacks KERNEL_64|CAN_BE_LOADED_ABOVE_4G|EFI_HANDOVER_64")
    c.check(cmdline_size == 2047, f"cmdline_size {cmdline_size}, expected 2047")
    c.check(initrd_addr_max == 0x7fffffff, f"initrd_addr_max 0x{initrd_addr_max:x}")
    c.check(pref_address == 0x1000000, f"pref_address 0x{pref_address:x}, expected 0x1000000")
    c.check(pref_address % kernel_alignment == 0 if kernel_alignment else False,
            "pref_address not kernel_alignment-aligned")
    c.check(setup_data == 0, "setup_data in the image is not 0")
    c.check(payload_length == 0 or payload_offset + payload_length <= pm_size,
            "payload_offset/length outside the protected-mode part")
    c.check(init_size % 0x1000 == 0, "init_size not a multiple of 4 KiB")
    c.check(init_size >= align_up(pm_size, 0x1000), "init_size smaller than the file's "
            "protected-mode part")
    c.check(setup_size + init_size >= image_end,
            f"init_size 0x{init_size:x} does not cover the image and BSS "
            f"(needs 0x{align_up(image_end - setup_size, 0x1000):x})")
    c.check(init_size == size_of_image - setup_size,
            f"init_size 0x{init_size:x} != SizeOfImage - setup size "
            f"0x{size_of_image - setup_size:x}")
    if kver:
        o = kver + 0x200
        end = img.find(b"\0", o, setup_size)
        ok = c.check(end > o, "kernel_version string not NUL-terminated inside the setup part")
        if ok:
            s = img[o:end]
            c.check(all(0x20 <= ch < 0x7f for ch in s), "kernel_version not printable")
            c.show("kernel_version", s.decode("ascii", "replace"), "{}")

    # ---- entries ----------------------------------------------------
    c.section("entry points")
    handover_file = setup_size + 0x200 + handover_offset
    c.show("handover entry", f"file 0x{handover_file:x} = startup_32 + 0x200 + "
           f"0x{handover_offset:x}", "{}")
    hs = section_of(handover_file)
    c.check(hs is not None and hs[5] & 0x20000000 and handover_file < hs[1] + hs[4],
            "handover entry not inside an executable section's raw data")
    c.check(handover_file < size, "handover entry beyond the end of the file")
    c.show("PE entry", f"RVA 0x{entry_rva:x} = file 0x{entry_rva:x} = startup_32 + "
           f"0x{entry_rva - setup_size:x}", "{}")
    c.check(entry_rva >= setup_size, "PE entry inside the setup part (not copied by a "
            "handover loader)")
    X = 0x1000000
    c.show("loaded at X=0x1000000", f"handover entry 0x{X + 0x200 + handover_offset:x}, "
           f"PE entry 0x{X - setup_size + entry_rva:x} (image base X - 0x{setup_size:x})", "{}")
    for name, off in [("handover", handover_file), ("PE", entry_rva)]:
        if off < size:
            c.check(img[off:off + 16] != bytes(16), f"{name} entry points at zero bytes")

    # ---- kernel_info ------------------------------------------------
    ki = setup_size + kernel_info_offset
    if kernel_info_offset:
        ok = c.check(ki + 16 <= size and img[ki:ki + 4] == b"LToP",
                     "kernel_info_offset does not point at \"LToP\"")
        if ok:
            ki_size, ki_total, ki_stm = u32(img, ki + 4), u32(img, ki + 8), u32(img, ki + 12)
            c.show("kernel_info", f"size {ki_size} size_total {ki_total} setup_type_max "
                   f"0x{ki_stm:x}", "{}")
            c.check(16 <= ki_size <= ki_total and ki + ki_total <= size,
                    "kernel_info sizes inconsistent")

    # ---- the two loads agree ---------------------------------------
    # PE: headers + sections mapped at their RVAs, the rest zero.
    mapped = bytearray(size_of_image)
    mapped[:size_of_headers] = img[:size_of_headers]
    for name, va, vsize, rawptr, rawsize, _ in sections:
        n = min(vsize, rawsize) if vsize else rawsize
        mapped[va:va + n] = img[rawptr:rawptr + n]
    # Handover: the protected-mode part copied flat, BSS not touched.
    flat = img[setup_size:]
    c.check(bytes(mapped[setup_size:size]) == flat,
            "PE section mapping differs from the flat copy of the protected-mode part")

    # ---- ELF cross-check ------------------------------------------
    if elf:
        c.section(f"ELF symbols ({elf})")
        syms = elf_symbols(elf)
        want = {
            "startup_32": setup_size,
            "efi_pe_entry": entry_rva,
            "efi_handover_entry": handover_file,
            "kernel_info": ki,
        }
        for name, value in want.items():
            got = syms.get(name)
            c.show(name, got if got is not None else "missing")
            c.check(got == value, f"ELF symbol {name} = {hex(got) if got is not None else None}, header says 0x{value:x}")
        if "_end" in syms:
            c.check(syms["_end"] == image_end, f"ELF _end 0x{syms['_end']:x} != end of "
                    f"sections 0x{image_end:x}")
        if "_edata" in syms:
            c.check(syms["_edata"] == size, f"ELF _edata 0x{syms['_edata']:x} != file size")
        if "__bss_start" in syms and "__bss_end" in syms:
            c.show("bss", f"0x{syms['__bss_start']:x}..0x{syms['__bss_end']:x}", "{}")
            c.check(syms["__bss_start"] >= size and syms["__bss_end"] <= image_end,
                    "BSS not between the end of the file and the end of the image")
    return c


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("image")
    ap.add_argument("--elf", help="linked ELF to cross-check symbol values")
    ap.add_argument("--quiet", action="store_true", help="print only errors")
    args = ap.parse_args()
    c = check_image(args.image, args.elf, args.quiet)
    if c.errors:
        for e in c.errors:
            print(f"check-image: ERROR: {e}", file=sys.stderr)
        print(f"check-image: {args.image}: {len(c.errors)} error(s)", file=sys.stderr)
        return 1
    print(f"check-image: {args.image}: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
