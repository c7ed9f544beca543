build-hm/fuzz/obj/vmm/verdict/e820_check.o: vmm/verdict/e820_check.c \
  vmm/verdict/e820_check.h vmm/verdict/../../firmware-stub/memmap.h \
  vmm/verdict/../../firmware-stub/efi.h \
  vmm/verdict/../../firmware-stub/services.h \
  vmm/verdict/../../loader/bootparam.h vmm/verdict/../mem/guest_mem.h \
  vmm/verdict/../mem/layout.h

vmm/verdict/e820_check.h:

vmm/verdict/../../firmware-stub/memmap.h:

vmm/verdict/../../firmware-stub/efi.h:

vmm/verdict/../../firmware-stub/services.h:

vmm/verdict/../../loader/bootparam.h:

vmm/verdict/../mem/guest_mem.h:

vmm/verdict/../mem/layout.h:
