build-hm/fuzz/obj/loader/bzimage.o: loader/bzimage.c loader/bzimage.h \
  loader/bootparam.h loader/pe.h loader/../vmm/mem/guest_mem.h \
  loader/../vmm/mem/layout.h loader/fail.h \
  loader/../vmm/mem/guest_text.h

loader/bzimage.h:

loader/bootparam.h:

loader/pe.h:

loader/../vmm/mem/guest_mem.h:

loader/../vmm/mem/layout.h:

loader/fail.h:

loader/../vmm/mem/guest_text.h:
