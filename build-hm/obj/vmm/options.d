build-hm/obj/vmm/options.o: vmm/options.c vmm/options.h \
 vmm/../firmware-stub/inject.h vmm/../firmware-stub/efi.h \
 vmm/../firmware-stub/services.h vmm/../loader/bzimage.h \
 vmm/../loader/bootparam.h vmm/../loader/pe.h \
 vmm/../loader/../vmm/mem/guest_mem.h vmm/../loader/../vmm/mem/layout.h \
 vmm/host/add_files.h vmm/host/../../loader/cpio.h \
 vmm/../firmware-stub/keys.h vmm/mem/layout.h vmm/verdict/exit_status.h \
 vmm/verdict/fault_outcome.h vmm/verdict/../../firmware-stub/inject.h \
 vmm/vmm.h vmm/../firmware-stub/firmware.h vmm/../firmware-stub/inject.h \
 vmm/../firmware-stub/memmap.h \
 vmm/../firmware-stub/../vmm/mem/guest_mem.h \
 vmm/../firmware-stub/../vmm/mem/layout.h vmm/boot.h vmm/../loader/cpio.h \
 vmm/console.h vmm/devices/console_line.h vmm/verdict/console_watch.h \
 vmm/host/files.h vmm/tools/report.h \
 vmm/tools/../../firmware-stub/memmap.h \
 vmm/tools/../../loader/bootparam.h vmm/tools/fault_sweep.h \
 vmm/tools/../../firmware-stub/firmware.h vmm/devices/control_ports.h \
 vmm/devices/io_bus.h vmm/mem/guest_mem.h vmm/devices/io_bus.h \
 vmm/verdict/ktap.h vmm/verdict/run_counters.h vmm/devices/serial.h
vmm/options.h:
vmm/../firmware-stub/inject.h:
vmm/../firmware-stub/efi.h:
vmm/../firmware-stub/services.h:
vmm/../loader/bzimage.h:
vmm/../loader/bootparam.h:
vmm/../loader/pe.h:
vmm/../loader/../vmm/mem/guest_mem.h:
vmm/../loader/../vmm/mem/layout.h:
vmm/host/add_files.h:
vmm/host/../../loader/cpio.h:
vmm/../firmware-stub/keys.h:
vmm/mem/layout.h:
vmm/verdict/exit_status.h:
vmm/verdict/fault_outcome.h:
vmm/verdict/../../firmware-stub/inject.h:
vmm/vmm.h:
vmm/../firmware-stub/firmware.h:
vmm/../firmware-stub/inject.h:
vmm/../firmware-stub/memmap.h:
vmm/../firmware-stub/../vmm/mem/guest_mem.h:
vmm/../firmware-stub/../vmm/mem/layout.h:
vmm/boot.h:
vmm/../loader/cpio.h:
vmm/console.h:
vmm/devices/console_line.h:
vmm/verdict/console_watch.h:
vmm/host/files.h:
vmm/tools/report.h:
vmm/tools/../../firmware-stub/memmap.h:
vmm/tools/../../loader/bootparam.h:
vmm/tools/fault_sweep.h:
vmm/tools/../../firmware-stub/firmware.h:
vmm/devices/control_ports.h:
vmm/devices/io_bus.h:
vmm/mem/guest_mem.h:
vmm/devices/io_bus.h:
vmm/verdict/ktap.h:
vmm/verdict/run_counters.h:
vmm/devices/serial.h:
