/* The clocks the daemon reads: monotonic for intervals, real time for clients and for the
 * deadlines pthread's timed waits take. */
#ifndef RODD_CLOCK_H
#define RODD_CLOCK_H

#include <time.h>

double mono_now(void);
double unix_now(void);
/* CLOCK_REALTIME `seconds` from now: the deadline pthread's timed waits take. */
struct timespec realtime_after(double seconds);

#endif
