build-hm/fuzz/obj/vmm/devices/console_line.o: vmm/devices/console_line.c \
  vmm/devices/console_line.h

vmm/devices/console_line.h:
