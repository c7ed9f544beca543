build-hm/payload/header.o: tests/payload/header.S
