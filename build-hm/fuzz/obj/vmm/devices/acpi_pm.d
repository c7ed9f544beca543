build-hm/fuzz/obj/vmm/devices/acpi_pm.o: vmm/devices/acpi_pm.c \
  vmm/devices/control_ports.h vmm/devices/io_bus.h \
  vmm/devices/../mem/layout.h

vmm/devices/control_ports.h:

vmm/devices/io_bus.h:

vmm/devices/../mem/layout.h:
