/**
 * @file pressurizer_internal.h
 * @brief What the pressurizer step (pressurizer.c) shares with its
 *        equation-of-state solves (pressurizer_eos.c).
 */
#ifndef PCS_PHYSICS_PRESSURIZER_INTERNAL_H
#define PCS_PHYSICS_PRESSURIZER_INTERNAL_H

#include "pcsim/pressurizer.h"
#include "pcsim/water_ph.h"

/** Saturation at one pressure. */
typedef struct pzr_sat {
    double t_k;        /**< T_sat */
    double hf, hg;     /**< saturated liquid / vapour enthalpy, J/kg */
    double rhof, rhog; /**< saturated densities, kg/m3 */
} pzr_sat;

/** Saturation at p (1 kPa to 21 MPa): regions 1/2 at T_sat up to 623.15 K,
 *  region 3 densities by Newton above. */
pcs_status pzr_sat_at(double p, pzr_sat *s);

/** The state at (p, h): from @p table if not NULL (pcs_water_ph_table_lookup),
 *  else exact IF97 (pcs_water_ph_exact). */
pcs_status pzr_ph(const pcs_water_ph_table *table, double p, double h, pcs_water_ph_state *out);

/** One region at the end of a step: its new mass, the enthalpy it holds at
 *  the start-of-step pressure after the step's exchanges (H* = U + p_n V_n
 *  + dt (sum m h + Q)), and its start-of-step volume (for the V dp work). */
typedef struct pzr_region {
    double m;     /**< kg; 0: the region is absent */
    double h_tot; /**< H*, J */
    double v0;    /**< V_n, m3 */
} pzr_region;

/** The end-of-step pressure and what it implies for each region. */
typedef struct pzr_eos {
    double p;                /**< Pa */
    double hl, hv;           /**< region specific enthalpies (0 for an absent region) */
    pcs_water_ph_state l, v; /**< region states at (p, h_k) (zeroed if absent) */
    double vl, vv;           /**< region volumes, m3 */
} pzr_eos;

/** The end-of-step pressure p of two regions in volume V (enthalpy form):
 *  each region's enthalpy is H* + V_n (p - p_n), and sum M_k / rho(p, h_k) = V.
 *  Starts from p_n; the states from @p table (pzr_ph). */
pcs_status pzr_eos_solve(const pcs_water_ph_table *table, double volume, const pzr_region *l,
                         const pzr_region *v, double p_n, pzr_eos *out);

/** (d rho / d p) along dh = dp / rho (the enthalpy form's compressibility,
 *  1/c^2 for a single phase), kg/(m3 Pa). */
double pzr_drho_dp_s(const pcs_water_ph_state *w);

#endif
