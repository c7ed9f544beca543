build-hm/obj/vmm/kvm/kvm.o: vmm/kvm/kvm.c vmm/kvm/../x86/cpuid.h \
 vmm/kvm/host_probe.h vmm/kvm/msrs.h vmm/kvm/../mem/layout.h \
 vmm/kvm/../vmm.h vmm/kvm/../../firmware-stub/firmware.h \
 vmm/kvm/../../firmware-stub/efi.h vmm/kvm/../../firmware-stub/services.h \
 vmm/kvm/../../firmware-stub/inject.h \
 vmm/kvm/../../firmware-stub/memmap.h \
 vmm/kvm/../../firmware-stub/../vmm/mem/guest_mem.h \
 vmm/kvm/../../firmware-stub/../vmm/mem/layout.h \
 vmm/kvm/../../firmware-stub/../vmm/mem/layout.h \
 vmm/kvm/../verdict/exit_status.h vmm/kvm/../verdict/fault_outcome.h \
 vmm/kvm/../verdict/../../firmware-stub/inject.h vmm/kvm/../boot.h \
 vmm/kvm/../../loader/bzimage.h vmm/kvm/../../loader/bootparam.h \
 vmm/kvm/../../loader/pe.h vmm/kvm/../../loader/../vmm/mem/guest_mem.h \
 vmm/kvm/../../loader/cpio.h vmm/kvm/../console.h \
 vmm/kvm/../devices/console_line.h vmm/kvm/../verdict/console_watch.h \
 vmm/kvm/../host/files.h vmm/kvm/../tools/report.h \
 vmm/kvm/../tools/../../firmware-stub/memmap.h \
 vmm/kvm/../tools/../../loader/bootparam.h vmm/kvm/../options.h \
 vmm/kvm/../../firmware-stub/inject.h vmm/kvm/../host/add_files.h \
 vmm/kvm/../host/../../loader/cpio.h vmm/kvm/../tools/fault_sweep.h \
 vmm/kvm/../tools/../../firmware-stub/firmware.h \
 vmm/kvm/../devices/control_ports.h vmm/kvm/../devices/io_bus.h \
 vmm/kvm/../mem/guest_mem.h vmm/kvm/../devices/io_bus.h \
 vmm/kvm/../verdict/ktap.h vmm/kvm/../verdict/run_counters.h \
 vmm/kvm/../devices/serial.h vmm/kvm/../x86/x86_setup.h \
 vmm/kvm/../x86/../mem/guest_mem.h
vmm/kvm/../x86/cpuid.h:
vmm/kvm/host_probe.h:
vmm/kvm/msrs.h:
vmm/kvm/../mem/layout.h:
vmm/kvm/../vmm.h:
vmm/kvm/../../firmware-stub/firmware.h:
vmm/kvm/../../firmware-stub/efi.h:
vmm/kvm/../../firmware-stub/services.h:
vmm/kvm/../../firmware-stub/inject.h:
vmm/kvm/../../firmware-stub/memmap.h:
vmm/kvm/../../firmware-stub/../vmm/mem/guest_mem.h:
vmm/kvm/../../firmware-stub/../vmm/mem/layout.h:
vmm/kvm/../../firmware-stub/../vmm/mem/layout.h:
vmm/kvm/../verdict/exit_status.h:
vmm/kvm/../verdict/fault_outcome.h:
vmm/kvm/../verdict/../../firmware-stub/inject.h:
vmm/kvm/../boot.h:
vmm/kvm/../../loader/bzimage.h:
vmm/kvm/../../loader/bootparam.h:
vmm/kvm/../../loader/pe.h:
vmm/kvm/../../loader/../vmm/mem/guest_mem.h:
vmm/kvm/../../loader/cpio.h:
vmm/kvm/../console.h:
vmm/kvm/../devices/console_line.h:
vmm/kvm/../verdict/console_watch.h:
vmm/kvm/../host/files.h:
vmm/kvm/../tools/report.h:
vmm/kvm/../tools/../../firmware-stub/memmap.h:
vmm/kvm/../tools/../../loader/bootparam.h:
vmm/kvm/../options.h:
vmm/kvm/../../firmware-stub/inject.h:
vmm/kvm/../host/add_files.h:
vmm/kvm/../host/../../loader/cpio.h:
vmm/kvm/../tools/fault_sweep.h:
vmm/kvm/../tools/../../firmware-stub/firmware.h:
vmm/kvm/../devices/control_ports.h:
vmm/kvm/../devices/io_bus.h:
vmm/kvm/../mem/guest_mem.h:
vmm/kvm/../devices/io_bus.h:
vmm/kvm/../verdict/ktap.h:
vmm/kvm/../verdict/run_counters.h:
vmm/kvm/../devices/serial.h:
vmm/kvm/../x86/x86_setup.h:
vmm/kvm/../x86/../mem/guest_mem.h:
