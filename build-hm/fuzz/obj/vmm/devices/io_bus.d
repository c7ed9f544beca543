build-hm/fuzz/obj/vmm/devices/io_bus.o: vmm/devices/io_bus.c \
  vmm/devices/io_bus.h

vmm/devices/io_bus.h:
