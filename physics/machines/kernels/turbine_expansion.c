/**
 * @file turbine_expansion.c
 * @brief The turbine's expansion from the throttle to the condenser on
 *        IAPWS-IF97 (turbine_expansion.h). Pure: no world, no allocation.
 */
#include "physics/machines/kernels/turbine_expansion.h"

#include "pcsim/water.h"

pcs_status pcs_turbine_exhaust_init(double p_pa, pcs_turbine_exhaust *ex)
{
    double ts;
    pcs_status st = pcs_water_tsat(p_pa, &ts);
    if (st != PCS_OK)
        return pcs_error_set(st, "turbine exhaust pressure %g Pa: %s", p_pa, pcs_last_error());
    pcs_water_props f, g;
    st = pcs_if97_region1(p_pa, ts, &f);
    if (st == PCS_OK)
        st = pcs_if97_region2(p_pa, ts, &g);
    if (st != PCS_OK)
        return st;
    ex->p_pa = p_pa;
    ex->h_f = f.h_j_kg;
    ex->h_g = g.h_j_kg;
    ex->s_f = f.s_j_kg_k;
    ex->s_g = g.s_j_kg_k;
    return PCS_OK;
}

/* h(p_c, s): the lever rule inside the dome, else T(p, s) then h(p, T). */
static pcs_status h_ps(const pcs_turbine_exhaust *ex, double s, double *h)
{
    if (s >= ex->s_f && s <= ex->s_g) {
        double x = (s - ex->s_f) / (ex->s_g - ex->s_f);
        *h = ex->h_f + x * (ex->h_g - ex->h_f);
        return PCS_OK;
    }
    double t;
    pcs_status st = pcs_water_t_ps(ex->p_pa, s, &t);
    if (st == PCS_OK)
        st = pcs_water_h_pt(ex->p_pa, t, h);
    return st;
}

pcs_status pcs_turbine_expand(const pcs_turbine_exhaust *ex, double p_in, double h_in, double eta,
                              pcs_turbine_stage *out)
{
    pcs_water_props in;
    pcs_status st = pcs_water_props_ph(p_in, h_in, &in);
    double h_s = 0.0;
    if (st == PCS_OK)
        st = h_ps(ex, in.s_j_kg_k, &h_s);
    if (st != PCS_OK)
        return st;
    out->s_in = in.s_j_kg_k;
    out->h_s = h_s;
    out->h_out = h_in - eta * (h_in - h_s);
    return PCS_OK;
}
