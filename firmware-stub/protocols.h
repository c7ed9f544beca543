/* Protocol handler services (UEFI 2.10 section 7.3), for the
 * boot-services table. */
#ifndef HANDOVER_FW_PROTOCOLS_H
#define HANDOVER_FW_PROTOCOLS_H

#include "service.h"

fw_handler fw_install_protocol_interface;
fw_handler fw_reinstall_protocol_interface;
fw_handler fw_uninstall_protocol_interface;
fw_handler fw_handle_protocol;
fw_handler fw_open_protocol;
fw_handler fw_close_protocol;
fw_handler fw_protocols_per_handle;
fw_handler fw_locate_handle;
fw_handler fw_locate_handle_buffer;
fw_handler fw_locate_device_path;
fw_handler fw_locate_protocol;
fw_handler fw_install_multiple_protocol_interfaces;
fw_handler fw_uninstall_multiple_protocol_interfaces;
fw_decoder fw_decode_install_protocol_interface;
fw_decoder fw_decode_handle_protocol_pair;
fw_decoder fw_decode_protocols_per_handle;
fw_decoder fw_decode_locate_handle;
fw_decoder fw_decode_locate_protocol;
fw_decoder fw_decode_install_multiple;
fw_decoder fw_decode_uninstall_multiple;

#endif
