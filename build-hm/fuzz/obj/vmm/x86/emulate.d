build-hm/fuzz/obj/vmm/x86/emulate.o: vmm/x86/emulate.c vmm/x86/emulate.h

vmm/x86/emulate.h:
