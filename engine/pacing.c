/**
 * @file pacing.c
 * @brief Run state (run, pause, step) and pacing: wall time the host passes
 *        in, times a speed multiplier, becomes whole ticks with a carried
 *        fraction (world.h, "Run state and pacing"; docs/ARCHITECTURE.md
 *        section 3).
 *
 * Exactness. A pacer that adds elapsed * speed / dt in doubles drifts: 0.05
 * is not a binary fraction, so 12,000 sums of 0.05 / 0.05 can end a hair
 * under 12,000 and give 11,999 ticks. Here every quantity is an integer
 * before anything is added:
 *  - the elapsed time is rounded to whole nanoseconds, ns = round(e * 1e9).
 *    A host that measures whole nanoseconds n and passes n * 1e-9 (or
 *    n / 1e9) gets n back: each of the (at most three) double roundings is
 *    within 2^-53 relative, so the product is within n * 3 * 2^-53 of n,
 *    under 0.5 for n < 2^53 / 6 (about 17 days); one call accepts at most
 *    PCS_ADVANCE_ELAPSED_MAX_S = 1e6 s = 1e15 ns. A literal 0.05 likewise
 *    gives exactly 50,000,000 ns.
 *  - the speed is whole thousandths, speed_milli = round(speed * 1000), so
 *    ns * speed_milli is simulated time in picoseconds, exactly;
 *  - dt is whole picoseconds, dt_ps = round(dt_s * 1e12) (0.05 s is exactly
 *    5e10 ps). A dt that is not a whole number of picoseconds paces at a rate
 *    off by at most 0.5 ps / dt_ps <= 5e-7 relative (dt >= 1e-6 s): about
 *    0.04 s a day, which only moves the wall time the ticks run at, never a
 *    tick's content.
 * carry_ps accumulates the product and whole ticks leave it by integer
 * division, so after any sequence of calls the ticks due are exactly
 * floor(sum(ns_i) * speed_milli / dt_ps) (while the speed is constant).
 *
 * Overflow. carry_ps < dt_ps <= 1e13 between chunks; one chunk adds at most
 * PACE_CHUNK_NS * 1e6 = 1e18, so the sum stays below 2^64 ~ 1.8e19. A call
 * longer than a chunk is accounted chunk by chunk (at most 1000 chunks).
 * The backlog saturates at PCS_CLOCK_TICK_MAX, beyond which the clock cannot
 * go anyway.
 *
 * Determinism. Nothing here is simulation state: the ticks run are ordinary
 * pcs_world_tick calls, so the state after N ticks does not depend on how
 * the frames, speed or pauses spread them.
 */
#include "engine/world_internal.h"
#include "pcsim/math.h"

#define PACE_NS_PER_S 1000000000.0
#define PACE_PS_PER_S 1e12
#define PACE_MILLI 1000u
#define PACE_CHUNK_NS UINT64_C(1000000000000) /* 1000 s of wall time */

void pcs_pacing_init(pcs_world *w)
{
    pcs_pacing *p = &w->pacing;
    /* dt_s is validated to [1e-6, 10] s at create: 1e6..1e13 ps. */
    p->dt_ps = (uint64_t)pcs_round(w->cfg.dt_s * PACE_PS_PER_S);
    p->carry_ps = 0;
    p->owed = 0;
    p->speed_milli = PACE_MILLI;
    p->paused = 0;
}

/* Add @p ns of wall time at the current speed to the carry; whole ticks move
 * to the backlog. */
static void accrue(pcs_pacing *p, uint64_t ns)
{
    while (ns > 0) {
        uint64_t chunk = ns < PACE_CHUNK_NS ? ns : PACE_CHUNK_NS;
        ns -= chunk;
        p->carry_ps += chunk * p->speed_milli;
        uint64_t ticks = p->carry_ps / p->dt_ps;
        p->carry_ps %= p->dt_ps;
        p->owed = ticks > PCS_CLOCK_TICK_MAX - p->owed ? PCS_CLOCK_TICK_MAX : p->owed + ticks;
    }
}

/* Wall seconds until the carry reaches a whole tick at the current speed,
 * rounded up to a whole nanosecond so a host that waits this long finds it due. */
static double wait_s(const pcs_pacing *p)
{
    if (p->paused || p->owed > 0)
        return 0.0;
    uint64_t short_ps = p->dt_ps - p->carry_ps;
    uint64_t ns = (short_ps + p->speed_milli - 1) / p->speed_milli;
    return (double)ns / PACE_NS_PER_S;
}

static void fill_result(const pcs_pacing *p, uint64_t ran, pcs_world_advance_result *out)
{
    out->ticks_run = ran;
    out->ticks_behind = p->owed;
    out->wait_s = wait_s(p);
    out->paused = p->paused;
}

pcs_status pcs_world_advance(pcs_world *w, double elapsed_wall_s, uint64_t max_ticks,
                             pcs_world_advance_result *out)
{
    if (!w || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_advance: %s is NULL", w ? "out" : "world");
    if (!pcs_isfinite(elapsed_wall_s) || elapsed_wall_s < 0.0 ||
        elapsed_wall_s > PCS_ADVANCE_ELAPSED_MAX_S)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_world_advance: elapsed_wall_s = %g is outside [0, %g] s",
                             elapsed_wall_s, PCS_ADVANCE_ELAPSED_MAX_S);
    pcs_pacing *p = &w->pacing;
    if (!p->paused)
        accrue(p, (uint64_t)pcs_round(elapsed_wall_s * PACE_NS_PER_S));
    uint64_t ran = 0;
    pcs_status st = PCS_OK;
    while (!p->paused && p->owed > 0 && ran < max_ticks) {
        st = pcs_world_tick(w);
        if (st != PCS_OK)
            break; /* the failed tick stays owed; its message stays set */
        p->owed--;
        ran++;
    }
    fill_result(p, ran, out);
    return st;
}

pcs_status pcs_world_set_speed(pcs_world *w, double speed)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_set_speed: world is NULL");
    if (!pcs_isfinite(speed) || speed < PCS_SPEED_MIN || speed > PCS_SPEED_MAX)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_set_speed: speed %g is outside [%g, %g]",
                             speed, PCS_SPEED_MIN, PCS_SPEED_MAX);
    w->pacing.speed_milli = (uint32_t)pcs_round(speed * PACE_MILLI);
    return PCS_OK;
}

double pcs_world_speed(const pcs_world *w)
{
    return w ? (double)w->pacing.speed_milli / PACE_MILLI : 0.0;
}

/* Set the run state; observers hear of a change only (pause and resume are
 * idempotent, and a republication per repeated call would be noise). */
static void set_paused(pcs_world *w, int paused)
{
    if (w->pacing.paused == paused)
        return;
    w->pacing.paused = paused;
    const pcs_hook_list *observers = &w->hooks[PCS_HOOK_RUN_STATE];
    for (uint32_t i = 0; i < observers->n; i++)
        ((pcs_run_state_fn)observers->recs[i].fn)(observers->recs[i].ctx, paused);
}

pcs_status pcs_world_pause(pcs_world *w)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_pause: world is NULL");
    set_paused(w, 1);
    return PCS_OK;
}

pcs_status pcs_world_resume(pcs_world *w)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_resume: world is NULL");
    set_paused(w, 0);
    return PCS_OK;
}

pcs_status pcs_world_on_run_state(pcs_world *w, pcs_run_state_fn fn, void *ctx)
{
    return pcs_hook_add(w, PCS_HOOK_RUN_STATE, "pcs_world_on_run_state", "run-state observers",
                        (pcs_hook_fn)fn, ctx);
}

int pcs_world_paused(const pcs_world *w)
{
    return w ? w->pacing.paused : 0;
}

pcs_status pcs_world_step_once(pcs_world *w)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_step_once: world is NULL");
    if (!w->pacing.paused)
        return pcs_error_set(PCS_E_STATE, "pcs_world_step_once: the world is running; "
                                          "pcs_world_pause it first (pcs_world_advance "
                                          "runs the ticks of a running world)");
    return pcs_world_tick(w);
}

pcs_status pcs_world_pacing_reset(pcs_world *w)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_pacing_reset: world is NULL");
    w->pacing.carry_ps = 0;
    w->pacing.owed = 0;
    return PCS_OK;
}
