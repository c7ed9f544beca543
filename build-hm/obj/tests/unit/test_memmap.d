build-hm/obj/tests/unit/test_memmap.o: tests/unit/test_memmap.c \
 tests/unit/suites.h tests/unit/../../firmware-stub/memmap.h \
 tests/unit/../../firmware-stub/efi.h \
 tests/unit/../../firmware-stub/services.h \
 tests/unit/../../loader/bootparam.h
tests/unit/suites.h:
tests/unit/../../firmware-stub/memmap.h:
tests/unit/../../firmware-stub/efi.h:
tests/unit/../../firmware-stub/services.h:
tests/unit/../../loader/bootparam.h:
