/* The memory-attribute check (memattr_check.h). */
#include "memattr_check.h"

#include <string.h>

#include "../../guest/page_prot.h"

/* A kernel page as the stub leaves it: present, and executable if read-only. */
static bool prot_ok(unsigned prot)
{
    return !(prot & PAGE_PROT_NOT_PRESENT) && (!(prot & PAGE_PROT_READ_ONLY) || !(prot & PAGE_PROT_NO_EXECUTE));
}

/* Every page of [start, end) judged into c->ok, and listed in runs of one
 * protection, the first MEMATTR_MAX_RUNS of them: a run grows only with the
 * pages right after it. False if the map does not reach one of them. */
static bool runs_of(const struct guest_mem *gm, uint64_t start, uint64_t end, struct memattr_check *c)
{
    uint64_t next;
    unsigned prot;
    for (uint64_t a = start; a < end; a = next) {
        if (!page_prot_get(gm, a, &prot, &next))
            return false;
        if (next > end)
            next = end;
        c->ok &= prot_ok(prot);
        struct memattr_run *last = c->nruns ? &c->run[c->nruns - 1] : NULL;
        if (last && last->end == a && last->prot == prot)
            last->end = next;
        else if (c->nruns < MEMATTR_MAX_RUNS)
            c->run[c->nruns++] = (struct memattr_run){ a, next, prot };
        else
            c->more = true;
    }
    return true;
}

static bool has_read_only(const struct guest_mem *gm, uint64_t start, uint64_t end)
{
    uint64_t next;
    unsigned prot;
    for (uint64_t a = start; a < end; a = next)
        if (!page_prot_get(gm, a, &prot, &next) || (prot & PAGE_PROT_READ_ONLY))
            return true;
    return false;
}

void memattr_check(const struct guest_mem *gm, const struct memmap *m, struct memattr_check *out)
{
    memset(out, 0, sizeof(*out));
    for (unsigned i = 0; i < m->n && !out->found; i++) {
        const struct memmap_entry *e = &m->e[i];
        uint64_t end = e->start + (e->pages << 12);
        if (e->type == EFI_LOADER_CODE && has_read_only(gm, e->start, end)) {
            out->found = true;
            out->start = e->start;
            out->end = end;
        }
    }
    if (!out->found)
        return;
    out->ok = true;
    if (!runs_of(gm, out->start, out->end, out))
        out->ok = false;
}

const char *memattr_prot_name(unsigned prot)
{
    static const char *const names[] = {
        "writable, executable", "not present", "read-only, executable", "not present, read-only",
        "writable, non-executable", "not present, non-executable", "read-only, non-executable",
        "not present, read-only, non-executable",
    };
    return names[prot & 7];
}
