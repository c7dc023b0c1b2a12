/**
 * @file par_stage.c
 * @brief Parallel unit sections: a stage's per-unit systems as a parallel-for
 *        over units on the world's executor (pcs_world_set_parallel_units).
 *
 * What runs in parallel. Within a stage the systems run in their run order
 * (priority, then id; system.c). A system whose name starts with a unit
 * prefix "uN." (N decimal digits, as the station names them and as the
 * gates group them, engine/gate.c) belongs to unit N; any other system is a
 * barrier the host runs alone. A maximal run of consecutive unit systems
 * holding at least two units is a section. The section is partitioned by
 * unit, one chunk per unit in order of first appearance; a chunk runs its
 * unit's systems of the section in run order. The partition is fixed at the
 * seal from the names alone, never from timing, so which systems a chunk
 * runs and in what order is the same for any worker count.
 *
 * Why that is the serial result. Reordering the section from run order
 * (u1.a u2.a u1.b u2.b) to unit-major order (u1.a u1.b | u2.a u2.b) and
 * running the chunks at once changes nothing if no store written by one
 * unit's system in the section is read or written by another unit's system
 * in it: each system then sees exactly the stores it saw in run order. The
 * seal proves this from the declared reads and writes (plus the gate flag
 * each system reads before it runs); system.c's registration check already
 * forbids most such overlaps within a stage, but the gate flags are not in
 * it, and the proof does not lean on it. A section not proven runs serially
 * in run order on the host. The proof covers stores only: a model's ctx
 * memory shared between units is outside the schedule, and check_access and
 * TSan (the parallel run is in the TSan checks) are what catch it.
 *
 * Who runs the chunks. The section is a run of the world's executor
 * (job.h: bind once, then submit and join each tick) with one chunk per
 * unit. The join is given no timeout: the host never waits for a busy
 * worker, it claims every chunk nobody started and runs it itself (exec's
 * steal, as Box2D's solver has the main thread take part), then waits only
 * for chunks already running. Without an executor, or with 0 workers, the
 * host runs every chunk in chunk order: the same code, the same result.
 *
 * What a chunk leaves behind. It writes only its unit's stores. Everything
 * else goes to its unit's buffer: events (with the run-order position of
 * the system that emitted them), the first failure (status, message copied
 * from the worker's thread-local error, position) and the level-1 access
 * fault. After the join the host merges them in run order: events by
 * position, so the tick's event list, the state hash and saves are what a
 * serial run gives, whatever the worker count; the failure reported is the
 * one at the lowest position, which is the one a serial run stops at (a
 * chunk stops at its first failure, and every system before that position
 * ran), and only the events up to it are kept. After a failure other units
 * may have run later systems of the section (their stores show it); a
 * failed tick rolls nothing back anyway (world.c). A chunk's
 * buffer holds what could still fit the tick's list, so a system sees
 * PCS_E_OVERFLOW from pcs_event_emit only when its own unit's events
 * already fill it (a serial run may say so earlier); the kept events and
 * the drop count are the serial ones.
 *
 * Not parallel: with check_access 2 (every store hashed around each system,
 * which reads what other chunks write) sections run serially. Stage
 * observers and probes mark stages, which the host begins and ends, so no
 * span comes from a chunk.
 *
 * Memory: the plan and every buffer (one event list of event_capacity and
 * one message per unit) come from the world heap when parallel units are
 * turned on, and again at the seal only if systems, stores or gates were
 * registered since, and at each structural commit (pcs_par_plan_rebuild);
 * a tick without structural change allocates nothing.
 */
#include <stdio.h>
#include <string.h>

#include "engine/access_check.h"
#include "engine/par_stage.h"

#define NO_FAULT UINT32_MAX

typedef struct pcs_par_event {
    uint32_t pos; /* run-order position of the emitting system */
    pcs_event ev;
} pcs_par_event;

/* One unit's chunk state, reused by every section the unit is in. */
struct pcs_par_unit {
    pcs_world *w;
    uint32_t number; /* N of "uN." */
    const pcs_system_rec *running;
    uint32_t access_fault;
    uint32_t pos;          /* run-order position of the running system */
    pcs_par_event *events; /* event_capacity */
    uint32_t n_events, limit, cursor;
    uint64_t dropped;
    pcs_status st;     /* first failure in the section, PCS_OK: none */
    uint32_t fail_pos; /* its position */
    char *msg;         /* PCS_LAST_ERROR_MAX: its message, copied from the chunk's thread */
    char pad[64];      /* neighbours' fields, written by other threads, on other lines */
};

typedef struct pcs_par_section {
    pcs_world *w;
    pcs_stage stage;
    uint32_t first, end; /* run-order range */
    uint32_t n_chunks;
    uint32_t *chunk_unit;  /* n_chunks: index into the plan's units */
    uint32_t *chunk_first; /* n_chunks + 1: offsets into pos */
    uint32_t *pos;         /* end - first run-order positions, grouped by chunk */
    uint32_t *unit_at;     /* end - first: the unit index of position first + i */
    uint32_t clash_store;  /* the store that made it serial, else NO_FAULT */
    pcs_job_run run;
    void **outputs; /* n_chunks NULL slots: a chunk's output is its unit's buffer */
    void *slot;     /* executor state; NULL = not bound */
    int bind_failed;
    char name[32];
} pcs_par_section;

typedef struct pcs_par_plan {
    uint32_t n_systems, n_stores, n_gated; /* what it was found from (plan_current) */
    int for_run;                           /* the unit buffers are allocated */
    pcs_par_unit *units;
    uint32_t n_units;
    pcs_par_section *sections; /* in run order */
    uint32_t n_sections;
} pcs_par_plan;

static _Thread_local pcs_par_unit *current;

pcs_par_unit *pcs_par_current(const pcs_world *w)
{
    pcs_par_unit *u = current;
    return u && u->w == w ? u : NULL;
}

pcs_status pcs_world_set_parallel_units(pcs_world *w, int on)
{
    pcs_status st = pcs_world_check_build(w, "pcs_world_set_parallel_units");
    if (st != PCS_OK)
        return st;
    if (on != 0 && on != 1)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_set_parallel_units: on = %d is not 0 or 1",
                             on);
    w->par_units = on;
    /* Found now, so a host that turns it on last (as `pcsim run` does)
     * has a first tick that allocates nothing; the seal finds them again
     * only if registrations came since. */
    return on ? pcs_par_plan_build(w, 1) : PCS_OK;
}

int pcs_world_parallel_units(const pcs_world *w)
{
    return w ? w->par_units : 0;
}

/* ---- the plan ---------------------------------------------------------------- */

static uint32_t count_gated(const pcs_world *w)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->n_systems; i++)
        n += w->systems[i].gate != NULL;
    return n;
}

/* Registrations only add systems, stores and gates: the same counts mean
 * the same schedule. */
static int plan_current(const pcs_world *w, int for_run)
{
    const pcs_par_plan *p = w->par;
    return p && (p->for_run || !for_run) && p->n_systems == w->n_systems &&
           p->n_stores == w->n_stores && p->n_gated == count_gated(w);
}

/* The unit number of a "uN." name, or -1. */
static int64_t unit_of_name(const char *name)
{
    if (name[0] != 'u' || name[1] < '0' || name[1] > '9')
        return -1;
    int64_t n = 0;
    const char *p = name + 1;
    for (; *p >= '0' && *p <= '9'; p++) {
        n = n * 10 + (*p - '0');
        if (n > UINT32_MAX)
            return -1;
    }
    return *p == '.' ? n : -1;
}

static int64_t unit_at(const pcs_world *w, uint32_t k)
{
    return unit_of_name(w->systems[w->stage_order[k]].desc.name);
}

/* The store holding gate flag @p g, or NO_FAULT. */
static uint32_t gate_store(const pcs_world *w, const uint32_t *g)
{
    for (uint32_t i = 0; g && i < w->n_stores; i++) {
        const char *lo = w->stores[i].data;
        const char *p = (const char *)g;
        if (p >= lo && p < lo + w->stores[i].elem_size * w->stores[i].count)
            return i;
    }
    return NO_FAULT;
}

/* The plan's index of unit @p number, added on first sight. */
static uint32_t unit_index(pcs_par_plan *p, uint32_t number)
{
    for (uint32_t i = 0; i < p->n_units; i++)
        if (p->units[i].number == number)
            return i;
    p->units[p->n_units].number = number;
    return p->n_units++;
}

/* Mark @p store as touched by unit @p u (owner[] holds unit index + 1 of its
 * writer); NO_FAULT if consistent, else the store. */
static uint32_t claim_write(uint32_t *owner, uint32_t store, uint32_t u)
{
    if (owner[store] && owner[store] != u + 1)
        return store;
    owner[store] = u + 1;
    return NO_FAULT;
}

/* The proof of the file comment: the first store written by one unit's
 * system of the section and touched by another's, or NO_FAULT. */
static uint32_t prove(const pcs_world *w, const pcs_par_section *s, uint32_t *owner)
{
    uint32_t clash = NO_FAULT;
    for (uint32_t k = s->first; clash == NO_FAULT && k < s->end; k++) {
        const pcs_system_desc *d = &w->systems[w->stage_order[k]].desc;
        for (uint32_t i = 0; clash == NO_FAULT && i < d->n_writes; i++)
            clash = claim_write(owner, d->writes[i], s->unit_at[k - s->first]);
    }
    for (uint32_t k = s->first; clash == NO_FAULT && k < s->end; k++) {
        const pcs_system_rec *r = &w->systems[w->stage_order[k]];
        uint32_t u = s->unit_at[k - s->first] + 1;
        for (uint32_t i = 0; clash == NO_FAULT && i <= r->desc.n_reads; i++) {
            uint32_t st = i < r->desc.n_reads ? r->desc.reads[i] : gate_store(w, r->gate);
            if (st != NO_FAULT && owner[st] && owner[st] != u)
                clash = st;
        }
    }
    for (uint32_t k = s->first; k < s->end; k++) { /* owner[] back to all zero */
        const pcs_system_desc *d = &w->systems[w->stage_order[k]].desc;
        for (uint32_t i = 0; i < d->n_writes; i++)
            owner[d->writes[i]] = 0;
    }
    return clash;
}

/* Group the section's positions by chunk (units in order of first sight). */
static pcs_status partition(pcs_world *w, pcs_par_plan *p, pcs_par_section *s)
{
    uint32_t n = s->end - s->first;
    s->unit_at = pcs_mem_array(&w->mem, n, sizeof *s->unit_at);
    s->pos = pcs_mem_array(&w->mem, n, sizeof *s->pos);
    s->chunk_unit = pcs_mem_array(&w->mem, n, sizeof *s->chunk_unit);
    s->chunk_first = pcs_mem_array(&w->mem, n + 1, sizeof *s->chunk_first);
    if (!s->unit_at || !s->pos || !s->chunk_unit || !s->chunk_first)
        return pcs_error_set(PCS_E_NOMEM, "parallel units: out of memory for the plan");
    for (uint32_t k = s->first; k < s->end; k++) {
        uint32_t u = unit_index(p, (uint32_t)unit_at(w, k));
        s->unit_at[k - s->first] = u;
        uint32_t c = 0;
        while (c < s->n_chunks && s->chunk_unit[c] != u)
            c++;
        if (c == s->n_chunks)
            s->chunk_unit[s->n_chunks++] = u;
    }
    uint32_t at = 0;
    for (uint32_t c = 0; c < s->n_chunks; c++) {
        s->chunk_first[c] = at;
        for (uint32_t k = s->first; k < s->end; k++)
            if (s->unit_at[k - s->first] == s->chunk_unit[c])
                s->pos[at++] = k;
    }
    s->chunk_first[s->n_chunks] = at;
    return PCS_OK;
}

static pcs_status section_run_chunk(void *ctx, const void *input, uint32_t c, void *output);

/* Section over run-order [first, end) of @p stage. */
static pcs_status add_section(pcs_world *w, pcs_par_plan *p, uint32_t *owner, pcs_stage stage,
                              uint32_t first, uint32_t end)
{
    pcs_par_section *s = &p->sections[p->n_sections];
    *s = (pcs_par_section){.w = w, .stage = stage, .first = first, .end = end};
    pcs_status st = partition(w, p, s);
    if (st != PCS_OK)
        return st;
    if (s->n_chunks < 2)
        return PCS_OK; /* one unit: nothing to share, the host runs it in order */
    s->clash_store = prove(w, s, owner);
    s->outputs = pcs_mem_array(&w->mem, s->n_chunks, sizeof *s->outputs);
    if (!s->outputs)
        return pcs_error_set(PCS_E_NOMEM, "parallel units: out of memory for the plan");
    snprintf(s->name, sizeof s->name, "%s units %u", pcs_stage_name(stage), p->n_sections);
    s->run = (pcs_job_run){.name = s->name,
                           .run_chunk = section_run_chunk,
                           .ctx = s,
                           .outputs = s->outputs,
                           .n_chunks = s->n_chunks};
    p->n_sections++;
    return PCS_OK;
}

/* Every section of every stage (maximal runs of unit systems). */
static pcs_status find_sections(pcs_world *w, pcs_par_plan *p, uint32_t *owner)
{
    for (int stage = 0; stage < PCS_STAGE_COUNT; stage++) {
        uint32_t k = w->stage_start[stage], end = w->stage_start[stage + 1];
        while (k < end) {
            if (unit_at(w, k) < 0) {
                k++;
                continue;
            }
            uint32_t first = k;
            while (k < end && unit_at(w, k) >= 0)
                k++;
            pcs_status st = add_section(w, p, owner, (pcs_stage)stage, first, k);
            if (st != PCS_OK)
                return st;
        }
    }
    return PCS_OK;
}

static pcs_status alloc_units(pcs_world *w, pcs_par_plan *p)
{
    for (uint32_t i = 0; i < p->n_units; i++) {
        pcs_par_unit *u = &p->units[i];
        u->w = w;
        u->events = pcs_mem_array(&w->mem, w->cfg.event_capacity, sizeof *u->events);
        u->msg = pcs_mem_alloc(&w->mem, PCS_LAST_ERROR_MAX);
        if (!u->events || !u->msg)
            return pcs_error_set(
                PCS_E_NOMEM, "parallel units: out of memory for unit %u's event buffer", u->number);
    }
    return PCS_OK;
}

pcs_status pcs_par_plan_build(pcs_world *w, int for_run)
{
    if (plan_current(w, for_run))
        return PCS_OK;
    uint32_t n = w->n_systems ? w->n_systems : 1;
    pcs_par_plan *p = pcs_mem_alloc(&w->mem, sizeof *p);
    uint32_t *owner = pcs_mem_array(&w->mem, w->n_stores ? w->n_stores : 1, sizeof *owner);
    if (!p || !owner)
        return pcs_error_set(PCS_E_NOMEM, "parallel units: out of memory for the plan");
    memset(p, 0, sizeof *p);
    memset(owner, 0, (w->n_stores ? w->n_stores : 1) * sizeof *owner);
    p->units = pcs_mem_array(&w->mem, n, sizeof *p->units);
    p->sections = pcs_mem_array(&w->mem, n, sizeof *p->sections);
    if (!p->units || !p->sections)
        return pcs_error_set(PCS_E_NOMEM, "parallel units: out of memory for the plan");
    memset(p->units, 0, n * sizeof *p->units);
    p->n_systems = w->n_systems;
    p->n_stores = w->n_stores;
    p->n_gated = count_gated(w);
    p->for_run = for_run;
    pcs_status st = find_sections(w, p, owner);
    if (st == PCS_OK && for_run)
        st = alloc_units(w, p);
    if (st == PCS_OK)
        w->par = p;
    return st;
}

pcs_status pcs_par_plan_rebuild(pcs_world *w)
{
    /* Counts alone no longer say "the same schedule" once systems retire:
     * the old plan is dropped (its sections unbound; its memory stays in
     * the world heap until destroy) and the sections found again. */
    pcs_par_unbind(w);
    w->par = NULL;
    return pcs_par_plan_build(w, 1);
}

uint32_t pcs_schedule_section_count(pcs_world *w)
{
    if (!w)
        return 0;
    if (pcs_par_plan_build(w, 0) != PCS_OK)
        return 0;
    return w->par->n_sections;
}

pcs_status pcs_schedule_section_at(const pcs_world *w, uint32_t index, pcs_schedule_section *out)
{
    if (!w || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_schedule_section_at: NULL argument");
    uint32_t n = w->par ? w->par->n_sections : 0;
    if (index >= n)
        return pcs_error_set(PCS_E_NOTFOUND,
                             "pcs_schedule_section_at: index %u is outside [0, %u) (call "
                             "pcs_schedule_section_count first)",
                             index, n);
    const pcs_par_section *s = &w->par->sections[index];
    *out = (pcs_schedule_section){.stage = s->stage,
                                  .first = s->first,
                                  .end = s->end,
                                  .n_units = s->n_chunks,
                                  .clash_store = s->clash_store};
    return PCS_OK;
}

/* ---- inside a chunk (any thread) ------------------------------------------ */

pcs_status pcs_par_event_emit(pcs_par_unit *u, const pcs_event *e)
{
    if (u->n_events >= u->limit) {
        u->dropped++;
        return pcs_error_set(PCS_E_OVERFLOW,
                             "pcs_event_emit: unit %u's events fill what is left of the "
                             "tick's buffer",
                             u->number);
    }
    u->events[u->n_events++] = (pcs_par_event){.pos = u->pos, .ev = *e};
    return PCS_OK;
}

void pcs_par_access_note(pcs_par_unit *u, uint32_t store)
{
    const pcs_system_rec *r = u->running;
    if (!r || !u->w->cfg.check_access || u->access_fault != NO_FAULT)
        return;
    const pcs_system_desc *d = &r->desc;
    for (uint32_t i = 0; i < d->n_reads; i++)
        if (d->reads[i] == store)
            return;
    for (uint32_t i = 0; i < d->n_writes; i++)
        if (d->writes[i] == store)
            return;
    u->access_fault = store;
}

/* Run system at run-order position @p k for unit @p u; its verdict. */
static pcs_status run_one(pcs_par_unit *u, const pcs_par_section *s, uint32_t k)
{
    pcs_world *w = s->w;
    const pcs_system_rec *r = &w->systems[w->stage_order[k]];
    if (r->gate && *r->gate)
        return PCS_OK; /* frozen (engine/gate.c) */
    u->running = r;
    u->access_fault = NO_FAULT;
    u->pos = k;
    pcs_status st = r->desc.fn(w, r->desc.ctx);
    u->running = NULL;
    return pcs_access_verdict(w, s->stage, &r->desc, u->access_fault, st);
}

static pcs_status section_run_chunk(void *ctx, const void *input, uint32_t c, void *output)
{
    (void)input;
    (void)output;
    const pcs_par_section *s = ctx;
    pcs_par_unit *u = &s->w->par->units[s->chunk_unit[c]];
    current = u;
    for (uint32_t i = s->chunk_first[c]; i < s->chunk_first[c + 1]; i++) {
        pcs_status st = run_one(u, s, s->pos[i]);
        if (st != PCS_OK) {
            u->st = st;
            u->fail_pos = s->pos[i];
            snprintf(u->msg, PCS_LAST_ERROR_MAX, "%s", pcs_last_error());
            break;
        }
    }
    current = NULL;
    return PCS_OK; /* the failure is the unit's, merged by position */
}

/* ---- the host ----------------------------------------------------------------- */

static void prepare(pcs_world *w, const pcs_par_section *s)
{
    uint32_t room = w->cfg.event_capacity - 1 - w->n_events; /* what can still be kept */
    for (uint32_t c = 0; c < s->n_chunks; c++) {
        pcs_par_unit *u = &w->par->units[s->chunk_unit[c]];
        u->n_events = u->cursor = 0;
        u->limit = room;
        u->dropped = 0;
        u->st = PCS_OK;
        u->fail_pos = UINT32_MAX;
    }
}

/* Bind the section to the world's executor on first use. */
static void bind(pcs_world *w, pcs_par_section *s)
{
    if (!w->has_exec || s->slot || s->bind_failed)
        return;
    if (w->exec.bind(w->exec.ctx, w, &s->run, &s->slot) != PCS_OK) {
        s->slot = NULL;
        s->bind_failed = 1; /* the host runs it: same result, no parallelism */
    }
}

/* Every chunk once: on the executor (the host claims what is left), else inline. */
static void run_chunks(pcs_world *w, pcs_par_section *s)
{
    bind(w, s);
    if (s->slot && w->exec.submit(w->exec.ctx, s->slot) == PCS_OK) {
        (void)w->exec.join(w->exec.ctx, s->slot, 0.0); /* chunks report through units */
        return;
    }
    for (uint32_t c = 0; c < s->n_chunks; c++)
        (void)section_run_chunk(s, NULL, c, NULL);
}

/* The failure at the lowest position, then the events in run order up to
 * it (a serial run would not have run the systems after it). */
static pcs_status merge(pcs_world *w, const pcs_par_section *s)
{
    pcs_par_unit *fail = NULL;
    for (uint32_t c = 0; c < s->n_chunks; c++) {
        pcs_par_unit *u = &w->par->units[s->chunk_unit[c]];
        pcs_events_add_drops(w, u->dropped);
        if (u->st != PCS_OK && (!fail || u->fail_pos < fail->fail_pos))
            fail = u;
    }
    uint32_t end = fail ? fail->fail_pos + 1 : s->end;
    for (uint32_t k = s->first; k < end; k++) {
        pcs_par_unit *u = &w->par->units[s->unit_at[k - s->first]];
        while (u->cursor < u->n_events && u->events[u->cursor].pos == k)
            pcs_events_append(w, &u->events[u->cursor++].ev);
    }
    return fail ? pcs_error_set(fail->st, "%s", fail->msg) : PCS_OK;
}

static pcs_status run_section(pcs_world *w, pcs_par_section *s)
{
    if (s->clash_store != NO_FAULT || w->cfg.check_access >= 2)
        return pcs_systems_run_range(w, s->stage, s->first, s->end);
    prepare(w, s);
    run_chunks(w, s);
    return merge(w, s);
}

pcs_status pcs_par_run_stage(pcs_world *w, pcs_stage stage)
{
    uint32_t k = w->stage_start[stage], end = w->stage_start[stage + 1];
    pcs_par_plan *p = w->par;
    for (uint32_t i = 0; i < p->n_sections && k < end; i++) {
        pcs_par_section *s = &p->sections[i];
        if (s->stage != stage)
            continue;
        pcs_status st = pcs_systems_run_range(w, stage, k, s->first); /* barriers before it */
        if (st == PCS_OK)
            st = run_section(w, s);
        if (st != PCS_OK)
            return st;
        k = s->end;
    }
    return pcs_systems_run_range(w, stage, k, end);
}

void pcs_par_unbind(pcs_world *w)
{
    for (uint32_t i = 0; w->par && i < w->par->n_sections; i++) {
        pcs_par_section *s = &w->par->sections[i];
        if (s->slot && w->has_exec)
            w->exec.unbind(w->exec.ctx, s->slot);
        s->slot = NULL;
        s->bind_failed = 0;
    }
}

void pcs_par_revoke(pcs_world *w)
{
    for (uint32_t i = 0; w->par && i < w->par->n_sections; i++) {
        w->par->sections[i].slot = NULL;
        w->par->sections[i].bind_failed = 0;
    }
}
