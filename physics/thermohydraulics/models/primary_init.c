/**
 * @file primary_init.c
 * @brief Steady state at a power fraction on the temperature and level
 *        programs (method and tolerances in pcsim/primary.h,
 *        pcs_primary_init_steady).
 *
 * Nothing is fitted: the temperatures start on the programs, the flow comes
 * from the pump curves against the losses as the network settles, and the one
 * quantity the settling moves is the SG secondary saturation temperature, the
 * plant's own free variable at a given load (the steam side holds Tavg on the
 * program through the steam pressure). The secondary pressure that results
 * is an outcome (at full power it is compared with the 780-1000 psia window
 * of refdata pwr_transients.md section 1 by tests/test_primary.c).
 */
#include <math.h>
#include <string.h>

#include "pcsim/math.h"
#include "pcsim/water.h"
#include "physics/thermohydraulics/models/primary_internal.h"

/* The settling runs at the design step whatever the world's dt: the steady
 * state does not depend on the step, and a 1 ms world would take 50 times the
 * work to reach it. */
#define INIT_DT_S 0.05
#define INIT_CHUNK_S 100.0
#define INIT_MAX_S 3000.0
#define INIT_TAVG_TOL_K 0.01
#define INIT_DTDT_TOL_K_S 1e-4

/* The start temperature of every volume: cold side T_c, hot side T_h, the
 * core and the tubes linear between them. */
static double start_t(const pcs_primary *pr, uint32_t i, double tc, double th)
{
    if (i >= pr->v_core0 && i < pr->v_core0 + pr->nc)
        return tc + (th - tc) * ((i - pr->v_core0) + 0.5) / pr->nc;
    if (i == pr->v_up || i == pr->v_uh)
        return th;
    if (i < pr->v_loop0 || i == pr->v_pzr)
        return tc;
    uint32_t off = (i - pr->v_loop0) % pr->per_loop;
    if (off == LOOP_HOT || off == LOOP_SGI)
        return th;
    if (off < LOOP_TUBE0 + pr->ns)
        return th - (th - tc) * ((off - LOOP_TUBE0) + 0.5) / pr->ns;
    return tc;
}

static pcs_status start_profile(pcs_primary *pr, primary_view *v, double tc, double th)
{
    for (uint32_t i = 0; i < pr->nv; i++) {
        if (i == pr->v_pzr)
            continue;
        double p = v->st.p_pa[i], t = start_t(pr, i, tc, th), h, rho;
        pcs_status st = pcs_water_h_pt(p, t, &h);
        if (st == PCS_OK)
            st = pcs_water_rho_pt(p, t, &rho);
        if (st != PCS_OK)
            return st;
        v->st.mass_kg[i] = rho * pr->vol_m3[i];
        v->st.energy_j[i] = v->st.mass_kg[i] * (h - p / rho);
    }
    return pcs_thnet_state_update(pr->net, &v->st);
}

static void start_flows(pcs_primary *pr, primary_view *v)
{
    double w = pr->def.loop_flow_guess_kg_s;
    for (uint32_t k = 0; k < pr->nj; k++)
        v->st.flow_kg_s[k] = k < pr->j_core_in + pr->nc + 1u ? pr->nl * w : w;
    v->st.flow_kg_s[pr->j_core_in + pr->nc + 1u] = 0.0; /* upper head */
    v->st.flow_kg_s[pr->j_surge] = 0.0;
}

/* T_sat of the secondary that removes the core heat from the start profile
 * (sum over tubes of UA_k (T_k - T_s) = Q per loop). */
static double secondary_t(pcs_primary *pr, const primary_view *v, double q_loop)
{
    const pcs_primary_def *d = &pr->def;
    double do_di = d->sg_tube_od_m / (d->sg_tube_od_m - 2.0 * d->sg_tube_wall_m);
    double hi = fmax(pr->sg_c_flow * pcs_pow(d->loop_flow_guess_kg_s, 0.8), pr->sg_h_laminar);
    double ua = pr->sg_area_per_vol / (do_di / hi + pr->sg_r_fixed), sum_ua = 0.0, sum_t = 0.0;
    for (uint32_t k = 0; k < pr->ns; k++) {
        sum_ua += ua;
        sum_t += ua * v->st.t_k[loop_vol(pr, 0, LOOP_TUBE0 + k)];
    }
    return (sum_t - q_loop) / sum_ua;
}

static pcs_status set_secondary(pcs_primary *pr, primary_view *v, double ts)
{
    double p;
    pcs_status st = pcs_water_psat(ts, &p);
    for (uint32_t l = 0; st == PCS_OK && l < pr->nl; l++)
        v->controls[PCS_PRIMARY_CTL_SG_PRESSURE + l] = p;
    return st;
}

/* Run one chunk; *dtdt: the largest |dT/dt| of any volume over its last step. */
static pcs_status settle_chunk(pcs_primary *pr, primary_view *v, double dt, uint32_t steps,
                               double *dtdt)
{
    pcs_status st = PCS_OK;
    for (uint32_t n = 0; st == PCS_OK && n + 1 < steps; n++)
        st = pcs_primary_advance(pr, v, dt, 0);
    if (st != PCS_OK)
        return st;
    memcpy(pr->t_prev, v->st.t_k, pr->nv * sizeof *pr->t_prev);
    st = pcs_primary_advance(pr, v, dt, 0);
    double worst = 0.0;
    for (uint32_t i = 0; i < pr->nv; i++)
        if (i != pr->v_pzr)
            worst = fmax(worst, fabs(v->st.t_k[i] - pr->t_prev[i]) / dt);
    *dtdt = worst;
    return st;
}

pcs_status pcs_primary_init_steady(pcs_world *w, pcs_primary *pr, double power_fraction,
                                   pcs_primary_init_report *report)
{
    if (!w || !pr)
        return pcs_error_set(PCS_E_INVAL, "pcs_primary_init_steady: NULL argument");
    if (!(power_fraction >= 0.0 && power_fraction <= 1.0))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_primary_init_steady: power_fraction %g is outside [0, 1]",
                             power_fraction);
    if (pcs_world_sealed(w))
        return pcs_error_set(PCS_E_STATE, "pcs_primary_init_steady: the world has already ticked");
    const pcs_primary_def *d = &pr->def;
    primary_view v;
    pcs_primary_view(w, pr, &v);
    double q = power_fraction * d->rated_power_w;
    double prog = d->t_avg_no_load_k + power_fraction * (d->t_avg_full_k - d->t_avg_no_load_k);
    double level =
        d->pzr_level_no_load + power_fraction * (d->pzr_level_full - d->pzr_level_no_load);
    pcs_water_props wp;
    pcs_status st = pcs_water_props_pt(d->ref_p_pa, d->ref_t_k, &wp);
    if (st != PCS_OK)
        return st;
    double dt_core = q / (pr->nl * d->loop_flow_guess_kg_s * wp.cp_j_kg_k);
    pcs_pressurizer_state ps;
    st = pcs_pressurizer_init(&pr->pzr_def, d->p_setpoint_pa, level, &ps);
    if (st != PCS_OK)
        return st;
    pcs_primary_pzr_put(&ps, v.pzr);
    for (uint32_t k = 0; k < pr->nc; k++)
        v.core_heat[k] = q / pr->nc;
    for (uint32_t l = 0; l < pr->nl; l++) {
        v.speed[l] = d->pump.rated_speed_rad_s;
        v.pump_on[l] = 1.0;
    }
    /* heaters and spray off; the CVCS balanced at the nominal letdown with
       charging at the present boron (the unit's, uniform before the first
       tick), so the settled state holds */
    double ppm = v.boron[pr->v_dc];
    memset(v.controls, 0, PCS_PRIMARY_CTL_SG_PRESSURE * sizeof *v.controls);
    v.controls[PCS_PRIMARY_CTL_CHARGING] = d->letdown_nominal_kg_s;
    v.controls[PCS_PRIMARY_CTL_LETDOWN] = d->letdown_nominal_kg_s;
    v.controls[PCS_PRIMARY_CTL_CHARGING_BORON] = ppm;
    start_flows(pr, &v);
    st = pcs_primary_pzr_boundary(pr, &v);
    if (st == PCS_OK)
        st = start_profile(pr, &v, prog - 0.5 * dt_core, prog + 0.5 * dt_core);
    if (st != PCS_OK)
        return st;
    double ts = secondary_t(pr, &v, q / pr->nl);
    double dt = INIT_DT_S, t = 0.0, dtdt = INFINITY, err = INFINITY;
    uint32_t steps = (uint32_t)(INIT_CHUNK_S / dt + 0.5), corrections = 0;
    while (st == PCS_OK) {
        st = set_secondary(pr, &v, ts);
        if (st == PCS_OK)
            st = settle_chunk(pr, &v, dt, steps, &dtdt);
        if (st != PCS_OK)
            break;
        t += steps * dt;
        err = prog - v.out[PCS_PRIMARY_OUT_T_AVG];
        if (fabs(err) <= INIT_TAVG_TOL_K && dtdt <= INIT_DTDT_TOL_K_S)
            break;
        if (t >= INIT_MAX_S)
            st = pcs_error_set(PCS_E_STATE,
                               "pcs_primary_init_steady: not steady after %g s (Tavg %g K against "
                               "the program's %g K, max |dT/dt| %g K/s)",
                               t, v.out[PCS_PRIMARY_OUT_T_AVG], prog, dtdt);
        ts += err;
        corrections++;
    }
    if (report) {
        report->seconds = t;
        report->t_avg_k = v.out[PCS_PRIMARY_OUT_T_AVG];
        report->t_avg_program_k = prog;
        report->sg_pressure_pa = v.controls[PCS_PRIMARY_CTL_SG_PRESSURE];
        report->loop_flow_kg_s = v.out[PCS_PRIMARY_OUT_LOOPS + PCS_PRIMARY_OUT_LOOP_FLOW];
        report->max_dtdt_k_s = dtdt;
        report->corrections = corrections;
    }
    return st;
}

pcs_status pcs_primary_copy_steady(pcs_world *w, pcs_primary *dst, const pcs_primary *src)
{
    if (!w || !dst || !src)
        return pcs_error_set(PCS_E_INVAL, "pcs_primary_copy_steady: NULL argument");
    if (dst->nv != src->nv || dst->nj != src->nj || dst->nl != src->nl || dst->nc != src->nc)
        return pcs_error_set(PCS_E_INVAL, "pcs_primary_copy_steady: %s and %s differ in size",
                             dst->unit, src->unit);
    if (pcs_world_sealed(w))
        return pcs_error_set(PCS_E_STATE, "pcs_primary_copy_steady: the world has already ticked");
    const pcs_primary_stores *a = &src->s, *b = &dst->s;
    const uint32_t from[] = {
        a->mass,      a->energy,   a->flow,          a->p,          a->h,       a->t,
        a->rho,       a->quality,  a->void_fraction, a->pump_speed, a->pump_on, a->pzr,
        a->core_heat, a->controls, a->out,           a->boron};
    const uint32_t to[] = {
        b->mass,      b->energy,   b->flow,          b->p,          b->h,       b->t,
        b->rho,       b->quality,  b->void_fraction, b->pump_speed, b->pump_on, b->pzr,
        b->core_heat, b->controls, b->out,           b->boron};
    for (size_t k = 0; k < sizeof from / sizeof from[0]; k++)
        memcpy(pcs_store_data(w, to[k]), pcs_store_data(w, from[k]), pcs_store_bytes(w, from[k]));
    memcpy(dst->sg_q, src->sg_q, dst->nl * sizeof *dst->sg_q);
    dst->charging_kg_s = src->charging_kg_s;
    dst->letdown_kg_s = src->letdown_kg_s;
    dst->spray_kg_s = src->spray_kg_s;
    dst->heater_w = src->heater_w;
    dst->courant_max = src->courant_max;
    dst->courant_volume = src->courant_volume;
    return PCS_OK;
}
