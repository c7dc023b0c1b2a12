/**
 * @file pow_fixed.h
 * @brief x^0.4 without libm, in plain IEEE arithmetic that compilers
 *        vectorise: Dittus-Boelter's (Re^2 Pr)^0.4 in the fuel sweep's lane
 *        loops (issue 16).
 *
 * Why not pcs_pow: it is an opaque call into libm (about 110 instructions,
 * one rod-node at a time), which stops the lane loop around it from being
 * vectorised; it was 10 % of the fuel's tick. This is exp(0.4 ln x) from
 * two short series, with every step an add, multiply, divide or 64-bit
 * integer operation on the bits of a double: no table, no branch, no
 * rounding-mode or FMA dependence (-ffp-contract=off), so every compiler and
 * every vector width gives the same bits.
 *
 *   x = 2^k m, m in [sqrt(1/2), sqrt(2)) from the exponent bits;
 *   ln m = 2 atanh(s), s = (m - 1)/(m + 1), |s| <= 0.1716: the odd series
 *          to s^21 (the first term left out is below 1.2e-18 of the sum);
 *   2k = 5q + j with j in {-2..2}: x^0.4 = 2^q e^r, r = j ln2/5 + 0.4 ln m,
 *          |r| <= 0.416, e^r by Taylor to r^15 (remainder below 4e-20),
 *          2^q from the exponent bits.
 *
 * Error: only r (small) carries rounding, so the result is within 2.3 ulp
 * of x^(2/5) over the whole range (tests/test_fuel_pow.c measures it
 * against long double powl and asserts PCS_POW04_REL_ERR). pcs_pow(x, 0.4),
 * which the fuel used before, computes x to the double nearest 0.4, which is
 * 5.6e-17 relative above 2/5: it differs from x^(2/5) by 2.2e-17 |ln x|,
 * up to 1.6e-14 at the ends of the range and below 8e-16 for the fuel's
 * Re^2 Pr (< 1e15). Dittus-Boelter itself is good to about +-25 %: the
 * difference is fourteen orders of magnitude below the correlation's.
 *
 * Range: [PCS_POW04_X_MIN, DBL_MAX] (pcs_pow04_arg clamps into it: x below
 * it and NaN become PCS_POW04_X_MIN); +inf gives 2^409.6 (finite). The fuel's film
 * coefficient has a laminar floor (Nu >= 4.36 by default) that is reached
 * long before the lower clamp (1e-200^0.4 = 1e-80), and PCS_FUEL_MDOT_MAX_KG_S
 * keeps Re^2 Pr below ~1e30.
 */
#ifndef PCS_PHYSICS_POW_FIXED_H
#define PCS_PHYSICS_POW_FIXED_H

#include <stdint.h>
#include <string.h>

#define PCS_POW04_X_MIN 1e-200

/* Always inlined: an out-of-line call stops the caller's lane loop from
 * being vectorised, and the fuel's AVX2 and AVX-512 passes (fuel_block.h)
 * need the body compiled for their own instruction set. */
#if defined(__GNUC__) || defined(__clang__)
#define PCS_POW04_INLINE static inline __attribute__((always_inline))
/* The series' loops fully unrolled: a loop left in the caller's lane loop
 * would stop it from being vectorised. */
#define PCS_POW04_UNROLL _Pragma("GCC unroll 16")
#else
#define PCS_POW04_INLINE static inline
#define PCS_POW04_UNROLL
#endif
/** Bound on |pcs_pow04(x) / x^(2/5) - 1| over [X_MIN, DBL_MAX] (2.3 ulp; see the
 *  file comment). */
#define PCS_POW04_REL_ERR 2.5e-16

PCS_POW04_INLINE uint64_t pcs_pow04_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

PCS_POW04_INLINE double pcs_pow04_double(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* ln m = 2 s (1 + z/3 + z^2/5 + ... + z^10/21), z = s^2: the coefficients
 * 1/(2i + 1), highest power first. */
#define PCS_POW04_ATANH_N 11
static const double pcs_pow04_atanh_c[PCS_POW04_ATANH_N] = {
    1.0 / 21.0, 1.0 / 19.0, 1.0 / 17.0, 1.0 / 15.0, 1.0 / 13.0, 1.0 / 11.0,
    1.0 / 9.0,  1.0 / 7.0,  1.0 / 5.0,  1.0 / 3.0,  1.0};

/* e^r, Taylor to r^15 (the remainder is below 4e-20): the coefficients 1/i!,
 * highest power first. */
#define PCS_POW04_EXP_N 16
static const double pcs_pow04_exp_c[PCS_POW04_EXP_N] = {1.0 / 1307674368000.0,
                                                        1.0 / 87178291200.0,
                                                        1.0 / 6227020800.0,
                                                        1.0 / 479001600.0,
                                                        1.0 / 39916800.0,
                                                        1.0 / 3628800.0,
                                                        1.0 / 362880.0,
                                                        1.0 / 40320.0,
                                                        1.0 / 5040.0,
                                                        1.0 / 720.0,
                                                        1.0 / 120.0,
                                                        1.0 / 24.0,
                                                        1.0 / 6.0,
                                                        0.5,
                                                        1.0,
                                                        1.0};

/** The argument clamped into pcs_pow04's range (NaN to PCS_POW04_X_MIN).
 *  Apply it in a loop of its own: in the same loop body as pcs_pow04, gcc
 *  folds the series at the constant into a branch, and the loop no longer
 *  vectorises. */
PCS_POW04_INLINE double pcs_pow04_arg(double x)
{
    return x >= PCS_POW04_X_MIN ? x : PCS_POW04_X_MIN;
}

/** x^0.4 for x in [PCS_POW04_X_MIN, DBL_MAX] (see the file comment); above
 *  that range, +inf included, the bit arithmetic still holds (k <= 1024). */
PCS_POW04_INLINE double pcs_pow04(double x)
{
    /* x = 2^k m with m in [sqrt(1/2), sqrt(2)): k + 1023 is the top bits of
     * the distance of x's bits from sqrt(1/2)'s, offset to stay unsigned. */
    const uint64_t sqrt_half = UINT64_C(0x3fe6a09e667f3bcd), one = UINT64_C(1023) << 52;
    uint64_t bits = pcs_pow04_bits(x);
    uint64_t kb = (bits - sqrt_half + one) >> 52; /* k + 1023, in [1, 2046] */
    double m = pcs_pow04_double(bits - (kb << 52) + one);
    /* k as a double without an int64 conversion (SSE2 has none): 2^52 + kb
     * is exact, so is its difference from 2^52 + 1023. */
    double k = pcs_pow04_double(kb | UINT64_C(0x4330000000000000)) - 4503599627371519.0;
    double s = (m - 1.0) / (m + 1.0), z = s * s;
    double p = pcs_pow04_atanh_c[0]; /* Horner's rule, highest power first */
    PCS_POW04_UNROLL
    for (int i = 1; i < PCS_POW04_ATANH_N; i++)
        p = p * z + pcs_pow04_atanh_c[i];
    double ln_m = 2.0 * s * p;
    /* x^0.4 = 2^q 2^(j/5) m^0.4 with 2k = 5q + j, j in {-2..2}: q by the
     * 1.5 2^52 shift (0.4 k is never within 0.1 of a half), j exact. Only
     * the small r = j ln2/5 + 0.4 ln m (|r| <= 0.416) goes through exp, so
     * the error does not grow with |ln x|. */
    const double shift = 6755399441055744.0; /* 1.5 * 2^52 */
    double qd = 0.4 * k + shift;
    uint64_t qb = pcs_pow04_bits(qd); /* low bits: q, two's complement */
    qd -= shift;
    double j = 2.0 * k - 5.0 * qd;
    /* ln 2 / 5 in two parts; j times either is exact (|j| <= 2). */
    const double ln2_5_hi = 0.13862943611198905, ln2_5_lo = 1.0189208750818381e-17;
    double r = j * ln2_5_hi + (0.4 * ln_m + j * ln2_5_lo);
    double e = pcs_pow04_exp_c[0];
    PCS_POW04_UNROLL
    for (int i = 1; i < PCS_POW04_EXP_N; i++)
        e = e * r + pcs_pow04_exp_c[i];
    /* 2^q: (q + 1023) in the exponent field; |q| <= 410. */
    double scale = pcs_pow04_double((qb + 1023u) << 52);
    return e * scale;
}

#endif
