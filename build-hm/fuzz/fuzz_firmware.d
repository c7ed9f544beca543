build-hm/fuzz/fuzz_firmware: tests/fuzz/fuzz_firmware.c \
  tests/fuzz/../../firmware-stub/acpi.h \
  tests/fuzz/../../firmware-stub/../vmm/mem/layout.h \
  tests/fuzz/../../firmware-stub/firmware.h \
  tests/fuzz/../../firmware-stub/efi.h \
  tests/fuzz/../../firmware-stub/services.h \
  tests/fuzz/../../firmware-stub/inject.h \
  tests/fuzz/../../firmware-stub/memmap.h \
  tests/fuzz/../../firmware-stub/../vmm/mem/guest_mem.h \
  tests/fuzz/../../firmware-stub/guids.h \
  tests/fuzz/../../vmm/mem/guest_mem.h tests/fuzz/../../vmm/mem/layout.h \
  tests/fuzz/../../vmm/x86/x86_setup.h \
  tests/fuzz/../../vmm/x86/../mem/guest_mem.h tests/fuzz/fuzz_input.h

tests/fuzz/../../firmware-stub/acpi.h:

tests/fuzz/../../firmware-stub/../vmm/mem/layout.h:

tests/fuzz/../../firmware-stub/firmware.h:

tests/fuzz/../../firmware-stub/efi.h:

tests/fuzz/../../firmware-stub/services.h:

tests/fuzz/../../firmware-stub/inject.h:

tests/fuzz/../../firmware-stub/memmap.h:

tests/fuzz/../../firmware-stub/../vmm/mem/guest_mem.h:

tests/fuzz/../../firmware-stub/guids.h:

tests/fuzz/../../vmm/mem/guest_mem.h:

tests/fuzz/../../vmm/mem/layout.h:

tests/fuzz/../../vmm/x86/x86_setup.h:

tests/fuzz/../../vmm/x86/../mem/guest_mem.h:

tests/fuzz/fuzz_input.h:
