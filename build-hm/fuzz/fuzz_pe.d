build-hm/fuzz/fuzz_pe: tests/fuzz/fuzz_pe.c \
  tests/fuzz/../../loader/efi_app.h tests/fuzz/../../loader/pe.h \
  tests/fuzz/../../loader/../vmm/mem/guest_mem.h \
  tests/fuzz/../../loader/../vmm/mem/layout.h

tests/fuzz/../../loader/efi_app.h:

tests/fuzz/../../loader/pe.h:

tests/fuzz/../../loader/../vmm/mem/guest_mem.h:

tests/fuzz/../../loader/../vmm/mem/layout.h:
