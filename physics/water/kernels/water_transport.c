/**
 * @file water_transport.c
 * @brief Viscosity (IAPWS R12-08) and thermal conductivity (IAPWS R15-11) of
 *        water and steam as functions of density and temperature, without the
 *        critical enhancement terms.
 *
 * mu     = mu* mu0(Tbar) mu1(Tbar, rhobar)          (R12-08 Eq. 10-12, mu2 = 1)
 * lambda = lambda* lambda0(Tbar) lambda1(Tbar, rhobar) (R15-11 Eq. 15-17, lambda2 = 0)
 * with Tbar = T / 647.096 K, rhobar = rho / 322 kg/m3, mu* = 1e-6 Pa s,
 * lambda* = 1e-3 W/(m K).
 *
 * Why no enhancement: mu2 differs from 1 by more than 2 % only very near the
 * critical point (R12-08 Sec. 2.8), and lambda2 needs the derivative
 * (drho/dp)_T and cp, cv from an equation of state, i.e. a second property
 * call per evaluation. How much lambda2 adds is quantified against published
 * industrial check values in tests/test_water_transport.c (0 to 3.7 %). The
 * density comes from
 * pcs_water_rho_pt or a table; these functions never evaluate IF97 themselves.
 */
#include <stddef.h>

#include "physics/water/kernels/if97_internal.h"
#include "pcsim/math.h"

/* R12-08 Table 1: H_i of mu0. */
static const double mu_h0[4] = {1.67752, 2.20462, 0.6366564, -0.241605};

/* R12-08 Table 2: H_ij of mu1 (i = row 0..5, j = column 0..6); blanks are 0. */
static const double mu_h1[6][7] = {
    {5.20094e-1, 2.22531e-1, -2.81378e-1, 1.61913e-1, -3.25372e-2, 0.0, 0.0},
    {8.50895e-2, 9.99115e-1, -9.06851e-1, 2.57399e-1, 0.0, 0.0, 0.0},
    {-1.08374, 1.88797, -7.72479e-1, 0.0, 0.0, 0.0, 0.0},
    {-2.89555e-1, 1.26613, -4.89837e-1, 0.0, 6.98452e-2, 0.0, -4.35673e-3},
    {0.0, 0.0, -2.57040e-1, 0.0, 0.0, 8.72102e-3, 0.0},
    {0.0, 1.20573e-1, 0.0, 0.0, 0.0, 0.0, -5.93264e-4},
};

/* R15-11 Table 1: L_k of lambda0. */
static const double la_l0[5] = {2.443221e-3, 1.323095e-2, 6.770357e-3, -3.454586e-3, 4.096266e-4};

/* R15-11 Table 2: L_ij of lambda1 (i = row 0..4, j = column 0..5). */
static const double la_l1[5][6] = {
    {1.60397357, -0.646013523, 0.111443906, 0.102997357, -0.0504123634, 0.00609859258},
    {2.33771842, -2.78843778, 1.53616167, -0.463045512, 0.0832827019, -0.00719201245},
    {2.19650529, -4.54580785, 3.55777244, -1.40944978, 0.275418278, -0.0205938816},
    {-1.21051378, 1.60812989, -0.621178141, 0.0716373224, 0.0, 0.0},
    {-2.7203370, 4.57586331, -3.18369245, 1.1168348, -0.19268305, 0.012913842},
};

/* sum_i a^i sum_j c[i][j] b^j by Horner in both variables. */
static double horner2(const double *c, int ni, int nj, double a, double b)
{
    double r = 0.0;
    for (int i = ni - 1; i >= 0; i--) {
        double row = 0.0;
        for (int j = nj - 1; j >= 0; j--) {
            row = row * b + c[i * nj + j];
        }
        r = r * a + row;
    }
    return r;
}

static pcs_status check_rho_t(const char *fn, double rho, double t, const void *out)
{
    pcs_status st = if97_check_out(fn, "out", out);
    if (st == PCS_OK) {
        st = if97_check(fn, "rho_kg_m3", rho, 0.0, 1250.0, "kg/m3");
    }
    if (st == PCS_OK) {
        st = if97_check(fn, "t_k", t, IF97_TMIN, 1173.15, "K");
    }
    return st;
}

/*
 * The form both releases share: y = y* c0 sqrt(Tbar) / sum_k H_k / Tbar^k
 * times exp(rhobar sum_ij H_ij (1/Tbar - 1)^i (rhobar - 1)^j), i.e. R12-08
 * Eq. 10-12 and R15-11 Eq. 15-17; only the tables and the scales differ.
 */
typedef struct transport_eq {
    const char *fn;
    const double *h0; /* H_k of the dilute-gas term */
    int n0;
    const double *h1; /* H_ij of the finite-density term, row-major */
    int ni, nj;
    double c0;     /* 100 in mu0 (Eq. 11), 1 in lambda0 (Eq. 16) */
    double y_star; /* mu* = 1e-6 Pa s, lambda* = 1e-3 W/(m K) */
} transport_eq;

static const transport_eq viscosity_eq = {
    "pcs_water_viscosity", mu_h0, 4, &mu_h1[0][0], 6, 7, 100.0, 1e-6};
static const transport_eq conductivity_eq = {
    "pcs_water_conductivity", la_l0, 5, &la_l1[0][0], 5, 6, 1.0, 1e-3};

static pcs_status transport_eval(const transport_eq *e, double rho, double t, double *out)
{
    const pcs_status st = check_rho_t(e->fn, rho, t, out);
    if (st != PCS_OK) {
        return st;
    }
    const double tb = t / IF97_TC, rb = rho / IF97_RHOC, it = 1.0 / tb;
    double d0 = e->h0[e->n0 - 1];
    for (int k = e->n0 - 2; k >= 0; k--) {
        d0 = e->h0[k] + it * d0;
    }
    const double dilute = e->c0 * pcs_sqrt(tb) / d0;
    const double dense = pcs_exp(rb * horner2(e->h1, e->ni, e->nj, it - 1.0, rb - 1.0));
    *out = e->y_star * dilute * dense;
    return PCS_OK;
}

pcs_status pcs_water_viscosity(double rho_kg_m3, double t_k, double *mu_pa_s)
{
    return transport_eval(&viscosity_eq, rho_kg_m3, t_k, mu_pa_s);
}

pcs_status pcs_water_conductivity(double rho_kg_m3, double t_k, double *lambda_w_m_k)
{
    return transport_eval(&conductivity_eq, rho_kg_m3, t_k, lambda_w_m_k);
}
