/* The firmware's own measurements (boot_measurements.h). */
#include "boot_measurements.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authenticode.h"
#include "guids.h"
#include "tcg2.h"
#include "tcg_log.h"
#include "variable_store.h"

/* EFI_CALLING_EFI_APPLICATION (PFP section 10.4.4: the boot option's
 * start, in PCR 4). */
#define CALLING_EFI_APPLICATION "Calling EFI Application from Boot Option"
#define UEFI_VARIABLE_DATA_HEAD 32   /* VariableName (a GUID), UnicodeNameLength, VariableDataLength */
#define UEFI_IMAGE_LOAD_EVENT_SIZE 32   /* location, length, link-time address, LengthOfDevicePath (0) */

static int measure_data(struct firmware *fw, unsigned pcr, uint32_t type, const void *event, uint32_t size)
{
    uint8_t digest[TCG_SHA256_SIZE];
    return tcg_sha256(event, size, digest) ? fw_tcg2_measure(fw, pcr, type, digest, event, size) : -1;
}

/* A UEFI_VARIABLE_DATA of the variable's data (none if it is absent, as
 * EDK2's MeasureAllSecureVariables logs it), hashed whole. */
static int measure_variable(struct firmware *fw, const char *name, const efi_guid_t *g)
{
    const uint8_t *data = NULL;
    uint64_t size = 0, len = strlen(name);
    fw_variable_data(fw, name, g, &data, &size);
    uint64_t total = UEFI_VARIABLE_DATA_HEAD + 2 * len + size;
    uint8_t *e = malloc(total);
    if (!e)
        return -1;
    memcpy(e, g, sizeof(*g));
    memcpy(e + 16, &len, 8);
    memcpy(e + 24, &size, 8);
    for (uint64_t i = 0; i < len; i++) {
        e[UEFI_VARIABLE_DATA_HEAD + 2 * i] = (uint8_t)name[i];
        e[UEFI_VARIABLE_DATA_HEAD + 2 * i + 1] = 0;
    }
    if (size)
        memcpy(e + UEFI_VARIABLE_DATA_HEAD + 2 * len, data, size);
    int rc = measure_data(fw, 7, TCG_EV_EFI_VARIABLE_DRIVER_CONFIG, e, (uint32_t)total);
    free(e);
    return rc;
}

/* Keep the first failure's reason in err; the measurements after it are
 * still made. */
static void __attribute__((format(printf, 4, 5)))
note_failure(unsigned *failures, char *err, size_t errlen, const char *fmt, ...)
{
    if ((*failures)++)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* EV_EFI_BOOT_SERVICES_APPLICATION: the image's Authenticode digest and a
 * UEFI_IMAGE_LOAD_EVENT with no device path (the VMM placed it). */
static void measure_image(struct firmware *fw, const uint8_t *image, size_t size, uint64_t base, uint64_t mem_size,
                          unsigned *failures, char *err, size_t errlen)
{
    uint8_t digest[AUTHENTICODE_DIGEST_SIZE], event[UEFI_IMAGE_LOAD_EVENT_SIZE] = { 0 };
    size_t cert_offset, cert_size;
    char why[200];
    if (authenticode_digest(image, size, digest, &cert_offset, &cert_size, why, sizeof(why))) {
        note_failure(failures, err, errlen, "%s", why);
        return;
    }
    memcpy(event, &base, 8);
    memcpy(event + 8, &mem_size, 8);
    if (fw_tcg2_measure(fw, 4, TCG_EV_EFI_BOOT_SERVICES_APPLICATION, digest, event, sizeof(event)))
        note_failure(failures, err, errlen, "the image's measurement did not fit the event log");
}

/* A measurement that does not fit the log still extends its PCR
 * (fw_tcg2_measure), and the ones after it are made all the same, as
 * EDK2's Tcg2Dxe goes on with its log marked truncated: the PCRs are
 * those of a whole boot, only the log lacks events. */
int firmware_measure_boot(struct firmware *fw, const uint8_t *image, size_t size, uint64_t base, uint64_t mem_size,
                          char *err, size_t errlen)
{
    static const struct { const char *name; bool image_db; } secure[] = {
        { "SecureBoot", false }, { "PK", false }, { "KEK", false }, { "db", true }, { "dbx", true },
    };
    const efi_guid_t global = GUID_GLOBAL_VARIABLE, image_db = GUID_IMAGE_SECURITY_DATABASE;
    unsigned failures = 0;
    for (size_t i = 0; i < sizeof(secure) / sizeof(secure[0]); i++)
        if (measure_variable(fw, secure[i].name, secure[i].image_db ? &image_db : &global))
            note_failure(&failures, err, errlen, "the %s variable's measurement did not fit the event log",
                         secure[i].name);
    static const uint8_t separator[4];
    if (measure_data(fw, 4, TCG_EV_EFI_ACTION, CALLING_EFI_APPLICATION, sizeof(CALLING_EFI_APPLICATION) - 1))
        note_failure(&failures, err, errlen, "the EV_EFI_ACTION did not fit the event log");
    for (unsigned pcr = 0; pcr <= 7; pcr++)
        if (measure_data(fw, pcr, TCG_EV_SEPARATOR, separator, sizeof(separator)))
            note_failure(&failures, err, errlen, "PCR %u's EV_SEPARATOR did not fit the event log", pcr);
    measure_image(fw, image, size, base, mem_size, &failures, err, errlen);
    return failures ? -1 : 0;
}
