build-hm/fuzz/fuzz_emulate: tests/fuzz/fuzz_emulate.c \
  tests/fuzz/../../vmm/x86/emulate.h tests/fuzz/fuzz_input.h

tests/fuzz/../../vmm/x86/emulate.h:

tests/fuzz/fuzz_input.h:
