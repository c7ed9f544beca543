build-hm/obj/vmm/tools/bootinfo.o: vmm/tools/bootinfo.c \
 vmm/tools/../mem/guest_text.h vmm/tools/../verdict/e820_check.h \
 vmm/tools/../verdict/../../firmware-stub/memmap.h \
 vmm/tools/../verdict/../../firmware-stub/efi.h \
 vmm/tools/../verdict/../../firmware-stub/services.h \
 vmm/tools/../verdict/../../loader/bootparam.h \
 vmm/tools/../verdict/../mem/guest_mem.h \
 vmm/tools/../verdict/../mem/layout.h vmm/tools/../vmm.h \
 vmm/tools/../../firmware-stub/firmware.h \
 vmm/tools/../../firmware-stub/efi.h \
 vmm/tools/../../firmware-stub/inject.h \
 vmm/tools/../../firmware-stub/memmap.h \
 vmm/tools/../../firmware-stub/../vmm/mem/guest_mem.h \
 vmm/tools/../../firmware-stub/../vmm/mem/layout.h \
 vmm/tools/../verdict/exit_status.h vmm/tools/../verdict/fault_outcome.h \
 vmm/tools/../verdict/../../firmware-stub/inject.h vmm/tools/../boot.h \
 vmm/tools/../../loader/bzimage.h vmm/tools/../../loader/bootparam.h \
 vmm/tools/../../loader/pe.h \
 vmm/tools/../../loader/../vmm/mem/guest_mem.h \
 vmm/tools/../../loader/cpio.h vmm/tools/../console.h \
 vmm/tools/../devices/console_line.h vmm/tools/../verdict/console_watch.h \
 vmm/tools/../host/files.h vmm/tools/../tools/report.h \
 vmm/tools/../tools/../../firmware-stub/memmap.h \
 vmm/tools/../tools/../../loader/bootparam.h vmm/tools/../options.h \
 vmm/tools/../../firmware-stub/inject.h vmm/tools/../host/add_files.h \
 vmm/tools/../host/../../loader/cpio.h vmm/tools/../tools/fault_sweep.h \
 vmm/tools/../tools/../../firmware-stub/firmware.h \
 vmm/tools/../devices/control_ports.h vmm/tools/../devices/io_bus.h \
 vmm/tools/../mem/guest_mem.h vmm/tools/../devices/io_bus.h \
 vmm/tools/../verdict/ktap.h vmm/tools/../verdict/run_counters.h \
 vmm/tools/../devices/serial.h
vmm/tools/../mem/guest_text.h:
vmm/tools/../verdict/e820_check.h:
vmm/tools/../verdict/../../firmware-stub/memmap.h:
vmm/tools/../verdict/../../firmware-stub/efi.h:
vmm/tools/../verdict/../../firmware-stub/services.h:
vmm/tools/../verdict/../../loader/bootparam.h:
vmm/tools/../verdict/../mem/guest_mem.h:
vmm/tools/../verdict/../mem/layout.h:
vmm/tools/../vmm.h:
vmm/tools/../../firmware-stub/firmware.h:
vmm/tools/../../firmware-stub/efi.h:
vmm/tools/../../firmware-stub/inject.h:
vmm/tools/../../firmware-stub/memmap.h:
vmm/tools/../../firmware-stub/../vmm/mem/guest_mem.h:
vmm/tools/../../firmware-stub/../vmm/mem/layout.h:
vmm/tools/../verdict/exit_status.h:
vmm/tools/../verdict/fault_outcome.h:
vmm/tools/../verdict/../../firmware-stub/inject.h:
vmm/tools/../boot.h:
vmm/tools/../../loader/bzimage.h:
vmm/tools/../../loader/bootparam.h:
vmm/tools/../../loader/pe.h:
vmm/tools/../../loader/../vmm/mem/guest_mem.h:
vmm/tools/../../loader/cpio.h:
vmm/tools/../console.h:
vmm/tools/../devices/console_line.h:
vmm/tools/../verdict/console_watch.h:
vmm/tools/../host/files.h:
vmm/tools/../tools/report.h:
vmm/tools/../tools/../../firmware-stub/memmap.h:
vmm/tools/../tools/../../loader/bootparam.h:
vmm/tools/../options.h:
vmm/tools/../../firmware-stub/inject.h:
vmm/tools/../host/add_files.h:
vmm/tools/../host/../../loader/cpio.h:
vmm/tools/../tools/fault_sweep.h:
vmm/tools/../tools/../../firmware-stub/firmware.h:
vmm/tools/../devices/control_ports.h:
vmm/tools/../devices/io_bus.h:
vmm/tools/../mem/guest_mem.h:
vmm/tools/../devices/io_bus.h:
vmm/tools/../verdict/ktap.h:
vmm/tools/../verdict/run_counters.h:
vmm/tools/../devices/serial.h:
