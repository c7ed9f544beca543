build-hm/fuzz/obj/loader/pe.o: loader/pe.c loader/pe.h \
  loader/../vmm/mem/guest_mem.h loader/../vmm/mem/layout.h loader/fail.h \
  loader/../vmm/mem/guest_text.h

loader/pe.h:

loader/../vmm/mem/guest_mem.h:

loader/../vmm/mem/layout.h:

loader/fail.h:

loader/../vmm/mem/guest_text.h:
