/**
 * @file load_check.c
 * @brief Model-owned checks of a staged save, and the range helpers they use.
 *
 * A save's checksums only prove the file is the one that was written; a
 * crafted file with recomputed checksums still reaches the models. The loader
 * therefore stages every section, lets each model judge its own values here,
 * and applies nothing unless every check passes (persist.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine/load_check.h"
#include "pcsim/math.h"

pcs_status pcs_load_check_register(pcs_world *w, const char *name, pcs_load_check_fn fn, void *ctx)
{
    static const char fname[] = "pcs_load_check_register";
    pcs_status st = pcs_world_check_build(w, fname);
    if (st != PCS_OK)
        return st;
    if (!fn || !name || !name[0] || strlen(name) >= PCS_NAME_MAX)
        return pcs_error_set(PCS_E_INVAL,
                             "%s: fn is NULL or name is empty or longer than %u "
                             "chars",
                             fname, PCS_NAME_MAX - 1);
    st = pcs_table_reserve(w, fname, "load checks", &w->load_checks, w->n_load_checks,
                           &w->load_checks_cap, sizeof *w->load_checks);
    if (st != PCS_OK)
        return st;
    const char *copy = pcs_mem_strdup(&w->mem, name);
    if (!copy)
        return pcs_error_set(PCS_E_NOMEM, "%s: no memory for '%s'", fname, name);
    w->load_checks[w->n_load_checks++] = (pcs_load_check_rec){.fn = fn, .ctx = ctx, .name = copy};
    return PCS_OK;
}

const void *pcs_load_view_store(const pcs_load_view *v, uint32_t store_id)
{
    if (!v || store_id >= v->w->n_stores || v->store_off[store_id] == SIZE_MAX)
        return NULL;
    return v->base + v->store_off[store_id];
}

const void *pcs_load_view_job(const pcs_load_view *v, uint32_t job_id, int *pending)
{
    if (!v || job_id >= v->w->n_jobs || v->job_off[job_id] == SIZE_MAX)
        return NULL;
    if (pending)
        *pending = v->job_pending[job_id];
    return v->base + v->job_off[job_id];
}

pcs_status pcs_load_checks_run(const pcs_world *w, const pcs_load_view *v)
{
    for (uint32_t i = 0; i < w->n_load_checks; i++) {
        const pcs_load_check_rec *c = &w->load_checks[i];
        pcs_status st = c->fn(w, v, c->ctx);
        if (st != PCS_OK)
            return pcs_error_set(PCS_E_CORRUPT, "%s (load check '%s')", pcs_last_error(), c->name);
    }
    return PCS_OK;
}

/* "[lo, hi)" with the ends the flags open. */
static void interval_text(char *out, size_t len, double lo, double hi, unsigned flags)
{
    snprintf(out, len, "%c%.9g, %.9g%c", (flags & PCS_CHECK_LO_OPEN) ? '(' : '[', lo, hi,
             (flags & PCS_CHECK_HI_OPEN) ? ')' : ']');
}

static int inside(double x, double lo, double hi, unsigned flags)
{
    if (!pcs_isfinite(x))
        return 0;
    int lo_ok = (flags & PCS_CHECK_LO_OPEN) ? x > lo : x >= lo;
    int hi_ok = (flags & PCS_CHECK_HI_OPEN) ? x < hi : x <= hi;
    return lo_ok && hi_ok;
}

pcs_status pcs_load_check_f64_from(const char *store, const char *field, const double *x,
                                   size_t first, size_t n, size_t stride, double lo, double hi,
                                   unsigned flags)
{
    if (!x && n)
        return pcs_error_set(PCS_E_CORRUPT, "store '%s' (%s): no staged data", store, field);
    for (size_t i = first; i < first + n; i++) {
        double v = x[i * stride];
        if (inside(v, lo, hi, flags))
            continue;
        char range[96];
        interval_text(range, sizeof range, lo, hi, flags);
        return pcs_error_set(PCS_E_CORRUPT, "store '%s' element %zu (%s): value %.17g outside %s",
                             store, i, field, v, range);
    }
    return PCS_OK;
}

pcs_status pcs_load_check_f64(const char *store, const char *field, const double *x, size_t n,
                              size_t stride, double lo, double hi, unsigned flags)
{
    return pcs_load_check_f64_from(store, field, x, 0, n, stride, lo, hi, flags);
}

pcs_status pcs_load_check_u32(const char *store, const char *field, const uint32_t *x, size_t n,
                              size_t stride, uint32_t bound)
{
    if (!x && n)
        return pcs_error_set(PCS_E_CORRUPT, "store '%s' (%s): no staged data", store, field);
    for (size_t i = 0; i < n; i++)
        if (x[i * stride] >= bound)
            return pcs_error_set(PCS_E_CORRUPT,
                                 "store '%s' element %zu (%s): value %" PRIu32
                                 " outside [0, %" PRIu32 ")",
                                 store, i, field, x[i * stride], bound);
    return PCS_OK;
}
