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

double pcs_exp(double x)
{
    return exp(x);
}

double pcs_expm1(double x)
{
    return expm1(x);
}

double pcs_log(double x)
{
    return log(x);
}

double pcs_log1p(double x)
{
    return log1p(x);
}

double pcs_pow(double x, double y)
{
    return pow(x, y);
}

double pcs_sqrt(double x)
{
    return sqrt(x);
}

double pcs_cbrt(double x)
{
    return cbrt(x);
}

double pcs_sin(double x)
{
    return sin(x);
}

double pcs_cos(double x)
{
    return cos(x);
}

double pcs_tan(double x)
{
    return tan(x);
}

double pcs_atan(double x)
{
    return atan(x);
}

double pcs_atan2(double y, double x)
{
    return atan2(y, x);
}

double pcs_tanh(double x)
{
    return tanh(x);
}

double pcs_fabs(double x)
{
    return fabs(x);
}

double pcs_floor(double x)
{
    return floor(x);
}

double pcs_ceil(double x)
{
    return ceil(x);
}

double pcs_round(double x)
{
    return round(x);
}

double pcs_fmin(double a, double b)
{
    return fmin(a, b);
}

double pcs_fmax(double a, double b)
{
    return fmax(a, b);
}

double pcs_clamp(double x, double lo, double hi)
{
    return x < lo ? lo : (x > hi ? hi : x);
}

int pcs_isfinite(double x)
{
    return isfinite(x) ? 1 : 0;
}
