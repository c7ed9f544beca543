build-hm/fuzz/fuzz_devices: tests/fuzz/fuzz_devices.c \
  tests/fuzz/../../firmware-stub/acpi.h \
  tests/fuzz/../../firmware-stub/../vmm/mem/layout.h \
  tests/fuzz/../../firmware-stub/firmware.h \
  tests/fuzz/../../firmware-stub/efi.h \
  tests/fuzz/../../firmware-stub/services.h \
  tests/fuzz/../../firmware-stub/inject.h \
  tests/fuzz/../../firmware-stub/memmap.h \
  tests/fuzz/../../firmware-stub/../vmm/mem/guest_mem.h \
  tests/fuzz/../../vmm/devices/control_ports.h \
  tests/fuzz/../../vmm/devices/io_bus.h \
  tests/fuzz/../../vmm/mem/layout.h \
  tests/fuzz/../../vmm/devices/serial.h tests/fuzz/fuzz_input.h

tests/fuzz/../../firmware-stub/acpi.h:

tests/fuzz/../../firmware-stub/../vmm/mem/layout.h:

tests/fuzz/../../firmware-stub/firmware.h:

tests/fuzz/../../firmware-stub/efi.h:

tests/fuzz/../../firmware-stub/services.h:

tests/fuzz/../../firmware-stub/inject.h:

tests/fuzz/../../firmware-stub/memmap.h:

tests/fuzz/../../firmware-stub/../vmm/mem/guest_mem.h:

tests/fuzz/../../vmm/devices/control_ports.h:

tests/fuzz/../../vmm/devices/io_bus.h:

tests/fuzz/../../vmm/mem/layout.h:

tests/fuzz/../../vmm/devices/serial.h:

tests/fuzz/fuzz_input.h:
