/**
 * @file water_ph_table.c
 * @brief The (p, h) table: build from the exact path, and the lookup; its
 *        parts (def, sizes, arrays) for the image format, water_ph_image.c.
 *
 * Layout (water_ph.h): row cells in p (octave zone below 2^23 Pa, sqrt zone
 * to p_c, linear zone above), each with cubics in the row coordinate t of its
 * saturation data, and in each row cell n_liquid + n_vapour (t, xi) cells with
 * a bicubic of T, rho, drho/dp, drho/dh.
 *
 * Every cubic is the one through 4 exact values at t (and xi) = 0, 1/3, 2/3,
 * 1, so neighbouring cells share their edge values (continuous, not smooth:
 * the kinks are of the size of the error). Values rather than derivatives
 * define the patches because the exact path has no derivatives of its own
 * derivatives, and because the row at p_c, where d/dp of the saturation data
 * is infinite, needs none. The sample grid is therefore 3 n + 1 points per
 * axis; the build evaluates the exact path once per sample.
 *
 * Near p_c: IF97's region 3 closes its two-phase dome a few Pa below p_c
 * (water_ph_exact.c), so the saturation data of the row at p_c are
 * extrapolated (quadratically in w = sqrt(p_c - p) from the three rows below
 * it, where they are smooth), and the two saturation enthalpies there are
 * set to their mean, h_split, which is also where the supercritical rows
 * split their enthalpy axis.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "physics/water/kernels/if97_internal.h"
#include "physics/water/kernels/water_ph_internal.h"
#include "pcsim/math.h"

enum {
    NF = 4,  /* 2-D functions: T, rho, drho/dp, drho/dh */
    NS = 12, /* saturation data per row: below (12 x 4 doubles: 6 cache lines) */
    CELL = 16 * NF,
};

/*
 * Saturation data of a row cell, each a cubic in t (4 coefficients). The
 * single-phase path reads only the first three cache lines: the segment ends
 * and the segments' inverse widths S_IL = n_liquid / (h' - h_lo) and S_IV =
 * n_vapour / (h_hi - h''), interpolated as functions of their own so that xi
 * is a product, not a division (their cubic differs from the reciprocal of
 * the interpolated width by the interpolation error of a smooth function,
 * far below the table's error: a shift of xi by ~1e-9 of a cell). S_PAD
 * keeps a sub-cell at a whole number of cache lines.
 */
enum { S_HLO, S_HL, S_HG, S_HHI, S_IL, S_IV, S_TS, S_VL, S_C, S_A, S_B, S_PAD };

#define OCT_E0 9       /* lowest octave: [2^9, 2^10) Pa holds 1 kPa */
#define OCT_E1 23      /* octave zone ends at 2^23 Pa */
#define P_A 8388608.0  /* 2^23 Pa */
#define H_TOL_REL 1e-9 /* accepted overshoot of the enthalpy range, of its span */

struct pcs_water_ph_table {
    pcs_water_ph_table_def cfg;
    uint32_t n_rows;     /* row cells */
    uint32_t n_oct;      /* row cells in the octave zone */
    uint32_t j0;         /* octave-zone cells below the first one stored */
    uint32_t shift;      /* 52 - log2(rows_per_octave) */
    uint32_t n_xi;       /* n_liquid + n_vapour */
    uint32_t sat_sub;    /* saturation sub-cells per row cell (cfg.sat_refine) */
    double frac_scale;   /* 2^-shift */
    uint32_t n_w1, n_w2; /* sqrt-zone cells below and above IF97_PS13 */
    double w_a, w_13, inv_dw1, inv_dw2, inv_dps;
    double h_split;
    double *sat;   /* [n_rows][sat_sub][NS][4] */
    double *cells; /* [n_rows][n_xi][16][NF] */
};

/* ---------------------------------------------------------------------- */
/* Configuration                                                            */
/* ---------------------------------------------------------------------- */

/*
 * The def's fields (all uint32_t), as messages name them, with their
 * defaults and allowed ranges: one table fills the defaults and checks a
 * def, in this order (rows_per_octave must also be a power of two).
 */
typedef struct ph_def_field {
    const char *name;
    size_t at; /* offsetof(pcs_water_ph_table_def, <name>) */
    uint32_t dflt, lo, hi;
    int pow2;
} ph_def_field;

static const ph_def_field def_fields[] = {
    {"rows_per_octave", offsetof(pcs_water_ph_table_def, rows_per_octave), 16, 2, 1024, 1},
    {"n_near_critical", offsetof(pcs_water_ph_table_def, n_near_critical), 48, 2, 4096, 0},
    {"n_super", offsetof(pcs_water_ph_table_def, n_super), 24, 1, 4096, 0},
    {"n_liquid", offsetof(pcs_water_ph_table_def, n_liquid), 48, 1, 4096, 0},
    {"n_vapour", offsetof(pcs_water_ph_table_def, n_vapour), 48, 1, 4096, 0},
    {"sat_refine", offsetof(pcs_water_ph_table_def, sat_refine), 4, 1, 64, 0},
};
#define N_DEF_FIELDS (sizeof def_fields / sizeof def_fields[0])
_Static_assert(sizeof(pcs_water_ph_table_def) == N_DEF_FIELDS * sizeof(uint32_t),
               "the field table lists every field of pcs_water_ph_table_def");

pcs_status pcs_water_ph_table_default(pcs_water_ph_table_def *cfg)
{
    pcs_status st = if97_check_out("pcs_water_ph_table_default", "cfg", cfg);
    for (size_t i = 0; st == PCS_OK && i < N_DEF_FIELDS; i++) {
        memcpy((char *)cfg + def_fields[i].at, &def_fields[i].dflt, sizeof(uint32_t));
    }
    return st;
}

static pcs_status check_field(const char *fn, const ph_def_field *f, uint32_t v)
{
    if (!(v >= f->lo && v <= f->hi)) {
        return pcs_error_set(PCS_E_INVAL, "%s: cfg.%s = %u is outside [%u, %u]", fn, f->name, v,
                             f->lo, f->hi);
    }
    if (f->pow2 && (v & (v - 1u)) != 0) {
        return pcs_error_set(PCS_E_INVAL, "%s: cfg.%s = %u is not a power of two", fn, f->name, v);
    }
    return PCS_OK;
}

static pcs_status check_config(const char *fn, const pcs_water_ph_table_def *c)
{
    pcs_status st = if97_check_out(fn, "cfg", c);
    for (size_t i = 0; st == PCS_OK && i < N_DEF_FIELDS; i++) {
        uint32_t v;
        memcpy(&v, (const char *)c + def_fields[i].at, sizeof v);
        st = check_field(fn, &def_fields[i], v);
    }
    return st;
}

/* Octave-zone cells below 1 kPa's cell: [2^9 (1 + k/M), ...) for k < j0. */
static uint32_t first_cell(uint32_t m)
{
    return (uint32_t)((PCS_WATER_PH_P_MIN_PA - 512.0) / 512.0 * (double)m);
}

static uint32_t rows_of(const pcs_water_ph_table_def *c, uint32_t *n_oct)
{
    const uint32_t m = c->rows_per_octave;
    *n_oct = (OCT_E1 - OCT_E0) * m - first_cell(m);
    return *n_oct + c->n_near_critical + c->n_super;
}

static size_t align64(size_t n)
{
    return (n + 63u) & ~(size_t)63u;
}

/* Block layout: header, sat, cells; each 64-byte aligned. */
static size_t bytes_of(const pcs_water_ph_table_def *c, size_t *off_sat, size_t *off_cells)
{
    uint32_t n_oct;
    const size_t rows = rows_of(c, &n_oct);
    const size_t xi = (size_t)c->n_liquid + c->n_vapour;
    *off_sat = align64(sizeof(pcs_water_ph_table));
    *off_cells = *off_sat + align64(rows * c->sat_refine * NS * 4 * sizeof(double));
    return *off_cells + rows * xi * CELL * sizeof(double);
}

uint64_t pcs_water_ph_table_bytes(const pcs_water_ph_table_def *cfg)
{
    if (cfg == NULL || check_config("pcs_water_ph_table_bytes", cfg) != PCS_OK) {
        return 0;
    }
    size_t a, b;
    return (uint64_t)bytes_of(cfg, &a, &b);
}

/* ---------------------------------------------------------------------- */
/* Build                                                                    */
/* ---------------------------------------------------------------------- */

/*
 * Sample row a (0..3) of row cell j. Rows are shared by neighbouring cells,
 * except at IF97_PS13, where the saturated liquid passes from region 1 to
 * region 3 with a kink (the regions are consistent only to R7-97's stated
 * tolerances): the first cell above it has its own first row, just above
 * PS13 (P13_PLUS), so that each cubic sees one region's saturation line.
 */
#define P13_PLUS (IF97_PS13 + 1e-2)
static uint32_t srow(const pcs_water_ph_table *t, uint32_t j, uint32_t a)
{
    return j == t->n_oct + t->n_w1 && a == 0 ? 3u * t->n_rows + 1u : 3u * j + a;
}

/*
 * The saturation data are sampled K = sat_refine times finer in t than the
 * 2-D data (fine row q = 3 K j + m is t = m / (3 K) of row cell j), so the
 * saturation lines, which decide the phase, are K^4 times more accurate than
 * one cubic per row cell would make them. 2-D sample row r is fine row K r;
 * the row just above PS13 is the extra row 3 n_rows + 1 in both numberings.
 */
static uint32_t q_extra(const pcs_water_ph_table *t)
{
    return 3u * t->sat_sub * t->n_rows + 1u;
}

static uint32_t q_pc(const pcs_water_ph_table *t)
{
    return 3u * t->sat_sub * (t->n_oct + t->cfg.n_near_critical);
}

/* Pressure at t = f of row cell j (j = n_rows: the top, 31 MPa). */
static double row_p(const pcs_water_ph_table *t, uint32_t j, double f)
{
    if (j < t->n_oct) {
        const uint32_t m = t->cfg.rows_per_octave;
        const uint32_t g = j + t->j0; /* global octave-zone cell */
        const double base = pcs_pow(2.0, (double)(OCT_E0 + (int)(g / m)));
        return base * (1.0 + ((double)(g % m) + f) / (double)m);
    }
    const uint32_t jw = j - t->n_oct;
    if (jw < t->n_w1) {
        const double w = t->w_a - ((double)jw + f) / t->inv_dw1;
        return jw == 0 && f == 0.0 ? P_A : IF97_PC - w * w;
    }
    if (jw < t->cfg.n_near_critical) {
        const double w = t->w_13 - ((double)(jw - t->n_w1) + f) / t->inv_dw2;
        return jw == t->n_w1 && f == 0.0 ? IF97_PS13 : IF97_PC - w * w;
    }
    if (j == t->n_rows) {
        return PCS_WATER_PH_P_MAX_PA;
    }
    const uint32_t js = jw - t->cfg.n_near_critical;
    return IF97_PC + ((double)js + f) / t->inv_dps;
}

/* Pressure of fine row q. */
static double fine_p(const pcs_water_ph_table *t, uint32_t q)
{
    if (q == q_extra(t)) {
        return P13_PLUS;
    }
    const uint32_t n = 3u * t->sat_sub;
    return row_p(t, q / n, (double)(q % n) / (double)n);
}

/* Kind of fine row q: 0 octave zone, 1 sqrt zone, 2 at p_c, 3 above. */
static int zone_of_fine(const pcs_water_ph_table *t, uint32_t q)
{
    if (q == q_extra(t)) {
        return 1;
    }
    if (q < 3u * t->sat_sub * t->n_oct) {
        return 0;
    }
    return q < q_pc(t) ? 1 : q == q_pc(t) ? 2 : 3;
}

/* Saturation data of fine row q into s[NS] (rows at and above p_c: close_dome). */
static pcs_status sample_sat(const pcs_water_ph_table *t, uint32_t q, double *s)
{
    const double p = fine_p(t, q);
    s[S_PAD] = 0.0;
    s[S_HLO] = ph_h_min(p);
    s[S_HHI] = ph_h_max(p);
    if (zone_of_fine(t, q) >= 2) {
        return PCS_OK;
    }
    ph_sat z;
    if (!ph_sat_at(p, &z)) {
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_water_ph_table_create: no saturation state at p = %.10g Pa", p);
    }
    const double c = (z.vg - z.vl) / (z.hg - z.hl);
    s[S_HL] = z.hl;
    s[S_HG] = z.hg;
    s[S_TS] = z.ts;
    s[S_VL] = z.vl;
    s[S_C] = c;
    s[S_A] = z.dvl - c * z.dhl;
    s[S_B] = (z.dvg - z.dvl) - c * (z.dhg - z.dhl);
    return PCS_OK;
}

/* The row at p_c (see the file comment) and the rows above it. */
static void close_dome(pcs_water_ph_table *t, double *ss)
{
    const uint32_t qc = q_pc(t);
    double *s3 = ss + (size_t)qc * NS;
    const double *s0 = s3 - 3 * NS, *s1 = s3 - 2 * NS, *s2 = s3 - NS;
    for (int k = S_HL; k <= S_C; k++) {
        if (k != S_HHI) {
            s3[k] = s0[k] - 3.0 * s1[k] + 3.0 * s2[k]; /* quadratic through the 3 rows below */
        }
    }
    /* A and B grow as 1/w: extrapolate w A, w B, and keep them scaled in this row */
    const double w0 = pcs_sqrt(IF97_PC - fine_p(t, qc - 3u));
    const double w1 = pcs_sqrt(IF97_PC - fine_p(t, qc - 2u));
    const double w2 = pcs_sqrt(IF97_PC - fine_p(t, qc - 1u));
    for (int k = S_A; k <= S_B; k++) {
        s3[k] = w0 * s0[k] - 3.0 * w1 * s1[k] + 3.0 * w2 * s2[k];
    }
    t->h_split = 0.5 * (s3[S_HL] + s3[S_HG]);
    s3[S_HL] = s3[S_HG] = t->h_split;
    s3[S_TS] = IF97_TC;
    for (uint32_t q = qc + 1u; q < q_extra(t); q++) {
        double *s = ss + (size_t)q * NS;
        for (int k = S_HL; k <= S_B; k++) {
            if (k != S_HHI) {
                s[k] = 0.0; /* no dome: unused */
            }
        }
        s[S_HL] = s[S_HG] = t->h_split;
        s[S_TS] = IF97_TC;
    }
}

/*
 * Exact values at (p, h) into f[NF]. A sample on the critical point itself
 * (the row at p_c at h_split), or one the region 3 Newton cannot solve, is
 * taken a little further inside its segment [lo, hi]: the derivatives there
 * are infinite and the table can only be as good as a finite stand-in.
 */
static pcs_status sample_node(int phase, const ph_sat *sat, double p, double h, double lo,
                              double hi, double *f)
{
    const double mid = 0.5 * (lo + hi);
    for (int k = 0; k < 8; k++) {
        const double frac = k == 0 ? 0.0 : pcs_pow(10.0, (double)(k - 10));
        const double hh = h + frac * (mid - h);
        pcs_water_ph_state q;
        pcs_status st = ph_single_phase("pcs_water_ph_table_create", phase, p, hh, sat, &q);
        if (st == PCS_OK && pcs_isfinite(q.drho_dp_s2_m2) && pcs_isfinite(q.drho_dh_kg2_m3j) &&
            pcs_isfinite(q.rho_kg_m3) && pcs_isfinite(q.t_k)) {
            f[0] = q.t_k;
            f[1] = q.rho_kg_m3;
            f[2] = q.drho_dp_s2_m2;
            f[3] = q.drho_dh_kg2_m3j;
            return PCS_OK;
        }
    }
    return pcs_error_set(
        PCS_E_INVAL, "pcs_water_ph_table_create: no exact state at p = %.10g Pa, h = %.10g J/kg", p,
        h);
}

/* Segment ends of sample row s: liquid [h_lo, h'], vapour [h'', h_hi]. */
static void segment(const double *s, int vapour, double *lo, double *hi)
{
    *lo = vapour ? s[S_HG] : s[S_HLO];
    *hi = vapour ? s[S_HHI] : s[S_HL];
}

/* All 2-D samples of sample row r into v[n_scols][NF]. */
static pcs_status sample_row(const pcs_water_ph_table *t, double p, const double *s, double *v)
{
    const uint32_t nl = 3u * t->cfg.n_liquid, nv = 3u * t->cfg.n_vapour;
    ph_sat sat;
    const int below = p < IF97_PC;
    if (below && !ph_sat_at(p, &sat)) {
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_water_ph_table_create: no saturation state at p = %.10g Pa", p);
    }
    for (uint32_t c = 0; c <= nl + nv + 1u; c++) {
        const int vapour = c > nl;
        const uint32_t b = vapour ? c - nl - 1u : c;
        const uint32_t n = vapour ? nv : nl;
        double lo, hi;
        segment(s, vapour, &lo, &hi);
        const double h = b == 0 ? lo : b == n ? hi : lo + (hi - lo) * ((double)b / (double)n);
        const int phase = !below   ? PCS_WATER_PH_SUPERCRITICAL
                          : vapour ? PCS_WATER_PH_VAPOUR
                                   : PCS_WATER_PH_LIQUID;
        const pcs_status st =
            sample_node(phase, below ? &sat : NULL, p, h, lo, hi, v + (size_t)c * NF);
        if (st != PCS_OK) {
            return st;
        }
    }
    return PCS_OK;
}

/* Monomial coefficients of the cubic through f(0), f(1/3), f(2/3), f(1). */
static void cubic_of(const double f[4], double c[4])
{
    c[0] = f[0];
    c[1] = 0.5 * (-11.0 * f[0] + 18.0 * f[1] - 9.0 * f[2] + 2.0 * f[3]);
    c[2] = 0.5 * (18.0 * f[0] - 45.0 * f[1] + 36.0 * f[2] - 9.0 * f[3]);
    c[3] = 0.5 * (-9.0 * f[0] + 27.0 * f[1] - 27.0 * f[2] + 9.0 * f[3]);
}

/* Cell (j, i) coefficients c[a][b][f] (t^a xi^b) from the sample grid. */
static void fill_cell(const pcs_water_ph_table *t, const double *v, uint32_t n_scols, uint32_t j,
                      uint32_t i, double *cell)
{
    const uint32_t nl = t->cfg.n_liquid;
    /* first sample column of xi cell i: liquid columns 0..3nl, vapour 3nl+1.. */
    const uint32_t c0 = i < nl ? 3u * i : 3u * nl + 1u + 3u * (i - nl);
    for (int f = 0; f < NF; f++) {
        double g[4][4]; /* g[a][b]: cubic in xi of sample row a */
        for (int a = 0; a < 4; a++) {
            const double *row = v + ((size_t)srow(t, j, (uint32_t)a) * n_scols + c0) * NF;
            const double y[4] = {row[f], row[NF + f], row[2 * NF + f], row[3 * NF + f]};
            cubic_of(y, g[a]);
        }
        for (int b = 0; b < 4; b++) {
            const double y[4] = {g[0][b], g[1][b], g[2][b], g[3][b]};
            double c[4];
            cubic_of(y, c);
            for (int a = 0; a < 4; a++) {
                cell[(a * 4 + b) * NF + f] = c[a];
            }
        }
    }
}

static void init_header(pcs_water_ph_table *t, const pcs_water_ph_table_def *cfg, double *sat,
                        double *cells)
{
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    t->n_rows = rows_of(cfg, &t->n_oct);
    t->j0 = first_cell(cfg->rows_per_octave);
    uint32_t lg = 0;
    while ((1u << lg) < cfg->rows_per_octave) {
        lg++;
    }
    t->shift = 52u - lg;
    t->frac_scale = pcs_pow(2.0, -(double)t->shift);
    t->n_xi = cfg->n_liquid + cfg->n_vapour;
    t->sat_sub = cfg->sat_refine;
    t->w_a = pcs_sqrt(IF97_PC - P_A);
    t->w_13 = pcs_sqrt(IF97_PC - IF97_PS13);
    /* split the sqrt zone at IF97_PS13, where the saturated liquid passes from
       region 1 to region 3 (a kink of h'(p): IF97's regions are consistent
       only to their stated tolerances, R7-97 Sec. 5), in proportion to w */
    const double share = (t->w_a - t->w_13) / t->w_a;
    uint32_t n1 = (uint32_t)(share * (double)cfg->n_near_critical + 0.5);
    n1 = n1 < 1u ? 1u : n1 > cfg->n_near_critical - 1u ? cfg->n_near_critical - 1u : n1;
    t->n_w1 = n1;
    t->n_w2 = cfg->n_near_critical - n1;
    t->inv_dw1 = (double)t->n_w1 / (t->w_a - t->w_13);
    t->inv_dw2 = (double)t->n_w2 / t->w_13;
    t->inv_dps = (double)cfg->n_super / (PCS_WATER_PH_P_MAX_PA - IF97_PC);
    t->sat = sat;
    t->cells = cells;
}

/* Cubics of the saturation data of row cell j, sub-cell k, from the fine rows. */
static void fill_sat(pcs_water_ph_table *t, const double *ss, uint32_t j, uint32_t k)
{
    const uint32_t kk = t->sat_sub;
    const int sqrt_zone = j >= t->n_oct && j < t->n_oct + t->cfg.n_near_critical;
    for (int f = 0; f < NS; f++) {
        double y[4];
        for (uint32_t a = 0; a < 4u; a++) {
            const uint32_t q =
                j == t->n_oct + t->n_w1 && k == 0 && a == 0 ? q_extra(t) : 3u * kk * j + 3u * k + a;
            y[a] = ss[(size_t)q * NS + (uint32_t)f];
            /* the sqrt zone stores w A and w B (A, B grow as 1/w); the row at
               p_c holds them scaled already (close_dome) */
            if (sqrt_zone && (f == S_A || f == S_B) && q != q_pc(t)) {
                y[a] *= pcs_sqrt(IF97_PC - fine_p(t, q));
            }
        }
        cubic_of(y, t->sat + (((size_t)j * kk + k) * NS + (size_t)f) * 4);
    }
}

static pcs_status build(pcs_water_ph_table *t, double *ss, double *v)
{
    const uint32_t n_fine = q_extra(t) + 1u;
    const uint32_t n_scols = 3u * t->n_xi + 2u;
    for (uint32_t q = 0; q < n_fine; q++) {
        const pcs_status st = sample_sat(t, q, ss + (size_t)q * NS);
        if (st != PCS_OK) {
            return st;
        }
    }
    close_dome(t, ss);
    for (uint32_t q = 0; q < n_fine; q++) {
        double *s = ss + (size_t)q * NS;
        s[S_IL] = (double)t->cfg.n_liquid / (s[S_HL] - s[S_HLO]);
        s[S_IV] = (double)t->cfg.n_vapour / (s[S_HHI] - s[S_HG]);
    }
    for (uint32_t r = 0; r <= 3u * t->n_rows + 1u; r++) {
        const uint32_t q = r == 3u * t->n_rows + 1u ? q_extra(t) : t->sat_sub * r;
        const pcs_status st =
            sample_row(t, fine_p(t, q), ss + (size_t)q * NS, v + (size_t)r * n_scols * NF);
        if (st != PCS_OK) {
            return st;
        }
    }
    for (uint32_t j = 0; j < t->n_rows; j++) {
        for (uint32_t k = 0; k < t->sat_sub; k++) {
            fill_sat(t, ss, j, k);
        }
        for (uint32_t i = 0; i < t->n_xi; i++) {
            fill_cell(t, v, n_scols, j, i, t->cells + ((size_t)j * t->n_xi + i) * CELL);
        }
    }
    return PCS_OK;
}

pcs_status pcs_water_ph_table_create(const pcs_water_ph_table_def *cfg, pcs_water_ph_table **out)
{
    static const char fn[] = "pcs_water_ph_table_create";
    pcs_status st = if97_check_out(fn, "out", out);
    if (st == PCS_OK) {
        st = check_config(fn, cfg);
    }
    if (st != PCS_OK) {
        return st;
    }
    size_t off_sat, off_cells;
    const size_t bytes = bytes_of(cfg, &off_sat, &off_cells);
    unsigned char *block = aligned_alloc(64, align64(bytes));
    pcs_water_ph_table tmp;
    init_header(&tmp, cfg, NULL, NULL);
    const size_t n_srows = 3u * (size_t)tmp.n_rows + 2u, n_scols = 3u * (size_t)tmp.n_xi + 2u;
    double *ss = malloc(((size_t)q_extra(&tmp) + 1u) * NS * sizeof(double));
    double *v = malloc(n_srows * n_scols * NF * sizeof(double));
    if (block == NULL || ss == NULL || v == NULL) {
        free(block);
        free(ss);
        free(v);
        return pcs_error_set(PCS_E_NOMEM, "%s: %zu bytes", fn, bytes);
    }
    pcs_water_ph_table *t = (pcs_water_ph_table *)block;
    init_header(t, cfg, (double *)(block + off_sat), (double *)(block + off_cells));
    st = build(t, ss, v);
    free(ss);
    free(v);
    if (st != PCS_OK) {
        free(block);
        return st;
    }
    *out = t;
    return PCS_OK;
}

/*
 * One free for both kinds of table: a made table is one block that starts
 * with its header; a borrowed one (ph_table_borrow) is a header alone, its
 * arrays in an image its owner keeps.
 */
void pcs_water_ph_table_destroy(pcs_water_ph_table *t)
{
    free(t);
}

/* ---------------------------------------------------------------------- */
/* Parts, for the image format (water_ph_image.c)                          */
/* ---------------------------------------------------------------------- */

pcs_status ph_table_check_def(const char *fn, const pcs_water_ph_table_def *cfg)
{
    return check_config(fn, cfg);
}

void ph_table_sizes(const pcs_water_ph_table_def *cfg, ph_table_parts *out)
{
    uint32_t n_oct;
    out->n_rows = rows_of(cfg, &n_oct);
    out->n_xi = cfg->n_liquid + cfg->n_vapour;
    out->n_sat = (uint64_t)out->n_rows * cfg->sat_refine * NS * 4u;
    out->n_cells = (uint64_t)out->n_rows * out->n_xi * CELL;
}

void ph_table_parts_of(const pcs_water_ph_table *t, ph_table_parts *out)
{
    out->def = t->cfg;
    ph_table_sizes(&t->cfg, out);
    out->h_split = t->h_split;
    out->sat = t->sat;
    out->cells = t->cells;
}

pcs_water_ph_table *ph_table_borrow(const ph_table_parts *parts)
{
    pcs_water_ph_table *t = malloc(sizeof *t);
    if (t != NULL) {
        /* read-only from here on, as every table: the casts only fit the
           one header type both kinds share */
        init_header(t, &parts->def, (double *)(uintptr_t)parts->sat,
                    (double *)(uintptr_t)parts->cells);
        t->h_split = parts->h_split;
    }
    return t;
}

int ph_table_headers_equal(const pcs_water_ph_table *a, const pcs_water_ph_table *b)
{
    /* init_header zeroes the padding, so the bytes compare; the array
       pointers differ by construction and are left out */
    pcs_water_ph_table x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    x.sat = y.sat = NULL;
    x.cells = y.cells = NULL;
    return memcmp(&x, &y, sizeof x) == 0;
}

/* ---------------------------------------------------------------------- */
/* Lookup                                                                   */
/* ---------------------------------------------------------------------- */

/* Estrin's scheme: a shorter dependency chain than Horner's, on the lookup's critical path. */
static inline double cubic_at(const double *c, double t)
{
    return (c[0] + c[1] * t) + (c[2] + c[3] * t) * (t * t);
}

/*
 * Row cell of p (in range) and its coordinate t in [0, 1]; *w = sqrt(p_c - p)
 * in the sqrt zone (A and B are stored times w there), else 1. sqrt from
 * <math.h> (correctly rounded, as pcs_sqrt, but inlined: it is on the
 * lookup's critical path).
 */
static inline uint32_t row_of(const pcs_water_ph_table *t, double p, double *tt, double *w_out)
{
    *w_out = 1.0;
    if (p < P_A) {
        uint64_t bits;
        memcpy(&bits, &p, sizeof bits);
        const uint32_t e = (uint32_t)(bits >> 52) - 1023u - OCT_E0;
        const uint64_t mant = bits & 0xFFFFFFFFFFFFFull;
        const uint32_t k = (uint32_t)(mant >> t->shift);
        *tt = (double)(mant & ((1ull << t->shift) - 1u)) * t->frac_scale;
        return e * t->cfg.rows_per_octave + k - t->j0;
    }
    uint32_t j, n;
    double u;
    if (p < IF97_PS13) {
        const double w = sqrt(IF97_PC - p);
        *w_out = w;
        u = (t->w_a - w) * t->inv_dw1;
        j = t->n_oct;
        n = t->n_w1;
    } else if (p < IF97_PC) {
        const double w = sqrt(IF97_PC - p);
        *w_out = w;
        u = (t->w_13 - w) * t->inv_dw2;
        j = t->n_oct + t->n_w1;
        n = t->n_w2;
    } else {
        u = (p - IF97_PC) * t->inv_dps;
        j = t->n_oct + t->cfg.n_near_critical;
        n = t->cfg.n_super;
    }
    uint32_t k = (uint32_t)u;
    k = k < n ? k : n - 1u;
    *tt = u - (double)k;
    return j + k;
}

static pcs_status lookup_fail(const char *fn, double p, double h, double lo, double hi)
{
    return pcs_error_set(PCS_E_INVAL,
                         "%s: h_j_kg = %.10g J/kg at p = %.10g Pa is "
                         "outside [%.10g, %.10g] J/kg (T from 273.16 K to 1073.15 K)",
                         fn, h, p, lo, hi);
}

/*
 * y[f] = sum_ab c[a][b][f] tt^a sx^b for the four functions: Estrin's
 * scheme in both variables (pairs first, then the squares), which halves the
 * dependency chain of Horner's, with the four functions side by side in two
 * 2-wide vectors (GCC/Clang vector extensions: plain IEEE multiplies and
 * adds lane by lane, so the values are those of the scalar expression; the
 * cell is 64-byte aligned, the loads are 16-byte aligned).
 */
typedef double ph_v2 __attribute__((vector_size(16)));

static inline ph_v2 ld2(const double *p)
{
    ph_v2 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void bicubic(const double *c, double tt, double sx, double y[NF])
{
    const ph_v2 x1 = {sx, sx}, x2 = {sx * sx, sx * sx};
    const ph_v2 t1 = {tt, tt}, t2 = {tt * tt, tt * tt};
    ph_v2 r[4][2];
    for (int a = 0; a < 4; a++) {
        const double *ca = c + a * 4 * NF;
        for (int f = 0; f < 2; f++) {
            const double *q = ca + 2 * f;
            r[a][f] = (ld2(q) + ld2(q + NF) * x1) + (ld2(q + 2 * NF) + ld2(q + 3 * NF) * x1) * x2;
        }
    }
    for (int f = 0; f < 2; f++) {
        const ph_v2 v = (r[0][f] + r[1][f] * t1) + (r[2][f] + r[3][f] * t1) * t2;
        y[2 * f] = v[0];
        y[2 * f + 1] = v[1];
    }
}

/*
 * The state at (p, h) without u: shared by the full and the lean lookup
 * (always inlined into both, so the lean one drops what it does not return,
 * its outputs stay in registers, and the two agree bit for bit). *bad is set (and nothing else)
 * when h is outside the domain; the caller reports it (lookup_fail) off the hot path.
 *
 * Dependency chain, single phase: p -> row cell (bits of p, or one sqrt from
 * 8.39 MPa up) -> one fetch of the saturation sub-cell's first three lines
 * -> the segment ends and inverse width (cubics) -> xi by one product ->
 * one fetch of the (t, xi) cell (8 lines, adjacent) -> the bicubic. No
 * division. The dome adds x, 1/v and, in the sqrt zone, A / w and B / w:
 * divisions that can overlap.
 */
static inline __attribute__((always_inline)) void eval(const pcs_water_ph_table *t, double p_pa,
                                                       double h_j_kg, pcs_water_ph_state *out,
                                                       double *vg_out, int *bad, double *hlo_out,
                                                       double *hhi_out)
{
    double tt, w;
    const uint32_t j = row_of(t, p_pa, &tt, &w);
    /* saturation sub-cell */
    const double ut = tt * (double)t->sat_sub;
    uint32_t k = (uint32_t)ut;
    k = k < t->sat_sub ? k : t->sat_sub - 1u;
    const double ts = ut - (double)k;
    const double *s = t->sat + ((size_t)j * t->sat_sub + k) * NS * 4;
    const double hlo = cubic_at(s + S_HLO * 4, ts), hhi = cubic_at(s + S_HHI * 4, ts);
    const double tol = H_TOL_REL * (hhi - hlo);
    *hlo_out = hlo;
    *hhi_out = hhi;
    *bad = !(h_j_kg >= hlo - tol && h_j_kg <= hhi + tol);
    if (*bad) {
        return;
    }
    const double hl = cubic_at(s + S_HL * 4, ts), hg = cubic_at(s + S_HG * 4, ts);
    if (h_j_kg > hl && h_j_kg < hg) {
        const double tsat = cubic_at(s + S_TS * 4, ts);
        const double vl = cubic_at(s + S_VL * 4, ts);
        const double c = cubic_at(s + S_C * 4, ts);
        const double a = cubic_at(s + S_A * 4, ts) / w;
        const double b = cubic_at(s + S_B * 4, ts) / w;
        const double x = (h_j_kg - hl) / (hg - hl);
        const double v = vl + (h_j_kg - hl) * c;
        const double rho = 1.0 / v;
        out->phase = PCS_WATER_PH_TWO_PHASE;
        out->t_k = tsat;
        out->rho_kg_m3 = rho;
        out->x = x;
        *vg_out = vl + (hg - hl) * c;
        out->drho_dp_s2_m2 = -rho * rho * (a + x * b);
        out->drho_dh_kg2_m3j = -rho * rho * c;
        return;
    }
    const int vapour = h_j_kg >= hg;
    const double lo = vapour ? hg : hlo;
    const double inv = cubic_at(s + (vapour ? S_IV : S_IL) * 4, ts); /* n / (hi - lo) */
    const uint32_t n = vapour ? t->cfg.n_vapour : t->cfg.n_liquid;
    double xi = (h_j_kg - lo) * inv;
    xi = xi > 0.0 ? xi : 0.0;
    /* clamped while still a double: an opened image's inverse widths are not
       checked, and a corrupted one can put xi past any uint32_t, whose
       conversion is undefined (C17 6.3.1.4p1); the same cell as converting
       first for every xi below 2^32 */
    const uint32_t i = xi < (double)n ? (uint32_t)xi : n - 1u;
    const double sx = xi - (double)i;
    const double *c = t->cells + ((size_t)j * t->n_xi + (vapour ? t->cfg.n_liquid : 0u) + i) * CELL;
    double y[NF];
    bicubic(c, tt, sx, y);
    out->phase = p_pa >= IF97_PC ? PCS_WATER_PH_SUPERCRITICAL
                 : vapour        ? PCS_WATER_PH_VAPOUR
                                 : PCS_WATER_PH_LIQUID;
    out->t_k = y[0];
    out->rho_kg_m3 = y[1];
    out->x = vapour && p_pa < IF97_PC ? 1.0 : 0.0;
    *vg_out = 0.0;
    out->drho_dp_s2_m2 = y[2];
    out->drho_dh_kg2_m3j = y[3];
}

/* The checks and evaluation both public lookups share: @p out is the
 * caller's result pointer, only tested for NULL (the message names it).
 * Always inlined, as eval is: each entry point then keeps only the part of
 * the evaluation its result uses (an out-of-line copy made the lean lookup
 * compute the full state, ~10 % more instructions per lookup). */
static inline __attribute__((always_inline)) pcs_status
checked_eval(const char *fn, const pcs_water_ph_table *t, const void *out, double p_pa,
             double h_j_kg, pcs_water_ph_state *q, double *vg)
{
    if (t == NULL || out == NULL) {
        return pcs_error_set(PCS_E_INVAL, "%s: %s is NULL", fn, t == NULL ? "t" : "out");
    }
    if (!(p_pa >= PCS_WATER_PH_P_MIN_PA && p_pa <= PCS_WATER_PH_P_MAX_PA)) {
        return if97_check(fn, "p_pa", p_pa, PCS_WATER_PH_P_MIN_PA, PCS_WATER_PH_P_MAX_PA, "Pa");
    }
    /* h's own test, not left to the domain test in eval: an opened image's
       h_min and h_max cubics are not checked, and infinite ends would let
       h = +-inf through (found by fuzz_water_ph_image). fabs is an and-mask,
       no libm call; NaN fails the compare too. */
    if (!(fabs(h_j_kg) <= DBL_MAX)) {
        return pcs_error_set(PCS_E_INVAL,
                             "%s: h_j_kg = %g J/kg at p = %.10g Pa is not finite (allowed: "
                             "pcs_water_ph_h_range(p))",
                             fn, h_j_kg, p_pa);
    }
    double hlo, hhi;
    int bad;
    eval(t, p_pa, h_j_kg, q, vg, &bad, &hlo, &hhi);
    if (bad) {
        return lookup_fail(fn, p_pa, h_j_kg, hlo, hhi);
    }
    return PCS_OK;
}

pcs_status pcs_water_ph_table_lookup(const pcs_water_ph_table *t, double p_pa, double h_j_kg,
                                     pcs_water_ph_state *out)
{
    pcs_water_ph_state q;
    double vg;
    pcs_status st = checked_eval("pcs_water_ph_table_lookup", t, out, p_pa, h_j_kg, &q, &vg);
    if (st != PCS_OK) {
        return st;
    }
    q.u_j_kg = h_j_kg - p_pa / q.rho_kg_m3;
    q.alpha = q.phase == PCS_WATER_PH_TWO_PHASE ? q.x * vg * q.rho_kg_m3 : q.x;
    *out = q;
    return PCS_OK;
}

pcs_status pcs_water_ph_table_rho(const pcs_water_ph_table *t, double p_pa, double h_j_kg,
                                  pcs_water_ph_rho *out)
{
    pcs_water_ph_state q = {0}; /* set by checked_eval on success; gcc cannot see it */
    double vg;
    pcs_status st = checked_eval("pcs_water_ph_table_rho", t, out, p_pa, h_j_kg, &q, &vg);
    if (st != PCS_OK) {
        return st;
    }
    out->phase = q.phase;
    out->t_k = q.t_k;
    out->rho_kg_m3 = q.rho_kg_m3;
    out->drho_dp_s2_m2 = q.drho_dp_s2_m2;
    out->drho_dh_kg2_m3j = q.drho_dh_kg2_m3j;
    return PCS_OK;
}
