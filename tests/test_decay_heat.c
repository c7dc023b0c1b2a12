/**
 * @file test_decay_heat.c
 * @brief Decay heat against the P_d/P_0 values of tests/refdata/decay_heat.md section 4.
 *
 * Section 4's values were computed by the refdata author from the ANS-5.1
 * coefficients of section 1 (ANSI/ANS-5.1-1979 Table 7; ANSI/ANS-5.1-2004
 * U-235), Q = 200 MeV, fission products only unless stated. They are given to
 * five decimals, so the tolerance is half a unit in the last place (5e-6).
 * Cooling is stepped at the FAST step, 0.05 s, to one hour, then at 100 s
 * (the update is exact for any step at zero power).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/decay_heat.h"

#define DHT_YEAR_S (365.25 * 86400.0)
#define DHT_TOL 5e-6

static const double dht_times[6] = {1.0, 10.0, 100.0, 1000.0, 3600.0, 86400.0};

/* P_d/P_0 at dht_times after operating t_op at P_0 = 1 W, by stepping. */
static void dht_cooldown(const pcs_decay_heat_params *p, double t_op, double *out, int fp_only)
{
    pcs_decay_heat_model fast, slow;
    cr_assert_eq(pcs_decay_heat_model_init(p, 0.05, &fast), PCS_OK);
    cr_assert_eq(pcs_decay_heat_model_init(p, 100.0, &slow), PCS_OK);
    double d[PCS_DECAY_HEAT_GROUPS];
    pcs_decay_heat_operate(&fast, 1.0, t_op, d);
    long tick = 0;
    double t = 0.0;
    for (int j = 0; j < 6; j++) {
        while (t < dht_times[j] - 1e-9) {
            if (t < 3600.0 - 1e-9) {
                pcs_decay_heat_step(&fast, 0.0, d);
                tick++;
                t = (double)tick * 0.05;
            } else {
                pcs_decay_heat_step(&slow, 0.0, d);
                t += 100.0;
            }
        }
        out[j] = fp_only ? pcs_decay_heat_power_fp(d)
                         : pcs_decay_heat_power(d) - pcs_decay_heat_power_fp(d);
    }
}

static void dht_check(const char *what, const double *got, const double *want)
{
    for (int j = 0; j < 6; j++)
        cr_expect_leq(fabs(got[j] - want[j]), DHT_TOL, "%s at t = %g s: %.6f, table %.5f", what,
                      dht_times[j], got[j], want[j]);
}

static pcs_decay_heat_params dht_params(pcs_decay_heat_dataset set, double r)
{
    pcs_decay_heat_params p;
    pcs_decay_heat_params_default(&p);
    p.dataset = set;
    p.u239_per_fission = r;
    return p;
}

Test(decay_heat, ans1979_infinite_irradiation)
{
    /* decay_heat.md section 4, column "ANS-1979, T=inf" (T = 1e13 s). */
    static const double want[6] = {0.06156, 0.04747, 0.03099, 0.01898, 0.01310, 0.00504};
    pcs_decay_heat_params p = dht_params(PCS_DECAY_HEAT_ANS_1979, 0.0);
    double got[6];
    dht_cooldown(&p, PCS_DECAY_HEAT_T_INFINITE_S, got, 1);
    dht_check("ANS-1979 T=inf", got, want);
}

Test(decay_heat, ans1979_one_year)
{
    /* decay_heat.md section 4, column "ANS-1979, T=1 y" (365.25 d). */
    static const double want[6] = {0.06078, 0.04669, 0.03021, 0.01820, 0.01231, 0.00426};
    pcs_decay_heat_params p = dht_params(PCS_DECAY_HEAT_ANS_1979, 0.0);
    double got[6];
    dht_cooldown(&p, DHT_YEAR_S, got, 1);
    dht_check("ANS-1979 T=1y", got, want);
}

Test(decay_heat, ans2004_infinite_irradiation)
{
    /* decay_heat.md section 4, column "ANS-2004, T=inf". */
    static const double want[6] = {0.06189, 0.04748, 0.03101, 0.01900, 0.01311, 0.00506};
    pcs_decay_heat_params p = dht_params(PCS_DECAY_HEAT_ANS_2004, 0.0);
    double got[6];
    dht_cooldown(&p, PCS_DECAY_HEAT_T_INFINITE_S, got, 1);
    dht_check("ANS-2004 T=inf", got, want);
}

Test(decay_heat, ans2004_one_year)
{
    /* decay_heat.md section 4, column "ANS-2004, T=1 y". */
    static const double want[6] = {0.06109, 0.04668, 0.03021, 0.01820, 0.01231, 0.00426};
    pcs_decay_heat_params p = dht_params(PCS_DECAY_HEAT_ANS_2004, 0.0);
    double got[6];
    dht_cooldown(&p, DHT_YEAR_S, got, 1);
    dht_check("ANS-2004 T=1y", got, want);
}

Test(decay_heat, heavy_elements_one_year)
{
    /* decay_heat.md section 4, second table, column "P_HE/P_0" (ANS-2004
     * corrections, T = 1 y, R = 0.6): U-239 + Np-239 decay power. */
    static const double want[6] = {0.00268, 0.00267, 0.00261, 0.00213, 0.00149, 0.00094};
    pcs_decay_heat_params p = dht_params(PCS_DECAY_HEAT_ANS_2004, 0.6);
    double got[6];
    dht_cooldown(&p, DHT_YEAR_S, got, 0);
    dht_check("U-239 + Np-239", got, want);
}

Test(decay_heat, stepping_through_operation_matches_closed_form)
{
    /* One year at constant power in 1 h steps, then the table's 1 y column. */
    pcs_decay_heat_params p = dht_params(PCS_DECAY_HEAT_ANS_2004, 0.6);
    pcs_decay_heat_model hour, m;
    cr_assert_eq(pcs_decay_heat_model_init(&p, 3600.0, &hour), PCS_OK);
    cr_assert_eq(pcs_decay_heat_model_init(&p, 0.05, &m), PCS_OK);
    double d[PCS_DECAY_HEAT_GROUPS] = {0}, ref[PCS_DECAY_HEAT_GROUPS];
    for (int h = 0; h < 8766; h++) /* 365.25 d */
        pcs_decay_heat_step(&hour, 1.0, d);
    pcs_decay_heat_operate(&m, 1.0, DHT_YEAR_S, ref);
    for (uint32_t i = 0; i < PCS_DECAY_HEAT_GROUPS; i++)
        cr_expect_leq(fabs(d[i] - ref[i]), 1e-12 * fabs(ref[i]) + 1e-18, "group %u: %.15g vs %.15g",
                      i, d[i], ref[i]);
    for (int k = 0; k < 20; k++) /* 1 s of cooling */
        pcs_decay_heat_step(&m, 0.0, d);
    cr_expect_leq(fabs(pcs_decay_heat_power_fp(d) - 0.06109), DHT_TOL);
}

Test(decay_heat, saturated_fraction_of_fission_power)
{
    /* decay_heat.md section 1: sum alpha_i/lambda_i / 200 MeV = 0.0659 (1979)
     * and 0.0673 (2004); the heavy elements add (0.474 + 0.419) R / 200. */
    pcs_decay_heat_model m;
    pcs_decay_heat_params p = dht_params(PCS_DECAY_HEAT_ANS_1979, 0.0);
    pcs_decay_heat_model_init(&p, 0.05, &m);
    cr_expect_leq(fabs(m.saturated_fraction - 0.0659), 5e-5, "%.6f", m.saturated_fraction);
    p = dht_params(PCS_DECAY_HEAT_ANS_2004, 0.0);
    pcs_decay_heat_model_init(&p, 0.05, &m);
    cr_expect_leq(fabs(m.saturated_fraction - 0.0673), 5e-5, "%.6f", m.saturated_fraction);
    double fp = m.saturated_fraction;
    p = dht_params(PCS_DECAY_HEAT_ANS_2004, 0.6);
    pcs_decay_heat_model_init(&p, 0.05, &m);
    cr_expect_leq(fabs(m.saturated_fraction - fp - 0.893 * 0.6 / 200.0), 1e-15);
}

Test(decay_heat, saturated_state_is_steady_at_constant_power)
{
    /* Saturation (operation for ever, not the ANS 1e13 s) is a fixed point. */
    pcs_decay_heat_params p = dht_params(PCS_DECAY_HEAT_ANS_2004, 0.6);
    pcs_decay_heat_model m;
    pcs_decay_heat_model_init(&p, 0.05, &m);
    double d[PCS_DECAY_HEAT_GROUPS];
    pcs_decay_heat_operate(&m, 3.4e9, 1e300, d);
    double p0 = pcs_decay_heat_power(d);
    cr_expect_leq(fabs(p0 / 3.4e9 - m.saturated_fraction), 1e-15);
    for (int k = 0; k < 10000; k++)
        pcs_decay_heat_step(&m, 3.4e9, d);
    cr_expect_leq(fabs(pcs_decay_heat_power(d) / p0 - 1.0), 1e-13, "%.3e",
                  pcs_decay_heat_power(d) / p0 - 1.0);
}

Test(decay_heat, bad_parameters_are_rejected_with_their_name)
{
    pcs_decay_heat_params p;
    pcs_decay_heat_model m;
    pcs_decay_heat_params_default(&p);
    p.q_mev = 0.0;
    cr_expect_eq(pcs_decay_heat_model_init(&p, 0.05, &m), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "q_mev") != NULL, "%s", pcs_last_error());
    pcs_decay_heat_params_default(&p);
    p.u239_per_fission = -0.1;
    cr_expect_eq(pcs_decay_heat_params_validate(&p), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "u239_per_fission") != NULL, "%s", pcs_last_error());
    pcs_decay_heat_params_default(&p);
    p.dataset = (pcs_decay_heat_dataset)7;
    cr_expect_eq(pcs_decay_heat_params_validate(&p), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "dataset") != NULL, "%s", pcs_last_error());
    pcs_decay_heat_params_default(&p);
    cr_expect_eq(pcs_decay_heat_model_init(&p, 0.0, &m), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "h_s") != NULL, "%s", pcs_last_error());
}
