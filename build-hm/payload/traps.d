build-hm/payload/traps.o: tests/payload/traps.S
