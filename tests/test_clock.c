/**
 * @file test_clock.c
 * @brief Clock: dt validation, overflow, due() phases, seconds-to-ticks rounding.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "pcsim/clock.h"

static pcs_clock make_clock(void)
{
    pcs_clock c;
    cr_assert_eq(pcs_clock_init(&c, 0.05, 72.0, 8766.0), PCS_OK);
    return c;
}

Test(clock, zero_and_negative_dt_rejected_with_field_name)
{
    pcs_clock c = {.tick = 7};
    cr_assert_eq(pcs_clock_init(&c, 0.0, 72.0, 8766.0), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "dt_s") != NULL);
    cr_assert_eq(pcs_clock_init(&c, -0.05, 72.0, 8766.0), PCS_E_INVAL);
    cr_assert_eq(c.tick, 7, "a rejected init leaves the clock untouched");
    cr_assert_eq(pcs_clock_init(&c, 0.05, 0.0, 8766.0), PCS_E_INVAL);
    cr_assert(strstr(pcs_last_error(), "k_slow") != NULL);
    cr_assert_eq(pcs_clock_init(NULL, 0.05, 72.0, 8766.0), PCS_E_INVAL);
}

Test(clock, overflow_detected_and_clock_unchanged)
{
    pcs_clock c = make_clock();
    c.tick = PCS_CLOCK_TICK_MAX - 1;
    cr_assert_eq(pcs_clock_advance(&c), PCS_OK);
    cr_assert_eq(c.tick, PCS_CLOCK_TICK_MAX);
    cr_assert_eq(pcs_clock_advance(&c), PCS_E_OVERFLOW);
    cr_assert_eq(c.tick, PCS_CLOCK_TICK_MAX, "clock unchanged after overflow");
    cr_assert(strstr(pcs_last_error(), "limit") != NULL);
}

Test(clock, due_phases_over_2400_ticks)
{
    pcs_clock c = make_clock();
    unsigned slow_phase3 = 0, slow_phase0 = 0, storage_phase7 = 0, fast = 0;
    uint64_t first_slow3 = UINT64_MAX;
    for (int i = 0; i < 2400; i++) {
        if (pcs_clock_due(&c, PCS_DOMAIN_FAST, 0))
            fast++;
        if (pcs_clock_due(&c, PCS_DOMAIN_SLOW, 3)) {
            slow_phase3++;
            if (first_slow3 == UINT64_MAX)
                first_slow3 = c.tick;
            cr_assert_eq(c.tick % 20, 3);
        }
        if (pcs_clock_due(&c, PCS_DOMAIN_SLOW, 0))
            slow_phase0++;
        if (pcs_clock_due(&c, PCS_DOMAIN_STORAGE, 7))
            storage_phase7++;
        cr_assert_eq(pcs_clock_advance(&c), PCS_OK);
    }
    /* 2400 ticks = 120 SLOW periods and 2 STORAGE periods. */
    cr_assert_eq(fast, 2400);
    cr_assert_eq(slow_phase0, 120);
    cr_assert_eq(slow_phase3, 120);
    cr_assert_eq(first_slow3, 3);
    cr_assert_eq(storage_phase7, 2);
    cr_assert_not(pcs_clock_due(&c, (pcs_domain)9, 0));
}

Test(clock, domain_steps_in_physical_seconds)
{
    pcs_clock c = make_clock();
    /* SLOW: 20 ticks x 0.05 s x 72 = 72 s; STORAGE: 1200 x 0.05 x 8766 = 525960 s. */
    cr_assert_float_eq(pcs_clock_domain_step_s(&c, PCS_DOMAIN_FAST), 0.05, 1e-15);
    cr_assert_float_eq(pcs_clock_domain_step_s(&c, PCS_DOMAIN_SLOW), 72.0, 1e-12);
    cr_assert_float_eq(pcs_clock_domain_step_s(&c, PCS_DOMAIN_STORAGE), 525960.0, 1e-7);
}

Test(clock, seconds_round_total_to_nearest_tick)
{
    pcs_clock c = make_clock();
    uint64_t t;
    bool warn = true;
    cr_assert_eq(pcs_clock_seconds_to_ticks(&c, 10.0, &t, &warn), PCS_OK);
    cr_assert_eq(t, 200);
    cr_assert_not(warn);
    /* 0.07 s = 1.4 ticks -> 1 tick: a 28.6 % change, so warn. */
    cr_assert_eq(pcs_clock_seconds_to_ticks(&c, 0.07, &t, &warn), PCS_OK);
    cr_assert_eq(t, 1);
    cr_assert(warn);
    /* 100.01 s = 2000.2 ticks -> 2000: 0.01 % change, no warning. */
    cr_assert_eq(pcs_clock_seconds_to_ticks(&c, 100.01, &t, &warn), PCS_OK);
    cr_assert_eq(t, 2000);
    cr_assert_not(warn);
    cr_assert_eq(pcs_clock_seconds_to_ticks(&c, -1.0, &t, &warn), PCS_E_INVAL);
    cr_assert_eq(pcs_clock_seconds_to_ticks(&c, 1e300, &t, &warn), PCS_E_OVERFLOW);
}
