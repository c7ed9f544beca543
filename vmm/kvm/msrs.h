/* struct kvm_msrs (KVM_GET_MSRS, KVM_SET_MSRS) ends in a flexible array of
 * entries: the header and its n entries in one object. A struct with both
 * as members is a GNU extension (clang's -Wgnu-variable-sized-type-not-at-end);
 * a union with room for them is C11. Use .hdr and .hdr.entries[i]. */
#ifndef HANDOVER_MSRS_H
#define HANDOVER_MSRS_H

#include <linux/kvm.h>
#include <stdint.h>

#define KVM_MSRS_WITH(n) \
    union { struct kvm_msrs hdr; uint8_t room[sizeof(struct kvm_msrs) + (n) * sizeof(struct kvm_msr_entry)]; }

#endif
