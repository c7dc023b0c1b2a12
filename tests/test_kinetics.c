/**
 * @file test_kinetics.c
 * @brief Point kinetics against published benchmark solutions, at the FAST step.
 *
 * Reference values are transcribed from tests/refdata/point_kinetics.csv;
 * each carries the table it comes from. All runs use dt = 0.05 s steps.
 * Ganapol = B.D. Ganapol, Ann. Nucl. Energy 62 (2013), benchmark tables 1-4.
 * Keepin = G.R. Keepin, Physics of Nuclear Kinetics (1965), Table 4-7 data.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "pcsim/kinetics.h"
#include "pcsim/math.h"

#define KT_DT 0.05

/* THERMAL_I / THERMAL_II / THERMAL_III / FAST_1G data sets of point_kinetics.csv. */
static void kt_thermal_1(pcs_kinetics_params *p)
{
    static const double lam[6] = {0.0127, 0.0317, 0.115, 0.311, 1.40, 3.87};
    static const double b[6] = {0.000285, 0.0015975, 0.00141, 0.0030525, 0.00096, 0.000195};
    memset(p, 0, sizeof *p);
    p->n_groups = 6;
    memcpy(p->lambda, lam, sizeof lam);
    memcpy(p->beta, b, sizeof b);
    p->generation_time_s = 5e-4;
}

static void kt_thermal_2(pcs_kinetics_params *p)
{
    static const double lam[6] = {0.0127, 0.0317, 0.115, 0.311, 1.40, 3.87};
    static const double b[6] = {0.000266, 0.001491, 0.001316, 0.002849, 0.000896, 0.000182};
    memset(p, 0, sizeof *p);
    p->n_groups = 6;
    memcpy(p->lambda, lam, sizeof lam);
    memcpy(p->beta, b, sizeof b);
    p->generation_time_s = 2e-5;
}

static void kt_thermal_3(pcs_kinetics_params *p)
{
    static const double lam[6] = {0.0124, 0.0305, 0.111, 0.301, 1.13, 3.00};
    static const double b[6] = {0.00021, 0.00141, 0.00127, 0.00255, 0.00074, 0.00027};
    memset(p, 0, sizeof *p);
    p->n_groups = 6;
    memcpy(p->lambda, lam, sizeof lam);
    memcpy(p->beta, b, sizeof b);
    p->generation_time_s = 5e-5;
}

static void kt_fast_1g(pcs_kinetics_params *p)
{
    memset(p, 0, sizeof *p);
    p->n_groups = 1;
    p->lambda[0] = 0.077;
    p->beta[0] = 0.0079;
    p->generation_time_s = 1e-8;
}

static double kt_rel(double x, double ref)
{
    return fabs(x / ref - 1.0);
}

/* Ticks for a time given in seconds (all table times are whole ticks). */
static long kt_ticks(double t)
{
    return lround(t / KT_DT);
}

Test(kinetics, ganapol_table1c_step_one_dollar)
{
    /* Ganapol (2013) Table 1c, THERMAL_I, Lambda = 5e-4 s, +1 $ step. */
    static const struct {
        double t, n;
    } ref[] = {
        {0.1, 2.5157661414043723e+00},   {0.5, 1.0362533810640215e+01},
        {1.0, 3.2183540945534212e+01},   {10.0, 3.2469788980305281e+09},
        {100.0, 2.5964846465508731e+89},
    };
    pcs_kinetics_params p;
    kt_thermal_1(&p);
    cr_assert_eq(pcs_kinetics_params_validate(&p), PCS_OK);
    double rho = pcs_kinetics_beta_total(&p);
    pcs_kinetics_modes m = {0};
    double y[7];
    pcs_kinetics_equilibrium(&p, 1.0, y);
    long tick = 0;
    for (size_t j = 0; j < sizeof ref / sizeof ref[0]; j++) {
        for (; tick < kt_ticks(ref[j].t); tick++)
            cr_assert_eq(pcs_kinetics_step_const(&p, &m, rho, KT_DT, y, NULL), PCS_OK);
        /* Exact propagator: agreement to rounding; 1e-4 is the bar. */
        cr_expect_lt(kt_rel(y[0], ref[j].n), 1e-10, "t = %g: n = %.15g, Table 1c %.15g", ref[j].t,
                     y[0], ref[j].n);
    }
    cr_expect_eq(m.solves, 1, "constant rho must reuse the decomposition (%llu solves)",
                 (unsigned long long)m.solves);
}

Test(kinetics, ganapol_table2b_ramp)
{
    /* Ganapol (2013) Table 2b, THERMAL_II, Lambda = 2e-5 s, rho = 0.1 beta t. */
    static const struct {
        double t, n;
    } ref[] = {
        {2.0, 1.338200050e+00}, {4.0, 2.228441897e+00},  {6.0, 5.582052449e+00},
        {8.0, 4.278629573e+01}, {10.0, 4.511636239e+05}, {11.0, 1.792213607e+16},
    };
    pcs_kinetics_params p;
    kt_thermal_2(&p);
    double beta = pcs_kinetics_beta_total(&p);
    pcs_kinetics_modes m = {0};
    double y[7];
    pcs_kinetics_equilibrium(&p, 1.0, y);
    long tick = 0;
    for (size_t j = 0; j < sizeof ref / sizeof ref[0]; j++) {
        for (; tick < kt_ticks(ref[j].t); tick++) {
            double r0 = 0.1 * beta * (double)tick * KT_DT;
            double r1 = 0.1 * beta * (double)(tick + 1) * KT_DT;
            /* 0.005 $ per step: four sub-steps of at most 1e-5 in rho. */
            uint32_t ns = pcs_kinetics_substeps(r0, r1, 1e-5);
            cr_assert_eq(pcs_kinetics_step(&p, &m, r0, r1, KT_DT, ns, y, NULL), PCS_OK);
        }
        cr_expect_lt(kt_rel(y[0], ref[j].n), 1e-3, "t = %g: n = %.10g, Table 2b %.10g", ref[j].t,
                     y[0], ref[j].n);
    }
}

static double kt_sine_rho(double t)
{
    return 0.0053333 * sin(PCS_PI * t / 50.0);
}

Test(kinetics, ganapol_table3a_sine)
{
    /* Ganapol (2013) Table 3a, FAST_1G (one group, Lambda = 1e-8 s),
     * rho(t) = 0.0053333 sin(pi t / 50): n at t = 10, 20, ..., 100 s. */
    static const double ref[10] = {
        2.065383519e+00, 8.854133921e+00, 4.064354222e+01, 6.135607517e+01, 4.610628770e+01,
        2.912634840e+01, 1.895177042e+01, 1.393829211e+01, 1.253353406e+01, 1.544816514e+01};
    pcs_kinetics_params p;
    kt_fast_1g(&p);
    pcs_kinetics_modes m = {0};
    double y[2];
    pcs_kinetics_equilibrium(&p, 1.0, y);
    for (long tick = 0; tick < 2000; tick++) {
        double r0 = kt_sine_rho((double)tick * KT_DT), r1 = kt_sine_rho((double)(tick + 1) * KT_DT);
        cr_assert_eq(
            pcs_kinetics_step(&p, &m, r0, r1, KT_DT, pcs_kinetics_substeps(r0, r1, 1e-5), y, NULL),
            PCS_OK);
        if ((tick + 1) % 200 == 0) {
            double r = ref[(tick + 1) / 200 - 1];
            cr_expect_lt(kt_rel(y[0], r), 1e-4, "t = %g: n = %.10g, Table 3a %.10g",
                         (double)(tick + 1) * KT_DT, y[0], r);
        }
    }
}

Test(kinetics, ganapol_table3b_sine_peak)
{
    /* Ganapol (2013) Table 3b: peak of the sine case at t = 39.10712 s, n = 61.53015.
     * The peak is located by a parabola through the three step samples around
     * the largest one (0.05 s apart; the peak's curvature scale is ~10 s). */
    pcs_kinetics_params p;
    kt_fast_1g(&p);
    pcs_kinetics_modes m = {0};
    double y[2], nh[3] = {0.0, 0.0, 0.0}, best_t = 0.0, best_n = 0.0;
    pcs_kinetics_equilibrium(&p, 1.0, y);
    for (long tick = 0; tick < 2000; tick++) {
        double r0 = kt_sine_rho((double)tick * KT_DT), r1 = kt_sine_rho((double)(tick + 1) * KT_DT);
        pcs_kinetics_step(&p, &m, r0, r1, KT_DT, pcs_kinetics_substeps(r0, r1, 1e-5), y, NULL);
        nh[0] = nh[1];
        nh[1] = nh[2];
        nh[2] = y[0];
        if (nh[1] > nh[0] && nh[1] >= nh[2] && nh[1] > best_n) {
            double off = 0.5 * KT_DT * (nh[0] - nh[2]) / (nh[0] - 2.0 * nh[1] + nh[2]);
            best_t = (double)tick * KT_DT + off;
            best_n = nh[1] - 0.25 * (nh[0] - nh[2]) * off / KT_DT;
        }
    }
    cr_expect_lt(fabs(best_t - 39.10712), 2e-4, "t_peak %.6f, Table 3b 39.10712", best_t);
    cr_expect_lt(kt_rel(best_n, 61.53015), 1e-4, "n_peak %.7f, Table 3b 61.53015", best_n);
}

Test(kinetics, ganapol_table4_adiabatic_feedback)
{
    /* Ganapol (2013) Tables 4a/4c, THERMAL_III, Lambda = 5e-5 s: rho = 1 $ - B W,
     * W = int n dt, B = 2.5e-6. Table 4a values are truncated (tests/refdata/README.md):
     * one unit in the last published digit is allowed, above the value. */
    static const struct {
        double t, n, unit;
    } ref[] = {{10.0, 132.038, 1e-3}, {50.0, 12.779, 1e-3}, {100.0, 3.55, 1e-2}};
    const double B = 2.5e-6;
    const uint32_t ns = 64; /* sub-steps per 0.05 s step: h = 0.78 ms */
    pcs_kinetics_params p;
    kt_thermal_3(&p);
    double beta = pcs_kinetics_beta_total(&p);
    pcs_kinetics_modes m = {0};
    double y[7], w = 0.0;
    pcs_kinetics_equilibrium(&p, 1.0, y);
    double n_hist[3] = {1.0, 1.0, 1.0}, best_n = 0.0, best_t = 0.0;
    size_t j = 0;
    double h = KT_DT / ns;
    for (long tick = 0; tick < 2000; tick++) {
        for (uint32_t s = 0; s < ns; s++) {
            /* Predictor-corrector on the energy: rho runs linearly from
             * rho0 - B W to rho0 - B (W + int n) over the sub-step. */
            double r0 = beta - B * w, ys[7], integral = y[0] * h;
            memcpy(ys, y, sizeof y);
            for (int it = 0; it < 3; it++) {
                memcpy(y, ys, sizeof y);
                cr_assert_eq(pcs_kinetics_step(&p, &m, r0, r0 - B * integral, h, 1, y, &integral),
                             PCS_OK);
            }
            w += integral;
            n_hist[0] = n_hist[1];
            n_hist[1] = n_hist[2];
            n_hist[2] = y[0];
            if (n_hist[1] > n_hist[0] && n_hist[1] >= n_hist[2] && n_hist[1] > best_n) {
                /* Parabola through the three samples around the maximum. */
                double t1 = (double)tick * KT_DT + (double)s * h;
                double den = n_hist[0] - 2.0 * n_hist[1] + n_hist[2];
                double off = 0.5 * h * (n_hist[0] - n_hist[2]) / den;
                best_t = t1 + off;
                best_n = n_hist[1] - 0.25 * (n_hist[0] - n_hist[2]) * off / h;
            }
        }
        if (j < 3 && kt_ticks(ref[j].t) == tick + 1) {
            cr_expect(y[0] >= ref[j].n && y[0] < ref[j].n + ref[j].unit,
                      "t = %g: n = %.7f, Table 4a %g (+%g)", ref[j].t, y[0], ref[j].n, ref[j].unit);
            j++;
        }
    }
    /* Table 4c: peak 807.8681 at 0.953477 s. Second-order sub-steps of 0.78 ms
     * reach 1e-5 relative on the peak and 1e-4 s on its time. */
    cr_expect_lt(kt_rel(best_n, 807.8681), 1e-5, "n_peak %.5f, Table 4c 807.8681", best_n);
    cr_expect_lt(fabs(best_t - 0.953477), 1e-4, "t_peak %.6f, Table 4c 0.953477", best_t);
}

/* Keepin-data step cases: independent high-precision solutions ("computed"
 * column of point_kinetics.csv; no published table), the inhour stable period
 * and the closed-form prompt jump. */
typedef struct kt_keepin_case {
    double gen, dollars;
    double n1, n10, n60, period;
} kt_keepin_case;

static const kt_keepin_case kt_keepin[] = {
    {2e-5, 0.1, 1.14781046589, 1.342264281247, 2.345092973787, 98.59307147563},
    {2e-5, -1.0, 0.4327611797097, 0.2401967894506, 0.06450925204597, -83.90413927763},
    {1e-4, 0.1, 1.146829377315, 1.341111574896, 2.341292862935, 98.75103950082},
    {1e-4, -1.0, 0.433415192675, 0.2403933536538, 0.06454117036456, -83.90471589214},
};

Test(kinetics, keepin_steps_match_reference_solutions)
{
    for (size_t c = 0; c < sizeof kt_keepin / sizeof kt_keepin[0]; c++) {
        const kt_keepin_case *k = &kt_keepin[c];
        pcs_kinetics_params p;
        cr_assert_eq(pcs_kinetics_params_keepin_u235(&p, k->gen), PCS_OK);
        double rho = k->dollars * pcs_kinetics_beta_total(&p);
        pcs_kinetics_modes m = {0};
        double y[7];
        pcs_kinetics_equilibrium(&p, 1.0, y);
        for (long tick = 1; tick <= 1200; tick++) {
            pcs_kinetics_step_const(&p, &m, rho, KT_DT, y, NULL);
            double want = tick == 20 ? k->n1 : tick == 200 ? k->n10 : tick == 1200 ? k->n60 : 0;
            if (want > 0.0)
                cr_expect_lt(kt_rel(y[0], want), 1e-10, "Lambda %g, %g $, t = %g: n %.13g vs %.13g",
                             k->gen, k->dollars, (double)tick * KT_DT, y[0], want);
        }
        double omega[7];
        cr_assert_eq(pcs_kinetics_inhour_roots(&p, rho, omega), PCS_OK);
        cr_expect_lt(kt_rel(1.0 / omega[0], k->period), 1e-11, "inhour period %.13g vs %.13g",
                     1.0 / omega[0], k->period);
    }
}

Test(kinetics, stable_period_from_transient_matches_inhour)
{
    /* Keepin data, Lambda = 1e-4 s, rho = 0.002: point_kinetics.csv gives the inhour
     * period 17.40360326199 s (computed), 17.404 s (arredondojullianjoseph
     * README, one unit in the last digit) and 17.40354567726 s for the
     * period measured from ln n between 100 and 200 s. */
    pcs_kinetics_params p;
    pcs_kinetics_params_keepin_u235(&p, 1e-4);
    pcs_kinetics_modes m = {0};
    double y[7], n100 = 0.0;
    pcs_kinetics_equilibrium(&p, 1.0, y);
    for (long tick = 1; tick <= 4000; tick++) {
        pcs_kinetics_step_const(&p, &m, 0.002, KT_DT, y, NULL);
        if (tick == 2000)
            n100 = y[0];
    }
    double period = 100.0 / log(y[0] / n100);
    cr_expect_lt(kt_rel(period, 17.40354567726), 1e-9, "transient period %.11f", period);
    double omega[7];
    pcs_kinetics_inhour_roots(&p, 0.002, omega);
    cr_expect_lt(kt_rel(1.0 / omega[0], 17.40360326199), 1e-11);
    cr_expect_lt(fabs(1.0 / omega[0] - 17.404), 1e-3);
}

/* Sum of the delayed (non-prompt) modal amplitudes of y at rho: the level n
 * extrapolates back to once the prompt transient has died out. */
static double kt_prompt_jump(const pcs_kinetics_params *p, double rho)
{
    pcs_kinetics_modes m = {0};
    double y[7];
    pcs_kinetics_equilibrium(p, 1.0, y);
    pcs_kinetics_modes_solve(p, &m, rho);
    double sum = 0.0;
    for (uint32_t k = 0; k < p->n_groups; k++) { /* modes 0..G-1; G is prompt */
        double a = y[0];
        for (uint32_t i = 0; i < p->n_groups; i++)
            a += p->lambda[i] * m.g[k][i] * y[1 + i];
        sum += a * m.norm[k];
    }
    return sum;
}

Test(kinetics, prompt_jump_tends_to_beta_over_beta_minus_rho)
{
    /* Closed form (point_kinetics.csv: beta/(beta - rho) = 1.111111 for 0.1 $, 0.5 for -1 $)
     * holds as Lambda -> 0; the exact jump differs by a term proportional to
     * Lambda, so at Lambda = 1e-6 s it is within 1e-4 and the deviation
     * scales with Lambda (ratio 5 between 1e-4 and 2e-5 s). */
    const double dollars[2] = {0.1, -1.0};
    for (int c = 0; c < 2; c++) {
        pcs_kinetics_params p;
        pcs_kinetics_params_keepin_u235(&p, 1e-6);
        double beta = pcs_kinetics_beta_total(&p), rho = dollars[c] * beta;
        double pj = beta / (beta - rho);
        cr_expect_lt(kt_rel(kt_prompt_jump(&p, rho), pj), 1e-4, "%g $", dollars[c]);
        pcs_kinetics_params_keepin_u235(&p, 1e-4);
        double d1 = kt_prompt_jump(&p, rho) / pj - 1.0;
        pcs_kinetics_params_keepin_u235(&p, 2e-5);
        double d2 = kt_prompt_jump(&p, rho) / pj - 1.0;
        cr_expect(fabs(d1 / d2 - 5.0) < 0.1, "deviation ratio %g for %g $", d1 / d2, dollars[c]);
    }
}

Test(kinetics, zero_reactivity_keeps_power_constant)
{
    pcs_kinetics_params p;
    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    pcs_kinetics_modes m = {0};
    double y[7], y0[7];
    pcs_kinetics_equilibrium(&p, 1.0, y);
    memcpy(y0, y, sizeof y);
    for (long tick = 0; tick < 100000; tick++)
        pcs_kinetics_step_const(&p, &m, 0.0, KT_DT, y, NULL);
    for (int i = 0; i < 7; i++)
        cr_expect_lt(kt_rel(y[i], y0[i]), 1e-11, "y[%d] = %.17g drifted from %.17g", i, y[i],
                     y0[i]);
}

Test(kinetics, scram_power_stays_positive_and_falls)
{
    /* Rods drop over 2 s (-10 $ linearly), then hold; 2000 s. */
    pcs_kinetics_params p;
    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    double beta = pcs_kinetics_beta_total(&p);
    pcs_kinetics_modes m = {0};
    double y[7], prev = 1.0;
    pcs_kinetics_equilibrium(&p, 1.0, y);
    for (long tick = 0; tick < 40000; tick++) {
        double t0 = (double)tick * KT_DT, t1 = t0 + KT_DT;
        double r0 = -10.0 * beta * fmin(t0 / 2.0, 1.0), r1 = -10.0 * beta * fmin(t1 / 2.0, 1.0);
        double integral = -1.0;
        cr_assert_eq(pcs_kinetics_step(&p, &m, r0, r1, KT_DT, pcs_kinetics_substeps(r0, r1, 1e-5),
                                       y, &integral),
                     PCS_OK);
        cr_assert(isfinite(y[0]) && y[0] > 0.0, "n = %g at tick %ld", y[0], tick);
        cr_assert(y[0] < prev, "n rose to %g at tick %ld", y[0], tick);
        cr_assert(integral > 0.0, "int n dt = %g at tick %ld", integral, tick);
        for (int i = 1; i < 7; i++)
            cr_assert(y[i] > 0.0, "C[%d] = %g at tick %ld", i, y[i], tick);
        prev = y[0];
    }
    /* Long after the scram n decays with the longest-lived group's root,
     * e^{omega_0 t}: ratio over the last 100 s. */
    double omega[7], n_end = y[0];
    pcs_kinetics_inhour_roots(&p, -10.0 * beta, omega);
    for (long tick = 0; tick < 2000; tick++)
        pcs_kinetics_step_const(&p, &m, -10.0 * beta, KT_DT, y, NULL);
    cr_expect_lt(kt_rel(y[0] / n_end, exp(omega[0] * 100.0)), 1e-9);
}

Test(kinetics, energy_integral_matches_trapezoid_of_fine_steps)
{
    /* int n dt over a step from the modes vs a 1000-step trapezoid sum. */
    pcs_kinetics_params p;
    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    double rho = 0.3 * pcs_kinetics_beta_total(&p);
    pcs_kinetics_modes m = {0}, mf = {0};
    double y[7], yf[7], integral;
    pcs_kinetics_equilibrium(&p, 1.0, y);
    memcpy(yf, y, sizeof y);
    pcs_kinetics_step_const(&p, &m, rho, KT_DT, y, &integral);
    double sum = 0.0, h = KT_DT / 1000.0;
    for (int s = 0; s < 1000; s++) {
        double n0 = yf[0];
        pcs_kinetics_step_const(&p, &mf, rho, h, yf, NULL);
        sum += 0.5 * h * (n0 + yf[0]);
    }
    /* The prompt jump happens within ~3 ms: trapezoid error ~ h^2 n''/12 ~ 1e-7. */
    cr_expect_lt(kt_rel(integral, sum), 1e-6, "modal %.12g vs trapezoid %.12g", integral, sum);
    cr_expect_lt(kt_rel(y[0], yf[0]), 1e-12);
}

Test(kinetics, inhour_roots_satisfy_equation_in_their_intervals)
{
    pcs_kinetics_params p;
    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    double beta = pcs_kinetics_beta_total(&p);
    const double dollars[] = {-20.0, -10.0, -1.0, -1e-9, 0.0, 1e-9, 0.5, 0.99, 1.0, 2.0};
    for (size_t c = 0; c < sizeof dollars / sizeof dollars[0]; c++) {
        double rho = dollars[c] * beta, w[7];
        cr_assert_eq(pcs_kinetics_inhour_roots(&p, rho, w), PCS_OK);
        for (int k = 0; k < 7; k++) {
            /* Residual against the size of the terms it is computed from. */
            double s = p.generation_time_s, scale = p.generation_time_s;
            for (int i = 0; i < 6; i++) {
                s += p.beta[i] / (w[k] + p.lambda[i]);
                scale += fabs(p.beta[i] / (w[k] + p.lambda[i]));
            }
            double resid = w[k] * s - rho;
            cr_expect_leq(fabs(resid), 1e-13 * (fabs(w[k]) * scale + fabs(rho)),
                          "%g $ root %d residual %g", dollars[c], k, resid);
            double hi = k == 0 ? INFINITY : -p.lambda[k - 1];
            double lo = k == 6 ? -INFINITY : -p.lambda[k];
            cr_expect(w[k] > lo && w[k] < hi, "%g $ root %d = %g outside its interval", dollars[c],
                      k, w[k]);
        }
    }
}

Test(kinetics, warm_and_cold_solves_agree)
{
    pcs_kinetics_params p;
    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    pcs_kinetics_modes warm = {0};
    pcs_kinetics_modes_solve(&p, &warm, 1e-4);
    for (int s = 1; s <= 50; s++) {
        double rho = 1e-4 - 3e-5 * s; /* walks through zero to -1.4e-3 */
        pcs_kinetics_modes cold = {0};
        pcs_kinetics_modes_solve(&p, &warm, rho);
        pcs_kinetics_modes_solve(&p, &cold, rho);
        for (int k = 0; k < 7; k++) {
            cr_expect_leq(fabs(warm.omega[k] - cold.omega[k]), 1e-13 * fabs(cold.omega[k]),
                          "rho %g root %d: warm %.17g cold %.17g", rho, k, warm.omega[k],
                          cold.omega[k]);
            for (int i = 0; i < 6; i++)
                cr_expect_leq(fabs(warm.g[k][i] / cold.g[k][i] - 1.0), 1e-12);
        }
    }
}

Test(kinetics, source_gives_subcritical_multiplication)
{
    /* With source S at rho < 0 the equilibrium is n = -S Lambda / rho. */
    pcs_kinetics_params p;
    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    p.source_per_s = 1e-3;
    double rho = -0.01;
    pcs_kinetics_modes m = {0};
    double y[7] = {0};
    for (long tick = 0; tick < 40000; tick++)
        pcs_kinetics_step_const(&p, &m, rho, KT_DT, y, NULL);
    cr_expect_lt(kt_rel(y[0], -p.source_per_s * p.generation_time_s / rho), 1e-6, "n = %.12g",
                 y[0]);
}

Test(kinetics, bad_parameters_are_rejected_with_their_name)
{
    pcs_kinetics_params p;
    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    p.beta[2] = -0.001;
    cr_expect_eq(pcs_kinetics_params_validate(&p), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "beta[2]") != NULL, "%s", pcs_last_error());

    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    p.generation_time_s = 0.0;
    cr_expect_eq(pcs_kinetics_params_validate(&p), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "generation_time_s") != NULL, "%s", pcs_last_error());

    cr_expect_eq(pcs_kinetics_params_keepin_u235(&p, -1.0), PCS_E_INVAL);

    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    p.lambda[3] = p.lambda[2];
    cr_expect_eq(pcs_kinetics_params_validate(&p), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "lambda[3]") != NULL, "%s", pcs_last_error());

    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    p.n_groups = 0;
    cr_expect_eq(pcs_kinetics_params_validate(&p), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "n_groups") != NULL, "%s", pcs_last_error());
    p.n_groups = PCS_KINETICS_MAX_GROUPS + 1;
    cr_expect_eq(pcs_kinetics_params_validate(&p), PCS_E_INVAL);

    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    p.source_per_s = NAN;
    cr_expect_eq(pcs_kinetics_params_validate(&p), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "source_per_s") != NULL, "%s", pcs_last_error());

    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    pcs_kinetics_modes m = {0};
    double y[7];
    pcs_kinetics_equilibrium(&p, 1.0, y);
    cr_expect_eq(pcs_kinetics_step_const(&p, &m, NAN, KT_DT, y, NULL), PCS_E_INVAL);
    cr_expect_eq(pcs_kinetics_step_const(&p, &m, 0.0, 0.0, y, NULL), PCS_E_INVAL);
    cr_expect_eq(pcs_kinetics_step(&p, &m, 0.0, 0.0, KT_DT, 0, y, NULL), PCS_E_INVAL);
    cr_expect_eq(pcs_kinetics_step(&p, &m, 0.0, INFINITY, KT_DT, 1, y, NULL), PCS_E_INVAL);
    cr_expect_eq(y[0], 1.0, "a refused step must not touch the state");
}

Test(kinetics, substep_count_follows_reactivity_change)
{
    cr_expect_eq(pcs_kinetics_substeps(0.0, 0.0, 1e-5), 1);
    cr_expect_eq(pcs_kinetics_substeps(0.0, 3.5e-5, 1e-5), 4);
    cr_expect_eq(pcs_kinetics_substeps(0.0, -3.5e-5, 1e-5), 4);
    cr_expect_eq(pcs_kinetics_substeps(0.0, 1.0, 1e-5), PCS_KINETICS_MAX_SUBSTEPS);
    cr_expect_eq(pcs_kinetics_substeps(0.0, NAN, 1e-5), PCS_KINETICS_MAX_SUBSTEPS);
    cr_expect_eq(pcs_kinetics_substeps(0.0, 1.0, 0.0), 1);
}

Test(kinetics, frozen_roots_cut_solves_in_a_scram_without_moving_n)
{
    /* -10 $ in 2 s (Keepin, Lambda = 2e-5 s) at the unit's sub-step bound
     * 1e-5: 163 sub-steps per tick. With a root solve per sub-step (before
     * the frozen-root window) n(2 s) = 0.062332206196499873; the window must
     * leave that within 1e-8 while solving at most 8 times a tick. */
    pcs_kinetics_params p;
    pcs_kinetics_params_keepin_u235(&p, 2e-5);
    double beta = pcs_kinetics_beta_total(&p);
    pcs_kinetics_modes m = {0};
    double y[7];
    pcs_kinetics_equilibrium(&p, 1.0, y);
    uint64_t most = 0;
    for (long tick = 0; tick < 40; tick++) {
        double r0 = -5.0 * beta * (double)tick * KT_DT, r1 = r0 - 5.0 * beta * KT_DT;
        uint64_t s0 = m.solves;
        uint32_t ns = pcs_kinetics_substeps(r0, r1, 1e-5);
        cr_assert_eq(ns, 163);
        cr_assert_eq(pcs_kinetics_step(&p, &m, r0, r1, KT_DT, ns, y, NULL), PCS_OK);
        if (tick > 0) /* the first tick also solves from cold */
            most = m.solves - s0 > most ? m.solves - s0 : most;
    }
    cr_expect_leq(most, 8, "%llu root solves in one tick", (unsigned long long)most);
    cr_expect_lt(kt_rel(y[0], 0.062332206196499873), 1e-8, "n(2 s) = %.17g", y[0]);
}
