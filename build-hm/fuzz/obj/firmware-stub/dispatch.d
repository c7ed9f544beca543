build-hm/fuzz/obj/firmware-stub/dispatch.o: firmware-stub/dispatch.c \
  firmware-stub/internal.h firmware-stub/firmware.h firmware-stub/efi.h \
  firmware-stub/services.h firmware-stub/inject.h firmware-stub/memmap.h \
  firmware-stub/../vmm/mem/guest_mem.h firmware-stub/../vmm/mem/layout.h \
  firmware-stub/guids.h firmware-stub/../vmm/mem/guest_text.h

firmware-stub/internal.h:

firmware-stub/firmware.h:

firmware-stub/efi.h:

firmware-stub/services.h:

firmware-stub/inject.h:

firmware-stub/memmap.h:

firmware-stub/../vmm/mem/guest_mem.h:

firmware-stub/../vmm/mem/layout.h:

firmware-stub/guids.h:

firmware-stub/../vmm/mem/guest_text.h:
