#include "memmap.h"

#include <string.h>

#include "../guest/bootparam.h"
#include "../guest/guest_mem.h"

#define PAGE_SHIFT 12
#define PAGE_BYTES (1ULL << PAGE_SHIFT)

void memmap_init(struct memmap *m)
{
    memset(m, 0, sizeof(*m));
    m->key = 1;
}

static uint64_t entry_end(const struct memmap_entry *e) { return e->start + (e->pages << PAGE_SHIFT); }

uint64_t memmap_attributes(uint32_t type)
{
    uint64_t a = EFI_MEMORY_UC | EFI_MEMORY_WC | EFI_MEMORY_WT | EFI_MEMORY_WB;
    if (type == EFI_RUNTIME_SERVICES_CODE || type == EFI_RUNTIME_SERVICES_DATA)
        a |= EFI_MEMORY_RUNTIME;
    return a;
}

bool memmap_type_allocatable(uint32_t type)
{
    /* UEFI 2.10 AllocatePages: EfiMaxMemoryType..0x6FFFFFFF is invalid, so
     * are EfiConventionalMemory and EfiPersistentMemory; the OEM and OS
     * ranges are allowed. */
    if (type >= EFI_OEM_MEMORY_TYPE_FIRST)
        return true;
    if (type >= EFI_MAX_MEMORY_TYPE || type == EFI_CONVENTIONAL_MEMORY || type == EFI_PERSISTENT_MEMORY ||
        type == EFI_UNACCEPTED_MEMORY_TYPE)
        return false;
    return true;
}

static bool mergeable(const struct memmap_entry *a, const struct memmap_entry *b)
{
    return a->type == b->type && a->fixed == b->fixed && a->attribute == b->attribute && entry_end(a) == b->start;
}

/* Merge the adjacent mergeable entries of e[0..n); returns how many are left. */
static unsigned coalesce_entries(struct memmap_entry *e, unsigned n)
{
    unsigned w = 0;
    for (unsigned r = 0; r < n; r++) {
        if (w && mergeable(&e[w - 1], &e[r]))
            e[w - 1].pages += e[r].pages;
        else
            e[w++] = e[r];
    }
    return w;
}

static void coalesce(struct memmap *m) { m->n = coalesce_entries(m->e, m->n); }

static int insert_at(struct memmap *m, unsigned i, struct memmap_entry e)
{
    if (m->n >= MEMMAP_MAX_ENTRIES)
        return -1;
    memmove(&m->e[i + 1], &m->e[i], (m->n - i) * sizeof(m->e[0]));
    m->e[i] = e;
    m->n++;
    return 0;
}

int memmap_add_ram(struct memmap *m, uint64_t start, uint64_t size)
{
    if ((start | size) & 0xfff || !size || start + size < start)
        return -1;
    unsigned i = 0;
    while (i < m->n && m->e[i].start < start)
        i++;
    if (i > 0 && entry_end(&m->e[i - 1]) > start)
        return -1;
    if (i < m->n && m->e[i].start < start + size)
        return -1;
    struct memmap_entry e = { EFI_CONVENTIONAL_MEMORY, false, start, size >> PAGE_SHIFT,
                              memmap_attributes(EFI_CONVENTIONAL_MEMORY) };
    if (insert_at(m, i, e))
        return -1;
    coalesce(m);
    m->key++;
    return 0;
}

/* Index of the entry containing addr, or -1. */
static int find(const struct memmap *m, uint64_t addr)
{
    for (unsigned i = 0; i < m->n; i++)
        if (addr >= m->e[i].start && addr < entry_end(&m->e[i]))
            return (int)i;
    return -1;
}

const struct memmap_entry *memmap_entry_at(const struct memmap *m, uint64_t addr)
{
    int i = find(m, addr);
    return i < 0 ? NULL : &m->e[i];
}

int memmap_type_at(const struct memmap *m, uint64_t addr)
{
    int i = find(m, addr);
    return i < 0 ? -1 : (int)m->e[i].type;
}

/* Retype [start, start+pages) which lies inside entry i. Entries i-1..i+1
 * become at most five (the neighbours, the part of entry i below the
 * range, the range, the part above), merged where they can be: the change
 * takes only the descriptors left after merging, so a full map still
 * takes a FreePages or an allocation that grows a neighbour. Room is
 * checked first so that failure changes nothing. */
static efi_status_t retype(struct memmap *m, unsigned i, uint64_t start, uint64_t pages, uint32_t type, bool fixed)
{
    struct memmap_entry old = m->e[i], piece[5];
    uint64_t end = start + (pages << PAGE_SHIFT);
    unsigned first = i > 0 ? i - 1 : i, last = i + 1 < m->n ? i + 1 : i, k = 0;
    if (first < i)
        piece[k++] = m->e[first];
    if (start > old.start)
        piece[k++] = (struct memmap_entry){ old.type, old.fixed, old.start, (start - old.start) >> PAGE_SHIFT,
                                            old.attribute };
    piece[k++] = (struct memmap_entry){ type, fixed, start, pages, memmap_attributes(type) };
    if (end < entry_end(&old))
        piece[k++] = (struct memmap_entry){ old.type, old.fixed, end, (entry_end(&old) - end) >> PAGE_SHIFT,
                                            old.attribute };
    if (last > i)
        piece[k++] = m->e[last];
    k = coalesce_entries(piece, k);
    unsigned replaced = last - first + 1;
    if (m->n - replaced + k > MEMMAP_MAX_ENTRIES)
        return EFI_OUT_OF_RESOURCES;
    memmove(&m->e[first + k], &m->e[last + 1], (m->n - last - 1) * sizeof(m->e[0]));
    memcpy(&m->e[first], piece, k * sizeof(m->e[0]));
    m->n = m->n - replaced + k;
    m->key++;
    return EFI_SUCCESS;
}

/* Find the conventional entry wholly containing [start, start+pages). */
static int find_free(const struct memmap *m, uint64_t start, uint64_t pages)
{
    int i = find(m, start);
    if (i < 0 || m->e[i].type != EFI_CONVENTIONAL_MEMORY)
        return -1;
    if (pages > (entry_end(&m->e[i]) - start) >> PAGE_SHIFT)
        return -1;
    return i;
}

efi_status_t memmap_reserve(struct memmap *m, uint64_t start, uint64_t pages, uint32_t type)
{
    if (start & 0xfff || !pages)
        return EFI_INVALID_PARAMETER;
    int i = find_free(m, start, pages);
    if (i < 0)
        return EFI_NOT_FOUND;
    return retype(m, (unsigned)i, start, pages, type, true);
}

/* Highest start, a multiple of align (a power of two, at least a page),
 * with [start, start+pages) in one conventional entry and start+size <=
 * limit. An alignment above a page never gets address 0, which reads as
 * NULL (a LoadedImage's ImageBase). */
static int find_top_down(const struct memmap *m, uint64_t pages, uint64_t limit, uint64_t align, uint64_t *start)
{
    uint64_t size = pages << PAGE_SHIFT;
    for (int i = (int)m->n - 1; i >= 0; i--) {
        const struct memmap_entry *e = &m->e[i];
        if (e->type != EFI_CONVENTIONAL_MEMORY || e->pages < pages)
            continue;
        uint64_t end = entry_end(e) < limit ? entry_end(e) : limit;
        if (end < e->start + size)
            continue;
        uint64_t at = (end - size) & ~(align - 1);
        if (at < e->start || (!at && align > PAGE_BYTES))
            continue;
        *start = at;
        return i;
    }
    return -1;
}

/* Where AllocateAnyPages puts pages: below 4 GiB first. */
static int find_any(const struct memmap *m, uint64_t pages, uint64_t align, uint64_t *start)
{
    int i = find_top_down(m, pages, GUEST_4GIB, align, start);
    return i < 0 ? find_top_down(m, pages, UINT64_MAX, align, start) : i;
}

static efi_status_t allocate(struct memmap *m, uint32_t alloc_type, uint32_t mem_type, uint64_t pages, bool fixed,
                             uint64_t *addr)
{
    if (alloc_type >= EFI_MAX_ALLOCATE_TYPE || !memmap_type_allocatable(mem_type))
        return EFI_INVALID_PARAMETER;
    if (pages == 0 || pages >= (1ULL << (64 - PAGE_SHIFT)))
        return pages ? EFI_OUT_OF_RESOURCES : EFI_INVALID_PARAMETER;
    uint64_t start;
    int i;
    switch (alloc_type) {
    case EFI_ALLOCATE_ADDRESS:
        if (*addr & 0xfff)
            return EFI_INVALID_PARAMETER;
        if (*addr + (pages << PAGE_SHIFT) < *addr)
            return EFI_NOT_FOUND;
        start = *addr;
        i = find_free(m, start, pages);
        if (i < 0)
            return EFI_NOT_FOUND;
        break;
    case EFI_ALLOCATE_MAX_ADDRESS: {
        /* The allocation's last byte must be at or below *addr. */
        uint64_t limit = *addr == UINT64_MAX ? UINT64_MAX : *addr + 1;
        i = find_top_down(m, pages, limit, PAGE_BYTES, &start);
        if (i < 0)
            return EFI_OUT_OF_RESOURCES;
        break;
    }
    default:
        i = find_any(m, pages, PAGE_BYTES, &start);
        if (i < 0)
            return EFI_OUT_OF_RESOURCES;
        break;
    }
    efi_status_t s = retype(m, (unsigned)i, start, pages, mem_type, fixed);
    if (s == EFI_SUCCESS)
        *addr = start;
    return s;
}

efi_status_t memmap_allocate(struct memmap *m, uint32_t alloc_type, uint32_t mem_type,
                             uint64_t pages, uint64_t *addr)
{
    return allocate(m, alloc_type, mem_type, pages, false, addr);
}

efi_status_t memmap_take_below(struct memmap *m, uint32_t type, uint64_t pages, uint64_t max, uint64_t *addr)
{
    *addr = max;
    return allocate(m, EFI_ALLOCATE_MAX_ADDRESS, type, pages, true, addr);
}

/* pages where AllocateAnyPages would put them, at a multiple of align. */
static efi_status_t allocate_any(struct memmap *m, uint32_t type, uint64_t pages, uint64_t align, bool fixed,
                                 uint64_t *addr)
{
    uint64_t start;
    int i = pages ? find_any(m, pages, align, &start) : -1;
    if (i < 0)
        return EFI_OUT_OF_RESOURCES;
    efi_status_t s = retype(m, (unsigned)i, start, pages, type, fixed);
    if (s == EFI_SUCCESS)
        *addr = start;
    return s;
}

efi_status_t memmap_allocate_aligned(struct memmap *m, uint32_t mem_type, uint64_t pages, uint64_t align,
                                     uint64_t *addr)
{
    if (!memmap_type_allocatable(mem_type) || !pages || pages >= (1ULL << (64 - PAGE_SHIFT)) || align & (align - 1))
        return EFI_INVALID_PARAMETER;
    return allocate_any(m, mem_type, pages, align > PAGE_BYTES ? align : PAGE_BYTES, false, addr);
}

efi_status_t memmap_take(struct memmap *m, uint32_t type, uint64_t pages, uint64_t *addr)
{
    return allocate_any(m, type, pages, PAGE_BYTES, true, addr);
}

bool memmap_is_allocated(const struct memmap *m, uint64_t addr, uint64_t len)
{
    uint64_t end = addr + len;
    if (end < addr)
        return false;
    while (addr < end) {
        int i = find(m, addr);
        if (i < 0 || m->e[i].fixed || m->e[i].type == EFI_CONVENTIONAL_MEMORY)
            return false;
        addr = entry_end(&m->e[i]);
    }
    return true;
}

efi_status_t memmap_free(struct memmap *m, uint64_t addr, uint64_t pages)
{
    if (addr & 0xfff)
        return EFI_INVALID_PARAMETER;
    if (!pages || pages >= (1ULL << (64 - PAGE_SHIFT)) || !memmap_is_allocated(m, addr, pages << PAGE_SHIFT))
        return EFI_NOT_FOUND;
    uint64_t end = addr + (pages << PAGE_SHIFT);
    /* The range may span several allocations of different types: free it
     * entry by entry, on a copy, so that running out of descriptors half-way
     * changes nothing. */
    static struct memmap work;
    work = *m;
    while (addr < end) {
        int i = find(&work, addr);
        uint64_t stop = entry_end(&work.e[i]) < end ? entry_end(&work.e[i]) : end;
        efi_status_t s = retype(&work, (unsigned)i, addr, (stop - addr) >> PAGE_SHIFT, EFI_CONVENTIONAL_MEMORY, false);
        if (s != EFI_SUCCESS)
            return s;
        addr = stop;
    }
    *m = work;
    return EFI_SUCCESS;
}

uint32_t memmap_e820_type(uint32_t efi_type)
{
    switch (efi_type) {
    case EFI_LOADER_CODE:
    case EFI_LOADER_DATA:
    case EFI_BOOT_SERVICES_CODE:
    case EFI_BOOT_SERVICES_DATA:
    case EFI_CONVENTIONAL_MEMORY:
        return E820_TYPE_RAM;
    case EFI_ACPI_RECLAIM_MEMORY:
        return E820_TYPE_ACPI;
    case EFI_ACPI_MEMORY_NVS:
        return E820_TYPE_NVS;
    case EFI_PERSISTENT_MEMORY:
        return E820_TYPE_PMEM;
    case EFI_UNUSABLE_MEMORY:
        return E820_TYPE_UNUSABLE;
    case EFI_RESERVED_MEMORY_TYPE:
    case EFI_RUNTIME_SERVICES_CODE:
    case EFI_RUNTIME_SERVICES_DATA:
    case EFI_MEMORY_MAPPED_IO:
    case EFI_MEMORY_MAPPED_IO_PORT_SPACE:
    case EFI_PAL_CODE:
        return E820_TYPE_RESERVED;
    default:
        return 0;   /* OEM, OS and unaccepted types: setup_e820 skips them */
    }
}
