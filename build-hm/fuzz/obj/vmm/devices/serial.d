build-hm/fuzz/obj/vmm/devices/serial.o: vmm/devices/serial.c \
  vmm/devices/serial.h vmm/devices/io_bus.h

vmm/devices/serial.h:

vmm/devices/io_bus.h:
