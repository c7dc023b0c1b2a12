/**
 * @file decay_heat.h
 * @brief Decay heat after fission: ANS-5.1 23-group fission-product fit plus
 *        the U-239 / Np-239 heavy-element chain, tracked alongside fission power.
 *
 * Each fission-product group i holds a decay power D_i (W) obeying
 *
 *     dD_i/dt = (alpha_i / Q) P_f(t) - lambda_i D_i,
 *
 * where P_f is the fission power (W, Q MeV released per fission), alpha_i in
 * MeV/(fission s) and lambda_i in 1/s are the ANS-5.1 U-235 thermal-fission
 * coefficients: ANSI/ANS-5.1-1979 Table 7 or the ANSI/ANS-5.1-2004 U-235 set,
 * as transcribed in tests/refdata/decay_heat.md section 1 (which lists
 * the independent public copies that agree on every digit). After operating
 * at constant P for T seconds and cooling for t, this gives the standard's
 *     P_d/P_0 = sum_i (alpha_i/lambda_i)/Q e^{-lambda_i t} (1 - e^{-lambda_i T}).
 *
 * Heavy elements (tests/refdata/decay_heat.md section 2, NRC fuel-performance code
 * module `Decay`, ANS-5.1-2004): R U-239 atoms per fission (E_U = 0.474 MeV,
 * lambda_U = 4.91e-4 1/s) decaying to Np-239 (E_Np = 0.419 MeV,
 * lambda_Np = 3.41e-6 1/s). Their powers D_U = E_U lambda_U N_U and
 * D_Np = E_Np lambda_Np N_Np obey
 *     dD_U/dt  = lambda_U (E_U R / Q) P_f - lambda_U D_U,
 *     dD_Np/dt = lambda_Np (E_Np/E_U) D_U - lambda_Np D_Np.
 * R = 0 disables them. The neutron-capture factor G of section 2 is not modelled.
 *
 * Step: for a fission power constant over the step (the caller passes the
 * step average, so the energy produced is exact) every equation is solved in
 * closed form, so any step length is exact and stable. Written as
 * D <- D + (1 - e^{-lambda h}) (D_sat - D), with 1 - e^{-lambda h} from
 * expm1, so a saturated group stays exactly saturated even for the groups
 * with lambda h ~ 1e-15 (a rounded e^{-lambda h} would move their fixed point
 * by up to 15 %).
 *
 * Thread-safety: pure functions over their arguments.
 */
#ifndef PCSIM_DECAY_HEAT_H
#define PCSIM_DECAY_HEAT_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Fission-product groups of the ANS-5.1 fit. */
#define PCS_DECAY_HEAT_FP_GROUPS 23u
/** State length: the fission-product groups, then U-239, then Np-239. */
#define PCS_DECAY_HEAT_GROUPS (PCS_DECAY_HEAT_FP_GROUPS + 2u)
/** Index of the U-239 and Np-239 powers in the state. */
#define PCS_DECAY_HEAT_U239 PCS_DECAY_HEAT_FP_GROUPS
#define PCS_DECAY_HEAT_NP239 (PCS_DECAY_HEAT_FP_GROUPS + 1u)
/** "Infinite" irradiation time of the ANS convention (tests/refdata/decay_heat.md section 1), s. */
#define PCS_DECAY_HEAT_T_INFINITE_S 1e13

/** Which ANS-5.1 coefficient set. */
typedef enum pcs_decay_heat_dataset {
    PCS_DECAY_HEAT_ANS_1979 = 0, /**< ANSI/ANS-5.1-1979 Table 7, U-235 thermal */
    PCS_DECAY_HEAT_ANS_2004 = 1, /**< ANSI/ANS-5.1-2004 U-235 thermal */
} pcs_decay_heat_dataset;

/** Decay-heat parameters. */
typedef struct pcs_decay_heat_params {
    pcs_decay_heat_dataset dataset; /**< coefficient set */
    double q_mev; /**< recoverable energy per fission, MeV, (0, 1000]; 200 in the cited codes */
    double u239_per_fission; /**< R, U-239 atoms per fission, [0, 10]; NRC module 0.6, 0 = off */
} pcs_decay_heat_params;

/** Defaults: ANS-5.1-2004, Q = 200 MeV, R = 0.6 (NRC module). */
PCS_API void pcs_decay_heat_params_default(pcs_decay_heat_params *p);

/** @return PCS_E_INVAL naming the bad field, its value and the range. */
PCS_API pcs_status pcs_decay_heat_params_validate(const pcs_decay_heat_params *p);

/** Constants of one parameter set and one step length. Plain data. */
typedef struct pcs_decay_heat_model {
    double lambda[PCS_DECAY_HEAT_GROUPS]; /**< decay constants, 1/s */
    double sat[PCS_DECAY_HEAT_GROUPS];    /**< saturated group power per W of fission power */
    double h_s;                           /**< step length the factors below are for, s */
    double om[PCS_DECAY_HEAT_GROUPS];     /**< 1 - e^{-lambda_i h}, from expm1 */
    double np_from_u;                     /**< Np gain per W of U-239 power above saturation */
    double saturated_fraction;            /**< sum of sat[i]: decay power per W at saturation */
} pcs_decay_heat_model;

/**
 * Build @p m from @p p for steps of @p h_s seconds.
 * @return PCS_E_INVAL for bad parameters or h_s not in (0, 1e9].
 */
PCS_API pcs_status pcs_decay_heat_model_init(const pcs_decay_heat_params *p, double h_s,
                                             pcs_decay_heat_model *m);

/**
 * Set @p d (PCS_DECAY_HEAT_GROUPS powers, W) to the state after operating at constant
 * fission power @p p_fission_w for @p t_op_s seconds from a fresh core
 * (PCS_DECAY_HEAT_T_INFINITE_S for the ANS "infinite" irradiation).
 */
PCS_API void pcs_decay_heat_operate(const pcs_decay_heat_model *m, double p_fission_w,
                                    double t_op_s, double *d);

/**
 * Advance @p d by one step of m->h_s with fission power @p p_avg_w (the step
 * average, W). @return the decay power at the end of the step, W.
 */
PCS_API double pcs_decay_heat_step(const pcs_decay_heat_model *m, double p_avg_w, double *d);

/** Total decay power of state @p d, W (groups summed in index order). */
PCS_API double pcs_decay_heat_power(const double *d);

/** Decay power of the 23 fission-product groups only, W. */
PCS_API double pcs_decay_heat_power_fp(const double *d);

#ifdef __cplusplus
}
#endif

#endif
