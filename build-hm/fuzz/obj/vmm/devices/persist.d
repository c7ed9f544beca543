build-hm/fuzz/obj/vmm/devices/persist.o: vmm/devices/persist.c \
  vmm/devices/persist.h vmm/devices/console_line.h \
  vmm/devices/control_ports.h vmm/devices/io_bus.h vmm/devices/serial.h \
  vmm/devices/../verdict/run_counters.h

vmm/devices/persist.h:

vmm/devices/console_line.h:

vmm/devices/control_ports.h:

vmm/devices/io_bus.h:

vmm/devices/serial.h:

vmm/devices/../verdict/run_counters.h:
