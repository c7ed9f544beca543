build-hm/fuzz/obj/vmm/verdict/fault_outcome.o: \
  vmm/verdict/fault_outcome.c vmm/verdict/fault_outcome.h \
  vmm/verdict/../../firmware-stub/inject.h \
  vmm/verdict/../../firmware-stub/efi.h \
  vmm/verdict/../../firmware-stub/services.h vmm/verdict/exit_status.h

vmm/verdict/fault_outcome.h:

vmm/verdict/../../firmware-stub/inject.h:

vmm/verdict/../../firmware-stub/efi.h:

vmm/verdict/../../firmware-stub/services.h:

vmm/verdict/exit_status.h:
