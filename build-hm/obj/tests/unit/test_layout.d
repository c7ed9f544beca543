build-hm/obj/tests/unit/test_layout.o: tests/unit/test_layout.c \
 tests/unit/suites.h tests/unit/../../loader/bootparam.h \
 tests/unit/../../firmware-stub/efi.h \
 tests/unit/../../firmware-stub/services.h \
 tests/unit/../../firmware-stub/firmware.h \
 tests/unit/../../firmware-stub/efi.h \
 tests/unit/../../firmware-stub/inject.h \
 tests/unit/../../firmware-stub/memmap.h \
 tests/unit/../../firmware-stub/../vmm/mem/guest_mem.h \
 tests/unit/../../firmware-stub/../vmm/mem/layout.h \
 tests/unit/../../firmware-stub/../vmm/mem/layout.h \
 tests/unit/../../firmware-stub/guids.h tests/unit/../../vmm/mem/layout.h
tests/unit/suites.h:
tests/unit/../../loader/bootparam.h:
tests/unit/../../firmware-stub/efi.h:
tests/unit/../../firmware-stub/services.h:
tests/unit/../../firmware-stub/firmware.h:
tests/unit/../../firmware-stub/efi.h:
tests/unit/../../firmware-stub/inject.h:
tests/unit/../../firmware-stub/memmap.h:
tests/unit/../../firmware-stub/../vmm/mem/guest_mem.h:
tests/unit/../../firmware-stub/../vmm/mem/layout.h:
tests/unit/../../firmware-stub/../vmm/mem/layout.h:
tests/unit/../../firmware-stub/guids.h:
tests/unit/../../vmm/mem/layout.h:
