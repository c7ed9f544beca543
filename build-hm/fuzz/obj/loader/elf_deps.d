build-hm/fuzz/obj/loader/elf_deps.o: loader/elf_deps.c loader/elf_deps.h

loader/elf_deps.h:
