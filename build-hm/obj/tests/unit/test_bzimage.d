build-hm/obj/tests/unit/test_bzimage.o: tests/unit/test_bzimage.c \
 tests/unit/suites.h tests/unit/../../loader/bzimage.h \
 tests/unit/../../loader/bootparam.h tests/unit/../../loader/pe.h \
 tests/unit/../../loader/../vmm/mem/guest_mem.h \
 tests/unit/../../loader/../vmm/mem/layout.h \
 tests/unit/../../loader/place.h \
 tests/unit/../../loader/../firmware-stub/memmap.h \
 tests/unit/../../loader/../firmware-stub/efi.h \
 tests/unit/../../loader/../firmware-stub/services.h \
 tests/unit/../../vmm/mem/layout.h
tests/unit/suites.h:
tests/unit/../../loader/bzimage.h:
tests/unit/../../loader/bootparam.h:
tests/unit/../../loader/pe.h:
tests/unit/../../loader/../vmm/mem/guest_mem.h:
tests/unit/../../loader/../vmm/mem/layout.h:
tests/unit/../../loader/place.h:
tests/unit/../../loader/../firmware-stub/memmap.h:
tests/unit/../../loader/../firmware-stub/efi.h:
tests/unit/../../loader/../firmware-stub/services.h:
tests/unit/../../vmm/mem/layout.h:
