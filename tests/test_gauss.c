/**
 * @file test_gauss.c
 * @brief Ziggurat normal sampler: table geometry, moments, tail
 *        probabilities against the normal distribution, and a KS test.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "physics/instrumentation/kernels/gauss.h"

Test(gauss, layers_have_equal_area_and_close_at_zero)
{
    pcs_gauss_table t;
    pcs_gauss_table_init(&t);
    /* Every layer 1..N-1 has area v by construction... */
    for (uint32_t i = 1; i + 1 < PCS_GAUSS_LAYERS; i++)
        cr_assert_float_eq(t.x[i] * (t.f[i + 1] - t.f[i]), PCS_GAUSS_V, 1e-15, "layer %u", i);
    /* ...and Marsaglia-Tsang's (r, v) make the top layer, whose ceiling is
     * f(0) = 1, also have area v: the ziggurat closes at x = 0. The published
     * constants have 13 digits and the recursion amplifies their rounding, so
     * the closure holds to about 1.2e-9 relative. */
    double top = t.x[PCS_GAUSS_LAYERS - 1] * (1.0 - t.f[PCS_GAUSS_LAYERS - 1]);
    cr_assert_float_eq(top, PCS_GAUSS_V, 5e-9 * PCS_GAUSS_V);
    /* The base layer: rectangle r f(r) plus the tail integral
     * sqrt(pi/2) erfc(r / sqrt 2) equals v as well. */
    double base = PCS_GAUSS_R * t.f[1] + sqrt(M_PI / 2.0) * erfc(PCS_GAUSS_R / sqrt(2.0));
    cr_assert_float_eq(base, PCS_GAUSS_V, 1e-14 * PCS_GAUSS_V);
}

#define N_SAMPLES 1000000

static double *draw(uint64_t seed, uint32_t n)
{
    static pcs_gauss_table t;
    pcs_gauss_table_init(&t);
    pcs_rng rng;
    pcs_rng_seed(&rng, seed, 7, 3);
    double *z = malloc(n * sizeof *z);
    cr_assert_not_null(z);
    for (uint32_t i = 0; i < n; i++)
        z[i] = pcs_gauss_sample(&t, &rng);
    return z;
}

Test(gauss, moments_match_the_standard_normal)
{
    double *z = draw(42, N_SAMPLES);
    double sum = 0.0, sq = 0.0, q4 = 0.0;
    for (uint32_t i = 0; i < N_SAMPLES; i++) {
        sum += z[i];
        sq += z[i] * z[i];
        q4 += z[i] * z[i] * z[i] * z[i];
    }
    double n = N_SAMPLES, mean = sum / n, var = sq / n - mean * mean;
    /* Five standard errors: sd(mean) = 1/sqrt(n); sd(var) = sqrt(2/n);
     * sd(E z^4) = sqrt((105 - 9)/n) (moments 4 and 8 of N(0,1) are 3 and 105). */
    cr_assert(fabs(mean) < 5.0 / sqrt(n), "mean %g", mean);
    cr_assert(fabs(var - 1.0) < 5.0 * sqrt(2.0 / n), "variance %g", var);
    cr_assert(fabs(q4 / n - 3.0) < 5.0 * sqrt(96.0 / n), "fourth moment %g", q4 / n);
    free(z);
}

static void expect_tail(const double *z, double c, double p_two_sided)
{
    uint32_t hits = 0;
    for (uint32_t i = 0; i < N_SAMPLES; i++)
        hits += fabs(z[i]) > c;
    double p = (double)hits / N_SAMPLES;
    double se = sqrt(p_two_sided * (1.0 - p_two_sided) / N_SAMPLES);
    cr_assert(fabs(p - p_two_sided) < 5.0 * se, "P(|z| > %g) = %g, want %g", c, p, p_two_sided);
}

Test(gauss, tail_probabilities_match_the_normal_table)
{
    /* Two-sided tail areas 2(1 - Phi(c)) = erfc(c / sqrt 2) of N(0,1) (cf.
     * Abramowitz & Stegun, Table 26.1):
     * 1 -> 0.317310507862914, 2 -> 0.045500263896358, 3 -> 0.002699796063260,
     * 3.5 -> 0.000465258158. |z| > 3.5 lies beyond r = 3.4426, so the tail path
     * (layer 0) is exercised. */
    double *z = draw(5, N_SAMPLES);
    expect_tail(z, 1.0, 0.317310507862914);
    expect_tail(z, 2.0, 0.045500263896358);
    expect_tail(z, 3.0, 0.002699796063260);
    expect_tail(z, 3.5, 0.000465258158071);
    free(z);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

Test(gauss, kolmogorov_smirnov_accepts_the_normal_cdf)
{
    const uint32_t n = 100000;
    double *z = draw(99, n);
    qsort(z, n, sizeof *z, cmp_double);
    double d = 0.0;
    for (uint32_t i = 0; i < n; i++) {
        double cdf = 0.5 * erfc(-z[i] / sqrt(2.0));
        double lo = cdf - (double)i / n, hi = (double)(i + 1) / n - cdf;
        d = fmax(d, fmax(lo, hi));
    }
    /* Critical value at the 1 % level: 1.628 / sqrt(n) (asymptotic KS). */
    cr_assert(d < 1.628 / sqrt((double)n), "KS statistic %g", d);
    free(z);
}

Test(gauss, same_stream_same_deviates)
{
    double *a = draw(11, 1000), *b = draw(11, 1000), *c = draw(12, 1000);
    int differ = 0;
    for (uint32_t i = 0; i < 1000; i++) {
        cr_assert_eq(a[i], b[i]);
        differ += a[i] != c[i];
    }
    cr_assert_gt(differ, 990, "another seed gives another sequence");
    free(a);
    free(b);
    free(c);
}
