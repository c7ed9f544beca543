build-hm/fuzz/obj/vmm/verdict/ktap.o: vmm/verdict/ktap.c \
  vmm/verdict/ktap.h

vmm/verdict/ktap.h:
