/**
 * @file math.h
 * @brief pcs_math: the one door through which simulation code reaches libm.
 *
 * Determinism (docs/ARCHITECTURE.md section 7) needs every transcendental call to go
 * through one place, so that a platform whose libm differs can be given a
 * correctly rounded or vendored implementation without touching any model.
 * Today each function forwards to the C library of the build machine, which is
 * deterministic for one binary on one machine (the contract's scope).
 * All functions are pure and thread-safe.
 */
#ifndef PCSIM_MATH_H
#define PCSIM_MATH_H

#include "pcsim/export.h"

#ifdef __cplusplus
extern "C" {
#endif

PCS_API double pcs_exp(double x);
PCS_API double pcs_expm1(double x);
PCS_API double pcs_log(double x);
PCS_API double pcs_log1p(double x);
PCS_API double pcs_pow(double x, double y);
PCS_API double pcs_sqrt(double x);
PCS_API double pcs_cbrt(double x);
PCS_API double pcs_sin(double x);
PCS_API double pcs_cos(double x);
PCS_API double pcs_tan(double x);
PCS_API double pcs_atan(double x);
PCS_API double pcs_atan2(double y, double x);
PCS_API double pcs_tanh(double x);
PCS_API double pcs_fabs(double x);
PCS_API double pcs_floor(double x);
PCS_API double pcs_ceil(double x);
PCS_API double pcs_round(double x);
PCS_API double pcs_fmin(double a, double b);
PCS_API double pcs_fmax(double a, double b);
PCS_API double pcs_clamp(double x, double lo, double hi);
PCS_API int pcs_isfinite(double x);

/** pi to double precision. */
#define PCS_PI 3.14159265358979323846

#ifdef __cplusplus
}
#endif

#endif
