/**
 * @file pool.c
 * @brief Pool lifecycle: choose cores, start pinned workers, collect warnings, stop, report.
 *
 * The only place in pcsim that creates threads (docs/ARCHITECTURE.md section 1).
 * Creation resolves the worker count (AUTO = max(1, min(2, ncpu - 2))), caps
 * it at the free cores so no two workers and not the host share a core, and
 * waits until every worker has started and tried to pin itself, so all
 * warnings are known when pcs_exec_create returns. Destruction stops the
 * workers between chunks, joins them, and revokes the pool from worlds still
 * attached, so nothing hangs and nothing leaks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/pool.h"

_Static_assert(PCS_EXEC_MAX_WORKERS <= 1000u, "worker names pcsim-wNNN fit 16 bytes");

pcs_status pcs_exec_default(pcs_exec_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_exec_default: cfg is NULL");
    *cfg = (pcs_exec_def){.workers = PCS_WORKERS_AUTO, .pin = true};
    return PCS_OK;
}

uint32_t pcs_exec_default_workers(uint32_t ncpu)
{
    int64_t n = (int64_t)ncpu - 2;
    if (n > 2)
        n = 2;
    return n < 1 ? 1u : (uint32_t)n;
}

__attribute__((format(printf, 2, 3))) static void warn(pcs_exec *p, const char *fmt, ...)
{
    if (p->n_warnings < PCS_EXEC_MAX_WARNINGS) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->warnings[p->n_warnings], PCS_EXEC_WARNING_BYTES, fmt, ap);
        va_end(ap);
    }
    p->n_warnings++;
}

static pcs_status check_config(const pcs_exec_def *cfg)
{
    if (cfg->workers != PCS_WORKERS_AUTO && cfg->workers > PCS_EXEC_MAX_WORKERS)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_exec_create: workers = %u is outside [0, %u] (or AUTO)",
                             cfg->workers, PCS_EXEC_MAX_WORKERS);
    return PCS_OK;
}

/* Decide how many workers start and which core each gets (-1 = unpinned). */
static pcs_status plan_workers(pcs_exec *p)
{
    p->asked = p->cfg.workers == PCS_WORKERS_AUTO ? pcs_exec_default_workers(p->topo.ncpu)
                                                  : p->cfg.workers;
    if (p->topo.host_core < 0)
        warn(p, "the host thread's core is unknown; workers may share it");
    int *cores = calloc(PCS_EXEC_MAX_WORKERS, sizeof *cores);
    if (!cores)
        return pcs_error_set(PCS_E_NOMEM, "pcs_exec_create: out of memory");
    uint32_t free_cores = pcs_topo_worker_cores(&p->topo, cores, PCS_EXEC_MAX_WORKERS);
    uint32_t n = p->asked;
    if (n > free_cores && !p->cfg.allow_oversubscribe) {
        warn(p,
             "asked for %u worker(s) but only %u core(s) are free (usable PUs %u, host core "
             "L#%d): starting %u, never two threads per core",
             p->asked, free_cores, p->topo.ncpu, p->topo.host_core, free_cores);
        n = free_cores;
    }
    p->workers = calloc(n ? n : 1, sizeof *p->workers);
    if (!p->workers) {
        free(cores);
        return pcs_error_set(PCS_E_NOMEM, "pcs_exec_create: out of memory for %u workers", n);
    }
    for (uint32_t i = 0; i < n; i++) {
        pcs_exec_worker *wk = &p->workers[i];
        wk->pool = p;
        wk->index = i;
        wk->core = (p->cfg.pin && i < free_cores) ? cores[i] : -1;
        /* i < PCS_EXEC_MAX_WORKERS <= 1000; the modulo tells the compiler the name fits. */
        snprintf(wk->name, sizeof wk->name, "pcsim-w%u", i % 1000u);
    }
    p->n_workers = n;
    free(cores);
    return PCS_OK;
}

static void stop_workers(pcs_exec *p, uint32_t running)
{
    atomic_store(&p->stop, true);
    pthread_mutex_lock(&p->mu);
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t i = 0; i < running; i++)
        pthread_join(p->workers[i].thread, NULL);
}

static pcs_status start_workers(pcs_exec *p)
{
    for (uint32_t i = 0; i < p->n_workers; i++) {
        int e = pthread_create(&p->workers[i].thread, NULL, pcs_exec_worker_main, &p->workers[i]);
        if (e != 0) {
            uint32_t n = p->n_workers;
            stop_workers(p, i);
            p->n_workers = 0;
            return pcs_error_set(PCS_E_STATE,
                                 "pcs_exec_create: cannot start worker %u of %u "
                                 "(pthread_create error %d)",
                                 i, n, e);
        }
    }
    pthread_mutex_lock(&p->mu);
    while (p->started < p->n_workers)
        pthread_cond_wait(&p->idle_cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t i = 0; i < p->n_workers; i++)
        if (p->workers[i].warning[0])
            warn(p, "%s", p->workers[i].warning);
    return PCS_OK;
}

static void free_pool(pcs_exec *p)
{
    pcs_topo_close(&p->topo);
    pthread_cond_destroy(&p->idle_cv);
    pthread_cond_destroy(&p->work_cv);
    pthread_mutex_destroy(&p->mu);
    free(p->workers);
    free(p);
}

pcs_status pcs_exec_create(const pcs_exec_def *cfg, pcs_exec **out)
{
    pcs_exec_def dflt;
    if (!out)
        return pcs_error_set(PCS_E_INVAL, "pcs_exec_create: out is NULL");
    if (!cfg) {
        pcs_exec_default(&dflt);
        cfg = &dflt;
    }
    pcs_status st = check_config(cfg);
    if (st != PCS_OK)
        return st;
    pcs_exec *p = calloc(1, sizeof *p);
    if (!p)
        return pcs_error_set(PCS_E_NOMEM, "pcs_exec_create: out of memory");
    p->cfg = *cfg;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->idle_cv, NULL);
    st = pcs_topo_open(&p->topo, NULL);
    if (st == PCS_OK)
        st = plan_workers(p);
    if (st == PCS_OK)
        st = start_workers(p);
    if (st != PCS_OK) {
        free_pool(p);
        return st;
    }
    uint32_t kept = p->n_warnings < PCS_EXEC_MAX_WARNINGS ? p->n_warnings : PCS_EXEC_MAX_WARNINGS;
    for (uint32_t i = 0; cfg->warn && i < kept; i++)
        cfg->warn(cfg->warn_ctx, p->warnings[i]);
    *out = p;
    return PCS_OK;
}

void pcs_exec_destroy(pcs_exec *p)
{
    if (!p)
        return;
    stop_workers(p, p->n_workers);
    pcs_exec_release_slots(p);
    free_pool(p);
}

pcs_status pcs_exec_executor(pcs_exec *pool, pcs_executor *ex)
{
    if (!pool || !ex)
        return pcs_error_set(PCS_E_INVAL, "pcs_exec_executor: pool or ex is NULL");
    pcs_exec_table(pool, ex);
    return PCS_OK;
}

pcs_status pcs_exec_attach(pcs_exec *pool, pcs_world *world)
{
    pcs_executor ex;
    if (!pool)
        return pcs_error_set(PCS_E_INVAL, "pcs_exec_attach: pool is NULL");
    pcs_exec_table(pool, &ex);
    return pcs_world_set_executor(world, &ex);
}

uint32_t pcs_exec_worker_count(const pcs_exec *pool)
{
    return pool ? pool->n_workers : 0;
}

pcs_status pcs_exec_worker_get(const pcs_exec *pool, uint32_t i, pcs_exec_worker_info *out)
{
    if (!pool || !out || i >= pool->n_workers)
        return pcs_error_set(PCS_E_INVAL, "pcs_exec_worker_get: no worker %u (pool has %u)", i,
                             pool ? pool->n_workers : 0);
    const pcs_exec_worker *wk = &pool->workers[i];
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", wk->name);
    out->pinned = wk->pinned;
    out->core = wk->pinned ? wk->core : -1;
    out->core_os = wk->pinned ? pcs_topo_core_os(&pool->topo, wk->core) : -1;
    return PCS_OK;
}

pcs_status pcs_exec_pin_host(const pcs_exec *pool)
{
    if (!pool)
        return pcs_error_set(PCS_E_INVAL, "pcs_exec_pin_host: pool is NULL");
    if (pool->topo.host_core < 0)
        return pcs_error_set(PCS_E_STATE, "pcs_exec_pin_host: the host core is unknown");
    char why[PCS_EXEC_WARNING_BYTES];
    if (pcs_topo_pin_self(&pool->topo, pool->topo.host_core, why, sizeof why) != 0)
        return pcs_error_set(PCS_E_STATE, "pcs_exec_pin_host: %s", why);
    return PCS_OK;
}

int pcs_exec_host_core(const pcs_exec *pool)
{
    return pool ? pool->topo.host_core : -1;
}

uint32_t pcs_exec_ncpu(const pcs_exec *pool)
{
    return pool ? pool->topo.ncpu : 0;
}

pcs_status pcs_exec_stats_get(const pcs_exec *pool, pcs_exec_stats *out)
{
    if (!pool || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_exec_stats_get: pool or out is NULL");
    const pcs_exec_counters *n = &pool->n;
#define PCS_LOAD(f) out->f = atomic_load_explicit(&n->f, memory_order_relaxed)
    PCS_LOAD(runs_submitted);
    PCS_LOAD(runs_joined);
    PCS_LOAD(chunks_worker);
    PCS_LOAD(chunks_stolen);
    PCS_LOAD(chunks_cancelled);
    PCS_LOAD(joins_ready);
    PCS_LOAD(waits);
    PCS_LOAD(waits_timed_out);
    PCS_LOAD(waits_inflight);
    PCS_LOAD(wait_ns_total);
    PCS_LOAD(wait_ns_max);
#undef PCS_LOAD
    return PCS_OK;
}

uint32_t pcs_exec_warning_count(const pcs_exec *pool)
{
    return pool ? pool->n_warnings : 0;
}

const char *pcs_exec_warning(const pcs_exec *pool, uint32_t i)
{
    if (!pool || i >= pool->n_warnings || i >= PCS_EXEC_MAX_WARNINGS)
        return NULL;
    return pool->warnings[i];
}

size_t pcs_exec_topology_describe(const pcs_exec *pool, char *buf, size_t len)
{
    if (!pool) {
        if (buf && len)
            buf[0] = '\0';
        return 0;
    }
    int cores[PCS_EXEC_MAX_WORKERS];
    uint32_t pinned = 0;
    for (uint32_t i = 0; i < pool->n_workers; i++) {
        cores[i] = pool->workers[i].pinned ? pool->workers[i].core : -1;
        pinned += pool->workers[i].pinned ? 1u : 0u;
    }
    size_t need = pcs_topo_describe(&pool->topo, cores, pool->n_workers, buf, len);
    size_t at = need < len ? need : (len ? len - 1 : 0);
    int n = snprintf(len > at ? buf + at : NULL, len > at ? len - at : 0,
                     "Workers: %u started (asked %u%s), %u pinned; host core L#%d; usable PUs %u\n",
                     pool->n_workers, pool->asked,
                     pool->cfg.workers == PCS_WORKERS_AUTO ? ", auto" : "", pinned,
                     pool->topo.host_core, pool->topo.ncpu);
    return need + (n > 0 ? (size_t)n : 0);
}
