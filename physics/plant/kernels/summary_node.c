/**
 * @file summary_node.c
 * @brief One backward-Euler step of the summary unit's fuel and primary
 *        nodes (summary_node.h).
 */
#include "summary_node.h"

void pcs_summary_node_step(const pcs_summary_node_params *p, int mode, double sink, double power_w,
                           double h_s, pcs_summary_node_state *s)
{
    double cf = p->c_fuel_j_k / h_s, cp = p->c_primary_j_k / h_s, u = p->ua_fuel_w_k;
    double usg = mode == PCS_SUMMARY_SINK_TEMPERATURE ? p->ua_sg_w_k : 0.0;
    double qd = mode == PCS_SUMMARY_SINK_TEMPERATURE ? -usg * sink : sink;
    /* [cf + u, -u; -u, cp + u + usg] [T_f; T_p] = [b1; b2] */
    double a11 = cf + u, a12 = -u, a21 = -u, a22 = cp + u + usg;
    double b1 = cf * s->t_fuel_k + p->fuel_fraction * power_w;
    double b2 = cp * s->t_primary_k + (1.0 - p->fuel_fraction) * power_w - qd;
    double det = a11 * a22 - a12 * a21;
    double tf = (b1 * a22 - a12 * b2) / det;
    double tp = (a11 * b2 - a21 * b1) / det;
    s->t_fuel_k = tf;
    s->t_primary_k = tp;
    s->q_core_w = (1.0 - p->fuel_fraction) * power_w + u * (tf - tp);
    s->q_sg_w = mode == PCS_SUMMARY_SINK_TEMPERATURE ? usg * (tp - sink) : sink;
}

double pcs_summary_node_steady(const pcs_summary_node_params *p, int mode, double power_w,
                               double t_primary_k, pcs_summary_node_state *s)
{
    s->t_primary_k = t_primary_k;
    s->t_fuel_k = t_primary_k + p->fuel_fraction * power_w / p->ua_fuel_w_k;
    s->q_core_w = power_w;
    s->q_sg_w = power_w;
    if (mode == PCS_SUMMARY_SINK_TEMPERATURE)
        return t_primary_k - power_w / p->ua_sg_w_k;
    return power_w;
}
