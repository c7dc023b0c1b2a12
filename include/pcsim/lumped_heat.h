/**
 * @file lumped_heat.h
 * @brief Placeholder core heat model: one fuel node and one coolant node.
 *
 * Stands in for the fuel-rod conduction model (fuel.h) until it lands, so a
 * reactor unit can be stepped and its temperature feedback works. Equations:
 *
 *     C_f dT_f/dt = f P - UA (T_f - T_c)
 *     C_c dT_c/dt = (1 - f) P + UA (T_f - T_c) - 2 W c_p (T_c - T_in)
 *
 * T_f the volume-average fuel temperature, T_c the average coolant
 * temperature (T_in + T_out)/2, so the coolant carries away
 * W c_p (T_out - T_in) = 2 W c_p (T_c - T_in); P the thermal power (W), f the
 * fraction deposited in the fuel. For P constant over a step the linear
 * system x' = A x + b is solved exactly, x(h) = e^{Ah} x(0) + (int_0^h e^{As} ds) b,
 * with both 2x2 matrix functions from Sylvester's formula at build; so any
 * step is stable and, with W = 0, C_f T_f + C_c T_c grows by exactly P h.
 *
 * t_max = T_c + k_peak (T_f - T_c) estimates the hottest pellet centre.
 *
 * Defaults (pcs_lumped_heat_params_pwr) from tests/refdata/pwr_plant.md:
 * inlet 565.1 K, outlet 599.0 K, flow 17,440 kg/s, fuel fraction 0.974 ([W84]
 * Table 2-1); c_p = P/(W (T_out - T_in)) = 5769 J/(kg K) from that heat
 * balance; UO2 mass 92,600 kg (81,639 kg U [W84] x 270/238) at an assumed
 * c_p of 300 J/(kg K); core water 13,700 kg (assumed: 3.371 m core
 * diameter [W84], 3.6576 m height, 58 % water at 720 kg/m3). UA from an
 * assumed 373 K fuel-average-to-coolant difference at full power: with the
 * pellet's q'/(8 pi k) = 237 K at q' = 17.86 kW/m, k = 3 W/(m K) (refdata
 * check value), plus about 136 K across gap, clad and film. k_peak = 4.1:
 * the hot rod (F_q = 44.62/17.86 = 2.5, [TK]) centreline rise over the
 * average rod's average rise at those constants.
 *
 * Thread-safety: pure functions.
 */
#ifndef PCSIM_LUMPED_HEAT_H
#define PCSIM_LUMPED_HEAT_H

#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Lumped two-node parameters. */
typedef struct pcs_lumped_heat_params {
    double fuel_heat_capacity_j_k;    /**< C_f, J/K, (0, 1e12] */
    double coolant_heat_capacity_j_k; /**< C_c, J/K, (0, 1e12] */
    double ua_w_k;                    /**< UA fuel -> coolant, W/K, (0, 1e12] */
    double fuel_fraction;             /**< f, [0, 1] */
    double flow_kg_s;                 /**< W, kg/s, [0, 1e6] */
    double cp_j_kg_k;                 /**< c_p, J/(kg K), (0, 1e5] */
    double t_inlet_k;                 /**< T_in, K, [273.15, 700] */
    double t_max_factor;              /**< k_peak, [1, 20] */
} pcs_lumped_heat_params;

/** Defaults for a 4-loop PWR of nominal thermal power @p p_nominal_w (file comment). */
PCS_API void pcs_lumped_heat_params_pwr(pcs_lumped_heat_params *p, double p_nominal_w);

/** @return PCS_E_INVAL naming the bad field ("lumped_heat.ua_w_k"), value and range. */
PCS_API pcs_status pcs_lumped_heat_params_validate(const pcs_lumped_heat_params *p);

/** Exact propagator of one parameter set for steps of h_s. Plain data. */
typedef struct pcs_lumped_heat_model {
    pcs_lumped_heat_params p; /**< copy of the parameters */
    double h_s;               /**< step, s */
    double e[2][2];           /**< e^{A h} */
    double f[2][2];           /**< int_0^h e^{A s} ds, s */
} pcs_lumped_heat_model;

/** Build @p m. @return PCS_E_INVAL for bad parameters or h_s outside (0, 1e6]. */
PCS_API pcs_status pcs_lumped_heat_model_init(const pcs_lumped_heat_params *p, double h_s,
                                              pcs_lumped_heat_model *m);

/**
 * Steady state at power @p power_w (needs flow > 0): T_c = T_in + P/(2 W c_p),
 * T_f = T_c + f P / UA. Writes t[0] = T_f, t[1] = T_c (K).
 */
PCS_API void pcs_lumped_heat_steady(const pcs_lumped_heat_params *p, double power_w, double *t);

/** Advance t = {T_f, T_c} (K) by one step at constant power @p power_w, exactly. */
PCS_API void pcs_lumped_heat_step(const pcs_lumped_heat_model *m, double power_w, double *t);

/** Hottest-pellet estimate T_c + k_peak (T_f - T_c), K. */
PCS_API double pcs_lumped_heat_t_max(const pcs_lumped_heat_params *p, const double *t);

#ifdef __cplusplus
}
#endif

#endif
