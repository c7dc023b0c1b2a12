/**
 * @file serve_pace.c
 * @brief Free mode's pacing for `pcsim serve --mode free --speed X`: the
 *        library's pcs_world_advance (engine/pacing.c) turns the wall time
 *        since the previous call into whole ticks at the world's speed; this
 *        file adds the server's one rule of its own, and the mode names.
 *
 * The rule: real time is a pace, not a debt. A world that falls more than
 * SERVE_PACE_MAX_LAG_S of wall time behind (a slow tick, a long save, a
 * pause in a debugger) drops its backlog with pcs_world_pacing_reset instead
 * of racing to catch up; the drops are counted for the stop summary. Below
 * that, owed ticks run back to back until the world has caught up, so the
 * rate over any long run is exactly the speed (the library keeps the
 * fraction of a tick that each frame leaves over).
 *
 * One tick per call: the world thread answers requests and announces each
 * tick to the network thread between ticks, so it asks the library for at
 * most one tick at a time; a call that runs none accrues the wall time
 * since the previous call all the same, so nothing is lost.
 */
#include <math.h>
#include <time.h>

#include "cli/serve.h"

uint64_t serve_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *serve_mode_name(serve_mode m)
{
    static const char *const names[] = {
        [SERVE_MODE_STEP] = "step", [SERVE_MODE_FREE] = "free", [SERVE_MODE_FAST] = "fast"};
    return (unsigned)m < sizeof names / sizeof names[0] ? names[m] : "?";
}

void serve_pace_start(serve_pace *p, pcs_world *w, uint64_t now_ns)
{
    pcs_world_pacing_reset(w);
    p->last_ns = now_ns;
}

pcs_status serve_pace_advance(serve_pace *p, pcs_world *w, uint64_t now_ns,
                              pcs_world_advance_result *r, uint64_t *due)
{
    double elapsed = now_ns > p->last_ns ? (double)(now_ns - p->last_ns) / 1e9 : 0.0;
    p->last_ns = now_ns;
    if (elapsed > PCS_ADVANCE_ELAPSED_MAX_S) /* 11 days suspended: far past the lag rule anyway */
        elapsed = PCS_ADVANCE_ELAPSED_MAX_S;
    pcs_status st = pcs_world_advance(w, elapsed, 1, r);
    *due = 0;
    if (st != PCS_OK)
        return st;
    double dt_s = pcs_world_clock(w)->dt_s;
    double lag_s = (double)r->ticks_behind * dt_s / pcs_world_speed(w);
    if (lag_s > SERVE_PACE_MAX_LAG_S) {
        p->dropped += r->ticks_behind;
        p->drops++;
        pcs_world_pacing_reset(w);
        return PCS_OK; /* due at once: the next call starts the new pace */
    }
    if (r->ticks_behind == 0)
        *due = now_ns + (uint64_t)ceil(r->wait_s * 1e9);
    return PCS_OK;
}
