/**
 * @file system.c
 * @brief The stage pipeline: system registration, conflict checks and the run order.
 *
 * Conflicts are checked at registration so the error names the two systems
 * while the caller still knows which one it just added. Each registration
 * also inserts the system into the run order (by stage, then priority, then
 * id), so the schedule can be listed before the first tick; the tick walks
 * that flat array. Both tables double during the build as systems come;
 * nothing keeps a record's address across a registration (w->running is set
 * only while the sealed world ticks).
 */
#include <string.h>

#include "engine/access_check.h"
#include "engine/par_stage.h"
#include "engine/world_internal.h"
#include "pcsim/structure.h" /* its PCS_API on pcs_system_retire: exported from the .so */

static const char *const stage_names[PCS_STAGE_COUNT] = {
    "commands",  "actuators", "kinetics",   "heat",   "hydraulics", "machines", "accidents",
    "acoustics", "sensors",   "protection", "alarms", "publish",    "events",
};

const char *pcs_stage_name(pcs_stage stage)
{
    return ((unsigned)stage < PCS_STAGE_COUNT) ? stage_names[stage] : "?";
}

static int contains(const uint32_t *list, uint32_t n, uint32_t store)
{
    for (uint32_t i = 0; i < n; i++)
        if (list[i] == store)
            return 1;
    return 0;
}

/* Does @p d's access clash with a live system of its stage? The run order
 * holds every system not yet dropped by a commit, so the stage's range of it
 * is the candidates (O(stage), whatever was ever retired); retired systems
 * no longer run, and a system is not checked against itself. */
static pcs_status check_conflicts(const pcs_world *w, const pcs_system_desc *d)
{
    for (uint32_t p = w->stage_start[d->stage]; p < w->stage_start[d->stage + 1]; p++) {
        const pcs_system_rec *r = &w->systems[w->stage_order[p]];
        const pcs_system_desc *o = &r->desc;
        if (r->retired || o == d)
            continue;
        for (uint32_t k = 0; k < d->n_writes; k++) {
            uint32_t s = d->writes[k];
            const char *what = contains(o->writes, o->n_writes, s) ? "writes"
                               : contains(o->reads, o->n_reads, s) ? "reads"
                                                                   : NULL;
            if (what)
                return pcs_error_set(PCS_E_INVAL,
                                     "pcs_system_register: '%s' writes store '%s' that '%s' "
                                     "%s in stage %s",
                                     d->name, w->stores[s].name, o->name, what,
                                     pcs_stage_name(d->stage));
        }
        for (uint32_t k = 0; k < d->n_reads; k++) {
            uint32_t s = d->reads[k];
            if (contains(o->writes, o->n_writes, s))
                return pcs_error_set(PCS_E_INVAL,
                                     "pcs_system_register: '%s' reads store '%s' that '%s' "
                                     "writes in stage %s",
                                     d->name, w->stores[s].name, o->name, pcs_stage_name(d->stage));
        }
    }
    return PCS_OK;
}

/* What pcs_system_register refuses, the first failure its error: the build
 * phase, the desc, a name already taken, an access clash in the stage. */
static pcs_status check_register(const pcs_world *w, const pcs_system_desc *d)
{
    static const char fn[] = "pcs_system_register";
    pcs_status st = pcs_world_check_build(w, fn);
    if (st != PCS_OK)
        return st;
    if (!d || !d->fn || !d->name || !d->name[0])
        return pcs_error_set(PCS_E_INVAL, "%s: desc, fn or name is NULL or empty", fn);
    if (strlen(d->name) >= PCS_NAME_MAX)
        return pcs_error_set(PCS_E_INVAL, "%s: name '%.20s...' is longer than %u chars", fn,
                             d->name, PCS_NAME_MAX - 1);
    if ((unsigned)d->stage >= PCS_STAGE_COUNT)
        return pcs_error_set(PCS_E_INVAL, "%s: '%s' has stage %d outside [0, %d]", fn, d->name,
                             (int)d->stage, PCS_STAGE_COUNT - 1);
    if ((d->n_reads && !d->reads) || (d->n_writes && !d->writes))
        return pcs_error_set(PCS_E_INVAL, "%s: '%s' has a NULL reads or writes list", fn, d->name);
    /* Sized from the world: a list longer than the world's store count
     * names some store twice. */
    if (d->n_reads > w->n_stores || d->n_writes > w->n_stores)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: '%s' declares %u reads and %u writes; each list is at most "
                             "the world's %u stores long",
                             fn, d->name, d->n_reads, d->n_writes, w->n_stores);
    for (uint32_t k = 0; k < d->n_reads + d->n_writes; k++) {
        uint32_t s = k < d->n_reads ? d->reads[k] : d->writes[k - d->n_reads];
        if (s >= w->n_stores)
            return pcs_error_set(PCS_E_INVAL, "%s: '%s' names store id %u, which does not exist",
                                 fn, d->name, s);
    }
    /* Live systems only (the run order, as above): a retired system's name
     * is free again. */
    for (uint32_t k = 0; k < w->stage_start[PCS_STAGE_COUNT]; k++) {
        const pcs_system_rec *r = &w->systems[w->stage_order[k]];
        if (!r->retired && strcmp(r->desc.name, d->name) == 0)
            return pcs_error_set(PCS_E_INVAL, "%s: a system named '%s' already exists", fn,
                                 d->name);
    }
    return check_conflicts(w, d);
}

static uint32_t *copy_ids(pcs_world *w, const uint32_t *ids, uint32_t n)
{
    uint32_t *c = pcs_mem_array(&w->mem, n ? n : 1, sizeof *c);
    if (c && n)
        memcpy(c, ids, n * sizeof *c);
    return c;
}

/* Room for one more system in the table and in the run order. */
static pcs_status reserve(pcs_world *w)
{
    if (w->n_systems < w->systems_cap)
        return PCS_OK;
    uint32_t cap = w->systems_cap;
    pcs_status st = pcs_table_reserve(w, "pcs_system_register", "systems", &w->systems,
                                      w->n_systems, &cap, sizeof *w->systems);
    if (st != PCS_OK)
        return st;
    uint32_t *order =
        pcs_mem_regrow(&w->mem, w->stage_order, w->n_systems, cap, sizeof *w->stage_order);
    if (!order)
        return pcs_error_set(PCS_E_NOMEM, "pcs_system_register: out of memory for the run order");
    w->stage_order = order;
    w->systems_cap = cap; /* both tables hold cap entries now */
    return PCS_OK;
}

static int runs_before(const pcs_system_rec *a, const pcs_system_rec *b)
{
    if (a->desc.stage != b->desc.stage)
        return a->desc.stage < b->desc.stage;
    if (a->desc.priority != b->desc.priority)
        return a->desc.priority < b->desc.priority;
    return a->id < b->id;
}

/* stage_start from the first @p n entries of stage_order (sorted). */
static void recount_stage_starts(pcs_world *w, uint32_t n)
{
    uint32_t k = 0;
    for (int s = 0; s <= PCS_STAGE_COUNT; s++) {
        while (k < n && (int)w->systems[w->stage_order[k]].desc.stage < s)
            k++;
        w->stage_start[s] = k;
    }
}

/* Insert system @p i (just registered) into stage_order and recount the
 * stage starts: O(n) per registration, as the conflict check already is.
 * The order holds stage_start[PCS_STAGE_COUNT] entries: every system in the
 * build, fewer after a commit dropped retired ones. */
static void insert_in_run_order(pcs_world *w, uint32_t i)
{
    uint32_t n = w->stage_start[PCS_STAGE_COUNT];
    uint32_t j = n; /* stage_order[0..n-1] is sorted */
    while (j > 0 && runs_before(&w->systems[i], &w->systems[w->stage_order[j - 1]])) {
        w->stage_order[j] = w->stage_order[j - 1];
        j--;
    }
    w->stage_order[j] = i;
    recount_stage_starts(w, n + 1);
}

pcs_status pcs_systems_commit(pcs_world *w, uint32_t first_new)
{
    /* Filtering keeps the order: registration and priority rules unchanged. */
    uint32_t n = w->stage_start[PCS_STAGE_COUNT], kept = 0;
    for (uint32_t k = 0; k < n; k++)
        if (!w->systems[w->stage_order[k]].retired)
            w->stage_order[kept++] = w->stage_order[k];
    recount_stage_starts(w, kept);
    /* Registration checked each new system against the systems live then;
     * check the final set once more (a later registration of the same
     * apply could not see it the other way round). */
    for (uint32_t i = first_new; i < w->n_systems; i++) {
        if (w->systems[i].retired)
            continue;
        pcs_status st = check_conflicts(w, &w->systems[i].desc);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}

/* System @p id's name when it is retired, else NULL (pcs_retire_check). */
static const char *retired_name(const pcs_world *w, uint32_t id)
{
    return w->systems[id].retired ? w->systems[id].desc.name : NULL;
}

pcs_status pcs_system_retire(pcs_world *w, uint32_t id)
{
    pcs_status st =
        pcs_retire_check(w, "pcs_system_retire", "system", id, w ? w->n_systems : 0, retired_name);
    if (st != PCS_OK)
        return st;
    w->systems[id].retired = 1;
    w->n_retired_systems++;
    return PCS_OK;
}

pcs_status pcs_system_register(pcs_world *w, const pcs_system_desc *desc, uint32_t *id)
{
    pcs_status st = check_register(w, desc);
    if (st == PCS_OK)
        st = reserve(w);
    if (st != PCS_OK)
        return st;
    pcs_system_rec *r = &w->systems[w->n_systems];
    r->desc = *desc;
    r->desc.name = pcs_mem_strdup(&w->mem, desc->name);
    r->desc.reads = copy_ids(w, desc->reads, desc->n_reads);
    r->desc.writes = copy_ids(w, desc->writes, desc->n_writes);
    if (!r->desc.name || !r->desc.reads || !r->desc.writes)
        return pcs_error_set(PCS_E_NOMEM, "pcs_system_register: out of memory");
    r->id = w->n_systems++;
    r->gate = NULL;
    insert_in_run_order(w, r->id);
    if (id)
        *id = r->id;
    return PCS_OK;
}

uint32_t pcs_system_count(const pcs_world *w, pcs_stage stage) /* live systems */
{
    if (!w || (unsigned)stage >= PCS_STAGE_COUNT)
        return 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < w->n_systems; i++)
        n += w->systems[i].desc.stage == stage && !w->systems[i].retired;
    return n;
}

pcs_status pcs_systems_run_range(pcs_world *w, pcs_stage stage, uint32_t first, uint32_t end)
{
    for (uint32_t k = first; k < end; k++) {
        const pcs_system_rec *r = &w->systems[w->stage_order[k]];
        if (r->gate && *r->gate)
            continue; /* frozen (engine/gate.c): its stores keep their values */
        pcs_access_system_begin(w, r);
        pcs_status st = r->desc.fn(w, r->desc.ctx);
        st = pcs_access_system_end(w, stage, st);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}

pcs_status pcs_systems_run_stage(pcs_world *w, pcs_stage stage)
{
    uint32_t first = w->stage_start[stage], end = w->stage_start[stage + 1];
    if (first < end)
        pcs_access_stage_begin(w);
    pcs_status st =
        w->par_units ? pcs_par_run_stage(w, stage) : pcs_systems_run_range(w, stage, first, end);
    if (st != PCS_OK)
        return st;
    return w->cfg.check_finite ? pcs_finite_check_stage(w, stage) : PCS_OK;
}

pcs_status pcs_world_set_stage_observer(pcs_world *w, pcs_stage_observer_fn fn, void *ctx)
{
    if (!w)
        return pcs_error_set(PCS_E_INVAL, "pcs_world_set_stage_observer: world is NULL");
    w->stage_observer = (pcs_stage_observer_rec){.fn = fn, .ctx = ctx};
    return PCS_OK;
}
