build-hm/obj/tests/sandbox/sandbox_test.o: tests/sandbox/sandbox_test.c \
 tests/sandbox/../../vmm/host/sandbox.h tests/sandbox/../../vmm/vmm.h \
 tests/sandbox/../../vmm/../firmware-stub/firmware.h \
 tests/sandbox/../../vmm/../firmware-stub/efi.h \
 tests/sandbox/../../vmm/../firmware-stub/services.h \
 tests/sandbox/../../vmm/../firmware-stub/inject.h \
 tests/sandbox/../../vmm/../firmware-stub/memmap.h \
 tests/sandbox/../../vmm/../firmware-stub/../vmm/mem/guest_mem.h \
 tests/sandbox/../../vmm/../firmware-stub/../vmm/mem/layout.h \
 tests/sandbox/../../vmm/../firmware-stub/../vmm/mem/layout.h \
 tests/sandbox/../../vmm/verdict/exit_status.h \
 tests/sandbox/../../vmm/verdict/fault_outcome.h \
 tests/sandbox/../../vmm/verdict/../../firmware-stub/inject.h \
 tests/sandbox/../../vmm/boot.h \
 tests/sandbox/../../vmm/../loader/bzimage.h \
 tests/sandbox/../../vmm/../loader/bootparam.h \
 tests/sandbox/../../vmm/../loader/pe.h \
 tests/sandbox/../../vmm/../loader/../vmm/mem/guest_mem.h \
 tests/sandbox/../../vmm/../loader/cpio.h \
 tests/sandbox/../../vmm/console.h \
 tests/sandbox/../../vmm/devices/console_line.h \
 tests/sandbox/../../vmm/verdict/console_watch.h \
 tests/sandbox/../../vmm/host/files.h \
 tests/sandbox/../../vmm/tools/report.h \
 tests/sandbox/../../vmm/tools/../../firmware-stub/memmap.h \
 tests/sandbox/../../vmm/tools/../../loader/bootparam.h \
 tests/sandbox/../../vmm/options.h \
 tests/sandbox/../../vmm/../firmware-stub/inject.h \
 tests/sandbox/../../vmm/host/add_files.h \
 tests/sandbox/../../vmm/host/../../loader/cpio.h \
 tests/sandbox/../../vmm/tools/fault_sweep.h \
 tests/sandbox/../../vmm/tools/../../firmware-stub/firmware.h \
 tests/sandbox/../../vmm/devices/control_ports.h \
 tests/sandbox/../../vmm/devices/io_bus.h \
 tests/sandbox/../../vmm/mem/guest_mem.h \
 tests/sandbox/../../vmm/devices/io_bus.h \
 tests/sandbox/../../vmm/verdict/ktap.h \
 tests/sandbox/../../vmm/verdict/run_counters.h \
 tests/sandbox/../../vmm/devices/serial.h
tests/sandbox/../../vmm/host/sandbox.h:
tests/sandbox/../../vmm/vmm.h:
tests/sandbox/../../vmm/../firmware-stub/firmware.h:
tests/sandbox/../../vmm/../firmware-stub/efi.h:
tests/sandbox/../../vmm/../firmware-stub/services.h:
tests/sandbox/../../vmm/../firmware-stub/inject.h:
tests/sandbox/../../vmm/../firmware-stub/memmap.h:
tests/sandbox/../../vmm/../firmware-stub/../vmm/mem/guest_mem.h:
tests/sandbox/../../vmm/../firmware-stub/../vmm/mem/layout.h:
tests/sandbox/../../vmm/../firmware-stub/../vmm/mem/layout.h:
tests/sandbox/../../vmm/verdict/exit_status.h:
tests/sandbox/../../vmm/verdict/fault_outcome.h:
tests/sandbox/../../vmm/verdict/../../firmware-stub/inject.h:
tests/sandbox/../../vmm/boot.h:
tests/sandbox/../../vmm/../loader/bzimage.h:
tests/sandbox/../../vmm/../loader/bootparam.h:
tests/sandbox/../../vmm/../loader/pe.h:
tests/sandbox/../../vmm/../loader/../vmm/mem/guest_mem.h:
tests/sandbox/../../vmm/../loader/cpio.h:
tests/sandbox/../../vmm/console.h:
tests/sandbox/../../vmm/devices/console_line.h:
tests/sandbox/../../vmm/verdict/console_watch.h:
tests/sandbox/../../vmm/host/files.h:
tests/sandbox/../../vmm/tools/report.h:
tests/sandbox/../../vmm/tools/../../firmware-stub/memmap.h:
tests/sandbox/../../vmm/tools/../../loader/bootparam.h:
tests/sandbox/../../vmm/options.h:
tests/sandbox/../../vmm/../firmware-stub/inject.h:
tests/sandbox/../../vmm/host/add_files.h:
tests/sandbox/../../vmm/host/../../loader/cpio.h:
tests/sandbox/../../vmm/tools/fault_sweep.h:
tests/sandbox/../../vmm/tools/../../firmware-stub/firmware.h:
tests/sandbox/../../vmm/devices/control_ports.h:
tests/sandbox/../../vmm/devices/io_bus.h:
tests/sandbox/../../vmm/mem/guest_mem.h:
tests/sandbox/../../vmm/devices/io_bus.h:
tests/sandbox/../../vmm/verdict/ktap.h:
tests/sandbox/../../vmm/verdict/run_counters.h:
tests/sandbox/../../vmm/devices/serial.h:
