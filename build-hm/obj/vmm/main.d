build-hm/obj/vmm/main.o: vmm/main.c vmm/../loader/efi_app.h \
 vmm/../loader/pe.h vmm/../loader/../vmm/mem/guest_mem.h \
 vmm/../loader/../vmm/mem/layout.h vmm/verdict/fault_outcome.h \
 vmm/verdict/../../firmware-stub/inject.h \
 vmm/verdict/../../firmware-stub/efi.h \
 vmm/verdict/../../firmware-stub/services.h vmm/host/files.h \
 vmm/kvm/host_probe.h vmm/mem/layout.h vmm/host/sandbox.h vmm/vmm.h \
 vmm/../firmware-stub/firmware.h vmm/../firmware-stub/efi.h \
 vmm/../firmware-stub/inject.h vmm/../firmware-stub/memmap.h \
 vmm/../firmware-stub/../vmm/mem/guest_mem.h \
 vmm/../firmware-stub/../vmm/mem/layout.h vmm/verdict/exit_status.h \
 vmm/boot.h vmm/../loader/bzimage.h vmm/../loader/bootparam.h \
 vmm/../loader/cpio.h vmm/console.h vmm/devices/console_line.h \
 vmm/verdict/console_watch.h vmm/tools/report.h \
 vmm/tools/../../firmware-stub/memmap.h \
 vmm/tools/../../loader/bootparam.h vmm/options.h \
 vmm/../firmware-stub/inject.h vmm/host/add_files.h \
 vmm/host/../../loader/cpio.h vmm/tools/fault_sweep.h \
 vmm/tools/../../firmware-stub/firmware.h vmm/devices/control_ports.h \
 vmm/devices/io_bus.h vmm/mem/guest_mem.h vmm/devices/io_bus.h \
 vmm/verdict/ktap.h vmm/verdict/run_counters.h vmm/devices/serial.h
vmm/../loader/efi_app.h:
vmm/../loader/pe.h:
vmm/../loader/../vmm/mem/guest_mem.h:
vmm/../loader/../vmm/mem/layout.h:
vmm/verdict/fault_outcome.h:
vmm/verdict/../../firmware-stub/inject.h:
vmm/verdict/../../firmware-stub/efi.h:
vmm/verdict/../../firmware-stub/services.h:
vmm/host/files.h:
vmm/kvm/host_probe.h:
vmm/mem/layout.h:
vmm/host/sandbox.h:
vmm/vmm.h:
vmm/../firmware-stub/firmware.h:
vmm/../firmware-stub/efi.h:
vmm/../firmware-stub/inject.h:
vmm/../firmware-stub/memmap.h:
vmm/../firmware-stub/../vmm/mem/guest_mem.h:
vmm/../firmware-stub/../vmm/mem/layout.h:
vmm/verdict/exit_status.h:
vmm/boot.h:
vmm/../loader/bzimage.h:
vmm/../loader/bootparam.h:
vmm/../loader/cpio.h:
vmm/console.h:
vmm/devices/console_line.h:
vmm/verdict/console_watch.h:
vmm/tools/report.h:
vmm/tools/../../firmware-stub/memmap.h:
vmm/tools/../../loader/bootparam.h:
vmm/options.h:
vmm/../firmware-stub/inject.h:
vmm/host/add_files.h:
vmm/host/../../loader/cpio.h:
vmm/tools/fault_sweep.h:
vmm/tools/../../firmware-stub/firmware.h:
vmm/devices/control_ports.h:
vmm/devices/io_bus.h:
vmm/mem/guest_mem.h:
vmm/devices/io_bus.h:
vmm/verdict/ktap.h:
vmm/verdict/run_counters.h:
vmm/devices/serial.h:
