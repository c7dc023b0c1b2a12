/**
 * @file par_stress.c
 * @brief Stress test of the parallel unit sections (engine/par_stage.c) on the built-in station.
 *
 * The claim (par.units): the default station ticked with parallel units on,
 * its sections run by the host and a pool of 2 workers (oversubscribed on
 * purpose: more threads than cores interleave most), gives each tick the
 * event list of the same station ticked serially, and the same state hash
 * every 20 ticks. Under ThreadSanitizer (make stress-tsan) it is also the
 * race check of the parallel path: the units' systems run on three threads
 * at once, so a store, a ctx or an engine field two units share shows up as
 * a report, and TSAN_OPTIONS halt_on_error=1 fails the run.
 *
 * One soak actor ticks both worlds in step; there is nothing to race
 * against but the pool's own workers.
 */
#include <stdlib.h>
#include <string.h>

#include "pcsim/pcsim.h"
#include "pcsim/station.h"
#include "stress/stress.h"

enum { PS_SAME = 0, PS_EVENTS_DIFFER = 1, PS_HASH_DIFFERS = 2, PS_TICK_FAILED = 3 };

typedef struct ps_world {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
    pcs_exec *pool;
} ps_world;

typedef struct ps_state {
    ps_world serial, par;
} ps_state;

static int ps_build(ps_world *x, int parallel)
{
    if (pcs_scenario_default(&x->scn) != PCS_OK)
        return 0;
    pcs_world_def cfg = pcs_scenario_world_def(x->scn);
    if (pcs_world_create(&cfg, &x->w) != PCS_OK || pcs_station_add(x->w, x->scn, &x->st) != PCS_OK)
        return 0;
    if (!parallel)
        return 1;
    pcs_exec_def ec;
    pcs_exec_default(&ec);
    ec.workers = 2;
    ec.pin = false;
    ec.allow_oversubscribe = true;
    return pcs_exec_create(&ec, &x->pool) == PCS_OK && pcs_exec_attach(x->pool, x->w) == PCS_OK &&
           pcs_world_set_parallel_units(x->w, 1) == PCS_OK;
}

static void ps_free(ps_world *x)
{
    pcs_station_destroy(x->st);
    pcs_world_destroy(x->w);
    pcs_exec_destroy(x->pool);
    pcs_scenario_destroy(x->scn);
}

static void ps_teardown(void *shared)
{
    ps_state *s = shared;
    if (!s)
        return;
    ps_free(&s->serial);
    ps_free(&s->par);
    free(s);
}

static void *ps_setup(void)
{
    ps_state *s = calloc(1, sizeof *s);
    if (s && ps_build(&s->serial, 0) && ps_build(&s->par, 1))
        return s;
    ps_teardown(s);
    return NULL;
}

/* Tick both; the outcome of the comparison. */
static int ps_step(ps_state *s, uint64_t t)
{
    if (pcs_world_tick(s->serial.w) != PCS_OK || pcs_world_tick(s->par.w) != PCS_OK)
        return PS_TICK_FAILED;
    uint32_t na, nb;
    const pcs_event *a = pcs_world_events(s->serial.w, &na);
    const pcs_event *b = pcs_world_events(s->par.w, &nb);
    if (na != nb || memcmp(a, b, na * sizeof *a) != 0)
        return PS_EVENTS_DIFFER;
    if (t % 20 == 19 && pcs_world_state_hash(s->serial.w) != pcs_world_state_hash(s->par.w))
        return PS_HASH_DIFFERS;
    return PS_SAME;
}

static void ps_actor(void *shared, pcs_stress_ctl *ctl)
{
    ps_state *s = shared;
    for (uint64_t t = 0; pcs_stress_running(ctl); t++) {
        int o = ps_step(s, t);
        pcs_stress_record(ctl, o);
        if (o == PS_TICK_FAILED)
            return;
    }
}

static const pcs_stress_outcome ps_outcomes[] = {
    {PS_SAME, PCS_STRESS_ACCEPTABLE, "same", "the tick's events (and every 20th hash) agree"},
    {PS_EVENTS_DIFFER, PCS_STRESS_FORBIDDEN, "events differ",
     "the parallel tick's event list is not the serial one"},
    {PS_HASH_DIFFERS, PCS_STRESS_FORBIDDEN, "hash differs",
     "the parallel station's state left the serial one"},
    {PS_TICK_FAILED, PCS_STRESS_FORBIDDEN, "tick failed", "a tick of either world failed"},
};

static const pcs_stress_test ps_units = {
    .name = "par.units",
    .description = "the station with parallel unit sections on 2 workers ticks as the serial one",
    .style = PCS_STRESS_SOAK,
    .n_actors = 1,
    .actors = {ps_actor},
    .outcomes = ps_outcomes,
    .n_outcomes = sizeof ps_outcomes / sizeof ps_outcomes[0],
    .setup = ps_setup,
    .teardown = ps_teardown,
};
PCS_STRESS_REGISTER(ps_units)
