/**
 * @file test_reactivity.c
 * @brief Rod worth curves, drive, gravity drop and feedback terms: hand-computed values.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/reactivity.h"

static pcs_reactivity_rod_bank rt_bank(void)
{
    pcs_reactivity_rod_bank b;
    memset(&b, 0, sizeof b);
    strcpy(b.name, "D");
    b.worth = 0.00788; /* BEAVRS cycle 1 bank D, 788 pcm (tests/refdata/pwr_plant.md) */
    b.curve = PCS_REACTIVITY_ROD_CURVE_SIN2;
    b.speed_per_s = 0.01;
    b.initial_pos = 1.0;
    return b;
}

Test(reactivity, sin2_integral_worth_values)
{
    pcs_reactivity_rod_bank b = rt_bank();
    cr_expect_eq(pcs_reactivity_rod_worth_fraction(&b, 0.0), 0.0);
    cr_expect_leq(fabs(pcs_reactivity_rod_worth_fraction(&b, 1.0) - 1.0), 1e-15);
    cr_expect_leq(fabs(pcs_reactivity_rod_worth_fraction(&b, 0.5) - 0.5), 1e-15);
    /* F(1/4) = 1/4 - sin(pi/2)/(2 pi) = 0.25 - 0.1591549430918953 */
    cr_expect_leq(fabs(pcs_reactivity_rod_worth_fraction(&b, 0.25) - 0.0908450569081047), 1e-15);
    cr_expect_leq(fabs(pcs_reactivity_rod_reactivity(&b, 0.0) + 0.00788), 1e-18, "fully inserted = -W");
    cr_expect_eq(pcs_reactivity_rod_reactivity(&b, 1.0) == 0.0 || fabs(pcs_reactivity_rod_reactivity(&b, 1.0)) < 1e-18,
                 1);
    cr_expect_eq(pcs_reactivity_rod_worth_fraction(&b, -0.5), 0.0, "positions clamp to [0, 1]");
    /* Differential worth 2 sin^2(pi x) peaks mid-core: the middle tenth of
     * travel is worth more than the bottom tenth. */
    double mid = pcs_reactivity_rod_worth_fraction(&b, 0.55) - pcs_reactivity_rod_worth_fraction(&b, 0.45);
    double bottom = pcs_reactivity_rod_worth_fraction(&b, 0.1);
    cr_expect_gt(mid, 10.0 * bottom);
}

Test(reactivity, table_curve_interpolates_linearly)
{
    pcs_reactivity_rod_bank b = rt_bank();
    b.curve = PCS_REACTIVITY_ROD_CURVE_TABLE;
    b.n_points = 3;
    b.table_pos[0] = 0.0, b.table_pos[1] = 0.4, b.table_pos[2] = 1.0;
    b.table_frac[0] = 0.0, b.table_frac[1] = 0.2, b.table_frac[2] = 1.0;
    cr_assert_eq(pcs_reactivity_rod_bank_validate(&b, 0), PCS_OK);
    cr_expect_leq(fabs(pcs_reactivity_rod_worth_fraction(&b, 0.2) - 0.1), 1e-15);
    cr_expect_leq(fabs(pcs_reactivity_rod_worth_fraction(&b, 0.4) - 0.2), 1e-15);
    cr_expect_leq(fabs(pcs_reactivity_rod_worth_fraction(&b, 0.7) - 0.6), 1e-15);
    cr_expect_leq(fabs(pcs_reactivity_rod_worth_fraction(&b, 1.0) - 1.0), 1e-15);
}

Test(reactivity, drive_moves_at_speed_and_stops_on_command)
{
    /* 0.01 travel/s for 0.05 s = 5e-4 per tick. */
    cr_expect_leq(fabs(pcs_reactivity_rod_drive(0.5, 0.6, 0.01, 0.05) - 0.5005), 1e-15);
    cr_expect_leq(fabs(pcs_reactivity_rod_drive(0.5, 0.4, 0.01, 0.05) - 0.4995), 1e-15);
    cr_expect_eq(pcs_reactivity_rod_drive(0.5999, 0.6, 0.01, 0.05), 0.6, "no overshoot");
    cr_expect_eq(pcs_reactivity_rod_drive(0.5, 0.5, 0.01, 0.05), 0.5);
    cr_expect_eq(pcs_reactivity_rod_drive(0.9999, 2.0, 0.01, 0.05), 1.0, "clamped to the top");
    double pos = 0.0;
    for (int k = 0; k < 1999; k++) /* 99.95 s at 0.01/s: not yet at the top */
        pos = pcs_reactivity_rod_drive(pos, 1.0, 0.01, 0.05);
    cr_expect_lt(pos, 1.0);
    pos = pcs_reactivity_rod_drive(pos, 1.0, 0.01, 0.05);
    pos = pcs_reactivity_rod_drive(pos, 1.0, 0.01, 0.05); /* one spare tick for the summed rounding */
    cr_expect_eq(pos, 1.0);
}

Test(reactivity, gravity_drop_follows_free_fall_law)
{
    /* Full-stroke drop time chosen so that 85 % of travel takes 2.7 s
     * (tests/refdata/pwr_plant.md: [TS] LCO 3.1.3.3 and [SalemFSAR]). */
    double t_drop = 2.7 / sqrt(0.85);
    cr_expect_leq(fabs(pcs_reactivity_rod_drop(1.0, 2.7, t_drop) - 0.15), 1e-12);
    cr_expect_eq(pcs_reactivity_rod_drop(1.0, 0.0, t_drop), 1.0);
    cr_expect_eq(pcs_reactivity_rod_drop(0.7, -1.0, t_drop), 0.7);
    cr_expect_eq(pcs_reactivity_rod_drop(1.0, t_drop, t_drop), 0.0);
    cr_expect_eq(pcs_reactivity_rod_drop(1.0, 10.0, t_drop), 0.0, "stops at the bottom");
    /* A half-withdrawn bank reaches the bottom after t_drop sqrt(0.5). */
    cr_expect_leq(pcs_reactivity_rod_drop(0.5, t_drop * sqrt(0.5) + 1e-9, t_drop), 1e-9);
}

Test(reactivity, feedback_terms)
{
    pcs_reactivity_feedback_params f = {
        .doppler_form = PCS_DOPPLER_SQRT,
        .doppler_coef = -1.5e-3,
        .t_fuel_ref_k = 900.0,
        .mtc_per_k = -3.15e-5,
        .t_mod_ref_k = 580.0,
        .boron_per_ppm = -1e-4,
        .boron_ref_ppm = 975.0,
    };
    cr_assert_eq(pcs_reactivity_feedback_validate(&f), PCS_OK);
    /* sqrt(1024) - sqrt(900) = 32 - 30 = 2 */
    cr_expect_leq(fabs(pcs_reactivity_feedback_doppler(&f, 1024.0) + 3.0e-3), 1e-18);
    cr_expect_eq(pcs_reactivity_feedback_doppler(&f, 900.0), 0.0);
    cr_expect_leq(fabs(pcs_reactivity_feedback_moderator(&f, 590.0) + 3.15e-4), 1e-16);
    cr_expect_leq(fabs(pcs_reactivity_feedback_boron(&f, 985.0) + 1e-3), 1e-16);
    f.doppler_form = PCS_DOPPLER_LINEAR;
    f.doppler_coef = -2.5e-5;
    cr_expect_leq(fabs(pcs_reactivity_feedback_doppler(&f, 1000.0) + 2.5e-3), 1e-16);
}

Test(reactivity, bad_banks_and_coefficients_are_rejected_with_their_name)
{
    pcs_reactivity_rod_bank b = rt_bank();
    b.initial_pos = 1.2;
    cr_expect_eq(pcs_reactivity_rod_bank_validate(&b, 3), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "rods[3] ('D').initial_pos") != NULL, "%s",
              pcs_last_error());
    b = rt_bank();
    b.worth = -0.001;
    cr_expect_eq(pcs_reactivity_rod_bank_validate(&b, 0), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "worth") != NULL, "%s", pcs_last_error());
    b = rt_bank();
    b.speed_per_s = 0.0;
    cr_expect_eq(pcs_reactivity_rod_bank_validate(&b, 0), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "speed_per_s") != NULL, "%s", pcs_last_error());
    b = rt_bank();
    strcpy(b.name, "a.b");
    cr_expect_eq(pcs_reactivity_rod_bank_validate(&b, 0), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "name") != NULL, "%s", pcs_last_error());
    b = rt_bank();
    b.curve = PCS_REACTIVITY_ROD_CURVE_TABLE;
    b.n_points = 2;
    b.table_pos[1] = 1.0;
    b.table_frac[1] = 0.9;
    cr_expect_eq(pcs_reactivity_rod_bank_validate(&b, 0), PCS_E_INVAL);

    pcs_reactivity_feedback_params f = {.t_fuel_ref_k = 200.0, .t_mod_ref_k = 580.0};
    cr_expect_eq(pcs_reactivity_feedback_validate(&f), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "feedback.t_fuel_ref_k") != NULL, "%s", pcs_last_error());
    f.t_fuel_ref_k = 900.0;
    f.mtc_per_k = NAN;
    cr_expect_eq(pcs_reactivity_feedback_validate(&f), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "mtc_per_k") != NULL, "%s", pcs_last_error());
}
