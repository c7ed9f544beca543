build-hm/fuzz/fuzz_events: tests/fuzz/fuzz_events.c \
  tests/fuzz/../../firmware-stub/firmware.h \
  tests/fuzz/../../firmware-stub/efi.h \
  tests/fuzz/../../firmware-stub/services.h \
  tests/fuzz/../../firmware-stub/inject.h \
  tests/fuzz/../../firmware-stub/memmap.h \
  tests/fuzz/../../firmware-stub/../vmm/mem/guest_mem.h \
  tests/fuzz/../../firmware-stub/../vmm/mem/layout.h \
  tests/fuzz/../../firmware-stub/internal.h \
  tests/fuzz/../../firmware-stub/guids.h \
  tests/fuzz/../../firmware-stub/../vmm/mem/guest_text.h \
  tests/fuzz/../../firmware-stub/keys.h \
  tests/fuzz/../../vmm/mem/guest_mem.h tests/fuzz/../../vmm/mem/layout.h \
  tests/fuzz/fuzz_input.h

tests/fuzz/../../firmware-stub/firmware.h:

tests/fuzz/../../firmware-stub/efi.h:

tests/fuzz/../../firmware-stub/services.h:

tests/fuzz/../../firmware-stub/inject.h:

tests/fuzz/../../firmware-stub/memmap.h:

tests/fuzz/../../firmware-stub/../vmm/mem/guest_mem.h:

tests/fuzz/../../firmware-stub/../vmm/mem/layout.h:

tests/fuzz/../../firmware-stub/internal.h:

tests/fuzz/../../firmware-stub/guids.h:

tests/fuzz/../../firmware-stub/../vmm/mem/guest_text.h:

tests/fuzz/../../firmware-stub/keys.h:

tests/fuzz/../../vmm/mem/guest_mem.h:

tests/fuzz/../../vmm/mem/layout.h:

tests/fuzz/fuzz_input.h:
