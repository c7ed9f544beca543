build-hm/fuzz/obj/vmm/mem/guest_text.o: vmm/mem/guest_text.c \
  vmm/mem/guest_text.h

vmm/mem/guest_text.h:
