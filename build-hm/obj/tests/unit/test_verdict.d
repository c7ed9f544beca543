build-hm/obj/tests/unit/test_verdict.o: tests/unit/test_verdict.c \
 tests/unit/suites.h tests/unit/../../vmm/devices/console_line.h \
 tests/unit/../../vmm/verdict/console_watch.h \
 tests/unit/../../vmm/verdict/e820_check.h \
 tests/unit/../../vmm/verdict/../../firmware-stub/memmap.h \
 tests/unit/../../vmm/verdict/../../firmware-stub/efi.h \
 tests/unit/../../vmm/verdict/../../firmware-stub/services.h \
 tests/unit/../../vmm/verdict/../../loader/bootparam.h \
 tests/unit/../../vmm/verdict/../mem/guest_mem.h \
 tests/unit/../../vmm/verdict/../mem/layout.h \
 tests/unit/../../vmm/verdict/exit_status.h \
 tests/unit/../../vmm/verdict/fault_outcome.h \
 tests/unit/../../vmm/verdict/../../firmware-stub/inject.h \
 tests/unit/../../vmm/verdict/run_counters.h
tests/unit/suites.h:
tests/unit/../../vmm/devices/console_line.h:
tests/unit/../../vmm/verdict/console_watch.h:
tests/unit/../../vmm/verdict/e820_check.h:
tests/unit/../../vmm/verdict/../../firmware-stub/memmap.h:
tests/unit/../../vmm/verdict/../../firmware-stub/efi.h:
tests/unit/../../vmm/verdict/../../firmware-stub/services.h:
tests/unit/../../vmm/verdict/../../loader/bootparam.h:
tests/unit/../../vmm/verdict/../mem/guest_mem.h:
tests/unit/../../vmm/verdict/../mem/layout.h:
tests/unit/../../vmm/verdict/exit_status.h:
tests/unit/../../vmm/verdict/fault_outcome.h:
tests/unit/../../vmm/verdict/../../firmware-stub/inject.h:
tests/unit/../../vmm/verdict/run_counters.h:
