/**
 * @file kinetics.c
 * @brief Point kinetics stepped exactly through the inhour equation's roots.
 *
 * Why this integrator: the prompt mode decays with omega ~ -(beta - rho)/Lambda,
 * about -300 to -10^6 1/s, while the FAST step is 0.05 s. Any explicit scheme
 * needs ~10^4 sub-steps; implicit low-order schemes are stable but lose the
 * 1e-4 accuracy the benchmarks ask for. For piecewise-constant reactivity the
 * linear system has a closed-form propagator, and its eigen-decomposition is
 * cheap because the eigenvalues are the roots of a scalar monotone function
 * (the inhour equation) and the eigenvectors are explicit in the roots.
 *
 * Root finding: f(w) = w (Lambda + sum beta_i g_i) - rho, g_i = 1/(w + lambda_i),
 * is strictly increasing between consecutive poles -lambda_i and runs from
 * -inf to +inf there, so each interval holds exactly one root. Writing f as
 * w * (...) rather than w Lambda + beta - sum beta_i lambda_i g_i avoids the
 * cancellation near w = 0 that would cap the relative accuracy of a small
 * stable-period root. Newton steps are kept inside the current bracket (else
 * bisection), so convergence is guaranteed; warm-started from the previous
 * reactivity's roots, one or two evaluations suffice (see solve_roots).
 * The roots are continued from solve to solve this way, and between solves
 * frozen (below).
 *
 * Reactivity ramps: a sub-step uses the midpoint reactivity (exponential
 * midpoint rule, second order) plus a first-order correction for the ramp
 * around the midpoint, delta(s) = drho (s/h - 1/2). By variation of constants
 * the ramp adds int_0^h e^{A(h-s)} e_0 delta(s) n(s)/Lambda ds; in modal form
 * mode k gains n_k (drho/Lambda) h (phi2 - phi1/2)(omega_k h) n(s~h). Without
 * it the stiff prompt mode, which relaxes within milliseconds, would end the
 * step in equilibrium with the midpoint reactivity instead of the end one, an
 * O(drho) error in n (2.7e-3 at 0.05 s steps in Ganapol's 0.1 $/s ramp, 6e-7
 * with it). The correction is applied only to decaying modes, whose kernel
 * e^{omega (h - s)} weights the end of the step where n(s) ~ n(h); it is
 * solved implicitly for the corrected n(h), which reproduces the prompt-jump
 * ratio (beta - rho_mid)/(beta - rho_end) in the stiff limit.
 *
 * Frozen roots (issue 16): re-solving the roots for every sub-step whose
 * reactivity moved made the root solve (and the exponentials after it) the
 * whole cost of a tick while rods move: 163 solves per tick in a -10 $ scram
 * at the unit's sub-step bound. Instead a sub-step whose midpoint reactivity
 * is within a window of the cached roots' reactivity (c = rho - m->rho,
 * |c| <= PCS_KINETICS_RHO_FREEZE_TOL) keeps the roots and their step
 * functions, and treats c as a perturbation of the frozen system: by
 * variation of constants mode k gains (c/Lambda) n_k int_0^h
 * e^{omega_k (h - s)} n(s) ds, and with n(s) linear between n(0) and the
 * end value n* that is (c/Lambda) n_k h [(phi1 - phi2) n(0) + phi2 n*]
 * (modes_offset), solved implicitly for n* together with the ramp
 * correction. It is exact to first order in c for every mode, reproduces the
 * prompt mode's quasi-static response in the stiff limit (phi1 ~ phi2 ~
 * -1/z there, so the weight sits on n*), and its error beyond is the linear
 * interpolation's, of order (omega_0 h)^2 c/Lambda: the window therefore
 * narrows as 1/(1 + (omega_0 h / 0.01)^2) (freeze_window), which closes it
 * where the core runs on a short period (near and above prompt critical, the
 * only place the measurements below found a wide window to hurt). A re-solve
 * lands up to a window further along the step's ramp, so one solve serves the
 * sub-steps of twice the window. A run of sub-steps on the same roots stays
 * in modal coordinates (the amplitudes a_k = n_k u_k . y; kin_run), so y is
 * projected and rebuilt once per run instead of once per sub-step, and a
 * sub-step costs O(G) operations instead of O(G^2). Measured against per-sub-step solves on the
 * test cases (tests/test_kinetics.c, bench/README.md): every error is within
 * 10 % of the old one (Ganapol 2b at 11 s 3.6e-4 against 3.2e-4, bar 1e-3;
 * the rest equal or smaller), while the solves per tick fall from 163 to 8 in
 * the scram and from 4 to 0.75 on the 0.1 $/s ramp, and a unit whose rods
 * creep (4e-7 per tick) re-solves once every few hundred ticks.
 *
 * Accuracy: a constant-reactivity step is exact up to rounding (relative
 * ~1e-14 per step); ramps are second order in the sub-step (both checked
 * against the Ganapol and Keepin reference solutions in the tests).
 */
#include <float.h>
#include <string.h>

#include "pcsim/kinetics.h"
#include "pcsim/math.h"

/* Below this exponent e^z is flushed to zero: e^-700 ~ 1e-304 is negligible
 * next to any other mode, and denormal results would slow every later step. */
#define KIN_EXP_FLOOR (-700.0)
#define KIN_MAX_ITER 200
/* Newton stops when its step is below this fraction of the root (see inhour_root). */
#define KIN_NEWTON_RTOL 1e-10

/* |x| and max without the math facade's out-of-line calls: exact operations,
 * not transcendental, and on the hot path of every re-solve. */
static inline double kin_abs(double x)
{
    return x < 0.0 ? -x : x;
}

static inline double kin_max(double a, double b)
{
    return a > b ? a : b;
}

/* x - x is 0 for every finite x and NaN for +-inf and NaN (no fast-math). */
static inline int kin_finite(double x)
{
    return x - x == 0.0;
}

/*
 * Group data padded to PCS_KINETICS_MAX_GROUPS lanes, so that the inner loops of
 * the re-solve and the step have a fixed trip count, which the compiler
 * vectorises at -O2. A padding lane has beta = 0 and lambda = -KIN_PAD_LAMBDA:
 * its pole sits at +1e100, far beyond every root (|omega| <= ~1/Lambda <= 1e12),
 * so its g is finite (~ -1e-100, g^3 still a normal number) and every term it
 * contributes is an exact zero.
 */
#define KIN_LANES PCS_KINETICS_MAX_GROUPS
#define KIN_PAD_LAMBDA 1e100

typedef struct kin_lanes {
    double beta[KIN_LANES];
    double lambda[KIN_LANES];
    double bl[KIN_LANES]; /* beta_i lambda_i */
    double gen;           /* Lambda */
} kin_lanes;

_Static_assert(KIN_LANES == 8, "kin_sum8 adds exactly 8 lanes");

/* Sum of 8 lanes as a fixed balanced tree: deterministic, and 3 dependent
 * additions instead of 8 on the re-solve's critical path. */
static inline double kin_sum8(const double *t)
{
    return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
}

static void kin_lanes_fill(const pcs_kinetics_params *p, kin_lanes *L)
{
    for (uint32_t i = 0; i < KIN_LANES; i++) {
        int used = i < p->n_groups;
        L->beta[i] = used ? p->beta[i] : 0.0;
        L->lambda[i] = used ? p->lambda[i] : -KIN_PAD_LAMBDA;
        L->bl[i] = L->beta[i] * L->lambda[i];
    }
    L->gen = p->generation_time_s;
}

pcs_status pcs_kinetics_params_validate(const pcs_kinetics_params *p)
{
    if (!p)
        return pcs_error_set(PCS_E_INVAL, "kinetics: params is NULL");
    if (p->n_groups < 1 || p->n_groups > PCS_KINETICS_MAX_GROUPS)
        return pcs_error_set(PCS_E_INVAL, "kinetics: n_groups = %u is outside [1, %u]", p->n_groups,
                             PCS_KINETICS_MAX_GROUPS);
    double beta = 0.0;
    for (uint32_t i = 0; i < p->n_groups; i++) {
        if (!kin_finite(p->beta[i]) || p->beta[i] <= 0.0)
            return pcs_error_set(PCS_E_INVAL, "kinetics: beta[%u] = %g must be > 0 and finite", i,
                                 p->beta[i]);
        if (!kin_finite(p->lambda[i]) || p->lambda[i] <= 0.0)
            return pcs_error_set(PCS_E_INVAL,
                                 "kinetics: lambda[%u] = %g 1/s must be > 0 and finite", i,
                                 p->lambda[i]);
        if (i > 0 && !(p->lambda[i] > p->lambda[i - 1] * (1.0 + 1e-9)))
            return pcs_error_set(PCS_E_INVAL,
                                 "kinetics: lambda[%u] = %g 1/s must exceed lambda[%u] = %g "
                                 "(groups sorted by strictly increasing decay constant)",
                                 i, p->lambda[i], i - 1, p->lambda[i - 1]);
        beta += p->beta[i];
    }
    if (beta >= 1.0)
        return pcs_error_set(PCS_E_INVAL, "kinetics: sum of beta = %g must be < 1", beta);
    double gen = p->generation_time_s;
    if (!kin_finite(gen) || gen < 1e-12 || gen > 1.0)
        return pcs_error_set(PCS_E_INVAL,
                             "kinetics: generation_time_s = %g s is outside [1e-12, 1] s", gen);
    if (!kin_finite(p->source_per_s) || p->source_per_s < 0.0)
        return pcs_error_set(PCS_E_INVAL, "kinetics: source_per_s = %g must be >= 0 and finite",
                             p->source_per_s);
    return PCS_OK;
}

pcs_status pcs_kinetics_params_keepin_u235(pcs_kinetics_params *p, double generation_time_s)
{
    /* Keepin (1965) Table 4-7, U-235 thermal fission, via tests/refdata/point_kinetics.csv. */
    static const double lambda[6] = {0.0124, 0.0305, 0.111, 0.301, 1.14, 3.01};
    static const double beta[6] = {0.000215, 0.001424, 0.001274, 0.002568, 0.000748, 0.000273};
    if (!p)
        return pcs_error_set(PCS_E_INVAL, "pcs_kinetics_params_keepin_u235: params is NULL");
    memset(p, 0, sizeof *p);
    p->n_groups = 6;
    for (uint32_t i = 0; i < 6; i++) {
        p->lambda[i] = lambda[i];
        p->beta[i] = beta[i];
    }
    p->generation_time_s = generation_time_s;
    return pcs_kinetics_params_validate(p);
}

double pcs_kinetics_beta_total(const pcs_kinetics_params *p)
{
    double beta = 0.0;
    for (uint32_t i = 0; i < p->n_groups; i++)
        beta += p->beta[i];
    return beta;
}

/* f(w) = w (Lambda + sum beta_i g_i) - rho and f'(w), g_i = 1/(w + lambda_i) into g. */
/* f(w) = w (Lambda + sum beta_i g_i) - rho and f'(w), g_i = 1/(w + lambda_i) into g. */
static void inhour_eval(const kin_lanes *L, double rho, double w, double *restrict g, double *f,
                        double *df)
{
    double ts[KIN_LANES], td[KIN_LANES];
    for (uint32_t i = 0; i < KIN_LANES; i++) {
        g[i] = 1.0 / (w + L->lambda[i]);
        ts[i] = L->beta[i] * g[i];
        td[i] = L->bl[i] * g[i] * g[i];
    }
    *f = w * (L->gen + kin_sum8(ts)) - rho;
    *df = L->gen + kin_sum8(td);
}

/*
 * g_i at x + dx from g_i at x: 1/(x + dx + l) = g/(1 + dx g), expanded to
 * second order. Used only when |dx g| <= ~1e-8, where the truncation
 * (dx g)^3 is far below rounding; saves G divisions per root.
 */
static void g_shift(const double *restrict g, double dx, double *restrict out)
{
    for (uint32_t i = 0; i < KIN_LANES; i++) {
        double e = dx * g[i];
        out[i] = g[i] * (1.0 - e + e * e);
    }
}

/*
 * The single root of f in the open interval (lo, hi), where f increases from
 * -inf to +inf, started at x; g receives 1/(root + lambda_i). lo may be
 * -DBL_MAX, i.e. unbounded (the prompt interval): f is convex there, so Newton
 * from the right never crosses the root, and a step from the left makes lo
 * finite before any bisection needs it.
 */
static double inhour_root(const kin_lanes *L, double rho, double lo, double hi, double x, double *g)
{
    for (int it = 0; it < KIN_MAX_ITER; it++) {
        double f, df, gx[KIN_LANES];
        inhour_eval(L, rho, x, gx, &f, &df);
        if (f == 0.0) {
            memcpy(g, gx, sizeof gx);
            return x;
        }
        if (f < 0.0)
            lo = x;
        else
            hi = x;
        double xn = x - f / df;
        /* Converged: after a Newton step of size d the error is about K d^2,
         * K = |f''/2f'| (at most ~1/distance-to-pole), which for
         * d <= KIN_NEWTON_RTOL |x| is below rounding for every root. Tested
         * before the bracket check: a rounding-level step may land on lo. */
        if (kin_abs(xn - x) <= KIN_NEWTON_RTOL * kin_abs(x) + DBL_MIN) {
            if (!(xn > lo && xn < hi))
                xn = x;
            g_shift(gx, xn - x, g);
            return xn;
        }
        if (!(xn > lo && xn < hi)) /* also catches NaN */
            xn = lo > -DBL_MAX ? 0.5 * (lo + hi) : x - 2.0 * (hi - x);
        x = xn;
        if (hi - lo <= 4.0 * DBL_EPSILON * kin_max(kin_abs(lo), kin_abs(hi)))
            break;
    }
    for (uint32_t i = 0; i < KIN_LANES; i++)
        g[i] = 1.0 / (x + L->lambda[i]);
    return x;
}

/* Bracket of root k (0 = stable-period root, G = prompt root), lambda ascending. */
static void root_bracket(const pcs_kinetics_params *p, double rho, uint32_t k, double *lo,
                         double *hi)
{
    uint32_t G = p->n_groups;
    if (k == 0) {
        /* For w >= 0, f(w) >= w Lambda - rho, so the root is <= rho/Lambda. */
        *lo = rho > 0.0 ? 0.0 : -p->lambda[0];
        *hi = rho > 0.0 ? rho / p->generation_time_s : 0.0;
    } else if (k < G) {
        *lo = -p->lambda[k];
        *hi = -p->lambda[k - 1];
    } else {
        *lo = -DBL_MAX;
        *hi = -p->lambda[G - 1];
    }
}

/* A starting point strictly inside (lo, hi) when there is no usable warm start. */
static double cold_guess(const pcs_kinetics_params *p, double rho, uint32_t k, double lo, double hi)
{
    uint32_t G = p->n_groups;
    double x;
    if (k == 0) {
        /* Small-rho limit of the inhour equation: w = rho / (Lambda + sum beta_i/lambda_i). */
        double s = p->generation_time_s;
        for (uint32_t i = 0; i < G; i++)
            s += p->beta[i] / p->lambda[i];
        x = rho / s;
    } else if (k < G) {
        x = 0.5 * (lo + hi);
    } else {
        /* Prompt root ~ (rho - beta)/Lambda, below the last pole. */
        x = (rho - pcs_kinetics_beta_total(p)) / p->generation_time_s - p->lambda[G - 1];
        if (!(x < hi))
            x = hi - p->lambda[G - 1];
    }
    if (!(x > lo && x < hi))
        x = (lo > -DBL_MAX) ? 0.5 * (lo + hi) : hi - p->lambda[G - 1];
    return x;
}

/*
 * Warm start for root k after a reactivity change d = rho - rho_old. The
 * slope dw/drho = 1/f'(w_old) = norm_old / Lambda is known at the old root,
 * and the solve before it adds a curvature estimate (a quadratic through both
 * points with that slope), so the guess is
 *     w_old + d norm_old / Lambda + c d^2,
 * error O(d^3) when the steps are alike: one evaluation then confirms
 * convergence for the per-tick changes of a running core. The curvature term
 * is used only where it is trustworthy (previous step >= 1e-11, this step at
 * most 8 times longer, term smaller than the linear one); it only affects the
 * start of a safeguarded iteration, never the root it converges to.
 */
static double warm_guess(const kin_lanes *L, const pcs_kinetics_modes *m, uint32_t k, double rho)
{
    double d = rho - m->rho;
    double slope = m->norm[k] / L->gen;
    double guess = m->omega[k] + d * slope;
    double e = m->rho_prev - m->rho;
    if (m->has_prev && kin_abs(e) >= 1e-11 && kin_abs(d) <= 8.0 * kin_abs(e)) {
        double c = (m->omega_prev[k] - m->omega[k] - e * slope) / (e * e);
        double q = c * d * d;
        if (kin_abs(q) <= kin_abs(d * slope))
            guess += q;
    }
    return guess;
}

/* All G + 1 roots and their g rows, warm-started from @p warm when given. */
static void solve_roots(const pcs_kinetics_params *p, double rho, const pcs_kinetics_modes *warm,
                        double *omega, double (*g)[PCS_KINETICS_MAX_GROUPS])
{
    uint32_t G = p->n_groups;
    kin_lanes L;
    kin_lanes_fill(p, &L);
    for (uint32_t k = 0; k <= G; k++) {
        double lo, hi, x = 0.0;
        root_bracket(p, rho, k, &lo, &hi);
        int have = 0;
        if (warm) {
            double w0 = warm->omega[k], w1 = warm_guess(&L, warm, k, rho);
            have = (w1 > lo && w1 < hi) || (w0 > lo && w0 < hi);
            x = (w1 > lo && w1 < hi) ? w1 : w0;
        }
        if (!have)
            x = cold_guess(p, rho, k, lo, hi);
        if (rho == 0.0 && k == 0) { /* the stable root of a critical core is exactly 0 */
            omega[k] = 0.0;
            for (uint32_t i = 0; i < KIN_LANES; i++)
                g[k][i] = 1.0 / L.lambda[i];
        } else {
            omega[k] = inhour_root(&L, rho, lo, hi, x, g[k]);
        }
    }
}

pcs_status pcs_kinetics_inhour_roots(const pcs_kinetics_params *p, double rho, double *omega)
{
    if (!p || !omega)
        return pcs_error_set(PCS_E_INVAL, "pcs_kinetics_inhour_roots: NULL argument");
    if (!kin_finite(rho) || kin_abs(rho) >= 1.0)
        return pcs_error_set(PCS_E_INVAL, "pcs_kinetics_inhour_roots: rho = %g is outside (-1, 1)",
                             rho);
    double g[PCS_KINETICS_MAX_MODES][PCS_KINETICS_MAX_GROUPS];
    solve_roots(p, rho, NULL, omega, g);
    return PCS_OK;
}

pcs_status pcs_kinetics_modes_solve(const pcs_kinetics_params *p, pcs_kinetics_modes *m, double rho)
{
    if (!kin_finite(rho) || kin_abs(rho) >= 1.0)
        return pcs_error_set(PCS_E_INVAL, "kinetics: reactivity %g is outside (-1, 1)", rho);
    uint32_t G = p->n_groups;
    int warm = m->valid && m->n_modes == G + 1;
    pcs_kinetics_modes old;
    if (warm) { /* solve_roots overwrites the roots it starts from */
        memcpy(old.omega, m->omega, sizeof old.omega);
        memcpy(old.omega_prev, m->omega_prev, sizeof old.omega_prev);
        memcpy(old.norm, m->norm, sizeof old.norm);
        old.rho = m->rho;
        old.rho_prev = m->rho_prev;
        old.has_prev = m->has_prev;
    }
    solve_roots(p, rho, warm ? &old : NULL, m->omega, m->g);
    double bl[KIN_LANES]; /* beta_i lambda_i / Lambda, 0 in padding lanes */
    for (uint32_t i = 0; i < KIN_LANES; i++)
        bl[i] = i < G ? p->beta[i] * p->lambda[i] / p->generation_time_s : 0.0;
    for (uint32_t k = 0; k <= G; k++) {
        double t[KIN_LANES]; /* u_k . v_k = 1 + sum (beta_i/Lambda) lambda_i g_ki^2 */
        for (uint32_t i = 0; i < KIN_LANES; i++)
            t[i] = bl[i] * m->g[k][i] * m->g[k][i];
        m->norm[k] = 1.0 / (1.0 + kin_sum8(t));
    }
    if (warm) {
        memcpy(m->omega_prev, old.omega, sizeof m->omega_prev);
        m->rho_prev = old.rho;
    }
    m->has_prev = (uint32_t)warm;
    m->rho = rho;
    m->h_s = 0.0;
    m->valid = 1;
    m->n_modes = G + 1;
    m->solves++;
    return PCS_OK;
}

/*
 * Step functions of one mode, z = omega h, from a single e^z or expm1 call
 * (the transcendental calls dominate a re-solve, so each is made once):
 *   ew = e^z, p1 = h phi1(z), p2 = h^2 phi2(z), ramp weight h (phi2 - phi1/2),
 * with phi1 = (e^z - 1)/z and phi2 = (e^z - 1 - z)/z^2. Near z = 0 the
 * differences cancel, so Taylor series are used there (truncation < 1e-15).
 */
static void mode_step_functions(double z, double h, double *ew, double *p1, double *p2, double *pr)
{
    double f1, f2, fr;
    if (kin_abs(z) < 0.01) {
        f1 = 1.0 + z * (0.5 + z * (1.0 / 6.0 + z * (1.0 / 24.0 + z / 120.0)));
        f2 = 0.5 + z * (1.0 / 6.0 + z * (1.0 / 24.0 + z * (1.0 / 120.0 + z / 720.0)));
        fr = -z * (1.0 / 12.0 + z * (1.0 / 24.0 + z * (1.0 / 80.0 + z / 360.0)));
        *ew = 1.0 + z * f1;
    } else {
        double em1;
        if (z < -0.5) { /* e^z small: take it directly, em1 = e^z - 1 loses nothing */
            *ew = z < KIN_EXP_FLOOR ? 0.0 : pcs_exp(z);
            em1 = *ew - 1.0;
        } else { /* |z| moderate: expm1 keeps em1's relative accuracy */
            em1 = pcs_expm1(z);
            *ew = em1 + 1.0;
        }
        f1 = em1 / z;
        f2 = (em1 - z) / (z * z);
        fr = f2 - 0.5 * f1;
    }
    *p1 = h * f1;
    *p2 = h * h * f2;
    *pr = h * fr;
}

static void modes_set_step(pcs_kinetics_modes *m, double h)
{
    for (uint32_t k = 0; k < m->n_modes; k++) {
        double pr;
        mode_step_functions(m->omega[k] * h, h, &m->ew[k], &m->p1[k], &m->p2[k], &pr);
        /* Only decaying modes: their kernel e^{omega (h - s)} sits at the end of
         * the step, where n(s) ~ n(h), the value the correction uses. */
        m->ramp[k] = m->omega[k] < 0.0 ? m->norm[k] * pr : 0.0;
    }
    m->h_s = h;
}

/*
 * Modal amplitudes of y under m's roots: a_k = n_k (u_k . y) = n_k (n +
 * sum_i g_ki lambda_i C_i). A sub-step maps them to e^{omega_k h} a_k plus
 * the source and the corrections, so a run of sub-steps on the same roots
 * stays in these coordinates and projects and rebuilds once (kin_run).
 */
static void modes_project(const pcs_kinetics_params *p, const pcs_kinetics_modes *m,
                          const double *y, double *a)
{
    uint32_t G = p->n_groups;
    double lc[KIN_LANES]; /* lambda_i C_i, zero in padding lanes */
    for (uint32_t i = 0; i < KIN_LANES; i++)
        lc[i] = i < G ? p->lambda[i] * y[1 + i] : 0.0;
    for (uint32_t k = 0; k <= G; k++) {
        double s = 0.0;
        for (uint32_t i = 0; i < KIN_LANES; i++)
            s += m->g[k][i] * lc[i];
        a[k] = (s + y[0]) * m->norm[k];
    }
}

/* y = sum_k v_k a_k: n = sum a_k, C_i = (beta_i / Lambda) sum_k g_ki a_k. */
static void modes_rebuild(const pcs_kinetics_params *p, const pcs_kinetics_modes *m,
                          const double *a, double *y)
{
    uint32_t G = p->n_groups;
    double n = 0.0, cc[KIN_LANES] = {0.0};
    for (uint32_t k = 0; k <= G; k++) {
        n += a[k];
        for (uint32_t i = 0; i < KIN_LANES; i++)
            cc[i] += m->g[k][i] * a[k];
    }
    y[0] = n;
    for (uint32_t i = 0; i < G; i++)
        y[1 + i] = p->beta[i] / p->generation_time_s * cc[i];
}

/*
 * Weights of the offset and ramp corrections (file comment, "Frozen roots"),
 * fixed while the roots and h are: mode k's response to a unit offset held
 * over the sub-step with n(s) linear from n0 to n*, int_0^h e^{omega_k
 * (h - s)} (1 - s/h, s/h) ds = h (phi1 - phi2, phi2), times n_k (w0, w1);
 * their sums, the ramp weights' sum sr and sum n_k h^2 phi2 (s2, the forced
 * part's share of int n dt per unit forcing).
 */
typedef struct kin_weights {
    double w0[PCS_KINETICS_MAX_MODES], w1[PCS_KINETICS_MAX_MODES];
    double s0, s1, sr, s2;
} kin_weights;

static void modes_weights(const pcs_kinetics_params *p, const pcs_kinetics_modes *m, kin_weights *w)
{
    double inv_h = 1.0 / m->h_s;
    w->s0 = w->s1 = w->sr = w->s2 = 0.0;
    for (uint32_t k = 0; k <= p->n_groups; k++) {
        w->w1[k] = m->norm[k] * m->p2[k] * inv_h;
        w->w0[k] = m->norm[k] * m->p1[k] - w->w1[k];
        w->s0 += w->w0[k];
        w->s1 += w->w1[k];
        w->sr += m->ramp[k];
        w->s2 += m->norm[k] * m->p2[k];
    }
}

/*
 * One sub-step in modal coordinates, @p a advanced in place; @return int n
 * dt over it. c is the sub-step's reactivity minus the roots' (0: the exact
 * propagator, plus the ramp correction when drho != 0); @p w is only read
 * when c or drho is non-zero.
 */
static double modes_advance(const pcs_kinetics_params *p, const pcs_kinetics_modes *m,
                            const kin_weights *w, double c, double drho, double *a)
{
    uint32_t G = p->n_groups;
    double n0 = 0.0, n = 0.0, integral = 0.0;
    for (uint32_t k = 0; k <= G; k++) {
        double s = p->source_per_s * m->norm[k];
        n0 += a[k];
        integral += a[k] * m->p1[k] + s * m->p2[k];
        a[k] = a[k] * m->ew[k] + s * m->p1[k];
        n += a[k];
    }
    if (c == 0.0 && drho == 0.0)
        return integral;
    /* Offset and ramp corrections solved together for the corrected end value
     * n* = n + q (s0 n0 + s1 n*) + r sr n*, q = c/Lambda, r = drho/Lambda.
     * r sr ~ (drho/2)/(beta - rho): the denominator is limited to a factor 2,
     * beyond which a sub-step's ramp is too coarse for any first-order
     * correction (callers size sub-steps with pcs_kinetics_substeps). */
    double q = c / p->generation_time_s, r = drho / p->generation_time_s;
    double nstar = (n + q * w->s0 * n0) / kin_max(1.0 - q * w->s1 - r * w->sr, 0.5);
    for (uint32_t k = 0; k <= G; k++)
        a[k] += q * (w->w0[k] * n0 + w->w1[k] * nstar) + r * m->ramp[k] * nstar;
    /* The forced part's int n dt: n_k h^2 phi2 per unit forcing, at its mean. */
    return integral + q * w->s2 * 0.5 * (n0 + nstar);
}

/* omega_0 h at which the frozen-root window halves (freeze_window). */
#define KIN_FREEZE_KAPPA 0.01

/*
 * The frozen-root window of modes @p m for sub-steps of @p h: the offset
 * correction takes n linear over the sub-step, whose error grows as
 * (omega_0 h)^2, so the window narrows where the dominant mode grows or
 * decays noticeably within a sub-step (near and above prompt critical):
 * PCS_KINETICS_RHO_FREEZE_TOL / (1 + (omega_0 h / KIN_FREEZE_KAPPA)^2).
 */
static double freeze_window(const pcs_kinetics_modes *m, double h)
{
    double z = m->omega[0] * h / KIN_FREEZE_KAPPA;
    return PCS_KINETICS_RHO_FREEZE_TOL / (1.0 + z * z);
}

/* 1 if m's roots can serve a sub-step at @p rho of length @p h. */
static int modes_serve(const pcs_kinetics_params *p, const pcs_kinetics_modes *m, double rho,
                       double h)
{
    if (!m->valid || m->n_modes != p->n_groups + 1)
        return 0;
    double d = kin_abs(rho - m->rho); /* NaN for a NaN rho: re-solved, refused */
    return d <= PCS_KINETICS_RHO_REUSE_TOL || d <= freeze_window(m, h);
}

/*
 * Re-solve m for a sub-step at @p rho: at a reactivity up to the window
 * further along the caller's ramp toward @p rho_last, so one solve serves as
 * many of the next sub-steps as the window holds, or at rho itself when the
 * new roots' window turns out much narrower.
 */
static pcs_status modes_resolve(const pcs_kinetics_params *p, pcs_kinetics_modes *m, double rho,
                                double rho_last, double h)
{
    int valid = m->valid && m->n_modes == p->n_groups + 1;
    double win = valid ? freeze_window(m, h) : 0.0, left = rho_last - rho;
    double ahead = rho + (left > win ? win : left < -win ? -win : left);
    pcs_status st = pcs_kinetics_modes_solve(p, m, ahead);
    if (st == PCS_OK && !(kin_abs(rho - m->rho) <= 2.0 * freeze_window(m, h)))
        st = pcs_kinetics_modes_solve(p, m, rho);
    return st;
}

/*
 * n_sub sub-steps of h, the j-th at midpoint reactivity rho0 + (j + 1/2)
 * drho with a ramp of drho over it. Runs of sub-steps on the same roots stay
 * in modal coordinates (modes_project once, modes_rebuild once); a re-solve
 * rebuilds y first, under the roots it was projected with.
 */
static pcs_status kin_run(const pcs_kinetics_params *p, pcs_kinetics_modes *m, double rho0,
                          double drho, double h, uint32_t n_sub, double *y, double *n_integral)
{
    double a[PCS_KINETICS_MAX_MODES], total = 0.0;
    double rho_last = rho0 + ((double)n_sub - 0.5) * drho;
    kin_weights w; /* arrays set by modes_weights before their first read */
    w.s0 = w.s1 = w.sr = w.s2 = 0.0;
    int modal = 0, weighted = 0;
    pcs_status st = PCS_OK;
    for (uint32_t j = 0; j < n_sub && st == PCS_OK; j++) {
        double rho = rho0 + ((double)j + 0.5) * drho;
        if (!modes_serve(p, m, rho, h)) {
            if (modal)
                modes_rebuild(p, m, a, y);
            modal = 0;
            st = modes_resolve(p, m, rho, rho_last, h);
            if (st != PCS_OK)
                break;
        }
        if (m->h_s != h) {
            if (modal)
                modes_rebuild(p, m, a, y);
            modal = 0;
            modes_set_step(m, h);
        }
        if (!modal) {
            modes_project(p, m, y, a);
            modal = 1;
            weighted = 0;
        }
        double c = rho - m->rho;
        if (kin_abs(c) <= PCS_KINETICS_RHO_REUSE_TOL)
            c = 0.0; /* the exact propagator, as before the window existed */
        if ((c != 0.0 || drho != 0.0) && !weighted) {
            modes_weights(p, m, &w);
            weighted = 1;
        }
        total += modes_advance(p, m, &w, c, drho, a);
    }
    if (modal)
        modes_rebuild(p, m, a, y);
    if (st == PCS_OK && n_integral)
        *n_integral = total;
    return st;
}

pcs_status pcs_kinetics_step_const(const pcs_kinetics_params *p, pcs_kinetics_modes *m, double rho,
                                   double h_s, double *y, double *n_integral)
{
    if (!kin_finite(h_s) || h_s <= 0.0)
        return pcs_error_set(PCS_E_INVAL, "kinetics: step %g s must be > 0 and finite", h_s);
    if (!kin_finite(rho) || kin_abs(rho) >= 1.0) /* as in pcs_kinetics_step */
        return pcs_error_set(PCS_E_INVAL, "kinetics: reactivity %g is outside (-1, 1)", rho);
    return kin_run(p, m, rho, 0.0, h_s, 1, y, n_integral);
}

pcs_status pcs_kinetics_step(const pcs_kinetics_params *p, pcs_kinetics_modes *m, double rho0,
                             double rho1, double h_s, uint32_t n_sub, double *y, double *n_integral)
{
    if (n_sub < 1 || n_sub > PCS_KINETICS_MAX_SUBSTEPS)
        return pcs_error_set(PCS_E_INVAL, "kinetics: n_sub = %u is outside [1, %u]", n_sub,
                             PCS_KINETICS_MAX_SUBSTEPS);
    if (!kin_finite(h_s) || h_s <= 0.0)
        return pcs_error_set(PCS_E_INVAL, "kinetics: step %g s must be > 0 and finite", h_s);
    /* Both ends in range: a sub-step on cached roots never solves, so the
     * solve's own check might not see its reactivity. */
    if (!kin_finite(rho0) || !kin_finite(rho1) || kin_abs(rho0) >= 1.0 || kin_abs(rho1) >= 1.0)
        return pcs_error_set(PCS_E_INVAL, "kinetics: reactivity %g -> %g is outside (-1, 1)", rho0,
                             rho1);
    return kin_run(p, m, rho0, (rho1 - rho0) / (double)n_sub, h_s / (double)n_sub, n_sub, y,
                   n_integral);
}

uint32_t pcs_kinetics_substeps(double rho0, double rho1, double drho_max)
{
    if (!(drho_max > 0.0))
        return 1;
    double r = kin_abs(rho1 - rho0) / drho_max;
    if (!(r < (double)(PCS_KINETICS_MAX_SUBSTEPS - 1)))
        return PCS_KINETICS_MAX_SUBSTEPS;
    return 1u + (uint32_t)r;
}

void pcs_kinetics_equilibrium(const pcs_kinetics_params *p, double n, double *y)
{
    y[0] = n;
    for (uint32_t i = 0; i < p->n_groups; i++)
        y[1 + i] = p->beta[i] * n / (p->generation_time_s * p->lambda[i]);
}
