/* Memory allocation services (UEFI 2.10 section 7.2): AllocatePages,
 * FreePages, GetMemoryMap, AllocatePool and FreePool, over the memory map
 * (memmap.h) and the pool (pool.h). Every guest pointer goes through the
 * guest view; a bad one yields EFI_INVALID_PARAMETER. */
#include "memory.h"

#include <string.h>

#include "log.h"
#include "pool.h"
#include "trace_decode.h"
#include "width.h"

#define MEMORY_DESCRIPTOR_SIZE FW_MEMORY_DESCRIPTOR_SIZE
#define ALLOCATE_PAGES_MEMORY 3  /* AllocatePages' EFI_PHYSICAL_ADDRESS *Memory */

efi_status_t fw_allocate_pages(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    /* Type and MemoryType are enums, 32 bits: the upper half of their
     * registers is not the caller's (UEFI 2.10 §2.3.4.2: the Microsoft x64
     * calling convention, which leaves it undefined). */
    uint32_t type = (uint32_t)a[0], memory_type = (uint32_t)a[1];
    uint64_t pages = a[2], memory_ptr = a[ALLOCATE_PAGES_MEMORY];
    uint64_t addr;
    if (!guest_view_read_u64(v, memory_ptr, &addr) || !fw_writable(v, memory_ptr, 8))
        return EFI_INVALID_PARAMETER;
    if (fw_ia32(fw) && (type == EFI_ALLOCATE_ANY_PAGES || (type == EFI_ALLOCATE_MAX_ADDRESS && addr > FW_IA32_MAX_ADDRESS))) {
        type = EFI_ALLOCATE_MAX_ADDRESS;
        addr = FW_IA32_MAX_ADDRESS;
    }
    efi_status_t s = memmap_allocate(&fw->map, type, memory_type, pages, &addr);
    if (s == EFI_SUCCESS)
        guest_view_write_u64(v, memory_ptr, addr);
    return s;
}

bool fw_allocated_pages(const struct guest_view *v, const uint64_t *a, uint64_t *addr)
{
    return guest_view_read_u64(v, a[ALLOCATE_PAGES_MEMORY], addr);
}

static const char *allocate_type_name(uint32_t t)
{
    static const char *const names[] = { "AllocateAnyPages", "AllocateMaxAddress", "AllocateAddress" };
    return t < 3 ? names[t] : "invalid";
}

void fw_decode_allocate_pages(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                              const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_str(o, "type", allocate_type_name((uint32_t)a[0]));
    fw_trace_memory_type(o, (uint32_t)a[1]);
    fw_trace_u64(o, "pages", a[2]);
    fw_trace_ptr_u64(o, "address", v, a[ALLOCATE_PAGES_MEMORY], true);
}

static bool overlaps(uint64_t a, uint64_t a_len, uint64_t b, uint64_t b_len)
{
    return a_len && b_len && a < b + b_len && b < a + a_len;
}

/* Whose pages [memory, memory + len) touches that AllocatePages did not
 * allocate: the top-level image, one LoadImage holds, or a pool
 * allocation; "" if none. */
static const char *not_allocate_pages(const struct firmware *fw, uint64_t memory, uint64_t len)
{
    if (overlaps(memory, len, fw->cfg.image_base, fw->cfg.image_size))
        return "the top-level image";
    for (unsigned i = 0; i < fw->nimages; i++)
        if (overlaps(memory, len, fw->images[i].base, fw->images[i].pages << 12))
            return fw->images[i].started ? "a started image" : "a loaded image";
    for (unsigned i = 0; i < fw->npools; i++)
        if (overlaps(memory, len, fw->pools[i].addr, fw->pools[i].pages << 12))
            return "a pool allocation";
    return "";
}

/* An image's pages are the firmware's, not an AllocatePages allocation:
 * freeing them would let the allocator hand the running code out again.
 * A pool allocation's are FreePool's: freed under it, they could be handed
 * out again and its FreePool would free the new owner's. EFI_NOT_FOUND,
 * as UEFI 2.10 section 7.2.3 has FreePages answer for pages AllocatePages
 * did not allocate; a range that wraps is memmap_free's to refuse. */
efi_status_t fw_free_pages(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t memory = a[0], pages = a[1];
    const char *owner = pages <= (UINT64_MAX - memory) >> 12 ? not_allocate_pages(fw, memory, pages << 12) : "";
    if (owner[0]) {
        fw_log(fw, "guest bug: FreePages(0x%llx, %llu pages) would free %s's pages: EFI_NOT_FOUND",
               (unsigned long long)memory, (unsigned long long)pages, owner);
        return EFI_NOT_FOUND;
    }
    return memmap_free(&fw->map, memory, pages);
}

void fw_decode_free_pages(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                          const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "address", a[0]);
    fw_trace_u64(o, "pages", a[1]);
}

efi_status_t fw_get_memory_map(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t size_ptr = a[0], map = a[1], key_ptr = a[2], dsize_ptr = a[3], dver_ptr = a[4];
    uint64_t size;
    unsigned w = fw_uintn_size(fw);
    if (!fw_read_uintn(fw, v, size_ptr, &size) || !fw_writable(v, size_ptr, w))
        return EFI_INVALID_PARAMETER;
    if ((dsize_ptr && !fw_writable(v, dsize_ptr, w)) || (dver_ptr && !fw_writable(v, dver_ptr, 4)))
        return EFI_INVALID_PARAMETER;
    uint64_t needed = (uint64_t)fw->map.n * MEMORY_DESCRIPTOR_SIZE;
    uint32_t version = EFI_MEMORY_DESCRIPTOR_VERSION;
    /* The size probe must fill MapSize and DescriptorSize
     * (drivers/firmware/efi/libstub/mem.c efi_get_memory_map: the first call
     * passes a zero MapSize and sizes its buffer from both). */
    if (dsize_ptr)
        fw_write_uintn(fw, v, dsize_ptr, MEMORY_DESCRIPTOR_SIZE);
    if (dver_ptr)
        guest_view_write(v, dver_ptr, &version, 4);
    if (size < needed) {
        fw_write_uintn(fw, v, size_ptr, needed);
        return EFI_BUFFER_TOO_SMALL;
    }
    if (!fw_writable(v, map, needed) || (key_ptr && !fw_writable(v, key_ptr, w)))
        return EFI_INVALID_PARAMETER;
    for (unsigned i = 0; i < fw->map.n; i++) {
        const struct memmap_entry *e = &fw->map.e[i];
        uint8_t d[MEMORY_DESCRIPTOR_SIZE] = { 0 };
        struct efi_memory_descriptor md = { e->type, 0, e->start, 0, e->pages, e->attribute };
        memcpy(d, &md, sizeof(md));
        guest_view_write(v, map + (uint64_t)i * MEMORY_DESCRIPTOR_SIZE, d, sizeof(d));
    }
    fw_write_uintn(fw, v, size_ptr, needed);
    if (key_ptr)
        fw_write_uintn(fw, v, key_ptr, fw->map.key);
    return EFI_SUCCESS;
}

void fw_decode_get_memory_map(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                              const uint64_t *a, efi_status_t status)
{
    (void)s;
    fw_trace_ptr_uintn(o, "map_size", v, a[0], false);
    /* Only a successful call sets *MapKey: otherwise it is whatever the
     * caller's stack held. */
    if (status == EFI_SUCCESS)
        fw_trace_ptr_uintn(o, "map_key", v, a[2], false);
}

efi_status_t fw_allocate_pool(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint32_t pool_type = (uint32_t)a[0];   /* an enum, as AllocatePages' MemoryType */
    uint64_t size = a[1], buffer_ptr = a[2];
    uint64_t addr;
    if (!fw_writable(v, buffer_ptr, fw_uintn_size(fw)) || !memmap_type_allocatable(pool_type))
        return EFI_INVALID_PARAMETER;
    efi_status_t s = fw_pool_alloc(fw, pool_type, size, &addr);
    if (s == EFI_SUCCESS)
        fw_write_uintn(fw, v, buffer_ptr, addr);
    return s;
}

void fw_decode_allocate_pool(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                             const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_memory_type(o, (uint32_t)a[0]);
    fw_trace_u64(o, "size", a[1]);
    fw_trace_ptr_uintn(o, "buffer", v, a[2], true);
}

efi_status_t fw_free_pool(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t buffer = a[0];
    return fw_pool_free(fw, buffer, false);
}

void fw_decode_free_pool(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                         const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "buffer", a[0]);
}
