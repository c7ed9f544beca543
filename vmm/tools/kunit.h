/* --kunit: the KTAP reader (verdict/ktap.h) on a run's console. The run
 * ends once every suite reported, and its status is the tests'. */
#ifndef HANDOVER_KUNIT_H
#define HANDOVER_KUNIT_H

#include "../run_hooks.h"

/* The observer; ctx: a struct ktap. */
extern const struct run_hooks kunit_hooks;

#endif
