/**
 * @file water_table.c
 * @brief Bicubic Hermite tables of IF97 region 1 (compressed liquid) for the
 *        hot loop: h(p,T), rho(p,T) and the inverse T(p,h).
 *
 * Why Hermite patches: each cell's cubic is fixed by the values and the
 * derivatives f_p, f_T, f_pT at its four corners, all taken from the IF97
 * equation itself at that corner (not from neighbouring nodes as a global
 * spline would). The grid is a rectangle, but the liquid domain is bounded by
 * the saturation line; nodes beyond it hold the region 1 equation's smooth
 * metastable extrapolation, which can become wild deep in the vapour zone
 * (cp ~ 1e6 J/(kg K) at 0.1 MPa, 620 K). With local derivatives such nodes
 * only shape cells that lie entirely outside the domain, which the lookup
 * rejects; a global spline would have spread them into liquid cells.
 *
 * Derivatives are central differences of the exact function with a step of
 * 1/512 cell: the truncation error is ~1e-12 relative and rounding ~1e-13, far
 * below the interpolation error (~1e-7 for the default grid). T(p,h) at a node is the exact inverse
 * of the region 1 equation (Newton to 1e-13 K), not the backward equation.
 *
 * Each cell stores its 16 polynomial coefficients, so a lookup is two index
 * computations, one saturation check (usually one comparison with a stored
 * p_sat at the cell's upper temperature) and a 2-D Horner scheme: no
 * iteration, no transcendental function, no allocation.
 *
 * Memory: one block (header and arrays), 64-byte aligned, from malloc
 * (pcs_water_table_create) or the world heap (pcs_water_table_add, in
 * physics/water/models/water_table_build.c, so this kernel needs no world). The
 * build's scratch (corner data) is malloc'd and freed before it returns.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "physics/water/kernels/if97_internal.h"
#include "pcsim/math.h"

/* Coefficients per cell: f(u,w) = sum_{a,b} c[4a+b] u^a w^b, u,w in [0,1]. */
#define CELL 16

/* Allowance on the interpolated T(p,h) at the domain's edges, K: above the
   default table's T error (5e-8 x 620 K = 3e-5 K), so states exactly on an
   edge (t_min, t_max, saturated liquid) are accepted. */
#define T_EDGE_TOL 1e-4

struct pcs_water_table {
    pcs_water_table_def cfg;
    int owned; /* 1: malloc'd by pcs_water_table_create */
    uint32_t np, nt, nh;
    double p0, dp, inv_dp;
    double t0, dt, inv_dt;
    double h0, dh, inv_dh;
    double err_h, err_rho, err_t; /* measured at build, at cell centres */
    double *c_h;                  /* (np-1)(nt-1) cells x 16 */
    double *c_rho;                /* (np-1)(nt-1) cells x 16 */
    double *c_t;                  /* (np-1)(nh-1) cells x 16 */
    double *psat_t;               /* p_sat at each T node, for the fast liquid test */
};

/* ---------------------------------------------------------------------- */
/* Configuration                                                            */
/* ---------------------------------------------------------------------- */

pcs_status pcs_water_table_default(pcs_water_table_def *cfg)
{
    if (cfg == NULL) {
        return pcs_error_set(PCS_E_INVAL, "pcs_water_table_default: cfg is NULL");
    }
    cfg->p_min_pa = 0.1e6;
    cfg->p_max_pa = 22e6;
    cfg->t_min_k = 273.15;
    cfg->t_max_k = 620.0;
    cfg->n_p = 45;  /* 0.4977 MPa */
    cfg->n_t = 175; /* 1.9951 K */
    cfg->n_h = 100; /* about 16.3 kJ/kg */
    return PCS_OK;
}

pcs_status if97_table_check_config(const char *fn, const pcs_water_table_def *c)
{
    if (c == NULL) {
        return pcs_error_set(PCS_E_INVAL, "%s: cfg is NULL", fn);
    }
    pcs_status st = if97_check(fn, "cfg.p_min_pa", c->p_min_pa, IF97_PSMIN, IF97_PMAX, "Pa");
    if (st == PCS_OK) {
        st = if97_check(fn, "cfg.p_max_pa", c->p_max_pa, c->p_min_pa * (1.0 + 1e-9), IF97_PMAX,
                        "Pa");
    }
    if (st == PCS_OK) {
        st = if97_check(fn, "cfg.t_min_k", c->t_min_k, IF97_TMIN, IF97_T13, "K");
    }
    if (st == PCS_OK) {
        st = if97_check(fn, "cfg.t_max_k", c->t_max_k, c->t_min_k + 1e-6, IF97_T13, "K");
    }
    if (st == PCS_OK) {
        st = if97_check(fn, "cfg.n_p", (double)c->n_p, 2.0, 4096.0, "nodes");
    }
    if (st == PCS_OK) {
        st = if97_check(fn, "cfg.n_t", (double)c->n_t, 2.0, 65536.0, "nodes");
    }
    if (st == PCS_OK) {
        st = if97_check(fn, "cfg.n_h", (double)c->n_h, 2.0, 65536.0, "nodes");
    }
    return st;
}

/* Byte offsets of the arrays in the one block (each 64-byte aligned). */
typedef struct table_layout {
    size_t head, c_h, c_rho, c_t, psat_t, total;
} table_layout;

static size_t align64(size_t n)
{
    return (n + 63u) & ~(size_t)63u;
}

static table_layout layout_of(const pcs_water_table_def *c)
{
    table_layout l;
    const size_t cells_pt = (size_t)(c->n_p - 1) * (c->n_t - 1);
    const size_t cells_ph = (size_t)(c->n_p - 1) * (c->n_h - 1);
    l.head = 0;
    l.c_h = align64(sizeof(pcs_water_table));
    l.c_rho = l.c_h + align64(cells_pt * CELL * sizeof(double));
    l.c_t = l.c_rho + align64(cells_pt * CELL * sizeof(double));
    l.psat_t = l.c_t + align64(cells_ph * CELL * sizeof(double));
    l.total = l.psat_t + align64((size_t)c->n_t * sizeof(double));
    return l;
}

uint64_t pcs_water_table_bytes(const pcs_water_table_def *cfg)
{
    if (if97_table_check_config("pcs_water_table_bytes", cfg) != PCS_OK) {
        return 0;
    }
    return (uint64_t)layout_of(cfg).total;
}

/* ---------------------------------------------------------------------- */
/* Exact functions tabulated                                                */
/* ---------------------------------------------------------------------- */

static double exact_h(double p, double t)
{
    return if97_region1_h(p, t);
}

static double exact_rho(double p, double t)
{
    return 1.0 / if97_region1_v(p, t);
}

/*
 * Exact inverse of region 1's h(p,T) at fixed p: Newton from the backward
 * equation, kept inside [200 K, 700 K] by bisection (the region 1 polynomial
 * is finite and increasing in T over that band for every p of a table).
 * Returns 0 if h is not reached inside the band.
 */
static int exact_t_ph(double p, double h, double *t_out)
{
    double lo = 200.0, hi = 700.0, h_lo, h_hi, cp;
    if97_region1_h_cp(p, lo, &h_lo, &cp);
    if97_region1_h_cp(p, hi, &h_hi, &cp);
    if (!(h >= h_lo && h <= h_hi)) {
        return 0;
    }
    double t = pcs_clamp(if97_region1_t_ph(p, h), lo, hi);
    if (!pcs_isfinite(t)) {
        t = 0.5 * (lo + hi);
    }
    for (int it = 0; it < 200; it++) {
        double v;
        if97_region1_h_cp(p, t, &v, &cp);
        if (v > h) {
            hi = t;
        } else {
            lo = t;
        }
        double next = t - (v - h) / cp;
        if (!(next > lo && next < hi) || !(cp > 0.0)) {
            next = 0.5 * (lo + hi);
        }
        if (pcs_fabs(next - t) <= 1e-13 * t || hi - lo <= 1e-13 * t) {
            *t_out = next;
            return 1;
        }
        t = next;
    }
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Building                                                                 */
/* ---------------------------------------------------------------------- */

/* One tabulated function: value at (x, y) in physical units; 0 on failure. */
typedef int (*node_fn)(double x, double y, double *f);

static int node_h(double p, double t, double *f)
{
    *f = exact_h(p, t);
    return pcs_isfinite(*f);
}

static int node_rho(double p, double t, double *f)
{
    *f = exact_rho(p, t);
    return pcs_isfinite(*f) && *f > 0.0;
}

static int node_t(double p, double h, double *f)
{
    return exact_t_ph(p, h, f);
}

/* Value and the cell-normalised derivatives f_u, f_w, f_uw at one node. */
typedef struct corner {
    double f, fu, fw, fuw;
} corner;

/* Central differences with step 1/512 cell (see the file comment). */
static int corner_at(node_fn fn, double x, double y, double dx, double dy, corner *c)
{
    const double e = 1.0 / 512.0;
    const double hx = e * dx, hy = e * dy;
    double f, fpp, fpm, fmp, fmm, fp0, fm0, f0p, f0m;
    if (!fn(x, y, &f) || !fn(x + hx, y + hy, &fpp) || !fn(x + hx, y - hy, &fpm) ||
        !fn(x - hx, y + hy, &fmp) || !fn(x - hx, y - hy, &fmm) || !fn(x + hx, y, &fp0) ||
        !fn(x - hx, y, &fm0) || !fn(x, y + hy, &f0p) || !fn(x, y - hy, &f0m)) {
        return 0;
    }
    c->f = f;
    c->fu = (fp0 - fm0) / (2.0 * e);
    c->fw = (f0p - f0m) / (2.0 * e);
    c->fuw = (fpp - fpm - fmp + fmm) / (4.0 * e * e);
    return 1;
}

/*
 * Coefficients of the bicubic Hermite patch A = M F M^T (see e.g. the
 * standard derivation of bicubic interpolation), with the 1-D Hermite matrix
 * M = [[1,0,0,0],[0,0,1,0],[-3,3,-2,-1],[2,-2,1,1]] acting on
 * (f(0), f(1), f'(0), f'(1)), and F built from the four corners.
 */
static void patch(const corner *c00, const corner *c10, const corner *c01, const corner *c11,
                  double *a)
{
    static const double m[4][4] = {{1, 0, 0, 0}, {0, 0, 1, 0}, {-3, 3, -2, -1}, {2, -2, 1, 1}};
    const double f[4][4] = {
        {c00->f, c01->f, c00->fw, c01->fw},
        {c10->f, c11->f, c10->fw, c11->fw},
        {c00->fu, c01->fu, c00->fuw, c01->fuw},
        {c10->fu, c11->fu, c10->fuw, c11->fuw},
    };
    double mf[4][4];
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++) {
                s += m[i][k] * f[k][j];
            }
            mf[i][j] = s;
        }
    }
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++) {
                s += mf[i][k] * m[j][k];
            }
            a[4 * i + j] = s;
        }
    }
}

/* 2-D Horner evaluation of a patch at (u, w) in [0,1]^2. */
static inline double patch_eval(const double *a, double u, double w)
{
    double r = 0.0;
    for (int i = 3; i >= 0; i--) {
        const double *q = a + 4 * i;
        r = r * u + (q[0] + w * (q[1] + w * (q[2] + w * q[3])));
    }
    return r;
}

/* Fill nx * ny corners and then (nx-1)(ny-1) patches of one function. */
static pcs_status build_one(const char *fn_name, node_fn fn, uint32_t nx, uint32_t ny, double x0,
                            double dx, double y0, double dy, corner *scratch, double *coef)
{
    for (uint32_t i = 0; i < nx; i++) {
        for (uint32_t j = 0; j < ny; j++) {
            const double x = x0 + dx * i, y = y0 + dy * j;
            if (!corner_at(fn, x, y, dx, dy, &scratch[(size_t)i * ny + j])) {
                return pcs_error_set(PCS_E_INVAL,
                                     "%s: the region 1 equation cannot be tabulated at node "
                                     "(%.10g, %.10g); shrink the table's range",
                                     fn_name, x, y);
            }
        }
    }
    for (uint32_t i = 0; i + 1 < nx; i++) {
        for (uint32_t j = 0; j + 1 < ny; j++) {
            const corner *c = scratch + (size_t)i * ny + j;
            patch(c, c + ny, c + 1, c + ny + 1, coef + ((size_t)i * (ny - 1) + j) * CELL);
        }
    }
    return PCS_OK;
}

/* The enthalpy range of the liquid domain: [h(p, t_min) min, h'(p) or h(p, t_max) max]. */
static void h_range(const pcs_water_table_def *c, double *h_lo, double *h_hi)
{
    double lo = 1e300, hi = -1e300;
    const int n = 4096;
    for (int k = 0; k <= n + 1; k++) {
        double p = c->p_min_pa + (c->p_max_pa - c->p_min_pa) * (double)k / n;
        if (k == n + 1) { /* the corner where the saturation line meets t_max */
            p = pcs_clamp(if97_psat(c->t_max_k), c->p_min_pa, c->p_max_pa);
        }
        const double t_top = p < IF97_PC ? pcs_fmin(c->t_max_k, if97_tsat(p)) : c->t_max_k;
        lo = pcs_fmin(lo, if97_region1_h(p, c->t_min_k));
        hi = pcs_fmax(hi, if97_region1_h(p, pcs_fmax(t_top, c->t_min_k)));
    }
    const double pad = 1e-9 * (hi - lo);
    *h_lo = lo - pad;
    *h_hi = hi + pad;
}

/* Liquid test with the stored p_sat of the cell's hotter node as a fast path. */
static inline int is_liquid(const pcs_water_table *t, uint32_t j_upper, double p, double temp)
{
    return p >= t->psat_t[j_upper] || p >= if97_psat(temp);
}

static double table_h(const pcs_water_table *t, double p, double temp);
static double table_rho(const pcs_water_table *t, double p, double temp);
static double table_t(const pcs_water_table *t, double p, double h);

/* Largest relative errors at the centres of cells that lie in the liquid domain. */
static void measure_errors(pcs_water_table *t)
{
    double eh = 0.0, er = 0.0, et = 0.0;
    for (uint32_t i = 0; i + 1 < t->np; i++) {
        const double p = t->p0 + t->dp * (i + 0.5);
        for (uint32_t j = 0; j + 1 < t->nt; j++) {
            const double temp = t->t0 + t->dt * (j + 0.5);
            if (p < if97_psat(temp)) {
                continue;
            }
            const double h = exact_h(p, temp);
            eh = pcs_fmax(eh, pcs_fabs(table_h(t, p, temp) - h) / pcs_fmax(pcs_fabs(h), 1e5));
            const double rho = exact_rho(p, temp);
            er = pcs_fmax(er, pcs_fabs(table_rho(t, p, temp) - rho) / rho);
        }
        for (uint32_t j = 0; j + 1 < t->nh; j++) {
            const double h = t->h0 + t->dh * (j + 0.5);
            double temp;
            if (!exact_t_ph(p, h, &temp) || temp < t->cfg.t_min_k || temp > t->cfg.t_max_k ||
                p < if97_psat(temp)) {
                continue;
            }
            et = pcs_fmax(et, pcs_fabs(table_t(t, p, h) - temp) / temp);
        }
    }
    t->err_h = eh;
    t->err_rho = er;
    t->err_t = et;
}

pcs_status if97_table_build_into(const char *fn, const pcs_water_table_def *cfg, void *block,
                                 int owned, pcs_water_table **out)
{
    const table_layout l = layout_of(cfg);
    char *base = block;
    memset(base, 0, l.total);
    pcs_water_table *t = (pcs_water_table *)(void *)base;
    t->cfg = *cfg;
    t->owned = owned;
    t->np = cfg->n_p;
    t->nt = cfg->n_t;
    t->nh = cfg->n_h;
    t->p0 = cfg->p_min_pa;
    t->dp = (cfg->p_max_pa - cfg->p_min_pa) / (cfg->n_p - 1);
    t->inv_dp = 1.0 / t->dp;
    t->t0 = cfg->t_min_k;
    t->dt = (cfg->t_max_k - cfg->t_min_k) / (cfg->n_t - 1);
    t->inv_dt = 1.0 / t->dt;
    double h_lo, h_hi;
    h_range(cfg, &h_lo, &h_hi);
    t->h0 = h_lo;
    t->dh = (h_hi - h_lo) / (cfg->n_h - 1);
    t->inv_dh = 1.0 / t->dh;
    t->c_h = (double *)(void *)(base + l.c_h);
    t->c_rho = (double *)(void *)(base + l.c_rho);
    t->c_t = (double *)(void *)(base + l.c_t);
    t->psat_t = (double *)(void *)(base + l.psat_t);
    for (uint32_t j = 0; j < t->nt; j++) {
        const double temp = t->t0 + t->dt * j;
        t->psat_t[j] = if97_psat(temp);
    }
    const uint32_t ny = cfg->n_t > cfg->n_h ? cfg->n_t : cfg->n_h;
    corner *scratch = malloc((size_t)cfg->n_p * ny * sizeof(corner));
    if (scratch == NULL) {
        return pcs_error_set(PCS_E_NOMEM, "%s: no memory for %zu build corners", fn,
                             (size_t)cfg->n_p * ny);
    }
    pcs_status st =
        build_one(fn, node_h, t->np, t->nt, t->p0, t->dp, t->t0, t->dt, scratch, t->c_h);
    if (st == PCS_OK) {
        st = build_one(fn, node_rho, t->np, t->nt, t->p0, t->dp, t->t0, t->dt, scratch, t->c_rho);
    }
    if (st == PCS_OK) {
        st = build_one(fn, node_t, t->np, t->nh, t->p0, t->dp, t->h0, t->dh, scratch, t->c_t);
    }
    free(scratch);
    if (st != PCS_OK) {
        return st;
    }
    measure_errors(t);
    *out = t;
    return PCS_OK;
}

pcs_status pcs_water_table_create(const pcs_water_table_def *cfg, pcs_water_table **out)
{
    static const char fn[] = "pcs_water_table_create";
    pcs_status st = if97_check_out(fn, "out", out);
    if (st == PCS_OK) {
        st = if97_table_check_config(fn, cfg);
    }
    if (st != PCS_OK) {
        return st;
    }
    const size_t bytes = layout_of(cfg).total;
    void *block = aligned_alloc(64, bytes);
    if (block == NULL) {
        return pcs_error_set(PCS_E_NOMEM, "%s: no memory for a %zu-byte table", fn, bytes);
    }
    st = if97_table_build_into(fn, cfg, block, 1, out);
    if (st != PCS_OK) {
        free(block);
    }
    return st;
}

void pcs_water_table_destroy(pcs_water_table *t)
{
    if (t != NULL && t->owned) {
        free(t);
    }
}

pcs_status pcs_water_table_error(const pcs_water_table *t, double *h_rel, double *rho_rel,
                                 double *t_rel)
{
    if (t == NULL) {
        return pcs_error_set(PCS_E_INVAL, "pcs_water_table_error: t is NULL");
    }
    if (h_rel != NULL) {
        *h_rel = t->err_h;
    }
    if (rho_rel != NULL) {
        *rho_rel = t->err_rho;
    }
    if (t_rel != NULL) {
        *t_rel = t->err_t;
    }
    return PCS_OK;
}

/* ---------------------------------------------------------------------- */
/* Lookups                                                                  */
/* ---------------------------------------------------------------------- */

/* Cell index and local coordinate in [0,1] of x on a uniform grid of n nodes. */
static inline uint32_t cell_of(double x, double x0, double inv_dx, uint32_t n, double *u)
{
    const double s = (x - x0) * inv_dx;
    uint32_t i = (uint32_t)s; /* s >= 0 was checked */
    if (i > n - 2) {
        i = n - 2; /* x == x_max lands in the last cell at u = 1 */
    }
    *u = s - (double)i;
    return i;
}

/* The patch of coefficient array c (h or rho) around (p, T). */
static double table_pt(const pcs_water_table *t, const double *c, double p, double temp)
{
    double u, w;
    const uint32_t i = cell_of(p, t->p0, t->inv_dp, t->np, &u);
    const uint32_t j = cell_of(temp, t->t0, t->inv_dt, t->nt, &w);
    return patch_eval(c + ((size_t)i * (t->nt - 1) + j) * CELL, u, w);
}

static double table_h(const pcs_water_table *t, double p, double temp)
{
    return table_pt(t, t->c_h, p, temp);
}

static double table_rho(const pcs_water_table *t, double p, double temp)
{
    return table_pt(t, t->c_rho, p, temp);
}

static double table_t(const pcs_water_table *t, double p, double h)
{
    double u, w;
    const uint32_t i = cell_of(p, t->p0, t->inv_dp, t->np, &u);
    const uint32_t j = cell_of(h, t->h0, t->inv_dh, t->nh, &w);
    return patch_eval(t->c_t + ((size_t)i * (t->nh - 1) + j) * CELL, u, w);
}

/* Whether (p, T) is compressed liquid; T's cell gives the cached p_sat bound. */
static int liquid_at(const pcs_water_table *t, double p, double temp)
{
    double w;
    const uint32_t j = cell_of(temp, t->t0, t->inv_dt, t->nt, &w);
    return is_liquid(t, j + 1, p, temp);
}

/* Range and liquid checks shared by h and rho lookups. */
static pcs_status check_pt_lookup(const char *fn, const pcs_water_table *t, double p, double temp)
{
    if (!(p >= t->cfg.p_min_pa && p <= t->cfg.p_max_pa)) {
        return if97_check(fn, "p_pa", p, t->cfg.p_min_pa, t->cfg.p_max_pa, "Pa");
    }
    if (!(temp >= t->cfg.t_min_k && temp <= t->cfg.t_max_k)) {
        return if97_check(fn, "t_k", temp, t->cfg.t_min_k, t->cfg.t_max_k, "K");
    }
    if (!liquid_at(t, p, temp)) {
        return pcs_error_set(PCS_E_INVAL,
                             "%s: p_pa = %.10g Pa is below p_sat(%.10g K) = %.10g Pa: not "
                             "compressed liquid",
                             fn, p, temp, if97_psat(temp));
    }
    return PCS_OK;
}

/* The h and rho lookups: NULL, range and liquid checks, then eval. */
static pcs_status lookup_pt(const char *fn, const char *out_name,
                            double (*eval)(const pcs_water_table *, double, double),
                            const pcs_water_table *t, double p, double temp, double *out)
{
    if (t == NULL || out == NULL) {
        return pcs_error_set(PCS_E_INVAL, "%s: t or %s is NULL", fn, out_name);
    }
    const pcs_status st = check_pt_lookup(fn, t, p, temp);
    if (st == PCS_OK) {
        *out = eval(t, p, temp);
    }
    return st;
}

pcs_status pcs_water_table_h_pt(const pcs_water_table *t, double p_pa, double t_k, double *h_j_kg)
{
    return lookup_pt("pcs_water_table_h_pt", "h_j_kg", table_h, t, p_pa, t_k, h_j_kg);
}

pcs_status pcs_water_table_rho_pt(const pcs_water_table *t, double p_pa, double t_k,
                                  double *rho_kg_m3)
{
    return lookup_pt("pcs_water_table_rho_pt", "rho_kg_m3", table_rho, t, p_pa, t_k, rho_kg_m3);
}

pcs_status pcs_water_table_t_ph(const pcs_water_table *t, double p_pa, double h_j_kg, double *t_k)
{
    static const char fn[] = "pcs_water_table_t_ph";
    if (t == NULL || t_k == NULL) {
        return pcs_error_set(PCS_E_INVAL, "%s: t or t_k is NULL", fn);
    }
    if (!(p_pa >= t->cfg.p_min_pa && p_pa <= t->cfg.p_max_pa)) {
        return if97_check(fn, "p_pa", p_pa, t->cfg.p_min_pa, t->cfg.p_max_pa, "Pa");
    }
    const double h_hi = t->h0 + t->dh * (t->nh - 1);
    if (!(h_j_kg >= t->h0 && h_j_kg <= h_hi)) {
        return if97_check(fn, "h_j_kg", h_j_kg, t->h0, h_hi, "J/kg");
    }
    const double temp = table_t(t, p_pa, h_j_kg);
    if (!(temp >= t->cfg.t_min_k - T_EDGE_TOL && temp <= t->cfg.t_max_k + T_EDGE_TOL)) {
        return pcs_error_set(PCS_E_INVAL,
                             "%s: h_j_kg = %.10g J/kg at p = %.10g Pa gives T = %.10g K outside "
                             "the table's [%.10g, %.10g] K",
                             fn, h_j_kg, p_pa, temp, t->cfg.t_min_k, t->cfg.t_max_k);
    }
    const double tc = pcs_clamp(temp - T_EDGE_TOL, t->cfg.t_min_k, t->cfg.t_max_k);
    if (!liquid_at(t, p_pa, tc)) {
        return pcs_error_set(PCS_E_INVAL,
                             "%s: h_j_kg = %.10g J/kg at p = %.10g Pa is above the saturated "
                             "liquid (T = %.10g K > T_sat): not compressed liquid",
                             fn, h_j_kg, p_pa, temp);
    }
    *t_k = temp;
    return PCS_OK;
}
