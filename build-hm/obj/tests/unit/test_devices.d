build-hm/obj/tests/unit/test_devices.o: tests/unit/test_devices.c \
 tests/unit/suites.h tests/unit/../../vmm/devices/control_ports.h \
 tests/unit/../../vmm/devices/io_bus.h \
 tests/unit/../../vmm/devices/io_bus.h \
 tests/unit/../../vmm/devices/persist.h \
 tests/unit/../../vmm/devices/console_line.h \
 tests/unit/../../vmm/devices/control_ports.h \
 tests/unit/../../vmm/devices/serial.h \
 tests/unit/../../vmm/devices/../verdict/run_counters.h \
 tests/unit/../../vmm/mem/layout.h tests/unit/../../vmm/devices/serial.h
tests/unit/suites.h:
tests/unit/../../vmm/devices/control_ports.h:
tests/unit/../../vmm/devices/io_bus.h:
tests/unit/../../vmm/devices/io_bus.h:
tests/unit/../../vmm/devices/persist.h:
tests/unit/../../vmm/devices/console_line.h:
tests/unit/../../vmm/devices/control_ports.h:
tests/unit/../../vmm/devices/serial.h:
tests/unit/../../vmm/devices/../verdict/run_counters.h:
tests/unit/../../vmm/mem/layout.h:
tests/unit/../../vmm/devices/serial.h:
