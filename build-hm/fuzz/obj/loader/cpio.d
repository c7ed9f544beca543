build-hm/fuzz/obj/loader/cpio.o: loader/cpio.c loader/cpio.h

loader/cpio.h:
