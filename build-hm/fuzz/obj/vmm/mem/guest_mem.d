build-hm/fuzz/obj/vmm/mem/guest_mem.o: vmm/mem/guest_mem.c \
  vmm/mem/guest_mem.h vmm/mem/layout.h

vmm/mem/guest_mem.h:

vmm/mem/layout.h:
