build-hm/fuzz/obj/vmm/x86/cpuid.o: vmm/x86/cpuid.c vmm/x86/cpuid.h

vmm/x86/cpuid.h:
