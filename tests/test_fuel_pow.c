/**
 * @file test_fuel_pow.c
 * @brief pcs_pow04 (physics/thermal/kernels/pow_fixed.h), the libm-free
 *        x^0.4 of the fuel's Dittus-Boelter film coefficient: its error
 *        against x^(2/5) over its whole range, its distance from the
 *        pcs_pow(x, 0.4) the fuel used before, and its clamp.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>

#include "pcsim/math.h"
#include "physics/thermal/kernels/pow_fixed.h"

/* Largest relative error of pcs_pow04 over n points log-uniform in
 * [lo, hi] (and hi itself): against x^(2/5) in long double (x86's 64-bit
 * mantissa: 0.4L is within 3e-20 of 2/5, powl within ~1e-19) when
 * exact_exponent, else against pcs_pow(x, 0.4). */
static double worst_rel(double lo, double hi, int n, int exact_exponent)
{
    double worst = 0.0, l0 = log(lo), l1 = log(hi);
    for (int i = 0; i <= n; i++) {
        double x = i == n ? hi : exp(l0 + (l1 - l0) * (double)i / (double)n);
        long double want = exact_exponent ? powl((long double)x, 0.4L) : pcs_pow(x, 0.4);
        double e = (double)fabsl(((long double)pcs_pow04(x) - want) / want);
        if (!(e <= worst)) /* NaN counts */
            worst = e;
    }
    return worst;
}

Test(fuel_pow, within_its_stated_bound_of_x_to_the_two_fifths)
{
    if (LDBL_MANT_DIG < 64)
        cr_skip_test("long double has %d mantissa bits here; the reference needs 64",
                     LDBL_MANT_DIG);
    double e = worst_rel(PCS_POW04_X_MIN, DBL_MAX, 400000, 1);
    cr_assert(e <= PCS_POW04_REL_ERR,
              "pcs_pow04 over [1e-200, DBL_MAX]: worst relative error %.3g against x^(2/5), "
              "bound %.3g",
              e, PCS_POW04_REL_ERR);
}

Test(fuel_pow, near_the_old_pow_where_the_fuel_uses_it)
{
    /* Re^2 Pr of the fuel: Re 1e2-1e7 (near stagnant to 5x a PWR's flow),
     * Pr 0.5-10: 5e3 .. 1e15. pow(x, 0.4) is x^(0.4 + 2.2e-17): apart by
     * 2.2e-17 ln x (< 7.7e-16) plus an ulp each side (pow_fixed.h). */
    double e = worst_rel(5e3, 1e15, 200000, 0);
    cr_assert(e <= 1.2e-15,
              "pcs_pow04 over [5e3, 1e15]: worst relative difference %.3g from pcs_pow(x, 0.4), "
              "bound 1.2e-15",
              e);
    /* And over the whole range: 2.2e-17 x 709 = 1.6e-14 at DBL_MAX. */
    e = worst_rel(PCS_POW04_X_MIN, DBL_MAX, 100000, 0);
    cr_assert(e <= 1.7e-14,
              "pcs_pow04 over [1e-200, DBL_MAX]: worst relative difference %.3g from "
              "pcs_pow(x, 0.4), bound 1.7e-14",
              e);
}

Test(fuel_pow, exact_powers_and_the_clamp)
{
    /* (2^(5k))^0.4 = 2^(2k): the reduction is exact there (m = 1, j = 0),
     * so the result is exact. */
    for (int k = -40; k <= 40; k++) {
        double x = ldexp(1.0, 5 * k), want = ldexp(1.0, 2 * k);
        cr_assert_eq(pcs_pow04(x), want, "pcs_pow04(2^%d) = %.17g, want 2^%d", 5 * k, pcs_pow04(x),
                     2 * k);
    }
    cr_assert_eq(pcs_pow04_arg(NAN), PCS_POW04_X_MIN);
    cr_assert_eq(pcs_pow04_arg(0.0), PCS_POW04_X_MIN);
    cr_assert_eq(pcs_pow04_arg(-5.0), PCS_POW04_X_MIN);
    cr_assert_eq(pcs_pow04_arg(7.5), 7.5);
    /* Past DBL_MAX the bits still decode: finite, not NaN. */
    double inf = pcs_pow04(INFINITY);
    cr_assert(isfinite(inf) && inf > 1e123, "pcs_pow04(inf) = %g", inf);
}
