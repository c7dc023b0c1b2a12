/**
 * @file unit_freeze.h
 * @brief A unit's slow state across a freeze: decay heat and I/Xe/Sm take
 *        the closed-form solution for the frozen time in one update.
 *
 * While a unit is frozen (pcsim/system.h, "Gates") nothing of it is stepped. On thaw
 * pcs_unit_gap_apply advances what keeps evolving while a plant is left alone
 * for hours (decay-heat groups, the I-135/Xe-135 and Pm-149/Sm-149 chains)
 * over the frozen time, for the assumed history:
 *  - PCS_FREEZE_HOLD_AS_FROZEN: a unit whose scram is not latched is held at
 *    its frozen fission power (nominal power x the relative neutron
 *    population); a scrammed (tripped) one is shut down (fission power 0);
 *  - PCS_FREEZE_HOLD_SHUTDOWN: shut down whatever its state.
 * Kinetics, rods and temperatures resume from their frozen values; the
 * poison-worth change enters the next kinetics step as the step a SLOW merge
 * makes. The clocks are those of an uninterrupted run: decay heat on real
 * (simulated) time real_s, or split (pcsim/decay_heat_gap.h); the poison
 * chains on the SLOW clock, real_s x k_slow, as their SLOW job advances them.
 * Both updates are exact for the assumed constant power (stated accuracy:
 * tests/test_decay_heat_gap.c, tests/test_freeze.c). Simplification: the
 * SLOW clock's gap is capped at PCS_DECAY_HEAT_GAP_MAX_S (1e15 s), where
 * every decay-heat group and the poison chains are at their end state, so a
 * longer one (a long thaw at a large k_slow) gives the same values.
 */
#ifndef PCSIM_UNIT_FREEZE_H
#define PCSIM_UNIT_FREEZE_H

#include "pcsim/decay_heat_gap.h"
#include "pcsim/export.h"
#include "pcsim/status.h"
#include "pcsim/unit.h"
#include "pcsim/world.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Assumed history of a frozen unit. */
typedef enum pcs_freeze_hold {
    PCS_FREEZE_HOLD_AS_FROZEN = 0, /**< held at its frozen power unless scrammed (default) */
    PCS_FREEZE_HOLD_SHUTDOWN = 1,  /**< always shut down */
} pcs_freeze_hold;

/** One gap. */
typedef struct pcs_unit_gap_def {
    double real_s; /**< frozen time, simulated s, [0, PCS_DECAY_HEAT_GAP_MAX_S = 1e15] (a thaw's
                        frozen ticks x dt + its extra_s, up to 1e12); the SLOW clock's gap,
                        real_s x k_slow, is capped at 1e15 s (every chain at its end state) */
    pcs_freeze_hold hold;                  /**< assumed history */
    pcs_decay_heat_clock decay_heat_clock; /**< REAL_TIME (default) or SPLIT */
    double split_mean_life_s;              /**< SPLIT threshold, s (default 3600) */
} pcs_unit_gap_def;

/** Defaults: zero gap, AS_FROZEN, REAL_TIME, split at 3600 s. */
PCS_API pcs_unit_gap_def pcs_unit_gap_default(void);

/**
 * Advance @p u's decay-heat groups and poison chains over the gap @p g.
 * Call between ticks with the unit frozen. @p p_held_rel (optional) is set
 * to the relative fission power assumed over the gap.
 * @return PCS_E_INVAL (NULL, a bad field named with its value and range),
 *         PCS_E_STATE while the unit's xenon job still has a run in flight
 *         (it would overwrite the gap at its merge: keep the unit frozen for
 *         one SLOW period, 20 ticks, first).
 */
PCS_API pcs_status pcs_unit_gap_apply(pcs_world *w, pcs_unit *u, const pcs_unit_gap_def *g,
                                      double *p_held_rel);

#ifdef __cplusplus
}
#endif

#endif
