/**
 * @file summary_node.h
 * @brief The summary unit's heat balance: one fuel node and ONE primary
 *        coolant node with heat removal to a steam-generator sink (the
 *        reduced model of pcsim/plant.h PCS_PLANT_MODEL_SUMMARY).
 *
 *     C_f dT_f/dt = f P - UA_f (T_f - T_p)
 *     C_p dT_p/dt = (1 - f) P + UA_f (T_f - T_p) - Q_sg
 *     Q_sg = UA_sg (T_p - T_sink)        (sink mode TEMPERATURE: an SG boundary)
 *     Q_sg = Q_demand                    (sink mode DEMAND: the turbine's steam demand)
 *
 * T_f the volume-mean fuel temperature, T_p the one primary temperature
 * (the whole loop's water at one temperature: Tavg), P the core's thermal
 * power over the step (held constant over it). One backward-Euler step of
 * the 2x2 linear system: unconditionally stable, first order (the fuel's
 * C_f/UA_f ~ 3 s against a 0.05 s tick), and for UA_sg = 0 and Q_demand = 0
 * it conserves C_f T_f + C_p T_p + int P dt exactly.
 *
 * Thread-safety: pure functions (a kernel: no world).
 */
#ifndef PCS_PHYSICS_SUMMARY_NODE_H
#define PCS_PHYSICS_SUMMARY_NODE_H

/** The sink's modes. */
enum { PCS_SUMMARY_SINK_TEMPERATURE = 0, PCS_SUMMARY_SINK_DEMAND = 1 };

/** Constants of one summary unit (every one from the unit's own definition: plant_summary.c). */
typedef struct pcs_summary_node_params {
    double c_fuel_j_k;    /**< C_f, J/K */
    double c_primary_j_k; /**< C_p, J/K */
    double ua_fuel_w_k;   /**< UA_f fuel to coolant, W/K */
    double fuel_fraction; /**< f, the power deposited in the fuel */
    double ua_sg_w_k;     /**< UA_sg primary to SG secondary, W/K */
} pcs_summary_node_params;

/** The state and the step's outputs. */
typedef struct pcs_summary_node_state {
    double t_fuel_k;    /**< T_f */
    double t_primary_k; /**< T_p */
    double q_core_w;    /**< heat into the coolant over the last step (W, mean) */
    double q_sg_w;      /**< heat to the SG over the last step (W, mean) */
} pcs_summary_node_state;

/**
 * Advance @p s by @p h_s at power @p power_w with the sink in @p mode:
 * @p sink is T_sink (K) in TEMPERATURE mode, Q_demand (W) in DEMAND mode.
 * q_core_w and q_sg_w are evaluated at the end-of-step temperatures (the
 * backward-Euler fluxes, so energy balances exactly over the step).
 */
void pcs_summary_node_step(const pcs_summary_node_params *p, int mode, double sink, double power_w,
                           double h_s, pcs_summary_node_state *s);

/**
 * Steady state at power @p power_w with primary temperature @p t_primary_k:
 * writes the fuel temperature and the fluxes, and returns the sink that
 * holds it (TEMPERATURE mode: T_p - P / UA_sg; DEMAND mode: P).
 */
double pcs_summary_node_steady(const pcs_summary_node_params *p, int mode, double power_w,
                               double t_primary_k, pcs_summary_node_state *s);

#endif
