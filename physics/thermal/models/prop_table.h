/**
 * @file prop_table.h
 * @brief Uniform-grid linear-interpolation tables of a temperature-dependent
 *        material property, built once at world build for the hot loop.
 *
 * Why: the fuel-rod solve evaluates a conductivity at every radial face of
 * every axial node every tick (about 1000 evaluations for the reference
 * core). Fink's UO2 correlation needs one exp and one pow per call; a table
 * lookup is a multiply, a truncation and one interpolation. The error of linear
 * interpolation on a uniform grid of step h is at most h^2/8 max|f''|; each
 * table states its measured bound where it is built (fuel_rod.c) and a test
 * checks it against the direct formula.
 *
 * Lookups clamp to [t_lo_k, t_hi_k]: outside the correlation's range the end
 * value is held (the caller flags the excursion). A NaN temperature returns
 * the value at t_lo_k, never NaN, and never reaches an undefined conversion.
 * Private to physics/.
 */
#ifndef PCS_PHYSICS_PROP_TABLE_H
#define PCS_PHYSICS_PROP_TABLE_H

#include <stdint.h>

#include "pcsim/status.h"
#include "pcsim/world.h"

/** A property as a function of temperature (K); ctx carries any parameters. */
typedef double (*pcs_prop_fn)(const void *ctx, double t_k);

/** Table of n >= 2 values on the uniform grid t_lo_k + i * step. */
typedef struct pcs_prop_table {
    double t_lo_k;   /**< first grid point, K */
    double t_hi_k;   /**< last grid point, K */
    double inv_step; /**< 1 / grid step, 1/K */
    double x_max;    /**< n - 1, as a double, for the clamp */
    uint32_t n;      /**< grid points */
    double *v;       /**< n values, world memory */
} pcs_prop_table;

/**
 * Fill @p tab with @p fn sampled on [t_lo_k, t_hi_k] with a step no larger
 * than @p step_k (the step is shrunk so the grid ends exactly at t_hi_k).
 * Memory comes from pcs_world_alloc (build phase only).
 * @return PCS_E_INVAL for a bad range or step or a non-finite sample (naming
 *         @p what and the temperature), PCS_E_NOMEM, PCS_E_STATE after sealing.
 */
pcs_status pcs_prop_table_build(pcs_world *w, pcs_prop_table *tab, const char *what, pcs_prop_fn fn,
                                const void *ctx, double t_lo_k, double t_hi_k, double step_k);

/** Interpolated value at @p t_k, clamped to the table's range (see file comment). */
static inline double pcs_prop_table_eval(const pcs_prop_table *tab, double t_k)
{
    double x = (t_k - tab->t_lo_k) * tab->inv_step;
    if (!(x >= 0.0)) /* also catches NaN */
        x = 0.0;
    if (x > tab->x_max)
        x = tab->x_max;
    uint32_t i = (uint32_t)x;
    if (i >= tab->n - 1u)
        i = tab->n - 2u;
    double f = x - (double)i;
    return tab->v[i] + f * (tab->v[i + 1] - tab->v[i]);
}

#endif
