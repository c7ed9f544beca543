build-hm/obj/tests/unit/main.o: tests/unit/main.c tests/unit/suites.h
tests/unit/suites.h:
