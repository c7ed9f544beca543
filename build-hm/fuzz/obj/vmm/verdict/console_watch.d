build-hm/fuzz/obj/vmm/verdict/console_watch.o: \
  vmm/verdict/console_watch.c vmm/verdict/console_watch.h

vmm/verdict/console_watch.h:
