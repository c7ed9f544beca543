build-hm/fuzz/obj/vmm/verdict/run_counters.o: vmm/verdict/run_counters.c \
  vmm/verdict/run_counters.h

vmm/verdict/run_counters.h:
