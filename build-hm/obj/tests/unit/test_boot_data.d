build-hm/obj/tests/unit/test_boot_data.o: tests/unit/test_boot_data.c \
 tests/unit/suites.h tests/unit/../../firmware-stub/acpi.h \
 tests/unit/../../firmware-stub/../vmm/mem/layout.h \
 tests/unit/../../firmware-stub/firmware.h \
 tests/unit/../../firmware-stub/efi.h \
 tests/unit/../../firmware-stub/services.h \
 tests/unit/../../firmware-stub/inject.h \
 tests/unit/../../firmware-stub/memmap.h \
 tests/unit/../../firmware-stub/../vmm/mem/guest_mem.h \
 tests/unit/../../firmware-stub/../vmm/mem/layout.h \
 tests/unit/../../firmware-stub/guids.h tests/unit/../../loader/cpio.h \
 tests/unit/../../loader/elf_deps.h tests/unit/../../loader/dtb.h \
 tests/unit/../../vmm/x86/emulate.h tests/unit/../../vmm/verdict/ktap.h
tests/unit/suites.h:
tests/unit/../../firmware-stub/acpi.h:
tests/unit/../../firmware-stub/../vmm/mem/layout.h:
tests/unit/../../firmware-stub/firmware.h:
tests/unit/../../firmware-stub/efi.h:
tests/unit/../../firmware-stub/services.h:
tests/unit/../../firmware-stub/inject.h:
tests/unit/../../firmware-stub/memmap.h:
tests/unit/../../firmware-stub/../vmm/mem/guest_mem.h:
tests/unit/../../firmware-stub/../vmm/mem/layout.h:
tests/unit/../../firmware-stub/guids.h:
tests/unit/../../loader/cpio.h:
tests/unit/../../loader/elf_deps.h:
tests/unit/../../loader/dtb.h:
tests/unit/../../vmm/x86/emulate.h:
tests/unit/../../vmm/verdict/ktap.h:
