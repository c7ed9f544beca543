build-hm/obj/vmm/kvm/host_probe.o: vmm/kvm/host_probe.c \
 vmm/kvm/host_probe.h vmm/kvm/../mem/guest_mem.h vmm/kvm/../mem/layout.h \
 vmm/kvm/../mem/layout.h vmm/kvm/../x86/x86_setup.h \
 vmm/kvm/../x86/../mem/guest_mem.h
vmm/kvm/host_probe.h:
vmm/kvm/../mem/guest_mem.h:
vmm/kvm/../mem/layout.h:
vmm/kvm/../mem/layout.h:
vmm/kvm/../x86/x86_setup.h:
vmm/kvm/../x86/../mem/guest_mem.h:
