/**
 * @file kinetics.h
 * @brief Point reactor kinetics with up to eight delayed-neutron groups, stepped
 *        exactly through the eigen-decomposition given by the inhour equation.
 *
 * Equations (relative units; n = 1 at the reference power), as in
 * G.R. Keepin, Physics of Nuclear Kinetics (1965), ch. 4:
 *
 *     dn/dt   = (rho - beta)/Lambda * n + sum_i lambda_i C_i + S
 *     dC_i/dt = beta_i/Lambda * n - lambda_i C_i,            i = 1..G
 *
 * beta = sum beta_i, Lambda the prompt-neutron generation time (s), lambda_i
 * the precursor decay constants (1/s), S an optional neutron source (1/s).
 *
 * Integrator: for a constant rho the system y' = A y + S e_0 is linear with
 * G + 1 real, distinct eigenvalues omega_k: the roots of the inhour equation
 *
 *     rho = omega Lambda + sum_i beta_i omega / (omega + lambda_i),
 *
 * one in each interval between the poles -lambda_i, one above -lambda_1 (the
 * stable period's root) and one below -lambda_G (the prompt root, about
 * -(beta - rho)/Lambda). With g_ki = 1/(omega_k + lambda_i) the right
 * eigenvectors are v_k = (1, beta_i g_ki / Lambda) and the left ones
 * u_k = (1, lambda_i g_ki), and u_k . v_k = f'(omega_k)/Lambda. A step of
 * length h is then exact (up to rounding):
 *
 *     y(h) = sum_k v_k [ e^{omega_k h} a_k + S n_k h phi1(omega_k h) ],
 *     a_k  = n_k (u_k . y(0)),  n_k = 1/(u_k . v_k),
 *
 * whatever the stiffness (the prompt mode's omega h is about -100 at h = 0.05 s
 * and simply decays). The energy integral int n dt over the step comes out of
 * the same modes exactly, for decay heat and heat deposition. The roots are
 * bracketed by the poles and found by safeguarded Newton, warm-started from
 * the previous decomposition; the decomposition (pcs_kinetics_modes) is cached and
 * reused while h does not change and rho stays within a window of the roots'
 * reactivity (PCS_KINETICS_RHO_FREEZE_TOL, narrower on short periods): the
 * offset c = rho - m.rho is then a perturbation of the frozen system, applied
 * in modal form to first order in c exactly and with n linear over the
 * sub-step, and consecutive sub-steps on the same roots advance the modal
 * amplitudes directly, O(G) each (physics/kinetics/kernels/kinetics.c,
 * "Frozen roots"). So while rods move the cost no longer follows the root
 * solves: a -10 $ scram takes 8 solves per 0.05 s tick instead of 163, a
 * 0.1 $/s ramp 0.75 instead of 4, a slowly moving bank one every few
 * hundred ticks.
 *
 * Time-varying reactivity: pcs_kinetics_step splits a step into sub-steps and uses
 * the reactivity at each sub-step's midpoint (the exponential midpoint rule,
 * second order in the sub-step; exact for constant rho), plus a first-order
 * correction for the ramp within the sub-step, so that the stiff prompt mode
 * ends in equilibrium with the end-of-step reactivity (physics/kinetics/kernels/kinetics.c
 * argues it). Measured: Ganapol's 0.1 $/s ramp (Lambda = 2e-5 s) to 11 s is
 * within 3.3e-4 of the reference with four sub-steps per 0.05 s step.
 *
 * Validity: 1..PCS_KINETICS_MAX_GROUPS groups, lambda_i strictly increasing;
 * results are finite while omega_0 h < 700 (beyond that e^{omega h} overflows:
 * a prompt-supercritical excursion without feedback).
 *
 * All functions are pure over their arguments, allocate nothing and are
 * thread-safe for distinct arguments.
 */
#ifndef PCSIM_KINETICS_H
#define PCSIM_KINETICS_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most delayed-neutron groups. */
#define PCS_KINETICS_MAX_GROUPS 8u
/** Most modes (groups + the prompt mode). */
#define PCS_KINETICS_MAX_MODES (PCS_KINETICS_MAX_GROUPS + 1u)
/** Most sub-steps pcs_kinetics_step takes in one call. */
#define PCS_KINETICS_MAX_SUBSTEPS 256u
/**
 * A cached decomposition is reused while |rho - modes.rho| <= this. 1e-13 is
 * about 1.5e-9 $ for beta = 0.0065: the reactivity error it allows changes n
 * by less than 1e-10 relative per step, far below every accuracy target.
 */
#define PCS_KINETICS_RHO_REUSE_TOL 1e-13
/**
 * Frozen-root window: a (sub-)step whose reactivity is within this of the
 * cached roots' advances with those roots plus an offset correction instead
 * of re-solving the inhour equation; the window narrows by 1/(1 + (omega_0 h
 * / 0.01)^2) on short periods (physics/kinetics/kernels/kinetics.c, "Frozen
 * roots"). 1e-4 is about 1.5 cents: the widest window at which every
 * benchmark error of tests/test_kinetics.c stays within 10 % of its value
 * with a solve per sub-step.
 */
#define PCS_KINETICS_RHO_FREEZE_TOL 1e-4

/** Kinetic parameters of one core. */
typedef struct pcs_kinetics_params {
    uint32_t n_groups;                      /**< G, 1..PCS_KINETICS_MAX_GROUPS */
    uint32_t reserved;                      /**< zero */
    double beta[PCS_KINETICS_MAX_GROUPS];   /**< delayed fractions beta_i > 0; sum < 1 */
    double lambda[PCS_KINETICS_MAX_GROUPS]; /**< decay constants, 1/s, > 0, strictly increasing */
    double generation_time_s;               /**< prompt generation time Lambda, s, [1e-12, 1] */
    double source_per_s;                    /**< neutron source S, relative units per s, >= 0 */
} pcs_kinetics_params;

/**
 * Check @p p. @return PCS_OK, or PCS_E_INVAL naming the first bad parameter
 * ("beta[2] = -0.001 must be > 0 and finite"), its value and the allowed range.
 */
PCS_API pcs_status pcs_kinetics_params_validate(const pcs_kinetics_params *p);

/**
 * Six-group U-235 thermal data of Keepin (1965) Table 4-7 (lambda = 0.0124,
 * 0.0305, 0.111, 0.301, 1.14, 3.01 1/s; beta_i = 0.000215, 0.001424,
 * 0.001274, 0.002568, 0.000748, 0.000273; sum 0.006502), as listed in
 * tests/refdata/point_kinetics.csv (dataset KEEPIN), with the given Lambda and S = 0.
 * @return PCS_E_INVAL for NULL or Lambda outside [1e-12, 1].
 */
PCS_API pcs_status pcs_kinetics_params_keepin_u235(pcs_kinetics_params *p,
                                                   double generation_time_s);

/** Sum of beta_i. */
PCS_API double pcs_kinetics_beta_total(const pcs_kinetics_params *p);

/**
 * The cached eigen-decomposition for one reactivity and one step. Plain data
 * (no pointers), so it can live in a state store and be hashed and saved: a
 * run restored with it continues bit-identically. Zero-initialised means
 * "empty". Fields are written only by the functions below.
 */
typedef struct pcs_kinetics_modes {
    double rho;                                                /**< reactivity of the roots */
    double h_s;                                                /**< step of ew/p1/p2, s (0: none) */
    double omega[PCS_KINETICS_MAX_MODES];                      /**< roots, descending, 1/s */
    double g[PCS_KINETICS_MAX_MODES][PCS_KINETICS_MAX_GROUPS]; /**< 1/(omega_k + lambda_i), s */
    double norm[PCS_KINETICS_MAX_MODES];                       /**< 1/(u_k . v_k) */
    double ew[PCS_KINETICS_MAX_MODES];                         /**< e^{omega_k h} */
    double p1[PCS_KINETICS_MAX_MODES];   /**< (e^{omega_k h} - 1)/omega_k, s */
    double p2[PCS_KINETICS_MAX_MODES];   /**< (p1 - h)/omega_k, s^2 */
    double ramp[PCS_KINETICS_MAX_MODES]; /**< n_k h (phi2 - phi1/2)(omega_k h) if omega_k < 0, else
                                            0 */
    uint32_t valid;                      /**< 1 once roots are set */
    uint32_t n_modes;                    /**< G + 1 */
    uint64_t solves;                     /**< root solves so far (counter) */
    double rho_prev;                     /**< reactivity of the solve before (predictor) */
    double omega_prev[PCS_KINETICS_MAX_MODES]; /**< its roots */
    uint32_t has_prev;                         /**< 1 once rho_prev/omega_prev are set */
    uint32_t reserved;                         /**< zero */
} pcs_kinetics_modes;

/**
 * Solve the inhour equation for @p rho into @p m (warm-started from m's roots
 * when m is valid for the same parameters), and drop m's step data.
 * @p p must have passed pcs_kinetics_params_validate (not re-checked).
 * @return PCS_E_INVAL if rho is not finite or |rho| >= 1.
 */
PCS_API pcs_status pcs_kinetics_modes_solve(const pcs_kinetics_params *p, pcs_kinetics_modes *m,
                                            double rho);

/**
 * The G + 1 roots of the inhour equation for @p rho, descending, into
 * @p omega (length >= G + 1). 1/omega[0] is the stable (asymptotic) period.
 * @return PCS_E_INVAL for bad arguments.
 */
PCS_API pcs_status pcs_kinetics_inhour_roots(const pcs_kinetics_params *p, double rho,
                                             double *omega);

/**
 * Set @p y (length G + 1) to the source-free critical equilibrium at relative
 * power @p n: y[0] = n, y[1 + i] = beta_i n / (Lambda lambda_i).
 */
PCS_API void pcs_kinetics_equilibrium(const pcs_kinetics_params *p, double n, double *y);

/**
 * Advance @p y (length G + 1: n, C_1..C_G) by @p h_s seconds at constant
 * reactivity @p rho: exactly when rho is within PCS_KINETICS_RHO_REUSE_TOL of
 * the cached roots' (re-solved at rho when outside the frozen-root window),
 * with the offset correction in between. Re-solves the exponentials only when
 * h or the roots changed. @p n_integral (optional) receives int_0^h n dt (relative units * s).
 * @return PCS_E_INVAL for h_s <= 0 or non-finite, or bad rho (see solve).
 */
PCS_API pcs_status pcs_kinetics_step_const(const pcs_kinetics_params *p, pcs_kinetics_modes *m,
                                           double rho, double h_s, double *y, double *n_integral);

/**
 * Advance @p y by @p h_s with reactivity varying linearly from @p rho0 to
 * @p rho1 over the step, in @p n_sub equal sub-steps each at its midpoint
 * reactivity (exponential midpoint rule), on frozen roots while the
 * midpoints stay within their window (see PCS_KINETICS_RHO_FREEZE_TOL).
 * n_sub = 1 with rho0 == rho1 is pcs_kinetics_step_const. @p n_integral
 * (optional) receives int n dt over h_s.
 * @return PCS_E_INVAL for n_sub outside [1, PCS_KINETICS_MAX_SUBSTEPS], rho0
 * or rho1 outside (-1, 1) or not finite, or the errors of
 * pcs_kinetics_step_const.
 */
PCS_API pcs_status pcs_kinetics_step(const pcs_kinetics_params *p, pcs_kinetics_modes *m,
                                     double rho0, double rho1, double h_s, uint32_t n_sub,
                                     double *y, double *n_integral);

/**
 * Sub-steps that keep each sub-step's reactivity change at or below
 * @p drho_max: 1 + floor(|rho1 - rho0| / drho_max), capped at
 * PCS_KINETICS_MAX_SUBSTEPS. drho_max <= 0 gives 1.
 */
PCS_API uint32_t pcs_kinetics_substeps(double rho0, double rho1, double drho_max);

#ifdef __cplusplus
}
#endif

#endif
