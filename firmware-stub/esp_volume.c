/* --esp's volume (esp_volume.h): its copy of the host folder's volume,
 * pool pages, handle and device paths, the top-level image's paths on it,
 * its disk, and the files LoadImage finds on it. */
#include "esp_volume.h"

#include <stdlib.h>
#include <string.h>

#include "fat_image.h"
#include "guids.h"
#include "handles.h"
#include "pool.h"
#include "ucs2.h"
#include "width.h"

#define ESP_DISK_DEVICE_PATH  0x010   /* the disk's: VenHw(...)/End */
#define ESP_DEVICE_PATH       0x040   /* the partition's, this handle's: VenHw(...)/HD(...)/End */
#define ESP_IMAGE_FILE_PATH   0x0c0   /* the top-level image's FilePath: File(...)/End */
#define ESP_IMAGE_DEVICE_PATH 0x500   /* its EFI_LOADED_IMAGE_DEVICE_PATH_PROTOCOL: VenHw(...)/HD(...)/File(...)/End */
#define END_NODE_SIZE         4
#define HD_NODE_SIZE          42      /* HARDDRIVE_DEVICE_PATH, UEFI 2.10 section 10.3.5.1 */
#define VENDOR_NODE_SIZE      20      /* VENDOR_DEVICE_PATH, UEFI 2.10 section 10.3.2.4 */
#define DISK_PATH_SIZE        (VENDOR_NODE_SIZE + HD_NODE_SIZE)   /* the partition's path before its end */
_Static_assert(ESP_SFS + 16 <= ESP_DISK_DEVICE_PATH &&
               ESP_DISK_DEVICE_PATH + VENDOR_NODE_SIZE + END_NODE_SIZE <= ESP_DEVICE_PATH &&
               ESP_DEVICE_PATH + DISK_PATH_SIZE + END_NODE_SIZE <= ESP_IMAGE_FILE_PATH &&
               ESP_IMAGE_FILE_PATH + FW_DEVICE_PATH_SIZE <= ESP_IMAGE_DEVICE_PATH &&
               ESP_IMAGE_DEVICE_PATH + DISK_PATH_SIZE + FW_DEVICE_PATH_SIZE <= ESP_FILES,
               "the device paths fit before the file slots");

#define SFS_REVISION          0x00010000ULL   /* EFI_SIMPLE_FILE_SYSTEM_PROTOCOL_REVISION */
#define MBR_TYPE_GPT          0x02
#define SIGNATURE_TYPE_GUID   0x02
/* The partition's unique GUID (PartitionSignature), the same for every
 * --esp: what systemd-boot reports as LoaderDevicePartUUID. */
#define ESP_PARTITION_GUID    EFI_GUID(0x68616e64, 0x6f76, 0x4572, 0x8e, 0x53, 0x50, 0x00, 0x00, 0x00, 0x00, 0x01)
/* The disk's vendor-defined hardware node: no bus, a disk of handover's own. */
#define ESP_DISK_GUID         EFI_GUID(0x68616e64, 0x6f76, 0x4572, 0x8e, 0x53, 0x50, 0x00, 0x00, 0x00, 0x00, 0x02)

static bool put_guest(struct firmware *fw, uint64_t addr, const void *src, uint64_t len)
{
    return guest_mem_write(fw->gm, addr, src, len);
}

/* A file path node for a UCS-2 path of n characters; its size, or 0 if
 * it does not fit FW_DEVICE_PATH_MAX. */
static unsigned file_path_node(uint8_t *out, const uint16_t *path, unsigned n)
{
    unsigned len = END_NODE_SIZE + 2 * (n + 1);
    if (DISK_PATH_SIZE + len >= FW_DEVICE_PATH_MAX)
        return 0;
    out[0] = EFI_DEV_MEDIA;
    out[1] = EFI_DEV_MEDIA_FILE_PATH;
    out[2] = (uint8_t)len;
    out[3] = (uint8_t)(len >> 8);
    memcpy(out + END_NODE_SIZE, path, 2 * (size_t)n);
    memset(out + END_NODE_SIZE + 2 * n, 0, 2);
    return len;
}

/* The partition's path before its end node: the disk's vendor node, then
 * the hard-drive node GRUB matches against the disk's GPT entry (start
 * and size) to name the device its image came from. */
static void disk_path(uint8_t out[DISK_PATH_SIZE], uint64_t blocks)
{
    const uint32_t partition = 1;
    const uint64_t start = ESP_DISK_PARTITION_START;
    const efi_guid_t disk = ESP_DISK_GUID, signature = ESP_PARTITION_GUID;
    out[0] = EFI_DEV_HARDWARE;
    out[1] = EFI_DEV_HARDWARE_VENDOR;
    out[2] = VENDOR_NODE_SIZE;
    out[3] = 0;
    memcpy(out + 4, &disk, 16);
    uint8_t *hd = out + VENDOR_NODE_SIZE;
    hd[0] = EFI_DEV_MEDIA;
    hd[1] = EFI_DEV_MEDIA_HARD_DRIVE;
    hd[2] = HD_NODE_SIZE;
    hd[3] = 0;
    memcpy(hd + 4, &partition, 4);
    memcpy(hd + 8, &start, 8);
    memcpy(hd + 16, &blocks, 8);
    memcpy(hd + 24, &signature, 16);
    hd[40] = MBR_TYPE_GPT;
    hd[41] = SIGNATURE_TYPE_GUID;
}

static const uint8_t end_node[END_NODE_SIZE] = { EFI_DEV_END_PATH, EFI_DEV_END_ENTIRE, END_NODE_SIZE, 0 };

uint64_t fw_esp_volume_bytes(const struct volume *vol)
{
    return (vol->base_bytes + VOLUME_OVERLAY_MAX + ESP_DISK_BLOCK_SIZE - 1) / ESP_DISK_BLOCK_SIZE * ESP_DISK_BLOCK_SIZE;
}

/* "EFI/BOOT/BOOTX64.EFI" as \EFI\BOOT\BOOTX64.EFI; its length, or -1. */
static long image_path_ucs2(const char *path, uint16_t *out, unsigned max)
{
    unsigned n = 0;
    const unsigned char *p = (const unsigned char *)path;
    while (*p) {
        if (n + 2 >= max)
            return -1;
        if (*p == '/') {
            while (*p == '/')
                p++;
            out[n++] = u'\\';
            continue;
        }
        if (!n)
            out[n++] = u'\\';
        p += fw_utf8_decode(p, &out[n++]);
    }
    out[n] = 0;
    return n;
}

/* The volume's copy, its pool pages and handle; NULL if any runs out. */
static struct fw_esp *esp_new(struct firmware *fw, const struct volume *base)
{
    uint64_t page;
    struct fw_esp *esp = calloc(1, sizeof(*esp));
    if (!esp || volume_copy(&esp->vol, base) ||
        fw_pool_take(fw, EFI_BOOT_SERVICES_DATA, ESP_PAGES * 0x1000ULL, &page) != EFI_SUCCESS ||
        !(esp->handle = fw_new_handle(fw)) || fw->nprotocols + 2 > FW_MAX_PROTOCOLS) {
        if (esp)
            volume_free(&esp->vol);
        free(esp);
        return NULL;
    }
    esp->page = page;
    /* The partition as big as the volume may grow (the host's files, the
     * overlay, as many entries as a volume holds, laid out as FAT), and
     * then always that size: its hard-drive node must keep matching the
     * GPT entry when the disk is built again. */
    const efi_guid_t signature = ESP_PARTITION_GUID;
    esp->disk = esp_disk_build(&esp->vol, &signature,
                               esp_disk_partition_blocks_to_hold(esp->vol.base_bytes + VOLUME_OVERLAY_MAX,
                                                                 VOLUME_NODES_MAX));
    esp->has_disk = esp->disk;
    esp->partition_blocks = esp->disk ? esp_disk_partition_blocks(esp->disk) : fw_esp_volume_bytes(&esp->vol) / ESP_DISK_BLOCK_SIZE;
    return esp;
}

/* The disk's and the partition's device paths, and the partition's
 * protocols. */
static void put_volume(struct firmware *fw, const struct fw_esp *esp, const uint8_t disk[DISK_PATH_SIZE])
{
    const uint64_t open_volume = firmware_thunk(fw, FW_ID_FILE_SYSTEM);
    fw_put_revision_interface(fw, esp->page + ESP_SFS, SFS_REVISION, &open_volume, 1);
    put_guest(fw, esp->page + ESP_DISK_DEVICE_PATH, disk, VENDOR_NODE_SIZE);
    put_guest(fw, esp->page + ESP_DISK_DEVICE_PATH + VENDOR_NODE_SIZE, end_node, END_NODE_SIZE);
    put_guest(fw, esp->page + ESP_DEVICE_PATH, disk, DISK_PATH_SIZE);
    put_guest(fw, esp->page + ESP_DEVICE_PATH + DISK_PATH_SIZE, end_node, END_NODE_SIZE);
    fw_add_protocol(fw, esp->handle, &GUID_DEVICE_PATH, esp->page + ESP_DEVICE_PATH);
    fw_add_protocol(fw, esp->handle, &GUID_SIMPLE_FILE_SYSTEM, esp->page + ESP_SFS);
}

/* LoadedImage's DeviceHandle and FilePath, in the firmware's layout
 * (everything an IA-32 firmware hands out lies below 4 GiB). */
static void set_loaded_image_device(struct firmware *fw, uint64_t handle, uint64_t file_path)
{
    if (fw_ia32(fw)) {
        struct efi_loaded_image32 *li = guest_mem_ptr(fw->gm, fw->loaded_image, sizeof(*li));
        li->device_handle = (uint32_t)handle;
        li->file_path = (uint32_t)file_path;
        return;
    }
    struct efi_loaded_image *li = guest_mem_ptr(fw->gm, fw->loaded_image, sizeof(*li));
    li->device_handle = handle;
    li->file_path = file_path;
}

/* The top-level image: loaded from this device, by FilePath when it lies
 * on the volume (UEFI 2.10 section 9.1): node, node_len bytes, its file
 * path node (none: node_len 0). */
static void put_image_paths(struct firmware *fw, const struct fw_esp *esp, const uint8_t disk[DISK_PATH_SIZE],
                            const uint8_t *node, unsigned node_len)
{
    uint64_t file_path = esp->page + ESP_IMAGE_FILE_PATH, device_path = esp->page + ESP_IMAGE_DEVICE_PATH;
    put_guest(fw, file_path, node, node_len);
    put_guest(fw, file_path + node_len, end_node, END_NODE_SIZE);
    put_guest(fw, device_path, disk, DISK_PATH_SIZE);
    put_guest(fw, device_path + DISK_PATH_SIZE, node, node_len);
    put_guest(fw, device_path + DISK_PATH_SIZE + node_len, end_node, END_NODE_SIZE);
    set_loaded_image_device(fw, esp->handle, file_path);
    for (unsigned i = 0; i < fw->nprotocols; i++)
        if (fw->protocols[i].handle == fw->image_handle &&
            guid_equal(&fw->protocols[i].guid, &GUID_LOADED_IMAGE_DEVICE_PATH))
            fw->protocols[i].interface = device_path;
}

int fw_esp_volume_attach(struct firmware *fw, const struct volume *base, const char *image_path)
{
    uint16_t path[FW_DEVICE_PATH_MAX / 2];
    long n = image_path ? image_path_ucs2(image_path, path, sizeof(path) / 2) : 0;
    uint8_t node[FW_DEVICE_PATH_SIZE], disk[DISK_PATH_SIZE];
    unsigned node_len = image_path && n > 0 ? file_path_node(node, path, (unsigned)n) : 0;
    if (fw->esp || n < 0 || (image_path && !node_len) || !(fw->esp = esp_new(fw, base)))
        return -1;
    disk_path(disk, fw->esp->partition_blocks);
    put_volume(fw, fw->esp, disk);
    put_image_paths(fw, fw->esp, disk, node, node_len);
    return 0;
}

uint64_t fw_esp_handle(const struct firmware *fw)
{
    return fw->esp ? fw->esp->handle : 0;
}

uint64_t fw_esp_disk_device_path(const struct firmware *fw)
{
    return fw->esp ? fw->esp->page + ESP_DISK_DEVICE_PATH : 0;
}

const struct esp_disk *fw_esp_disk(struct firmware *fw)
{
    struct fw_esp *esp = fw->esp;
    if (!esp || !esp->has_disk)
        return NULL;
    if (esp->disk && esp->disk_stale) {
        esp_disk_free(esp->disk);
        esp->disk = NULL;
    }
    if (!esp->disk) {
        const efi_guid_t signature = ESP_PARTITION_GUID;
        esp->disk = esp_disk_build(&esp->vol, &signature, esp->partition_blocks);
        esp->disk_stale = false;
    }
    return esp->disk;
}

bool fw_esp_dir_may_hold(const struct firmware *fw, unsigned dir, long replacing, const uint16_t *name,
                         unsigned len)
{
    return !fw->esp->has_disk || fat_image_dir_holds(&fw->esp->vol, dir, replacing, name, len);
}

void fw_esp_free(struct firmware *fw)
{
    if (!fw->esp)
        return;
    volume_free(&fw->esp->vol);
    esp_disk_free(fw->esp->disk);
    free(fw->esp);
    fw->esp = NULL;
}

int fw_esp_copy(struct firmware *dst, const struct firmware *src)
{
    dst->esp = NULL;
    if (!src->esp)
        return 0;
    struct fw_esp *esp = malloc(sizeof(*esp));
    if (!esp)
        return -1;
    *esp = *src->esp;
    esp->disk = NULL;   /* built again from the copy's own volume */
    if (volume_copy(&esp->vol, &src->esp->vol)) {
        free(esp);
        return -1;
    }
    dst->esp = esp;
    return 0;
}

uint64_t fw_esp_copy_bytes(const struct firmware *fw)
{
    return fw->esp ? sizeof(*fw->esp) + volume_copy_bytes(&fw->esp->vol) : 0;
}

/* ---- LoadImage from the volume ------------------------------------------ */

efi_status_t fw_esp_file(struct firmware *fw, const struct guest_view *v, const uint8_t *path, long len,
                         const uint8_t **data, uint64_t *size)
{
    uint64_t handle = 0;
    if (!fw->esp)
        return EFI_NOT_FOUND;
    long at = fw_match_device_path(fw, v, &GUID_SIMPLE_FILE_SYSTEM, path, len, &handle);
    if (at < 0 || handle != fw->esp->handle || at == len)
        return EFI_NOT_FOUND;
    /* The rest: file path nodes, whose names join with '\' (UEFI 2.10
     * section 10.3.5.4). */
    uint16_t name[VOLUME_PATH_MAX + 1];
    unsigned n = 0;
    while (at < len) {
        const uint8_t *node = path + at;
        unsigned node_len = node[2] | node[3] << 8;
        if (node[0] != EFI_DEV_MEDIA || node[1] != EFI_DEV_MEDIA_FILE_PATH)
            return EFI_NOT_FOUND;
        for (unsigned i = END_NODE_SIZE; i + 1 < node_len; i += 2) {
            uint16_t c;
            memcpy(&c, node + i, 2);
            if (!c)
                break;
            if (i == END_NODE_SIZE && n && name[n - 1] != u'\\' && c != u'\\')
                name[n++] = u'\\';
            if (n >= VOLUME_PATH_MAX - 1)
                return EFI_NOT_FOUND;
            name[n++] = c;
        }
        at += node_len;
    }
    name[n] = 0;
    struct volume_lookup l;
    const struct volume *vol = &fw->esp->vol;
    volume_resolve(vol, VOLUME_ROOT, name, &l);
    if (l.found != VOLUME_FOUND || vol->node[l.node].dir)
        return EFI_NOT_FOUND;
    *data = vol->node[l.node].data;
    *size = vol->node[l.node].size;
    return EFI_SUCCESS;
}
