build-hm/fuzz/obj/loader/dtb.o: loader/dtb.c loader/dtb.h

loader/dtb.h:
