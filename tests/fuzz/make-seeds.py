#!/usr/bin/env python3
"""Writes the seed corpora in tests/fuzz/corpus/<fuzzer>/ (committed; run
again after changing an input format). The encoders below mirror the
formats described at the top of each fuzz_*.c.

usage: tests/fuzz/make-seeds.py [PAYLOAD_BZIMAGE [TINY_BZIMAGE]]
  PAYLOAD_BZIMAGE  default build/payload.bzImage
  TINY_BZIMAGE     default the first ~/.cache/handover/kernels/tiny-*/bzImage
Missing images leave the bzimage seeds as they are; without the Secure Boot
fixtures (build/secure-boot, which make builds for the unit tests) the
secure_boot seeds that need keys are left as they are."""
import base64
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import types

TOP = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(TOP, "corpus")


def write(fuzzer, name, data):
    # fuzz_firmware32 reads fuzz_firmware's inputs, as an IA-32 firmware's
    # calls; fuzz_secure_boot32 fuzz_secure_boot's.
    for each in [fuzzer, fuzzer + "32"] if fuzzer in ("firmware", "secure_boot") else [fuzzer]:
        d = os.path.join(CORPUS, each)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


def u8(v): return struct.pack("<B", v & 0xff)
def u16(v): return struct.pack("<H", v & 0xffff)
def u32(v): return struct.pack("<I", v & 0xffffffff)
def u64(v): return struct.pack("<Q", v & 0xffffffffffffffff)


# ---- fuzz_firmware ----------------------------------------------------------

class A:
    """Argument encoders (arg() in fuzz_firmware.c)."""
    zero = b"\x00"
    ones = b"\x01"
    key = b"\x08"
    @staticmethod
    def small(v): return b"\x02" + u8(v)
    @staticmethod
    def scratch(off): return b"\x03" + u16(off)
    @staticmethod
    def ram16(v): return b"\x04" + u16(v // 16)
    @staticmethod
    def end(k): return b"\x05" + u8(k)
    @staticmethod
    def systab(off=0): return b"\x06" + u8(off)
    @staticmethod
    def handle(i): return u8(7 | i << 4)        # 0 image, 1 ConOut, 2 ConIn, 3 initrd, 4 RNG
    @staticmethod
    def raw(v): return b"\x09" + u64(v)
    @staticmethod
    def fwaddr(i): return u8(10 | i << 4)       # 0 systab 1 bs 2 rt 3 config 4 vendor 5 conout 6 conin ... 12 initrd LF2 13 initrd DP 14 RNG
    @staticmethod
    def raw32(v): return b"\x0b" + u32(v)
    @staticmethod
    def guid(i): return u8(12 | i << 4)         # 0 LoadedImage 1 LI devpath 2 devpath 3 ConOut 4 ConIn 5 global var 6 ACPI
    #                                             7 RNG 8 LoadFile2 9 initrd media 10 RNG raw algorithm
    #                                             11 SimpleFileSystem 12 FileInfo 13 FileSystemInfo 14 VolumeLabel
    #                                             15 TCG2
    @staticmethod
    def from_scratch(off): return b"\x0d" + u16(off)
    @staticmethod
    def const(i): return u8(14 | i << 4)
    @staticmethod
    def pt(off): return b"\x0f" + u16(off)


def fw_write(region, off, data):
    o = u32(off) if region == 3 else u16(off)
    return b"\x00" + u8(region) + o + u8(len(data)) + data


def fw_store(off, arg): return b"\x01" + u16(off) + arg


FW_EBS = b"\x02"


def fw_probe(addr, length): return b"\x0f" + addr + u8(length - 1)


def fw_fragment(count, page, type_byte=0): return b"\x07" + u8(count) + u16(page) + u8(type_byte)


def fw_svam(desc48, delta): return b"\x03" + u8(1 if desc48 else 0) + delta


def fw_call(id, regs=(), stack=(), rsp=None):
    regs = list(regs) + [A.zero] * (4 - len(regs))
    stack = list(stack) + [A.zero] * (4 - len(stack))
    out = b"\x04" + u16(id) + b"".join(regs)
    out += b"\x01" + rsp if rsp is not None else b"\x00"
    return out + b"".join(stack)


def thunk_ids():
    """The firmware's service IDs by their C names (BS_GET_MEMORY_MAP,
    CONOUT_OUTPUT_STRING, LOADFILE2, ...), read from firmware-stub's headers:
    a group's FW_ID_<GROUP>(i) base plus the service's place in its enum
    (services.h), and each fixed FW_ID_<NAME>."""
    headers = glob.glob(os.path.join(TOP, "..", "..", "firmware-stub", "**", "*.h"), recursive=True)
    text = "".join(open(h).read() for h in sorted(headers))
    bases = {g: int(b) for g, b in re.findall(r"^#define FW_ID_([A-Z0-9_]+)\(i\) +\((\d+) \+ \(i\)\)", text, re.M)}
    ids = {name: int(v) for name, v in re.findall(r"^#define FW_ID_([A-Z0-9_]+) +(\d+)\b", text, re.M)}
    for body in re.findall(r"^enum efi_\w+_service \{([^}]*)\}", text, re.M):
        names = [n.strip() for n in re.sub(r"/\*.*?\*/", "", body, flags=re.S).split(",") if n.strip()]
        for i, name in enumerate(names):
            if "=" in name:
                sys.exit(f"make-seeds.py: {name}: a service enum with set values")
            # the longest group the name starts with: BLOCK_IO_READ_BLOCKS is BLOCK_IO's
            group = max((g for g in bases if name.startswith(g + "_")), key=len, default=None)
            if group and name != group + "_COUNT":
                ids[name] = bases[group] + i
    for name in ("BS_GET_MEMORY_MAP", "RT_GET_TIME", "CONOUT_OUTPUT_STRING", "CONIN_READ_KEY_STROKE",
                 "RNG_GET_RNG", "LOADFILE2"):
        if name not in ids:
            sys.exit(f"make-seeds.py: no {name} in firmware-stub's headers")
    return types.SimpleNamespace(**ids)


ID = thunk_ids()


def ucs2(s): return s.encode("utf-16-le") + b"\0\0"


# GetMemoryMap(&size @0, map @0x100, &key @8, &dsize @16, &dver @24):
# the probe with size 0, then the real call with the size it returned.
GET_MAP = (fw_store(0, A.zero) +
           fw_call(ID.BS_GET_MEMORY_MAP, [A.scratch(0), A.scratch(0x100), A.scratch(8), A.scratch(16)], [A.scratch(24)]) +
           fw_call(ID.BS_GET_MEMORY_MAP, [A.scratch(0), A.scratch(0x100), A.scratch(8), A.scratch(16)], [A.scratch(24)]))
# ExitBootServices(ImageHandle, the key GetMemoryMap stored at scratch+8).
EBS_WITH_KEY = fw_call(ID.BS_EXIT_BOOT_SERVICES, [A.handle(0), A.from_scratch(8)])


def small_pe(subsystem=10):
    """The smallest PE32+ LoadImage takes: headers, no data directories,
    one executable section holding the entry (0x1000), no raw data; 240
    bytes to write (the rest of its 0x200 are zeros)."""
    f = bytearray(0xf0)
    f[0:2] = b"MZ"
    f[0x3c:0x40] = u32(0x40)
    f[0x40:0x44] = b"PE\0\0"
    f[0x44:0x58] = u16(0x8664) + u16(1) + u32(0) * 3 + u16(112) + u16(0x22)
    o = 0x58
    f[o:o + 2] = u16(0x20b)
    f[o + 16:o + 20] = u32(0x1000)                        # AddressOfEntryPoint
    f[o + 24:o + 40] = u64(0x10000000) + u32(0x1000) + u32(0x200)
    f[o + 56:o + 64] = u32(0x2000) + u32(0x200)           # SizeOfImage, SizeOfHeaders
    f[o + 68:o + 70] = u16(subsystem)
    f[0xc8:0xf0] = b".text\0\0\0" + u32(0x10) + u32(0x1000) + bytes(20) + u32(0x60000020)
    return bytes(f)


# LoadImage(FALSE, the top image, no path, the small PE at scratch+off,
# 0x200, &handle at scratch+h).
def fw_load_small_pe(off, h):
    return fw_call(ID.BS_LOAD_IMAGE, [A.zero, A.handle(0), A.zero, A.scratch(off)], [A.raw32(0x200), A.scratch(h)])


def image_seeds():
    """LoadImage, StartImage, Exit with ExitData, nested images, the entry's
    return, UnloadImage and the handle of an image gone."""
    app, driver = small_pe(), small_pe(11)
    exit_data = ucs2("bye")
    write("firmware", "images", b"\x00" +
          fw_write(0, 0x1000, app) + fw_write(0, 0x1400, driver) + fw_write(0, 0x300, exit_data) +
          fw_load_small_pe(0x1000, 0x20) +
          fw_call(ID.BS_HANDLE_PROTOCOL, [A.from_scratch(0x20), A.guid(0), A.scratch(0x40)]) +
          fw_call(ID.BS_START_IMAGE, [A.from_scratch(0x20), A.scratch(0x28), A.scratch(0x30)]) +
          fw_load_small_pe(0x1400, 0x38) +                                    # a driver, from inside it
          fw_call(ID.BS_START_IMAGE, [A.from_scratch(0x38), A.zero, A.zero]) +
          fw_call(ID.BS_START_IMAGE, [A.from_scratch(0x20), A.zero, A.zero]) +  # started already
          fw_call(ID.BS_EXIT, [A.from_scratch(0x20), A.zero, A.zero, A.zero]) +  # not the running one
          fw_call(ID.BS_EXIT, [A.from_scratch(0x38), A.raw(0x8000000000000007), A.zero, A.zero]) +
          fw_call(ID.BS_UNLOAD_IMAGE, [A.from_scratch(0x20)]) +               # running: refused
          fw_call(ID.BS_EXIT, [A.from_scratch(0x20), A.raw(0x8000000000000001), A.small(8), A.scratch(0x300)]) +
          fw_call(ID.BS_FREE_POOL, [A.from_scratch(0x30)]) +
          fw_call(ID.BS_HANDLE_PROTOCOL, [A.from_scratch(0x20), A.guid(0), A.scratch(0x40)]) +  # unloaded
          fw_call(ID.BS_OPEN_PROTOCOL, [A.from_scratch(0x20), A.guid(0), A.scratch(0x40), A.handle(0)],
                  [A.zero, A.small(2)]) +
          fw_load_small_pe(0x1000, 0x20) +
          fw_call(ID.BS_START_IMAGE, [A.from_scratch(0x20), A.zero, A.zero]) +
          fw_call(ID.START_IMAGE_RETURN) +                                    # its entry returns
          fw_load_small_pe(0x1000, 0x20) + fw_call(ID.BS_UNLOAD_IMAGE, [A.from_scratch(0x20)]) +
          fw_call(ID.START_IMAGE_RETURN))                                     # with none running: the end
    # A started image's loader calls ExitBootServices, then the image
    # returns from its entry: the map stays the kernel's.
    write("firmware", "image-returns-after-ebs", b"\x00" + fw_write(0, 0x1000, app) +
          fw_load_small_pe(0x1000, 0x20) +
          fw_call(ID.BS_START_IMAGE, [A.from_scratch(0x20), A.zero, A.zero]) +
          FW_EBS + fw_call(ID.START_IMAGE_RETURN))


def firmware_seeds():
    image_seeds()
    write("firmware", "memmap-ebs", b"\x00" + GET_MAP + EBS_WITH_KEY +
          fw_call(ID.RT_GET_TIME, [A.scratch(0x4000), A.scratch(0x4100)]) +  # GetTime after EBS
          fw_call(ID.BS_ALLOCATE_PAGES, [A.zero, A.small(2), A.small(1), A.scratch(0x30)]))  # a boot service after: refused
    write("firmware", "ebs-stale-key", b"\x00" + GET_MAP +
          fw_call(ID.BS_ALLOCATE_PAGES, [A.zero, A.small(2), A.small(1), A.scratch(0x30)]) +  # changes the map
          EBS_WITH_KEY + GET_MAP + EBS_WITH_KEY)
    # After ExitBootServices the runtime regions moved by -base+0xffffffff80000000.
    write("firmware", "svam", b"\x00" + GET_MAP + EBS_WITH_KEY +
          fw_svam(True, A.raw(0xffffffff00000000)) +
          fw_call(ID.RT_GET_TIME, [A.scratch(0x4000), A.zero]) +
          fw_svam(False, A.zero) +                                            # a second one: refused
          fw_call(ID.RT_RESET_SYSTEM, [A.small(2), A.zero]))
    write("firmware", "pages-pools", b"\x00" +
          fw_call(ID.BS_ALLOCATE_PAGES, [A.zero, A.small(2), A.small(4), A.scratch(0)]) +  # AllocatePages(Any, LoaderData, 4)
          fw_call(ID.BS_FREE_PAGES, [A.from_scratch(0), A.small(4)]) +
          fw_store(8, A.raw(0x800000)) +
          fw_call(ID.BS_ALLOCATE_PAGES, [A.small(2), A.small(1), A.small(16), A.scratch(8)]) +  # AllocatePages(Address 8 MiB)
          fw_store(16, A.raw(0xffffffff)) +
          fw_call(ID.BS_ALLOCATE_PAGES, [A.small(1), A.small(9), A.small(3), A.scratch(16)]) +  # AllocatePages(MaxAddress, ACPI reclaim)
          fw_call(ID.BS_ALLOCATE_POOL, [A.small(4), A.raw32(0x2345), A.scratch(24)]) +
          fw_call(ID.BS_FREE_POOL, [A.from_scratch(24)]) +
          fw_call(ID.BS_FREE_POOL, [A.zero]) +  # FreePool(NULL)
          fw_call(ID.BS_LOCATE_HANDLE_BUFFER, [A.small(2), A.guid(3), A.zero, A.scratch(32)], [A.scratch(40)]) +
          fw_call(ID.BS_LOCATE_HANDLE_BUFFER, [A.small(0), A.zero, A.zero, A.scratch(32)], [A.scratch(40)]) +
          fw_call(ID.BS_FREE_POOL, [A.from_scratch(40)]) + GET_MAP)
    dp_end = bytes([0x7f, 0xff, 4, 0])
    write("firmware", "protocols", b"\x00" +
          fw_call(ID.BS_HANDLE_PROTOCOL, [A.handle(0), A.guid(0), A.scratch(0)]) +  # HandleProtocol(LoadedImage)
          fw_call(ID.BS_HANDLE_PROTOCOL, [A.handle(1), A.guid(3), A.scratch(8)]) +
          fw_call(ID.BS_OPEN_PROTOCOL, [A.handle(0), A.guid(1), A.scratch(16), A.handle(0)], [A.zero, A.small(4)]) +
          fw_call(ID.BS_CLOSE_PROTOCOL, [A.handle(0), A.guid(1), A.handle(0), A.zero]) +
          fw_call(ID.BS_LOCATE_PROTOCOL, [A.guid(3), A.zero, A.scratch(24)]) +
          fw_call(ID.BS_LOCATE_HANDLE, [A.small(2), A.guid(0), A.zero, A.scratch(32)], [A.scratch(0x200)]) +  # LocateHandle probe
          fw_call(ID.BS_LOCATE_HANDLE, [A.small(2), A.guid(0), A.zero, A.scratch(32)], [A.scratch(0x200)]) +
          fw_write(0, 0x300, dp_end) + fw_store(40, A.scratch(0x300)) +
          fw_call(ID.BS_LOCATE_DEVICE_PATH, [A.guid(2), A.scratch(40), A.scratch(48)]) +
          fw_call(ID.BS_INSTALL_CONFIGURATION_TABLE, [A.guid(6), A.raw(0xe0000)]) +
          fw_call(ID.BS_INSTALL_CONFIGURATION_TABLE, [A.guid(5), A.raw(0xe1000)]) +
          fw_call(ID.BS_INSTALL_CONFIGURATION_TABLE, [A.guid(6), A.zero]) +  # and remove it
          fw_call(ID.BS_CALCULATE_CRC32, [A.systab(), A.small(120), A.scratch(56)]) +  # CalculateCrc32(systab)
          fw_call(ID.BS_COPY_MEM, [A.scratch(0x1000), A.systab(), A.small(120)]) +
          fw_call(ID.BS_SET_MEM, [A.scratch(0x1000), A.small(64), A.small(0xcc)]) +
          fw_call(ID.BS_GET_NEXT_MONOTONIC_COUNT, [A.scratch(64)]) +
          fw_call(ID.BS_RAISE_TPL, [A.small(16)]) + fw_call(ID.BS_RESTORE_TPL, [A.small(4)]) +
          fw_call(ID.BS_STALL, [A.small(1)]) + fw_call(ID.BS_SET_WATCHDOG_TIMER, [A.zero]) +
          fw_call(ID.BS_EXIT, [A.handle(0), A.raw(0x8000000000000001), A.small(8), A.scratch(0x300)]))
    name = ucs2("HandoverTest")
    write("firmware", "variables", b"\x04" +
          fw_write(0, 0x400, name) + fw_write(0, 0x480, b"\x01\x02\x03\x04") +
          fw_call(ID.RT_SET_VARIABLE, [A.scratch(0x400), A.guid(5), A.small(7), A.small(4)], [A.scratch(0x480)]) +
          fw_call(ID.RT_SET_VARIABLE, [A.scratch(0x400), A.guid(5), A.small(0x47), A.small(4)], [A.scratch(0x480)]) +  # append
          fw_store(0, A.zero) +
          fw_call(ID.RT_GET_VARIABLE, [A.scratch(0x400), A.guid(5), A.scratch(8), A.scratch(0)], [A.scratch(0x500)]) +  # probe
          fw_call(ID.RT_GET_VARIABLE, [A.scratch(0x400), A.guid(5), A.scratch(8), A.scratch(0)], [A.scratch(0x500)]) +
          fw_store(16, A.small(200)) + fw_write(0, 0x600, b"\0\0") +
          fw_call(ID.RT_GET_NEXT_VARIABLE_NAME, [A.scratch(16), A.scratch(0x600), A.scratch(0x700)]) +
          fw_call(ID.RT_GET_NEXT_VARIABLE_NAME, [A.scratch(16), A.scratch(0x600), A.scratch(0x700)]) +
          fw_call(ID.RT_QUERY_VARIABLE_INFO, [A.small(7), A.scratch(24), A.scratch(32), A.scratch(40)]) +
          GET_MAP + EBS_WITH_KEY +
          fw_call(ID.RT_GET_VARIABLE, [A.scratch(0x400), A.guid(5), A.scratch(8), A.scratch(0)], [A.scratch(0x500)]) +
          fw_call(ID.RT_SET_VARIABLE, [A.scratch(0x400), A.guid(5), A.zero, A.zero], [A.zero]))  # delete at runtime
    write("firmware", "console", b"\x08" +
          fw_write(0, 0x800, ucs2("Hello, \u00e9\u20ac world\r\n")) +
          fw_call(ID.CONOUT_OUTPUT_STRING, [A.fwaddr(5), A.scratch(0x800)]) +
          fw_call(ID.CONOUT_QUERY_MODE, [A.fwaddr(5), A.zero, A.scratch(0), A.scratch(8)]) +
          fw_call(ID.CONOUT_SET_MODE, [A.fwaddr(5), A.zero]) + fw_call(ID.CONOUT_CLEAR_SCREEN, [A.fwaddr(5)]) +
          fw_call(ID.CONIN_READ_KEY_STROKE, [A.fwaddr(6), A.scratch(16)]) +
          fw_call(ID.CONOUT_OUTPUT_STRING, [A.fwaddr(5), A.end(2)]) +  # a string off the end of RAM
          fw_call(200, [A.zero]) + fw_call(ID.BS_CREATE_EVENT, [A.zero]))  # an unknown ID; CreateEvent(0)
    # A full memory map: 256 one-page allocations two pages apart, then
    # frees across the fragments and a GetMemoryMap of the full map.
    write("firmware", "memmap-full", b"\x00" + fw_fragment(63, 0x300) +
          fw_call(ID.BS_FREE_PAGES, [A.raw(0x300000), A.raw(0x100)]) +
          fw_call(ID.BS_FREE_PAGES, [A.raw(0x301000), A.small(1)]) +
          fw_call(ID.BS_ALLOCATE_PAGES, [A.zero, A.small(2), A.small(1), A.scratch(0x30)]) + GET_MAP)
    # The initrd as the stub finds it: LocateDevicePath(LoadFile2,
    # VenMedia(LINUX_EFI_INITRD_MEDIA)/End), HandleProtocol, a size probe,
    # a pool of that size, the load.
    initrd_dp = bytes([4, 3, 20, 0]) + bytes.fromhex("27e46855fc683d4fac74ca555231cc68") + bytes([0x7f, 0xff, 4, 0])
    write("firmware", "initrd-loadfile2", u8(0x80) + u16(0x2fff) +
          fw_write(0, 0x300, initrd_dp) + fw_store(40, A.scratch(0x300)) +
          fw_call(ID.BS_LOCATE_DEVICE_PATH, [A.guid(8), A.scratch(40), A.scratch(48)]) +
          fw_call(ID.BS_HANDLE_PROTOCOL, [A.from_scratch(48), A.guid(8), A.scratch(56)]) +
          fw_store(64, A.zero) +
          fw_call(ID.LOADFILE2, [A.from_scratch(56), A.scratch(0x300), A.zero, A.scratch(64)], [A.zero]) +
          fw_call(ID.BS_ALLOCATE_POOL, [A.small(2), A.from_scratch(64), A.scratch(72)]) +
          fw_call(ID.LOADFILE2, [A.from_scratch(56), A.scratch(0x300), A.zero, A.scratch(64)], [A.from_scratch(72)]))
    write("firmware", "rng", b"\x00" + fw_call(ID.BS_LOCATE_PROTOCOL, [A.guid(7), A.zero, A.scratch(0)]) +
          fw_store(8, A.small(16)) +
          fw_call(ID.RNG_GET_INFO, [A.from_scratch(0), A.scratch(8), A.scratch(0x10)]) +
          fw_call(ID.RNG_GET_RNG, [A.from_scratch(0), A.guid(10), A.small(32), A.scratch(0x100)]) +
          fw_call(ID.RNG_GET_RNG, [A.from_scratch(0), A.zero, A.raw(0x100000), A.raw(0x400000)]) +
          fw_call(ID.RNG_GET_RNG, [A.from_scratch(0), A.guid(0), A.small(8), A.scratch(0x100)]))
    # --tpm: TCG2 found; GetCapability with a Size too small; an event into
    # PCR 9; the log handed out, so the next event goes to the final-events
    # table too; TPM2_PCR_Read of SHA-256 PCR 9 through SubmitCommand.
    event = u32(18 + 4) + u32(14) + u16(1) + u32(9) + u32(6) + b"evnt"
    pcr_read = bytes([0x80, 0x01, 0, 0, 0, 20, 0, 0, 0x01, 0x7e, 0, 0, 0, 1, 0, 0x0b, 3, 0, 2, 0])
    extend = fw_call(ID.TCG2_HASH_LOG_EXTEND_EVENT, [A.from_scratch(0), A.zero, A.scratch(0x300), A.small(20)],
                     [A.scratch(0x200)])
    write("firmware", "tcg2", b"\x08" + fw_call(ID.BS_LOCATE_PROTOCOL, [A.guid(15), A.zero, A.scratch(0)]) +
          fw_write(0, 0x200, event) + fw_write(0, 0x300, pcr_read) +
          fw_call(ID.TCG2_GET_CAPABILITY, [A.from_scratch(0), A.scratch(0x100)]) + extend +
          fw_call(ID.TCG2_GET_EVENT_LOG, [A.from_scratch(0), A.small(2), A.scratch(8), A.scratch(16)], [A.scratch(24)]) +
          extend +
          fw_call(ID.TCG2_SUBMIT_COMMAND, [A.from_scratch(0), A.small(20), A.scratch(0x300), A.small(200)],
                  [A.scratch(0x400)]))
    # --tpm, HashLogExtendEvent's flags and event types: PE_COFF_IMAGE of
    # bytes that are no image, EXTEND_ONLY, an EV_NO_ACTION event (logged,
    # not extended); then the log handed out and the same again into the
    # final-events table; SetActivePcrBanks with no bank and with SHA-256,
    # GetResultOfSetActivePcrBanks with a NULL Response.
    no_action = u32(18 + 4) + u32(14) + u16(1) + u32(0) + u32(3) + b"note"
    def hash_log_extend(flags, event_at):
        return fw_call(ID.TCG2_HASH_LOG_EXTEND_EVENT, [A.from_scratch(0), A.small(flags), A.scratch(0x300), A.small(20)],
                       [A.scratch(event_at)])
    extends = hash_log_extend(0x10, 0x200) + hash_log_extend(0x01, 0x200) + hash_log_extend(0, 0x280)
    write("firmware", "tcg2-flags", b"\x08" + fw_call(ID.BS_LOCATE_PROTOCOL, [A.guid(15), A.zero, A.scratch(0)]) +
          fw_write(0, 0x200, event) + fw_write(0, 0x280, no_action) + fw_write(0, 0x300, pcr_read) + extends +
          fw_call(ID.TCG2_GET_EVENT_LOG, [A.from_scratch(0), A.small(2), A.scratch(8), A.scratch(16)], [A.scratch(24)]) +
          extends +
          fw_call(ID.TCG2_SET_ACTIVE_PCR_BANKS, [A.from_scratch(0), A.zero]) +
          fw_call(ID.TCG2_SET_ACTIVE_PCR_BANKS, [A.from_scratch(0), A.small(2)]) +
          fw_call(ID.TCG2_GET_RESULT_OF_SET_ACTIVE_PCR_BANKS, [A.from_scratch(0), A.scratch(0x400), A.zero]))
    # Fault injection (specs through inject_parse), trace with a limit.
    specs = b"gmm-too-small:2\0ebs-stale-key\0alloc-pool-fail:1\0"
    write("firmware", "inject", u8(0x10 | 0x08 | 0x20) + u8(3) + specs + GET_MAP + GET_MAP + EBS_WITH_KEY +
          GET_MAP + EBS_WITH_KEY)
    write("firmware", "inject-more", u8(0x10) + u8(3) + b"alloc-pages-above:0x1000000\0no-loaded-image\0getvar-error:\0" +
          fw_call(ID.BS_ALLOCATE_PAGES, [A.zero, A.small(2), A.small(4), A.scratch(0)]) +
          fw_call(ID.BS_HANDLE_PROTOCOL, [A.handle(0), A.guid(0), A.scratch(8)]) +
          fw_call(ID.RT_GET_VARIABLE, [A.scratch(0x400), A.guid(5), A.scratch(8), A.scratch(0)], [A.scratch(0x500)]))
    # Through page tables: the default identity tables, then one PD entry
    # moved and a call whose stack and buffers go through them.
    tables = u8(1) + u8(2) + u16(1) + u8(1) + u16(0x400) + u16(0x83) + u8(0)
    write("firmware", "paging", b"\x01" + tables + GET_MAP + FW_EBS +
          fw_call(ID.RT_GET_TIME, [A.raw(0x200000 + 0x4000), A.zero]) +
          fw_call(ID.RT_GET_TIME, [A.raw(0x4000), A.zero], rsp=A.raw(0x7ff000)))
    # Hostile tables: the PD filled with 2 MiB pages all at 0, the PDPT
    # with pointers to it, PML4 entry 1 a pointer to the PML4 itself; probes
    # and small calls through them.
    alias = (u8(3) + u8(2) + u16(0) + u8(0x81) + u8(0) + u8(1) + u16(0) + u8(4) + u8(2) +
             u8(0) + u16(1) + u8(0) + u8(0) + u16(0x3) + u8(0))
    write("firmware", "paging-alias", b"\x01" + alias +
          fw_probe(A.raw(0x7fffff0), 64) + fw_probe(A.raw(0x8000001ff8), 16) + fw_probe(A.raw(0xffff800000000000), 8) +
          fw_call(ID.BS_SET_MEM, [A.raw(0x3ff000), A.raw(0x2000), A.small(0x11)]) +
          fw_call(ID.BS_CALCULATE_CRC32, [A.raw(0x40000000), A.raw(0x400000), A.raw(0x100)]) +
          fw_call(ID.RT_GET_TIME, [A.raw(0x8000000100), A.zero], rsp=A.raw(0x80001ff000)))
    # The --esp volume's root (at scratch 0x50): its handle by
    # LocateHandle(SimpleFileSystem), the protocol, OpenVolume.
    esp_root = (b"\x00" + fw_store(0x40, A.raw(0x100)) +
                fw_call(ID.BS_LOCATE_HANDLE, [A.small(2), A.guid(11), A.zero, A.scratch(0x40)], [A.scratch(0x200)]) +
                fw_call(ID.BS_HANDLE_PROTOCOL, [A.from_scratch(0x200), A.guid(11), A.scratch(0x48)]) +
                fw_call(ID.FILE_SYSTEM, [A.from_scratch(0x48), A.scratch(0x50)]))
    # The --esp volume: its root, a directory read, the volume's info, a file
    # written (to the overlay) and positioned at its end.
    write("firmware", "esp-files", esp_root +
          fw_write(0, 0x300, ucs2("\\loader\\entries")) +
          fw_call(ID.FILE_OPEN, [A.from_scratch(0x50), A.scratch(0x58), A.scratch(0x300), A.small(1)], [A.zero]) +
          fw_store(0x60, A.small(0x40)) +
          fw_call(ID.FILE_READ, [A.from_scratch(0x58), A.scratch(0x60), A.scratch(0x400)]) +   # too small: the size
          fw_call(ID.FILE_READ, [A.from_scratch(0x58), A.scratch(0x60), A.scratch(0x400)]) +
          fw_store(0x60, A.raw(0x100)) +
          fw_call(ID.FILE_GET_INFO, [A.from_scratch(0x50), A.guid(13), A.scratch(0x60), A.scratch(0x400)]) +
          fw_write(0, 0x380, ucs2("hello.txt")) +
          fw_call(ID.FILE_OPEN, [A.from_scratch(0x50), A.scratch(0x68), A.scratch(0x380), A.small(3)], [A.zero]) +
          fw_store(0x70, A.small(5)) +
          fw_call(ID.FILE_WRITE, [A.from_scratch(0x68), A.scratch(0x70), A.scratch(0x300)]) +
          fw_call(ID.FILE_SET_POSITION, [A.from_scratch(0x68), A.raw(0xffffffffffffffff)]) +
          fw_call(ID.FILE_GET_POSITION, [A.from_scratch(0x68), A.scratch(0x78)]) +
          fw_call(ID.FILE_CLOSE, [A.from_scratch(0x68)]))
    # The --esp volume changed and read as a disk: a file resized and
    # renamed (SetInfo), the label set, Flush; then the disk's BlockIo
    # (LocateHandle by its GUID, written to scratch) read whole blocks
    # from the rebuilt disk, a write refused, the file deleted and a
    # directory created.
    block_io = struct.pack("<IHH8B", 0x964e5b21, 0x6459, 0x11d2, 0x8e, 0x39, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b)
    write("firmware", "esp-info-blocks", esp_root +
          fw_write(0, 0x380, ucs2("hello.txt")) +
          fw_call(ID.FILE_OPEN, [A.from_scratch(0x50), A.scratch(0x68), A.scratch(0x380), A.small(3)], [A.zero]) +
          fw_store(0x60, A.raw(0x100)) +
          fw_call(ID.FILE_GET_INFO, [A.from_scratch(0x68), A.guid(12), A.scratch(0x60), A.scratch(0x400)]) +
          fw_write(0, 0x400, u64(80 + 16) + u64(3)) + fw_write(0, 0x400 + 80, ucs2("bye.txt")) +
          fw_call(ID.FILE_SET_INFO, [A.from_scratch(0x68), A.guid(12), A.small(80 + 16), A.scratch(0x400)]) +
          fw_write(0, 0x500, ucs2("FUZZ")) +
          fw_call(ID.FILE_SET_INFO, [A.from_scratch(0x50), A.guid(14), A.small(10), A.scratch(0x500)]) +
          fw_call(ID.FILE_FLUSH, [A.from_scratch(0x68)]) +
          fw_write(0, 0x600, block_io) + fw_store(0x80, A.raw(0x100)) +
          fw_call(ID.BS_LOCATE_HANDLE, [A.small(2), A.scratch(0x600), A.zero, A.scratch(0x80)], [A.scratch(0x700)]) +
          fw_call(ID.BS_HANDLE_PROTOCOL, [A.from_scratch(0x700), A.scratch(0x600), A.scratch(0x88)]) +
          fw_call(ID.BLOCK_IO_READ_BLOCKS, [A.from_scratch(0x88), A.zero, A.zero, A.raw(0x1000)], [A.scratch(0x1000)]) +
          fw_call(ID.BLOCK_IO_READ_BLOCKS, [A.from_scratch(0x88), A.zero, A.raw(2048), A.raw(0x2000)],
                  [A.scratch(0x2000)]) +
          fw_call(ID.BLOCK_IO_WRITE_BLOCKS, [A.from_scratch(0x88), A.zero, A.zero, A.raw(0x200)], [A.scratch(0x1000)]) +
          fw_call(ID.BLOCK_IO_FLUSH_BLOCKS, [A.from_scratch(0x88)]) +
          fw_call(ID.BLOCK_IO_RESET, [A.from_scratch(0x88), A.zero]) +
          fw_call(ID.FILE_DELETE, [A.from_scratch(0x68)]) +
          fw_write(0, 0x800, ucs2("newdir")) +
          fw_call(ID.FILE_OPEN, [A.from_scratch(0x50), A.scratch(0x90), A.scratch(0x800), A.raw(0x8000000000000003)],
                  [A.small(0x10)]) +
          fw_call(ID.FILE_CLOSE, [A.from_scratch(0x90)]))
    write("firmware", "paging-la57", b"\x03" + u8(0) + u8(0) +
          fw_call(ID.BS_GET_MEMORY_MAP, [A.scratch(0), A.scratch(0x100), A.scratch(8), A.scratch(16)], [A.scratch(24)]))


# ---- fuzz_devices -----------------------------------------------------------

def uart(reg): return u8((reg & 7) << 2 | 0)
def i8042(port): return u8(((port - 0x60) % 5) << 2 | 1)
def lowport(port): return u8(((port - 0xf0) % 8 if port < 0x600 else port - 0x600 + 8) << 2 | 2)


def outb(sel, v): return sel + u8(1) + u32(v)
def inb(sel): return sel + u8(0)


def devices_seeds():
    IER, IIR, FCR, LCR, MCR, LSR, MSR, SCR = 1, 2, 2, 3, 4, 5, 6, 7
    # 8250 autoconfig (drivers/tty/serial/8250/8250_port.c): IER probe,
    # loopback probe, FIFO/EFR probe, scratch register, then startup and a
    # few transmitted bytes with the THRE interrupt on.
    probe = (inb(uart(IER)) + outb(uart(IER), 0) + inb(uart(IER)) + outb(uart(IER), 0x0f) + inb(uart(IER)) +
             outb(uart(IER), 0) +
             inb(uart(MCR)) + outb(uart(MCR), 0x1a) + inb(uart(MSR)) + outb(uart(MCR), 0) +
             outb(uart(LCR), 0xbf) + outb(uart(2), 0) + outb(uart(LCR), 0) + outb(uart(FCR), 1) + inb(uart(IIR)) +
             outb(uart(LCR), 0xbf) + inb(uart(2)) + outb(uart(LCR), 0x80) + inb(uart(0)) + inb(uart(1)) +
             outb(uart(0), 0x01) + outb(uart(1), 0x00) + outb(uart(LCR), 0x03) +
             outb(uart(SCR), 0xa5) + inb(uart(SCR)) + outb(uart(SCR), 0x5a) + inb(uart(SCR)) +
             outb(uart(FCR), 0x07) + outb(uart(FCR), 0) + inb(uart(LSR)) + inb(uart(0)) + inb(uart(IIR)) +
             inb(uart(MSR)) + outb(uart(MCR), 0x0b) + outb(uart(IER), 0x02) + inb(uart(IIR)) + inb(uart(IIR)))
    tx = b"".join(inb(uart(LSR)) + outb(uart(0), c) for c in b"ok\n")
    write("devices", "8250-autoconfig", b"\x00" + probe + tx)
    write("devices", "i8042-reset", b"\x00" + inb(i8042(0x64)) + outb(i8042(0x64), 0xfe) + outb(lowport(0xf4), 3))
    write("devices", "exit-port", b"\x00" + outb(uart(0), ord("x")) + outb(lowport(0xf4), 0x2a) +
          inb(lowport(0xf4)) + outb(i8042(0x64), 0xfe))
    # PM1_CNT at 0x604 (SCI_EN; SLP_TYPx 5 and SLP_EN in its high byte), the reset register at 0x606.
    write("devices", "acpi-s5", b"\x00" + inb(lowport(0x604)) + inb(lowport(0x600)) + outb(lowport(0x605), 0x14) +
          lowport(0x604) + u8(1 << 1 | 1) + u32(0x3401) + outb(lowport(0x606), 6))
    write("devices", "acpi-reset", b"\x00" + outb(lowport(0x606), 6) + outb(lowport(0x605), 0x34))
    # Wide accesses and unclaimed ports; two extra devices first.
    wide = (u8(3) + u16(0x3fe) + u8(4 << 1 | 0) + u8(3) + u16(0x3fd) + u8(2 << 1 | 1) + u32(0x12345678) +
            u8(3) + u16(0x80) + u8(0) + u8(3) + u16(0xcf8) + u8(4 << 1 | 1) + u32(0x80000000) +
            u8(3) + u16(0x2f8) + u8(0))
    write("devices", "wide-extra", b"\x01" + u8(2) + u16(0x2f8) + u8(7) + u16(0x3f0) + u8(9) + wide)


# ---- fuzz_emulate -----------------------------------------------------------

REGS = ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rsp", "rbp",
        "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip", "rflags"]


def emulate(code, any_read=False, base=0x7000, mem=b"", **regs):
    r = dict.fromkeys(REGS, 0)
    r.update(rip=0xffffffff81000000, rflags=0x2, rsp=0x9000)
    r.update(regs)
    out = u8(len(code)) + code.ljust(15, b"\x90") + u8(1 if any_read else 0) + u64(base)
    out += b"".join(u64(r[n]) for n in REGS)
    return out + mem.ljust(64, b"\0")


def emulate_seeds():
    mxcsr = u32(0x1f80)
    write("emulate", "int3", emulate(b"\xcc"))
    write("emulate", "fwait", emulate(b"\x9b"))
    write("emulate", "clac", emulate(b"\x0f\x01\xca", rflags=0x40002))
    write("emulate", "stac", emulate(b"\x0f\x01\xcb"))
    write("emulate", "fninit", emulate(b"\xdb\xe3"))
    write("emulate", "popcnt-rax-rcx", emulate(b"\xf3\x48\x0f\xb8\xc1", rcx=0xf0f0))
    write("emulate", "popcnt-16", emulate(b"\xf3\x66\x0f\xb8\xc1", rcx=0x1ffff))
    write("emulate", "popcnt-r9d-r10d", emulate(b"\xf3\x45\x0f\xb8\xca", r10=0))
    write("emulate", "ldmxcsr-rax", emulate(b"\x0f\xae\x10", rax=0x7000, mem=mxcsr))
    write("emulate", "ldmxcsr-rsp-disp8", emulate(b"\x0f\xae\x54\x24\x08", rsp=0x6ff8, mem=mxcsr))
    write("emulate", "ldmxcsr-r8-disp32", emulate(b"\x41\x0f\xae\x90\x10\x00\x00\x00", r8=0x6ff0, mem=mxcsr))
    write("emulate", "ldmxcsr-rip", emulate(b"\x0f\xae\x15\x00\x00\x00\x00", base=0xffffffff81000007, mem=mxcsr))
    write("emulate", "ldmxcsr-sib", emulate(b"\x0f\xae\x14\x8b", rbx=0x6000, rcx=0x400, mem=mxcsr))
    write("emulate", "ldmxcsr-reserved", emulate(b"\x0f\xae\x10", rax=0x7000, mem=u32(0x10000)))
    write("emulate", "xsave-none", emulate(b"\x0f\xae\x20", rax=0x7000))


# ---- fuzz_ktap --------------------------------------------------------------

def ktap_seeds():
    write("ktap", "kunit-run", b"""\
[    0.812345] KTAP version 1
[    0.812346] 1..2
[    0.812400]     KTAP version 1
[    0.812401]     # Subtest: example
[    0.812402]     # module: kunit_example_test
[    0.812403]     1..3
[    0.812500]     ok 1 example_simple_test
[    0.812600]     # example_skip_test: initializing
[    0.812601]     ok 2 example_skip_test # SKIP this test should be skipped
[    0.812700]     # example_fail_test: EXPECTATION FAILED at lib/kunit/kunit-example-test.c:42
[    0.812701]     not ok 3 example_fail_test
[    0.812702]         KTAP version 1
[    0.812703]         # Subtest: example_params_test
[    0.812704]         ok 1 example value 3
[    0.812705]     ok 4 example_params_test
[    0.812800] # example: pass:2 fail:1 skip:1 total:4
[    0.812801] # Totals: pass:2 fail:1 skip:1 total:4
[    0.812802] not ok 1 example
[    0.812900]     # Subtest: list-kunit-test
[    0.812901]     1..1
[    0.812902]     ok 1 list_test_list_init
[    0.812903] ok 2 list-kunit-test
[    0.813000] reboot: Restarting system
""")
    write("ktap", "tap14-no-header", b"TAP version 14\n1..1\nok 1 - unnamed suite # SKIP\n\n1..5\n")
    write("ktap", "before-start", b"    # Subtest: x\nok 1 x\nKTAP version 1\n1..-1\nnot ok 7 y # TODO\n")


def bzimage_seeds(payload, tiny):
    if payload and os.path.isfile(payload):
        with open(payload, "rb") as f:
            b = bytearray(f.read())
        write("bzimage", "payload.bzImage", bytes(b))
        # Its .data as a mixed-mode kernel's .compat section: one IA-32
        # entry (type 1, size 8, machine 0x14c) into .text, then the end.
        i = b.index(b".data\0\0\0", 0, 0x1000)
        b[i:i + 8] = b".compat\0"
        raw = struct.unpack_from("<I", b, i + 20)[0]
        b[raw:raw + 9] = u8(1) + u8(8) + u16(0x14c) + u32(0x1000) + u8(0)
        write("bzimage", "payload-compat.bzImage", bytes(b))
    if tiny and os.path.isfile(tiny):
        with open(tiny, "rb") as f:
            write("bzimage", "tiny-header-16k", f.read(16384))


def pe32_seed(f, o, sections, image_base):
    """The same image as IA-32's PE32 (test_pe.c build_pe32): Machine 0x14c,
    Magic 0x10b, a 4-byte ImageBase at 28, the data directories at 96
    (SizeOfOptionalHeader 224), every relocation HIGHLOW."""
    opt_size = 224
    f[0x44:0x46] = u16(0x14c)
    f[0x54:0x56] = u16(opt_size)
    f[o:0x200] = bytes(0x200 - o)
    f[o:o + 2] = u16(0x10b)
    f[o + 16:o + 20] = u32(0x1020)
    f[o + 28:o + 40] = u32(image_base) + u32(0x1000) + u32(0x200)
    f[o + 56:o + 64] = u32(0x5000) + u32(0x200)
    f[o + 68:o + 72] = u16(10) + u16(0x100)
    f[o + 92:o + 96] = u32(16)
    f[o + 136:o + 144] = u32(0x4000) + u32(0x1c)          # Base Relocation Table
    for i, (name, va, vsize, raw, flags) in enumerate(sections):
        s = o + opt_size + 40 * i
        f[s:s + 40] = name.ljust(8, b"\0") + u32(vsize) + u32(va) + u32(0x200) + u32(raw) + bytes(12) + u32(flags)
    f[0x600:0x61c] = (u32(0x1000) + u32(12) + u16(3 << 12 | 0x10) + u16(0) +
                      u32(0x2000) + u32(16) + u16(3 << 12) + u16(3 << 12 | 8) + u16(3 << 12 | 0x18) + u16(0))
    write("pe", "pe32-highlow", bytes(f))


def pe_seeds():
    """fuzz_pe: a PE32+ EFI application as tests/unit/test_pe.c builds it
    (.text, .data with a BSS tail, a .reloc with DIR64, HIGHLOW and ABSOLUTE
    entries), the same without relocations and as PE32, and the payload's
    EFI stub."""
    opt_size, image_base = 240, 0x100000
    f = bytearray(0x800)
    f[0:2] = b"MZ"
    f[0x3c:0x40] = u32(0x40)
    f[0x40:0x44] = b"PE\0\0"
    f[0x44:0x58] = u16(0x8664) + u16(3) + u32(0) * 3 + u16(opt_size) + u16(0x206)
    o = 0x58
    f[o:o + 2] = u16(0x20b)
    f[o + 16:o + 20] = u32(0x1020)                        # AddressOfEntryPoint
    f[o + 24:o + 40] = u64(image_base) + u32(0x1000) + u32(0x200)
    f[o + 56:o + 64] = u32(0x5000) + u32(0x200)           # SizeOfImage, SizeOfHeaders
    f[o + 68:o + 72] = u16(10) + u16(0x100)               # EFI application, NX_COMPAT
    f[o + 108:o + 112] = u32(16)
    f[o + 152:o + 160] = u32(0x4000) + u32(0x1c)          # Base Relocation Table
    sections = [(b".text", 0x1000, 0x200, 0x200, 0x60000020),
                (b".data", 0x2000, 0x1800, 0x400, 0xc0000040),
                (b".reloc", 0x4000, 0x200, 0x600, 0x42000040)]
    for i, (name, va, vsize, raw, flags) in enumerate(sections):
        s = o + opt_size + 40 * i
        f[s:s + 40] = name.ljust(8, b"\0") + u32(vsize) + u32(va) + u32(0x200) + u32(raw) + bytes(12) + u32(flags)
    f[0x210:0x218] = u64(image_base + 0x2000)
    f[0x400:0x418] = u64(image_base + 0x1000) + u64(image_base + 0x2100) + u64(0x1122334455667788)
    f[0x418:0x41c] = u32(image_base + 0x1234)
    f[0x600:0x61c] = (u32(0x1000) + u32(12) + u16(10 << 12 | 0x10) + u16(0) +
                      u32(0x2000) + u32(16) + u16(10 << 12) + u16(10 << 12 | 8) + u16(3 << 12 | 0x18) + u16(0))
    write("pe", "reloc-dir64-highlow", bytes(f))
    f[o + 152:o + 160] = u64(0)
    write("pe", "no-relocs", bytes(f))
    pe32_seed(f, o, sections, image_base)
    payload = os.path.join(CORPUS, "bzimage", "payload.bzImage")
    if os.path.isfile(payload):
        with open(payload, "rb") as src:
            write("pe", "payload.bzImage", src.read())


# ---- fuzz_devpath -----------------------------------------------------------

def dp_addr_scratch(off): return u8(0) + u16(off)
DP_ADDR_INITRD = u8(2)
def dp_addr_ram_end(back): return u8(1) + u8(back)


def dp_node(type_, sub, data): return u8(type_) + u8(sub) + u8(len(data)) + data


def dp_path(off, nodes, no_end=False, raw_last_len=None, end_instance=False):
    count = len(nodes) | (0x10 if no_end else 0) | (0x20 if raw_last_len is not None else 0) | \
        (0x40 if end_instance else 0)
    out = b""
    for i, n in enumerate(nodes):
        out += n
        if raw_last_len is not None and i == len(nodes) - 1:
            out = out[:-len(n)] + n[:3] + u16(raw_last_len) + n[3:]
    return u8(1) + u16(off) + u8(count) + out


def dp_copy(addr): return u8(2) + addr
def dp_install(addr, handle=0, multiple=False, second=0): return u8(3) + addr + u8(handle) + u8((second << 1) | multiple)
def dp_locate(guid, addr): return u8(4) + u8(guid) + addr


def dp_load(flags=0, addr=b"", size=None):
    return u8(5) + u8(flags) + (addr if not flags & 1 else b"") + (u16(size) if flags & 8 else b"")


def dp_unload(c=0): return u8(6) + u8(c)
def dp_uninstall(c=0): return u8(7) + u8(c)


def devpath_seeds():
    stub_payload = bytes.fromhex("b7b0e3b2d1784e4fb6c5e4bba4a9dbfa")
    acpi = dp_node(2, 1, u32(0x0a0341d0) + u32(0))                      # PciRoot(0)
    pci = dp_node(1, 1, u8(0) + u8(3))                                  # Pci(3,0)
    hd = dp_node(4, 1, u32(1) + u64(2048) + u64(204800) + bytes(16) + u8(2) + u8(2))   # HD(1,GPT,...)
    file_ = dp_node(4, 4, ucs2("\\EFI\\BOOT\\BOOTX64.EFI"))
    write("devpath", "load-vendor-media", b"\x00" + dp_path(0, [dp_node(4, 3, stub_payload)]) +
          dp_copy(dp_addr_scratch(0)) + dp_load(0, dp_addr_scratch(0)) + dp_load(1) + dp_unload(0))
    # A disk's path on a handle of its own, then the loader's full path:
    # LocateDevicePath finds the disk, LoadImage splits the path there.
    write("devpath", "disk-then-file", b"\x00" +
          dp_path(0x100, [acpi, pci, hd]) + dp_install(dp_addr_scratch(0x100)) +
          dp_path(0x400, [acpi, pci, hd, file_]) + dp_copy(dp_addr_scratch(0x400)) +
          dp_locate(0, dp_addr_scratch(0x400)) + dp_load(0, dp_addr_scratch(0x400)) +
          dp_path(0x800, [acpi, pci]) + dp_install(dp_addr_scratch(0x800), multiple=True, second=0) +
          dp_load(4, dp_addr_scratch(0x400)) + dp_uninstall(1) + dp_load(0, dp_addr_scratch(0x400)) +
          dp_unload(0) + dp_unload(1))
    write("devpath", "initrd-media", b"\x01" + dp_copy(DP_ADDR_INITRD) + dp_locate(1, DP_ADDR_INITRD) +
          dp_locate(0, DP_ADDR_INITRD) + dp_load(0, DP_ADDR_INITRD) +
          dp_install(DP_ADDR_INITRD, multiple=True) + dp_install(DP_ADDR_INITRD, handle=1))
    write("devpath", "malformed", b"\x00" +
          dp_path(0, [acpi, dp_node(1, 1, b"")], raw_last_len=0) + dp_copy(dp_addr_scratch(0)) +
          dp_load(0, dp_addr_scratch(0)) + dp_locate(0, dp_addr_scratch(0)) +
          dp_path(0x100, [acpi], no_end=True) + dp_copy(dp_addr_scratch(0x100)) +
          dp_path(0x200, [acpi, dp_node(4, 4, bytes(200))], raw_last_len=1020) + dp_copy(dp_addr_scratch(0x200)) +
          dp_path(0x600, [dp_node(4, 4, bytes(250))] * 4) + dp_copy(dp_addr_scratch(0x600)) +
          dp_copy(dp_addr_ram_end(3)) + dp_copy(u8(3) + u64(0x1000)) +
          dp_install(dp_addr_scratch(0), multiple=True))
    write("devpath", "end-instance", b"\x00" + dp_path(0x40, [acpi, pci, hd], end_instance=True) +
          dp_copy(dp_addr_scratch(0x40)) + dp_install(dp_addr_scratch(0x40)) +
          dp_path(0x300, [acpi]) + dp_install(dp_addr_scratch(0x300), handle=2) +
          dp_locate(0, dp_addr_scratch(0x40)) + dp_load(0, dp_addr_scratch(0x40)))
    # Ties (the same path on two handles) and images from scratch bytes.
    write("devpath", "ties-and-scratch-image", b"\x00" + dp_path(0, [acpi, pci]) +
          dp_install(dp_addr_scratch(0)) + dp_install(dp_addr_scratch(0)) +
          dp_install(dp_addr_scratch(0), multiple=True) +
          dp_path(0x100, [acpi, pci, file_]) + dp_locate(0, dp_addr_scratch(0x100)) +
          dp_load(8, dp_addr_scratch(0x100), size=0x600) + dp_load(2, dp_addr_scratch(0x100)) +
          b"".join(dp_load(0, dp_addr_scratch(0x100)) for _ in range(9)))


# ---- fuzz_events ------------------------------------------------------------

EV_TYPES = {"none": 0, "timer": 1, "wait": 2, "signal": 3, "timer|wait": 4, "timer|signal": 5, "ebs": 6, "vac": 7}


def ev_header(keys=b"", to_firmware=True, errlen=127):
    return u8(1 if to_firmware else 0) + u8(errlen) + u8(len(keys)) + keys


def ev_create(type_="none", tpl=0, notify=0, ptr=0): return u8(0) + u8(EV_TYPES[type_]) + u8(tpl) + u8(notify) + u8(ptr)


def ev_create_ex(group, type_="none", tpl=0, notify=0, ptr=0):
    return u8(1) + u8(EV_TYPES[type_]) + u8(tpl) + u8(notify) + u8(ptr) + u8(group)


def ev_set_timer(ev, kind, trigger):   # trigger: 0, "never", or a u64
    if trigger == 0:
        return u8(2) + u8(ev) + u8(kind) + u8(0)
    if trigger == "never":
        return u8(2) + u8(ev) + u8(kind) + u8(1)
    return u8(2) + u8(ev) + u8(kind) + u8(2) + u64(trigger)


def ev_signal(ev): return u8(3) + u8(ev)
def ev_check(ev): return u8(4) + u8(ev)
def ev_wait(evs, ptr=0): return u8(5) + u8(len(evs)) + b"".join(u8(e) for e in evs) + u8(ptr)
def ev_close(ev): return u8(6) + u8(ev)
def ev_read_key(ptr=0): return u8(7) + u8(0) + u8(ptr)
def ev_raise_tpl(t): return u8(7) + u8(1) + u8(t)
def ev_restore_tpl(t): return u8(7) + u8(2) + u8(t)


def events_seeds():
    # A boot menu: wait for a key, read it, until the keys run out.
    write("events", "keys-menu", ev_header(b"\\D\\D\\n") +
          b"".join(ev_wait([0]) + ev_read_key() for _ in range(4)) + ev_check(0) + ev_wait([0]))
    write("events", "keys-utf8-escapes", ev_header("é€x\\e\\U\\L\\R\\t\\b\\\\\n\\r".encode()) +
          b"".join(ev_read_key(p) for p in (0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
    write("events", "keys-bad", ev_header(b"ab\\q", errlen=20) + ev_check(0) + ev_read_key())
    write("events", "keys-lone-backslash", ev_header(b"\xe2\x82\\", errlen=5) + ev_read_key())
    write("events", "keys-malformed-utf8", ev_header(b"\xc0\xaf\xed\xa0\x80\xf0\x9f\x98\x80\xff\xe2\x28") +
          b"".join(ev_read_key() for _ in range(10)))
    # Timers: due at once, periodic 0, cancelled, never; WaitForEvent on them.
    write("events", "timers", ev_header() + ev_create("timer") + ev_create("timer") + ev_create("timer") +
          ev_set_timer(1, 2, 0) + ev_wait([1]) + ev_check(1) +
          ev_set_timer(2, 1, 0) + ev_check(2) + ev_check(2) + ev_set_timer(2, 0, 0) + ev_check(2) +
          ev_set_timer(3, 2, "never") + ev_wait([3, 0]) + ev_set_timer(3, 1, 1 << 60) + ev_wait([3]) +
          ev_set_timer(0, 2, 0) + ev_set_timer(0, 3, 0))
    write("events", "groups", ev_header() + ev_create_ex(1) + ev_create_ex(1, "timer") + ev_create_ex(2) +
          ev_create_ex(1) + ev_create_ex(4) + ev_create_ex(1, "ebs", 8, 1) +
          ev_signal(1) + ev_check(2) + ev_check(3) + ev_check(4) + ev_check(1) +
          ev_set_timer(2, 2, 0) + ev_wait([3, 4, 1]) + ev_close(4) + ev_signal(2) + ev_check(4) + ev_check(1))
    write("events", "notify-and-tpl", ev_header() + ev_create("signal", 8, 1) + ev_create("wait", 4, 1) +
          ev_create("timer|signal", 16, 0) + ev_create("vac", 16, 1) + ev_create("none", 0, 0, 1) +
          ev_create("none", 0, 0, 2) + ev_create("none", 0, 0, 3) + u8(0) + u8(0xc1) + u32(0x80000200) +
          u8(8) + u8(1) + u8(0) +
          ev_raise_tpl(16) + ev_wait([0]) + ev_raise_tpl(40) + ev_restore_tpl(4) + ev_wait([0], 1) +
          ev_wait([0], 2) + u8(5) + u8(8) + u8(0) + u8(5) + u8(9) + u8(0))
    write("events", "close-and-spent", ev_header() + ev_create() + ev_close(1) + ev_signal(1) + ev_check(1) +
          ev_close(1) + ev_close(0) + ev_check(0) + ev_wait([1, 0]) + ev_check(0xf0) + ev_check(0xf1) +
          ev_check(0xf2) + ev_check(0xf3) + b"".join(ev_create() for _ in range(100)) + ev_signal(95) +
          ev_wait([7, 95]))
    # More events made than there are slots, one closed each time: once all
    # are used, the closed one's slot is made again (events.c).
    write("events", "close-and-reuse", ev_header() +
          b"".join(ev_create("timer") + ev_set_timer(1, 2, "never") + ev_close(1) for _ in range(120)) +
          ev_signal(1) + ev_check(1))


# ---- fuzz_notify ------------------------------------------------------------

NT_TYPES = {"signal": 0, "wait": 1, "timer|signal": 2, "timer|wait": 3, "ebs": 4, "timer": 5}
NT_TPLS = {8: 0, 16: 1, 30: 2}   # other TPLs: the byte itself, a multiple of 4 plus 3
NT_LEVELS = {4: 0, 8: 1, 16: 2, 31: 3}   # RaiseTPL and RestoreTPL


def nt_create(type_="signal", tpl=8, group=0): return u8(0) + u8(NT_TYPES[type_]) + u8(NT_TPLS.get(tpl, tpl)) + u8(group)
def nt_signal(ev): return u8(1) + u8(ev)
def nt_check(ev): return u8(2) + u8(ev)
def nt_wait(evs): return u8(3) + u8(len(evs) - 1) + b"".join(u8(e) for e in evs)
def nt_close(ev): return u8(4) + u8(ev)
def nt_raise(tpl): return u8(5) + u8(1) + u8(NT_LEVELS[tpl])
def nt_restore(tpl): return u8(5) + u8(0) + u8(NT_LEVELS[tpl])
def nt_timer(ev, kind, never=False): return u8(6) + u8(ev) + u8(kind) + u8(1 if never else 0)


NT_RETURN, NT_STRAY_RETURN, NT_EBS, NT_STALL = u8(7), u8(0xf7), u8(8), u8(9)


def notify_seeds():
    # A function signals one above its TPL (nested) and one at it (after).
    write("notify", "nested", nt_create("signal", 8) + nt_create("signal", 16) + nt_create("signal", 8) +
          nt_signal(0) + nt_signal(1) + NT_RETURN + nt_signal(2) + NT_RETURN + NT_RETURN)
    # A function closes its own event, raises the TPL and never restores it.
    write("notify", "close-self-raise", nt_create("signal", 16) + nt_signal(0) + nt_close(0) + nt_raise(31) +
          NT_RETURN + nt_signal(0) + nt_close(0))
    # RestoreTPL delivers what RaiseTPL held back, highest TPL first.
    write("notify", "restore-delivers", nt_raise(16) + nt_create("signal", 8) + nt_create("signal", 30) +
          nt_signal(0) + nt_signal(1) + nt_restore(4) + NT_RETURN + NT_RETURN)
    # Wait functions: from CheckEvent, then WaitForEvent made again, then
    # the function signals its event.
    write("notify", "wait-functions", nt_create("wait", 8) + nt_check(0) + NT_RETURN + nt_wait([0]) + NT_RETURN +
          nt_wait([0]) + nt_signal(0) + NT_RETURN + nt_wait([0]))
    # A periodic timer of 0 (every tick): its function runs, returns, and
    # the call goes on.
    write("notify", "timer-tick", nt_create("timer|signal", 8) + nt_timer(0, 1) + NT_RETURN + NT_STALL +
          NT_RETURN + NT_STALL + nt_timer(0, 0) + nt_create("timer|wait", 16) + nt_timer(1, 1) + nt_wait([1]))
    # ExitBootServices' group, by type and by GUID, with a timer armed.
    write("notify", "exit-boot-services", nt_create("ebs", 16) + nt_create("signal", 8, 3) +
          nt_create("timer|signal", 8) + nt_timer(2, 2, never=True) + NT_EBS + NT_RETURN + NT_STALL +
          NT_RETURN + nt_signal(2) + NT_RETURN)
    # A function lowers the TPL and waits, and its wait's function nests.
    write("notify", "wait-inside", nt_create("signal", 8) + nt_create("wait", 16) + nt_signal(0) + nt_restore(4) +
          nt_wait([1]) + NT_RETURN + NT_RETURN + nt_close(1) + nt_check(1))
    write("notify", "stray-return", nt_create("signal", 8) + NT_STRAY_RETURN + nt_signal(0))


# ---- fuzz_elf ---------------------------------------------------------------

def elf64(phdrs, body, body_off):
    """An ELF64 executable: the header, phdrs (type, offset, vaddr, filesz),
    and body at body_off."""
    eh = (b"\x7fELF" + bytes([2, 1, 1]) + bytes(9) + u16(3) + u16(0x3e) + u32(1) + u64(0x401000) +
          u64(64) + u64(0) + u32(0) + u16(64) + u16(56) + u16(len(phdrs)) + u16(64) + u16(0) + u16(0))
    ph = b"".join(u32(t) + u32(4) + u64(off) + u64(va) + u64(va) + u64(sz) + u64(sz) + u64(8)
                  for t, off, va, sz in phdrs)
    f = bytearray(eh + ph)
    f += bytes(max(0, body_off - len(f)))
    f[body_off:body_off + len(body)] = body
    return bytes(f)


def elf_seeds():
    PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
    DT_NULL, DT_NEEDED, DT_STRTAB = 0, 1, 5
    base = 0x400000
    interp = b"/lib64/ld-linux-x86-64.so.2\0"
    strtab = b"\0libc.so.6\0libm.so.6\0libz.so.1\0"
    body_off = 256
    s_off = body_off + len(interp)
    d_off = (s_off + len(strtab) + 7) & ~7

    def image(dyn, phdr_kinds=("interp", "load", "dynamic"), load_size=None):
        body = interp + strtab
        body += bytes(d_off - body_off - len(body)) + dyn
        size = body_off + len(body)
        table = {"interp": (PT_INTERP, body_off, 0, len(interp)),
                 "load": (PT_LOAD, 0, base, load_size if load_size is not None else size),
                 "dynamic": (PT_DYNAMIC, d_off, base + d_off, len(dyn))}
        return elf64([table[k] for k in phdr_kinds], body, body_off)

    def dyn(*entries): return b"".join(u64(t) + u64(v) for t, v in entries)
    needed = dyn((DT_NEEDED, 1), (DT_NEEDED, 11), (DT_STRTAB, base + s_off), (DT_NEEDED, 21), (DT_NULL, 0))
    write("elf", "dynamic", image(needed))
    write("elf", "static", image(b"", ("load",)))
    write("elf", "strtab-unmapped", image(needed, load_size=64))
    write("elf", "needed-past-null", image(dyn((DT_STRTAB, base + s_off), (DT_NULL, 0), (DT_NEEDED, 1))))
    write("elf", "needed-wild", image(dyn((DT_STRTAB, base + s_off), (DT_NEEDED, 1 << 63), (DT_NEEDED, 1000),
                                          (DT_NEEDED, 0xffffffffffffffff), (DT_NEEDED, 11))))
    write("elf", "many-needed", image(dyn((DT_STRTAB, base + s_off), *[(DT_NEEDED, 1 + 10 * (i % 3)) for i in range(70)])))
    write("elf", "interp-unterminated", image(needed)[:body_off + 10])
    write("elf", "not-elf", b"#!/bin/sh\necho hello\n")


# ---- fuzz_secure_boot -------------------------------------------------------

CERT_SHA256 = bytes.fromhex("2616c4c14c509240aca941f936934328")   # EFI_CERT_SHA256_GUID, as stored


def sha256_list(n):
    """One EFI_SIGNATURE_LIST of n SHA-256 signatures, each filled with its index."""
    size = 28 + 48 * n
    return CERT_SHA256 + u32(size) + u32(0) + u32(48) + b"".join(bytes(16) + bytes([i + 1]) * 32 for i in range(n))


def pem_der(path):
    """The DER of the first PEM block in path."""
    text = open(path).read()
    body = text.split("-----BEGIN CERTIFICATE-----")[1].split("-----END CERTIFICATE-----")[0]
    return base64.b64decode("".join(body.split()))


def certificate_table(f):
    """The PE32+ file's certificate table: its first WIN_CERTIFICATE's data."""
    opt = struct.unpack_from("<I", f, 0x3c)[0] + 24
    at, size = struct.unpack_from("<II", f, opt + 112 + 8 * 4)
    length = struct.unpack_from("<I", f, at)[0]
    return f[at + 8:at + length]


class sv:
    """fuzz_secure_boot's mode 4: the variable services, step by step."""
    NAMES = ["PK", "KEK", "db", "dbx", "SecureBoot", "SetupMode", "Fuzz"]
    GLOBAL, IMAGE_DB, TEST = 7, 8, 9           # the known GUIDs, after the names

    def known(i): return u8(5 * i)
    def name(text): return sv.known(sv.NAMES.index(text))
    def scratch(off): return u8(1) + u16(off)
    NULL = u8(2)
    def end(back): return u8(3) + u8(back)
    DATA = u8(4)
    SLOT = u8(0)

    def op(n, wide=False):                     # wide: a u64 size (x64; bit 7 of the op byte)
        return u8(next(o for o in range(128 if wide else 0, 256) if o % 6 == n))

    def size(v, wide=False): return u64(v) if wide else u32(v)
    def write(off, data): return sv.op(0) + u16(off) + u8(len(data)) + data
    def get(name, guid, size, attrs=SLOT, slot=SLOT, data=DATA, wide=False):
        return sv.op(1, wide) + name + guid + attrs + slot + data + sv.size(size, wide)
    def next_name(size, name=None, guid=None, slot=SLOT):
        return sv.op(2) + slot + (name or sv.scratch(0x1000)) + (guid or sv.scratch(0x1100)) + sv.size(size)
    def set(name, guid, attrs, size, data, wide=False):
        return sv.op(3, wide) + name + guid + u32(attrs) + sv.size(size, wide) + data
    def query(attrs, a, b, c): return sv.op(4) + u32(attrs) + a + b + c
    RUNTIME = u8(5)


def variables_seeds(fixtures):
    """fuzz_secure_boot's mode 4 (and fuzz_secure_boot32's): a variable
    written, read back, probed too small, walked and deleted, the modes
    written, keys written in Setup Mode and, with a PK, User Mode, the
    largest sizes, and the same after ExitBootServices."""
    glob_, imgdb, test = sv.known(sv.GLOBAL), sv.known(sv.IMAGE_DB), sv.known(sv.TEST)
    key_attrs, bs_rt = 0x27, 0x06
    setup = (sv.write(0x400, b"hello") + sv.set(sv.name("Fuzz"), test, bs_rt, 5, sv.scratch(0x400)) +
             sv.get(sv.name("Fuzz"), test, 2) + sv.get(sv.name("Fuzz"), test, 64) +
             sv.next_name(64) + sv.next_name(64) + sv.next_name(4) + sv.next_name(0x1000, name=sv.name("Fuzz")) +
             sv.query(bs_rt, sv.scratch(0x800), sv.scratch(0x808), sv.scratch(0x810)) +
             sv.set(sv.name("SecureBoot"), glob_, bs_rt, 1, sv.scratch(0x400)) +
             sv.set(sv.name("db"), imgdb, key_attrs, 5, sv.scratch(0x400)) +
             sv.set(sv.name("Fuzz"), test, bs_rt | 0x40, 0xffffffff, sv.scratch(0x400)) +
             sv.set(sv.name("Fuzz"), test, bs_rt, 0x10000, sv.DATA) +
             sv.get(sv.name("Fuzz"), test, 0xffffffff) +
             sv.set(sv.name("Fuzz"), test, bs_rt, 0x10000, sv.end(0)) +
             sv.RUNTIME + sv.get(sv.name("Fuzz"), test, 0x20000) + sv.set(sv.name("Fuzz"), test, 0, 0, sv.NULL))
    write("secure_boot", "variables-setup-mode", b"\x04" + u8(0) + setup)
    write("secure_boot", "variables-user-mode", b"\x04" + u8(3) + setup +
          sv.get(sv.name("SetupMode"), glob_, 8) + sv.get(sv.name("PK"), glob_, 0x100000000, wide=True) +
          sv.set(sv.name("KEK"), glob_, key_attrs | 0x40, 0x100000005, sv.scratch(0x400), wide=True))
    auth = os.path.join(fixtures, "keys", "db.auth")
    if os.path.isfile(auth):
        data = open(auth, "rb").read()[:0xff00]
        steps = b"".join(sv.write(at, data[at:at + 255]) for at in range(0, len(data), 255))
        write("secure_boot", "variables-db-auth", b"\x04" + u8(0) + steps +
              sv.set(sv.name("db"), imgdb, key_attrs, len(data), sv.scratch(0)) +
              sv.get(sv.name("db"), imgdb, 0x10000) +
              sv.set(sv.name("db"), imgdb, key_attrs | 0x40, len(data), sv.scratch(0)))


def secure_boot_seeds(fixtures):
    """fuzz_secure_boot: signature lists (well formed, and with SignatureSize
    0); with the fixtures, their lists, the fuzz_pe seed image signed by db's
    key (sbsign) and signed again by the other key, that signature's PKCS#7
    with db's certificate as the anchor, db.auth's bare SignedData with
    KEK's certificate, and PK.auth (self-signed) and db.auth as SetVariable's
    data; and variables_seeds'."""
    variables_seeds(fixtures)
    write("secure_boot", "lists-sha256", b"\x00" + sha256_list(2))
    bad = bytearray(sha256_list(1))
    bad[24:28] = u32(0)
    write("secure_boot", "lists-signature-size-0", b"\x00" + sha256_list(1) + bytes(bad))
    keys = os.path.join(fixtures, "keys")
    if not os.path.isfile(os.path.join(keys, "db.auth")) or not shutil.which("sbsign"):
        return
    def read(*path): return open(os.path.join(fixtures, *path), "rb").read()
    write("secure_boot", "lists-db", b"\x00" + read("keys", "db.esl"))
    write("secure_boot", "lists-pk-dbx", b"\x00" + read("keys", "PK.esl") + read("dbx.esl"))
    with tempfile.TemporaryDirectory() as tmp:
        image = os.path.join(CORPUS, "pe", "reloc-dir64-highlow")
        once, twice = os.path.join(tmp, "once.efi"), os.path.join(tmp, "twice.efi")
        for key, src, dst in (("db", image, once), ("other", once, twice)):
            subprocess.run(["sbsign", "--key", os.path.join(keys, key + ".key"), "--cert",
                            os.path.join(keys, key + ".crt"), "--output", dst, src],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        signed = open(once, "rb").read()
        write("secure_boot", "image-db-signed", b"\x01" + signed)
        write("secure_boot", "image-signed-twice", b"\x01" + open(twice, "rb").read())
    db_der, kek_der = pem_der(os.path.join(keys, "db.crt")), pem_der(os.path.join(keys, "KEK.crt"))
    write("secure_boot", "signature-authenticode", b"\x02" + u16(len(db_der)) + db_der + certificate_table(signed))
    db_auth = read("keys", "db.auth")
    dw_length = struct.unpack_from("<I", db_auth, 16)[0]
    write("secure_boot", "signature-bare", b"\x02" + u16(len(kek_der)) + kek_der + db_auth[16 + 24:16 + dw_length])
    write("secure_boot", "auth2-pk", b"\x03" + read("keys", "PK.auth"))
    write("secure_boot", "auth2-db", b"\x03" + db_auth)


# ---- fuzz_keydir -------------------------------------------------------------

def keydir_seeds(fixtures):
    """fuzz_keydir: the fixtures' key folders (keys, dbx-keys, ca-keys),
    each with the fuzz_pe seed image signed by db's key (sbsign) or as it
    is; PK alone; PK cut short (refused); no files and an image."""
    image = os.path.join(CORPUS, "pe", "reloc-dir64-highlow")
    unsigned = open(image, "rb").read()
    write("keydir", "no-keys", u8(0) + unsigned)
    keys = os.path.join(fixtures, "keys")
    if not os.path.isfile(os.path.join(keys, "db.auth")) or not shutil.which("sbsign"):
        return
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "signed.efi")
        subprocess.run(["sbsign", "--key", os.path.join(keys, "db.key"), "--cert", os.path.join(keys, "db.crt"),
                        "--output", out, image], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        signed = open(out, "rb").read()

    def folder(name, image):
        present, files = 0, b""
        for bit, key in enumerate(("db", "dbx", "KEK", "PK")):
            path = os.path.join(fixtures, name, key + ".auth")
            if os.path.isfile(path):
                data = open(path, "rb").read()
                present |= 1 << bit
                files += u16(len(data)) + data
        return u8(present) + files + image
    write("keydir", "keys-db-signed", folder("keys", signed))
    write("keydir", "keys-unsigned", folder("keys", unsigned))
    write("keydir", "dbx-keys-db-signed", folder("dbx-keys", signed))
    write("keydir", "ca-keys-unsigned", folder("ca-keys", unsigned))
    pk = open(os.path.join(keys, "PK.auth"), "rb").read()
    write("keydir", "pk-only", u8(8) + u16(len(pk)) + pk + unsigned)
    write("keydir", "pk-cut-short", u8(8) + u16(len(pk) // 2) + pk[:len(pk) // 2])


# ---- fuzz_snapshot ------------------------------------------------------------

def snapshot_seeds():
    """fuzz_snapshot: payloads the harness lays out from a machine whose
    UART was set up (whole, with COM2, with patches in the devices' kept
    bytes, the firmware's phase and the device snapshot's length), headers
    sealed with a wrong version, header size or payload size, and raw
    files (cut short, a bad magic)."""
    def access(port, out=False, size=1, value=0):
        return u8(port) + u8(int(out) | {1: 0, 2: 2, 4: 4}[size]) + (u32(value) if out else b"")

    def program(*accesses): return u8(len(accesses)) + b"".join(accesses)
    setup = program(access(3, True, value=0x03), access(1, True, value=0x03), access(4, True, value=0x0b),
                    access(7, True, value=0x5a), access(0, True, value=0x41), access(18, True, value=7))
    after = program(access(5), access(2), access(0), access(7), access(2), access(20, size=2),
                    access(19, True, 2, 0x2001), access(8, True, value=0x42), access(13))
    header = u8(0) + u8(0) + u8(0) + u64(512 << 20) + bytes(40)
    tail = u32(1) + u8(2) + u8(3) + u32(1) + u32(1) + u64(123456) + u64(1 << 40) + u64(1 << 60) + u64(1 << 61) + \
        u32(2000000) + u32(0)

    def saved(name, flags=2, patches=()):
        write("snapshot", name, u8(flags) + after + header + setup + tail + u8(len(patches)) +
              b"".join(u16(back) + u8(v) for back, v in patches))
    saved("saved")
    saved("saved-com2", flags=6)
    saved("saved-phase-2", patches=[(47, 2)])
    saved("saved-device-len", patches=[(71, 0xff)])
    saved("saved-kept-bytes", patches=[(back, 2) for back in range(115, 136, 3)])
    saved("saved-kept-bytes-com2", flags=6, patches=[(back, 0xff) for back in range(106, 136, 4)])
    payload = b"\x00" * 64
    write("snapshot", "sealed-version-2", u8(1) + u8(0) + u8(1) + u32(2) + u8(0) + u8(0) + u64(1 << 29) + bytes(40) +
          payload)
    write("snapshot", "sealed-header-size", u8(1) + u8(0) + u8(0) + u8(1) + u32(64) + u8(0) + u64(1 << 29) +
          bytes(40) + payload)
    write("snapshot", "sealed-payload-size", u8(1) + u8(0) + u8(0) + u8(0) + u8(1) + u64(1 << 63) + u64(1 << 29) +
          bytes(40) + payload)
    write("snapshot", "sealed-short-payload", u8(1) + u8(0) + header + payload)
    write("snapshot", "raw-magic-only", u8(0) + u8(0) + b"HOVRSNAP" + u32(1) + u32(96))
    write("snapshot", "raw-bad-magic", u8(0) + u8(0) + b"HOVRSNAQ" + bytes(120))


# ---- fuzz_cpio ----------------------------------------------------------------

def cpio_seeds():
    """fuzz_cpio: the archive --exec --add builds (handover/cmd, an added
    program with its interpreter and library directories), names with
    ".", ".." and empty components, a name past newc's 4096 bytes, and an
    archive past a small limit."""
    def d(name): return u8(0) + u8(0o755) + name + b"\0"

    def f(name, data, perm=0o644): return u8(1 | (perm >> 8) << 1) + u8(perm) + name + b"\0" + u16(len(data)) + data
    write("cpio", "exec-add", u32((1 << 20) - 1) + d(b"handover") + f(b"handover/cmd", b"./my-test") +
          f(b"handover/output", b"/dev/ttyS1") + f(b"my-test", b"\x7fELF" + bytes(60), 0o755) +
          d(b"lib64") + f(b"lib64/ld-linux-x86-64.so.2", b"\x7fELF", 0o755) + d(b"usr") + d(b"usr/lib") +
          f(b"usr/lib/libc.so.6", b"\x7fELF" * 3, 0o755))
    write("cpio", "unsafe-names", u32((1 << 20) - 1) + f(b"a/../etc/passwd", b"x") + d(b"./b") + f(b"c//d", b"") +
          d(b"e/.") + f(b"..", b"") + d(b"") + f(b"/abs", b"y"))
    write("cpio", "long-name", u32((1 << 20) - 1) + f(b"n" * 4095, b"z") + f(b"m" * 4096, b"z"))
    write("cpio", "past-limit", u32(300) + f(b"big", bytes(200)) + f(b"more", bytes(64)))
    write("cpio", "empty", u32(124))


# ---- fuzz_dtb -----------------------------------------------------------------

def fdt_blob():
    """A version 17 flattened device tree (the devicetree specification,
    chapter 5): / with #address-cells, /chosen with bootargs, a memory node."""
    strings, names = b"", {}

    def prop(name, value):
        nonlocal strings
        if name not in names:
            names[name] = len(strings)
            strings += name.encode() + b"\0"
        return struct.pack(">III", 3, len(value), names[name]) + pad4(value)

    def pad4(b): return b + bytes(-len(b) % 4)

    def node(name, *body): return struct.pack(">I", 1) + pad4(name.encode() + b"\0") + b"".join(body) + \
        struct.pack(">I", 2)
    tree = node("", prop("#address-cells", struct.pack(">I", 2)), prop("#size-cells", struct.pack(">I", 2)),
                node("chosen", prop("bootargs", b"console=ttyS0\0")),
                node("memory@0", prop("device_type", b"memory\0"), prop("reg", struct.pack(">QQ", 0, 512 << 20)))) + \
        struct.pack(">I", 9)
    rsv = bytes(16)
    off_rsv = 40
    off_struct = off_rsv + len(rsv)
    off_strings = off_struct + len(tree)
    total = off_strings + len(strings)
    return struct.pack(">10I", 0xd00dfeed, total, off_struct, off_strings, off_rsv, 17, 16, 0, len(strings),
                       len(tree)) + rsv + tree + strings


def dtb_seeds():
    """fuzz_dtb: --dtb auto's machines (one and two RAM ranges, 1 and 64
    CPUs, one and two UARTs, a long command line, a buffer too small) and
    --dtb FILE's blobs: a small tree, cut short, with a totalsize past the
    file, with a bad magic."""
    def machine(cap, ram, cpus, uarts, bootargs):
        ranges = b"".join(u64(start) + u64(size) for start, size in ram)
        return u8(0) + u32(cap) + u8(len(ram)) + ranges + bytes(16 * (2 - len(ram))) + u8(cpus) + u8(len(uarts)) + \
            b"".join(u16(port) + u8(irq) for port, irq in uarts) + bytes(3 * (2 - len(uarts))) + bootargs
    write("dtb", "auto-one-cpu", machine(0xffff, [(0, 512 << 20)], 1, [(0x3f8, 4)], b"console=ttyS0"))
    write("dtb", "auto-two-ranges-com2", machine(0xffff, [(0, 3 << 30), (4 << 30, 1 << 30)], 64,
                                                 [(0x3f8, 4), (0x2f8, 3)], b"console=ttyS0 " + b"x" * 2000))
    write("dtb", "auto-too-small", machine(200, [(0, 512 << 20)], 4, [(0x3f8, 4)], b"quiet"))
    blob = fdt_blob()
    write("dtb", "file", u8(1) + blob)
    write("dtb", "file-cut-short", u8(1) + blob[:len(blob) // 2])
    write("dtb", "file-totalsize-past-end", u8(1) + blob[:4] + struct.pack(">I", len(blob) + 1) + blob[8:])
    write("dtb", "file-bad-magic", u8(1) + b"\xd0\x0d\xfe\xee" + blob[4:])


# ---- fuzz_sweep_baseline -------------------------------------------------------

CELLS = 20


def sweep_baseline_seeds():
    """fuzz_sweep_baseline: the golden matrices of tests/golden as
    baselines of a few planned cells, matrices written for the cells
    (whole, and with a byte changed), and files that are no matrix."""
    calls = u8(2) + u16(1) + u32(0xffff) + u8(16) + u16(9) + u32(0x3) + u8(0)   # CELLS cells, their specs distinct
    outcomes = bytes(i % 7 for i in range(CELLS))
    for golden in sorted(glob.glob(os.path.join(TOP, "..", "golden", "*.sweep.json"))):
        name = os.path.basename(golden)[:-len(".sweep.json")]
        write("sweep_baseline", "golden-" + name, u8(0) + u8(0) + calls + outcomes + open(golden, "rb").read())
    write("sweep_baseline", "written", u8(0) + u8(1) + calls + bytes(CELLS) + u8(0))
    write("sweep_baseline", "written-fail-on", u8(0x18) + u8(1) + calls + outcomes + u8(0))
    write("sweep_baseline", "written-patched", u8(0) + u8(1) + calls + bytes(CELLS) + u8(2) + u16(40) + u8(ord("x")) +
          u16(300) + u8(ord("]")))
    write("sweep_baseline", "not-json", u8(0) + u8(0) + u8(1) + u16(1) + u32(0x40) + u8(0) + u8(0) + b"{\"cells\": [")
    write("sweep_baseline", "cells-not-array", u8(0) + u8(0) + u8(1) + u16(1) + u32(0x40) + u8(0) + u8(0) +
          b"{\"cells\": {\"inject\": \"no-rng\"}}")


# ---- fuzz_inject -------------------------------------------------------------

INJECT_KINDS = 18   # enum inject_kind (firmware-stub/inject_kind.h)


def inject_seeds():
    """fuzz_inject: a byte naming the fault already given (INJECT_KINDS:
    none), then a --inject SPEC: good specs of each shape, the largest
    numbers, octal-looking and hexadecimal ones, and refused ones."""
    specs = {
        "gmm-too-small": "gmm-too-small", "gmm-value-from": "gmm-too-small:2@3",
        "alloc-pages-fail": "alloc-pages-fail:010", "alloc-pages-above": "alloc-pages-above:0x2000000@2",
        "largest": "alloc-pages-above:0xffffffffffffffff@18446744073709551615",
        "past-u64": "alloc-pool-fail:18446744073709551616", "no-value": "ebs-stale-key:1",
        "from-zero": "getvar-error@0", "from-on-nth": "alloc-pages-fail:3@2", "empty": "", "colon": ":",
        "sign": "gmm-too-small:-1", "space": "no-rng@ 2", "unknown": "frob:1", "tpm-log-full": "tpm-log-full@2",
    }
    for name, spec in specs.items():
        write("inject", name, u8(INJECT_KINDS) + spec.encode())
    write("inject", "given-twice", u8(0) + b"gmm-too-small@2")


# ---- fuzz_esp_disk ----------------------------------------------------------

def esp_disk_seeds():
    def name(text):
        return u8(len(text) - 1) + b"".join(u16(ord(c)) for c in text)

    def mkdir(parent, text):
        return u8(0) + u8(parent) + name(text) + u64(1700000000)

    def mkfile(parent, text, size, fill=0x41, attribute=0x20, big=0):
        return u8(1 | big << 4) + u8(parent) + name(text) + u16(size) + u8(fill) + u64(1700000000) + u8(attribute)

    def read(off, length):
        return u8(3) + u32(off) + u16(length)

    label = u8(3) + b"".join(u16(ord(c)) for c in "ESP")
    write("esp_disk", "shim-grub-kernel", u32(0) + label + mkdir(0, "EFI") + mkdir(1, "BOOT") + mkdir(1, "debian") +
          mkfile(2, "BOOTX64.EFI", 900) + mkfile(2, "grubx64.efi", 3000, 0x11) +
          mkfile(3, "grub.cfg", 40, 0x61) + mkfile(0, "vmlinuz-6.1.0-57-amd64", 60000, 0x7f, big=3) +
          read(0, 1024) + read(0x100000, 65535) + read(0xffffffff, 700))
    write("esp_disk", "clashing-short-names", u32(70000) + u8(0) +
          b"".join(mkfile(0, "vmlinuz-6.%d.0-amd64" % i, 20 + i, i) for i in range(12)) + u8(2) + u8(5) +
          read(1024 * 1024, 4096))
    write("esp_disk", "odd-names", u32(0) + u8(11) + b"".join(u16(c) for c in range(0xe9, 0xe9 + 11)) +
          mkfile(0, " lead.and.trail. ", 17) + mkfile(0, "a+b,c;d=e[f]g", 1) + mkfile(0, "\u00e9t\u00e9.txt", 16) +
          mkdir(0, "." ) + mkdir(0, "x" * 40) + mkfile(5, "y" * 40, 0, attribute=0x07))


def main():
    payload = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "..", "..", "build", "payload.bzImage")
    tinies = sorted(glob.glob(os.path.expanduser("~/.cache/handover/kernels/tiny-*/bzImage")))
    tiny = sys.argv[2] if len(sys.argv) > 2 else (tinies[0] if tinies else None)
    bzimage_seeds(payload, tiny)
    pe_seeds()
    firmware_seeds()
    devices_seeds()
    emulate_seeds()
    ktap_seeds()
    devpath_seeds()
    events_seeds()
    notify_seeds()
    elf_seeds()
    esp_disk_seeds()
    secure_boot_seeds(os.path.join(TOP, "..", "..", "build", "secure-boot"))
    keydir_seeds(os.path.join(TOP, "..", "..", "build", "secure-boot"))
    snapshot_seeds()
    cpio_seeds()
    dtb_seeds()
    sweep_baseline_seeds()
    inject_seeds()


if __name__ == "__main__":
    main()
