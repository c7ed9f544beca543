build-hm/obj/tests/unit/test_x86_setup.o: tests/unit/test_x86_setup.c \
 tests/unit/suites.h tests/unit/../../vmm/mem/layout.h \
 tests/unit/../../vmm/x86/x86_setup.h \
 tests/unit/../../vmm/x86/../mem/guest_mem.h \
 tests/unit/../../vmm/x86/../mem/layout.h
tests/unit/suites.h:
tests/unit/../../vmm/mem/layout.h:
tests/unit/../../vmm/x86/x86_setup.h:
tests/unit/../../vmm/x86/../mem/guest_mem.h:
tests/unit/../../vmm/x86/../mem/layout.h:
