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
 *   ln x = k ln 2 + ln m, m in [sqrt(1/2), sqrt(2)) from the exponent bits;
 *   ln m = 2 atanh(s), s = (m - 1)/(m + 1), |s| <= 0.1716: the odd series
 *          to s^21 (the first term left out is below 1.2e-18 of the sum);
 *   y = 0.4 ln x; e^y = 2^n e^r, n = round(y / ln 2), |r| <= 0.347: Taylor
 *          to r^13 (the remainder is below 4e-18), 2^n from the exponent bits.
 *
 * Error against the correctly rounded x^0.4: the argument y carries about
 * 2 ulp of |y| (at most 277), so the relative error is at most ~1e-14 at the
 * ends of the range and ~2e-16 near x = 1; tests/test_fuel_pow.c measures
 * it against pcs_pow over the whole range and asserts PCS_POW04_REL_ERR.
 * Dittus-Boelter itself is good to about +-25 %, so the fit's error is
 * thirteen orders of magnitude below the correlation's.
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
/** Bound on |pcs_pow04(x) / x^0.4 - 1| over [X_MIN, DBL_MAX] (see the file comment). */
#define PCS_POW04_REL_ERR 2e-14

static inline uint64_t pcs_pow04_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline double pcs_pow04_double(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/** The argument clamped into pcs_pow04's range (NaN to PCS_POW04_X_MIN).
 *  Apply it in a loop of its own: in the same loop body as pcs_pow04, gcc
 *  folds the series at the constant into a branch, and the loop no longer
 *  vectorises. */
static inline double pcs_pow04_arg(double x)
{
    return x >= PCS_POW04_X_MIN ? x : PCS_POW04_X_MIN;
}

/** x^0.4 for x in [PCS_POW04_X_MIN, DBL_MAX] (see the file comment); above
 *  that range, +inf included, the bit arithmetic still holds (k <= 1024). */
static inline double pcs_pow04(double x)
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
    double p = 1.0 / 21.0;
    p = p * z + 1.0 / 19.0;
    p = p * z + 1.0 / 17.0;
    p = p * z + 1.0 / 15.0;
    p = p * z + 1.0 / 13.0;
    p = p * z + 1.0 / 11.0;
    p = p * z + 1.0 / 9.0;
    p = p * z + 1.0 / 7.0;
    p = p * z + 1.0 / 5.0;
    p = p * z + 1.0 / 3.0;
    p = p * z + 1.0;
    /* ln 2 split so that k ln2_hi is exact for |k| < 2^11. */
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    double y = 0.4 * (k * ln2_hi + (2.0 * s * p + k * ln2_lo));
    /* e^y: n = round(y / ln 2) by the 1.5 2^52 shift (exact for |y| < 2^50). */
    const double shift = 6755399441055744.0; /* 1.5 * 2^52 */
    double nd = y * 1.44269504088896338700 + shift;
    uint64_t nb = pcs_pow04_bits(nd); /* low bits: n, two's complement */
    nd -= shift;
    double r = (y - nd * ln2_hi) - nd * ln2_lo;
    double e = 1.0 / 6227020800.0; /* 1/13! */
    e = e * r + 1.0 / 479001600.0;
    e = e * r + 1.0 / 39916800.0;
    e = e * r + 1.0 / 3628800.0;
    e = e * r + 1.0 / 362880.0;
    e = e * r + 1.0 / 40320.0;
    e = e * r + 1.0 / 5040.0;
    e = e * r + 1.0 / 720.0;
    e = e * r + 1.0 / 120.0;
    e = e * r + 1.0 / 24.0;
    e = e * r + 1.0 / 6.0;
    e = e * r + 0.5;
    e = e * r + 1.0;
    e = e * r + 1.0;
    /* 2^n: (n + 1023) in the exponent field; |n| <= 400 here. */
    double scale = pcs_pow04_double((nb + 1023u) << 52);
    return e * scale;
}

#endif
