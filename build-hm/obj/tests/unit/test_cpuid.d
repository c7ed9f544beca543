build-hm/obj/tests/unit/test_cpuid.o: tests/unit/test_cpuid.c \
 tests/unit/suites.h tests/unit/../../vmm/x86/cpuid.h
tests/unit/suites.h:
tests/unit/../../vmm/x86/cpuid.h:
