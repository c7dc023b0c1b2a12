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
 * arrays. Real water (IAPWS-IF97 with the IAPWS transport formulations) is
 * pcs_coolant_props_water over a pcs_coolant_water table (or the slower
 * pcs_coolant_props_if97): another function and context in pcs_fuel_def,
 * with no change to the solver.
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

#ifdef __cplusplus
extern "C" {
#endif

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

/* ------------------------------------------------------------------------ */
/* Real water: IAPWS-IF97 region 1 with the IAPWS transport formulations      */
/* ------------------------------------------------------------------------ */

/* Only pcs_coolant_water_add names a world; declared as in water.h so that
   this header stays free of world headers (a kernel header, archcheck). */
typedef struct pcs_world pcs_world;

/**
 * pcs_coolant_props_fn of liquid water evaluated directly from the
 * equations: rho and cp from IAPWS-IF97 region 1 (R7-97(2012) Eq. 7,
 * pcs_if97_region1), mu from IAPWS R12-08 and k from IAPWS R15-11 at that
 * density (pcs_water_viscosity, pcs_water_conductivity: no critical
 * enhancement, see water.h). @p ctx is unused (pass NULL).
 *
 * Validity range, outside of which an input is clamped and counted:
 * 611.213 Pa <= p <= 100 MPa (region 1's pressures) and
 * 273.15 K <= T <= T_top(p) = min(T_sat(p), 623.15 K): compressed or
 * saturated liquid (R7-97 Eq. 31 for T_sat; 623.15 K is region 1's edge).
 * A node hotter than T_sat gets the saturated liquid's properties: the fuel's
 * coolant node is a liquid energy balance, and the excursion is flagged.
 *
 * Cost: about 0.6 us per node (one region 1 evaluation, two exp for
 * the transport properties), measured 57-70 us per call for the reference
 * core's 96 nodes: the reference path; the station uses the table below.
 */
PCS_API pcs_status pcs_coolant_props_if97(void *ctx, uint32_t n, const double *t_k, double p_pa,
                                          const pcs_coolant_props_out *out, uint32_t *n_clamped);

/**
 * A table of pcs_coolant_props_if97 over the liquid domain, for the tick.
 *
 * Layout: in each row, n_t nodes uniform in xi = (T - t_min_k) /
 * (T_top(p) - t_min_k) in [0, 1], so the last node of every row is saturated
 * liquid and no cell straddles the saturation line. Rows are uniform in
 * T_top (i.e. in T_sat) from p_min_pa up to 16.529 MPa, where T_top reaches
 * 623.15 K (a row sits on that kink, where linear interpolation is exact),
 * and uniform in p above it. Each node holds (cp, k, mu, rho) from
 * pcs_coolant_props_if97. A lookup computes T_top(p) once per call (all nodes
 * share p; R7-97 Eq. 31) and is bilinear in (row, xi) per node: 16 loads, no
 * transcendental call. Measured: 1.9 us for the 96 nodes of the reference
 * core, against 57-70 us for pcs_coolant_props_if97.
 *
 * Error of the default table (1-22 MPa, 2 K rows: 107 rows x 512 nodes,
 * 1.8 MB) against pcs_coolant_props_if97, max relative over seeded random
 * liquid points, asserted by tests/test_coolant_water.c: cp 1.2e-3 (within
 * 0.4 K of saturation near 16.3 MPa, where cp is steepest), k, mu and rho
 * 1.2e-4; PCS_COOLANT_WATER_REL_ERR bounds them all, far inside the scatter
 * of Dittus-Boelter (10-25 %).
 *
 * Clamping as pcs_coolant_props_if97, with the table's own p and T ranges.
 * Thread-safety: read-only after creation; any number of fuel models (units,
 * worker threads) may share one table.
 */
typedef struct pcs_coolant_water pcs_coolant_water;

/** Stated max relative error of the default table (see above). */
#define PCS_COOLANT_WATER_REL_ERR 1.5e-3

/** Table extent and resolution. Start from pcs_coolant_water_default. */
typedef struct pcs_coolant_water_def {
    double p_min_pa; /**< lowest pressure, Pa; default 1e6; [611.213, 16.529e6) */
    double p_max_pa; /**< highest pressure, Pa; default 22e6; (p_min, 100e6] */
    double t_min_k;  /**< lowest temperature, K; default 273.15; [273.15, T_top(p_min)) */
    double dt_sat_k; /**< row spacing in T_top below 16.529 MPa, K (made smaller so that
                          rows fall on both ends); default 2; > 0 */
    double dp_pa;    /**< row spacing in p above 16.529 MPa, Pa (likewise); default 0.25e6;
                          > 0; at most 4096 rows in all */
    uint32_t n_t;    /**< nodes per row; default 512; [2, 65536] */
} pcs_coolant_water_def;

/** Fill @p cfg with the defaults. PCS_E_INVAL for NULL. */
PCS_API pcs_status pcs_coolant_water_default(pcs_coolant_water_def *cfg);

/** Bytes a table with @p cfg needs (0 for an invalid config). */
PCS_API uint64_t pcs_coolant_water_bytes(const pcs_coolant_water_def *cfg);

/**
 * Build a table in one malloc'd block (about 60 ms for the default: one
 * IF97 evaluation per node). Not for the tick: build once.
 * @return PCS_E_INVAL (bad config naming the field and its range, NULL),
 *         PCS_E_NOMEM.
 */
PCS_API pcs_status pcs_coolant_water_create(const pcs_coolant_water_def *cfg,
                                            pcs_coolant_water **out);

/** Free a table from pcs_coolant_water_create. NULL is allowed. */
PCS_API void pcs_coolant_water_destroy(pcs_coolant_water *t);

/**
 * Build a table in the world's build-time heap (pcs_world_alloc): it lives
 * exactly as long as the world, so it may be passed as props_ctx of any fuel
 * model of that world. Never pass it to pcs_coolant_water_destroy.
 * @return PCS_E_INVAL, PCS_E_NOMEM, PCS_E_STATE (world sealed).
 */
PCS_API pcs_status pcs_coolant_water_add(pcs_world *w, const pcs_coolant_water_def *cfg,
                                         pcs_coolant_water **out);

/**
 * pcs_coolant_props_fn over a pcs_coolant_water table passed as @p ctx
 * (const, never modified). Thread-safe.
 */
PCS_API pcs_status pcs_coolant_props_water(void *ctx, uint32_t n, const double *t_k, double p_pa,
                                           const pcs_coolant_props_out *out, uint32_t *n_clamped);

#ifdef __cplusplus
}
#endif

#endif
