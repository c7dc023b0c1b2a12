/**
 * @file xenon.h
 * @brief I-135 / Xe-135 and Pm-149 / Sm-149 poisoning, stepped as a SLOW job.
 *
 * Concentrations are kept per unit of the nominal fission-rate density
 * (atoms cm^-3 / (fissions cm^-3 s^-1), i.e. seconds), so no core volume is
 * needed. With p the fission power relative to nominal and the thermal flux
 * taken proportional to it (phi = phi_nom p):
 *
 *     di/dt  = g_I p - l_I i
 *     dx/dt  = g_X p + l_I i - (l_X + s_X phi_nom p) x
 *     dpm/dt = g_Pm p - l_Pm pm
 *     dsm/dt = l_Pm pm - s_Sm phi_nom p sm
 *     rho_X  = -s_X phi_nom x / nu,   rho_Sm = -s_Sm phi_nom sm / nu
 *
 * (the poison's absorption rate over the neutron production rate nu Sigma_f
 * phi of a critical core: J.R. Lamarsh & A.J. Baratta, Introduction to
 * Nuclear Engineering, 3rd ed., section 7.5, with the fast-fission and
 * resonance-escape factors taken as 1). Equilibrium xenon worth is then
 * -(g_I + g_X)/nu * s_X phi/(l_X + s_X phi) and samarium's -g_Pm/nu.
 *
 * Constants (defaults): g_I = 0.0639, g_X = 0.00237 (U-235 thermal fission,
 * Lamarsh 1975 Table 7.5); l_I = 2.87e-5 1/s, l_X = 2.09e-5 1/s (Lamarsh 1975
 * Table 7.6); s_X = 2.65e6 b (Xe-135 thermal absorption, 2200 m/s, the value
 * Lamarsh uses); g_Pm = 0.0113 (Pm-149 chain yield, U-235 thermal, as quoted
 * by Lamarsh); l_Pm = 3.63e-6 1/s (Pm-149 half-life 53.1 h); s_Sm = 4.08e4 b
 * (Sm-149 thermal absorption at 2200 m/s, textbook value not checked here
 * against a primary table); nu = 2.43 (U-235 thermal); phi_nom = 5e13
 * n/(cm^2 s), an assumed average thermal flux of a large PWR at full power
 * (not in refdata; order 1e13..1e14). With these defaults the equilibrium
 * xenon worth at full power is -2360 pcm and xenon peaks 9.46 h after a trip
 * from equilibrium (tests/test_xenon.c); the peak time grows with phi_nom
 * towards ln(l_I/l_X)/(l_I - l_X) = 11.3 h.
 *
 * Step: for constant p over the step each chain (I -> Xe, Pm -> Sm) is a
 * triangular linear system solved in closed form, so the SLOW step
 * pcs_clock_domain_step_s(clock, PCS_DOMAIN_SLOW) (72 s by default) is exact.
 * It is written so every term stays bounded, so it is finite for any step
 * length (up to the 2e11 s that dt 10 s and k_slow 1e9 give) and tends to
 * the equilibrium at the step's power (physics/kinetics/models/xenon.c argues it).
 *
 * As a job (pcs_xenon_add): submitted at tick t with the state and
 * the average relative power since the previous submit, run by any thread,
 * merged at t + period before stage 1 (job.h); the merged reactivities are
 * what the kinetics stage reads from then on.
 */
#ifndef PCSIM_XENON_H
#define PCSIM_XENON_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Poison-chain constants. */
typedef struct pcs_xenon_params {
    double yield_i;      /**< I-135 (cumulative) yield per fission, [0, 1] */
    double yield_xe;     /**< Xe-135 direct yield per fission, [0, 1] */
    double lambda_i;     /**< I-135 decay constant, 1/s, (0, 1] */
    double lambda_xe;    /**< Xe-135 decay constant, 1/s, (0, 1], != lambda_i */
    double sigma_xe_cm2; /**< Xe-135 absorption cross section, cm^2, [0, 1e-16] */
    double yield_pm;     /**< Pm-149 yield per fission, [0, 1] */
    double lambda_pm;    /**< Pm-149 decay constant, 1/s, (0, 1] */
    double sigma_sm_cm2; /**< Sm-149 absorption cross section, cm^2, [0, 1e-16] */
    double flux_nominal; /**< thermal flux at nominal power, 1/(cm^2 s), (0, 1e16] */
    double nu;           /**< neutrons per fission, [1, 5] */
    uint32_t samarium;   /**< 1: track Pm/Sm; 0: rho_Sm stays 0 */
    uint32_t reserved;   /**< zero */
} pcs_xenon_params;

/** Poison state (concentrations per nominal fission-rate density, s) and worths. */
typedef struct pcs_xenon_state {
    double iodine;     /**< i */
    double xenon;      /**< x */
    double promethium; /**< pm */
    double samarium;   /**< sm */
    double rho_xe;     /**< xenon reactivity, Delta k/k (<= 0) */
    double rho_sm;     /**< samarium reactivity, Delta k/k (<= 0) */
} pcs_xenon_state;

/** Number of doubles in a pcs_xenon_state (its store element count). */
#define PCS_XENON_STATE_LEN 6u

/** Defaults listed in the file comment. */
PCS_API void pcs_xenon_params_default(pcs_xenon_params *p);

/** @return PCS_E_INVAL naming the bad field ("xenon.lambda_i"), value and range. */
PCS_API pcs_status pcs_xenon_params_validate(const pcs_xenon_params *p);

/**
 * Equilibrium at constant relative power @p p_rel (>= 0); p_rel = 0 gives a
 * clean core (all zero). Samarium's equilibrium at p_rel > 0 is independent
 * of power.
 */
PCS_API void pcs_xenon_equilibrium(const pcs_xenon_params *p, double p_rel, pcs_xenon_state *s);

/** Advance @p s by @p h_s seconds at constant relative power @p p_rel (clamped >= 0), exactly. */
PCS_API void pcs_xenon_step(const pcs_xenon_params *p, pcs_xenon_state *s, double p_rel,
                            double h_s);

/**
 * Register the poison model of one unit as a SLOW job named @p name.
 * @param state_store  STATE store of PCS_XENON_STATE_LEN doubles (a pcs_xenon_state),
 *                     written at merge.
 * @param power_store  STATE store of 2 doubles [sum of relative power samples,
 *                     sample count], which the kinetics stage adds to every
 *                     tick; the job takes the average at submit and zeroes it
 *                     (an empty store counts as 0 power).
 * @param phase        tick offset within the SLOW period, < PCS_SLOW_PERIOD_TICKS.
 * Build phase only. The parameters are copied into world memory.
 * @return PCS_E_INVAL (bad params, store ids or sizes), errors of pcs_job_register.
 */
PCS_API pcs_status pcs_xenon_add(pcs_world *w, const char *name, const pcs_xenon_params *p,
                                 uint32_t state_store, uint32_t power_store, uint32_t phase,
                                 uint32_t *job_id);

#ifdef __cplusplus
}
#endif

#endif
