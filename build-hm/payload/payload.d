build-hm/payload/payload.o: tests/payload/payload.c tests/payload/efi.h
tests/payload/efi.h:
