/**
 * @file schedule.c
 * @brief Schedule introspection: the systems in run order and the slow jobs,
 *        as data for tools and tests (system.h, "Schedule").
 *
 * The library never prints; `pcsim info --schedule` formats these rows.
 */
#include "engine/world_internal.h"

/* What both getters check: w and out given, index below the count. */
static pcs_status check_at(const char *fn, const pcs_world *w, const void *out, uint32_t index,
                           uint32_t count)
{
    if (!w || !out)
        return pcs_error_set(PCS_E_INVAL, "%s: NULL argument", fn);
    if (index >= count)
        return pcs_error_set(PCS_E_NOTFOUND, "%s: index %u is outside [0, %u)", fn, index, count);
    return PCS_OK;
}

/* The run order: live systems only (a commit drops retired ones). */
uint32_t pcs_schedule_system_count(const pcs_world *w)
{
    return w ? w->stage_start[PCS_STAGE_COUNT] : 0;
}

uint32_t pcs_schedule_job_count(const pcs_world *w)
{
    return w ? w->n_jobs : 0;
}

pcs_status pcs_schedule_system_at(const pcs_world *w, uint32_t index, pcs_schedule_system *out)
{
    pcs_status st = check_at("pcs_schedule_system_at", w, out, index, pcs_schedule_system_count(w));
    if (st != PCS_OK)
        return st;
    const pcs_system_rec *r = &w->systems[w->stage_order[index]];
    *out = (pcs_schedule_system){
        .id = r->id,
        .stage = r->desc.stage,
        .priority = r->desc.priority,
        .name = r->desc.name,
        .reads = r->desc.reads,
        .n_reads = r->desc.n_reads,
        .writes = r->desc.writes,
        .n_writes = r->desc.n_writes,
    };
    return PCS_OK;
}

pcs_status pcs_schedule_job_at(const pcs_world *w, uint32_t index, pcs_schedule_job *out)
{
    pcs_status st = check_at("pcs_schedule_job_at", w, out, index, pcs_schedule_job_count(w));
    if (st != PCS_OK)
        return st;
    const pcs_job_desc *d = &w->jobs[index].desc;
    *out = (pcs_schedule_job){
        .id = index,
        .name = d->name,
        .domain = d->domain,
        .period_ticks = pcs_clock_period(d->domain),
        .phase = d->phase,
        .n_chunks = d->n_chunks,
    };
    return PCS_OK;
}

const char *pcs_stage_engine_step(pcs_stage stage)
{
    switch (stage) {
    case PCS_STAGE_COMMANDS:
        return "before the systems: drain the command rings (at most commands_per_tick, "
               "in (class, id, sequence) order), apply each command, journal the accepted ones";
    case PCS_STAGE_EVENTS:
        return "before the systems: close the event list; after them: deliver it to the "
               "event callback; after the plugins' after_step: apply the structural commands "
               "stage 1 accepted, in drain order, and commit the new schedule";
    default:
        return NULL;
    }
}
