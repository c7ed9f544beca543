/* Image services (UEFI 2.10 section 7.4): LoadImage, StartImage, Exit and
 * UnloadImage. */
#ifndef HANDOVER_FW_IMAGE_H
#define HANDOVER_FW_IMAGE_H

#include <stdint.h>

#include "service.h"

fw_handler fw_load_image;
fw_handler fw_start_image;
fw_handler fw_exit;
fw_handler fw_unload_image;
fw_decoder fw_decode_load_image;
fw_decoder fw_decode_image_handle;
fw_decoder fw_decode_exit;
/* The image LoadImage made with this handle, or NULL. */
struct fw_image *fw_image_of(struct firmware *fw, uint64_t handle);
/* An entry point StartImage called returned (FW_ID_START_IMAGE_RETURN). */
extern const struct fw_service fw_start_image_return_service;

#endif
