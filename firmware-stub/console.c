/* ConOut (EFI_SIMPLE_TEXT_OUTPUT_PROTOCOL) and ConIn
 * (EFI_SIMPLE_TEXT_INPUT_PROTOCOL), UEFI 2.10 chapter 12. OutputString's
 * UCS-2 becomes UTF-8 on the VMM's console; carriage returns are dropped. */
#include "console.h"

#include <string.h>

#include "keys.h"
#include "log.h"
#include "width.h"

#define OUTPUT_STRING_MAX 65536  /* characters per OutputString call */

static size_t utf8_encode(uint16_t c, char *out)
{
    if (c >= 0xd800 && c <= 0xdfff)
        c = 0xfffd;   /* UCS-2 has no surrogates */
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xc0 | c >> 6);
        out[1] = (char)(0x80 | (c & 0x3f));
        return 2;
    }
    out[0] = (char)(0xe0 | c >> 12);
    out[1] = (char)(0x80 | ((c >> 6) & 0x3f));
    out[2] = (char)(0x80 | (c & 0x3f));
    return 3;
}

static void console_write_ucs2(struct firmware *fw, const uint16_t *s, size_t n)
{
    char out[3];
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\r')
            continue;
        if (s[i] == '\n') {
            fw->last_line_ended = true;
        } else {
            if (fw->last_line_ended)
                fw->last_line_len = 0;
            fw->last_line_ended = false;
            if (fw->last_line_len + 1 < sizeof(fw->last_line))
                fw->last_line[fw->last_line_len++] = s[i] < 0x80 ? (char)s[i] : '?';
        }
        fw->last_line[fw->last_line_len] = 0;
        size_t len = utf8_encode(s[i], out);
        if (!fw->cfg.console)
            continue;
        /* --console-limit counts this text with the serial console's. */
        if (fw->cfg.console_used) {
            if (*fw->cfg.console_used >= fw->cfg.console_limit)
                continue;
            *fw->cfg.console_used += len;
        }
        fwrite(out, 1, len, fw->cfg.console);
    }
    if (fw->cfg.console)
        fflush(fw->cfg.console);
}

static efi_status_t output_string(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t string = a[1];
    uint16_t chunk[256];
    if (!string)
        return EFI_INVALID_PARAMETER;
    /* Print in chunks up to the terminating NUL. A string running off the
     * end of guest memory fails without printing its unreadable tail. */
    for (unsigned done = 0; done < OUTPUT_STRING_MAX; done += 256) {
        size_t n = 0;
        while (n < 256) {
            if (!guest_view_read(v, string + 2 * n, &chunk[n], 2))
                return EFI_INVALID_PARAMETER;
            if (!chunk[n])
                break;
            n++;
        }
        console_write_ucs2(fw, chunk, n);
        if (n < 256)
            return EFI_SUCCESS;
        string += 512;
    }
    return EFI_SUCCESS;
}

static efi_status_t conout_success(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)fw, (void)v, (void)a;
    return EFI_SUCCESS;
}

static efi_status_t query_mode(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t mode_number = a[1], columns_ptr = a[2], rows_ptr = a[3];
    uint64_t cols = 80, rows = 25;
    unsigned w = fw_uintn_size(fw);
    if (mode_number != 0)
        return EFI_UNSUPPORTED;
    /* Both checked first: a failed call writes neither. */
    if (!fw_writable(v, columns_ptr, w) || !fw_writable(v, rows_ptr, w))
        return EFI_INVALID_PARAMETER;
    fw_write_uintn(fw, v, columns_ptr, cols);
    fw_write_uintn(fw, v, rows_ptr, rows);
    return EFI_SUCCESS;
}

static efi_status_t set_mode(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    (void)fw, (void)v;
    uint64_t mode_number = a[1];
    return mode_number == 0 ? EFI_SUCCESS : EFI_UNSUPPORTED;
}

/* The --keys, one a call, in order (UEFI 2.10 section 12.3.3); then
 * EFI_NOT_READY for ever. */
static efi_status_t read_key_stroke(struct firmware *fw, const struct guest_view *v, const uint64_t *a)
{
    uint64_t key_ptr = a[1];
    struct efi_input_key key;
    int len = fw->cfg.keys ? keys_next(fw->cfg.keys + fw->keys_taken, &key) : 0;
    if (len > 0) {
        if (!key_ptr || !guest_view_write(v, key_ptr, &key, sizeof(key)))
            return EFI_INVALID_PARAMETER;   /* the key stays for the next call */
        fw->keys_taken += (size_t)len;
        return EFI_SUCCESS;
    }
    /* A prompt such as GRUB's "Press any key to exit." after grub_fatal
     * polls forever: say why, once. */
    if (++fw->key_polls == FW_KEY_POLLS_REPORTED)
        fw_log(fw, "the image has polled ConIn.ReadKeyStroke %d times: handover has no keyboard and no --keys are "
               "left, so no key will come (a menu waits out its timeout, a prompt waits until --timeout)",
               FW_KEY_POLLS_REPORTED);
    return EFI_NOT_READY;
}

#define CONOUT(i, ...) [i] = { .id = FW_ID_CONOUT(i), __VA_ARGS__ }   /* i: enum efi_conout_service */
#define CONIN(i, ...)  [i] = { .id = FW_ID_CONIN(i), __VA_ARGS__ }    /* i: enum efi_conin_service */

const struct fw_service fw_conout_services[CONOUT_COUNT] = {
    CONOUT(CONOUT_RESET, .name = "ConOut.Reset", .nargs = 2, .fn = conout_success),
    CONOUT(CONOUT_OUTPUT_STRING, .name = "ConOut.OutputString", .nargs = 2, .fn = output_string),
    CONOUT(CONOUT_TEST_STRING, .name = "ConOut.TestString", .nargs = 2, .fn = conout_success),
    CONOUT(CONOUT_QUERY_MODE, .name = "ConOut.QueryMode", .nargs = 4, .fn = query_mode),
    CONOUT(CONOUT_SET_MODE, .name = "ConOut.SetMode", .nargs = 2, .fn = set_mode),
    CONOUT(CONOUT_SET_ATTRIBUTE, .name = "ConOut.SetAttribute", .nargs = 2, .fn = conout_success),
    CONOUT(CONOUT_CLEAR_SCREEN, .name = "ConOut.ClearScreen", .nargs = 1, .fn = conout_success),
    CONOUT(CONOUT_SET_CURSOR_POSITION, .name = "ConOut.SetCursorPosition", .nargs = 3, .fn = conout_success),
    CONOUT(CONOUT_ENABLE_CURSOR, .name = "ConOut.EnableCursor", .nargs = 2, .fn = conout_success),
};

/* ConIn.Reset drops no --keys: they stand for keys the user has yet to
 * type, not for ones waiting in a buffer, and an image that resets ConIn
 * before it reads (to drop stale keys) would otherwise never see them. */
const struct fw_service fw_conin_services[CONIN_COUNT] = {
    CONIN(CONIN_RESET, .name = "ConIn.Reset", .nargs = 2, .fn = conout_success),
    CONIN(CONIN_READ_KEY_STROKE, .name = "ConIn.ReadKeyStroke", .nargs = 2, .fn = read_key_stroke),
};
