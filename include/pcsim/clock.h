/**
 * @file clock.h
 * @brief The simulation clock: a tick counter, a fixed FAST step and time domains.
 *
 * Time is a whole number of ticks; simulated seconds are tick * dt_s. There is
 * no wall clock. docs/ARCHITECTURE.md section 3:
 *  - FAST runs every tick (dt_s, default 0.05 s);
 *  - SLOW runs every 20 ticks and advances k_slow physical seconds per
 *    simulated second (default 72);
 *  - STORAGE runs every 1200 ticks with k_storage (default 8766).
 * A pcs_clock is plain data; it is owned by one thread (the world's).
 */
#ifndef PCSIM_CLOCK_H
#define PCSIM_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "pcsim/export.h"
#include "pcsim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Time domains: how often a model runs. */
typedef enum pcs_domain {
    PCS_DOMAIN_FAST = 0,
    PCS_DOMAIN_SLOW = 1,
    PCS_DOMAIN_STORAGE = 2,
    PCS_DOMAIN_COUNT = 3,
} pcs_domain;

/** Ticks between runs of each domain. */
#define PCS_SLOW_PERIOD_TICKS 20u
#define PCS_STORAGE_PERIOD_TICKS 1200u

/**
 * Largest tick the clock reaches. Beyond 2^53 ticks, tick * dt_s can no longer
 * tell neighbouring ticks apart in a double, so simulated time would stall;
 * the clock reports PCS_E_OVERFLOW instead of wrapping or stalling.
 */
#define PCS_CLOCK_TICK_MAX (UINT64_C(1) << 53)

/** Valid range of dt_s (seconds). */
#define PCS_CLOCK_DT_MIN_S 1e-6
#define PCS_CLOCK_DT_MAX_S 10.0

/** Clock state. Read fields freely; change it only through the functions. */
typedef struct pcs_clock {
    uint64_t tick;    /**< ticks completed since start */
    double dt_s;      /**< FAST step, s */
    double k_slow;    /**< SLOW physical seconds per simulated second */
    double k_storage; /**< STORAGE physical seconds per simulated second */
} pcs_clock;

/**
 * Initialise @p clock at tick 0.
 * @param dt_s FAST step in seconds, in [PCS_CLOCK_DT_MIN_S, PCS_CLOCK_DT_MAX_S].
 * @param k_slow, k_storage time acceleration, > 0 and finite.
 * @return PCS_E_INVAL naming the field and the range; the clock is untouched.
 */
PCS_API pcs_status pcs_clock_init(pcs_clock *clock, double dt_s, double k_slow,
                                  double k_storage);

/** Ticks between runs of @p domain (1, 20 or 1200); 0 for an invalid domain. */
PCS_API uint32_t pcs_clock_period(pcs_domain domain);

/**
 * True when a job of @p domain with @p phase runs at the clock's current tick:
 * tick % period == phase % period. Phases spread jobs of different subsystems
 * over different ticks. False for an invalid domain or NULL clock.
 */
PCS_API bool pcs_clock_due(const pcs_clock *clock, pcs_domain domain, uint32_t phase);

/** Simulated seconds at the current tick (tick * dt_s). */
PCS_API double pcs_clock_time_s(const pcs_clock *clock);

/**
 * Physical seconds one run of @p domain advances: period * dt_s * k
 * (k = 1 for FAST). 0 for an invalid domain.
 */
PCS_API double pcs_clock_domain_step_s(const pcs_clock *clock, pcs_domain domain);

/**
 * Advance by one tick. @return PCS_E_OVERFLOW (clock unchanged) at
 * PCS_CLOCK_TICK_MAX, PCS_E_INVAL for NULL.
 */
PCS_API pcs_status pcs_clock_advance(pcs_clock *clock);

/**
 * Convert @p seconds to whole ticks by rounding the total to the nearest tick
 * (never per unit). @p warn (optional) is set when rounding changes the value
 * by more than 1 % (relative), which the caller should report.
 * @return PCS_E_INVAL for negative or non-finite seconds, PCS_E_OVERFLOW when
 *         the result exceeds PCS_CLOCK_TICK_MAX.
 */
PCS_API pcs_status pcs_clock_seconds_to_ticks(const pcs_clock *clock, double seconds,
                                              uint64_t *ticks, bool *warn);

#ifdef __cplusplus
}
#endif

#endif
