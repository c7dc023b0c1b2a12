/**
 * @file test_if97_kernels.c
 * @brief The hand-written power products of the hot IF97 equations match the
 *        {I, J} exponents of their coefficient tables.
 *
 * Regions 1 and 2 and the region 1 backward T(p,h) build x^I y^J by explicit
 * multiplication chains instead of looping over the table (for speed). This
 * test recomputes every product with pow() from the table's own exponents at
 * seeded random points and requires agreement to 64 ulp: a wrong power in a
 * small term could hide below the 9 digits of the verification tables, but not
 * here. Also checks the shared constant IF97_PS13.
 */
#include <criterion/criterion.h>
#include <math.h>

#include "physics/water/kernels/if97_internal.h"
#include "pcsim/rng.h"

typedef void (*products_fn)(double x, double y, double *a);

static void kern_check(const char *name, products_fn fn, const if97_term *t, int nt, double x_lo,
                       double x_hi, double y_lo, double y_hi)
{
    pcs_rng rng;
    pcs_rng_seed(&rng, 97u, 0u, 0u);
    double a[64];
    for (int trial = 0; trial < 2000; trial++) {
        const double x = x_lo + (x_hi - x_lo) * pcs_rng_uniform(&rng);
        const double y = y_lo + (y_hi - y_lo) * pcs_rng_uniform(&rng);
        fn(x, y, a);
        for (int k = 0; k < nt; k++) {
            const double want = pow(x, t[k].i) * pow(y, t[k].j);
            cr_assert(fabs(a[k] - want) <= 64.0 * 2.2e-16 * fabs(want),
                      "%s term %d (I=%d, J=%d) at x=%.17g y=%.17g: %.17g vs %.17g", name, k, t[k].i,
                      t[k].j, x, y, a[k], want);
        }
    }
}

/* Region 1: x = 7.1 - pi in [7.1 - 100/16.53, 7.1], y = tau - 1.222 for T in [273.15, 623.15]. */
Test(if97_kernels, region1_products_match_table2_exponents)
{
    kern_check("region 1", if97_r1_products, if97_r1_terms, 34, 7.1 - 100.0 / 16.53, 7.1,
               1386.0 / 623.15 - 1.222, 1386.0 / 273.15 - 1.222);
}

/* Region 2: pi in (0, 100], y = tau - 0.5 for T in [273.15, 1073.15]. */
Test(if97_kernels, region2_products_match_table11_exponents)
{
    kern_check("region 2", if97_r2_products, if97_r2_res_terms, 43, 1e-3, 100.0,
               540.0 / 1073.15 - 0.5, 540.0 / 273.15 - 0.5);
}

/* Region 1 T(p,h): pi in (0, 100], y = eta + 1 for h in [0, 1.7 MJ/kg]. */
Test(if97_kernels, region1_tph_products_match_table6_exponents)
{
    kern_check("region 1 T(p,h)", if97_r1_tph_products, if97_r1_tph_terms, 20, 1e-3, 100.0, 1.0,
               1.0 + 1700.0 / 2500.0);
}

/* The dispatch splits at this constant; it must be Eq. 30 at 623.15 K exactly. */
Test(if97_kernels, ps13_is_the_saturation_pressure_at_623_15_K)
{
    cr_assert_eq(IF97_PS13, if97_psat(IF97_T13));
    cr_assert(fabs(IF97_PS13 - if97_b23_p(IF97_T13)) < 1e-9 * IF97_PS13,
              "B23 and the saturation line meet at 623.15 K");
}
