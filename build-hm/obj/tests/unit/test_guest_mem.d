build-hm/obj/tests/unit/test_guest_mem.o: tests/unit/test_guest_mem.c \
 tests/unit/suites.h tests/unit/../../vmm/mem/guest_mem.h \
 tests/unit/../../vmm/mem/layout.h tests/unit/../../vmm/mem/guest_text.h
tests/unit/suites.h:
tests/unit/../../vmm/mem/guest_mem.h:
tests/unit/../../vmm/mem/layout.h:
tests/unit/../../vmm/mem/guest_text.h:
