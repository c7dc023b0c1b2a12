/**
 * @file clock.c
 * @brief Tick counter, time domains and the seconds-to-ticks rule
 *        (docs/ARCHITECTURE.md section 3).
 */
#include "pcsim/clock.h"
#include "pcsim/math.h"

static const uint32_t domain_period[PCS_DOMAIN_COUNT] = {1u, PCS_SLOW_PERIOD_TICKS,
                                                         PCS_STORAGE_PERIOD_TICKS};

static pcs_status check_factor(const char *field, double k)
{
    if (!pcs_isfinite(k) || k <= 0.0 || k > 1e9)
        return pcs_error_set(PCS_E_INVAL, "clock: %s = %g is outside (0, 1e9]", field, k);
    return PCS_OK;
}

pcs_status pcs_clock_init(pcs_clock *clock, double dt_s, double k_slow, double k_storage)
{
    if (!clock)
        return pcs_error_set(PCS_E_INVAL, "pcs_clock_init: clock is NULL");
    if (!pcs_isfinite(dt_s) || dt_s < PCS_CLOCK_DT_MIN_S || dt_s > PCS_CLOCK_DT_MAX_S)
        return pcs_error_set(PCS_E_INVAL, "clock: dt_s = %g is outside [%g, %g] s", dt_s,
                             PCS_CLOCK_DT_MIN_S, PCS_CLOCK_DT_MAX_S);
    pcs_status st = check_factor("k_slow", k_slow);
    if (st == PCS_OK)
        st = check_factor("k_storage", k_storage);
    if (st != PCS_OK)
        return st;
    clock->tick = 0;
    clock->dt_s = dt_s;
    clock->k_slow = k_slow;
    clock->k_storage = k_storage;
    return PCS_OK;
}

uint32_t pcs_clock_period(pcs_domain domain)
{
    if ((unsigned)domain >= PCS_DOMAIN_COUNT)
        return 0;
    return domain_period[domain];
}

bool pcs_clock_due(const pcs_clock *clock, pcs_domain domain, uint32_t phase)
{
    uint32_t period = pcs_clock_period(domain);
    if (!clock || period == 0)
        return false;
    return clock->tick % period == phase % period;
}

double pcs_clock_time_s(const pcs_clock *clock)
{
    return clock ? (double)clock->tick * clock->dt_s : 0.0;
}

double pcs_clock_domain_step_s(const pcs_clock *clock, pcs_domain domain)
{
    if (!clock)
        return 0.0;
    switch (domain) {
    case PCS_DOMAIN_FAST:
        return clock->dt_s;
    case PCS_DOMAIN_SLOW:
        return (double)PCS_SLOW_PERIOD_TICKS * clock->dt_s * clock->k_slow;
    case PCS_DOMAIN_STORAGE:
        return (double)PCS_STORAGE_PERIOD_TICKS * clock->dt_s * clock->k_storage;
    default:
        return 0.0;
    }
}

pcs_status pcs_clock_advance(pcs_clock *clock)
{
    if (!clock)
        return pcs_error_set(PCS_E_INVAL, "pcs_clock_advance: clock is NULL");
    if (clock->tick >= PCS_CLOCK_TICK_MAX)
        return pcs_error_set(PCS_E_OVERFLOW,
                             "clock: tick %llu reached the limit 2^53; time would lose "
                             "tick resolution",
                             (unsigned long long)clock->tick);
    clock->tick++;
    return PCS_OK;
}

pcs_status pcs_clock_seconds_to_ticks(const pcs_clock *clock, double seconds, uint64_t *ticks,
                                      bool *warn)
{
    if (!clock || !ticks)
        return pcs_error_set(PCS_E_INVAL, "pcs_clock_seconds_to_ticks: NULL argument");
    if (!pcs_isfinite(seconds) || seconds < 0.0)
        return pcs_error_set(PCS_E_INVAL, "clock: %g s is not a finite duration >= 0", seconds);
    double exact = seconds / clock->dt_s;
    if (exact > (double)PCS_CLOCK_TICK_MAX)
        return pcs_error_set(PCS_E_OVERFLOW, "clock: %g s is more than 2^53 ticks of %g s",
                             seconds, clock->dt_s);
    double rounded = pcs_round(exact);
    if (warn)
        *warn = exact > 0.0 && pcs_fabs(rounded - exact) > 0.01 * exact;
    *ticks = (uint64_t)rounded;
    return PCS_OK;
}
