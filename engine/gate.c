/**
 * @file gate.c
 * @brief pcs_world_gate_add: tie a named group of systems and jobs to a flag.
 *
 * The gate is a pointer into store memory, which never moves after
 * registration (store.c) and which a load overwrites in place, so the tick
 * reads the flag without a lookup and a loaded flag takes effect at once.
 */
#include <string.h>

#include "engine/world_internal.h"
#include "pcsim/job.h"
#include "pcsim/system.h"

static int has_prefix(const char *name, const char *prefix, size_t n)
{
    return name && strncmp(name, prefix, n) == 0;
}

static pcs_status gate_check(pcs_world *w, const char *prefix, uint32_t store, uint32_t index)
{
    static const char fn[] = "pcs_world_gate_add";
    pcs_status st = pcs_world_check_build(w, fn);
    if (st != PCS_OK)
        return st;
    if (!prefix || !prefix[0])
        return pcs_error_set(PCS_E_INVAL, "%s: prefix is NULL or empty", fn);
    if (store >= w->n_stores)
        return pcs_error_set(PCS_E_INVAL, "%s: '%s': store id %u does not exist", fn, prefix,
                             store);
    const pcs_store_rec *s = &w->stores[store];
    if (s->kind != PCS_STORE_STATE || s->elem_size != sizeof(uint32_t) || index >= s->count)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: '%s': store '%s' must be a STATE store of 4-byte elements "
                             "with index %u < count %zu (elem_size %zu)",
                             fn, prefix, s->name, index, s->count, s->elem_size);
    return PCS_OK;
}

pcs_status pcs_world_gate_add(pcs_world *w, const char *prefix, uint32_t store, uint32_t index,
                              uint32_t *n_gated)
{
    pcs_status st = gate_check(w, prefix, store, index);
    if (st != PCS_OK)
        return st;
    const uint32_t *flag = (const uint32_t *)w->stores[store].data + index;
    size_t n = strlen(prefix);
    uint32_t count = 0;
    for (uint32_t i = 0; i < w->n_systems + w->n_jobs; i++) {
        int is_sys = i < w->n_systems;
        const char *name = is_sys ? w->systems[i].desc.name : w->jobs[i - w->n_systems].desc.name;
        const uint32_t *cur = is_sys ? w->systems[i].gate : w->jobs[i - w->n_systems].gate;
        if (!has_prefix(name, prefix, n))
            continue;
        if (cur)
            return pcs_error_set(PCS_E_INVAL, "pcs_world_gate_add: '%s': %s '%s' is already gated",
                                 prefix, is_sys ? "system" : "job", name);
        count++;
    }
    if (count == 0)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_world_gate_add: no system or job name starts with '%s'", prefix);
    for (uint32_t i = 0; i < w->n_systems; i++)
        if (has_prefix(w->systems[i].desc.name, prefix, n))
            w->systems[i].gate = flag;
    for (uint32_t i = 0; i < w->n_jobs; i++)
        if (has_prefix(w->jobs[i].desc.name, prefix, n))
            w->jobs[i].gate = flag;
    if (n_gated)
        *n_gated = count;
    return PCS_OK;
}

int pcs_job_pending(const pcs_world *w, uint32_t id)
{
    return w && id < w->n_jobs && w->jobs[id].pending;
}
