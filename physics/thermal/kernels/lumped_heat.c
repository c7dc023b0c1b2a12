/**
 * @file lumped_heat.c
 * @brief Two-node (fuel, coolant) core heat placeholder with an exact step.
 *
 * A = [[-a, a], [b, -(b + c)]], a = UA/C_f, b = UA/C_c, c = 2 W c_p / C_c.
 * Its eigenvalues are real, negative or zero and distinct whenever UA > 0
 * (discriminant ((a - c)^2 + b^2 + 2ab + 2bc)/4 > 0), so Sylvester's formula
 *     g(A) = (mu1 g(mu2) - mu2 g(mu1))/(mu1 - mu2) I + (g(mu1) - g(mu2))/(mu1 - mu2) A
 * gives e^{Ah} (g = e^{mu h}) and int_0^h e^{As} ds (g = (e^{mu h} - 1)/mu, h at 0).
 */
#include <stddef.h>

#include "pcsim/lumped_heat.h"
#include "pcsim/math.h"
#include "pcsim/param_range.h"

void pcs_lumped_heat_params_pwr(pcs_lumped_heat_params *p, double p_nominal_w)
{
    /* tests/refdata/pwr_plant.md [W84] Table 2-1 and the derivations in lumped_heat.h. */
    const double t_in = 565.1, t_out = 599.0, flow = 17440.0, frac = 0.974;
    p->fuel_heat_capacity_j_k = 92600.0 * 300.0;
    p->coolant_heat_capacity_j_k = 13700.0 * 5769.0;
    p->fuel_fraction = frac;
    p->flow_kg_s = flow;
    /* Water's c_p from the reference plant's own heat balance (3411 MWt over
     * this flow and rise), independent of the unit's nominal power. */
    p->cp_j_kg_k = 3.411e9 / (flow * (t_out - t_in)); /* 5769 J/(kg K) */
    p->t_inlet_k = t_in;
    p->ua_w_k = frac * p_nominal_w / 373.0;
    p->t_max_factor = 4.1;
}

pcs_status pcs_lumped_heat_params_validate(const pcs_lumped_heat_params *p)
{
    if (!p)
        return pcs_error_set(PCS_E_INVAL, "lumped_heat: params is NULL");
    const pcs_param_range r[] = {
        {"fuel_heat_capacity_j_k", p->fuel_heat_capacity_j_k, 0.0, 1e12, 1},
        {"coolant_heat_capacity_j_k", p->coolant_heat_capacity_j_k, 0.0, 1e12, 1},
        {"ua_w_k", p->ua_w_k, 0.0, 1e12, 1},
        {"fuel_fraction", p->fuel_fraction, 0.0, 1.0, 0},
        {"flow_kg_s", p->flow_kg_s, 0.0, 1e6, 0},
        {"cp_j_kg_k", p->cp_j_kg_k, 0.0, 1e5, 1},
        {"t_inlet_k", p->t_inlet_k, 273.15, 700.0, 0},
        {"t_max_factor", p->t_max_factor, 1.0, 20.0, 0},
    };
    return pcs_param_ranges_check("lumped_heat.", r, sizeof r / sizeof r[0]);
}

/* (e^{mu h} - 1)/mu, h at mu = 0. */
static double lh_phi(double mu, double h)
{
    double z = mu * h;
    return pcs_fabs(z) < 1e-12 ? h : pcs_expm1(z) / mu;
}

/* out = c0 I + c1 A. */
static void lh_combine(double c0, double c1, double a[2][2], double out[2][2])
{
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            out[i][j] = c1 * a[i][j] + (i == j ? c0 : 0.0);
}

pcs_status pcs_lumped_heat_model_init(const pcs_lumped_heat_params *p, double h_s,
                                      pcs_lumped_heat_model *m)
{
    pcs_status st = pcs_lumped_heat_params_validate(p);
    if (st != PCS_OK)
        return st;
    if (!pcs_isfinite(h_s) || h_s <= 0.0 || h_s > 1e6)
        return pcs_error_set(PCS_E_INVAL, "lumped_heat: step h_s = %g s is outside (0, 1e6]", h_s);
    double a = p->ua_w_k / p->fuel_heat_capacity_j_k;
    double b = p->ua_w_k / p->coolant_heat_capacity_j_k;
    double c = 2.0 * p->flow_kg_s * p->cp_j_kg_k / p->coolant_heat_capacity_j_k;
    double A[2][2] = {{-a, a}, {b, -(b + c)}};
    double half_tr = -0.5 * (a + b + c);
    double root = pcs_sqrt(0.25 * ((a - c) * (a - c) + b * b + 2.0 * a * b + 2.0 * b * c));
    double mu1 = half_tr + root, mu2 = half_tr - root; /* mu1 > mu2, mu1 <= 0 */
    double d = mu1 - mu2;
    double e1 = pcs_exp(mu1 * h_s), e2 = pcs_exp(mu2 * h_s);
    lh_combine((mu1 * e2 - mu2 * e1) / d, (e1 - e2) / d, A, m->e);
    double f1 = lh_phi(mu1, h_s), f2 = lh_phi(mu2, h_s);
    lh_combine((mu1 * f2 - mu2 * f1) / d, (f1 - f2) / d, A, m->f);
    m->p = *p;
    m->h_s = h_s;
    return PCS_OK;
}

void pcs_lumped_heat_steady(const pcs_lumped_heat_params *p, double power_w, double *t)
{
    t[1] = p->t_inlet_k + power_w / (2.0 * p->flow_kg_s * p->cp_j_kg_k);
    t[0] = t[1] + p->fuel_fraction * power_w / p->ua_w_k;
}

void pcs_lumped_heat_step(const pcs_lumped_heat_model *m, double power_w, double *t)
{
    const pcs_lumped_heat_params *p = &m->p;
    double b0 = p->fuel_fraction * power_w / p->fuel_heat_capacity_j_k;
    double b1 =
        ((1.0 - p->fuel_fraction) * power_w + 2.0 * p->flow_kg_s * p->cp_j_kg_k * p->t_inlet_k) /
        p->coolant_heat_capacity_j_k;
    double tf = m->e[0][0] * t[0] + m->e[0][1] * t[1] + m->f[0][0] * b0 + m->f[0][1] * b1;
    double tc = m->e[1][0] * t[0] + m->e[1][1] * t[1] + m->f[1][0] * b0 + m->f[1][1] * b1;
    t[0] = tf;
    t[1] = tc;
}

double pcs_lumped_heat_t_max(const pcs_lumped_heat_params *p, const double *t)
{
    return t[1] + p->t_max_factor * (t[0] - t[1]);
}
