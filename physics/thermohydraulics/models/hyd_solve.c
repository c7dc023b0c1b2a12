/**
 * @file hyd_solve.c
 * @brief The hydraulic tick: pumps, momentum + pressure (sparse solve), mass,
 *        energy (see hydraulics.h for the equations).
 *
 * Allocation: the CSC pattern, KLU's symbolic analysis and first numeric
 * factorisation are made at build; each tick refills the values in place and
 * calls klu_refactor, which reuses the numeric object, and klu_solve.
 */
#include <string.h>

#include "pcsim/math.h"
#include "physics/thermohydraulics/models/hyd_internal.h"

static double *dstore(pcs_world *w, uint32_t id)
{
    return pcs_store_data(w, id);
}

static void step_pumps(pcs_world *w, pcs_hydraulics *h, double dt)
{
    double *speed = dstore(w, h->s_speed), *target = dstore(w, h->s_motor);
    for (uint32_t k = 0; k < h->cfg.n_pumps; k++) {
        double c = pcs_pump_torque_coeff(&h->pumps[k], h->cfg.rho_kg_m3);
        speed[k] = pcs_pump_shaft_step(&h->pumps[k], c, speed[k], target[k], dt);
    }
}

/* Loss coefficient R_j (Pa s/kg) linearised about the current flow. */
static double junction_r(const pcs_hydraulics *h, const pcs_hydraulics_junction *j, double m,
                         double valve)
{
    double rho = h->cfg.rho_kg_m3, am = pcs_fabs(m);
    double f = j->fixed_friction;
    if (f <= 0.0) {
        double re = am * j->diameter_m / (j->area_m2 * h->cfg.mu_pa_s);
        f = pcs_friction_haaland(re, j->roughness_m / j->diameter_m);
    }
    double k = f * j->length_m / j->diameter_m + j->form_loss;
    if (j->kind == PCS_HYDRAULICS_VALVE)
        k += j->valve_k_open / (valve * valve);
    double r = k * am / (2.0 * rho * j->area_m2 * j->area_m2);
    if (j->kind == PCS_HYDRAULICS_PUMP)
        r += pcs_pump_loss_coeff(&h->pumps[j->pump]) * am;
    return r;
}

static int junction_closed(const pcs_hydraulics_junction *j, double valve, double m, double drive)
{
    if (j->kind == PCS_HYDRAULICS_VALVE && valve <= 0.0)
        return 1;
    return j->kind == PCS_HYDRAULICS_CHECK_VALVE && m <= 0.0 && drive <= 0.0;
}

/* m' = a + b (p_f' - p_t') for every junction. */
static void linearise(pcs_world *w, pcs_hydraulics *h, double dt)
{
    const double *m = dstore(w, h->s_flow), *p = dstore(w, h->s_pressure);
    const double *speed = dstore(w, h->s_speed), *valve = dstore(w, h->s_valve);
    for (uint32_t k = 0; k < h->cfg.n_junctions; k++) {
        const pcs_hydraulics_junction *j = &h->junctions[k];
        double s = j->kind == PCS_HYDRAULICS_PUMP ? pcs_pump_dp(&h->pumps[j->pump], speed[j->pump], m[k])
                                           : 0.0;
        if (junction_closed(j, valve[k], m[k], p[j->from] - p[j->to] + s)) {
            h->a[k] = h->b[k] = 0.0;
            continue;
        }
        double inertia = j->length_m / j->area_m2;
        double d = inertia + dt * junction_r(h, j, m[k], valve[k]);
        h->a[k] = (inertia * m[k] + dt * s) / d;
        h->b[k] = dt / d;
    }
}

static void assemble(pcs_world *w, pcs_hydraulics *h, double dt)
{
    const double *p = dstore(w, h->s_pressure), *pzr = dstore(w, h->s_pzr);
    memset(h->ax, 0, (size_t)h->ap[h->n] * sizeof *h->ax);
    for (int i = 0; i < h->n; i++) {
        h->ax[h->pos_diag[i]] = h->compliance[i] / dt;
        h->rhs[i] = h->compliance[i] / dt * p[i];
    }
    for (uint32_t k = 0; k < h->cfg.n_junctions; k++) {
        const pcs_hydraulics_junction *j = &h->junctions[k];
        double b = h->b[k], a = h->a[k];
        h->ax[h->pos_diag[j->from]] += b;
        h->ax[h->pos_diag[j->to]] += b;
        h->ax[h->pos_ft[k]] -= b;
        h->ax[h->pos_tf[k]] -= b;
        h->rhs[j->to] += a;
        h->rhs[j->from] -= a;
    }
    double heat = pzr[0] - pzr[1]; /* heaters minus spray, W */
    for (uint32_t i = 0; i < h->n_pzr; i++)
        h->rhs[h->pzr_nodes[i]] += h->compliance[h->pzr_nodes[i]] * h->cfg.pzr_dp_per_joule * heat;
}

void pcs_hydraulics_assemble(pcs_world *w, pcs_hydraulics *h, double dt)
{
    linearise(w, h, dt);
    assemble(w, h, dt);
}

pcs_status pcs_hydraulics_momentum_pressure(pcs_world *w, pcs_hydraulics *h, double dt)
{
    pcs_hydraulics_assemble(w, h, dt);
    if (!klu_refactor(h->ap, h->ai, h->ax, h->symbolic, h->numeric, &h->common) ||
        !klu_solve(h->symbolic, h->numeric, h->n, 1, h->rhs, &h->common)) {
        pcs_event_emit(w, PCS_EV_HYD_SOLVE_FAILED, h->unit, (double)h->common.status, 0, 0, 0);
        return pcs_error_set(PCS_E_STATE, "hydraulics unit %u: sparse solve failed (KLU status "
                                          "%d)",
                             h->unit + 1, h->common.status);
    }
    double *p = dstore(w, h->s_pressure), *m = dstore(w, h->s_flow);
    for (uint32_t k = 0; k < h->cfg.n_junctions; k++) {
        const pcs_hydraulics_junction *j = &h->junctions[k];
        m[k] = h->a[k] + h->b[k] * (h->rhs[j->from] - h->rhs[j->to]);
    }
    memcpy(p, h->rhs, (size_t)h->n * sizeof *p);
    return PCS_OK;
}

/* Sources per node this tick: core heat split evenly, SG sinks. W. */
static double node_heat(pcs_world *w, const pcs_hydraulics *h, uint32_t i, double t_node,
                        double core_share)
{
    const double *pzr = dstore(w, h->s_pzr);
    switch (h->nodes[i].role) {
    case PCS_HYDRAULICS_CORE:
        return core_share;
    case PCS_HYDRAULICS_SG:
        return -h->cfg.sg_ua_w_k * (t_node - pzr[2]);
    default:
        return 0.0;
    }
}

/*
 * Sub-steps of the donor-cell transport: ceil(C / 0.9) + 1 for the largest
 * Courant number C = dt |m_j| / M_donor. Every mass must be positive and
 * finite and C at most the network's geometry-derived courant_max
 * (hyd_internal.h), else the tick fails: a tiny mass would ask for millions of
 * sub-steps, and a zero, negative or NaN one for an undefined cast. The
 * comparisons are written so that NaN fails them.
 */
static pcs_status subcycles(pcs_world *w, const pcs_hydraulics *h, double dt, uint32_t *nsub)
{
    const double *m = dstore(w, h->s_flow), *mass = dstore(w, h->s_mass);
    for (int i = 0; i < h->n; i++)
        if (!(mass[i] > 0.0) || !pcs_isfinite(mass[i]))
            return pcs_error_set(PCS_E_NUMERIC,
                                 "hydraulics unit %u: numeric: node %d mass %g kg is "
                                 "not positive and finite",
                                 h->unit + 1, i, mass[i]);
    double worst = 0.0;
    for (uint32_t k = 0; k < h->cfg.n_junctions; k++) {
        const pcs_hydraulics_junction *j = &h->junctions[k];
        uint32_t donor = m[k] > 0.0 ? j->from : j->to;
        double c = dt * pcs_fabs(m[k]) / mass[donor];
        if (!(c <= h->courant_max))
            return pcs_error_set(PCS_E_NUMERIC,
                                 "hydraulics unit %u: numeric: junction %u flow %g "
                                 "kg/s out of node %u mass %g kg gives Courant number %g, above "
                                 "the network's cap %g",
                                 h->unit + 1, k, m[k], donor, mass[donor], c, h->courant_max);
        worst = c > worst ? c : worst;
    }
    *nsub = (uint32_t)pcs_ceil(worst / HYD_COURANT_PER_SUBSTEP) + 1u;
    return PCS_OK;
}

/* Donor-cell transport of mass and enthalpy, sub-cycled; exactly conservative. */
static pcs_status transport(pcs_world *w, pcs_hydraulics *h, double dt, double core_heat)
{
    double *mass = dstore(w, h->s_mass), *hh = dstore(w, h->s_enthalpy);
    const double *m = dstore(w, h->s_flow);
    double *energy = h->h_new, *sg = dstore(w, h->s_sg_heat);
    double core_share = h->n_core ? core_heat / h->n_core : 0.0;
    uint32_t nsub = 0;
    pcs_status st = subcycles(w, h, dt, &nsub);
    if (st != PCS_OK)
        return st;
    double dts = dt / nsub, cp = h->cfg.cp_j_kg_k, t_ref = h->cfg.t_ref_k;
    sg[0] = 0.0;
    for (uint32_t s = 0; s < nsub; s++) {
        for (int i = 0; i < h->n; i++) {
            double q = node_heat(w, h, (uint32_t)i, t_ref + hh[i] / cp, core_share);
            if (h->nodes[i].role == PCS_HYDRAULICS_SG)
                sg[0] -= q / nsub;
            energy[i] = mass[i] * hh[i] + dts * q;
        }
        for (uint32_t k = 0; k < h->cfg.n_junctions; k++) {
            const pcs_hydraulics_junction *j = &h->junctions[k];
            double flux = m[k] * (m[k] > 0.0 ? hh[j->from] : hh[j->to]);
            energy[j->from] -= dts * flux;
            energy[j->to] += dts * flux;
            mass[j->from] -= dts * m[k];
            mass[j->to] += dts * m[k];
        }
        for (int i = 0; i < h->n; i++)
            hh[i] = energy[i] / mass[i];
    }
    return PCS_OK;
}

void pcs_hydraulics_outputs(pcs_world *w, pcs_hydraulics *h)
{
    const double *hh = dstore(w, h->s_enthalpy), *m = dstore(w, h->s_flow);
    const double *p = dstore(w, h->s_pressure);
    double *t = dstore(w, h->s_temp), *core = dstore(w, h->s_core);
    for (int i = 0; i < h->n; i++)
        t[i] = h->cfg.t_ref_k + hh[i] / h->cfg.cp_j_kg_k;
    double flow = 0.0, flow_t = 0.0;
    for (uint32_t k = 0; k < h->cfg.n_junctions; k++) {
        const pcs_hydraulics_junction *j = &h->junctions[k];
        if (h->nodes[j->to].role == PCS_HYDRAULICS_CORE && h->nodes[j->from].role != PCS_HYDRAULICS_CORE &&
            m[k] > 0.0) {
            flow += m[k];
            flow_t += m[k] * t[j->from];
        }
    }
    core[0] = flow;
    core[1] = flow > 0.0 ? flow_t / flow : t[0];
    core[2] = h->n_pzr ? p[h->pzr_nodes[0]] : p[0];
}

pcs_status pcs_hydraulics_solve(pcs_world *w, void *ctx)
{
    pcs_hydraulics *h = ctx;
    double dt = pcs_world_clock(w)->dt_s;
    step_pumps(w, h, dt);
    pcs_status st = pcs_hydraulics_momentum_pressure(w, h, dt);
    if (st != PCS_OK)
        return st;
    double core_heat = 0.0;
    if (h->cfg.heat_store != UINT32_MAX)
        core_heat = dstore(w, h->cfg.heat_store)[h->cfg.heat_index];
    st = transport(w, h, dt, core_heat);
    if (st == PCS_OK)
        pcs_hydraulics_outputs(w, h);
    return st;
}
