/**
 * @file stats.c
 * @brief Statistics as JMH reports them: mean, sample stddev, the 99.9 % Student-t
 *        confidence half-width, and percentiles with JMH's estimator.
 *
 * Error. JMH's score error is the half-width of the two-sided 99.9 % confidence
 * interval of the mean: t(1 - 0.001/2, N-1) * s / sqrt(N), where s is the
 * sample standard deviation over all N measurement iterations of all forks;
 * NaN for N <= 2 (JMH AbstractStatistics.getMeanErrorAt).
 *
 * Student t quantile. The CDF of t with v degrees of freedom, for t >= 0, is
 * 1 - I_x(v/2, 1/2) / 2 with x = v / (v + t^2) (Abramowitz & Stegun 26.7.1),
 * where I is the regularized incomplete beta function, evaluated by its
 * continued fraction (A&S 26.5.8) with the modified Lentz method; the quantile
 * is found by bisection. Checked against table values in the self-test.
 *
 * Percentiles. JMH (via Apache Commons Math's default "legacy" estimator)
 * takes pos = p (N + 1) / 100 on the sorted data, interpolates between the
 * values at floor(pos) and floor(pos) + 1 (1-based), and clamps to min / max.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/harness_internal.h"

const double bench_pct_levels[10] = {0.0,  50.0,  90.0,   95.0,    99.0,
                                     99.9, 99.99, 99.999, 99.9999, 100.0};

double bench_mean(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (double)n;
}

double bench_stddev(const double *x, size_t n)
{
    if (n < 2)
        return NAN;
    double m = bench_mean(x, n), v = 0.0;
    for (size_t i = 0; i < n; i++)
        v += (x[i] - m) * (x[i] - m);
    return sqrt(v / (double)(n - 1));
}

/* Continued fraction of the incomplete beta function (A&S 26.5.8), modified Lentz. */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double f = 1.0, c = 1.0, d = 0.0;
    for (int j = 1; j <= 10000; j++) {
        int m = j / 2;
        double dj;
        if (j % 2 == 0)
            dj = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        else
            dj = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1.0 + dj * d;
        d = fabs(d) < tiny ? tiny : d;
        c = 1.0 + dj / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1.0 / d;
        double delta = c * d;
        f *= delta;
        if (fabs(delta - 1.0) < eps)
            break;
    }
    return 1.0 / f;
}

/* Regularized incomplete beta I_x(a, b). */
static double inc_beta(double a, double b, double x)
{
    if (x <= 0.0)
        return 0.0;
    if (x >= 1.0)
        return 1.0;
    double ln_front = a * log(x) + b * log1p(-x) - (lgamma(a) + lgamma(b) - lgamma(a + b));
    if (x < (a + 1.0) / (a + b + 2.0))
        return exp(ln_front) * beta_cf(a, b, x) / a;
    return 1.0 - exp(ln_front) * beta_cf(b, a, 1.0 - x) / b;
}

static double t_cdf(double t, double dof)
{
    double x = dof / (dof + t * t);
    double tail = 0.5 * inc_beta(dof / 2.0, 0.5, x);
    return t >= 0.0 ? 1.0 - tail : tail;
}

double bench_t_quantile(double p, double dof)
{
    if (!(p > 0.0 && p < 1.0) || !(dof > 0.0))
        return NAN;
    if (p < 0.5)
        return -bench_t_quantile(1.0 - p, dof);
    double lo = 0.0, hi = 1.0;
    while (t_cdf(hi, dof) < p && hi < 1e12)
        hi *= 2.0;
    for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (t_cdf(mid, dof) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double bench_error_999(const double *x, size_t n)
{
    if (n <= 2)
        return NAN;
    double t = bench_t_quantile(1.0 - (1.0 - 0.999) / 2.0, (double)(n - 1));
    return t * bench_stddev(x, n) / sqrt((double)n);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_sort(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
}

double bench_percentile(double *sorted, size_t n, double p)
{
    if (n == 0)
        return NAN;
    double pos = p * ((double)n + 1.0) / 100.0;
    if (pos < 1.0)
        return sorted[0];
    if (pos >= (double)n)
        return sorted[n - 1];
    double fpos = floor(pos);
    size_t k = (size_t)fpos; /* 1-based index of the lower value */
    return sorted[k - 1] + (pos - fpos) * (sorted[k] - sorted[k - 1]);
}

/* Value at 1-based rank k of the data the bins expand to. */
static double bin_value_at(const sample_bin *bins, size_t nb, uint64_t k)
{
    uint64_t seen = 0;
    for (size_t i = 0; i < nb; i++) {
        seen += bins[i].count;
        if (k <= seen)
            return (double)bins[i].value_ns;
    }
    return nb ? (double)bins[nb - 1].value_ns : NAN;
}

double bench_bins_percentile(const sample_bin *bins, size_t nb, uint64_t total, double p)
{
    if (total == 0)
        return NAN;
    double pos = p * ((double)total + 1.0) / 100.0;
    if (pos < 1.0)
        return bin_value_at(bins, nb, 1);
    if (pos >= (double)total)
        return bin_value_at(bins, nb, total);
    double fpos = floor(pos);
    uint64_t k = (uint64_t)fpos;
    double lo = bin_value_at(bins, nb, k), hi = bin_value_at(bins, nb, k + 1);
    return lo + (pos - fpos) * (hi - lo);
}

static int near(const char *what, double got, double want, double rel)
{
    int ok = fabs(got - want) <= rel * fabs(want);
    printf("  %-44s %.6g (want %.6g) %s\n", what, got, want, ok ? "ok" : "FAIL");
    return ok;
}

int bench_stats_selftest(void)
{
    int ok = 1;
    /* Student t two-sided 99.9 % critical values (e.g. NIST/SEMATECH e-Handbook
     * 1.3.6.7.2, column 0.9995); dof 1 is exactly tan(0.4995 pi). */
    ok &= near("t(0.9995, 1)", bench_t_quantile(0.9995, 1), 636.619, 1e-5);
    ok &= near("t(0.9995, 4)", bench_t_quantile(0.9995, 4), 8.610, 1e-3);
    ok &= near("t(0.9995, 9)", bench_t_quantile(0.9995, 9), 4.781, 1e-3);
    ok &= near("t(0.9995, 29)", bench_t_quantile(0.9995, 29), 3.659, 1e-3);
    ok &= near("t(0.975, 10)", bench_t_quantile(0.975, 10), 2.228, 1e-3);
    ok &= near("t(0.9995, 1e6) -> z(0.9995)", bench_t_quantile(0.9995, 1e6), 3.2905, 1e-3);
    /* Hand-computed: x = 1..5, mean 3, s = sqrt(2.5), t(0.9995, 4) = 8.6103. */
    double x[5] = {1, 2, 3, 4, 5};
    ok &= near("error_999(1..5)", bench_error_999(x, 5), 8.6103 * sqrt(2.5) / sqrt(5.0), 1e-3);
    /* Legacy estimator: pos = 50 * 6 / 100 = 3 -> 3; pos(90) = 5.4 -> clamps to 5;
     * pos(25) = 1.5 -> 1.5. */
    ok &= near("percentile 50 of 1..5", bench_percentile(x, 5, 50.0), 3.0, 1e-12);
    ok &= near("percentile 90 of 1..5", bench_percentile(x, 5, 90.0), 5.0, 1e-12);
    ok &= near("percentile 25 of 1..5", bench_percentile(x, 5, 25.0), 1.5, 1e-12);
    sample_bin bins[3] = {{10, 2}, {20, 2}, {30, 1}}; /* 10 10 20 20 30 */
    ok &= near("bins percentile 50", bench_bins_percentile(bins, 3, 5, 50.0), 20.0, 1e-12);
    ok &= near("bins percentile 25", bench_bins_percentile(bins, 3, 5, 25.0), 10.0, 1e-12);
    ok &=
        near("bins percentile 70 (pos 4.2)", bench_bins_percentile(bins, 3, 5, 70.0), 22.0, 1e-12);
    return ok ? 0 : 1;
}
