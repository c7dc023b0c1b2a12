/**
 * @file reactivity.h
 * @brief Reactivity sources: control-rod banks (integral worth, drive, gravity
 *        drop) and feedback (Doppler, moderator temperature, boron).
 *
 * Rod position x runs from 0 (fully inserted) to 1 (fully withdrawn). A bank of
 * total worth W (> 0, Delta k/k) contributes
 *
 *     rho_bank(x) = -W (1 - F(x)),
 *
 * F the integral-worth fraction withdrawn: 0 at x = 0, 1 at x = 1. The
 * PCS_REACTIVITY_ROD_CURVE_SIN2 shape F(x) = x - sin(2 pi x)/(2 pi) is the integral of a
 * sin^2 differential worth, the usual shape for a rod in a cosine axial flux
 * (J.R. Lamarsh & A.J. Baratta, Introduction to Nuclear Engineering, 3rd ed.,
 * ch. 7, control-rod worth); PCS_REACTIVITY_ROD_CURVE_TABLE interpolates a measured curve linearly.
 *
 * Drive: a bank moves toward its commanded position at its speed (fraction
 * of full travel per second). Scram: after a release delay, each bank falls
 * under gravity, the inserted distance growing as (t / t_drop)^2 of full
 * travel, t_drop being the full-stroke drop time.
 *
 * Feedback (per unit, coefficients in Delta k/k):
 *   Doppler   rho_D = a_D (sqrt(T_f) - sqrt(T_f,ref))  [PCS_DOPPLER_SQRT, a_D per sqrt(K)]
 *             rho_D = a_D (T_f - T_f,ref)              [PCS_DOPPLER_LINEAR, a_D per K]
 *   moderator rho_M = a_M (T_m - T_m,ref)              [a_M per K]
 *   boron     rho_B = a_B (c_B - c_B,ref)              [a_B per ppm]
 * The square-root Doppler form follows the resonance-integral dependence
 * I(T) ~ I_0 (1 + beta_D (sqrt(T) - sqrt(T_0))) (Lamarsh & Baratta, ch. 7).
 *
 * All functions are pure and thread-safe.
 */
#ifndef PCSIM_REACTIVITY_H
#define PCSIM_REACTIVITY_H

#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Longest bank name (channel segment), including the terminator. */
#define PCS_REACTIVITY_ROD_NAME_MAX 8u
/** Most points of a tabulated worth curve. */
#define PCS_REACTIVITY_ROD_TABLE_MAX 16u

/** Shape of the integral worth curve. */
typedef enum pcs_reactivity_rod_curve {
    PCS_REACTIVITY_ROD_CURVE_SIN2 = 0,  /**< F(x) = x - sin(2 pi x)/(2 pi) */
    PCS_REACTIVITY_ROD_CURVE_TABLE = 1, /**< piecewise linear through (pos[k], frac[k]) */
} pcs_reactivity_rod_curve;

/** One control-rod bank. */
typedef struct pcs_reactivity_rod_bank {
    char name[PCS_REACTIVITY_ROD_NAME_MAX];          /**< 1..7 chars of [A-Za-z0-9_-], unique in a unit */
    double worth;                         /**< total worth W, Delta k/k, (0, 0.5] */
    pcs_reactivity_rod_curve curve;                  /**< worth curve shape */
    uint32_t n_points;                    /**< TABLE: points, 2..PCS_REACTIVITY_ROD_TABLE_MAX */
    double table_pos[PCS_REACTIVITY_ROD_TABLE_MAX];  /**< TABLE: positions, 0 first, 1 last, increasing */
    double table_frac[PCS_REACTIVITY_ROD_TABLE_MAX]; /**< TABLE: F at those positions, 0 first, 1 last,
                                             non-decreasing */
    double speed_per_s;                   /**< drive speed, fraction of travel per s, (0, 1] */
    double initial_pos;                   /**< position at build, [0, 1] */
} pcs_reactivity_rod_bank;

/**
 * Check bank @p b; messages name it as "rods[index] ('name').field".
 * @return PCS_E_INVAL with the field, value and allowed range.
 */
PCS_API pcs_status pcs_reactivity_rod_bank_validate(const pcs_reactivity_rod_bank *b, uint32_t index);

/** Integral worth fraction withdrawn F(x), x clamped to [0, 1]. */
PCS_API double pcs_reactivity_rod_worth_fraction(const pcs_reactivity_rod_bank *b, double x);

/** Reactivity of bank @p b at position @p x: -W (1 - F(x)), <= 0. */
PCS_API double pcs_reactivity_rod_reactivity(const pcs_reactivity_rod_bank *b, double x);

/**
 * Drive: position after moving from @p pos toward @p cmd at @p speed_per_s
 * for @p dt_s seconds, stopping exactly at cmd. Result in [0, 1].
 */
PCS_API double pcs_reactivity_rod_drive(double pos, double cmd, double speed_per_s, double dt_s);

/**
 * Gravity drop: position @p t_fall_s seconds after a bank at @p start_pos
 * was released (after the release delay), for full-stroke drop time
 * @p drop_time_s: max(0, start_pos - (t/t_drop)^2). start_pos for t <= 0.
 */
PCS_API double pcs_reactivity_rod_drop(double start_pos, double t_fall_s, double drop_time_s);

/** Doppler feedback form. */
typedef enum pcs_doppler_form {
    PCS_DOPPLER_SQRT = 0,   /**< a_D (sqrt(T) - sqrt(T_ref)), a_D in 1/sqrt(K) */
    PCS_DOPPLER_LINEAR = 1, /**< a_D (T - T_ref), a_D in 1/K */
} pcs_doppler_form;

/** Feedback coefficients of one unit. */
typedef struct pcs_reactivity_feedback_params {
    pcs_doppler_form doppler_form; /**< form of the Doppler term */
    double doppler_coef;           /**< a_D, <= 0 expected; |a_D| <= 1 */
    double t_fuel_ref_k;           /**< T_f,ref, K, [273.15, 3500] */
    double mtc_per_k;              /**< a_M, 1/K, |a_M| <= 1e-2 */
    double t_mod_ref_k;            /**< T_m,ref, K, [273.15, 700] */
    double boron_per_ppm;          /**< a_B, 1/ppm, |a_B| <= 1e-3 */
    double boron_ref_ppm;          /**< c_B,ref, ppm, [0, 10000] */
} pcs_reactivity_feedback_params;

/** @return PCS_E_INVAL naming the bad field ("feedback.t_fuel_ref_k"), value and range. */
PCS_API pcs_status pcs_reactivity_feedback_validate(const pcs_reactivity_feedback_params *p);

/** Doppler reactivity at average fuel temperature @p t_fuel_k (K, clamped >= 1 K). */
PCS_API double pcs_reactivity_feedback_doppler(const pcs_reactivity_feedback_params *p, double t_fuel_k);

/** Moderator-temperature reactivity at average moderator temperature @p t_mod_k (K). */
PCS_API double pcs_reactivity_feedback_moderator(const pcs_reactivity_feedback_params *p, double t_mod_k);

/** Boron reactivity at concentration @p ppm. */
PCS_API double pcs_reactivity_feedback_boron(const pcs_reactivity_feedback_params *p, double ppm);

#ifdef __cplusplus
}
#endif

#endif
