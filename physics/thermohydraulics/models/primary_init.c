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
 * program through the steam pressure). The energy sweeps (below) only reach
 * the steady enthalpies that stepping alone would approach over minutes of
 * circulating temperature waves: a build five times cheaper, the same
 * state within the tolerances. The secondary pressure that results
 * is an outcome (at full power it is compared with the 780-1000 psia window
 * of refdata pwr_transients.md section 1 by tests/test_primary.c).
 */
#include <math.h>
#include <string.h>

#include "pcsim/structure.h"
#include "pcsim/math.h"
#include "pcsim/water.h"
#include "physics/thermohydraulics/models/primary_internal.h"

/* The settling runs at the design step whatever the world's dt: a 1 ms world
 * would take 50 times the work to reach it. The steady flows depend weakly on
 * the step (0.4 % between 0.05 and 0.1 s); a world at another dt starts with
 * that small a transient. */
#define INIT_DT_S 0.05
#define INIT_FLOW_S 20.0  /* the first chunk: flows relax from the guess */
#define INIT_CHUNK_S 10.0 /* each chunk after an energy sweep */
#define INIT_MAX_S 3000.0
#define INIT_TAVG_TOL_K 0.01
#define INIT_DTDT_TOL_K_S 1e-4
#define SWEEP_TOL_J_KG 1e-4 /* 2e-8 K in the liquid */
#define SWEEP_MAX 200
#define SWEEP_MIN_FLOW_KG_S 1.0 /* a volume flow passes through (loops: ~4000 kg/s) */

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
    double ua = pcs_primary_sg_ua(pr, pr->def.loop_flow_guess_kg_s), sum_ua = 0.0, sum_t = 0.0;
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

/* The SG tube junction feeding volume @p i, or UINT32_MAX if @p i is no tube. */
static uint32_t tube_junction(const pcs_primary *pr, uint32_t i)
{
    if (i < pr->v_loop0 || i >= pr->v_loop0 + pr->nl * pr->per_loop)
        return UINT32_MAX;
    uint32_t l = (i - pr->v_loop0) / pr->per_loop, off = (i - pr->v_loop0) % pr->per_loop;
    if (off < LOOP_TUBE0 || off >= LOOP_TUBE0 + pr->ns)
        return UINT32_MAX;
    return pr->j_tube[l * pr->ns + off - LOOP_TUBE0];
}

/*
 * Volume i's steady energy balance at the present flows with every other
 * volume at h[]: the network's donor-cell transport (pcs_thnet_step), the
 * pump work into the pump's downstream volume, the core heat and the CVCS
 * sources of the last step. *e_in: the energy entering, W; *w_in, *w_out:
 * the mass entering and leaving, kg/s. Junctions to the pressurizer are left
 * out: the surge flow settles to zero.
 */
static void energy_balance(const pcs_primary *pr, const primary_view *v, const double *h,
                           uint32_t i, double *e_in, double *w_in, double *w_out)
{
    double e = 0.0, in = 0.0, out = 0.0, sm = pr->src_kg_s[i];
    if (i >= pr->v_core0 && i < pr->v_core0 + pr->nc)
        e += v->core_heat[i - pr->v_core0];
    e += pr->metal_w[i]; /* a vessel structure's steady conduction between two waters */
    if (sm > 0.0) {
        e += sm * pr->src_h[i];
        in += sm;
    } else {
        out -= sm;
    }
    for (uint32_t k = 0; k < pr->nj; k++) {
        uint32_t f = pr->j_from[k], t = pr->j_to[k];
        if ((f != i && t != i) || f == pr->v_pzr || t == pr->v_pzr)
            continue;
        double w = v->st.flow_kg_s[k];
        uint32_t donor = w > 0.0 ? f : t;
        if (donor == i) {
            out += fabs(w);
        } else {
            e += fabs(w) * h[donor];
            in += fabs(w);
        }
        double rho = 0.5 * (v->st.rho_kg_m3[f] + v->st.rho_kg_m3[t]);
        if ((w >= 0.0 ? t : f) == i)
            e += pr->pump_dp[k] * w / rho;
    }
    *e_in = e;
    *w_in = in;
    *w_out = out;
}

/* A tube volume's steady h: e_in - UA (T(p, h) - ts) = w_out h, by Newton
 * with dT/dh from a 10 J/kg difference. */
static pcs_status tube_h(const pcs_thnet_eos *eos, double p, double ua, double ts, double e_in,
                         double w_out, double *h)
{
    for (int it = 0; it < 20; it++) {
        pcs_thnet_props a, b;
        pcs_status st = eos->props(eos->ctx, p, *h, &a);
        if (st == PCS_OK)
            st = eos->props(eos->ctx, p, *h + 10.0, &b);
        if (st != PCS_OK)
            return st;
        double f = e_in - ua * (a.t_k - ts) - w_out * *h;
        double df = -ua * (b.t_k - a.t_k) / 10.0 - w_out;
        double dh = -f / df;
        *h += dh;
        if (fabs(dh) < SWEEP_TOL_J_KG)
            break;
    }
    return PCS_OK;
}

/* Gauss-Seidel sweeps in volume order of every balance until no h moves by
 * SWEEP_TOL_J_KG: each sweep carries the heat once round the loop, and what
 * comes back is attenuated by the SGs (exp(-NTU), NTU ~ 1.4 here). */
static pcs_status sweep(pcs_primary *pr, const primary_view *v, const pcs_thnet_eos *eos, double ts,
                        double *h)
{
    double moved = 0.0;
    for (int n = 0; n < SWEEP_MAX; n++) {
        moved = 0.0;
        for (uint32_t i = 0; i < pr->nv; i++) {
            double e, in, out, hi = h[i];
            if (i == pr->v_pzr)
                continue;
            energy_balance(pr, v, h, i, &e, &in, &out);
            if (fmin(in, out) < SWEEP_MIN_FLOW_KG_S)
                continue; /* the upper head: only its water's expansion moves */
            uint32_t jt = tube_junction(pr, i);
            if (jt == UINT32_MAX) {
                hi = e / out;
            } else {
                pcs_status st = tube_h(eos, v->st.p_pa[i],
                                       pcs_primary_sg_ua(pr, v->st.flow_kg_s[jt]), ts, e, out, &hi);
                if (st != PCS_OK)
                    return st;
            }
            moved = fmax(moved, fabs(hi - h[i]));
            h[i] = hi;
        }
        if (moved < SWEEP_TOL_J_KG)
            return PCS_OK;
    }
    return pcs_error_set(PCS_E_STATE,
                         "pcs_primary_init_steady: %s: the energy sweep still moved an enthalpy by "
                         "%g J/kg after %d sweeps (tolerance %g J/kg)",
                         pr->unit, moved, SWEEP_MAX, SWEEP_TOL_J_KG);
}

static pcs_status t_of(const pcs_thnet_eos *eos, double p, double h, double *t)
{
    pcs_thnet_props a;
    pcs_status st = eos->props(eos->ctx, p, h, &a);
    if (st == PCS_OK)
        *t = a.t_k;
    return st;
}

/* Tavg of the loops with the volumes at h[]. */
static pcs_status t_avg_of(const pcs_primary *pr, const primary_view *v, const pcs_thnet_eos *eos,
                           const double *h, double *tavg)
{
    double sum = 0.0;
    for (uint32_t l = 0; l < pr->nl; l++) {
        uint32_t a = loop_vol(pr, l, LOOP_HOT), b = loop_cold(pr, l);
        double th, tc;
        pcs_status st = t_of(eos, v->st.p_pa[a], h[a], &th);
        if (st == PCS_OK)
            st = t_of(eos, v->st.p_pa[b], h[b], &tc);
        if (st != PCS_OK)
            return st;
        sum += 0.5 * (th + tc);
    }
    *tavg = sum / pr->nl;
    return PCS_OK;
}

/* Every volume to its h[] at its own pressure: mass rho(p, h) V, energy
 * M (h - p / rho), so the pressures stay where the network put them. */
static pcs_status put_enthalpies(pcs_primary *pr, primary_view *v, const pcs_thnet_eos *eos,
                                 const double *h)
{
    for (uint32_t i = 0; i < pr->nv; i++) {
        if (i == pr->v_pzr)
            continue;
        pcs_thnet_props a;
        double p = v->st.p_pa[i];
        pcs_status st = eos->props(eos->ctx, p, h[i], &a);
        if (st != PCS_OK)
            return st;
        v->st.mass_kg[i] = a.rho_kg_m3 * pr->vol_m3[i];
        v->st.energy_j[i] = v->st.mass_kg[i] * (h[i] - p / a.rho_kg_m3);
    }
    return pcs_thnet_state_update(pr->net, &v->st);
}

/*
 * The steady enthalpies at the present flows with the secondary at the
 * T_sat that puts Tavg on the program: sweep, then move *ts by Tavg's
 * distance from the program (at fixed heat the loop's temperatures move one
 * for one with T_sat) until it is within 1e-6 K; the state takes them.
 */
static pcs_status energy_to_program(pcs_primary *pr, primary_view *v, double prog, double *ts)
{
    pcs_thnet_eos eos = pr->def.table ? pcs_thnet_eos_table(pr->def.table) : pcs_thnet_eos_if97();
    double *h = pr->h_sweep;
    memcpy(h, v->st.h_j_kg, pr->nv * sizeof *h);
    pcs_status st = PCS_OK;
    double tavg = NAN;
    for (int n = 0; st == PCS_OK && n < SWEEP_MAX; n++) {
        st = sweep(pr, v, &eos, *ts, h);
        if (st == PCS_OK)
            st = t_avg_of(pr, v, &eos, h, &tavg);
        if (st != PCS_OK)
            break;
        if (fabs(prog - tavg) < 1e-6)
            return put_enthalpies(pr, v, &eos, h);
        *ts += prog - tavg;
    }
    if (st == PCS_OK)
        st = pcs_error_set(PCS_E_STATE,
                           "pcs_primary_init_steady: %s: Tavg %.6f K did not reach the program's "
                           "%.6f K in %d secondary-temperature corrections",
                           pr->unit, tavg, prog, SWEEP_MAX);
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
    if (pcs_world_sealed(w) && !pcs_world_amending(w))
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
    double dt = INIT_DT_S, t = 0.0, dtdt = INFINITY;
    uint32_t steps = (uint32_t)(INIT_FLOW_S / dt + 0.5), corrections = 0;
    st = set_secondary(pr, &v, ts);
    while (st == PCS_OK) {
        st = settle_chunk(pr, &v, dt, steps, &dtdt);
        if (st != PCS_OK)
            break;
        t += steps * dt;
        if (fabs(prog - v.out[PCS_PRIMARY_OUT_T_AVG]) <= INIT_TAVG_TOL_K &&
            dtdt <= INIT_DTDT_TOL_K_S)
            break;
        if (t >= INIT_MAX_S) {
            st = pcs_error_set(PCS_E_STATE,
                               "pcs_primary_init_steady: not steady after %g s (Tavg %g K against "
                               "the program's %g K, max |dT/dt| %g K/s)",
                               t, v.out[PCS_PRIMARY_OUT_T_AVG], prog, dtdt);
            break;
        }
        st = energy_to_program(pr, &v, prog, &ts);
        if (st == PCS_OK)
            st = set_secondary(pr, &v, ts);
        steps = (uint32_t)(INIT_CHUNK_S / dt + 0.5);
        corrections++;
    }
    /* the metal on its profile at the settled temperatures (the last step's
       was at its start) */
    if (st == PCS_OK)
        st = pcs_primary_metal_to_steady(w, pr);
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
    if (pcs_world_sealed(w) && !pcs_world_amending(w))
        return pcs_error_set(PCS_E_STATE, "pcs_primary_copy_steady: the world has already ticked");
    const pcs_primary_stores *a = &src->s, *b = &dst->s;
    const uint32_t from[] = {
        a->mass,      a->energy,   a->flow,          a->p,          a->h,       a->t,
        a->rho,       a->quality,  a->void_fraction, a->pump_speed, a->pump_on, a->pzr,
        a->core_heat, a->controls, a->out,           a->boron,      a->metal};
    const uint32_t to[] = {
        b->mass,      b->energy,   b->flow,          b->p,          b->h,       b->t,
        b->rho,       b->quality,  b->void_fraction, b->pump_speed, b->pump_on, b->pzr,
        b->core_heat, b->controls, b->out,           b->boron,      b->metal};
    for (size_t k = 0; k < sizeof from / sizeof from[0]; k++)
        memcpy(pcs_store_data(w, to[k]), pcs_store_data(w, from[k]), pcs_store_bytes(w, from[k]));
    memcpy(dst->sg_q, src->sg_q, dst->nl * sizeof *dst->sg_q);
    dst->last = src->last;
    return PCS_OK;
}
