build-hm/fuzz/obj/vmm/x86/x86_setup.o: vmm/x86/x86_setup.c \
  vmm/x86/x86_setup.h vmm/x86/../mem/guest_mem.h vmm/x86/../mem/layout.h

vmm/x86/x86_setup.h:

vmm/x86/../mem/guest_mem.h:

vmm/x86/../mem/layout.h:
