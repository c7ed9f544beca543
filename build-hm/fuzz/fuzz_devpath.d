build-hm/fuzz/fuzz_devpath: tests/fuzz/fuzz_devpath.c \
  tests/fuzz/../../firmware-stub/firmware.h \
  tests/fuzz/../../firmware-stub/efi.h \
  tests/fuzz/../../firmware-stub/services.h \
  tests/fuzz/../../firmware-stub/inject.h \
  tests/fuzz/../../firmware-stub/memmap.h \
  tests/fuzz/../../firmware-stub/../vmm/mem/guest_mem.h \
  tests/fuzz/../../firmware-stub/../vmm/mem/layout.h \
  tests/fuzz/../../firmware-stub/guids.h \
  tests/fuzz/../../firmware-stub/internal.h \
  tests/fuzz/../../firmware-stub/../vmm/mem/guest_text.h \
  tests/fuzz/../../loader/pe.h \
  tests/fuzz/../../loader/../vmm/mem/guest_mem.h \
  tests/fuzz/../../vmm/mem/guest_mem.h tests/fuzz/../../vmm/mem/layout.h \
  tests/fuzz/fuzz_input.h

tests/fuzz/../../firmware-stub/firmware.h:

tests/fuzz/../../firmware-stub/efi.h:

tests/fuzz/../../firmware-stub/services.h:

tests/fuzz/../../firmware-stub/inject.h:

tests/fuzz/../../firmware-stub/memmap.h:

tests/fuzz/../../firmware-stub/../vmm/mem/guest_mem.h:

tests/fuzz/../../firmware-stub/../vmm/mem/layout.h:

tests/fuzz/../../firmware-stub/guids.h:

tests/fuzz/../../firmware-stub/internal.h:

tests/fuzz/../../firmware-stub/../vmm/mem/guest_text.h:

tests/fuzz/../../loader/pe.h:

tests/fuzz/../../loader/../vmm/mem/guest_mem.h:

tests/fuzz/../../vmm/mem/guest_mem.h:

tests/fuzz/../../vmm/mem/layout.h:

tests/fuzz/fuzz_input.h:
