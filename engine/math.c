/**
 * @file math.c
 * @brief The pcs_math facade: every transcendental call of the simulation.
 *
 * Kept out of line on purpose: one symbol per function is the seam where a
 * correctly rounded implementation can replace libm for cross-machine
 * determinism without touching models. Built with -ffp-contract=off like all
 * simulation code.
 */
#include <math.h>

#include "pcsim/math.h"

/*
 * The libm forwards, one line each: X(public name, libm function). Every one is
 * the same body, so a list states them and one macro writes them out; a
 * replacement for one function takes its line out of the list.
 */
#define PCS_MATH_LIBM_1(X)                                                                         \
    X(pcs_exp, exp)                                                                                \
    X(pcs_expm1, expm1)                                                                            \
    X(pcs_log, log)                                                                                \
    X(pcs_log1p, log1p)                                                                            \
    X(pcs_sqrt, sqrt)                                                                              \
    X(pcs_cbrt, cbrt)                                                                              \
    X(pcs_sin, sin)                                                                                \
    X(pcs_cos, cos)                                                                                \
    X(pcs_tan, tan)                                                                                \
    X(pcs_atan, atan)                                                                              \
    X(pcs_tanh, tanh)                                                                              \
    X(pcs_fabs, fabs)                                                                              \
    X(pcs_floor, floor)                                                                            \
    X(pcs_ceil, ceil)                                                                              \
    X(pcs_round, round)

/* Two arguments, in libm's order (pcs_atan2(y, x) is atan2(y, x)). */
#define PCS_MATH_LIBM_2(X)                                                                         \
    X(pcs_pow, pow)                                                                                \
    X(pcs_atan2, atan2)                                                                            \
    X(pcs_fmin, fmin)                                                                              \
    X(pcs_fmax, fmax)

#define PCS_MATH_DEFINE_1(name, libm)                                                              \
    double name(double x)                                                                          \
    {                                                                                              \
        return libm(x);                                                                            \
    }
#define PCS_MATH_DEFINE_2(name, libm)                                                              \
    double name(double a, double b)                                                                \
    {                                                                                              \
        return libm(a, b);                                                                         \
    }

PCS_MATH_LIBM_1(PCS_MATH_DEFINE_1)
PCS_MATH_LIBM_2(PCS_MATH_DEFINE_2)

double pcs_clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

int pcs_isfinite(double x)
{
    return isfinite(x) ? 1 : 0;
}
