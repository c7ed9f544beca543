build-hm/fuzz/obj/vmm/mem/mem_delta.o: vmm/mem/mem_delta.c \
  vmm/mem/mem_delta.h vmm/mem/guest_mem.h vmm/mem/layout.h

vmm/mem/mem_delta.h:

vmm/mem/guest_mem.h:

vmm/mem/layout.h:
