/**
 * @file test_xenon_long_step.c
 * @brief The exact xenon step stays finite for any step length: the SLOW
 *        step is 20 dt k_slow seconds, up to 1e9 s at the allowed k_slow.
 *
 * Over a step much longer than every half-life the exact solution is the
 * equilibrium at the step's power (issue 12: k_slow from 5e8 gave NaN).
 */
#include <criterion/criterion.h>
#include <math.h>

#include "pcsim/xenon.h"

static void xl_expect_state(const pcs_xenon_state *s, const pcs_xenon_state *want, double tol)
{
    const double *a = &s->iodine, *b = &want->iodine;
    for (int k = 0; k < 6; k++) {
        cr_expect(isfinite(a[k]), "element %d is %g", k, a[k]);
        cr_expect_leq(fabs(a[k] - b[k]), tol * (fabs(b[k]) + 1e-300), "element %d: %.17g vs %.17g",
                      k, a[k], b[k]);
    }
}

Test(xenon_long_step, trip_over_1e9_s_decays_to_a_clean_core_without_nan)
{
    pcs_xenon_params p;
    pcs_xenon_params_default(&p);
    pcs_xenon_state s;
    pcs_xenon_equilibrium(&p, 1.0, &s);
    double sm = s.samarium + s.promethium; /* at zero power all Pm becomes Sm and stays */
    pcs_xenon_step(&p, &s, 0.0, 1e9);
    pcs_xenon_state want = {.samarium = sm, .rho_sm = -p.sigma_sm_cm2 * p.flux_nominal * sm / p.nu};
    xl_expect_state(&s, &want, 1e-12);
}

Test(xenon_long_step, startup_over_1e9_s_reaches_equilibrium_without_nan)
{
    pcs_xenon_params p;
    pcs_xenon_params_default(&p);
    pcs_xenon_state s = {0}, want;
    pcs_xenon_step(&p, &s, 1.0, 1e9);
    pcs_xenon_equilibrium(&p, 1.0, &want);
    xl_expect_state(&s, &want, 1e-12);
}

Test(xenon_long_step, every_power_and_step_length_stays_finite)
{
    pcs_xenon_params p;
    pcs_xenon_params_default(&p);
    const double powers[] = {0.0, 1e-6, 0.1, 1.0, 10.0};
    for (int i = 0; i < 5; i++)
        for (double h = 1.0; h <= 1e12; h *= 10.0) {
            pcs_xenon_state s;
            pcs_xenon_equilibrium(&p, 1.0, &s);
            pcs_xenon_step(&p, &s, powers[i], h);
            const double *a = &s.iodine;
            for (int k = 0; k < 6; k++)
                cr_assert(isfinite(a[k]) && (k >= 4 ? a[k] <= 0.0 : a[k] >= 0.0),
                          "p %g, h %g s: element %d = %g", powers[i], h, k, a[k]);
        }
}
