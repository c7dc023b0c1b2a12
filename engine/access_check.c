/**
 * @file access_check.c
 * @brief World config check_access: systems touch only the stores they declare.
 *
 * The stage conflict check (system.c) trusts each system's reads and writes;
 * an access a system does not declare is a data race the builder cannot see
 * and an order dependence the schedule does not show. Level 1 catches it at
 * the pcs_store_data call, which knows the store and (through w->running)
 * the system. The call still returns the store: models do not test that
 * pointer for NULL (a valid id cannot fail), so NULL would crash the system
 * before the tick could name the fault; the system finishes, and the tick
 * fails right after it, before any later system sees its output. Level 2
 * also hashes every store around each system, which sees writes through
 * pointers a model cached at build, at the cost of a pass over all store
 * bytes per system (debug and test worlds only).
 */
#include <xxhash.h>

#include "engine/access_check.h"
#include "engine/par_stage.h"

#define NO_FAULT UINT32_MAX

static int declares(const uint32_t *list, uint32_t n, uint32_t store)
{
    for (uint32_t i = 0; i < n; i++)
        if (list[i] == store)
            return 1;
    return 0;
}

void pcs_access_note(pcs_world *w, uint32_t id)
{
    if (!w->cfg.check_access)
        return;
    pcs_par_unit *u = pcs_par_current(w);
    if (u) { /* a unit chunk of a parallel section: its own running system */
        pcs_par_access_note(u, id);
        return;
    }
    const pcs_system_rec *r = w->running;
    if (!r || w->access_fault != NO_FAULT)
        return;
    const pcs_system_desc *d = &r->desc;
    if (!declares(d->reads, d->n_reads, id) && !declares(d->writes, d->n_writes, id))
        w->access_fault = id;
}

static uint64_t store_hash(const pcs_store_rec *s)
{
    return XXH3_64bits(s->data, s->elem_size * s->count);
}

void pcs_access_stage_begin(pcs_world *w)
{
    if (w->cfg.check_access < 2)
        return;
    for (uint32_t i = 0; i < w->n_stores; i++)
        w->store_hash[i] = store_hash(&w->stores[i]);
}

void pcs_access_system_begin(pcs_world *w, const pcs_system_rec *r)
{
    w->running = r;
    w->access_fault = NO_FAULT;
}

/* Level 2: the first store the system changed without declaring the write. */
static uint32_t undeclared_write(pcs_world *w, const pcs_system_desc *d)
{
    uint32_t found = NO_FAULT;
    for (uint32_t i = 0; i < w->n_stores; i++) {
        uint64_t h = store_hash(&w->stores[i]);
        if (h != w->store_hash[i] && found == NO_FAULT && !declares(d->writes, d->n_writes, i))
            found = i;
        w->store_hash[i] = h;
    }
    return found;
}

pcs_status pcs_access_verdict(pcs_world *w, pcs_stage stage, const pcs_system_desc *d,
                              uint32_t fault, pcs_status st)
{
    if (!w->cfg.check_access || fault == NO_FAULT)
        return st;
    /* reported over the system's own status */
    return pcs_error_set(PCS_E_STATE,
                         "tick %llu stage %s: system '%s' touched store '%s' it does not "
                         "declare (add it to its reads or writes)",
                         (unsigned long long)w->clock.tick, pcs_stage_name(stage), d->name,
                         w->stores[fault].name);
}

pcs_status pcs_access_system_end(pcs_world *w, pcs_stage stage, pcs_status st)
{
    const pcs_system_desc *d = &w->running->desc;
    w->running = NULL;
    if (!w->cfg.check_access)
        return st;
    if (w->access_fault != NO_FAULT)
        return pcs_access_verdict(w, stage, d, w->access_fault, st);
    if (st != PCS_OK || w->cfg.check_access < 2)
        return st;
    uint32_t s = undeclared_write(w, d);
    if (s != NO_FAULT)
        return pcs_error_set(PCS_E_STATE,
                             "tick %llu stage %s: system '%s' changed store '%s' it does not "
                             "declare writing (add it to its writes)",
                             (unsigned long long)w->clock.tick, pcs_stage_name(stage), d->name,
                             w->stores[s].name);
    return PCS_OK;
}
