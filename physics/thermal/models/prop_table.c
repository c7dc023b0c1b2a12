/**
 * @file prop_table.c
 * @brief Build-time sampling of material-property tables (see prop_table.h).
 */
#include "physics/thermal/models/prop_table.h"

#include "pcsim/math.h"

pcs_status pcs_prop_table_build(pcs_world *w, pcs_prop_table *tab, const char *what, pcs_prop_fn fn,
                                const void *ctx, double t_lo_k, double t_hi_k, double step_k)
{
    if (!tab || !fn || !what)
        return pcs_error_set(PCS_E_INVAL, "pcs_prop_table_build: NULL argument");
    if (!pcs_isfinite(t_lo_k) || !pcs_isfinite(t_hi_k) || !(t_hi_k > t_lo_k) || !(step_k > 0.0) ||
        !pcs_isfinite(step_k))
        return pcs_error_set(PCS_E_INVAL,
                             "%s table: range [%g, %g] K with step %g K is invalid "
                             "(need finite t_lo < t_hi and step > 0)",
                             what, t_lo_k, t_hi_k, step_k);
    double intervals = pcs_ceil((t_hi_k - t_lo_k) / step_k);
    if (intervals < 1.0)
        intervals = 1.0;
    if (intervals > 1e6)
        return pcs_error_set(PCS_E_INVAL, "%s table: %g intervals exceed 1e6", what, intervals);
    uint32_t n = (uint32_t)intervals + 1u;
    double *v = pcs_world_alloc(w, (size_t)n * sizeof *v);
    if (!v)
        return pcs_error_set(PCS_E_NOMEM, "%s table: no memory for %u points", what, n);
    double step = (t_hi_k - t_lo_k) / intervals;
    for (uint32_t i = 0; i < n; i++) {
        double t = (i + 1u == n) ? t_hi_k : t_lo_k + step * (double)i;
        v[i] = fn(ctx, t);
        if (!pcs_isfinite(v[i]) || !(v[i] > 0.0))
            return pcs_error_set(PCS_E_INVAL, "%s table: value %g at %g K is not finite and > 0",
                                 what, v[i], t);
    }
    tab->t_lo_k = t_lo_k;
    tab->t_hi_k = t_hi_k;
    tab->inv_step = 1.0 / step;
    tab->x_max = intervals;
    tab->n = n;
    tab->v = v;
    return PCS_OK;
}
