build-hm/fuzz/fuzz_ktap: tests/fuzz/fuzz_ktap.c \
  tests/fuzz/../../vmm/verdict/ktap.h

tests/fuzz/../../vmm/verdict/ktap.h:
