build-hm/fuzz/obj/firmware-stub/memmap.o: firmware-stub/memmap.c \
  firmware-stub/memmap.h firmware-stub/efi.h firmware-stub/services.h \
  firmware-stub/../loader/bootparam.h \
  firmware-stub/../vmm/mem/guest_mem.h firmware-stub/../vmm/mem/layout.h

firmware-stub/memmap.h:

firmware-stub/efi.h:

firmware-stub/services.h:

firmware-stub/../loader/bootparam.h:

firmware-stub/../vmm/mem/guest_mem.h:

firmware-stub/../vmm/mem/layout.h:
