build-hm/fuzz/obj/vmm/devices/exit_port.o: vmm/devices/exit_port.c \
  vmm/devices/control_ports.h vmm/devices/io_bus.h \
  vmm/devices/../mem/layout.h

vmm/devices/control_ports.h:

vmm/devices/io_bus.h:

vmm/devices/../mem/layout.h:
