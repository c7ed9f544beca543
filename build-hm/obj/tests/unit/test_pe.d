build-hm/obj/tests/unit/test_pe.o: tests/unit/test_pe.c \
 tests/unit/suites.h tests/unit/../../loader/bzimage.h \
 tests/unit/../../loader/bootparam.h tests/unit/../../loader/pe.h \
 tests/unit/../../loader/../vmm/mem/guest_mem.h \
 tests/unit/../../loader/../vmm/mem/layout.h \
 tests/unit/../../loader/efi_app.h tests/unit/../../loader/pe.h
tests/unit/suites.h:
tests/unit/../../loader/bzimage.h:
tests/unit/../../loader/bootparam.h:
tests/unit/../../loader/pe.h:
tests/unit/../../loader/../vmm/mem/guest_mem.h:
tests/unit/../../loader/../vmm/mem/layout.h:
tests/unit/../../loader/efi_app.h:
tests/unit/../../loader/pe.h:
