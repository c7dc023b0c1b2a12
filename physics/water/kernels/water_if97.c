/**
 * @file water_if97.c
 * @brief IAPWS-IF97 forward equations: regions 1, 2, 3 and 5, the saturation
 *        line (region 4) and the boundary equations B23, B2bc and h_3ab.
 *
 * Every equation and coefficient table is from IAPWS R7-97(2012) unless marked
 * SR3-03 (IAPWS SR3-03(2014)). The coefficient tables are transcribed row by
 * row as {I, J, n} so they can be checked against the release line by line.
 *
 * Regions 1, 2 and 5 are Gibbs free energies g(p,T)/(RT) = gamma(pi, tau);
 * region 3 is a Helmholtz free energy f(rho,T)/(RT) = phi(delta, tau). All
 * properties follow from the first and second derivatives (R7-97 Tables 3,
 * 12, 31, 39), which if97_sum_all produces from one pass over the terms.
 */
#include <stddef.h>
#include <string.h>

#include "physics/water/kernels/if97_internal.h"
#include "pcsim/math.h"

/* ---------------------------------------------------------------------- */
/* Region 1: Eq. 7, Table 2 (coefficients); p* = 16.53 MPa, T* = 1386 K.    */
/* gamma = sum n (7.1 - pi)^I (tau - 1.222)^J                              */
/* ---------------------------------------------------------------------- */

const if97_term if97_r1_terms[34] = {
    {0, -2, 1.4632971213167e-1},     {0, -1, -8.4548187169114e-1},
    {0, 0, -3.756360367204e0},       {0, 1, 3.3855169168385e0},
    {0, 2, -9.5791963387872e-1},     {0, 3, 1.5772038513228e-1},
    {0, 4, -1.6616417199501e-2},     {0, 5, 8.1214629983568e-4},
    {1, -9, 2.8319080123804e-4},     {1, -7, -6.0706301565874e-4},
    {1, -1, -1.8990068218419e-2},    {1, 0, -3.2529748770505e-2},
    {1, 1, -2.1841717175414e-2},     {1, 3, -5.283835796993e-5},
    {2, -3, -4.7184321073267e-4},    {2, 0, -3.0001780793026e-4},
    {2, 1, 4.7661393906987e-5},      {2, 3, -4.4141845330846e-6},
    {2, 17, -7.2694996297594e-16},   {3, -4, -3.1679644845054e-5},
    {3, 0, -2.8270797985312e-6},     {3, 6, -8.5205128120103e-10},
    {4, -5, -2.2425281908e-6},       {4, -2, -6.5171222895601e-7},
    {4, 10, -1.4341729937924e-13},   {5, -8, -4.0516996860117e-7},
    {8, -11, -1.2734301741641e-9},   {8, -6, -1.7424871230634e-10},
    {21, -29, -6.8762131295531e-19}, {23, -31, 1.4478307828521e-20},
    {29, -38, 2.6335781662795e-23},  {30, -39, -1.1947622640071e-23},
    {31, -40, 1.8228094581404e-24},  {32, -41, -9.3537087292458e-26},
};

#define R1_PSTAR 16.53e6
#define R1_TSTAR 1386.0

/*
 * x^I y^J of the 34 terms, in Table 2 order, with each power built from
 * smaller ones in a short chain (about 35 multiplications and one division
 * instead of 34 calls to pow). tests/test_if97_kernels.c checks every product
 * against the {I, J} of if97_r1_terms.
 */
void if97_r1_products(double x, double y, double a[34])
{
    const double x2 = x * x, x3 = x2 * x, x4 = x2 * x2, x5 = x4 * x, x8 = x4 * x4;
    const double x16 = x8 * x8, x21 = x16 * x5, x23 = x21 * x2, x29 = x21 * x8;
    const double x30 = x29 * x, x31 = x30 * x, x32 = x16 * x16;
    const double y2 = y * y, y3 = y2 * y, y4 = y2 * y2, y5 = y4 * y, y6 = y3 * y3;
    const double y10 = y5 * y5, y17 = y10 * y6 * y;
    const double v1 = 1.0 / y, v2 = v1 * v1, v3 = v2 * v1, v4 = v2 * v2, v5 = v4 * v1;
    const double v6 = v3 * v3, v7 = v4 * v3, v8 = v4 * v4, v9 = v8 * v1, v11 = v8 * v3;
    const double v29 = v11 * v11 * v7, v31 = v29 * v2, v38 = v31 * v7, v39 = v38 * v1;
    const double v40 = v38 * v2, v41 = v40 * v1;
    /* one row per I, in table order */
    const double prod[34] = {
        v2,        v1,        1.0,       y,         y2,        y3,        y4, y5, /* I = 0 */
        x * v9,    x * v7,    x * v1,    x,         x * y,     x * y3,            /* I = 1 */
        x2 * v3,   x2,        x2 * y,    x2 * y3,   x2 * y17,                     /* I = 2 */
        x3 * v4,   x3,        x3 * y6,   x4 * v5,   x4 * v2,   x4 * y10,          /* I = 3, 4 */
        x5 * v8,   x8 * v11,  x8 * v6,                                            /* I = 5, 8 */
        x21 * v29, x23 * v31, x29 * v38, x30 * v39, x31 * v40, x32 * v41,         /* I = 21..32 */
    };
    memcpy(a, prod, sizeof prod);
}

void if97_r1_eval(double p, double t, if97_r1_at *w)
{
    w->pi = p / R1_PSTAR;
    w->tau = R1_TSTAR / t;
    w->x = 7.1 - w->pi;
    w->y = w->tau - 1.222;
    if97_r1_products(w->x, w->y, w->a);
    for (int k = 0; k < 34; k++) {
        w->a[k] *= if97_r1_terms[k].n;
    }
}

double if97_region1_h(double p, double t)
{
    if97_r1_at w;
    if97_r1_eval(p, t, &w);
    const double sj = if97_lane_sum(if97_r1_terms, w.a, 34, IF97_W_J); /* y * gamma_tau */
    /* h = R T tau gamma_tau (Table 3) */
    return IF97_R * t * w.tau * (sj / w.y);
}

double if97_region1_v(double p, double t)
{
    if97_r1_at w;
    if97_r1_eval(p, t, &w);
    const double si = if97_lane_sum(if97_r1_terms, w.a, 34, IF97_W_I); /* -x * gamma_pi */
    /* v = R T pi gamma_pi / p (Table 3) */
    return IF97_R * t * w.pi * (-si / w.x) / p;
}

void if97_region1_h_cp(double p, double t, double *h, double *cp)
{
    if97_r1_at w;
    if97_r1_eval(p, t, &w);
    const double sj = if97_lane_sum(if97_r1_terms, w.a, 34, IF97_W_J);
    const double sjj = if97_lane_sum(if97_r1_terms, w.a, 34, IF97_W_JJ);
    const double g_t = sj / w.y;
    const double g_tt = sjj / (w.y * w.y);
    *h = IF97_R * t * w.tau * g_t;
    *cp = -IF97_R * w.tau * w.tau * g_tt;
}

void if97_region1_s_dsdt(double p, double t, double *s, double *dsdt)
{
    if97_r1_at w;
    if97_r1_eval(p, t, &w);
    const double f = if97_lane_sum(if97_r1_terms, w.a, 34, IF97_W_1);
    const double sj = if97_lane_sum(if97_r1_terms, w.a, 34, IF97_W_J);
    const double sjj = if97_lane_sum(if97_r1_terms, w.a, 34, IF97_W_JJ);
    const double g_t = sj / w.y;
    const double g_tt = sjj / (w.y * w.y);
    *s = IF97_R * (w.tau * g_t - f);
    *dsdt = -IF97_R * w.tau * w.tau * g_tt / t; /* (ds/dT)_p = cp / T */
}

void if97_region1_props(double p, double t, pcs_water_props *out)
{
    if97_r1_at w;
    if97_r1_eval(p, t, &w);
    if97_sums s;
    if97_sum_terms(if97_r1_terms, 34, w.a, w.x, w.y, &s);
    /* d/dpi = -d/dx because x = 7.1 - pi */
    const double g = s.f, g_p = -s.fx, g_pp = s.fxx, g_t = s.fy, g_tt = s.fyy, g_pt = -s.fxy;
    const double pi = w.pi, tau = w.tau, rt = IF97_R * t;
    const double a = g_p - tau * g_pt;
    /* Table 3 */
    out->region = 1;
    out->p_pa = p;
    out->t_k = t;
    out->v_m3_kg = rt * pi * g_p / p;
    out->rho_kg_m3 = 1.0 / out->v_m3_kg;
    out->h_j_kg = rt * tau * g_t;
    out->u_j_kg = rt * (tau * g_t - pi * g_p);
    out->s_j_kg_k = IF97_R * (tau * g_t - g);
    out->cp_j_kg_k = -IF97_R * tau * tau * g_tt;
    out->cv_j_kg_k = IF97_R * (-tau * tau * g_tt + a * a / g_pp);
    out->w_m_s = pcs_sqrt(rt * g_p * g_p / (a * a / (tau * tau * g_tt) - g_pp));
    out->quality = -1.0;
}

/* ---------------------------------------------------------------------- */
/* Region 2: Eq. 15-17; ideal part Table 10, residual part Table 11;        */
/* p* = 1 MPa, T* = 540 K.                                                  */
/* gamma0 = ln pi + sum n0 tau^J0;  gammar = sum n pi^I (tau - 0.5)^J       */
/* ---------------------------------------------------------------------- */

static const if97_term r2_ideal[9] = {
    {0, 0, -9.6927686500217e0},  {0, 1, 1.0086655968018e1},    {0, -5, -5.608791128302e-3},
    {0, -4, 7.1452738081455e-2}, {0, -3, -4.0710498223928e-1}, {0, -2, 1.4240819171444e0},
    {0, -1, -4.383951131945e0},  {0, 2, -2.8408632460772e-1},  {0, 3, 2.1268463753307e-2},
};

const if97_term if97_r2_res_terms[43] = {
    {1, 0, -1.7731742473213e-3},    {1, 1, -1.7834862292358e-2},    {1, 2, -4.5996013696365e-2},
    {1, 3, -5.7581259083432e-2},    {1, 6, -5.032527872793e-2},     {2, 1, -3.3032641670203e-5},
    {2, 2, -1.8948987516315e-4},    {2, 4, -3.9392777243355e-3},    {2, 7, -4.3797295650573e-2},
    {2, 36, -2.6674547914087e-5},   {3, 0, 2.0481737692309e-8},     {3, 1, 4.3870667284435e-7},
    {3, 3, -3.227767723857e-5},     {3, 6, -1.5033924542148e-3},    {3, 35, -4.0668253562649e-2},
    {4, 1, -7.8847309559367e-10},   {4, 2, 1.2790717852285e-8},     {4, 3, 4.8225372718507e-7},
    {5, 7, 2.2922076337661e-6},     {6, 3, -1.6714766451061e-11},   {6, 16, -2.1171472321355e-3},
    {6, 35, -2.3895741934104e1},    {7, 0, -5.905956432427e-18},    {7, 11, -1.2621808899101e-6},
    {7, 25, -3.8946842435739e-2},   {8, 8, 1.1256211360459e-11},    {8, 36, -8.2311340897998e0},
    {9, 13, 1.9809712802088e-8},    {10, 4, 1.0406965210174e-19},   {10, 10, -1.0234747095929e-13},
    {10, 14, -1.0018179379511e-9},  {16, 29, -8.0882908646985e-11}, {16, 50, 1.0693031879409e-1},
    {18, 57, -3.3662250574171e-1},  {20, 20, 8.9185845355421e-25},  {20, 35, 3.0629316876232e-13},
    {20, 48, -4.2002467698208e-6},  {21, 21, -5.9056029685639e-26}, {22, 53, 3.7826947613457e-6},
    {23, 39, -1.2768608934681e-15}, {24, 26, 7.3087610595061e-29},  {24, 40, 5.5414715350778e-17},
    {24, 58, -9.436970724121e-7},
};

/*
 * Region 5 (R7-97(2012) Eq. 32-34; ideal part Table 37, residual part Table
 * 38 as revised in 2007); p* = 1 MPa, T* = 1000 K. Same structure as region 2
 * except that the residual part uses tau itself, not tau - 0.5.
 */
static const if97_term r5_ideal[6] = {
    {0, 0, -1.3179983674201e1},  {0, 1, 6.8540841634434e0},   {0, -3, -2.4805148933466e-2},
    {0, -2, 3.6901534980333e-1}, {0, -1, -3.1161318213925e0}, {0, 2, -3.2961626538917e-1},
};

static const if97_term r5_res[6] = {
    {1, 1, 1.5736404855259e-3}, {1, 2, 9.0153761673944e-4},  {1, 3, -5.0270077677648e-3},
    {2, 3, 2.2440037409485e-6}, {2, 9, -4.1163275453471e-6}, {3, 7, 3.7919454822955e-8},
};

/*
 * pi^I y^J of the 43 residual terms of region 2 (Table 11 order), y = tau - 0.5,
 * each power from smaller ones (about 45 multiplications). Checked against
 * the {I, J} of if97_r2_res_terms by tests/test_if97_kernels.c.
 */
void if97_r2_products(double pi, double y, double a[43])
{
    const double p2 = pi * pi, p3 = p2 * pi, p4 = p2 * p2, p5 = p4 * pi, p6 = p3 * p3;
    const double p7 = p6 * pi, p8 = p4 * p4, p9 = p8 * pi, p10 = p5 * p5, p16 = p8 * p8;
    const double p18 = p16 * p2, p20 = p10 * p10, p21 = p20 * pi, p22 = p20 * p2;
    const double p23 = p20 * p3, p24 = p20 * p4;
    const double y2 = y * y, y3 = y2 * y, y4 = y2 * y2, y6 = y3 * y3, y7 = y6 * y;
    const double y8 = y4 * y4, y10 = y8 * y2, y11 = y10 * y, y13 = y10 * y3, y14 = y7 * y7;
    const double y16 = y8 * y8, y20 = y10 * y10, y21 = y20 * y, y25 = y21 * y4;
    const double y26 = y13 * y13, y29 = y25 * y4, y35 = y29 * y6, y36 = y35 * y;
    const double y39 = y35 * y4, y40 = y20 * y20, y48 = y40 * y8, y50 = y40 * y10;
    const double y53 = y50 * y3, y57 = y53 * y4, y58 = y29 * y29;
    /* one row per I, in table order */
    const double prod[43] = {
        pi,        pi * y,    pi * y2,   pi * y3,   pi * y6,              /* I = 1 */
        p2 * y,    p2 * y2,   p2 * y4,   p2 * y7,   p2 * y36,             /* I = 2 */
        p3,        p3 * y,    p3 * y3,   p3 * y6,   p3 * y35,             /* I = 3 */
        p4 * y,    p4 * y2,   p4 * y3,   p5 * y7,                         /* I = 4, 5 */
        p6 * y3,   p6 * y16,  p6 * y35,  p7,        p7 * y11,  p7 * y25,  /* I = 6, 7 */
        p8 * y8,   p8 * y36,  p9 * y13,  p10 * y4,  p10 * y10, p10 * y14, /* I = 8..10 */
        p16 * y29, p16 * y50, p18 * y57, p20 * y20, p20 * y35, p20 * y48, /* I = 16..20 */
        p21 * y21, p22 * y53, p23 * y39, p24 * y26, p24 * y40, p24 * y58, /* I = 21..24 */
    };
    memcpy(a, prod, sizeof prod);
}

/* pi^I tau^J of the 6 residual terms of region 5 (Table 38 order). */
static void r5_products(double pi, double tau, double a[6])
{
    const double t2 = tau * tau, t3 = t2 * tau, t7 = t3 * t3 * tau, t9 = t7 * t2;
    const double p2 = pi * pi;
    /* one row per I, in table order */
    const double prod[6] = {
        pi * tau, pi * t2, pi * t3,      /* I = 1 */
        p2 * t3,  p2 * t9, p2 * pi * t7, /* I = 2, 3 */
    };
    memcpy(a, prod, sizeof prod);
}

/* Gibbs-type equation with ideal + residual parts (regions 2 and 5). */
typedef struct gibbs2 {
    const if97_term *ideal;
    int n_ideal;
    const if97_term *res;
    int n_res;
    void (*products)(double pi, double y, double *a);
    double pstar, tstar, tau_shift; /* residual in (tau - tau_shift) */
    int jlo0, jhi0;                 /* ideal part: tau^jlo0 .. tau^jhi0 */
} gibbs2;

static const gibbs2 g_r2 = {r2_ideal, 9, if97_r2_res_terms, 43, if97_r2_products, 1e6, 540.0, 0.5,
                            -5,       3};
static const gibbs2 g_r5 = {r5_ideal, 6, r5_res, 6, r5_products, 1e6, 1000.0, 0.0, -3, 2};

static void gibbs2_terms(const gibbs2 *m, double p, double t, if97_gibbs2_at *w)
{
    w->pi = p / m->pstar;
    w->tau = m->tstar / t;
    w->y = w->tau - m->tau_shift;
    m->products(w->pi, w->y, w->a);
    for (int k = 0; k < m->n_res; k++) {
        w->a[k] *= m->res[k].n;
    }
}

void if97_r2_res_eval(double p, double t, if97_gibbs2_at *w)
{
    gibbs2_terms(&g_r2, p, t, w);
}

/* Ideal part: gamma0 - ln pi, and its tau derivatives (Table 13 / 40). */
static void gibbs2_ideal(const gibbs2 *m, double tau, double *g0, double *g0_t, double *g0_tt)
{
    double pt[16];
    if97_powers(tau, m->jlo0, m->jhi0, pt);
    double f = 0.0, sj = 0.0, sjj = 0.0;
    for (int k = 0; k < m->n_ideal; k++) {
        const double a = m->ideal[k].n * pt[m->ideal[k].j - m->jlo0];
        const double dj = (double)m->ideal[k].j;
        f += a;
        sj += dj * a;
        sjj += dj * (dj - 1.0) * a;
    }
    const double it = 1.0 / tau;
    *g0 = f;
    *g0_t = sj * it;
    *g0_tt = sjj * it * it;
}

static void gibbs2_props(const gibbs2 *m, int region, double p, double t, pcs_water_props *out)
{
    if97_gibbs2_at w;
    gibbs2_terms(m, p, t, &w);
    if97_sums r;
    if97_sum_terms(m->res, m->n_res, w.a, w.pi, w.y, &r);
    double g0, g0_t, g0_tt;
    gibbs2_ideal(m, w.tau, &g0, &g0_t, &g0_tt);
    const double pi = w.pi, tau = w.tau, rt = IF97_R * t;
    const double g_t = g0_t + r.fy;
    const double g_tt = g0_tt + r.fyy;
    const double a = 1.0 + pi * r.fx - tau * pi * r.fxy;
    const double b = 1.0 - pi * pi * r.fxx;
    /* Table 12 (region 2) and Table 39 (region 5); gamma0_pi = 1/pi */
    out->region = region;
    out->p_pa = p;
    out->t_k = t;
    out->v_m3_kg = rt / p * (1.0 + pi * r.fx);
    out->rho_kg_m3 = 1.0 / out->v_m3_kg;
    out->h_j_kg = rt * tau * g_t;
    out->u_j_kg = rt * (tau * g_t - (1.0 + pi * r.fx));
    out->s_j_kg_k = IF97_R * (tau * g_t - (pcs_log(pi) + g0 + r.f));
    out->cp_j_kg_k = -IF97_R * tau * tau * g_tt;
    out->cv_j_kg_k = IF97_R * (-tau * tau * g_tt - a * a / b);
    const double num = 1.0 + 2.0 * pi * r.fx + pi * pi * r.fx * r.fx;
    out->w_m_s = pcs_sqrt(rt * num / (b + a * a / (tau * tau * g_tt)));
    out->quality = -1.0;
}

void if97_region2_props(double p, double t, pcs_water_props *out)
{
    gibbs2_props(&g_r2, 2, p, t, out);
}

void if97_region5_props(double p, double t, pcs_water_props *out)
{
    gibbs2_props(&g_r5, 5, p, t, out);
}

/*
 * gamma_tau, and optionally gamma_tautau and gamma, of a region 2/5 equation
 * without the pi-derivative sums: what h, cp and s need.
 */
static double gibbs2_gt(const gibbs2 *m, double p, double t, double *tau_out, double *gtt,
                        double *g)
{
    if97_gibbs2_at w;
    gibbs2_terms(m, p, t, &w);
    double g0, g0_t, g0_tt;
    gibbs2_ideal(m, w.tau, &g0, &g0_t, &g0_tt);
    const double sj = if97_lane_sum(m->res, w.a, m->n_res, IF97_W_J);
    const double sjj = gtt != NULL ? if97_lane_sum(m->res, w.a, m->n_res, IF97_W_JJ) : 0.0;
    const double f = g != NULL ? if97_lane_sum(m->res, w.a, m->n_res, IF97_W_1) : 0.0;
    const double iy = 1.0 / w.y;
    *tau_out = w.tau;
    if (gtt != NULL) {
        *gtt = g0_tt + sjj * iy * iy;
    }
    if (g != NULL) {
        *g = pcs_log(w.pi) + g0 + f;
    }
    return g0_t + sj * iy;
}

double if97_region2_h(double p, double t)
{
    double tau;
    const double gt = gibbs2_gt(&g_r2, p, t, &tau, NULL, NULL);
    return IF97_R * t * tau * gt;
}

void if97_region2_h_cp(double p, double t, double *h, double *cp)
{
    double tau, gtt;
    const double gt = gibbs2_gt(&g_r2, p, t, &tau, &gtt, NULL);
    *h = IF97_R * t * tau * gt;
    *cp = -IF97_R * tau * tau * gtt;
}

void if97_region2_s_dsdt(double p, double t, double *s, double *dsdt)
{
    double tau, gtt, g;
    const double gt = gibbs2_gt(&g_r2, p, t, &tau, &gtt, &g);
    *s = IF97_R * (tau * gt - g);
    *dsdt = -IF97_R * tau * tau * gtt / t;
}

double if97_region5_h(double p, double t)
{
    double tau;
    const double gt = gibbs2_gt(&g_r5, p, t, &tau, NULL, NULL);
    return IF97_R * t * tau * gt;
}

/* v = R T / p (1 + pi gammar_pi): only the residual pi-derivative is needed. */
static double gibbs2_v(const gibbs2 *m, double p, double t)
{
    if97_gibbs2_at w;
    gibbs2_terms(m, p, t, &w);
    const double si = if97_lane_sum(m->res, w.a, m->n_res, IF97_W_I); /* pi * gammar_pi */
    return IF97_R * t / p * (1.0 + si);
}

double if97_region2_v(double p, double t)
{
    return gibbs2_v(&g_r2, p, t);
}

double if97_region5_v(double p, double t)
{
    return gibbs2_v(&g_r5, p, t);
}

/* ---------------------------------------------------------------------- */
/* Region 3: Eq. 28, Table 30; rho* = 322 kg/m3, T* = 647.096 K.            */
/* phi = n1 ln delta + sum_{i=2..40} n delta^I tau^J                        */
/* ---------------------------------------------------------------------- */

static const double r3_n1 = 1.0658070028513e0;

static const if97_term r3_terms[39] = {
    {0, 0, -1.5732845290239e1},   {0, 1, 2.0944396974307e1},    {0, 2, -7.6867707878716e0},
    {0, 7, 2.6185947787954e0},    {0, 10, -2.808078114862e0},   {0, 12, 1.2053369696517e0},
    {0, 23, -8.4566812812502e-3}, {1, 2, -1.2654315477714e0},   {1, 6, -1.1524407806681e0},
    {1, 15, 8.8521043984318e-1},  {1, 17, -6.4207765181607e-1}, {2, 0, 3.8493460186671e-1},
    {2, 2, -8.5214708824206e-1},  {2, 6, 4.8972281541877e0},    {2, 7, -3.0502617256965e0},
    {2, 22, 3.9420536879154e-2},  {2, 26, 1.2558408424308e-1},  {3, 0, -2.799932969871e-1},
    {3, 2, 1.389979956946e0},     {3, 4, -2.018991502357e0},    {3, 16, -8.2147637173963e-3},
    {3, 26, -4.7596035734923e-1}, {4, 0, 4.39840744735e-2},     {4, 2, -4.4476435428739e-1},
    {4, 4, 9.0572070719733e-1},   {4, 26, 7.0522450087967e-1},  {5, 1, 1.0770512626332e-1},
    {5, 3, -3.2913623258954e-1},  {5, 26, -5.0871062041158e-1}, {6, 0, -2.2175400873096e-2},
    {6, 2, 9.4260751665092e-2},   {6, 26, 1.6436278447961e-1},  {7, 2, -1.3503372241348e-2},
    {8, 26, -1.4834345352472e-2}, {9, 2, 5.7922953628084e-4},   {9, 26, 3.2308904703711e-3},
    {10, 0, 8.0964802996215e-5},  {10, 1, -1.6557679795037e-4}, {11, 26, -4.4923899061815e-5},
};

/* phi and its first and second derivatives at (rho, T), Eq. 28. */
typedef struct r3_phi {
    double delta, tau;
    double phi, f_d, f_dd, f_t, f_tt, f_dt;
} r3_phi;

static void r3_phi_at(double rho, double t, r3_phi *f)
{
    double pd[12];
    double pt[27];
    f->delta = rho / IF97_RHOC;
    f->tau = IF97_TC / t;
    if97_powers(f->delta, 0, 11, pd);
    if97_powers(f->tau, 0, 26, pt);
    if97_sums s;
    if97_sum_all(r3_terms, 39, pd, 0, pt, 0, f->delta, f->tau, &s);
    f->phi = r3_n1 * pcs_log(f->delta) + s.f;
    f->f_d = r3_n1 / f->delta + s.fx;
    f->f_dd = -r3_n1 / (f->delta * f->delta) + s.fxx;
    f->f_t = s.fy;
    f->f_tt = s.fyy;
    f->f_dt = s.fxy;
}

void if97_region3_props(double rho, double t, pcs_water_props *out)
{
    r3_phi f;
    r3_phi_at(rho, t, &f);
    const double delta = f.delta, tau = f.tau, phi = f.phi;
    const double f_d = f.f_d, f_dd = f.f_dd, f_t = f.f_t, f_tt = f.f_tt, f_dt = f.f_dt;
    const double rt = IF97_R * t;
    const double a = delta * f_d - delta * tau * f_dt;
    const double b = 2.0 * delta * f_d + delta * delta * f_dd;
    /* Table 31 */
    out->region = 3;
    out->t_k = t;
    out->rho_kg_m3 = rho;
    out->v_m3_kg = 1.0 / rho;
    out->p_pa = rho * rt * delta * f_d;
    out->u_j_kg = rt * tau * f_t;
    out->h_j_kg = rt * (tau * f_t + delta * f_d);
    out->s_j_kg_k = IF97_R * (tau * f_t - phi);
    out->cv_j_kg_k = -IF97_R * tau * tau * f_tt;
    out->cp_j_kg_k = IF97_R * (-tau * tau * f_tt + a * a / b);
    out->w_m_s = pcs_sqrt(rt * (b - a * a / (tau * tau * f_tt)));
    out->quality = -1.0;
}

/* ---------------------------------------------------------------------- */
/* Region 4: saturation line, Eq. 29-31, Table 34.                          */
/* ---------------------------------------------------------------------- */

const double if97_r4_n[11] = {
    0.0, /* 1-based like the release */
    0.11670521452767e4,
    -0.72421316703206e6,
    -0.17073846940092e2,
    0.12020824702470e5,
    -0.32325550322333e7,
    0.14915108613530e2,
    -0.48232657361591e4,
    0.40511340542057e6,
    -0.23855557567849e0,
    0.65017534844798e3,
};

double if97_psat(double t)
{
    const double *n = if97_r4_n;
    const double th = t + n[9] / (t - n[10]); /* Eq. 29b, T* = 1 K */
    const double a = th * th + n[1] * th + n[2];
    const double b = n[3] * th * th + n[4] * th + n[5];
    const double c = n[6] * th * th + n[7] * th + n[8];
    const double r = 2.0 * c / (-b + pcs_sqrt(b * b - 4.0 * a * c)); /* Eq. 30 */
    const double r2 = r * r;
    return r2 * r2 * 1e6;
}

double if97_tsat(double p)
{
    const double *n = if97_r4_n;
    const double beta = pcs_sqrt(pcs_sqrt(p * 1e-6)); /* Eq. 29a, p* = 1 MPa */
    const double b2 = beta * beta;
    const double e = b2 + n[3] * beta + n[6];
    const double f = n[1] * b2 + n[4] * beta + n[7];
    const double g = n[2] * b2 + n[5] * beta + n[8];
    const double d = 2.0 * g / (-f - pcs_sqrt(f * f - 4.0 * e * g));
    const double nd = n[10] + d;
    return 0.5 * (nd - pcs_sqrt(nd * nd - 4.0 * (n[9] + n[10] * d))); /* Eq. 31 */
}

/* ---------------------------------------------------------------------- */
/* Boundaries                                                               */
/* ---------------------------------------------------------------------- */

/* B23: Eq. 5 and 6, Table 1 (p* = 1 MPa, T* = 1 K). */
static const double b23_n[6] = {0.0,
                                0.34805185628969e3,
                                -0.11671859879975e1,
                                0.10192970039326e-2,
                                0.57254459862746e3,
                                0.13918839778870e2};

double if97_b23_p(double t)
{
    return (b23_n[1] + b23_n[2] * t + b23_n[3] * t * t) * 1e6;
}

double if97_b23_t(double p)
{
    return b23_n[4] + pcs_sqrt((p * 1e-6 - b23_n[5]) / b23_n[3]);
}

/* B2bc: Eq. 20 and 21, Table 19 (p* = 1 MPa, h* = 1 kJ/kg). */
static const double b2bc_n[6] = {0.0,
                                 0.90584278514723e3,
                                 -0.67955786399241e0,
                                 0.12809002730136e-3,
                                 0.26526571908428e4,
                                 0.45257578905948e1};

double if97_b2bc_p(double h)
{
    const double eta = h * 1e-3;
    return (b2bc_n[1] + b2bc_n[2] * eta + b2bc_n[3] * eta * eta) * 1e6;
}

double if97_b2bc_h(double p)
{
    return (b2bc_n[4] + pcs_sqrt((p * 1e-6 - b2bc_n[5]) / b2bc_n[3])) * 1e3;
}

/* h_3ab(p): SR3-03 Eq. 1 (p* = 1 MPa, h* = 1 kJ/kg). */
double if97_b3ab_h(double p)
{
    const double pi = p * 1e-6;
    const double eta =
        0.201464004206875e4 +
        pi * (0.374696550136983e1 + pi * (-0.219921901054187e-1 + pi * 0.875131686009950e-4));
    return eta * 1e3;
}

/*
 * Region 3 values and first partial derivatives in (rho, T), from Table 31's
 * relations differentiated once more (delta = rho/rho_c, tau = T_c/T, so
 * d/drho = (1/rho_c) d/ddelta and d/dT = -(tau/T) d/dtau):
 *   p = R T rho delta phi_d
 *   (dp/drho)_T = R T (2 delta phi_d + delta^2 phi_dd)
 *   (dp/dT)_rho = R rho delta (phi_d - tau phi_dt)
 *   h = R T (tau phi_t + delta phi_d)
 *   (dh/drho)_T = (R T / rho) delta (phi_d + delta phi_dd + tau phi_dt)
 *   (dh/dT)_rho = R (delta phi_d - tau^2 phi_tt - delta tau phi_dt)
 *   s = R (tau phi_t - phi)
 *   (ds/drho)_T = (R / rho) delta (tau phi_dt - phi_d)
 *   (ds/dT)_rho = -R tau^2 phi_tt / T
 */
void if97_region3_state(double rho, double t, if97_r3_state *st)
{
    r3_phi f;
    r3_phi_at(rho, t, &f);
    const double delta = f.delta, tau = f.tau;
    const double f_d = f.f_d, f_dd = f.f_dd, f_t = f.f_t, f_tt = f.f_tt, f_dt = f.f_dt;
    const double r = IF97_R;
    st->p = rho * r * t * delta * f_d;
    st->dp_drho = r * t * (2.0 * delta * f_d + delta * delta * f_dd);
    st->dp_dt = r * rho * delta * (f_d - tau * f_dt);
    st->h = r * t * (tau * f_t + delta * f_d);
    st->dh_drho = r * t / rho * delta * (f_d + delta * f_dd + tau * f_dt);
    st->dh_dt = r * (delta * f_d - tau * tau * f_tt - delta * tau * f_dt);
    st->s = r * (tau * f_t - f.phi);
    st->ds_drho = r / rho * delta * (tau * f_dt - f_d);
    st->ds_dt = -r * tau * tau * f_tt / t;
}
