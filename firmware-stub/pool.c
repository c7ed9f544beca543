/* Pool allocations (pool.h). */
#include "pool.h"

#include "width.h"

static efi_status_t pool_alloc(struct firmware *fw, uint32_t type, uint64_t size, bool own, uint64_t *addr)
{
    if (fw->npools >= FW_MAX_POOLS)
        return EFI_OUT_OF_RESOURCES;
    if (size > (1ULL << 40))
        return EFI_OUT_OF_RESOURCES;
    /* Pool allocations are whole pages of the pool's type: simple, and
     * the memory map stays exact. */
    uint64_t pages = (size + 0xfff) >> 12;
    if (!pages)
        pages = 1;
    uint64_t a = fw_ia32(fw) ? FW_IA32_MAX_ADDRESS : 0;
    efi_status_t s = memmap_allocate(&fw->map, fw_ia32(fw) ? EFI_ALLOCATE_MAX_ADDRESS : EFI_ALLOCATE_ANY_PAGES, type,
                                     pages, &a);
    if (s != EFI_SUCCESS)
        return s;
    fw->pools[fw->npools++] = (struct fw_pool){ a, pages, own };
    *addr = a;
    return EFI_SUCCESS;
}

efi_status_t fw_pool_alloc(struct firmware *fw, uint32_t type, uint64_t size, uint64_t *addr)
{
    return pool_alloc(fw, type, size, false, addr);
}

efi_status_t fw_pool_take(struct firmware *fw, uint32_t type, uint64_t size, uint64_t *addr)
{
    return pool_alloc(fw, type, size, true, addr);
}

efi_status_t fw_pool_free(struct firmware *fw, uint64_t buffer, bool own)
{
    for (unsigned i = 0; i < fw->npools; i++) {
        if (fw->pools[i].addr != buffer)
            continue;
        if (fw->pools[i].own && !own)
            return EFI_INVALID_PARAMETER;
        /* Kept if its pages stay allocated (no descriptor left to split
         * the map with): a retry may succeed. */
        efi_status_t s = memmap_free(&fw->map, fw->pools[i].addr, fw->pools[i].pages);
        if (s == EFI_SUCCESS)
            fw->pools[i] = fw->pools[--fw->npools];
        return s;
    }
    /* Includes FreePool(NULL), which the stub's setup_efi_pci makes. */
    return EFI_INVALID_PARAMETER;
}
