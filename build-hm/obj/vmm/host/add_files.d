build-hm/obj/vmm/host/add_files.o: vmm/host/add_files.c \
 vmm/host/add_files.h vmm/host/../../loader/cpio.h \
 vmm/host/../../loader/elf_deps.h vmm/host/files.h \
 build-hm/gen/handover_init.h vmm/host/../vmm.h \
 vmm/host/../../firmware-stub/firmware.h \
 vmm/host/../../firmware-stub/efi.h \
 vmm/host/../../firmware-stub/services.h \
 vmm/host/../../firmware-stub/inject.h \
 vmm/host/../../firmware-stub/memmap.h \
 vmm/host/../../firmware-stub/../vmm/mem/guest_mem.h \
 vmm/host/../../firmware-stub/../vmm/mem/layout.h \
 vmm/host/../../firmware-stub/../vmm/mem/layout.h \
 vmm/host/../verdict/exit_status.h vmm/host/../verdict/fault_outcome.h \
 vmm/host/../verdict/../../firmware-stub/inject.h vmm/host/../boot.h \
 vmm/host/../../loader/bzimage.h vmm/host/../../loader/bootparam.h \
 vmm/host/../../loader/pe.h vmm/host/../../loader/../vmm/mem/guest_mem.h \
 vmm/host/../../loader/cpio.h vmm/host/../console.h \
 vmm/host/../devices/console_line.h vmm/host/../verdict/console_watch.h \
 vmm/host/../host/files.h vmm/host/../tools/report.h \
 vmm/host/../tools/../../firmware-stub/memmap.h \
 vmm/host/../tools/../../loader/bootparam.h vmm/host/../options.h \
 vmm/host/../../firmware-stub/inject.h vmm/host/../host/add_files.h \
 vmm/host/../tools/fault_sweep.h \
 vmm/host/../tools/../../firmware-stub/firmware.h \
 vmm/host/../devices/control_ports.h vmm/host/../devices/io_bus.h \
 vmm/host/../mem/guest_mem.h vmm/host/../devices/io_bus.h \
 vmm/host/../verdict/ktap.h vmm/host/../verdict/run_counters.h \
 vmm/host/../devices/serial.h
vmm/host/add_files.h:
vmm/host/../../loader/cpio.h:
vmm/host/../../loader/elf_deps.h:
vmm/host/files.h:
build-hm/gen/handover_init.h:
vmm/host/../vmm.h:
vmm/host/../../firmware-stub/firmware.h:
vmm/host/../../firmware-stub/efi.h:
vmm/host/../../firmware-stub/services.h:
vmm/host/../../firmware-stub/inject.h:
vmm/host/../../firmware-stub/memmap.h:
vmm/host/../../firmware-stub/../vmm/mem/guest_mem.h:
vmm/host/../../firmware-stub/../vmm/mem/layout.h:
vmm/host/../../firmware-stub/../vmm/mem/layout.h:
vmm/host/../verdict/exit_status.h:
vmm/host/../verdict/fault_outcome.h:
vmm/host/../verdict/../../firmware-stub/inject.h:
vmm/host/../boot.h:
vmm/host/../../loader/bzimage.h:
vmm/host/../../loader/bootparam.h:
vmm/host/../../loader/pe.h:
vmm/host/../../loader/../vmm/mem/guest_mem.h:
vmm/host/../../loader/cpio.h:
vmm/host/../console.h:
vmm/host/../devices/console_line.h:
vmm/host/../verdict/console_watch.h:
vmm/host/../host/files.h:
vmm/host/../tools/report.h:
vmm/host/../tools/../../firmware-stub/memmap.h:
vmm/host/../tools/../../loader/bootparam.h:
vmm/host/../options.h:
vmm/host/../../firmware-stub/inject.h:
vmm/host/../host/add_files.h:
vmm/host/../tools/fault_sweep.h:
vmm/host/../tools/../../firmware-stub/firmware.h:
vmm/host/../devices/control_ports.h:
vmm/host/../devices/io_bus.h:
vmm/host/../mem/guest_mem.h:
vmm/host/../devices/io_bus.h:
vmm/host/../verdict/ktap.h:
vmm/host/../verdict/run_counters.h:
vmm/host/../devices/serial.h:
