/**
 * @file test_lumped_heat.c
 * @brief Two-node heat placeholder: steady state, exact energy balance, exact steps.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/lumped_heat.h"

#define LH_P 3.411e9

Test(lumped_heat, steady_state_is_a_fixed_point)
{
    pcs_lumped_heat_params p;
    pcs_lumped_heat_params_pwr(&p, LH_P);
    pcs_lumped_heat_model m;
    cr_assert_eq(pcs_lumped_heat_model_init(&p, 0.05, &m), PCS_OK);
    double t[2], t0[2];
    pcs_lumped_heat_steady(&p, LH_P, t);
    memcpy(t0, t, sizeof t);
    /* Average coolant (565.1 + 599.0)/2 = 582.05 K at full power, and the
     * assumed 373 K fuel-to-coolant difference (lumped_heat.h). */
    cr_expect_leq(fabs(t[1] - 582.05), 1e-9, "T_c %.12f", t[1]);
    cr_expect_leq(fabs(t[0] - (582.05 + 373.0)), 1e-9, "T_f %.12f", t[0]);
    for (int k = 0; k < 10000; k++)
        pcs_lumped_heat_step(&m, LH_P, t);
    cr_expect_leq(fabs(t[0] - t0[0]), 1e-9);
    cr_expect_leq(fabs(t[1] - t0[1]), 1e-9);
}

Test(lumped_heat, adiabatic_energy_balance_closes_each_tick)
{
    /* No flow: C_f T_f + C_c T_c must grow by exactly P h per step. */
    pcs_lumped_heat_params p;
    pcs_lumped_heat_params_pwr(&p, LH_P);
    p.flow_kg_s = 0.0;
    pcs_lumped_heat_model m;
    cr_assert_eq(pcs_lumped_heat_model_init(&p, 0.05, &m), PCS_OK);
    double t[2] = {900.0, 580.0};
    for (int k = 0; k < 200; k++) {
        double e0 = p.fuel_heat_capacity_j_k * t[0] + p.coolant_heat_capacity_j_k * t[1];
        double pw = LH_P * (1.0 + 0.5 * sin(0.1 * k));
        pcs_lumped_heat_step(&m, pw, t);
        double e1 = p.fuel_heat_capacity_j_k * t[0] + p.coolant_heat_capacity_j_k * t[1];
        cr_assert_leq(fabs((e1 - e0) / (pw * 0.05) - 1.0), 1e-9, "tick %d: %.3e", k,
                      (e1 - e0) / (pw * 0.05) - 1.0);
    }
}

Test(lumped_heat, one_long_step_equals_many_short_ones)
{
    pcs_lumped_heat_params p;
    pcs_lumped_heat_params_pwr(&p, LH_P);
    pcs_lumped_heat_model fine, coarse;
    pcs_lumped_heat_model_init(&p, 0.05, &fine);
    pcs_lumped_heat_model_init(&p, 1.0, &coarse);
    double a[2] = {700.0, 570.0}, b[2] = {700.0, 570.0};
    for (int k = 0; k < 20; k++)
        pcs_lumped_heat_step(&fine, 0.5 * LH_P, a);
    pcs_lumped_heat_step(&coarse, 0.5 * LH_P, b);
    cr_expect_leq(fabs(a[0] - b[0]), 1e-9);
    cr_expect_leq(fabs(a[1] - b[1]), 1e-9);
}

Test(lumped_heat, relaxes_to_the_new_steady_state)
{
    /* Fuel time constant C_f/UA ~ 3.1 s: after 100 s only e^-32 of the
     * difference is left. */
    pcs_lumped_heat_params p;
    pcs_lumped_heat_params_pwr(&p, LH_P);
    pcs_lumped_heat_model m;
    pcs_lumped_heat_model_init(&p, 0.05, &m);
    double t[2], want[2];
    pcs_lumped_heat_steady(&p, LH_P, t);
    pcs_lumped_heat_steady(&p, 0.2 * LH_P, want);
    for (int k = 0; k < 2000; k++)
        pcs_lumped_heat_step(&m, 0.2 * LH_P, t);
    cr_expect_leq(fabs(t[0] - want[0]), 1e-6);
    cr_expect_leq(fabs(t[1] - want[1]), 1e-6);
    cr_expect_leq(fabs(pcs_lumped_heat_t_max(&p, want) - (want[1] + 4.1 * (want[0] - want[1]))),
                  1e-12);
}

Test(lumped_heat, bad_parameters_are_rejected_with_their_name)
{
    pcs_lumped_heat_params p;
    pcs_lumped_heat_params_pwr(&p, LH_P);
    p.t_inlet_k = 250.0;
    cr_expect_eq(pcs_lumped_heat_params_validate(&p), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "lumped_heat.t_inlet_k") != NULL, "%s", pcs_last_error());
    pcs_lumped_heat_params_pwr(&p, LH_P);
    p.ua_w_k = 0.0;
    pcs_lumped_heat_model m;
    cr_expect_eq(pcs_lumped_heat_model_init(&p, 0.05, &m), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "ua_w_k") != NULL, "%s", pcs_last_error());
}
