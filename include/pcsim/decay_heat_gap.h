/**
 * @file decay_heat_gap.h
 * @brief Decay heat across a freeze: the closed-form advance of the ANS-5.1
 *        groups and the U-239/Np-239 chain over a gap of any length, with a
 *        real-time or split clock.
 *
 * A frozen unit is not stepped; on thaw its decay-heat groups take the
 * solution of their equations (decay_heat.h) for a fission power held
 * constant over the gap (the frozen power of a critical unit, 0 for a tripped
 * one) in one update, never by stepping through the gap. Group i becomes
 *
 *     D_i <- D_i + (1 - e^{-lambda_i t_i}) (sat_i P - D_i)
 *
 * and Np-239 adds the U-239 excess it inherits (decay_heat.c's step, for
 * t instead of h). For lambda_i t_i >= 1 the update is written
 * D_i e^{-lambda_i t_i} + (1 - e^{-lambda_i t_i}) sat_i P so a group that
 * decays by orders of magnitude keeps its relative accuracy. This is the same closed form the FAST
 * step uses, so for a held power the result equals an uninterrupted run to rounding (tested to
 * 1e-12 relative against 0.05 s and 60 s steps over 10 h, and against the
 * ANS operate-then-cool formula).
 *
 * Clock (decay_heat_clock):
 *  - PCS_DECAY_HEAT_CLOCK_REAL_TIME (default): every group advances the gap's
 *    real (simulated FAST) seconds, t_i = real_s; this is what an
 *    uninterrupted run gives.
 *  - PCS_DECAY_HEAT_CLOCK_SPLIT (games): groups with mean life 1/lambda_i of
 *    at most split_mean_life_s advance real_s, the longer-lived ones advance
 *    slow_s (the gap on the SLOW clock, real_s * k_slow), so the hour-to-year
 *    tail cools at the pace the game's xenon and storage models run while the
 *    seconds-to-minutes groups keep the time the player saw. The U-239 ->
 *    Np-239 chain is one coupled system and advances on the clock of its
 *    longer-lived member, Np-239 (mean life 3.4 d).
 *
 * Thread-safety: pure functions over their arguments.
 */
#ifndef PCSIM_DECAY_HEAT_GAP_H
#define PCSIM_DECAY_HEAT_GAP_H

#include <stdint.h>

#include "pcsim/decay_heat.h"
#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Which clock the decay-heat groups take across a freeze. */
typedef enum pcs_decay_heat_clock {
    PCS_DECAY_HEAT_CLOCK_REAL_TIME = 0, /**< every group on real time (default) */
    PCS_DECAY_HEAT_CLOCK_SPLIT =
        1, /**< short-lived groups real time, long-lived on the slow clock */
} pcs_decay_heat_clock;

/** Largest gap accepted, s: 1e15 s (3e7 years) on either clock. */
#define PCS_DECAY_HEAT_GAP_MAX_S 1e15

/** One frozen interval. */
typedef struct pcs_decay_heat_gap_def {
    double p_fission_w; /**< fission power held over the gap, W, [0, 1e12]; 0 = shut down */
    double real_s;      /**< gap on the real (FAST) clock, s, [0, PCS_DECAY_HEAT_GAP_MAX_S] */
    double slow_s;      /**< gap on the SLOW clock, s, [0, PCS_DECAY_HEAT_GAP_MAX_S]; SPLIT only */
    pcs_decay_heat_clock clock; /**< REAL_TIME or SPLIT */
    double split_mean_life_s;   /**< SPLIT: longest mean life still on real time, s, > 0 */
} pcs_decay_heat_gap_def;

/** Defaults: zero power, zero gap, REAL_TIME, split at a mean life of 3600 s. */
PCS_API pcs_decay_heat_gap_def pcs_decay_heat_gap_default(void);

/** @return PCS_E_INVAL naming the bad field ("decay_heat_gap.real_s"), its value and range. */
PCS_API pcs_status pcs_decay_heat_gap_validate(const pcs_decay_heat_gap_def *g);

/** Seconds group @p group (< PCS_DECAY_HEAT_GROUPS) advances across @p g. */
PCS_API double pcs_decay_heat_gap_time(const pcs_decay_heat_model *m,
                                       const pcs_decay_heat_gap_def *g, uint32_t group);

/**
 * Advance @p d (PCS_DECAY_HEAT_GROUPS powers, W) across the gap @p g in closed
 * form. @p m supplies the constants only (its step length is not used).
 * @return PCS_E_INVAL (d untouched) for a bad gap or NULL arguments.
 */
PCS_API pcs_status pcs_decay_heat_advance(const pcs_decay_heat_model *m,
                                          const pcs_decay_heat_gap_def *g, double *d);

#ifdef __cplusplus
}
#endif

#endif
