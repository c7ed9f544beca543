/* A volume as a FAT32 file system (fat_image.h), laid out as mkfs.fat
 * would: 32 reserved sectors (the boot sector, FSInfo, their backups at 6
 * and 7), two FATs, then the data clusters from cluster 2: every
 * directory, the root first and the others breadth first, then every
 * file, in the same order. */
#include "fat_image.h"
#include "fat_name.h"
#include "le_bytes.h"
#include "volume.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SECTOR              FAT_IMAGE_SECTOR_SIZE
#define RESERVED_SECTORS    32
#define FSINFO_SECTOR       1
#define BACKUP_BOOT_SECTOR  6
#define NUM_FATS            2
#define MEDIA_FIXED         0xf8
#define FIRST_CLUSTER       2            /* the root's, FAT32's BPB_RootClus */
#define FAT_ENTRY_SIZE      4
#define FAT_EOC             0x0fffffffu
#define FAT_CLEAN           0x0fffffffu  /* FAT[1]: clean shut down, no disk errors */
/* fatgen103 section 3.5: 65525 clusters or more is FAT32 (dosfstools wants
 * 65529): a margin above both. Free clusters read as zeros, so small
 * volumes cost only the FAT's memory. */
#define FAT32_MIN_CLUSTERS  65600u
#define FAT32_MAX_CLUSTERS  0x0ffffff5u  /* cluster numbers up to 0x0FFFFFF6 */
/* fatgen103's FAT32 table: 512-byte clusters up to 260 MB, 4 KiB up to 8 GB. */
#define SMALL_SECTORS       532480u
#define SMALL_CLUSTER       1
#define LARGE_CLUSTER       8
#define DIR_ENTRIES_MAX     65536u       /* fatgen103 section 6: entries of one directory */
#define FILE_SIZE_MAX       0xffffffffu  /* DIR_FileSize */
/* BPB_SecPerTrk and BPB_NumHeads, as partitioning tools give a disk; the
 * file system's size is a whole number of tracks (mtools checks it). */
#define SECTORS_PER_TRACK   63
#define HEADS               255
#define ATTR_VOLUME_ID      0x08
#define ATTR_DIRECTORY      0x10
#define FAT_EPOCH           315532800LL  /* 1980-01-01 00:00:00 UTC, the first FAT time */
#define FAT_LAST            4354819198LL /* 2107-12-31 23:59:58 UTC, the last */

/* EFI_FILE_INFO's attribute bits are FAT's (UEFI 2.10 section 13.5.16). */
_Static_assert(VOLUME_ATTR_READ_ONLY == 0x01 && VOLUME_ATTR_HIDDEN == 0x02 && VOLUME_ATTR_SYSTEM == 0x04 &&
               VOLUME_ATTR_DIRECTORY == ATTR_DIRECTORY && VOLUME_ATTR_ARCHIVE == 0x20, "FAT's attribute bits");
_Static_assert(VOLUME_FILE_MAX <= FILE_SIZE_MAX, "a volume's file fits DIR_FileSize");

struct fat_file {
    uint64_t off;             /* in the image */
    const uint8_t *data;
    uint64_t size;
};

struct fat_image {
    uint64_t sectors;
    uint8_t reserved[RESERVED_SECTORS * SECTOR];
    uint8_t *fat;             /* the FAT's entries in use; the rest of it, and both copies, read from it */
    uint64_t fat_bytes, fat_sectors;
    uint8_t *dirs;            /* the directories' clusters, from FIRST_CLUSTER */
    uint64_t dirs_off, dirs_bytes;
    struct fat_file *file;    /* by offset */
    unsigned files;
};

/* The tree as laid out: each live node's children in index order (the
 * entries from child_at[d] to child_at[d + 1] of child), the directories
 * breadth first, and per child its short name and first cluster. */
struct layout {
    const struct volume *vol;
    uint64_t min_sectors;     /* the file system's least size */
    unsigned *child_at, *child, *dir_order, dirs;
    uint8_t (*short_name)[FAT_SHORT_NAME];   /* by position in child */
    bool *long_name;
    uint32_t *entries;        /* by node: a directory's entries */
    uint32_t *cluster;        /* by node: its first cluster, 0 for an empty file */
    unsigned spc;             /* sectors per cluster */
    uint64_t clusters_used;   /* data clusters holding something */
    uint64_t clusters;        /* data clusters of the file system */
};

static bool live_dir(const struct volume *vol, unsigned i)
{
    return i < vol->n && vol->node[i].dir && !vol->node[i].deleted;
}

/* ---- the tree ---------------------------------------------------------------------------- */

static int list_children(struct layout *l)
{
    const struct volume *vol = l->vol;
    l->child_at = calloc((size_t)vol->n + 1, sizeof(unsigned));
    l->child = calloc(vol->n, sizeof(unsigned));
    l->dir_order = calloc(vol->n, sizeof(unsigned));
    if (!l->child_at || !l->child || !l->dir_order)
        return -1;
    for (unsigned i = 1; i < vol->n; i++)
        if (!vol->node[i].deleted && live_dir(vol, vol->node[i].parent))
            l->child_at[vol->node[i].parent + 1]++;
    for (unsigned d = 0; d < vol->n; d++)
        l->child_at[d + 1] += l->child_at[d];
    unsigned *fill = calloc(vol->n, sizeof(unsigned));
    if (!fill)
        return -1;
    for (unsigned i = 1; i < vol->n; i++)
        if (!vol->node[i].deleted && live_dir(vol, vol->node[i].parent)) {
            unsigned p = vol->node[i].parent;
            l->child[l->child_at[p] + fill[p]++] = i;
        }
    free(fill);
    /* Breadth first from the root: each node has one parent, so each
     * directory is met once; one the root does not reach is left out. */
    l->dir_order[l->dirs++] = VOLUME_ROOT;
    for (unsigned q = 0; q < l->dirs; q++)
        for (unsigned k = l->child_at[l->dir_order[q]]; k < l->child_at[l->dir_order[q] + 1]; k++)
            if (vol->node[l->child[k]].dir)
                l->dir_order[l->dirs++] = l->child[k];
    return 0;
}

/* The directory entries n names take: each a short entry, and its
 * long-name entries where long_name says it needs them. */
static uint64_t name_entries_of(const bool *long_name, const unsigned *lens, unsigned n)
{
    uint64_t entries = 0;
    for (unsigned k = 0; k < n; k++)
        entries += 1 + (long_name[k] ? fat_lfn_entries(lens[k]) : 0);
    return entries;
}

/* Each directory's short names and its count of entries. */
static int name_entries(struct layout *l, bool label)
{
    const struct volume *vol = l->vol;
    size_t children = l->child_at[vol->n];
    const uint16_t **names = calloc(children + 1, sizeof(*names));
    unsigned *lens = calloc(children + 1, sizeof(unsigned));
    l->short_name = calloc(children + 1, sizeof(*l->short_name));
    l->long_name = calloc(children + 1, sizeof(bool));
    l->entries = calloc(vol->n, sizeof(uint32_t));
    int rc = names && lens && l->short_name && l->long_name && l->entries ? 0 : -1;
    for (size_t k = 0; !rc && k < children; k++) {
        names[k] = vol->node[l->child[k]].name;
        lens[k] = volume_name_len(names[k]);
    }
    for (unsigned q = 0; !rc && q < l->dirs; q++) {
        unsigned d = l->dir_order[q], first = l->child_at[d], n = l->child_at[d + 1] - first;
        if (fat_short_names(names + first, lens + first, n, l->short_name + first, l->long_name + first)) {
            rc = -1;
            break;
        }
        /* the label, or "." and "..", then the children's */
        uint64_t entries = (d == VOLUME_ROOT ? label : 2) + name_entries_of(l->long_name + first, lens + first, n);
        if (entries > DIR_ENTRIES_MAX)
            rc = -1;
        else
            l->entries[d] = (uint32_t)entries;
    }
    free(names);
    free(lens);
    return rc;
}

static uint64_t clusters_of(uint64_t bytes, unsigned spc)
{
    uint64_t size = (uint64_t)spc * SECTOR;
    return (bytes + size - 1) / size;
}

/* Data clusters the tree needs with clusters of spc sectors. */
static uint64_t clusters_needed(const struct layout *l, unsigned spc)
{
    uint64_t n = 0;
    for (unsigned q = 0; q < l->dirs; q++) {
        unsigned d = l->dir_order[q];
        uint64_t c = clusters_of((uint64_t)l->entries[d] * FAT_DIR_ENTRY_SIZE, spc);
        n += c ? c : 1;
        for (unsigned k = l->child_at[d]; k < l->child_at[d + 1]; k++)
            if (!l->vol->node[l->child[k]].dir)
                n += clusters_of(l->vol->node[l->child[k]].size, spc);
    }
    return n;
}

static uint64_t fat_sectors_for(uint64_t clusters, unsigned spc)
{
    uint64_t s = ((clusters + FIRST_CLUSTER) * FAT_ENTRY_SIZE + SECTOR - 1) / SECTOR;
    return (s + spc - 1) / spc * spc;   /* the data region starts on a cluster boundary */
}

static uint64_t total_sectors(uint64_t clusters, unsigned spc)
{
    return RESERVED_SECTORS + NUM_FATS * fat_sectors_for(clusters, spc) + clusters * spc;
}

/* The clusters of a file system of clusters of spc sectors holding used
 * of them, at least min_sectors long: the fewest that make min_sectors
 * (the total only grows with n), then a whole number of tracks: the total
 * grows with n (the FAT only now and then), so a few more clusters reach
 * one. A size this gave, asked for again, gives the same n. More than
 * FAT32_MAX_CLUSTERS if none do. */
static uint64_t clusters_for(uint64_t min_sectors, uint64_t used, unsigned spc)
{
    uint64_t n = used > FAT32_MIN_CLUSTERS ? used : FAT32_MIN_CLUSTERS;
    for (uint64_t hi = FAT32_MAX_CLUSTERS + 1; n < hi;) {
        uint64_t mid = n + (hi - n) / 2;
        if (total_sectors(mid, spc) >= min_sectors)
            hi = mid;
        else
            n = mid + 1;
    }
    while (n <= FAT32_MAX_CLUSTERS && total_sectors(n, spc) % SECTORS_PER_TRACK)
        n++;
    return n;
}

/* The cluster size, the clusters and every node's first one; -1 when a
 * file or the whole does not fit FAT32. */
static int place(struct layout *l)
{
    const struct volume *vol = l->vol;
    for (unsigned i = 0; i < vol->n; i++)
        if (!vol->node[i].dir && vol->node[i].size > FILE_SIZE_MAX)
            return -1;
    if (l->min_sectors > UINT32_MAX)
        return -1;
    /* 512-byte clusters when the file system they make, tracks and all,
     * is within SMALL_SECTORS: decided on the size that comes out, so
     * that this size asked for again decides the same. */
    l->spc = SMALL_CLUSTER;
    uint64_t used = clusters_needed(l, l->spc), n = clusters_for(l->min_sectors, used, l->spc);
    if (n > FAT32_MAX_CLUSTERS || total_sectors(n, l->spc) > SMALL_SECTORS) {
        l->spc = LARGE_CLUSTER;
        used = clusters_needed(l, l->spc);
        n = clusters_for(l->min_sectors, used, l->spc);
    }
    if (n > FAT32_MAX_CLUSTERS || total_sectors(n, l->spc) > UINT32_MAX)
        return -1;
    l->clusters_used = used;
    l->clusters = n;
    l->cluster = calloc(vol->n, sizeof(uint32_t));
    if (!l->cluster)
        return -1;
    uint64_t next = FIRST_CLUSTER;
    for (unsigned q = 0; q < l->dirs; q++) {
        unsigned d = l->dir_order[q];
        uint64_t c = clusters_of((uint64_t)l->entries[d] * FAT_DIR_ENTRY_SIZE, l->spc);
        l->cluster[d] = (uint32_t)next;
        next += c ? c : 1;
    }
    for (unsigned q = 0; q < l->dirs; q++)
        for (unsigned k = l->child_at[l->dir_order[q]]; k < l->child_at[l->dir_order[q] + 1]; k++) {
            const struct volume_node *f = &vol->node[l->child[k]];
            if (!f->dir && f->size) {
                l->cluster[l->child[k]] = (uint32_t)next;
                next += clusters_of(f->size, l->spc);
            }
        }
    return 0;
}

/* ---- the metadata ------------------------------------------------------------------------ */

/* mtime as FAT's date, time (2-second units) and the creation time's
 * hundredths (which carry the odd second), clamped to FAT's years. */
static void fat_time(int64_t mtime, uint16_t *date, uint16_t *time, uint8_t *hundredths)
{
    int64_t t = mtime < FAT_EPOCH ? FAT_EPOCH : mtime > FAT_LAST ? FAT_LAST : mtime;
    int64_t days = t / 86400, secs = t % 86400;
    /* The civil date of a day count (the proleptic Gregorian calendar in
     * 400-year eras from 0000-03-01: Howard Hinnant's civil_from_days). */
    int64_t z = days + 719468, era = z / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
    unsigned year = (unsigned)(era * 400) + yoe + (month <= 2);
    *date = (uint16_t)((year - 1980) << 9 | month << 5 | day);
    *time = (uint16_t)((secs / 3600) << 11 | (secs / 60 % 60) << 5 | (secs % 60) / 2);
    *hundredths = (uint8_t)(secs % 2 * 100);
}

static void short_entry(uint8_t *e, const uint8_t name[FAT_SHORT_NAME], uint8_t attr, uint32_t cluster,
                        uint32_t size, int64_t mtime)
{
    uint16_t date, time;
    uint8_t hundredths;
    fat_time(mtime, &date, &time, &hundredths);
    memcpy(e, name, FAT_SHORT_NAME);
    e[11] = attr;
    e[13] = hundredths;          /* DIR_CrtTimeTenth */
    put16(e + 14, time);         /* DIR_CrtTime */
    put16(e + 16, date);         /* DIR_CrtDate */
    put16(e + 18, date);         /* DIR_LstAccDate */
    put16(e + 20, cluster >> 16);
    put16(e + 22, time);         /* DIR_WrtTime */
    put16(e + 24, date);         /* DIR_WrtDate */
    put16(e + 26, cluster);
    put32(e + 28, size);
}

static void write_dir(const struct layout *l, unsigned d, uint8_t *out, const uint8_t label[FAT_SHORT_NAME],
                      bool has_label)
{
    const struct volume *vol = l->vol;
    const struct volume_node *dir = &vol->node[d];
    if (d == VOLUME_ROOT && has_label) {
        short_entry(out, label, ATTR_VOLUME_ID, 0, 0, dir->mtime);
        out += FAT_DIR_ENTRY_SIZE;
    } else if (d != VOLUME_ROOT) {
        unsigned up = dir->parent == VOLUME_ROOT ? 0 : l->cluster[dir->parent];   /* 0: the root, fatgen103 6.3 */
        short_entry(out, (const uint8_t *)".          ", ATTR_DIRECTORY, l->cluster[d], 0, dir->mtime);
        short_entry(out + FAT_DIR_ENTRY_SIZE, (const uint8_t *)"..         ", ATTR_DIRECTORY, up, 0, dir->mtime);
        out += 2 * FAT_DIR_ENTRY_SIZE;
    }
    for (unsigned k = l->child_at[d]; k < l->child_at[d + 1]; k++) {
        const struct volume_node *c = &vol->node[l->child[k]];
        if (l->long_name[k]) {
            unsigned len = volume_name_len(c->name);
            fat_lfn_write(out, c->name, len, l->short_name[k]);
            out += (size_t)fat_lfn_entries(len) * FAT_DIR_ENTRY_SIZE;
        }
        uint8_t attr = (uint8_t)(c->attribute & (VOLUME_ATTR_READ_ONLY | VOLUME_ATTR_HIDDEN | VOLUME_ATTR_SYSTEM |
                                                 VOLUME_ATTR_ARCHIVE));
        short_entry(out, l->short_name[k], (uint8_t)(attr | (c->dir ? ATTR_DIRECTORY : 0)), l->cluster[l->child[k]],
                    c->dir ? 0 : (uint32_t)c->size, c->mtime);
        out += FAT_DIR_ENTRY_SIZE;
    }
}

static int write_dirs(struct fat_image *img, const struct layout *l, const uint8_t label[FAT_SHORT_NAME],
                      bool has_label)
{
    uint64_t cluster_bytes = (uint64_t)l->spc * SECTOR, first_file = FIRST_CLUSTER;
    for (unsigned q = 0; q < l->dirs; q++) {
        unsigned d = l->dir_order[q];
        uint64_t c = clusters_of((uint64_t)l->entries[d] * FAT_DIR_ENTRY_SIZE, l->spc);
        first_file = l->cluster[d] + (c ? c : 1);
    }
    img->dirs_bytes = (first_file - FIRST_CLUSTER) * cluster_bytes;
    img->dirs = calloc(img->dirs_bytes, 1);
    if (!img->dirs)
        return -1;
    for (unsigned q = 0; q < l->dirs; q++)
        write_dir(l, l->dir_order[q], img->dirs + (l->cluster[l->dir_order[q]] - FIRST_CLUSTER) * cluster_bytes,
                  label, has_label);
    return 0;
}

/* The FAT: each directory's and file's clusters a chain, as laid out. */
static int write_fat(struct fat_image *img, const struct layout *l)
{
    uint64_t entries = FIRST_CLUSTER + l->clusters_used;
    img->fat_bytes = entries * FAT_ENTRY_SIZE;
    img->fat = calloc(entries, FAT_ENTRY_SIZE);
    if (!img->fat)
        return -1;
    put32(img->fat, 0x0fffff00u | MEDIA_FIXED);
    put32(img->fat + FAT_ENTRY_SIZE, FAT_CLEAN);
    /* Clusters come in order, one run per directory and file: each run
     * ends where the next starts, or at the end of the used clusters. */
    uint64_t start = FIRST_CLUSTER;
    for (uint64_t c = FIRST_CLUSTER; c < entries; c++)
        put32(img->fat + c * FAT_ENTRY_SIZE, (uint32_t)c + 1);
    for (unsigned i = 0; i < l->vol->n; i++)
        if (l->cluster[i] > start)
            put32(img->fat + ((uint64_t)l->cluster[i] - 1) * FAT_ENTRY_SIZE, FAT_EOC);
    if (entries > start)
        put32(img->fat + (entries - 1) * FAT_ENTRY_SIZE, FAT_EOC);
    return 0;
}

static int list_files(struct fat_image *img, const struct layout *l)
{
    const struct volume *vol = l->vol;
    img->file = calloc(vol->n, sizeof(*img->file));
    if (!img->file)
        return -1;
    uint64_t data_off = (RESERVED_SECTORS + NUM_FATS * img->fat_sectors) * SECTOR;
    for (unsigned q = 0; q < l->dirs; q++)
        for (unsigned k = l->child_at[l->dir_order[q]]; k < l->child_at[l->dir_order[q] + 1]; k++) {
            const struct volume_node *f = &vol->node[l->child[k]];
            if (!f->dir && f->size)
                img->file[img->files++] = (struct fat_file){
                    .off = data_off + ((uint64_t)l->cluster[l->child[k]] - FIRST_CLUSTER) * l->spc * SECTOR,
                    .data = f->data, .size = f->size,
                };
        }
    return 0;
}

/* The boot sector and FSInfo (fatgen103 sections 3 and 5), and their
 * backups. */
static void write_reserved(struct fat_image *img, const struct layout *l, uint32_t serial, uint32_t hidden_sectors,
                           const uint8_t label[FAT_SHORT_NAME])
{
    uint8_t *b = img->reserved;
    memcpy(b, "\xeb\x58\x90" "HANDOVER", 11);   /* BS_jmpBoot, BS_OEMName */
    put16(b + 11, SECTOR);
    b[13] = (uint8_t)l->spc;
    put16(b + 14, RESERVED_SECTORS);
    b[16] = NUM_FATS;
    b[21] = MEDIA_FIXED;                   /* BPB_RootEntCnt, BPB_TotSec16 and BPB_FATSz16 0: FAT32 */
    put16(b + 24, SECTORS_PER_TRACK);
    put16(b + 26, HEADS);
    put32(b + 28, hidden_sectors);
    put32(b + 32, (uint32_t)img->sectors);
    put32(b + 36, (uint32_t)img->fat_sectors);
    put32(b + 44, FIRST_CLUSTER);          /* BPB_RootClus; BPB_ExtFlags 0: the FATs mirrored */
    put16(b + 48, FSINFO_SECTOR);
    put16(b + 50, BACKUP_BOOT_SECTOR);
    b[64] = 0x80;                          /* BS_DrvNum */
    b[66] = 0x29;                          /* BS_BootSig: the three fields after it are there */
    put32(b + 67, serial);
    memcpy(b + 71, label, FAT_SHORT_NAME);
    memcpy(b + 82, "FAT32   ", 8);
    put16(b + 510, 0xaa55);

    uint8_t *fsinfo = b + FSINFO_SECTOR * SECTOR;
    uint64_t free_clusters = l->clusters - l->clusters_used;
    put32(fsinfo, 0x41615252);             /* FSI_LeadSig */
    put32(fsinfo + 484, 0x61417272);       /* FSI_StrucSig */
    put32(fsinfo + 488, (uint32_t)free_clusters);
    put32(fsinfo + 492, free_clusters ? (uint32_t)(FIRST_CLUSTER + l->clusters_used) : 0xffffffffu);
    put32(fsinfo + 508, 0xaa550000);       /* FSI_TrailSig */
    memcpy(b + BACKUP_BOOT_SECTOR * SECTOR, b, 2 * SECTOR);
}

static void layout_free(struct layout *l)
{
    free(l->child_at);
    free(l->child);
    free(l->dir_order);
    free(l->short_name);
    free(l->long_name);
    free(l->entries);
    free(l->cluster);
}

struct fat_image *fat_image_build(const struct volume *vol, uint32_t serial, uint32_t hidden_sectors,
                                  uint64_t min_sectors)
{
    uint8_t label[FAT_SHORT_NAME];
    bool has_label = fat_label(vol->label, label);
    struct layout l = { .vol = vol, .min_sectors = min_sectors };
    struct fat_image *img = calloc(1, sizeof(*img));
    int rc = img && vol->n && live_dir(vol, VOLUME_ROOT) ? 0 : -1;
    if (!rc)
        rc = list_children(&l) || name_entries(&l, has_label) || place(&l) ? -1 : 0;
    if (!rc) {
        img->fat_sectors = fat_sectors_for(l.clusters, l.spc);
        img->sectors = total_sectors(l.clusters, l.spc);
        img->dirs_off = (RESERVED_SECTORS + NUM_FATS * img->fat_sectors) * SECTOR;
        rc = write_fat(img, &l) || write_dirs(img, &l, label, has_label) || list_files(img, &l) ? -1 : 0;
    }
    if (!rc)
        write_reserved(img, &l, serial, hidden_sectors, label);
    layout_free(&l);
    if (rc) {
        fat_image_free(img);
        return NULL;
    }
    return img;
}

uint64_t fat_image_sectors_to_hold(uint64_t file_bytes, unsigned nodes)
{
    static const unsigned cluster_sizes[] = { SMALL_CLUSTER, LARGE_CLUSTER };
    /* Each node an entry with the long-name entries of the longest name,
     * and a directory with "." and ".."; the root's label. */
    uint64_t entries = (uint64_t)nodes * (1 + fat_lfn_entries(VOLUME_NAME_MAX) + 2) + 1, most = 0;
    for (unsigned i = 0; i < sizeof(cluster_sizes) / sizeof(cluster_sizes[0]); i++) {
        unsigned spc = cluster_sizes[i];
        /* place() gives each directory and file its own clusters: at most
         * one more each than their bytes fill. */
        uint64_t clusters = clusters_of(entries * FAT_DIR_ENTRY_SIZE, spc) + clusters_of(file_bytes, spc) + nodes;
        uint64_t sectors = total_sectors(clusters, spc);
        most = sectors > most ? sectors : most;
    }
    return most;
}

bool fat_image_dir_holds(const struct volume *vol, unsigned dir, long replacing, const uint16_t *name,
                         unsigned len)
{
    /* Children that all have the longest names fit: no name need be
     * looked at (a directory reaches its bound only past 3119 children). */
    uint64_t children = 1;
    for (long c = volume_next_child(vol, dir, 0); c >= 0; c = volume_next_child(vol, dir, (unsigned)c))
        children += c != replacing;
    if (2 + children * (1 + fat_lfn_entries(VOLUME_NAME_MAX)) <= DIR_ENTRIES_MAX)
        return true;
    const uint16_t **names = calloc(vol->n + 1, sizeof(*names));
    unsigned *lens = calloc(vol->n + 1, sizeof(*lens));
    uint8_t (*short_name)[FAT_SHORT_NAME] = calloc(vol->n + 1, sizeof(*short_name));
    bool *long_name = calloc(vol->n + 1, sizeof(*long_name));
    unsigned n = 0;
    for (long c = volume_next_child(vol, dir, 0); names && lens && c >= 0; c = volume_next_child(vol, dir, (unsigned)c))
        if (c != replacing) {
            names[n] = vol->node[c].name;
            lens[n++] = volume_name_len(vol->node[c].name);
        }
    bool holds = names && lens && short_name && long_name;
    if (holds) {
        names[n] = name;
        lens[n++] = len;
        holds = !fat_short_names(names, lens, n, short_name, long_name);
    }
    /* "." and "..", or the root's label (and a spare) */
    uint64_t entries = holds ? 2 + name_entries_of(long_name, lens, n) : 0;
    free(names);
    free(lens);
    free(short_name);
    free(long_name);
    return holds && entries <= DIR_ENTRIES_MAX;
}

uint64_t fat_image_sectors(const struct fat_image *img)
{
    return img->sectors;
}

/* The part of the run of n bytes at image offset at that falls in the
 * read of len bytes at off. */
static void copy_run(uint8_t *out, uint64_t off, uint64_t len, uint64_t at, const uint8_t *src, uint64_t n)
{
    uint64_t from = at > off ? at : off, to = at + n < off + len ? at + n : off + len;
    if (from < to)
        memcpy(out + (from - off), src + (from - at), to - from);
}

void fat_image_read(const struct fat_image *img, uint64_t off, void *buf, uint64_t len)
{
    uint8_t *out = buf;
    memset(out, 0, len);
    copy_run(out, off, len, 0, img->reserved, sizeof(img->reserved));
    for (unsigned i = 0; i < NUM_FATS; i++)
        copy_run(out, off, len, (RESERVED_SECTORS + i * img->fat_sectors) * SECTOR, img->fat, img->fat_bytes);
    copy_run(out, off, len, img->dirs_off, img->dirs, img->dirs_bytes);
    /* The first file ending after off, by binary search; then each one
     * starting before the read's end. */
    unsigned lo = 0, hi = img->files;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (img->file[mid].off + img->file[mid].size <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (unsigned i = lo; i < img->files && img->file[i].off < off + len; i++)
        copy_run(out, off, len, img->file[i].off, img->file[i].data, img->file[i].size);
}

void fat_image_free(struct fat_image *img)
{
    if (!img)
        return;
    free(img->fat);
    free(img->dirs);
    free(img->file);
    free(img);
}
