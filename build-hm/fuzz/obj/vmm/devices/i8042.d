build-hm/fuzz/obj/vmm/devices/i8042.o: vmm/devices/i8042.c \
  vmm/devices/control_ports.h vmm/devices/io_bus.h \
  vmm/devices/../mem/layout.h

vmm/devices/control_ports.h:

vmm/devices/io_bus.h:

vmm/devices/../mem/layout.h:
