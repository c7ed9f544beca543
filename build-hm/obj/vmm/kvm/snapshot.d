build-hm/obj/vmm/kvm/snapshot.o: vmm/kvm/snapshot.c vmm/kvm/snapshot.h \
 vmm/kvm/msrs.h
vmm/kvm/snapshot.h:
vmm/kvm/msrs.h:
