/* --esp: EFI_SIMPLE_FILE_SYSTEM_PROTOCOL and EFI_FILE_PROTOCOL (UEFI 2.10
 * sections 13.4 and 13.5) over the --esp volume (esp_volume.h). The
 * guest's writes land in the volume's copy and mark its disk to be built
 * again. Every guest pointer goes through the guest view; a bad one is
 * EFI_INVALID_PARAMETER. */
#include "simple_fs.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "esp_volume.h"
#include "guids.h"
#include "trace_decode.h"
#include "ucs2.h"
#include "width.h"
#include "../guest/guest_text.h"

_Static_assert(8 + 8 * FILE_COUNT <= FILE_SLOT_SIZE, "EFI_FILE_PROTOCOL (revision 1) fits a slot");

#define FILE_REVISION         0x00010000ULL   /* EFI_FILE_PROTOCOL_REVISION: no OpenEx, ReadEx, ... */
#define FILE_MODE_READ        0x1ULL
#define FILE_MODE_WRITE       0x2ULL
#define FILE_MODE_CREATE      0x8000000000000000ULL
#define FILE_INFO_SIZE        80      /* SIZE_OF_EFI_FILE_INFO: FileName's offset */
#define FILE_SYSTEM_INFO_SIZE 36      /* SIZE_OF_EFI_FILE_SYSTEM_INFO: VolumeLabel's offset */
#define INFO_MAX              (FILE_INFO_SIZE + 2 * (VOLUME_PATH_MAX + 1))
#define POSITION_END          UINT64_MAX      /* SetPosition: the end of the file */
#define UNSPECIFIED_TIMEZONE  0x07ff

/* The guest changed the volume: its disk is built again when next read. */
static void volume_changed(struct firmware *fw)
{
    fw->esp->disk_stale = true;
}

/* ---- open files --------------------------------------------------------- */

static uint64_t file_addr(const struct fw_esp *esp, unsigned i)
{
    return esp->page + ESP_FILES + (uint64_t)i * FILE_SLOT_SIZE;
}

/* The open file whose EFI_FILE_PROTOCOL is at this, or NULL. */
static struct fw_file *file_of(struct firmware *fw, uint64_t this)
{
    struct fw_esp *esp = fw->esp;
    if (!esp || this < file_addr(esp, 0) || this >= file_addr(esp, ESP_MAX_FILES) ||
        (this - file_addr(esp, 0)) % FILE_SLOT_SIZE)
        return NULL;
    struct fw_file *f = &esp->file[(this - file_addr(esp, 0)) / FILE_SLOT_SIZE];
    return f->open ? f : NULL;
}

/* The first file slot not open; ESP_MAX_FILES when every one is. */
static unsigned free_file_slot(const struct fw_esp *esp)
{
    unsigned i = 0;
    while (i < ESP_MAX_FILES && esp->file[i].open)
        i++;
    return i;
}

/* A new EFI_FILE_PROTOCOL for node; its address, or 0 when every slot is open. */
static uint64_t open_file(struct firmware *fw, unsigned node, uint64_t mode)
{
    struct fw_esp *esp = fw->esp;
    unsigned i = free_file_slot(esp);
    if (i == ESP_MAX_FILES)
        return 0;
    esp->file[i] = (struct fw_file){ .open = true, .node = node, .mode = mode };
    uint64_t fns[FILE_COUNT];
    for (unsigned k = 0; k < FILE_COUNT; k++)
        fns[k] = firmware_thunk(fw, FW_ID_FILE(k));
    fw_put_revision_interface(fw, file_addr(esp, i), FILE_REVISION, fns, FILE_COUNT);
    return file_addr(esp, i);
}

static struct volume_node *node_of(struct firmware *fw, const struct fw_file *f)
{
    return &fw->esp->vol.node[f->node];
}

/* ---- EFI_SIMPLE_FILE_SYSTEM_PROTOCOL ------------------------------------ */

static efi_status_t open_volume(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t this = a[0], root_ptr = a[1];
    if (!fw->esp || this != fw->esp->page + ESP_SFS || !root_ptr ||
        !guest_view_accessible(v, root_ptr, fw_uintn_size(fw)))
        return EFI_INVALID_PARAMETER;
    uint64_t root = open_file(fw, VOLUME_ROOT, FILE_MODE_READ | FILE_MODE_WRITE);
    if (!root)
        return EFI_OUT_OF_RESOURCES;
    fw_write_uintn(fw, v, root_ptr, root);
    return EFI_SUCCESS;
}

/* ---- EFI_FILE_PROTOCOL -------------------------------------------------- */

static bool valid_mode(uint64_t mode)
{
    return mode == FILE_MODE_READ || mode == (FILE_MODE_READ | FILE_MODE_WRITE) ||
           mode == (FILE_MODE_READ | FILE_MODE_WRITE | FILE_MODE_CREATE);
}

static efi_status_t file_open(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t this = a[0], new_handle_ptr = a[1], file_name = a[2], open_mode = a[3], attributes = a[4];
    uint16_t path[VOLUME_PATH_MAX + 1];
    struct fw_file *f = file_of(fw, this);
    if (!f || !new_handle_ptr || !guest_view_accessible(v, new_handle_ptr, fw_uintn_size(fw)) ||
        fw_read_ucs2(v, file_name, path, VOLUME_PATH_MAX + 1) < 0 || !valid_mode(open_mode) ||
        (attributes & ~VOLUME_ATTR_VALID) || ((open_mode & FILE_MODE_CREATE) && (attributes & VOLUME_ATTR_READ_ONLY)))
        return EFI_INVALID_PARAMETER;   /* nothing is created read-only (EDK2's FatOpenEx): SetInfo makes it so */
    struct volume *vol = &fw->esp->vol;
    const struct volume_node *at = node_of(fw, f);
    if (at->deleted)
        return EFI_DEVICE_ERROR;
    /* A path relative to a file handle starts in the file's directory. */
    struct volume_lookup l;
    volume_resolve(vol, at->dir ? f->node : at->parent, path, &l);
    long node = l.found == VOLUME_FOUND ? (long)l.node : -1;
    if (l.found == VOLUME_LAST_MISSING && (open_mode & FILE_MODE_CREATE)) {
        bool dir = attributes & VOLUME_ATTR_DIRECTORY;
        if (l.dir_named && !dir)
            return EFI_INVALID_PARAMETER;   /* "x\" names a directory (EDK2's FatLocateOFile) */
        if (free_file_slot(fw->esp) == ESP_MAX_FILES)
            return EFI_OUT_OF_RESOURCES;   /* before the file is made: a failed Open creates nothing */
        if (volume_name_valid(l.last, l.last_len) && !fw_esp_dir_may_hold(fw, l.parent, -1, l.last, l.last_len))
            return EFI_VOLUME_FULL;
        node = volume_add(vol, l.parent, l.last, l.last_len, dir, NULL, 0, vol->node[l.parent].mtime);
        if (node < 0)
            return vol->n >= VOLUME_NODES_MAX ? EFI_VOLUME_FULL : EFI_INVALID_PARAMETER;
        vol->node[node].attribute = (attributes & VOLUME_ATTR_VALID) | (dir ? VOLUME_ATTR_DIRECTORY : 0);
        volume_changed(fw);
    }
    /* A name that is there opens as what it is, whatever Attributes say:
     * they are the bits of a newly created file (UEFI 2.10 13.5.2), and
     * EDK2's FatOFileOpen opens the entry it found (only "x\" must be a
     * directory: volume_resolve says VOLUME_MISSING for a file). */
    if (node < 0)
        return EFI_NOT_FOUND;   /* missing, or above the root: nothing on the volume has that name */
    /* EFI_FILE_READ_ONLY guards a file's bytes; a directory flagged so
     * still opens for writing (as EDK2's FatOFileOpen has it). */
    if ((open_mode & FILE_MODE_WRITE) && !vol->node[node].dir && (vol->node[node].attribute & VOLUME_ATTR_READ_ONLY))
        return EFI_ACCESS_DENIED;
    uint64_t handle = open_file(fw, (unsigned)node, open_mode & ~FILE_MODE_CREATE);
    if (!handle)
        return EFI_OUT_OF_RESOURCES;
    fw_write_uintn(fw, v, new_handle_ptr, handle);
    return EFI_SUCCESS;
}

static efi_status_t file_close(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t this = a[0];
    struct fw_file *f = file_of(fw, this);
    if (!f)
        return EFI_INVALID_PARAMETER;
    f->open = false;
    return EFI_SUCCESS;
}

/* Closes the handle whatever happens (UEFI 2.10 section 13.5.4). */
static efi_status_t file_delete(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t this = a[0];
    struct fw_file *f = file_of(fw, this);
    if (!f)
        return EFI_INVALID_PARAMETER;
    f->open = false;
    if (!(f->mode & FILE_MODE_WRITE) || volume_delete(&fw->esp->vol, f->node))
        return EFI_WARN_DELETE_FAILURE;
    volume_changed(fw);
    return EFI_SUCCESS;
}

static void efi_time(int64_t seconds, uint8_t out[16])
{
    time_t t = (time_t)seconds;
    struct tm tm;
    memset(out, 0, 16);
    if (!gmtime_r(&t, &tm) || tm.tm_year < 0 || tm.tm_year > 9999 - 1900)
        tm = (struct tm){ .tm_year = 80, .tm_mday = 1 };   /* 1980-01-01, FAT's first day */
    uint16_t year = (uint16_t)(tm.tm_year + 1900), zone = UNSPECIFIED_TIMEZONE;
    memcpy(out, &year, 2);
    out[2] = (uint8_t)(tm.tm_mon + 1);
    out[3] = (uint8_t)tm.tm_mday;
    out[4] = (uint8_t)tm.tm_hour;
    out[5] = (uint8_t)tm.tm_min;
    out[6] = (uint8_t)tm.tm_sec;
    memcpy(out + 12, &zone, 2);
}

/* EFI_FILE_INFO for node into out (INFO_MAX bytes); its size. */
static uint64_t file_info(const struct volume *vol, unsigned node, uint8_t *out)
{
    const struct volume_node *n = &vol->node[node];
    unsigned len = volume_name_len(n->name);
    uint64_t size = FILE_INFO_SIZE + 2 * ((uint64_t)len + 1);
    uint64_t physical = (n->size + 0xfff) & ~0xfffULL;
    memset(out, 0, FILE_INFO_SIZE);
    memcpy(out, &size, 8);
    memcpy(out + 8, &n->size, 8);
    memcpy(out + 16, &physical, 8);
    for (unsigned i = 0; i < 3; i++)   /* CreateTime, LastAccessTime, ModificationTime */
        efi_time(n->mtime, out + 24 + 16 * i);
    memcpy(out + 72, &n->attribute, 8);
    memcpy(out + FILE_INFO_SIZE, n->name, 2 * ((size_t)len + 1));
    return size;
}

/* A directory's next entry as EFI_FILE_INFO; *BufferSize 0 at the end. */
static efi_status_t read_dir(struct firmware *fw, const struct guest_view *v, struct fw_file *f, uint64_t size_ptr,
                             uint64_t size, uint64_t buffer)
{
    const struct volume *vol = &fw->esp->vol;
    long next = volume_next_child(vol, f->node, (unsigned)f->position);
    if (next < 0)
        return fw_write_uintn(fw, v, size_ptr, 0) ? EFI_SUCCESS : EFI_INVALID_PARAMETER;
    uint8_t info[INFO_MAX];
    uint64_t need = file_info(vol, (unsigned)next, info);
    if (size < need) {
        fw_write_uintn(fw, v, size_ptr, need);
        return EFI_BUFFER_TOO_SMALL;
    }
    if (!buffer || !guest_view_write(v, buffer, info, need))
        return EFI_INVALID_PARAMETER;
    fw_write_uintn(fw, v, size_ptr, need);
    f->position = (uint64_t)next;
    return EFI_SUCCESS;
}

/* Read and Write (This, BufferSize, Buffer): the file, its node and the
 * size asked for; EFI_INVALID_PARAMETER for a bad handle or size pointer,
 * EFI_DEVICE_ERROR for a file deleted meanwhile. */
static efi_status_t sized_call(struct firmware *fw, const struct guest_view *v, const uint64_t *a, struct fw_file **f,
                               const struct volume_node **n, uint64_t *size)
{
    *f = file_of(fw, a[0]);
    if (!*f || !fw_read_uintn(fw, v, a[1], size) || !guest_view_accessible(v, a[1], fw_uintn_size(fw)))
        return EFI_INVALID_PARAMETER;
    *n = node_of(fw, *f);
    return (*n)->deleted ? EFI_DEVICE_ERROR : EFI_SUCCESS;
}

static efi_status_t file_read(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t size_ptr = a[1], buffer = a[2], size;
    struct fw_file *f;
    const struct volume_node *n;
    efi_status_t s = sized_call(fw, v, a, &f, &n, &size);
    if (s != EFI_SUCCESS)
        return s;
    if (n->dir)
        return read_dir(fw, v, f, size_ptr, size, buffer);
    /* UEFI 2.10 section 13.5.6: reading from beyond the end is an error. */
    if (f->position > n->size)
        return EFI_DEVICE_ERROR;
    uint64_t len = n->size - f->position < size ? n->size - f->position : size;
    if (len && (!buffer || !guest_view_write(v, buffer, n->data + f->position, len)))
        return EFI_INVALID_PARAMETER;
    f->position += len;
    fw_write_uintn(fw, v, size_ptr, len);
    return EFI_SUCCESS;
}

static efi_status_t file_write(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t size_ptr = a[1], buffer = a[2], size;
    struct fw_file *f;
    const struct volume_node *n;
    efi_status_t s = sized_call(fw, v, a, &f, &n, &size);
    if (s != EFI_SUCCESS)
        return s;
    if (n->dir)
        return EFI_UNSUPPORTED;
    if (!(f->mode & FILE_MODE_WRITE))
        return EFI_ACCESS_DENIED;
    if (!size)
        return EFI_SUCCESS;
    if (size > VOLUME_FILE_MAX || f->position > VOLUME_FILE_MAX - size)
        return EFI_VOLUME_FULL;
    uint8_t *data = malloc(size);
    if (!data)
        return EFI_OUT_OF_RESOURCES;
    s = EFI_INVALID_PARAMETER;
    if (buffer && guest_view_read(v, buffer, data, size))
        s = volume_write(&fw->esp->vol, f->node, f->position, data, size) ? EFI_VOLUME_FULL : EFI_SUCCESS;
    free(data);
    if (s == EFI_SUCCESS) {
        f->position += size;
        volume_changed(fw);
    } else
        fw_write_uintn(fw, v, size_ptr, 0);
    return s;
}

static efi_status_t file_get_position(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t this = a[0], position_ptr = a[1];
    struct fw_file *f = file_of(fw, this);
    if (!f || !position_ptr || !guest_view_accessible(v, position_ptr, 8))
        return EFI_INVALID_PARAMETER;
    const struct volume_node *n = node_of(fw, f);
    if (n->deleted)
        return EFI_DEVICE_ERROR;
    if (n->dir)
        return EFI_UNSUPPORTED;
    guest_view_write_u64(v, position_ptr, f->position);
    return EFI_SUCCESS;
}

static efi_status_t file_set_position(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t this = a[0], position = a[1];
    struct fw_file *f = file_of(fw, this);
    if (!f)
        return EFI_INVALID_PARAMETER;
    const struct volume_node *n = node_of(fw, f);
    if (n->deleted)
        return EFI_DEVICE_ERROR;
    if (n->dir) {
        if (position)
            return EFI_UNSUPPORTED;   /* a directory's position can only be reset */
        f->position = 0;
        return EFI_SUCCESS;
    }
    f->position = position == POSITION_END ? n->size : position;
    return EFI_SUCCESS;
}

/* EFI_FILE_SYSTEM_INFO into out (INFO_MAX bytes); its size. The volume
 * says it is writable: the guest's writes go to the overlay. */
static uint64_t file_system_info(const struct volume *vol, uint8_t *out)
{
    unsigned len = volume_name_len(vol->label);
    uint64_t size = FILE_SYSTEM_INFO_SIZE + 2 * ((uint64_t)len + 1), total = fw_esp_volume_bytes(vol);
    uint64_t free_space = VOLUME_OVERLAY_MAX - vol->overlay_bytes;
    uint32_t block = ESP_DISK_BLOCK_SIZE;
    memset(out, 0, FILE_SYSTEM_INFO_SIZE);
    memcpy(out, &size, 8);
    memcpy(out + 16, &total, 8);
    memcpy(out + 24, &free_space, 8);
    memcpy(out + 32, &block, 4);
    memcpy(out + FILE_SYSTEM_INFO_SIZE, vol->label, 2 * ((size_t)len + 1));
    return size;
}

static efi_status_t file_get_info(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t this = a[0], type = a[1], size_ptr = a[2], buffer = a[3], size;
    struct fw_file *f = file_of(fw, this);
    efi_guid_t g;
    if (!f || !type || !guest_view_read(v, type, &g, sizeof(g)) || !fw_read_uintn(fw, v, size_ptr, &size) ||
        !guest_view_accessible(v, size_ptr, fw_uintn_size(fw)))
        return EFI_INVALID_PARAMETER;
    const struct volume *vol = &fw->esp->vol;
    if (node_of(fw, f)->deleted)
        return EFI_DEVICE_ERROR;
    uint8_t info[INFO_MAX];
    uint64_t need;
    if (guid_equal(&g, &GUID_FILE_INFO)) {
        need = file_info(vol, f->node, info);
    } else if (guid_equal(&g, &GUID_FILE_SYSTEM_INFO)) {
        need = file_system_info(vol, info);
    } else if (guid_equal(&g, &GUID_FILE_SYSTEM_VOLUME_LABEL)) {
        need = 2 * ((uint64_t)volume_name_len(vol->label) + 1);
        memcpy(info, vol->label, need);
    } else {
        return EFI_UNSUPPORTED;
    }
    if (size < need) {
        fw_write_uintn(fw, v, size_ptr, need);
        return EFI_BUFFER_TOO_SMALL;
    }
    if (!buffer || !guest_view_write(v, buffer, info, need))
        return EFI_INVALID_PARAMETER;
    fw_write_uintn(fw, v, size_ptr, need);
    return EFI_SUCCESS;
}

/* A label from the guest: NUL-terminated UCS-2 within len bytes at buf. */
static efi_status_t set_label(struct volume *vol, const uint8_t *buf, uint64_t len)
{
    uint16_t label[sizeof(vol->label) / 2];
    for (unsigned i = 0; i < sizeof(label) / 2; i++) {
        if (2 * (uint64_t)i + 2 > len)
            return EFI_BAD_BUFFER_SIZE;
        memcpy(&label[i], buf + 2 * i, 2);
        if (!label[i]) {
            memcpy(vol->label, label, sizeof(label));
            return EFI_SUCCESS;
        }
    }
    return EFI_INVALID_PARAMETER;   /* longer than a label may be */
}

/* SetInfo(EFI_FILE_INFO): a new name in the same directory, size and
 * attributes; the times are taken as given and not kept. All checked
 * before anything changes. */
static efi_status_t set_file_info(struct firmware *fw, const struct fw_file *f, const uint8_t *buf, uint64_t len)
{
    struct volume *vol = &fw->esp->vol;
    struct volume_node *n = &vol->node[f->node];
    uint64_t size, file_size, attribute;
    uint16_t name[VOLUME_PATH_MAX + 1];
    memcpy(&size, buf, 8);
    memcpy(&file_size, buf + 8, 8);
    memcpy(&attribute, buf + 72, 8);
    unsigned name_len = 0;
    while (name_len <= VOLUME_PATH_MAX && FILE_INFO_SIZE + 2 * (uint64_t)name_len + 2 <= len) {
        memcpy(&name[name_len], buf + FILE_INFO_SIZE + 2 * name_len, 2);
        if (!name[name_len])
            break;
        name_len++;
    }
    if (name_len > VOLUME_PATH_MAX || FILE_INFO_SIZE + 2 * (uint64_t)name_len + 2 > len || size > len ||
        (attribute & ~VOLUME_ATTR_VALID))
        return EFI_BAD_BUFFER_SIZE;
    if (!!(attribute & VOLUME_ATTR_DIRECTORY) != n->dir)
        return EFI_ACCESS_DENIED;
    bool renamed = name_len != volume_name_len(n->name) || memcmp(name, n->name, 2 * (size_t)name_len);
    bool resized = !n->dir && file_size != n->size;
    if ((renamed || resized) && !(f->mode & FILE_MODE_WRITE))
        return EFI_ACCESS_DENIED;
    for (unsigned i = 0; renamed && i < name_len; i++)
        if (name[i] == u'\\')
            return EFI_UNSUPPORTED;   /* a move to another directory is not served */
    if (renamed && !volume_may_rename(vol, f->node, name, name_len))
        return EFI_ACCESS_DENIED;
    if (renamed && !fw_esp_dir_may_hold(fw, n->parent, f->node, name, name_len))
        return EFI_VOLUME_FULL;
    if (resized && volume_set_size(vol, f->node, file_size))
        return EFI_VOLUME_FULL;
    if (renamed && volume_rename(vol, f->node, name, name_len))
        return EFI_OUT_OF_RESOURCES;   /* the name checked: only host memory is left to fail it */
    n->attribute = attribute;
    return EFI_SUCCESS;
}

static efi_status_t file_set_info(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t this = a[0], type = a[1], size = a[2], buffer = a[3];
    struct fw_file *f = file_of(fw, this);
    efi_guid_t g;
    uint8_t info[INFO_MAX];
    if (!f || !type || !guest_view_read(v, type, &g, sizeof(g)) || !buffer || !size || size > INFO_MAX ||
        !guest_view_read(v, buffer, info, size))
        return EFI_INVALID_PARAMETER;
    struct volume *vol = &fw->esp->vol;
    if (node_of(fw, f)->deleted)
        return EFI_DEVICE_ERROR;
    efi_status_t s = EFI_UNSUPPORTED;
    if (guid_equal(&g, &GUID_FILE_INFO))
        s = size < FILE_INFO_SIZE + 2 ? EFI_BAD_BUFFER_SIZE : set_file_info(fw, f, info, size);
    else if (guid_equal(&g, &GUID_FILE_SYSTEM_INFO))
        s = size < FILE_SYSTEM_INFO_SIZE + 2 ? EFI_BAD_BUFFER_SIZE
            : set_label(vol, info + FILE_SYSTEM_INFO_SIZE, size - FILE_SYSTEM_INFO_SIZE);
    else if (guid_equal(&g, &GUID_FILE_SYSTEM_VOLUME_LABEL))
        s = set_label(vol, info, size);
    /* Out of resources: set_file_info may have resized (and moved) the
     * file's data before the rename failed, and the disk reads it. */
    if (s == EFI_SUCCESS || s == EFI_OUT_OF_RESOURCES)
        volume_changed(fw);
    return s;
}

static efi_status_t file_flush(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)v;
    uint64_t this = a[0];
    struct fw_file *f = file_of(fw, this);
    if (!f)
        return EFI_INVALID_PARAMETER;
    if (node_of(fw, f)->deleted)
        return EFI_DEVICE_ERROR;
    return f->mode & FILE_MODE_WRITE ? EFI_SUCCESS : EFI_ACCESS_DENIED;
}

/* ---- trace -------------------------------------------------------------- */

static void decode_open_volume(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                               const uint64_t *a, efi_status_t status)
{
    (void)s;
    if (status == EFI_SUCCESS)
        fw_trace_ptr_uintn(o, "file", v, a[1], true);
}

/* "path": the name Open was given, printable ASCII, '\' escaped for JSON. */
static void decode_open(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                        const uint64_t *a, efi_status_t status)
{
    (void)s;
    uint16_t w[128];
    char text[2 * 128];
    long n = fw_read_ucs2(v, a[2], w, 128);
    if (n >= 0) {
        size_t k = 0;
        for (long i = 0; i < n; i++) {
            if (w[i] == u'\\')
                text[k++] = '\\';   /* JSON's escape of a backslash */
            text[k++] = w[i] == u'\\' || (guest_text_printable(w[i]) && w[i] != '"') ? (char)w[i] : '?';
        }
        text[k] = 0;
        fw_trace_str(o, "path", text);
    }
    fw_trace_hex(o, "mode", a[3]);
    if (status == EFI_SUCCESS)
        fw_trace_ptr_uintn(o, "file", v, a[1], true);
}

static void decode_buffer_size(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                               const uint64_t *a, efi_status_t status)
{
    (void)s, (void)status;
    fw_trace_ptr_uintn(o, "buffer_size", v, a[1], false);
}

static void decode_set_position(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                                const uint64_t *a, efi_status_t status)
{
    (void)s, (void)v, (void)status;
    fw_trace_hex(o, "position", a[1]);
}

static void decode_info(struct fw_trace_out *o, const struct fw_service *s, const struct guest_view *v,
                        const uint64_t *a, efi_status_t status)
{
    (void)status;
    fw_trace_guid(o, "info", v, a[1]);
    if (s->id == FW_ID_FILE(FILE_GET_INFO))
        fw_trace_ptr_uintn(o, "buffer_size", v, a[2], false);
    else
        fw_trace_u64(o, "buffer_size", a[2]);
}

const struct fw_service fw_file_system_service = {
    .id = FW_ID_FILE_SYSTEM, .name = "SimpleFileSystem.OpenVolume", .nargs = 2, .fn = open_volume,
    .decode = decode_open_volume,
};

#define FILE_ROW(i, ...) [i] = { .id = FW_ID_FILE(i), __VA_ARGS__ }   /* i: enum efi_file_service */

const struct fw_service fw_file_services[FILE_COUNT] = {
    FILE_ROW(FILE_OPEN, .name = "File.Open", .nargs = 5, .wide = FW_WIDE(3) | FW_WIDE(4), .fn = file_open,
             .decode = decode_open),
    FILE_ROW(FILE_CLOSE, .name = "File.Close", .nargs = 1, .fn = file_close),
    FILE_ROW(FILE_DELETE, .name = "File.Delete", .nargs = 1, .fn = file_delete),
    FILE_ROW(FILE_READ, .name = "File.Read", .nargs = 3, .fn = file_read, .decode = decode_buffer_size,
         .faults = FW_FAULT(FILE_READ_ERROR)),
    FILE_ROW(FILE_WRITE, .name = "File.Write", .nargs = 3, .fn = file_write, .decode = decode_buffer_size),
    FILE_ROW(FILE_GET_POSITION, .name = "File.GetPosition", .nargs = 2, .fn = file_get_position),
    FILE_ROW(FILE_SET_POSITION, .name = "File.SetPosition", .nargs = 2, .wide = FW_WIDE(1), .fn = file_set_position,
         .decode = decode_set_position),
    FILE_ROW(FILE_GET_INFO, .name = "File.GetInfo", .nargs = 4, .fn = file_get_info, .decode = decode_info),
    FILE_ROW(FILE_SET_INFO, .name = "File.SetInfo", .nargs = 4, .fn = file_set_info, .decode = decode_info),
    FILE_ROW(FILE_FLUSH, .name = "File.Flush", .nargs = 1, .fn = file_flush),
};
