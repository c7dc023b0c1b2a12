/**
 * @file plugin.c
 * @brief Plugins: registration with initialize, the per-tick before/after
 *        steps, shutdown at destroy, and their schedule rows (pcsim/plugin.h).
 *
 * The table is kept in run order, (priority, id), by insertion at add time,
 * so the tick walks it front to back and destroy back to front without a
 * separate order array. A record is inserted only once its initialize has
 * succeeded: a failed plugin has no row, no step and no shutdown. The id
 * ranges of what initialize registered are read off the registries' counts
 * before and after the call, which is exact because initialize cannot add
 * another plugin (plugin_initializing).
 */
#include <string.h>

#include "engine/world_internal.h"

pcs_status pcs_plugin_default(pcs_plugin_def *def)
{
    if (!def)
        return pcs_error_set(PCS_E_INVAL, "pcs_plugin_default: def is NULL");
    memset(def, 0, sizeof *def);
    return PCS_OK;
}

static int runs_before(const pcs_plugin_def *a, const pcs_plugin_def *b)
{
    if (a->priority != b->priority)
        return a->priority < b->priority;
    return strcmp(a->id, b->id) < 0;
}

static pcs_status check_def(const pcs_world *w, const pcs_plugin_def *d)
{
    static const char fn[] = "pcs_plugin_add";
    if (!d || !d->id)
        return pcs_error_set(PCS_E_INVAL, "%s: def or id is NULL", fn);
    if (strlen(d->id) >= PCS_PLUGIN_ID_MAX)
        return pcs_error_set(PCS_E_INVAL, "%s: id '%.20s...' is longer than %u chars", fn, d->id,
                             PCS_PLUGIN_ID_MAX - 1);
    pcs_status st = pcs_name_check(fn, d->id);
    if (st != PCS_OK)
        return st;
    if (d->section_json && !d->section)
        return pcs_error_set(PCS_E_INVAL, "%s: plugin '%s' has section_json but no section it owns",
                             fn, d->id);
    if (d->section && !d->section[0])
        return pcs_error_set(PCS_E_INVAL, "%s: plugin '%s' owns an empty section name", fn, d->id);
    for (uint32_t i = 0; i < w->n_plugins; i++) {
        const pcs_plugin_def *o = &w->plugins[i].def;
        if (strcmp(o->id, d->id) == 0)
            return pcs_error_set(PCS_E_INVAL, "%s: a plugin with id '%s' was already added", fn,
                                 d->id);
        if (d->section && o->section && strcmp(o->section, d->section) == 0)
            return pcs_error_set(PCS_E_INVAL,
                                 "%s: plugin '%s' owns section '%s', which plugin '%s' already "
                                 "owns",
                                 fn, d->id, d->section, o->id);
    }
    return PCS_OK;
}

/* Run initialize and note the ranges it registered into @p r. */
static pcs_status initialize(pcs_world *w, pcs_plugin_rec *r, const pcs_plugin_def *d)
{
    r->first_store = w->n_stores;
    r->first_system = w->n_systems;
    r->first_job = w->n_jobs;
    pcs_status st = PCS_OK;
    if (d->initialize) {
        w->plugin_initializing = 1;
        st = d->initialize(w, r->ctx, d->section_json);
        w->plugin_initializing = 0;
    }
    if (st != PCS_OK)
        return pcs_error_set(st, "plugin '%s' initialize: %s", d->id, pcs_last_error());
    r->n_stores = w->n_stores - r->first_store;
    r->n_systems = w->n_systems - r->first_system;
    r->n_jobs = w->n_jobs - r->first_job;
    return PCS_OK;
}

/* Copy the record into the table (room reserved) at its run-order position. */
static void insert(pcs_world *w, const pcs_plugin_rec *r)
{
    uint32_t j = w->n_plugins;
    while (j > 0 && runs_before(&r->def, &w->plugins[j - 1].def)) {
        w->plugins[j] = w->plugins[j - 1];
        j--;
    }
    w->plugins[j] = *r;
    w->n_plugins++;
}

pcs_status pcs_plugin_add(pcs_world *w, const pcs_plugin_def *def, void *ctx)
{
    pcs_status st = pcs_world_check_build(w, "pcs_plugin_add");
    if (st != PCS_OK)
        return st;
    if (w->plugin_initializing)
        return pcs_error_set(PCS_E_STATE,
                             "pcs_plugin_add: '%s' added from inside another "
                             "plugin's initialize (add plugins one after another)",
                             def && def->id ? def->id : "(null)");
    st = check_def(w, def);
    if (st != PCS_OK)
        return st;
    /* Room first: once initialize has succeeded, adding cannot fail, so a
     * plugin that initialized always gets its shutdown. */
    st = pcs_table_reserve(w, "pcs_plugin_add", "plugins", &w->plugins, w->n_plugins,
                           &w->plugins_cap, sizeof *w->plugins);
    if (st != PCS_OK)
        return st;
    pcs_plugin_rec r = {.def = *def, .ctx = ctx};
    r.def.section_json = NULL; /* borrowed for initialize only */
    r.def.id = pcs_mem_strdup(&w->mem, def->id);
    r.def.section = def->section ? pcs_mem_strdup(&w->mem, def->section) : NULL;
    if (!r.def.id || (def->section && !r.def.section))
        return pcs_error_set(PCS_E_NOMEM, "pcs_plugin_add: out of memory for plugin '%s'", def->id);
    st = initialize(w, &r, def);
    if (st == PCS_OK)
        insert(w, &r);
    return st;
}

uint32_t pcs_plugin_count(const pcs_world *w)
{
    return w ? w->n_plugins : 0;
}

/* One step callback (after_step when @p after, else before_step) of every
 * plugin that has it, in run order; the first error stops the walk and
 * names the tick, the plugin and the step. */
static pcs_status run_steps(pcs_world *w, int after)
{
    for (uint32_t i = 0; i < w->n_plugins; i++) {
        const pcs_plugin_rec *r = &w->plugins[i];
        pcs_plugin_step_fn fn = after ? r->def.after_step : r->def.before_step;
        if (!fn)
            continue;
        pcs_status st = fn(w, r->ctx);
        if (st != PCS_OK)
            return pcs_error_set(st, "tick %llu: plugin '%s' %s: %s",
                                 (unsigned long long)w->clock.tick, r->def.id,
                                 after ? "after_step" : "before_step", pcs_last_error());
    }
    return PCS_OK;
}

pcs_status pcs_plugins_before_step(pcs_world *w)
{
    return run_steps(w, 0);
}

pcs_status pcs_plugins_after_step(pcs_world *w)
{
    return run_steps(w, 1);
}

void pcs_plugins_shutdown(pcs_world *w)
{
    for (uint32_t i = w->n_plugins; i-- > 0;)
        if (w->plugins[i].def.shutdown)
            w->plugins[i].def.shutdown(w, w->plugins[i].ctx);
}

pcs_status pcs_schedule_plugin_at(const pcs_world *w, uint32_t index, pcs_schedule_plugin *out)
{
    if (!w || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_schedule_plugin_at: NULL argument");
    if (index >= w->n_plugins)
        return pcs_error_set(PCS_E_NOTFOUND, "pcs_schedule_plugin_at: index %u is outside [0, %u)",
                             index, w->n_plugins);
    const pcs_plugin_rec *r = &w->plugins[index];
    *out = (pcs_schedule_plugin){
        .id = r->def.id,
        .priority = r->def.priority,
        .section = r->def.section,
        .first_store = r->first_store,
        .n_stores = r->n_stores,
        .first_system = r->first_system,
        .n_systems = r->n_systems,
        .first_job = r->first_job,
        .n_jobs = r->n_jobs,
        .has_before_step = r->def.before_step != NULL,
        .has_after_step = r->def.after_step != NULL,
        .has_shutdown = r->def.shutdown != NULL,
    };
    return PCS_OK;
}
