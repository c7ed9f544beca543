#include "kunit.h"

#include "../verdict/ktap.h"
#include "../vmm.h"

static void on_line(void *ctx, const char *line)
{
    ktap_line(ctx, line);
}

static bool on_done(void *ctx)
{
    return ktap_complete(ctx);
}

/* 0 all passed, 1 a test failed or no suite ran, 7 the run did not
 * finish; a panic, crash or timeout keeps its status. */
static int on_run_end(void *ctx, int status)
{
    const struct ktap *k = ctx;
    ktap_summary(k, stdout);
    fflush(stdout);
    if (status == RUN_OBSERVER_DONE)
        return ktap_passed(k) ? EXIT_OK : EXIT_KUNIT_FAILED;
    if (status == EXIT_OK || status == EXIT_FIRMWARE_EXIT) {
        vmm_log("the guest stopped before the KUnit run reported every suite");
        return EXIT_KUNIT_INCOMPLETE;
    }
    return status;
}

const struct run_hooks kunit_hooks = { .name = "ktap", .console_line = on_line, .done = on_done, .run_end = on_run_end };
