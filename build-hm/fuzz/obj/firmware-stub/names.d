build-hm/fuzz/obj/firmware-stub/names.o: firmware-stub/names.c \
  firmware-stub/efi.h firmware-stub/services.h firmware-stub/guids.h

firmware-stub/efi.h:

firmware-stub/services.h:

firmware-stub/guids.h:
