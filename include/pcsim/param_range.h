/**
 * @file param_range.h
 * @brief Range checks of a model's scalar parameters, as one table per model.
 *
 * A parameter set's validate function lists its fields with their allowed
 * ranges and calls pcs_param_ranges_check, so the rule (finite, inside the
 * range, the lower end open or closed) and the message exist once. Used by
 * pure kernels (lumped_heat) and world-bound models (xenon, unit, primary) alike.
 *
 * Thread-safety: pure; sets the calling thread's error message only.
 */
#ifndef PCSIM_PARAM_RANGE_H
#define PCSIM_PARAM_RANGE_H

#include <stddef.h>

#include "pcsim/math.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One scalar parameter and its allowed range. */
typedef struct pcs_param_range {
    const char *field; /**< the field's name, as the message shows it */
    double v;          /**< its value */
    double lo, hi;     /**< allowed range; hi is included, or INFINITY for none */
    int open_lo;       /**< 1: lo excluded, (lo, hi]; 0: [lo, hi] */
} pcs_param_range;

/**
 * PCS_OK if every r[i].v is finite and in its range; otherwise PCS_E_INVAL
 * for the first that is not, with the message
 * "<prefix><field> = <v> is outside [lo, hi]" ("(lo, hi]" when open_lo;
 * "[lo, inf)" when hi is INFINITY: v must still be finite).
 */
static inline pcs_status pcs_param_ranges_check(const char *prefix, const pcs_param_range *r,
                                                size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const double v = r[i].v;
        const int bad =
            !pcs_isfinite(v) || v > r[i].hi || (r[i].open_lo ? v <= r[i].lo : v < r[i].lo);
        if (bad)
            return pcs_error_set(PCS_E_INVAL, "%s%s = %g is outside %c%g, %g%c", prefix, r[i].field,
                                 v, r[i].open_lo ? '(' : '[', r[i].lo, r[i].hi,
                                 pcs_isfinite(r[i].hi) ? ']' : ')');
    }
    return PCS_OK;
}

#ifdef __cplusplus
}
#endif

#endif
