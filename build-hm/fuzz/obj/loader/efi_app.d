build-hm/fuzz/obj/loader/efi_app.o: loader/efi_app.c loader/efi_app.h \
  loader/pe.h loader/../vmm/mem/guest_mem.h loader/../vmm/mem/layout.h \
  loader/bootparam.h

loader/efi_app.h:

loader/pe.h:

loader/../vmm/mem/guest_mem.h:

loader/../vmm/mem/layout.h:

loader/bootparam.h:
