build-hm/fuzz/fuzz_bzimage: tests/fuzz/fuzz_bzimage.c \
  tests/fuzz/../../loader/bzimage.h tests/fuzz/../../loader/bootparam.h \
  tests/fuzz/../../loader/pe.h \
  tests/fuzz/../../loader/../vmm/mem/guest_mem.h \
  tests/fuzz/../../loader/../vmm/mem/layout.h tests/fuzz/fuzz_input.h

tests/fuzz/../../loader/bzimage.h:

tests/fuzz/../../loader/bootparam.h:

tests/fuzz/../../loader/pe.h:

tests/fuzz/../../loader/../vmm/mem/guest_mem.h:

tests/fuzz/../../loader/../vmm/mem/layout.h:

tests/fuzz/fuzz_input.h:
