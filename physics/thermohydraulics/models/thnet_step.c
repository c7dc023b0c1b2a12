/**
 * @file thnet_step.c
 * @brief One semi-implicit step of the thermal-hydraulic network (equations
 *        and stability argument in pcsim/thnet.h).
 *
 * Order: properties at the step start -> junction linearisation (momentum,
 * losses, gravity, pump head, choking) -> pressure matrix (with the heat and
 * the external sources) -> KLU -> new flows -> donor-cell scalar, mass and
 * energy (with the sources) -> EOS inversion of every volume.
 * Nothing here allocates. fabs, fmin and fmax come from <math.h>: exact
 * IEEE operations the compiler inlines (pcsim/math.h's wrappers are calls).
 */
#include <math.h>
#include <string.h>

#include "pcsim/math.h"
#include "pcsim/water.h"
#include "physics/thermohydraulics/kernels/friction.h"
#include "physics/thermohydraulics/models/thnet_internal.h"

static pcs_status start_props(pcs_thnet *net, const pcs_thnet_state *s)
{
    for (uint32_t i = 0; i < net->nv; i++) {
        const pcs_thnet_volume_def *v = &net->vol[i];
        double p = v->boundary ? v->p_pa : s->p_pa[i], h = v->boundary ? v->h_j_kg : s->h_j_kg[i];
        if (!v->boundary && !(s->mass_kg[i] > 0.0))
            return pcs_error_set(PCS_E_NUMERIC,
                                 "pcs_thnet_step: volumes[%u] mass %g kg is not "
                                 "positive",
                                 i, s->mass_kg[i]);
        /* the last step's end-of-step props are those of this (p, h) unless
           the caller changed the state in between */
        double *at = &net->props_at[2 * i];
        if (!(at[0] == p && at[1] == h)) {
            at[0] = at[1] = 0.0 / 0.0;
            if (net->eos.props(net->eos.ctx, p, h, &net->props[i]) != PCS_OK)
                return pcs_error_set(PCS_E_NUMERIC,
                                     "pcs_thnet_step: volumes[%u] (p %g Pa, h %g J/kg): "
                                     "%s",
                                     i, p, h, pcs_last_error());
            at[0] = p;
            at[1] = h;
        }
        if (v->boundary) {
            net->ca[i] = net->cb[i] = 0.0;
            continue;
        }
        const pcs_thnet_props *pr = &net->props[i];
        double rho = pr->rho_kg_m3, d = pr->drho_dp + pr->drho_dh / rho;
        if (!(d > 0.0))
            return pcs_error_set(PCS_E_NUMERIC,
                                 "pcs_thnet_step: volumes[%u]: (d rho/d p)_u = %g is not "
                                 "positive (p %g Pa, h %g J/kg)",
                                 i, d, p, h);
        net->ca[i] = (1.0 + pr->drho_dh * h / rho) / (v->volume_m3 * d);
        net->cb[i] = -pr->drho_dh / (rho * v->volume_m3 * d);
    }
    return PCS_OK;
}

static double p_of(const pcs_thnet *net, const pcs_thnet_state *s, uint32_t i)
{
    return net->vol[i].boundary ? net->vol[i].p_pa : s->p_pa[i];
}

static double h_of(const pcs_thnet *net, const pcs_thnet_state *s, uint32_t i)
{
    return net->vol[i].boundary ? net->vol[i].h_j_kg : s->h_j_kg[i];
}

/*
 * What junction k takes from its donor (fwd: the `from` side): the donor's
 * h and density, or for a phase offtake from a two-phase `from` volume the
 * saturated phase's at its start-of-step pressure (pcsim/thnet.h,
 * pcs_thnet_offtake), blended towards the mixture within the junction's
 * offtake_band as the donor runs out of that phase (the junction's void
 * alpha_j, its density alpha_j rho_g + (1 - alpha_j) rho_f). The phases
 * come from the equation of state's saturation hook (pcs_thnet_eos.sat: the
 * table eos reads a table in ln p, ~150 instructions against IF97's
 * ~1,000; NULL: IF97); where there are none (above the critical point) the
 * mixture's.
 * *sat_vapour is 1 when what it takes is saturated steam alone.
 */
static double donor_state(const pcs_thnet *net, const pcs_thnet_state *s, uint32_t k, int fwd,
                          double *rho, int *sat_vapour)
{
    const pcs_thnet_junction_def *j = &net->jun[k];
    uint32_t d = fwd ? j->from : j->to;
    double h = h_of(net, s, d), x = net->props[d].quality;
    *rho = net->props[d].rho_kg_m3;
    *sat_vapour = 0;
    if (!fwd || j->offtake == PCS_THNET_OFFTAKE_MIXTURE || net->vol[d].boundary ||
        !(x > 0.0 && x < 1.0))
        return h;
    double p = p_of(net, s, d), b = j->offtake_band;
    int vap = j->offtake == PCS_THNET_OFFTAKE_VAPOUR;
    /* the donor's fraction of the offtake's phase; at least b: that phase alone */
    double phase = vap ? net->props[d].alpha : 1.0 - net->props[d].alpha;
    pcs_thnet_sat sat;
    pcs_thnet_sat_fn sat_fn = net->eos.sat ? net->eos.sat : pcs_thnet_sat_if97;
    if (sat_fn(net->eos.ctx, p, &sat) != PCS_OK)
        return h;
    if (!(phase < b)) {
        *rho = vap ? sat.rho_g_kg_m3 : sat.rho_f_kg_m3;
        *sat_vapour = vap;
        return vap ? sat.h_g_j_kg : sat.h_f_j_kg;
    }
    /* the junction's void: its share of the offtake's phase is phase / b */
    double aj = vap ? phase / b : 1.0 - phase / b;
    double mg = aj * sat.rho_g_kg_m3, mf = (1.0 - aj) * sat.rho_f_kg_m3, xj = mg / (mg + mf);
    *rho = mg + mf;
    return sat.h_f_j_kg + xj * (sat.h_g_j_kg - sat.h_f_j_kg);
}

static double donor_h(const pcs_thnet *net, const pcs_thnet_state *s, uint32_t k, int fwd)
{
    double rho;
    int sv;
    return donor_state(net, s, k, fwd, &rho, &sv);
}

/* Loss coefficient R (Pa s/kg) about the current flow. */
static double junction_r(const pcs_thnet *net, uint32_t k, double w, double rho, double open)
{
    const pcs_thnet_junction_def *j = &net->jun[k];
    double aw = fabs(w), d = net->diam[k], f = 0.0;
    if (j->friction_model == PCS_THNET_FRICTION_FIXED) {
        f = j->friction;
    } else if (j->friction_model == PCS_THNET_FRICTION_HAALAND) {
        double mu = 0.5 * (net->props[j->from].mu_pa_s + net->props[j->to].mu_pa_s);
        f = pcs_friction_haaland(aw * d / (j->area_m2 * mu), j->roughness_m / d);
    }
    double kk = (f * j->length_m / d + j->form_loss) / (open * open);
    return kk * aw / (2.0 * rho * j->area_m2 * j->area_m2);
}

/*
 * Critical flow limit of junction k given the predicted direction. When the
 * prediction exceeds Wc = Cd s A Gc(p_up, h_up), the junction is choked and
 *   W' = Wc + theta k (p_up' - p_up),  k = dWc/dp along the upstream isentrope
 * (dh = dp / rho), theta = 1/2: the trapezoidal rule on the critical flow, so
 * an emptying volume is second order in dt instead of forward Euler's first.
 * The isentrope is the path of a volume that only loses its own contents;
 * with heat or inflow it is an approximation that affects the linearised
 * prediction only, never conservation. k by a difference of 1e-4 p.
 * The enthalpy it carries is treated the same way: h_up + theta (p_up' -
 * p_up) / rho_up, linearised as W' h_up + Wc theta / rho_up (p_up' - p_up)
 * (hd_slope), in the matrix and in the transport alike. h_up and rho_up are
 * what the junction takes (donor_state: a phase offtake's phase).
 */
static pcs_status choke_limit(pcs_thnet *net, const pcs_thnet_state *s, uint32_t k, double wpred,
                              double open)
{
    const pcs_thnet_junction_def *j = &net->jun[k];
    int fwd = wpred >= 0.0, sat_vapour;
    uint32_t up = fwd ? j->from : j->to;
    double rho_up, p = p_of(net, s, up), h = donor_state(net, s, k, fwd, &rho_up, &sat_vapour);
    double dp = 1e-4 * p;
    /* No critical-flow search (the IF97 isentrope, the step's costliest
       part) for a prediction below a LOWER bound of Gc, r sqrt(2 rho p) of
       what the junction takes: the junction cannot be choked there. r from
       IF97 (tests/test_secondary.c hem_critical_flux_*): Gc / sqrt(2 rho
       p) is 0.42-0.45 for saturated steam from 0.2 to 16 MPa (r = 0.38),
       and above 0.09 for every state tested from 0.2 MPa, saturated liquid
       at 0.2 MPa the lowest (r = 0.05); below 0.2 MPa near-saturated liquid
       goes under it (0.017 at 2 kPa), so there the search always runs. (It was once taken as an
       upper bound, which it also is, 1.05 sqrt(2 rho p): a flow between Gc and that passed
       unchoked; a restrictor's loss-limited flow from a two-phase dome ran
       at up to 1.9 x its choked flow.) */
    double r = sat_vapour ? PCS_THNET_SKIP_R_STEAM : PCS_THNET_SKIP_R;
    if (p >= PCS_THNET_SKIP_P_MIN_PA &&
        fabs(wpred) <= r * j->discharge * open * j->area_m2 * sqrt(2.0 * rho_up * p))
        return PCS_OK;
    pcs_thnet_choke c, c2;
    pcs_status st = net->eos.choke(net->eos.ctx, p, h, &c);
    if (st == PCS_OK)
        st = net->eos.choke(net->eos.ctx, p - dp, h - dp / rho_up, &c2);
    if (st != PCS_OK)
        return pcs_error_set(PCS_E_NUMERIC,
                             "pcs_thnet_step: junctions[%u] critical flow from "
                             "volumes[%u]: %s",
                             k, up, pcs_last_error());
    net->choke[k] = c;
    double scale = j->discharge * open * j->area_m2, wc = scale * c.g_kg_m2s;
    if (fabs(wpred) <= wc)
        return PCS_OK;
    double kk = PCS_THNET_CHOKE_THETA * scale * (c.g_kg_m2s - c2.g_kg_m2s) / dp;
    if (fwd) {
        net->a[k] = wc - kk * p;
        net->bf[k] = kk;
        net->bt[k] = 0.0;
    } else {
        net->a[k] = -wc + kk * p;
        net->bf[k] = 0.0;
        net->bt[k] = kk;
    }
    net->hd_slope[k] = (fwd ? wc : -wc) * PCS_THNET_CHOKE_THETA / rho_up;
    net->is_choked[k] = 1;
    return PCS_OK;
}

/* W' = a + bf p_f' - bt p_t' for every junction. */
static pcs_status linearise(pcs_thnet *net, const pcs_thnet_state *s, const pcs_thnet_inputs *in,
                            double dt)
{
    for (uint32_t k = 0; k < net->nj; k++) {
        const pcs_thnet_junction_def *j = &net->jun[k];
        double open = in && in->valve ? in->valve[k] : j->valve;
        double sp = in && in->pump_dp_pa ? in->pump_dp_pa[k] : 0.0, w = s->flow_kg_s[k];
        net->is_choked[k] = 0;
        net->hd_slope[k] = 0.0;
        memset(&net->choke[k], 0, sizeof net->choke[k]);
        net->pump_w[k] = 0.0;
        /* a disconnected junction is a closed valve with no matrix entries */
        if (!(open > 0.0) || net->off[k]) {
            net->a[k] = net->bf[k] = net->bt[k] = 0.0;
            net->hd_pred[k] = 0.0;
            net->dir[k] = 1;
            continue;
        }
        open = fmin(open, 1.0);
        double rf = net->props[j->from].rho_kg_m3, rt = net->props[j->to].rho_kg_m3;
        double rho = 0.5 * (rf + rt), zf = net->vol[j->from].elevation_m;
        double zt = net->vol[j->to].elevation_m;
        double grav = -net->g * (rf * (net->zj[k] - zf) + rt * (zt - net->zj[k]));
        double inertia = j->length_m / j->area_m2;
        double den = inertia + dt * junction_r(net, k, w, rho, open);
        net->bf[k] = net->bt[k] = dt / den;
        net->a[k] = (inertia * w + dt * (grav + sp)) / den;
        double wpred = net->a[k] + net->bf[k] * (p_of(net, s, j->from) - p_of(net, s, j->to));
        if (j->choked) {
            pcs_status st = choke_limit(net, s, k, wpred, open);
            if (st != PCS_OK)
                return st;
        }
        /* Donor side from the flow at the step start (RELAP5's old-time
           direction), from the prediction when at rest or choked; the step
           re-solves if the new flow disagrees (see pcs_thnet_step). */
        int fwd = (w != 0.0 && !net->is_choked[k]) ? w > 0.0 : wpred >= 0.0;
        net->dir[k] = fwd ? 1 : -1;
        net->hd_pred[k] = donor_h(net, s, k, fwd);
        net->pump_w[k] = sp * w / rho;
    }
    return PCS_OK;
}

/* The choked junction's extra energy flux hd_slope (p_up' - p_up): row f
   loses it, row t gains it. */
static void add_choke_enthalpy(pcs_thnet *net, const pcs_thnet_state *s, uint32_t k, double dt)
{
    const pcs_thnet_junction_def *j = &net->jun[k];
    int fwd = net->bt[k] == 0.0;
    uint32_t up = fwd ? j->from : j->to;
    double pu = p_of(net, s, up), sl = net->hd_slope[k];
    double cf = -dt * net->cb[j->from] * sl, ct = dt * net->cb[j->to] * sl;
    /* Row f: p_f' = ... + cf (p_up' - pu); row t likewise with ct. */
    net->ax[fwd ? net->pos_diag[j->from] : net->pos_ft[k]] -= cf;
    net->rhs[j->from] -= cf * pu;
    net->ax[fwd ? net->pos_tf[k] : net->pos_diag[j->to]] -= ct;
    net->rhs[j->to] -= ct * pu;
}

/* External source of volume i (0 for a boundary or without sources). */
static double source_of(const pcs_thnet *net, const pcs_thnet_inputs *in, uint32_t i)
{
    return in && in->source_kg_s && !net->vol[i].boundary ? in->source_kg_s[i] : 0.0;
}

/* The enthalpy a source of sm kg/s carries: the given one in, the volume's out. */
static double source_h(const pcs_thnet_state *s, const pcs_thnet_inputs *in, uint32_t i, double sm)
{
    return sm > 0.0 ? in->source_h_j_kg[i] : s->h_j_kg[i];
}

/* Sources must be finite, and an inflow needs its enthalpy. */
static pcs_status check_sources(const pcs_thnet *net, const pcs_thnet_inputs *in)
{
    for (uint32_t i = 0; i < net->nv; i++) {
        double sm = source_of(net, in, i);
        if (!isfinite(sm))
            return pcs_error_set(
                PCS_E_INVAL, "pcs_thnet_step: inputs source_kg_s[%u] = %g is not finite", i, sm);
        if (sm > 0.0 && !(in->source_h_j_kg && isfinite(in->source_h_j_kg[i])))
            return pcs_error_set(PCS_E_INVAL,
                                 "pcs_thnet_step: inputs source_kg_s[%u] = %g kg/s flows in but "
                                 "source_h_j_kg[%u] is %s",
                                 i, sm, i, in->source_h_j_kg ? "not finite" : "missing (NULL)");
    }
    return PCS_OK;
}

static void assemble(pcs_thnet *net, const pcs_thnet_state *s, const pcs_thnet_inputs *in,
                     double dt)
{
    memset(net->ax, 0, (size_t)net->nnz * sizeof *net->ax);
    for (uint32_t i = 0; i < net->nv; i++) {
        net->ax[net->pos_diag[i]] = 1.0;
        net->rhs[i] = p_of(net, s, i);
        if (!net->vol[i].boundary && in && in->heat_w)
            net->rhs[i] += dt * net->cb[i] * in->heat_w[i];
        double sm = source_of(net, in, i);
        if (sm != 0.0)
            net->rhs[i] += dt * sm * (net->ca[i] + net->cb[i] * source_h(s, in, i, sm));
    }
    for (uint32_t k = 0; k < net->nj; k++) {
        if (net->off[k])
            continue; /* no entries: W' = 0, nothing moves */
        const pcs_thnet_junction_def *j = &net->jun[k];
        double hd = net->hd_pred[k], a = net->a[k], bf = net->bf[k], bt = net->bt[k];
        uint32_t down = net->dir[k] > 0 ? j->to : j->from;
        net->rhs[down] += dt * net->cb[down] * net->pump_w[k];
        /* Row f loses W', row t gains it: p_r' = ... + c (a + bf p_f' - bt p_t'). */
        double cf = -dt * (net->ca[j->from] + net->cb[j->from] * hd);
        double ct = dt * (net->ca[j->to] + net->cb[j->to] * hd);
        net->ax[net->pos_diag[j->from]] -= cf * bf;
        net->ax[net->pos_ft[k]] += cf * bt;
        net->rhs[j->from] += cf * a;
        net->ax[net->pos_tf[k]] -= ct * bf;
        net->ax[net->pos_diag[j->to]] += ct * bt;
        net->rhs[j->to] += ct * a;
        if (net->hd_slope[k] != 0.0)
            add_choke_enthalpy(net, s, k, dt);
    }
}

/*
 * The enthalpy junction k carries with its solved flow w: the donor the
 * matrix assumed, except across a boundary volume when w runs against it
 * (a reversal kept below FLIP_MIN, or on the last solve). A boundary stands
 * for another model's volume (the primary's pressurizer), which steps after
 * the network and moves the same mass at the enthalpy of the side it
 * actually left: its own fluid for an outflow, the network's donor for an
 * inflow. Carrying the kept donor's enthalpy instead would make or destroy
 * energy between the two models, W' dt |h_f - h_t| on such a step (1.3 kJ
 * on a tick of the primary at full power: 8.7 g of surge carried at the
 * hot leg's 1.484 MJ/kg by one side and the pressurizer liquid's 1.630 by
 * the other). So across a boundary the donor is the solved flow's, as it is
 * for the scalar; the one volume that sees the change gets what physically
 * crossed, and its (M, U) leave the pressure solve's prediction by at most
 * that energy, which the EOS inversion absorbs. Internal junctions keep the
 * matrix's donor (conserved either way). Not for a choked junction (its
 * flow cannot reverse within the step, and its energy has the choke term).
 */
static double carried_h(const pcs_thnet *net, const pcs_thnet_state *s, uint32_t k, double w)
{
    const pcs_thnet_junction_def *j = &net->jun[k];
    int across = net->vol[j->from].boundary || net->vol[j->to].boundary;
    if (!across || w == 0.0 || (w > 0.0) == (net->dir[k] > 0) || net->is_choked[k] ||
        net->hd_slope[k] != 0.0)
        return net->hd_pred[k];
    return donor_h(net, s, k, w > 0.0);
}

/*
 * The conservative update with the solved flows W' and the donor enthalpy
 * the matrix assumed (so the new (M, U) are those the pressure solve
 * predicted, to its linearisation; across a boundary the solved flow's
 * donor, carried_h): per junction the mass W' dt and the energy (W' h_d +
 * choke term) dt leave one side and enter the other.
 */
static void transport(pcs_thnet *net, pcs_thnet_state *s, const pcs_thnet_inputs *in, double dt,
                      pcs_thnet_report *r)
{
    double *out = net->ca; /* reused as scratch: sum of outflows per volume */
    memset(out, 0, net->nv * sizeof *out);
    for (uint32_t k = 0; k < net->nj; k++) {
        const pcs_thnet_junction_def *j = &net->jun[k];
        double w = s->flow_kg_s[k], e = w * carried_h(net, s, k, w); /* f to t, kg/s and W */
        if (net->hd_slope[k] != 0.0) {
            uint32_t up = net->dir[k] > 0 ? j->from : j->to;
            e += net->hd_slope[k] * (net->rhs[up] - p_of(net, s, up));
        }
        out[w >= 0.0 ? j->from : j->to] += fabs(w);
        uint32_t down = net->dir[k] > 0 ? j->to : j->from;
        if (!net->vol[j->from].boundary) {
            s->mass_kg[j->from] -= dt * w;
            s->energy_j[j->from] -= dt * e;
        } else {
            r->boundary_mass_in_kg += dt * w;
            r->boundary_energy_in_j += dt * e;
        }
        if (!net->vol[j->to].boundary) {
            s->mass_kg[j->to] += dt * w;
            s->energy_j[j->to] += dt * e;
        } else {
            r->boundary_mass_in_kg -= dt * w;
            r->boundary_energy_in_j -= dt * e;
        }
        if (!net->vol[down].boundary)
            s->energy_j[down] += dt * net->pump_w[k];
        r->pump_work_j += dt * net->pump_w[k];
        r->n_choked += net->is_choked[k];
    }
    for (uint32_t i = 0; i < net->nv; i++) {
        if (net->vol[i].boundary)
            continue;
        double q = in && in->heat_w ? in->heat_w[i] : 0.0;
        s->energy_j[i] += dt * q;
        r->heat_in_j += dt * q;
        double sm = source_of(net, in, i);
        if (sm != 0.0) {
            double e = sm * source_h(s, in, i, sm);
            s->mass_kg[i] += dt * sm;
            s->energy_j[i] += dt * e;
            r->source_mass_in_kg += dt * sm;
            r->source_energy_in_j += dt * e;
            if (sm < 0.0)
                out[i] -= sm;
        }
        double c = dt * out[i] / s->mass_kg[i];
        if (c > r->courant_max) {
            r->courant_max = c;
            r->courant_volume = i;
        }
    }
}

/*
 * The scalar mass C M of every volume after the step's flows and sources,
 * donor-cell on the sign of the solved flow (pcsim/thnet.h), into net->sc;
 * called before transport() moves the masses (it needs the old M).
 */
static void scalar_flux(pcs_thnet *net, const pcs_thnet_state *s, const pcs_thnet_inputs *in,
                        double dt, pcs_thnet_report *r)
{
    const double *c = s->scalar;
    for (uint32_t i = 0; i < net->nv; i++)
        net->sc[i] = net->vol[i].boundary ? 0.0 : c[i] * s->mass_kg[i];
    for (uint32_t k = 0; k < net->nj; k++) {
        const pcs_thnet_junction_def *j = &net->jun[k];
        double w = s->flow_kg_s[k], f = dt * w * c[w >= 0.0 ? j->from : j->to];
        if (net->vol[j->from].boundary)
            r->boundary_scalar_in += f;
        else
            net->sc[j->from] -= f;
        if (net->vol[j->to].boundary)
            r->boundary_scalar_in -= f;
        else
            net->sc[j->to] += f;
    }
    for (uint32_t i = 0; i < net->nv; i++) {
        double sm = source_of(net, in, i);
        if (sm == 0.0)
            continue;
        double cs = sm > 0.0 ? (in->source_scalar ? in->source_scalar[i] : 0.0) : c[i];
        net->sc[i] += dt * sm * cs;
        r->source_scalar_in += dt * sm * cs;
    }
}

/* The new concentrations from the scalar masses and the new masses. */
static void scalar_update(const pcs_thnet *net, pcs_thnet_state *s)
{
    for (uint32_t i = 0; i < net->nv; i++)
        if (!net->vol[i].boundary)
            s->scalar[i] = net->sc[i] / s->mass_kg[i];
}

/*
 * A reversed flow re-solves only if the step moves more than FLIP_MIN of the
 * smaller adjacent (non-boundary) volume's mass through the junction. Below
 * that the donor the matrix assumed is kept: conservation is exact either
 * way (the transport uses the matrix's donor), and the energy carried at the
 * other side's enthalpy changes the receiving volume's specific enthalpy by
 * at most FLIP_MIN |h_f - h_t| in the step. Without it a stagnant line (a
 * pressurizer surge line at steady state, whose flow of a few g/s changes
 * sign from one solve to the next) costs three solves every step.
 */
#define FLIP_MIN 1e-5

static int flip_matters(const pcs_thnet *net, const pcs_thnet_state *s, uint32_t k, double w,
                        double dt)
{
    const pcs_thnet_junction_def *j = &net->jun[k];
    double m = 1e300;
    if (!net->vol[j->from].boundary)
        m = s->mass_kg[j->from];
    if (!net->vol[j->to].boundary)
        m = fmin(m, s->mass_kg[j->to]);
    return fabs(w) * dt > FLIP_MIN * m;
}

/* New flows from the solved pressures; 1 if a junction's flow runs against
   the donor side the matrix assumed by enough to matter (then that side is
   switched). */
static int new_flows(pcs_thnet *net, const pcs_thnet_state *s, double *flow, int may_flip,
                     double dt)
{
    int flipped = 0;
    for (uint32_t k = 0; k < net->nj; k++) {
        const pcs_thnet_junction_def *j = &net->jun[k];
        double w = net->a[k] + net->bf[k] * net->rhs[j->from] - net->bt[k] * net->rhs[j->to];
        flow[k] = w;
        if (may_flip && w != 0.0 && (w > 0.0) != (net->dir[k] > 0) && !net->is_choked[k] &&
            flip_matters(net, s, k, w, dt)) {
            net->dir[k] = (signed char)-net->dir[k];
            net->hd_pred[k] = donor_h(net, s, k, net->dir[k] > 0);
            flipped = 1;
        }
    }
    return flipped;
}

/*
 * A choked junction that the start-of-step prediction left unchoked but
 * whose solved flow passes its critical flow (the downstream pressure fell
 * within the step: a break opening behind a restrictor) is limited now:
 * choke_limit with the solved flow as the prediction, and the step
 * re-solves (*choked = 1). Without it the first tick of a break passed the
 * restrictor's loss-limited flow, 1.3 x its critical flow.
 */
static pcs_status rechoke(pcs_thnet *net, const pcs_thnet_state *s, const pcs_thnet_inputs *in,
                          int *choked)
{
    for (uint32_t k = 0; k < net->nj; k++) {
        const pcs_thnet_junction_def *j = &net->jun[k];
        if (!j->choked || net->is_choked[k])
            continue;
        double open = in && in->valve ? in->valve[k] : j->valve, w = s->flow_kg_s[k];
        if (!(open > 0.0) || w == 0.0)
            continue;
        pcs_status st = choke_limit(net, s, k, w, fmin(open, 1.0));
        if (st != PCS_OK)
            return st;
        if (net->is_choked[k]) {
            net->dir[k] = w > 0.0 ? 1 : -1;
            net->hd_pred[k] = donor_h(net, s, k, w > 0.0);
            *choked = 1;
        }
    }
    return PCS_OK;
}

/* One step of dt (the file comment's order) into *r (zeroed here). */
static pcs_status step_once(pcs_thnet *net, pcs_thnet_state *s, const pcs_thnet_inputs *in,
                            double dt, pcs_thnet_report *r)
{
    memset(r, 0, sizeof *r);
    r->substeps = 1;
    pcs_status st = check_sources(net, in);
    if (st == PCS_OK)
        st = start_props(net, s);
    if (st == PCS_OK)
        st = linearise(net, s, in, dt);
    if (st != PCS_OK)
        return st;
    /* Solve; if a flow reversed against the assumed donor, re-assemble with
       the new donor and solve again (at most twice more; the last solve's
       donors are kept either way, so mass and energy stay conservative). */
    for (int pass = 0; pass < 3; pass++) {
        uint32_t full = 0;
        assemble(net, s, in, dt);
        if ((st = pcs_thnet_factor_solve(net, &r->rcond, &full)) != PCS_OK)
            return st;
        r->full_factor |= full;
        int again = new_flows(net, s, s->flow_kg_s, pass < 2, dt);
        if (pass < 2) {
            int choked = 0;
            if ((st = rechoke(net, s, in, &choked)) != PCS_OK)
                return st;
            again |= choked;
        }
        if (!again)
            break;
    }
    if (s->scalar)
        scalar_flux(net, s, in, dt, r);
    transport(net, s, in, dt, r);
    for (uint32_t i = 0; i < net->nv; i++)
        if (!net->vol[i].boundary && !(s->mass_kg[i] > 0.0))
            return pcs_error_set(PCS_E_NUMERIC,
                                 "pcs_thnet_step: volumes[%u] mass %g kg after the step (Courant "
                                 "number %g at volumes[%u]; reduce dt)",
                                 i, s->mass_kg[i], r->courant_max, r->courant_volume);
    if (s->scalar)
        scalar_update(net, s);
    /* The inversion starts from the pressure the linear solve predicted for
       the new (M, U) (first order in dt away from the root, not the start-
       of-step pressure); its exit test is unchanged. */
    for (uint32_t i = 0; i < net->nv; i++)
        if (!net->vol[i].boundary && net->rhs[i] > 0.0)
            s->p_pa[i] = net->rhs[i];
    /* remember the linear prediction: the inversion overwrites p */
    double *pred = net->bk + 9u * net->nv + net->nj;
    memcpy(pred, s->p_pa, net->nv * sizeof *pred);
    return pcs_thnet_update(net, s, 1);
}

/* Largest |p_EOS - p_linear| after step_once over the volumes whose void
   collapsed: two-phase (quality > 0) at the start of the whole step
   (net->bk), liquid at its end. That is the one phase change the
   start-of-step linearisation cannot follow (the mixture's compressibility
   is orders of magnitude above the liquid's); flashing the other way is
   followed (the EOS inversion holds the pressure near saturation). */
static double eos_jump(const pcs_thnet *net, const pcs_thnet_state *s)
{
    const double *pred = net->bk + 9u * net->nv + net->nj, *x0 = net->bk + 6u * net->nv;
    double worst = 0.0;
    for (uint32_t i = 0; i < net->nv; i++)
        if (!net->vol[i].boundary && x0[i] > 0.0 && !(s->quality[i] > 0.0))
            worst = fmax(worst, fabs(s->p_pa[i] - pred[i]));
    return worst;
}

/* The state arrays a retry restores, in net->bk: 9 per volume, the flows,
   the scalar. */
static void state_copy(const pcs_thnet *net, pcs_thnet_state *s, int save)
{
    double *arr[9] = {s->mass_kg,   s->energy_j, s->p_pa,          s->h_j_kg, s->t_k,
                      s->rho_kg_m3, s->quality,  s->void_fraction, s->scalar};
    double *b = net->bk;
    size_t nv = net->nv * sizeof(double);
    for (int k = 0; k < 9; k++, b += net->nv)
        if (arr[k])
            memcpy(save ? b : arr[k], save ? arr[k] : b, nv);
    memcpy(save ? b : s->flow_kg_s, save ? s->flow_kg_s : b, net->nj * sizeof(double));
}

/* Sub-step report r2 into the whole step's r: sums, worst case, last. */
static void report_add(pcs_thnet_report *r, const pcs_thnet_report *r2)
{
    if (r2->courant_max > r->courant_max) {
        r->courant_max = r2->courant_max;
        r->courant_volume = r2->courant_volume;
    }
    r->n_choked = r2->n_choked > r->n_choked ? r2->n_choked : r->n_choked;
    r->rcond = r->substeps ? fmin(r->rcond, r2->rcond) : r2->rcond;
    r->full_factor |= r2->full_factor;
    r->heat_in_j += r2->heat_in_j;
    r->pump_work_j += r2->pump_work_j;
    r->boundary_mass_in_kg += r2->boundary_mass_in_kg;
    r->boundary_energy_in_j += r2->boundary_energy_in_j;
    r->source_mass_in_kg += r2->source_mass_in_kg;
    r->source_energy_in_j += r2->source_energy_in_j;
    r->boundary_scalar_in += r2->boundary_scalar_in;
    r->source_scalar_in += r2->source_scalar_in;
    r->substeps++;
}

pcs_status pcs_thnet_step(pcs_thnet *net, pcs_thnet_state *s, const pcs_thnet_inputs *in, double dt,
                          pcs_thnet_report *report)
{
    if (!net || !s)
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_step: NULL argument");
    if (!(dt > 0.0 && dt <= 10.0))
        return pcs_error_set(PCS_E_INVAL, "pcs_thnet_step: dt %g s outside (0, 10]", dt);
    pcs_thnet_report r;
    state_copy(net, s, 1);
    pcs_status st = step_once(net, s, in, dt, &r);
    if (st == PCS_E_INVAL || (st == PCS_OK && eos_jump(net, s) <= PCS_THNET_EOS_JUMP_PA)) {
        if (report && st == PCS_OK)
            *report = r;
        return st;
    }
    /* A phase change the start-of-step linearisation could not see (a
       void collapsing to liquid: pcsim/thnet.h): redo the step in
       PCS_THNET_SUBSTEPS_1, then PCS_THNET_SUBSTEPS_2 sub-steps, each
       re-linearised at its own start, and keep the finer run's result. */
    const uint32_t levels[2] = {PCS_THNET_SUBSTEPS_1, PCS_THNET_SUBSTEPS_2};
    for (int lv = 0; lv < 2; lv++) {
        state_copy(net, s, 0);
        memset(&r, 0, sizeof r);
        pcs_thnet_report r2;
        double jump = 0.0;
        st = PCS_OK;
        for (uint32_t k = 0; k < levels[lv] && st == PCS_OK; k++) {
            st = step_once(net, s, in, dt / levels[lv], &r2);
            if (st == PCS_OK) {
                report_add(&r, &r2);
                jump = fmax(jump, eos_jump(net, s));
            }
        }
        if (st == PCS_OK && jump <= PCS_THNET_EOS_JUMP_PA)
            break;
    }
    if (report && st == PCS_OK)
        *report = r;
    return st;
}
