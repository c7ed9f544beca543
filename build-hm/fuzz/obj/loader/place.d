build-hm/fuzz/obj/loader/place.o: loader/place.c loader/place.h \
  loader/../firmware-stub/memmap.h loader/../firmware-stub/efi.h \
  loader/../firmware-stub/services.h loader/../vmm/mem/layout.h

loader/place.h:

loader/../firmware-stub/memmap.h:

loader/../firmware-stub/efi.h:

loader/../firmware-stub/services.h:

loader/../vmm/mem/layout.h:
