/**
 * @file world.c
 * @brief World configuration, lifecycle and the fixed-step tick.
 *
 * The tick (pcs_world_tick below) runs its steps in order from one table
 * (tick_sequence); this comment is its map. The stage order is part of the
 * determinism contract (docs/ARCHITECTURE.md sections 2 and 7);
 * `pcsim info --schedule` lists what a built world runs at each stage
 * (pcs_schedule_* in system.h).
 *
 * Tick sequence
 *   0. open_event_list       empty the tick's event list (engine/event.c):
 *                            everything after this may emit events.
 *      merge_due_slow_jobs   every job due at this tick (pcs_clock_due of its
 *                            domain and phase): join the run submitted one
 *                            period ago, merge its chunk outputs in chunk
 *                            order, copy fresh inputs, submit the next run
 *                            (engine/job.c). Slow results therefore land
 *                            before stage 1 and every stage of the tick sees
 *                            them.
 *      plugins_before_step   every plugin's before_step, in (priority, id)
 *                            order (engine/plugin.c, pcsim/plugin.h).
 *   1. drain_commands        stage 1, commands: the events of the commands
 *                            that failed attempts at this tick applied or
 *                            rejected are emitted again (their lists were
 *                            discarded: engine/command_carry.c); then the
 *                            engine drains the command rings (at most
 *                            commands_per_tick, sorted by (class, id,
 *                            sequence)) and calls each kind's handler;
 *                            accepted commands are journaled, a refused one
 *                            emits a command_rejected event
 *                            (engine/command.c). Then the systems registered
 *                            for stage 1 run.
 *   2..12. run_model_stages  the systems registered for each stage, in
 *                            (priority, id) order; the engine adds nothing:
 *                             2 actuators   rod and valve travel; trips flagged
 *                                           at stage 10 of the previous tick
 *                             3 kinetics    point kinetics, feedback, decay heat
 *                             4 heat        fuel-rod conduction, heat to coolant
 *                             5 hydraulics  the primary: flows, pressures, pumps,
 *                                           SGs, pressurizer
 *                             6 machines    shafts and couplings (the station:
 *                                           uN.plant.couple, primary to fuel)
 *                             7 accidents   (reserved)
 *                             8 acoustics   (reserved)
 *                             9 sensors     measured values from stages 3-7
 *                            10 protection  trip decisions (act at stage 2 of
 *                                           the next tick: one-tick delay)
 *                            11 alarms      alarm state machines
 *                            12 publish     write a snapshot buffer
 *  13. close_and_deliver_events  stage 13, events: the engine closes the
 *                            event list (this tick's overflow event gets its
 *                            final drop count; emits after this still count
 *                            as drops), runs the stage-13 systems, then hands
 *                            the list to the host's event callback.
 *      plugins_after_step    every plugin's after_step, in (priority, id)
 *                            order: the whole tick is visible to it.
 *      apply_structural_changes  the structural commands stage 1 accepted
 *                            (pcsim/structure.h: their kind's check ran at
 *                            the drain) are applied in drain order, the
 *                            world open for registration and retirement
 *                            while each apply runs; then one commit: the
 *                            run order and parallel sections from the live
 *                            systems, the layout version, the structure
 *                            log, the observers (engine/structure.c). Every
 *                            system of this tick saw one structure; the next
 *                            tick (its slow-job merge first) sees the new
 *                            one. A tick without one costs one branch.
 *   then the clock advances by one tick.
 *
 * After each stage's systems, with cfg.check_finite on, the PCS_STORE_F64
 * stores the stage declares it writes are scanned for NaN/Inf
 * (engine/finite_check.c). With cfg.check_access on, every pcs_store_data
 * call made by a running system is checked against its declared reads and
 * writes, and at level 2 every store is hashed around each system to catch
 * undeclared writes (engine/access_check.c). The stage observer (profiles,
 * probes) sees the begin and end of every stage that starts, including a
 * failing one.
 *
 * Failed tick. The first step that fails stops the tick: its status and
 * message are returned, the later steps do not run, events are not
 * delivered, and the clock does NOT advance, so the clock commits only after
 * a successful tick. Nothing is rolled back: stores already written, commands
 * already drained and applied, and slow-job runs already merged and
 * resubmitted stay as they are. Calling pcs_world_tick again retries the
 * same tick number; jobs submitted by the failed attempt are not submitted
 * twice (job.c: submit_tick), the next command batch is drained. What the
 * failed attempt's commands emitted is emitted again at the retry's stage 1,
 * before its drain (engine/command_carry.c), so the attempt that succeeds
 * announces every command of its tick once, in drain order.
 */
#include <stdio.h>
#include <string.h>

#include "engine/par_stage.h"
#include "engine/probes.h"
#include "engine/world_internal.h"
#include "pcsim/math.h"

static const pcs_world_def world_defaults = {
    .dt_s = 0.05,
    .k_slow = 72.0,
    .k_storage = 8766.0,
    .seed = 1,
    .commands_per_tick = 512,
    .mpsc_capacity = 4096,
    .max_sources = 64,
    .event_capacity = 1024,
    .journal_capacity = 65536,
    .snapshot_buffers = 4,
    .workers = PCS_WORKERS_AUTO,
    .slow_join_timeout_s = 0.005,
#ifdef PCS_DEBUG
    .check_finite = 1,
    .check_access = 1,
#endif
    .build_hash = 0, /* none: the host says what built the world, if it knows */
    .structure_log_capacity = 1024,
};

pcs_status pcs_world_default(pcs_world_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_default: cfg is NULL");
    *cfg = world_defaults;
    return PCS_OK;
}

static pcs_status check_u32(const char *field, uint32_t v, uint32_t lo, uint32_t hi)
{
    if (v < lo || v > hi)
        return pcs_error_set(PCS_E_INVAL, "world config: %s = %u is outside [%u, %u]", field, v, lo,
                             hi);
    return PCS_OK;
}

pcs_status pcs_world_def_validate(const pcs_world_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_def_validate: cfg is NULL");
    pcs_clock probe;
    pcs_status st = pcs_clock_init(&probe, cfg->dt_s, cfg->k_slow, cfg->k_storage);
    if (st != PCS_OK)
        return pcs_error_set(st, "world config: %s", pcs_last_error());
    struct {
        const char *field;
        uint32_t v, lo, hi;
    } ranges[] = {
        {"commands_per_tick", cfg->commands_per_tick, 1, 65536},
        {"mpsc_capacity", cfg->mpsc_capacity, 1, 1u << 20},
        {"max_sources", cfg->max_sources, 0, 4096},
        {"event_capacity", cfg->event_capacity, 2, 1u << 20},
        {"journal_capacity", cfg->journal_capacity, 1, 1u << 24},
        {"snapshot_buffers", cfg->snapshot_buffers, 3, 64},
        {"check_finite", cfg->check_finite, 0, 1},
        {"check_access", cfg->check_access, 0, 2},
        {"structure_log_capacity", cfg->structure_log_capacity, 0, 1u << 20},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        st = check_u32(ranges[i].field, ranges[i].v, ranges[i].lo, ranges[i].hi);
        if (st != PCS_OK)
            return st;
    }
    if (cfg->workers != PCS_WORKERS_AUTO && cfg->workers > 256)
        return pcs_error_set(
            PCS_E_INVAL, "world config: workers = %u is outside [0, 256] (or AUTO)", cfg->workers);
    double t = cfg->slow_join_timeout_s;
    if (!pcs_isfinite(t) || t < 0.0 || t > 60.0)
        return pcs_error_set(PCS_E_INVAL,
                             "world config: slow_join_timeout_s = %g is outside [0, 60] s", t);
    /* build_hash: every value is valid (0 means none); only a load compares it. */
    return PCS_OK;
}

/* The registries start empty and grow during the build (world_internal.h);
 * only the sizes the config fixes are allocated here. */
static pcs_status world_alloc_tables(pcs_world *w)
{
    w->events = pcs_mem_array(&w->mem, w->cfg.event_capacity, sizeof *w->events);
    w->events_prev = pcs_mem_array(&w->mem, w->cfg.event_capacity, sizeof *w->events_prev);
    if (!w->events || !w->events_prev)
        return pcs_error_set(PCS_E_NOMEM, "pcs_world_create: out of memory for world tables");
    pcs_status st = pcs_commands_create(w);
    return st == PCS_OK ? pcs_command_carry_create(w) : st;
}

pcs_status pcs_table_limit(const char *who, const char *what, uint32_t n)
{
    if (n >= PCS_WORLD_IDS_MAX)
        return pcs_error_set(PCS_E_OVERFLOW,
                             "%s: the world already holds %u %s (the most ids "
                             "a world has, PCS_WORLD_IDS_MAX)",
                             who, n, what);
    return PCS_OK;
}

pcs_status pcs_table_reserve(pcs_world *w, const char *who, const char *what, void *table,
                             uint32_t n, uint32_t *cap, size_t size)
{
    if (n < *cap)
        return PCS_OK;
    pcs_status st = pcs_table_limit(who, what, n);
    if (st != PCS_OK)
        return st;
    void *old; /* table is a T **: its pointer is copied out and back as bytes */
    memcpy(&old, table, sizeof old);
    uint32_t grown = *cap ? 2 * *cap : 16;
    void *a = pcs_mem_regrow(&w->mem, old, n, grown, size);
    if (!a)
        return pcs_error_set(PCS_E_NOMEM, "%s: out of memory for %u %s", who, grown, what);
    memcpy(table, &a, sizeof a);
    *cap = grown;
    return PCS_OK;
}

pcs_status pcs_world_create(const pcs_world_def *cfg, pcs_world **out)
{
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_create: out is NULL");
    pcs_status st = pcs_world_def_validate(cfg);
    if (st != PCS_OK)
        return st;
    pcs_mem mem;
    if (pcs_mem_init(&mem) != 0)
        return pcs_error_set(PCS_E_NOMEM, "pcs_world_create: cannot create the world heap");
    pcs_world *w = pcs_mem_alloc(&mem, sizeof *w);
    if (!w) {
        pcs_mem_destroy(&mem);
        return pcs_error_set(PCS_E_NOMEM, "pcs_world_create: out of memory");
    }
    w->mem = mem;
    w->cfg = *cfg;
    pcs_clock_init(&w->clock, cfg->dt_s, cfg->k_slow, cfg->k_storage);
    pcs_pacing_init(w);
    st = world_alloc_tables(w);
    if (st != PCS_OK) {
        pcs_world_destroy(w);
        return st;
    }
    *out = w;
    return PCS_OK;
}

void pcs_world_destroy(pcs_world *w)
{
    if (!w)
        return;
    /* Jobs first: an executor may still be running chunks on our buffers or
     * on model memory a cleanup below frees. */
    pcs_jobs_destroy(w);
    /* Plugins next, in reverse run order: their stores are still readable
     * and the on_destroy callbacks (model memory) have not run yet. */
    pcs_plugins_shutdown(w);
    const pcs_hook_list *cleanups = &w->hooks[PCS_HOOK_CLEANUP];
    for (uint32_t i = cleanups->n; i-- > 0;)
        ((void (*)(void *))cleanups->recs[i].fn)(cleanups->recs[i].ctx);
    pcs_commands_destroy(w);
    pcs_mem mem = w->mem; /* w itself lives in the heap being destroyed */
    pcs_mem_destroy(&mem);
}

pcs_status pcs_world_check_build(const pcs_world *w, const char *fn)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "%s: world is NULL", fn);
    if (w->sealed && !w->amending) /* a structural apply reopens the build (structure.h) */
        return pcs_error_set(PCS_E_STATE,
                             "%s: the world is sealed (it has ticked); "
                             "register everything before the first tick, or from a structural "
                             "command's apply (structure.h)",
                             fn);
    return PCS_OK;
}

static void observe(pcs_world *w, pcs_stage stage, int end)
{
    if (end)
        PCS_PROBE_STAGE_END(w->clock.tick, (int)stage);
    else
        PCS_PROBE_STAGE_BEGIN(w->clock.tick, (int)stage);
    if (w->stage_observer.fn)
        w->stage_observer.fn(w->stage_observer.ctx, stage, end, w->clock.tick);
}

/* Step 0: a fresh event list for this tick. */
static void open_event_list(pcs_world *w)
{
    pcs_events_begin_tick(w);
}

/* Step 0: slow results land before stage 1 (see the tick sequence above). */
static pcs_status merge_due_slow_jobs(pcs_world *w)
{
    return pcs_jobs_before_tick(w);
}

/* Run one stage's systems between the observer's begin and end marks. */
static pcs_status run_stage(pcs_world *w, pcs_stage stage)
{
    observe(w, stage, 0);
    pcs_status st = pcs_systems_run_stage(w, stage);
    observe(w, stage, 1);
    return st;
}

/* Stage 1: the engine applies the drained commands, then stage-1 systems run. */
static pcs_status drain_commands(pcs_world *w)
{
    observe(w, PCS_STAGE_COMMANDS, 0);
    pcs_command_carry_announce(w); /* one branch unless a failed attempt applied commands */
    pcs_status st = pcs_commands_stage(w);
    if (st == PCS_OK)
        st = pcs_systems_run_stage(w, PCS_STAGE_COMMANDS);
    observe(w, PCS_STAGE_COMMANDS, 1);
    return st;
}

/* Stages 2..12: only registered systems; the engine does nothing of its own. */
static pcs_status run_model_stages(pcs_world *w)
{
    for (int s = PCS_STAGE_ACTUATORS; s <= PCS_STAGE_PUBLISH; s++) {
        pcs_status st = run_stage(w, (pcs_stage)s);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}

/* Stage 13: close the event list, run stage-13 systems, deliver the list. */
static pcs_status close_and_deliver_events(pcs_world *w)
{
    observe(w, PCS_STAGE_EVENTS, 0);
    pcs_events_end_tick(w);
    pcs_status st = pcs_systems_run_stage(w, PCS_STAGE_EVENTS);
    if (st == PCS_OK)
        pcs_events_deliver(w);
    observe(w, PCS_STAGE_EVENTS, 1);
    return st;
}

/* Before stage 1: the plugins see this tick's slow results. */
static pcs_status plugins_before_step(pcs_world *w)
{
    return pcs_plugins_before_step(w);
}

/* After stage 13: the plugins see the whole tick, at its tick number. */
static pcs_status plugins_after_step(pcs_world *w)
{
    return pcs_plugins_after_step(w);
}

/* After the plugins: the structural changes of this tick, applied in drain
 * order and committed (engine/structure.c); one branch when there are none. */
static pcs_status apply_structural_changes(pcs_world *w)
{
    return w->structure ? pcs_structure_apply_queued(w) : PCS_OK;
}

/* The clock moves only once every step before it succeeded, so a failed
 * tick leaves the time where it was. */
static pcs_status advance_clock(pcs_world *w)
{
    return pcs_clock_advance(&w->clock);
}

/* The tick sequence of the file comment between the event list's opening and
 * its commit, one row per step, run in this order until one fails. */
static pcs_status (*const tick_sequence[])(pcs_world *w) = {
    merge_due_slow_jobs,      /* 0 */
    plugins_before_step,      /* 0 */
    drain_commands,           /* 1 */
    run_model_stages,         /* 2..12 */
    close_and_deliver_events, /* 13 */
    plugins_after_step,       /* 13 */
    apply_structural_changes, /* 13 */
    advance_clock,            /* 13 */
};

static pcs_status tick_steps(pcs_world *w)
{
    open_event_list(w);
    pcs_status st = PCS_OK;
    for (size_t i = 0; st == PCS_OK && i < sizeof tick_sequence / sizeof tick_sequence[0]; i++)
        st = tick_sequence[i](w);
    if (st == PCS_OK) {
        pcs_events_commit(w);       /* the next tick's systems see this list as the previous */
        pcs_command_carry_clear(w); /* this list announced the tick's commands */
    }
    return st;
}

pcs_status pcs_world_usable(const pcs_world *w, const char *fn)
{
    if (w->unusable[0])
        return pcs_error_set(PCS_E_STATE, "%s: %s", fn, w->unusable);
    return PCS_OK;
}

void pcs_world_mark_unusable(pcs_world *w, const char *why)
{
    snprintf(w->unusable, sizeof w->unusable, "%s", why);
}

pcs_status pcs_world_tick(pcs_world *w)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_tick: world is NULL");
    if (w->unusable[0])
        return pcs_world_usable(w, "pcs_world_tick");
    if (w->clock.tick >= PCS_CLOCK_TICK_MAX)
        return pcs_clock_advance(&w->clock); /* reports the overflow, clock unchanged */
    if (!w->sealed && w->par_units) {
        /* The parallel sections, from the final schedule (engine/par_stage.c:
         * kept if found since the last registration); a failure leaves the
         * world unsealed. */
        pcs_status st = pcs_par_plan_build(w, 1);
        if (st != PCS_OK)
            return st;
    }
    w->sealed = 1; /* registrations end here; the run order is already built */
    uint64_t tick = w->clock.tick;
    PCS_PROBE_TICK_BEGIN(tick);
    pcs_status st = tick_steps(w);
    PCS_PROBE_TICK_END(tick, (int)st);
    return st;
}

const pcs_clock *pcs_world_clock(const pcs_world *w)
{
    return w ? &w->clock : NULL;
}

const pcs_world_def *pcs_world_def_get(const pcs_world *w)
{
    return w ? &w->cfg : NULL;
}

int pcs_world_sealed(const pcs_world *w)
{
    return w ? w->sealed : 0;
}

void *pcs_world_alloc(pcs_world *w, size_t bytes)
{
    if (pcs_world_check_build(w, "pcs_world_alloc") != PCS_OK)
        return NULL;
    void *p = pcs_mem_alloc(&w->mem, bytes);
    if (!p)
        pcs_error_set(PCS_E_NOMEM, "pcs_world_alloc: cannot allocate %zu bytes", bytes);
    return p;
}

pcs_status pcs_hook_add(pcs_world *w, pcs_hook_kind kind, const char *who, const char *what,
                        pcs_hook_fn fn, void *ctx)
{
    pcs_status st = pcs_world_check_build(w, who);
    if (st != PCS_OK)
        return st;
    if (!fn)
        return pcs_error_set(PCS_E_INVAL, "%s: fn is NULL", who);
    pcs_hook_list *l = &w->hooks[kind];
    st = pcs_table_reserve(w, who, what, &l->recs, l->n, &l->cap, sizeof *l->recs);
    if (st == PCS_OK)
        l->recs[l->n++] = (pcs_hook_rec){.fn = fn, .ctx = ctx};
    return st;
}

pcs_status pcs_world_on_destroy(pcs_world *w, void (*fn)(void *ctx), void *ctx)
{
    return pcs_hook_add(w, PCS_HOOK_CLEANUP, "pcs_world_on_destroy", "cleanup callbacks",
                        (pcs_hook_fn)fn, ctx);
}

uint64_t pcs_world_alloc_count(const pcs_world *w)
{
    return w ? w->mem.count : 0;
}
