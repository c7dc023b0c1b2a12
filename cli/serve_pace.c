/**
 * @file serve_pace.c
 * @brief Free-running pacing for `pcsim serve --mode free --speed X`: when
 *        each tick is due in wall time.
 *
 * Tick k of a pacing run is due at t0 + k * dt / speed, computed from the
 * start rather than by adding a period per tick, so rounding never
 * accumulates. A world that falls more than a second behind (a slow tick, a
 * long pause in a debugger) starts a new pacing run from now instead of
 * racing to catch up: real time is a pace, not a debt. The library's pacing
 * (the living-world issue) replaces this file.
 */
#include <time.h>

#include "cli/serve.h"

/* Behind by more than this, pacing restarts from now. */
#define PACE_MAX_LAG_NS 1000000000u

uint64_t serve_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void serve_pacer_start(serve_pacer *p, double speed, double dt_s, uint64_t now_ns)
{
    p->speed = speed;
    p->dt_s = dt_s;
    p->t0_ns = now_ns;
    p->ticks = 0;
}

uint64_t serve_pacer_tick(serve_pacer *p, uint64_t now_ns)
{
    if (p->speed <= 0.0)
        return 0;
    p->ticks++;
    uint64_t due = p->t0_ns + (uint64_t)((double)p->ticks * p->dt_s / p->speed * 1e9);
    if (now_ns > due + PACE_MAX_LAG_NS) {
        serve_pacer_start(p, p->speed, p->dt_s, now_ns);
        return 0;
    }
    return due;
}
