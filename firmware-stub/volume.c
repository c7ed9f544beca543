/* The volume --esp serves (volume.h): a tree in host memory, looked up
 * as a FAT file system is (UEFI 2.10 section 13.3: FAT names are
 * case-insensitive, case-preserving). */
#include "volume.h"

#include <stdlib.h>
#include <string.h>

#define SEPARATOR  u'\\'

unsigned volume_name_len(const uint16_t *s)
{
    unsigned n = 0;
    while (s[n])
        n++;
    return n;
}

/* A small letter as its capital, 0x20 below it: ASCII's and Latin-1's
 * (U+00E0-U+00FE but the division sign), as EDK2's FAT driver compares
 * names (MdeModulePkg's English Unicode collation, EnglishDxe). */
static uint16_t fold(uint16_t c)
{
    bool small = (c >= 'a' && c <= 'z') || (c >= 0xe0 && c <= 0xfe && c != 0xf7);
    return small ? (uint16_t)(c - 0x20) : c;
}

static bool same_name(const uint16_t *a, const uint16_t *b, unsigned b_len)
{
    for (unsigned i = 0; i < b_len; i++)
        if (!a[i] || fold(a[i]) != fold(b[i]))
            return false;
    return !a[b_len];
}

static bool dot(const uint16_t *s, unsigned n) { return n == 1 && s[0] == '.'; }
static bool dotdot(const uint16_t *s, unsigned n) { return n == 2 && s[0] == '.' && s[1] == '.'; }

/* Microsoft's FAT specification, sections 6.1 and 7: a long name holds
 * no control character and none of these. */
static bool fat_forbids(uint16_t c)
{
    static const uint16_t forbidden[] = u"\"*/:<>?\\|";
    for (unsigned i = 0; forbidden[i]; i++)
        if (c == forbidden[i])
            return true;
    return c < 0x20;
}

bool volume_name_valid(const uint16_t *name, unsigned len)
{
    if (!len || len > VOLUME_NAME_MAX || dot(name, len) || dotdot(name, len))
        return false;
    for (unsigned i = 0; i < len; i++)
        if (fat_forbids(name[i]))
            return false;
    return true;
}

static uint16_t *copy_name(const uint16_t *name, unsigned len)
{
    uint16_t *s = malloc(2 * ((size_t)len + 1));
    if (s) {
        memcpy(s, name, 2 * (size_t)len);
        s[len] = 0;
    }
    return s;
}

int volume_init(struct volume *vol, int64_t mtime)
{
    memset(vol, 0, sizeof(*vol));
    vol->owns_base = true;
    static const uint16_t label[] = u"ESP";
    memcpy(vol->label, label, sizeof(label));
    vol->cap = 16;
    vol->node = calloc(vol->cap, sizeof(*vol->node));
    uint16_t *root = copy_name(u"", 0);
    if (!vol->node || !root) {
        free(vol->node);
        free(root);
        return -1;
    }
    vol->node[0] = (struct volume_node){ .name = root, .parent = VOLUME_ROOT, .dir = true,
                                         .attribute = VOLUME_ATTR_DIRECTORY, .mtime = mtime };
    vol->n = 1;
    return 0;
}

void volume_free(struct volume *vol)
{
    for (unsigned i = 0; i < vol->n; i++) {
        free(vol->node[i].name);
        if (vol->node[i].overlay || vol->owns_base)
            free((void *)vol->node[i].data);
    }
    free(vol->node);
    memset(vol, 0, sizeof(*vol));
}

int volume_copy(struct volume *dst, const struct volume *src)
{
    *dst = *src;
    dst->owns_base = false;
    dst->node = calloc(src->cap, sizeof(*dst->node));
    if (!dst->node) {
        dst->n = 0;
        return -1;
    }
    for (unsigned i = 0; i < src->n; i++) {
        const struct volume_node *s = &src->node[i];
        struct volume_node *d = &dst->node[i];
        *d = *s;
        d->data = NULL;
        d->overlay = false;
        d->name = copy_name(s->name, volume_name_len(s->name));
        if (s->overlay) {
            uint8_t *data = malloc(s->size ? s->size : 1);
            if (data) {
                memcpy(data, s->data, s->size);
                d->data = data;
                d->overlay = true;
            }
        } else {
            d->data = s->data;
        }
        if (!d->name || (s->overlay && !d->overlay)) {
            dst->n = i + 1;
            volume_free(dst);
            return -1;
        }
    }
    return 0;
}

uint64_t volume_copy_bytes(const struct volume *vol)
{
    return (uint64_t)vol->cap * sizeof(*vol->node) + (uint64_t)vol->n * 2 * (VOLUME_NAME_MAX + 1) +
           vol->overlay_bytes;
}

long volume_child(const struct volume *vol, unsigned dir, const uint16_t *name, unsigned name_len)
{
    long folded = -1;
    for (unsigned i = 1; i < vol->n; i++) {
        const struct volume_node *c = &vol->node[i];
        if (c->deleted || c->parent != dir || !same_name(c->name, name, name_len))
            continue;
        if (!memcmp(c->name, name, 2 * (size_t)name_len))
            return i;   /* an exact match first, as a host folder may hold names differing in case only */
        if (folded < 0)
            folded = i;
    }
    return folded;
}

long volume_add(struct volume *vol, unsigned parent, const uint16_t *name, unsigned name_len, bool dir,
                uint8_t *data, uint64_t size, int64_t mtime)
{
    if (parent >= vol->n || !vol->node[parent].dir || vol->node[parent].deleted ||
        !volume_name_valid(name, name_len) || size > VOLUME_FILE_MAX || (dir && size) ||
        vol->n >= VOLUME_NODES_MAX || volume_child(vol, parent, name, name_len) >= 0)
        return -1;
    if (vol->n == vol->cap) {
        unsigned cap = 2 * vol->cap;
        struct volume_node *node = realloc(vol->node, cap * sizeof(*node));
        if (!node)
            return -1;
        vol->node = node;
        vol->cap = cap;
    }
    uint16_t *copy = copy_name(name, name_len);
    if (!copy)
        return -1;
    vol->node[vol->n] = (struct volume_node){
        .name = copy, .parent = parent, .dir = dir, .mtime = mtime, .data = data, .size = size,
        .attribute = dir ? VOLUME_ATTR_DIRECTORY : VOLUME_ATTR_ARCHIVE, .overlay = !vol->owns_base && data,
    };
    if (vol->owns_base)
        vol->base_bytes += size;
    else if (data)
        vol->overlay_bytes += size;
    return vol->n++;
}

void volume_resolve(const struct volume *vol, unsigned from, const uint16_t *path, struct volume_lookup *out)
{
    unsigned at = path[0] == SEPARATOR ? VOLUME_ROOT : from, len = volume_name_len(path);
    memset(out, 0, sizeof(*out));
    out->dir_named = len && path[len - 1] == SEPARATOR;
    for (const uint16_t *p = path;;) {
        while (*p == SEPARATOR)
            p++;
        const uint16_t *c = p;
        while (*p && *p != SEPARATOR)
            p++;
        unsigned n = (unsigned)(p - c);
        if (!n && out->dir_named && !vol->node[at].dir) {
            out->found = VOLUME_MISSING;
            return;
        }
        if (!n) {
            out->found = VOLUME_FOUND;
            out->node = at;
            out->parent = vol->node[at].parent;
            return;
        }
        if (n > VOLUME_NAME_MAX) {
            out->found = VOLUME_BAD_NAME;
            return;
        }
        if (dot(c, n))
            continue;
        if (dotdot(c, n)) {
            if (at == VOLUME_ROOT) {
                out->found = VOLUME_ABOVE_ROOT;
                return;
            }
            at = vol->node[at].parent;
            continue;
        }
        long child = vol->node[at].dir ? volume_child(vol, at, c, n) : -1;
        if (child < 0) {
            const uint16_t *rest = p;
            while (*rest == SEPARATOR)
                rest++;
            out->found = !*rest && vol->node[at].dir ? VOLUME_LAST_MISSING : VOLUME_MISSING;
            out->parent = at;
            out->last = c;
            out->last_len = n;
            return;
        }
        at = (unsigned)child;
    }
}

long volume_next_child(const struct volume *vol, unsigned dir, unsigned after)
{
    for (unsigned i = after + 1; i < vol->n; i++)
        if (!vol->node[i].deleted && vol->node[i].parent == dir)
            return i;
    return -1;
}

/* The node's data as the copy's own, of at least size bytes (new bytes
 * zeroed); the overlay's accounting follows. */
static int own_data(struct volume *vol, struct volume_node *f, uint64_t size)
{
    uint64_t had = f->overlay ? f->size : 0;
    if (size > VOLUME_FILE_MAX || vol->owns_base ||
        (size > had && vol->overlay_bytes + (size - had) > VOLUME_OVERLAY_MAX))
        return -1;
    uint8_t *data = f->overlay ? realloc((void *)f->data, size ? size : 1) : malloc(size ? size : 1);
    if (!data)
        return -1;
    if (!f->overlay && f->size)
        memcpy(data, f->data, f->size < size ? f->size : size);
    if (size > f->size)
        memset(data + f->size, 0, size - f->size);
    vol->overlay_bytes = vol->overlay_bytes - had + size;
    f->data = data;
    f->overlay = true;
    f->size = size;
    return 0;
}

int volume_write(struct volume *vol, unsigned node, uint64_t pos, const uint8_t *buf, uint64_t len)
{
    if (node >= vol->n || pos > VOLUME_FILE_MAX || len > VOLUME_FILE_MAX - pos)
        return -1;
    struct volume_node *f = &vol->node[node];
    if (f->dir || f->deleted)
        return -1;
    uint64_t size = pos + len > f->size ? pos + len : f->size;
    if (own_data(vol, f, size))
        return -1;
    memcpy((uint8_t *)f->data + pos, buf, len);
    return 0;
}

int volume_set_size(struct volume *vol, unsigned node, uint64_t size)
{
    if (node >= vol->n || vol->node[node].dir || vol->node[node].deleted)
        return -1;
    return size == vol->node[node].size ? 0 : own_data(vol, &vol->node[node], size);
}

bool volume_may_rename(const struct volume *vol, unsigned node, const uint16_t *name, unsigned name_len)
{
    if (node == VOLUME_ROOT || node >= vol->n || !volume_name_valid(name, name_len))
        return false;
    long other = volume_child(vol, vol->node[node].parent, name, name_len);
    return other < 0 || (unsigned)other == node;
}

int volume_rename(struct volume *vol, unsigned node, const uint16_t *name, unsigned name_len)
{
    if (!volume_may_rename(vol, node, name, name_len))
        return -1;
    uint16_t *copy = copy_name(name, name_len);
    if (!copy)
        return -1;
    free(vol->node[node].name);
    vol->node[node].name = copy;
    return 0;
}

int volume_delete(struct volume *vol, unsigned node)
{
    if (node == VOLUME_ROOT || node >= vol->n || vol->node[node].deleted ||
        (vol->node[node].dir && volume_next_child(vol, node, 0) >= 0))
        return -1;
    struct volume_node *f = &vol->node[node];
    if (f->overlay) {
        vol->overlay_bytes -= f->size;
        free((void *)f->data);
    } else if (vol->owns_base) {
        vol->base_bytes -= f->size;   /* a base volume's own data: no copy shares it yet */
        free((void *)f->data);
    }
    f->data = NULL;
    f->overlay = false;
    f->size = 0;
    f->deleted = true;
    return 0;
}
