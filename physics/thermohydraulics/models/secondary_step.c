/**
 * @file secondary_step.c
 * @brief One tick of the steam side (order and equations in
 *        pcsim/secondary.h): valve openings, feedwater sources, riser heat,
 *        network step, outputs and the tube-side temperatures.
 *        Nothing here allocates.
 */
#include <math.h>
#include <string.h>

#include "pcsim/water.h"
#include "physics/thermohydraulics/models/secondary_internal.h"
#include "physics/thermohydraulics/models/th_build.h"

void pcs_secondary_view(pcs_world *w, const pcs_secondary *sc, secondary_view *v)
{
    const pcs_secondary_stores *s = &sc->s;
    const uint32_t ids[PCS_TH_NET_STORES] = PCS_TH_NET_STORE_IDS(s);
    pcs_th_state_view(w, ids, &v->st);
    v->st.scalar = NULL;
    v->tube_heat = pcs_store_data(w, s->tube_heat);
    v->tube_t = pcs_store_data(w, s->tube_t);
    v->turbine_valve = pcs_store_data(w, s->turbine_valve);
    v->dump = pcs_store_data(w, s->dump);
    v->feed = pcs_store_data(w, s->feed);
    v->afw = pcs_store_data(w, s->afw);
    v->msiv = pcs_store_data(w, s->msiv);
    v->brk = pcs_store_data(w, s->brk);
    v->porv = pcs_store_data(w, s->porv);
    v->feed_t = pcs_store_data(w, s->feed_t);
    v->out = pcs_store_data(w, s->out);
}

static double clamp01(double x)
{
    return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0;
}

/* Openings from the actuator stores; the safety bank from its steam line's
 * pressure (linear from the lowest to the highest setpoint, header). */
static void valves(pcs_secondary *sc, const secondary_view *v)
{
    const pcs_secondary_def *d = &sc->def;
    sc->valve[sc->j_turbine] = clamp01(*v->turbine_valve);
    sc->valve[sc->j_dump] = clamp01(*v->dump);
    for (uint32_t l = 0; l < sc->nsg; l++) {
        for (uint32_t k = 0; k < sc->nb + SJ_COUNT; k++)
            sc->valve[l * sc->per_sg_j + k] = 1.0;
        sc->valve[sec_jun(sc, l, SJ_MSIV)] = clamp01(v->msiv[l]);
        double p = v->st.p_pa[sec_vol(sc, l, SV_STEAM_LINE)];
        sc->valve[sec_jun(sc, l, SJ_SAFETY)] =
            clamp01((p - d->safety_open_pa) / (d->safety_full_pa - d->safety_open_pa));
        sc->valve[sec_jun(sc, l, SJ_BREAK)] = clamp01(v->brk[l] / sc->a_break);
        sc->valve[sec_jun(sc, l, SJ_PORV)] = clamp01(v->porv[l]);
    }
}

/* Main and auxiliary feed into the upper downcomer as one source: mass the
 * sum, enthalpy the mass-weighted mean of h(p, feed_t) (the feed_t store:
 * feed_t_k unless a heater train writes it) and h(p, afw_t_k)
 * (both enter the feed ring: one nozzle, assumption); riser heat from the
 * tubes. */
static pcs_status feed_source(pcs_secondary *sc, const secondary_view *v, uint32_t l)
{
    uint32_t dc = sec_vol(sc, l, SV_DC_UPPER);
    double w_main = fmax(v->feed[l], 0.0), w_afw = fmax(v->afw[l], 0.0), h_main, h_afw;
    pcs_status st = pcs_water_h_pt(v->st.p_pa[dc], *v->feed_t, &h_main);
    if (st == PCS_OK)
        st = pcs_water_h_pt(v->st.p_pa[dc], sc->def.afw_t_k, &h_afw);
    if (st != PCS_OK)
        return st;
    sc->src_kg_s[dc] = w_main + w_afw;
    sc->src_h[dc] = w_afw > 0.0 ? (w_main * h_main + w_afw * h_afw) / (w_main + w_afw) : h_main;
    return PCS_OK;
}

static pcs_status sources(pcs_secondary *sc, const secondary_view *v)
{
    for (uint32_t l = 0; l < sc->nsg; l++) {
        pcs_status st = feed_source(sc, v, l);
        if (st != PCS_OK)
            return st;
        const double *q = v->tube_heat + l * sc->nt;
        for (uint32_t k = 0; k < sc->nb; k++)
            sc->heat_w[sec_bundle(sc, l, k)] = q[k] + q[sc->nt - 1u - k];
    }
    return PCS_OK;
}

pcs_status pcs_secondary_advance(pcs_secondary *sc, secondary_view *v, double dt)
{
    valves(sc, v);
    pcs_status st = sources(sc, v);
    if (st != PCS_OK)
        return st;
    pcs_thnet_inputs in = {.heat_w = sc->heat_w,
                           .pump_dp_pa = NULL,
                           .valve = sc->valve,
                           .source_kg_s = sc->src_kg_s,
                           .source_h_j_kg = sc->src_h,
                           .source_scalar = NULL};
    pcs_thnet_report rep;
    st = pcs_thnet_step(sc->net, &v->st, &in, dt, &rep);
    if (st != PCS_OK)
        return st;
    sc->bal.mass_in_kg = rep.source_mass_in_kg + rep.boundary_mass_in_kg;
    sc->bal.energy_in_j = rep.heat_in_j + rep.source_energy_in_j + rep.boundary_energy_in_j;
    sc->bal.heat_in_j = 0.0;
    for (uint32_t k = 0; k < sc->nsg * sc->nt; k++)
        sc->bal.heat_in_j += dt * v->tube_heat[k];
    sc->bal.courant_max = rep.courant_max;
    return pcs_secondary_outputs(sc, v);
}

pcs_status pcs_secondary_outputs(const pcs_secondary *sc, secondary_view *v)
{
    const pcs_secondary_def *d = &sc->def;
    const pcs_thnet_state *s = &v->st;
    double *o = v->out;
    o[PCS_SECONDARY_OUT_HEADER_P] = s->p_pa[sc->v_header];
    o[PCS_SECONDARY_OUT_TURBINE_FLOW] = s->flow_kg_s[sc->j_turbine];
    o[PCS_SECONDARY_OUT_DUMP_FLOW] = s->flow_kg_s[sc->j_dump];
    for (uint32_t l = 0; l < sc->nsg; l++) {
        double *b = o + PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l;
        uint32_t dome = sec_vol(sc, l, SV_DOME);
        double level = pcs_secondary_level(d, s->void_fraction[dome]), q = 0.0;
        b[PCS_SECONDARY_OUT_P] = s->p_pa[dome];
        b[PCS_SECONDARY_OUT_STEAM] = s->flow_kg_s[sec_jun(sc, l, SJ_RESTRICTOR)];
        b[PCS_SECONDARY_OUT_FEED] = fmax(v->feed[l], 0.0);
        b[PCS_SECONDARY_OUT_AFW] = fmax(v->afw[l], 0.0);
        b[PCS_SECONDARY_OUT_NR] = 100.0 * (level - d->nr_lower_m) / d->nr_span_m;
        b[PCS_SECONDARY_OUT_LEVEL] = level;
        b[PCS_SECONDARY_OUT_SAFETY] = s->flow_kg_s[sec_jun(sc, l, SJ_SAFETY)];
        b[PCS_SECONDARY_OUT_BREAK] = s->flow_kg_s[sec_jun(sc, l, SJ_BREAK)];
        b[PCS_SECONDARY_OUT_PORV] = s->flow_kg_s[sec_jun(sc, l, SJ_PORV)];
        b[PCS_SECONDARY_OUT_RECIRC] = s->flow_kg_s[l * sc->per_sg_j];
        for (uint32_t k = 0; k < sc->nt; k++) {
            uint32_t r = k < sc->nb ? k : sc->nt - 1u - k;
            v->tube_t[l * sc->nt + k] = s->t_k[sec_bundle(sc, l, r)];
            q += v->tube_heat[l * sc->nt + k];
        }
        b[PCS_SECONDARY_OUT_HEAT] = q;
    }
    return PCS_OK;
}

pcs_status pcs_secondary_system(pcs_world *w, void *ctx)
{
    pcs_secondary *sc = ctx;
    secondary_view v;
    pcs_secondary_view(w, sc, &v);
    pcs_status st = pcs_secondary_advance(sc, &v, pcs_world_clock(w)->dt_s);
    if (st != PCS_OK)
        return pcs_error_set(st, "%s.secondary: %s", sc->unit, pcs_last_error());
    return PCS_OK;
}
