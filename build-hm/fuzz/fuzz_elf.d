build-hm/fuzz/fuzz_elf: tests/fuzz/fuzz_elf.c \
  tests/fuzz/../../loader/elf_deps.h

tests/fuzz/../../loader/elf_deps.h:
