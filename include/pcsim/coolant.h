/**
 * @file coolant.h
 * @brief The coolant-property interface of the fuel-rod model, and a simple
 *        linear-in-temperature property set that implements it.
 *
 * The fuel-rod solver (fuel.h) needs, for every coolant node, the specific
 * heat, thermal conductivity, dynamic viscosity and density of the coolant at
 * the node's temperature of the previous step and the core pressure. It asks
 * for all nodes in ONE call per tick (a batch over arrays, never a callback
 * per element), into property arrays it owns; its hot loop only reads those
 * arrays. So swapping the linear set below for IAPWS-IF97 (plus the IAPWS
 * transport-property formulations) means passing another function and
 * context in pcs_fuel_def, with no change to the solver.
 *
 * Contract of a pcs_coolant_props_fn implementation:
 *  - pure and deterministic (same inputs -> same bits), no allocation, no
 *    locks; called on the world's thread at the HEAT stage;
 *  - writes all n entries of every output array, each finite and > 0;
 *  - an input outside its validity range is clamped to the range, evaluated
 *    there, and counted in *n_clamped (the caller flags the excursion and
 *    emits an event, issue 6: "a clamped, flagged value, never
 *    NaN");
 *  - returns PCS_E_INVAL (with a message) only for a non-finite input or a
 *    broken context; the tick then stops with that error.
 */
#ifndef PCSIM_COOLANT_PROPS_H
#define PCSIM_COOLANT_PROPS_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"

/** Output arrays of one property evaluation, each of n elements. */
typedef struct pcs_coolant_props_out {
    double *cp_j_kg_k; /**< specific heat at constant pressure, J/(kg K) */
    double *k_w_m_k;   /**< thermal conductivity, W/(m K) */
    double *mu_pa_s;   /**< dynamic viscosity, Pa s */
    double *rho_kg_m3; /**< density, kg/m^3 */
} pcs_coolant_props_out;

/**
 * Evaluate coolant properties for @p n nodes.
 * @param ctx implementation data (e.g. a pcs_coolant_linear, or IF97 tables)
 * @param n number of nodes
 * @param t_k n temperatures, K
 * @param p_pa pressure, Pa (one value for all nodes)
 * @param out arrays to fill (see the contract in the file comment)
 * @param n_clamped set to the number of nodes whose (t, p) was clamped
 */
typedef pcs_status (*pcs_coolant_props_fn)(void *ctx, uint32_t n, const double *t_k, double p_pa,
                                           const pcs_coolant_props_out *out, uint32_t *n_clamped);

/**
 * A property set linear in temperature about t_ref_k, independent of
 * pressure: x(T) = x_ref + dx_dt (clamp(T, t_min_k, t_max_k) - t_ref_k).
 *
 * Defaults (pcs_coolant_linear_default): the secant through the values at
 * the full-power core inlet and outlet temperatures, 565.1 K and 599.0 K
 * ([W84] Table 2-1 in tests/refdata/pwr_plant.md), at the RCS pressure 15.51 MPa
 * ([BEAVRS]; [W84]), computed with IAPWS-IF97 (density, cp), the IAPWS 2008
 * viscosity and the IAPWS 2011 conductivity formulations (python3-iapws
 * 1.5.2, Debian). At the two ends:
 *   cp 5280.4 / 6466.0 J/(kg K), k 0.57635 / 0.51745 W/(m K),
 *   mu 9.1717e-5 / 7.7938e-5 Pa s, rho 742.52 / 664.08 kg/m^3.
 * cp is strongly convex there (5706 at 582 K against the secant's 5873, 3 %),
 * so this set is a placeholder for IF97, valid only in the hot single-phase
 * range t_min_k = 540 K to t_max_k = 618 K (the saturation temperature at
 * 15.51 MPa is 617.99 K, IF97).
 */
typedef struct pcs_coolant_linear {
    double t_ref_k; /**< reference temperature, K; default 582.05 */
    double t_min_k; /**< clamp below, K; default 540; >= 273.15 */
    double t_max_k; /**< clamp above, K; default 618; > t_min_k */
    double cp_ref;  /**< J/(kg K) at t_ref_k; default 5873.19 */
    double dcp_dt;  /**< J/(kg K^2); default 34.9714 */
    double k_ref;   /**< W/(m K); default 0.546900 */
    double dk_dt;   /**< W/(m K^2); default -1.73757e-3 */
    double mu_ref;  /**< Pa s; default 8.48272e-5 */
    double dmu_dt;  /**< Pa s/K; default -4.06466e-7 */
    double rho_ref; /**< kg/m^3; default 703.298 */
    double drho_dt; /**< kg/(m^3 K); default -2.31375 */
} pcs_coolant_linear;

/** Fill @p c with the defaults above. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_coolant_linear_default(pcs_coolant_linear *c);

/**
 * Check that every field is finite, 273.15 <= t_min_k < t_max_k, and that
 * every property is > 0 at both ends of the clamp range.
 * @return PCS_E_INVAL naming the field, its value and the allowed range.
 */
PCS_API pcs_status pcs_coolant_linear_validate(const pcs_coolant_linear *c);

/**
 * pcs_coolant_props_fn for a pcs_coolant_linear passed as @p ctx (const, not
 * modified). Thread-safe for distinct outputs.
 */
PCS_API pcs_status pcs_coolant_props_linear(void *ctx, uint32_t n, const double *t_k, double p_pa,
                                            const pcs_coolant_props_out *out, uint32_t *n_clamped);

#endif
