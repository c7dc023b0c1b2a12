/**
 * @file if97_internal.h
 * @brief Internal machinery shared by the IAPWS-IF97 files: polynomial terms,
 *        power tables, unchecked region equations.
 *
 * Every IF97 equation is a sum of terms n_i * x^I_i * y^J_i (IAPWS R7-97(2012)
 * and the supplementary releases write them that way, one table row per term).
 * Evaluating each term with pcs_pow would cost ~20 ns per term, so instead the
 * integer powers of x and y are built once per call by multiplication
 * (if97_powers) and every term is two loads and two multiplications. The
 * derivatives of a fundamental equation reuse the same products: for a term
 * a = n x^I y^J, d/dx gives I a / x, so the sums sum(I a), sum(J a),
 * sum(I(I-1) a), ... are accumulated in one pass and divided by x or y once.
 *
 * The unchecked if97_* functions below take SI units, assume their arguments
 * are inside the region (the public pcs_if97_* and pcs_water_* functions check
 * ranges and then call them), and never allocate.
 */
#ifndef PCS_PHYSICS_IF97_INTERNAL_H
#define PCS_PHYSICS_IF97_INTERNAL_H

#include "pcsim/water.h"

/** One row of an IF97 coefficient table: n * x^i * y^j. */
typedef struct if97_term {
    int i;
    int j;
    double n;
} if97_term;

/** Largest |exponent| in any IF97 table used here (region 2 residual: 58). */
#define IF97_MAX_POW 64

/**
 * Powers x^k for k = lo..hi into pw[0 .. hi-lo], by multiplication.
 * x^k = x^(k/2) * x^(k - k/2): every power is one multiplication and the
 * dependency chain is only log2(k) deep, so the loop does not serialise on
 * multiply latency. Relative rounding error is below |k| ulp.
 * Requires lo <= 0 <= hi, hi - lo < 2*IF97_MAX_POW, x != 0 when lo < 0.
 */
static inline void if97_powers(double x, int lo, int hi, double *pw)
{
    double *pos = pw - lo; /* pos[k] = x^k */
    pos[0] = 1.0;
    if (hi >= 1) {
        pos[1] = x;
    }
    for (int k = 2; k <= hi; k++) {
        pos[k] = pos[k >> 1] * pos[k - (k >> 1)];
    }
    if (lo <= -1) {
        pos[-1] = 1.0 / x;
    }
    for (int k = 2; k <= -lo; k++) {
        pos[-k] = pos[-(k >> 1)] * pos[-(k - (k >> 1))];
    }
}

/** Value and derivative sums of a two-variable term table (see file comment). */
typedef struct if97_sums {
    double f;   /**< sum a */
    double fx;  /**< d/dx */
    double fy;  /**< d/dy */
    double fxx; /**< d2/dx2 */
    double fyy; /**< d2/dy2 */
    double fxy; /**< d2/dxdy */
} if97_sums;

/*
 * Sums over term values use several accumulators ("lanes") added in a fixed
 * order: a single accumulator makes one long chain of dependent additions
 * (34 x 4 cycles of latency in region 1), and the compiler may not reassociate
 * it without -ffast-math. The lane order is part of the source, so results are
 * still bit-identical across builds (docs/ARCHITECTURE.md section 7).
 */

/** Weight of a term in a lane sum. */
enum if97_weight { IF97_W_1, IF97_W_I, IF97_W_J, IF97_W_JJ };

static inline double if97_weight_of(const if97_term *t, enum if97_weight w)
{
    const double di = (double)t->i, dj = (double)t->j;
    switch (w) {
    case IF97_W_I:
        return di;
    case IF97_W_J:
        return dj;
    case IF97_W_JJ:
        return dj * (dj - 1.0);
    default:
        return 1.0;
    }
}

/** sum_k weight(t_k) a_k with four lanes; w is a constant at every call site. */
static inline double if97_lane_sum(const if97_term *t, const double *a, int n, enum if97_weight w)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += if97_weight_of(&t[k], w) * a[k];
        s1 += if97_weight_of(&t[k + 1], w) * a[k + 1];
        s2 += if97_weight_of(&t[k + 2], w) * a[k + 2];
        s3 += if97_weight_of(&t[k + 3], w) * a[k + 3];
    }
    for (; k < n; k++) {
        s0 += if97_weight_of(&t[k], w) * a[k];
    }
    return (s0 + s1) + (s2 + s3);
}

/**
 * All first and second derivatives of sum a_k, where a_k = n_k x^I_k y^J_k has
 * already been evaluated (t gives the exponents used as weights). Two lanes
 * per sum: six sums already run in parallel.
 */
static inline void if97_sum_terms(const if97_term *t, int nt, const double *a, double x, double y,
                                  if97_sums *s)
{
    double f[2] = {0.0, 0.0}, si[2] = {0.0, 0.0}, sj[2] = {0.0, 0.0};
    double sii[2] = {0.0, 0.0}, sjj[2] = {0.0, 0.0}, sij[2] = {0.0, 0.0};
    for (int k = 0; k < nt; k++) {
        const int l = k & 1;
        const double di = (double)t[k].i;
        const double dj = (double)t[k].j;
        f[l] += a[k];
        si[l] += di * a[k];
        sj[l] += dj * a[k];
        sii[l] += di * (di - 1.0) * a[k];
        sjj[l] += dj * (dj - 1.0) * a[k];
        sij[l] += di * dj * a[k];
    }
    const double ix = 1.0 / x;
    const double iy = 1.0 / y;
    s->f = f[0] + f[1];
    s->fx = (si[0] + si[1]) * ix;
    s->fy = (sj[0] + sj[1]) * iy;
    s->fxx = (sii[0] + sii[1]) * ix * ix;
    s->fyy = (sjj[0] + sjj[1]) * iy * iy;
    s->fxy = (sij[0] + sij[1]) * ix * iy;
}

/** Largest number of terms in one IF97 table (region 2 T(p,s) 2a: 46). */
#define IF97_MAX_TERMS 48

/**
 * All first and second derivatives of sum n x^I y^J. Powers come from
 * if97_powers tables px (offset ilo) and py (offset jlo).
 */
static inline void if97_sum_all(const if97_term *t, int nt, const double *px, int ilo,
                                const double *py, int jlo, double x, double y, if97_sums *s)
{
    double a[IF97_MAX_TERMS];
    for (int k = 0; k < nt; k++) {
        a[k] = t[k].n * px[t[k].i - ilo] * py[t[k].j - jlo];
    }
    if97_sum_terms(t, nt, a, x, y, s);
}

/** sum n x^I y^J (no derivatives): the backward and boundary equations. */
static inline double if97_sum(const if97_term *t, int nt, const double *px, int ilo,
                              const double *py, int jlo)
{
    double f = 0.0;
    for (int k = 0; k < nt; k++) {
        f += t[k].n * px[t[k].i - ilo] * py[t[k].j - jlo];
    }
    return f;
}

/** Evaluate sum n x^I y^J with its own power tables (I in [ilo,ihi], J in [jlo,jhi]). */
static inline double if97_poly(const if97_term *t, int nt, double x, int ilo, int ihi, double y,
                               int jlo, int jhi)
{
    double px[2 * IF97_MAX_POW];
    double py[2 * IF97_MAX_POW];
    if97_powers(x, ilo, ihi, px);
    if97_powers(y, jlo, jhi, py);
    return if97_sum(t, nt, px, ilo, py, jlo);
}

/* ---- IF97 constants, IAPWS R7-97(2012) Sec. 3 (all SI) ---- */
#define IF97_R 461.526        /* specific gas constant, J/(kg K), Eq. 1 */
#define IF97_TC 647.096       /* critical temperature, K, Eq. 2 */
#define IF97_PC 22.064e6      /* critical pressure, Pa, Eq. 3 */
#define IF97_RHOC 322.0       /* critical density, kg/m3, Eq. 4 */
#define IF97_T13 623.15       /* region 1/3 boundary temperature, K */
#define IF97_T25 1073.15      /* region 2/5 boundary temperature, K */
#define IF97_TMAX5 2273.15    /* upper temperature of region 5, K */
#define IF97_TMIN 273.15      /* lowest temperature of the formulation, K */
#define IF97_PMAX 100e6       /* highest pressure of regions 1-3, Pa */
#define IF97_PMAX5 50e6       /* highest pressure of region 5, Pa */
#define IF97_T23MAX 863.15    /* T_B23 at 100 MPa, K */
#define IF97_PSMIN 611.212677 /* p_sat(273.15 K), Pa (Eq. 30) */
/* p_sat(623.15 K) from Eq. 30 to the last bit (a test checks it), Pa: the
   pressure below which the saturation line separates regions 1 and 2 */
#define IF97_PS13 16529164.252604481

/* ---- argument checks shared by the public functions (water_if97_api.c) ---- */
/** PCS_OK if lo <= v <= hi, else PCS_E_INVAL naming fn, param, value, range, unit. */
pcs_status if97_check(const char *fn, const char *param, double v, double lo, double hi,
                      const char *unit);
/** PCS_OK if 0 < v <= hi (pressures), else PCS_E_INVAL. */
pcs_status if97_check_pos(const char *fn, const char *param, double v, double hi, const char *unit);
/** PCS_E_INVAL naming fn and param if ptr is NULL. */
pcs_status if97_check_out(const char *fn, const char *param, const void *ptr);
/** PCS_OK if every field of props is finite, else PCS_E_INVAL naming fn and the state. */
pcs_status if97_check_props(const char *fn, const pcs_water_props *props);

/* ---- the table's build steps (water_table.c), shared with the world-heap
 * build (physics/water/models/water_table_build.c) ---- */
/** PCS_OK if every field of cfg is in range, else PCS_E_INVAL naming fn and the field. */
pcs_status if97_table_check_config(const char *fn, const pcs_water_table_def *c);
/** Build a table of a checked cfg into block (pcs_water_table_bytes(cfg) bytes, 64-byte
 *  aligned); owned = 1 if pcs_water_table_destroy must free it. */
pcs_status if97_table_build_into(const char *fn, const pcs_water_table_def *cfg, void *block,
                                 int owned, pcs_water_table **out);

/* ---- hand-written power products of the hot equations (checked against the
 * {I, J} tables by tests/test_if97_kernels.c) ---- */
extern const if97_term if97_r1_terms[34];
extern const if97_term if97_r2_res_terms[43];
extern const if97_term if97_r1_tph_terms[20];
/** a[k] = x^I_k y^J_k of region 1 (x = 7.1 - pi, y = tau - 1.222). */
void if97_r1_products(double x, double y, double a[34]);
/** a[k] = pi^I_k y^J_k of the region 2 residual part (y = tau - 0.5). */
void if97_r2_products(double pi, double y, double a[43]);
/** a[k] = pi^I_k y^J_k of region 1 T(p,h) (y = eta + 1). */
void if97_r1_tph_products(double pi, double y, double a[20]);

/** Reduced variables and term values n x^I y^J of region 1 at (p, T). */
typedef struct if97_r1_at {
    double pi, tau, x, y;
    double a[34];
} if97_r1_at;
/** Region 1 at (p, T): pi = p / 16.53 MPa, tau = 1386 K / T, x, y as above. */
void if97_r1_eval(double p, double t, if97_r1_at *w);

/** Reduced variables and residual term values n pi^I y^J of a region 2/5
 *  Gibbs equation at (p, T). */
typedef struct if97_gibbs2_at {
    double pi, tau, y;
    double a[43];
} if97_gibbs2_at;
/** The region 2 residual at (p, T): pi = p / 1 MPa, tau = 540 K / T, y. */
void if97_r2_res_eval(double p, double t, if97_gibbs2_at *w);

/* ---- unchecked forward equations (SI in, SI out) ---- */
void if97_region1_props(double p, double t, pcs_water_props *out);
void if97_region2_props(double p, double t, pcs_water_props *out);
void if97_region3_props(double rho, double t, pcs_water_props *out);
void if97_region5_props(double p, double t, pcs_water_props *out);

/** Region 3 state and the partial derivatives a 2-D Newton on (rho, T) needs. */
typedef struct if97_r3_state {
    double p, h, s;        /**< Pa, J/kg, J/(kg K) */
    double dp_drho, dp_dt; /**< (dp/drho)_T, (dp/dT)_rho */
    double dh_drho, dh_dt; /**< (dh/drho)_T, (dh/dT)_rho */
    double ds_drho, ds_dt; /**< (ds/drho)_T, (ds/dT)_rho */
} if97_r3_state;
void if97_region3_state(double rho, double t, if97_r3_state *st);
/** Region 3 density at (p, T), kg/m3: Newton on p_3(rho, T) = p on the liquid
 *  (liquid = 1) or vapour branch (water_dispatch.c argues the start points);
 *  0 if no root was found. */
int if97_region3_rho(double p, double t, int liquid, double *rho_out);
/** Region 3 (rho, T) with p_3 = p and h_3 (is_h = 1) or s_3 (is_h = 0) = y:
 *  2-D Newton from (*rho_io, *t_io), at most max_it steps; 0 if it fails. */
int if97_region3_newton(double p, double y, int is_h, int max_it, double *rho_io, double *t_io);
/** Region 1 specific enthalpy only, J/kg (only gamma_tau is summed). */
double if97_region1_h(double p, double t);
/** Region 1 specific volume only, m3/kg (only gamma_pi is summed). */
double if97_region1_v(double p, double t);
/** Region 1 h (J/kg) and cp (J/(kg K)) in one pass, for Newton on T. */
void if97_region1_h_cp(double p, double t, double *h, double *cp);
/** Region 1 s (J/(kg K)) and cp/T in one pass, for Newton on T at fixed s. */
void if97_region1_s_dsdt(double p, double t, double *s, double *dsdt);
double if97_region2_h(double p, double t);
double if97_region2_v(double p, double t);
void if97_region2_h_cp(double p, double t, double *h, double *cp);
void if97_region2_s_dsdt(double p, double t, double *s, double *dsdt);
double if97_region5_h(double p, double t);
double if97_region5_v(double p, double t);

/* ---- unchecked region 4 and boundaries ---- */
/** R7-97 Table 34, n1..n10 (index 0 unused, 1-based like the release). */
extern const double if97_r4_n[11];
double if97_psat(double t);    /* Eq. 30, Pa */
double if97_tsat(double p);    /* Eq. 31, K */
double if97_b23_p(double t);   /* Eq. 5, Pa */
double if97_b23_t(double p);   /* Eq. 6, K */
double if97_b2bc_p(double h);  /* Eq. 20, Pa */
double if97_b2bc_h(double p);  /* Eq. 21, J/kg */
double if97_b3ab_h(double p);  /* SR3-03 Eq. 1, J/kg */
double if97_p3sat_h(double h); /* SR3-03 Eq. 10, Pa */
double if97_p3sat_s(double s); /* SR3-03 Eq. 11, Pa */

/* ---- unchecked backward equations ---- */
double if97_region1_t_ph(double p, double h);
double if97_region1_t_ps(double p, double s);
double if97_region2_t_ph(double p, double h);
double if97_region2_t_ps(double p, double s);
double if97_region3_t_ph(double p, double h);
double if97_region3_v_ph(double p, double h);
double if97_region3_t_ps(double p, double s);
double if97_region3_v_ps(double p, double s);

#endif
