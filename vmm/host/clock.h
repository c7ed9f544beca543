/* The monotonic clock every timing in handover reads (host/clock.c): the
 * milestones, the heartbeat, --timeout's budget and the sweep's seconds. */
#ifndef HANDOVER_CLOCK_H
#define HANDOVER_CLOCK_H

/* Seconds on CLOCK_MONOTONIC: only differences mean anything. */
double clock_seconds(void);
/* Make now the start of the run: main calls it first. */
void clock_start(void);
/* Seconds since clock_start. */
double clock_since_start(void);

#endif
