/**
 * @file primary_step.c
 * @brief One tick of the two-phase primary (order and equations in
 *        pcsim/primary.h): pressurizer boundary, SG heat, pump heads,
 *        network step, pump shafts, pressurizer step, outputs.
 *
 * Conservation across the surge line: the network moves W_surge dt kg (and
 * W_surge h_donor dt J, donor the side the solved surge flow leaves: the
 * start-of-step hot leg or the pressurizer liquid, pcsim/thnet.h) into its
 * boundary volume; the kernel receives the same mass and, for an insurge,
 * the same enthalpy (the network's, from its report), and an outsurge
 * leaves its liquid at the h the boundary gave the network. The spray the
 * kernel takes (with the bypass) leaves loop 1's cold leg at that volume's
 * enthalpy. So network + pressurizer mass and energy change only by the
 * relief valves' flow (and by a surge the kernel refuses at its robustness
 * floor or takes from its steam, not reached in normal operation), and by
 * the CVCS sources, which the network counts (pcsim/thnet.h).
 *
 * Boron across the surge line: the network reports the boron it took from
 * (or gave to) its pressurizer boundary, which gives the liquid's
 * concentration; pzr_boron moves the same amount in the pressurizer
 * liquid's boron mass, so network + pressurizer boron changes only by the
 * CVCS and a water-solid vessel's liquid relief (and by the clamp at zero
 * and the no-liquid case, neither reached in normal operation).
 * Nothing here allocates.
 */
#include <math.h> /* NAN */
#include <string.h>

#include "pcsim/structure.h"
#include "pcsim/math.h"
#include "pcsim/water.h"
#include "pcsim/event.h"
#include "physics/thermohydraulics/models/primary_internal.h"
#include "physics/thermohydraulics/models/th_build.h"

void pcs_primary_view(pcs_world *w, const pcs_primary *pr, primary_view *v)
{
    const pcs_primary_stores *s = &pr->s;
    const uint32_t ids[PCS_TH_NET_STORES] = PCS_TH_NET_STORE_IDS(s);
    pcs_th_state_view(w, ids, &v->st);
    v->speed = pcs_store_data(w, s->pump_speed);
    v->pump_on = pcs_store_data(w, s->pump_on);
    v->pzr = pcs_store_data(w, s->pzr);
    v->core_heat = pcs_store_data(w, s->core_heat);
    v->controls = pcs_store_data(w, s->controls);
    v->out = pcs_store_data(w, s->out);
    v->boron = pcs_store_data(w, s->boron);
    v->metal = pcs_store_data(w, s->metal);
    v->st.scalar = v->boron;
    v->tube_t = NULL;
    v->tube_heat = NULL;
    if (pr->def.sg_model == PCS_PRIMARY_SG_TUBE_STORES) {
        v->tube_t = pcs_store_data(w, pr->def.sg_tube_t_store);
        v->tube_heat = pcs_store_data(w, pr->def.sg_tube_heat_store);
    }
}

/* The kernel state's doubles in the store's order (PZR_M_LIQ .. PZR_H_VAP):
 * the one place that order is written, for both directions. PZR_PORV, the
 * PORV's hysteresis flag, is an int in the state. */
typedef struct pzr_members {
    double *at[PZR_PORV];
} pzr_members;

static pzr_members pzr_members_of(pcs_pressurizer_state *p)
{
    _Static_assert(PZR_PORV == 7, "every double member below has its index");
    return (pzr_members){{[PZR_M_LIQ] = &p->m_liq_kg,
                          [PZR_U_LIQ] = &p->u_liq_j,
                          [PZR_M_VAP] = &p->m_vap_kg,
                          [PZR_U_VAP] = &p->u_vap_j,
                          [PZR_P] = &p->p_pa,
                          [PZR_H_LIQ] = &p->h_liq_j_kg,
                          [PZR_H_VAP] = &p->h_vap_j_kg}};
}

void pcs_primary_pzr_get(const double *s, pcs_pressurizer_state *p)
{
    pzr_members m = pzr_members_of(p);
    for (int k = 0; k < PZR_PORV; k++)
        *m.at[k] = s[k];
    p->porv_open = s[PZR_PORV] != 0.0;
}

void pcs_primary_pzr_put(const pcs_pressurizer_state *p, double *s)
{
    pcs_pressurizer_state c = *p;
    pzr_members m = pzr_members_of(&c);
    for (int k = 0; k < PZR_PORV; k++)
        s[k] = *m.at[k];
    s[PZR_PORV] = p->porv_open ? 1.0 : 0.0;
}

/* The boundary is the pressurizer bottom (the surge nozzle): the kernel's
 * pressure plus the weight of its liquid over the cross-section (the kernel
 * treats the vessel as a straight cylinder), at the liquid's enthalpy (the
 * steam's once there is no liquid). */
pcs_status pcs_primary_pzr_boundary(pcs_primary *pr, const primary_view *v)
{
    const double *z = v->pzr;
    double area = pr->def.pzr.volume_m3 / pr->pzr_height_m;
    double p = z[PZR_P] + pr->g * z[PZR_M_LIQ] / area;
    double h = z[PZR_M_LIQ] > 0.0 ? z[PZR_H_LIQ] : z[PZR_H_VAP];
    return pcs_thnet_boundary_set(pr->net, pr->v_pzr, p, h);
}

double pcs_primary_sg_r_inside(const pcs_primary *pr, double w_kg_s)
{
    const pcs_primary_def *d = &pr->def;
    double do_di = d->sg_tube_od_m / (d->sg_tube_od_m - 2.0 * d->sg_tube_wall_m);
    double hi = fmax(pr->sg_c_flow * pcs_pow(fabs(w_kg_s), 0.8), pr->sg_h_laminar);
    return do_di / hi;
}

double pcs_primary_sg_ua(const pcs_primary *pr, double w_kg_s)
{
    return pr->sg_area_per_vol / (pcs_primary_sg_r_inside(pr, w_kg_s) + pr->sg_r_fixed);
}

/* Heat from each SG tube volume through its wall (header "Heat") to the
 * steam side's local temperature (pcsim/secondary.h) or, until coupled, to
 * its loop's saturated secondary: the wall's heat out, Q_s, goes into
 * tube_heat for the secondary's tick later in this one, so the two sides'
 * energy closes with the wall's storage. inv_dt 0: the wall's steady
 * profile (the settling's). */
static pcs_status sg_heat(pcs_primary *pr, primary_view *v, double inv_dt)
{
    int live = pr->sg_live && v->tube_t;
    for (uint32_t l = 0; l < pr->nl; l++) {
        double ts = 0.0;
        if (!live) {
            pcs_status st = pcs_water_tsat(v->controls[PCS_PRIMARY_CTL_SG_PRESSURE + l], &ts);
            if (st != PCS_OK)
                return st;
        }
        pr->sg_q[l] = 0.0;
        for (uint32_t k = 0; k < pr->ns; k++) {
            uint32_t i = loop_vol(pr, l, LOOP_TUBE0 + k), e = l * pr->ns + k;
            double qp, qs;
            pcs_primary_tube_wall_step(pr, v, l, k, live ? v->tube_t[e] : ts, inv_dt, &qp, &qs);
            pr->heat_w[i] = -qp;
            if (live)
                v->tube_heat[e] = qs;
            pr->sg_q[l] += qs;
        }
    }
    return PCS_OK;
}

/* The metal on its steady profile at the present temperatures (tubes to
 * the secondary sg_heat sees now): the end of the settling and the
 * coupling to a steam side. */
static pcs_status metal_steady(pcs_primary *pr, primary_view *v)
{
    memset(pr->heat_w, 0, pr->nv * sizeof *pr->heat_w);
    pr->metal_in_w = 0.0;
    pcs_status st = sg_heat(pr, v, 0.0);
    if (st == PCS_OK)
        pcs_primary_metal_step(pr, v, 0.0);
    return st;
}

pcs_status pcs_primary_metal_to_steady(pcs_world *w, pcs_primary *pr)
{
    primary_view v;
    pcs_primary_view(w, pr, &v);
    return metal_steady(pr, &v);
}

pcs_status pcs_primary_sg_couple(pcs_world *w, pcs_primary *pr)
{
    if (!w || !pr)
        return pcs_error_set(PCS_E_INVAL, "pcs_primary_sg_couple: NULL argument");
    if (pr->def.sg_model != PCS_PRIMARY_SG_TUBE_STORES)
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_primary_sg_couple: %s: sg_model = %u, not "
                             "PCS_PRIMARY_SG_TUBE_STORES (%u)",
                             pr->unit, pr->def.sg_model, (unsigned)PCS_PRIMARY_SG_TUBE_STORES);
    if (pcs_world_sealed(w) && !pcs_world_amending(w))
        return pcs_error_set(PCS_E_STATE, "pcs_primary_sg_couple: %s: the world has already ticked",
                             pr->unit);
    pr->sg_live = 1;
    /* the tube walls onto their profile between the water and tube_t */
    return pcs_primary_metal_to_steady(w, pr);
}

pcs_status pcs_primary_sg_tube_heat(pcs_world *w, const pcs_primary *pr, const double *t_sec_k,
                                    double *q_w)
{
    if (!w || !pr || !t_sec_k || !q_w)
        return pcs_error_set(PCS_E_INVAL, "pcs_primary_sg_tube_heat: NULL argument");
    primary_view v;
    pcs_primary_view(w, pr, &v);
    for (uint32_t l = 0; l < pr->nl; l++)
        for (uint32_t k = 0; k < pr->ns; k++) {
            uint32_t i = loop_vol(pr, l, LOOP_TUBE0 + k), e = l * pr->ns + k;
            double ua = pcs_primary_sg_ua(pr, v.st.flow_kg_s[pr->j_tube[e]]);
            q_w[e] = ua * (v.st.t_k[i] - t_sec_k[e]);
        }
    return PCS_OK;
}

static pcs_status pump_heads(pcs_primary *pr, const primary_view *v)
{
    for (uint32_t l = 0; l < pr->nl; l++) {
        uint32_t j = pr->j_pump[l];
        if (v->pump_on[l] == PCS_PRIMARY_PUMP_REMOVED) {
            pr->pump_dp[j] = 0.0; /* no pump, no head */
            continue;
        }
        double rho = v->st.rho_kg_m3[loop_pump(pr, l)], head;
        pcs_status st =
            pcs_pump_homologous_head(&pr->def.pump, v->speed[l], v->st.flow_kg_s[j] / rho, &head);
        if (st != PCS_OK)
            return st;
        pr->pump_dp[j] = rho * pr->g * head;
    }
    return PCS_OK;
}

/* Motor torque on the slip line, implicit in the speed (header). */
static double motor_torque(const pcs_primary *pr, double on, double speed, double dt)
{
    const pcs_primary_def *d = &pr->def;
    if (on == 0.0)
        return 0.0;
    double slope =
        d->motor_rated_torque_n_m / (d->motor_sync_speed_rad_s - d->pump.rated_speed_rad_s);
    double tau = slope * (d->motor_sync_speed_rad_s - speed) * d->pump.inertia_kg_m2 /
                 (d->pump.inertia_kg_m2 + dt * slope);
    double top = d->motor_max_torque_ratio * d->motor_rated_torque_n_m;
    return fmin(fmax(tau, -top), top);
}

static pcs_status shafts(pcs_primary *pr, primary_view *v, double dt)
{
    for (uint32_t l = 0; l < pr->nl; l++) {
        if (v->pump_on[l] == PCS_PRIMARY_PUMP_REMOVED)
            continue; /* no shaft: its speed stays 0 */
        double rho = v->st.rho_kg_m3[loop_pump(pr, l)];
        double q = v->st.flow_kg_s[pr->j_pump[l]] / rho;
        pcs_status st = pcs_pump_homologous_shaft_step(
            &pr->def.pump, v->speed[l], q, rho, motor_torque(pr, v->pump_on[l], v->speed[l], dt),
            dt, &v->speed[l]);
        if (st != PCS_OK)
            return st;
    }
    return PCS_OK;
}

/* CVCS sources from the controls (header): charging split equally over the
 * cold legs at h(p_cold, charging_t_k) with the charging boron, letdown out
 * of loop 1's crossover leg (the network takes it at that volume's h and
 * boron). Negative demands count as 0. */
static pcs_status cvcs_sources(pcs_primary *pr, const primary_view *v)
{
    const double *c = v->controls;
    double wc = fmax(c[PCS_PRIMARY_CTL_CHARGING], 0.0), wl = fmax(c[PCS_PRIMARY_CTL_LETDOWN], 0.0);
    for (uint32_t l = 0; l < pr->nl; l++) {
        uint32_t cold = loop_cold(pr, l);
        pr->src_kg_s[cold] = wc / pr->nl;
        pr->src_c[cold] = c[PCS_PRIMARY_CTL_CHARGING_BORON];
        if (wc > 0.0) {
            pcs_status st =
                pcs_water_h_pt(v->st.p_pa[cold], pr->def.charging_t_k, &pr->src_h[cold]);
            if (st != PCS_OK)
                return st;
        }
    }
    pr->src_kg_s[loop_xo(pr, 0)] = -wl;
    pr->last.charging_kg_s = wc;
    pr->last.letdown_kg_s = wl;
    return PCS_OK;
}

/*
 * The pressurizer liquid's boron after its step (header): its boron mass
 * C m_liq loses what the network took through the surge line (b_surge_out:
 * the network's boundary scalar inflow, C x kg) and gains the spray at loop
 * 1's cold-leg concentration; a vessel that was water-solid at the step's
 * start relieves liquid at its concentration. With no liquid left the last
 * concentration is kept (nothing carries it).
 */
static void pzr_boron(pcs_primary *pr, primary_view *v, const pcs_pressurizer_state *before,
                      const pcs_pressurizer_report *rep, double b_surge_out, double dt)
{
    double *c = &v->boron[pr->v_pzr], m1 = v->pzr[PZR_M_LIQ];
    double b =
        *c * before->m_liq_kg - b_surge_out + dt * rep->spray_kg_s * v->boron[loop_cold(pr, 0)];
    if (!(before->m_vap_kg > 0.0))
        b -= dt * (rep->porv_kg_s + rep->safety_kg_s) * *c;
    if (m1 > 0.0)
        *c = fmax(b, 0.0) / m1;
}

static pcs_status pressurizer(pcs_primary *pr, primary_view *v, double dt, double surge_kg_s,
                              double surge_h_j_kg, double b_surge_out)
{
    pcs_pressurizer_state ps;
    pcs_primary_pzr_get(v->pzr, &ps);
    uint32_t cold = loop_cold(pr, 0);
    const double *c = v->controls;
    pcs_pressurizer_input in = {.surge_kg_s = surge_kg_s,
                                .surge_h_j_kg = surge_h_j_kg,
                                .spray_demand = c[PCS_PRIMARY_CTL_SPRAY],
                                .spray_h_j_kg = v->st.h_j_kg[cold],
                                .heater_proportional = c[PCS_PRIMARY_CTL_HEATER_PROPORTIONAL],
                                .heater_backup = c[PCS_PRIMARY_CTL_HEATER_BACKUP],
                                .wall_t_k = NAN};
    pcs_pressurizer_report rep;
    pcs_pressurizer_state before = ps;
    pcs_status st = pcs_pressurizer_step(&pr->pzr_def, &ps, &in, dt, &rep);
    if (st != PCS_OK)
        return st;
    pcs_primary_pzr_put(&ps, v->pzr);
    pr->last.spray_kg_s = rep.spray_kg_s;
    pr->last.heater_w = rep.heater_w;
    pr->pzr_relief_kg = dt * (rep.porv_kg_s + rep.safety_kg_s);
    pr->pzr_energy_j = dt * (rep.heater_w - rep.wall_w - rep.porv_w - rep.safety_w);
    pzr_boron(pr, v, &before, &rep, b_surge_out, dt);
    v->st.mass_kg[cold] -= dt * rep.spray_kg_s;
    v->st.energy_j[cold] -= dt * rep.spray_w;
    return PCS_OK;
}

/* The tick's boundary flows (pcs_primary_last_balance): the network's
 * heats, pump work and CVCS sources, the pressurizer's heaters, wall and
 * relief, and the metal's net heat (what the water gave the walls less what
 * the tube walls gave the secondary), so the SG heat is Q_s. The spray and the surge move between
 * the two and cancel (file comment). */
static void balance(pcs_primary *pr, const primary_view *v, const pcs_thnet_report *rep, double dt)
{
    pcs_primary_balance *b = &pr->bal;
    b->mass_in_kg = rep->source_mass_in_kg - pr->pzr_relief_kg;
    b->energy_in_j = rep->heat_in_j + rep->pump_work_j + rep->source_energy_in_j +
                     pr->pzr_energy_j + dt * pr->metal_in_w;
    b->core_heat_j = b->sg_heat_j = 0.0;
    for (uint32_t k = 0; k < pr->nc; k++)
        b->core_heat_j += dt * v->core_heat[k];
    for (uint32_t l = 0; l < pr->nl; l++)
        b->sg_heat_j += dt * pr->sg_q[l];
}

pcs_primary_balance pcs_primary_last_balance(const pcs_primary *pr)
{
    pcs_primary_balance z = {0};
    return pr ? pr->bal : z;
}

/* The network's sources this step beyond the core heat: the SG tubes' heat,
 * the metal's (which steps here, with the water), the pump heads and the
 * CVCS flows; the first failure stops the rest. */
static pcs_status network_sources(pcs_primary *pr, primary_view *v, double inv_dt)
{
    pcs_status st = sg_heat(pr, v, inv_dt);
    if (st != PCS_OK)
        return st;
    pcs_primary_metal_step(pr, v, inv_dt);
    st = pump_heads(pr, v);
    return st == PCS_OK ? cvcs_sources(pr, v) : st;
}

pcs_status pcs_primary_advance(pcs_primary *pr, primary_view *v, double dt, int step_pzr)
{
    pcs_status st = pcs_primary_pzr_boundary(pr, v);
    /* the metal steps with the water (its steady profile while settling) */
    double inv_dt = step_pzr ? 1.0 / dt : 0.0;
    memset(pr->heat_w, 0, pr->nv * sizeof *pr->heat_w);
    pr->metal_in_w = 0.0;
    for (uint32_t k = 0; k < pr->nc; k++)
        pr->heat_w[pr->v_core0 + k] = v->core_heat[k];
    if (st == PCS_OK)
        st = network_sources(pr, v, inv_dt);
    if (st != PCS_OK)
        return st;
    double h_hot = v->st.h_j_kg[loop_vol(pr, 0, LOOP_HOT)];
    pcs_thnet_inputs in = {.heat_w = pr->heat_w,
                           .pump_dp_pa = pr->pump_dp,
                           .valve = NULL,
                           .source_kg_s = pr->src_kg_s,
                           .source_h_j_kg = pr->src_h,
                           .source_scalar = pr->src_c};
    /* the boundary gives the pressurizer liquid's boron; steam carries none */
    double *c_pzr = &v->boron[pr->v_pzr], c_liq = *c_pzr;
    if (!(v->pzr[PZR_M_LIQ] > 0.0))
        *c_pzr = 0.0;
    pcs_thnet_report rep;
    st = pcs_thnet_step(pr->net, &v->st, &in, dt, &rep);
    *c_pzr = c_liq;
    pr->last.courant_max = rep.courant_max;
    pr->last.courant_volume = rep.courant_volume;
    if (st == PCS_OK)
        st = shafts(pr, v, dt);
    /* The surge the network moved: its end-of-step flow (or, when the step
       was redone in sub-steps, pcsim/thnet.h, the mass they moved into the
       boundary), and for an insurge the enthalpy the network gave it, its
       boundary energy over its boundary mass. The network decides the one
       enthalpy: the donor by the direction the mass moved (thnet_step.c,
       carried_h), the hot leg's for an insurge and the boundary's, which
       is the pressurizer liquid's (pcs_primary_pzr_boundary), for an
       outsurge, which the kernel takes from that liquid. So what leaves
       one side enters the other. */
    double surge = st == PCS_OK ? v->st.flow_kg_s[pr->j_surge] : 0.0, h_surge = h_hot;
    if (st == PCS_OK && rep.substeps > 1)
        surge = -rep.boundary_mass_in_kg / dt;
    if (st == PCS_OK && rep.boundary_mass_in_kg < 0.0)
        h_surge = rep.boundary_energy_in_j / rep.boundary_mass_in_kg;
    pr->pzr_relief_kg = pr->pzr_energy_j = 0.0;
    if (st == PCS_OK && step_pzr)
        st = pressurizer(pr, v, dt, surge, h_surge, rep.boundary_scalar_in);
    if (st == PCS_OK)
        balance(pr, v, &rep, dt);
    if (st == PCS_OK)
        pcs_primary_outputs(pr, v);
    return st;
}

void pcs_primary_outputs(const pcs_primary *pr, primary_view *v)
{
    double *o = v->out, level = 0.0;
    const pcs_thnet_state *s = &v->st;
    pcs_pressurizer_state ps;
    pcs_primary_pzr_get(v->pzr, &ps);
    (void)pcs_pressurizer_level(&pr->pzr_def, &ps, &level);
    o[PCS_PRIMARY_OUT_RCS_PRESSURE] = s->p_pa[loop_vol(pr, 0, LOOP_HOT)];
    o[PCS_PRIMARY_OUT_CORE_FLOW] = s->flow_kg_s[pr->j_core_in];
    o[PCS_PRIMARY_OUT_T_INLET] = s->t_k[pr->v_lp];
    o[PCS_PRIMARY_OUT_T_OUTLET] = s->t_k[pr->v_core0 + pr->nc - 1];
    o[PCS_PRIMARY_OUT_PZR_PRESSURE] = v->pzr[PZR_P];
    o[PCS_PRIMARY_OUT_PZR_LEVEL] = level;
    o[PCS_PRIMARY_OUT_SURGE] = s->flow_kg_s[pr->j_surge];
    double tavg = 0.0;
    for (uint32_t l = 0; l < pr->nl; l++) {
        double *b = o + PCS_PRIMARY_OUT_LOOPS + PCS_PRIMARY_OUT_PER_LOOP * l;
        b[PCS_PRIMARY_OUT_T_HOT] = s->t_k[loop_vol(pr, l, LOOP_HOT)];
        b[PCS_PRIMARY_OUT_T_COLD] = s->t_k[loop_cold(pr, l)];
        b[PCS_PRIMARY_OUT_LOOP_FLOW] = s->flow_kg_s[pr->j_pump[l]];
        b[PCS_PRIMARY_OUT_SG_HEAT] = pr->sg_q[l];
        tavg += 0.5 * (b[PCS_PRIMARY_OUT_T_HOT] + b[PCS_PRIMARY_OUT_T_COLD]);
    }
    o[PCS_PRIMARY_OUT_T_AVG] = tavg / pr->nl;
    double *t = o + PCS_PRIMARY_OUT_TAIL(pr->nl), bm = 0.0, m = 0.0;
    for (uint32_t k = 0; k < pr->nc; k++) {
        bm += v->boron[pr->v_core0 + k] * s->mass_kg[pr->v_core0 + k];
        m += s->mass_kg[pr->v_core0 + k];
    }
    t[PCS_PRIMARY_OUT_CORE_BORON] = bm / m;
    t[PCS_PRIMARY_OUT_PZR_BORON] = v->boron[pr->v_pzr];
    t[PCS_PRIMARY_OUT_CHARGING] = pr->last.charging_kg_s;
    t[PCS_PRIMARY_OUT_LETDOWN] = pr->last.letdown_kg_s;
    t[PCS_PRIMARY_OUT_SPRAY] = pr->last.spray_kg_s;
    t[PCS_PRIMARY_OUT_HEATERS] = pr->last.heater_w;
}

pcs_status pcs_primary_system(pcs_world *w, void *ctx)
{
    pcs_primary *pr = ctx;
    primary_view v;
    pcs_primary_view(w, pr, &v);
    pcs_status st = pcs_primary_pumps_sync(pr, &v);
    if (st == PCS_OK)
        st = pcs_primary_advance(pr, &v, pcs_world_clock(w)->dt_s, 1);
    if (st != PCS_OK)
        return pcs_error_set(st, "%s.primary: %s", pr->unit, pcs_last_error());
    /* Reported on every 20th tick while above 1: a rate, and no state to save. */
    if (pr->last.courant_max > 1.0 && pcs_world_clock(w)->tick % 20u == 0u)
        pcs_event_emit(w, PCS_EV_PRIMARY_COURANT, pr->def.unit_index, pr->last.courant_max,
                       (double)pr->last.courant_volume, 0, 0);
    return PCS_OK;
}
