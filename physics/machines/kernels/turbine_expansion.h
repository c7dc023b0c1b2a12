/**
 * @file turbine_expansion.h
 * @brief The turbine's steam expansion (turbine_expansion.c), private to
 *        physics/: a pure kernel on IAPWS-IF97 (pcsim/water.h) that the
 *        turbine-generator's tick (physics/machines/models/turbine_step.c)
 *        calls; it never touches a world.
 *
 * One expansion from the throttle state (p_in, h_in) to the condenser
 * pressure p_c with an internal (isentropic) efficiency eta:
 *   s_in = s(p_in, h_in)                     (IF97, pcs_water_props_ph)
 *   h_s  = h(p_c, s_in)                      (isentropic end point)
 *   h_out = h_in - eta (h_in - h_s).
 * h(p, s) is not a single IF97 function: inside the dome (s_f <= s <= s_g
 * at p_c, the case of every throttle state below the critical point) it
 * is the lever rule on the saturated states at T_sat(p_c), exact; outside
 * it is the backward T(p, s) (pcs_water_t_ps, refined on the forward
 * equation) and the forward h(p, T). No iteration of our own is needed.
 */
#ifndef PCS_PHYSICS_TURBINE_EXPANSION_H
#define PCS_PHYSICS_TURBINE_EXPANSION_H

#include "pcsim/status.h"

/** The saturated states at the exhaust pressure, computed once. */
typedef struct pcs_turbine_exhaust {
    double p_pa;     /**< condenser pressure */
    double h_f, h_g; /**< saturated liquid and vapour enthalpy, J/kg */
    double s_f, s_g; /**< saturated liquid and vapour entropy, J/(kg K) */
} pcs_turbine_exhaust;

/** The exhaust's saturated states at @p p_pa in [611.213, 2.2064e7) Pa.
 *  PCS_E_INVAL naming the value otherwise. */
pcs_status pcs_turbine_exhaust_init(double p_pa, pcs_turbine_exhaust *ex);

/** One expansion's results. */
typedef struct pcs_turbine_stage {
    double s_in;  /**< throttle entropy, J/(kg K) */
    double h_s;   /**< isentropic end enthalpy at the exhaust pressure, J/kg */
    double h_out; /**< actual end enthalpy, J/kg */
} pcs_turbine_stage;

/**
 * Expand (@p p_in, @p h_in) to @p ex with efficiency @p eta in [0, 1].
 * @return PCS_OK, or IF97's PCS_E_INVAL for a throttle state outside its
 *         range (the message names it); @p out untouched then.
 */
pcs_status pcs_turbine_expand(const pcs_turbine_exhaust *ex, double p_in, double h_in, double eta,
                              pcs_turbine_stage *out);

#endif
