/**
 * @file secondary_init.c
 * @brief The steam side's steady state (pcs_secondary_init_steady in
 *        pcsim/secondary.h): with a target pressure, construct it directly
 *        and polish it by stepping; then step 50 s windows with a feed that
 *        follows the steam and trims the level, the turbine opening moved
 *        towards the dome pressure after each window, until nothing moves.
 *
 * Why construct: stepping alone reaches the steady state only as fast as
 * the SGs' stored energy follows the turbine opening (the dome pressure's
 * time constant is minutes) and the opening's Newton step is taken once a
 * window: 550 s of simulated stepping at full power, 2350 s at 30 %. The
 * steady state itself is known but for the recirculation:
 *  - steam per SG W_s = Q / (h_g(p_dome) - h_feed) (its energy balance),
 *    the feed the same, the turbine the total;
 *  - the turbine opening s = sum W_s / (A Gc(p_header, h_header)): the
 *    choked throat's steady flow (pcsim/thnet.h), taken at the header
 *    pressure the target implies, not found by Newton steps on the
 *    stepped pressure;
 *  - enthalpies by donor cell at recirculation W_r: the downcomer the mix
 *    of separated liquid h_f(p_dome) at W_r - W_s and feed at W_s, each
 *    bundle volume its inlet plus its heat / W_r, the upper riser the
 *    bundle's exit, the steam line and header saturated steam h_g(p_dome)
 *    (the restrictor's vapour offtake; the header the SGs' mix);
 *  - the dome at the void whose collapsed level is the program's
 *    (pcs_secondary_level inverted), at the network's own void for (p, h);
 *  - the recirculation W_r the loop's steady momentum closes with: from
 *    the dome round the downcomer, bundle and riser back to the dome, each
 *    junction's p_to = p_from + G - R W (the network's own momentum
 *    equation, pcsim/thnet.h, without inertia: its gravity heads on the
 *    volumes' densities and its losses), the riser's side reaching the dome
 *    at the dome's pressure; geometric bisection on W_r, each trial with the
 *    enthalpies above for that W_r. Those pressures are the state's (every
 *    volume hydrostatically consistent with its neighbours);
 *  - SG 1's dome at the target, the header SG 1's steam line less its loss,
 *    every other dome where its own line meets that header; mass and energy
 *    rho(p, h) V and M (h - p / rho), the flows the steady ones.
 * Before, W_r was taken from 10 s chunks of stepping from a construction
 * that kept the stepped state's pressure differences: at full power it
 * converged in 3 chunks, but at hot zero power (3 MW per SG, W_s 1.8 kg/s)
 * the recirculation sloshed +1500 to -650 kg/s within a chunk and the levels
 * between 0 and 94 % NR, and no construction settled. Now one chunk
 * (SEC_INIT_CHUNK_S, 10 s) checks the construction, which is then made
 * once more (measured: W_r and NR unchanged over the chunk to the digits
 * printed, at 100 % 1575 kg/s and 44.000 %, at 0 % 123 kg/s and 33.000
 * %). The stop rule is the stepping's (header: a 50 s window with |dp/dt| <= 2
 * Pa/s, the levels within 0.1 % NR and SG 1 within 1 kPa of the target),
 * so a construction that missed the steady state costs windows, never a
 * weaker result. Without a target pressure, or with an SG without heat (no
 * steam to size the exit with), only the windows run, as before.
 *
 * The steam's exit: the turbine (its opening sized for the settled steam
 * flow), or, when the caller shut the turbine (opening 0 at the call: hot
 * zero power, refdata pwr_transients.md section 1), the steam dumps to the
 * condenser; the windows' Newton step then moves that opening. The step
 * scales a positive opening by p / p_target, so it stays positive with no
 * floor (a 1 % floor passed more steam than the SGs make below about 1.2 %
 * of power, and such a unit never settled: tests/test_steam_steady.c).
 */
#include <math.h>

#include "pcsim/structure.h"
#include "pcsim/water.h"
#include "physics/thermohydraulics/kernels/friction.h"
#include "physics/thermohydraulics/models/secondary_internal.h"
#include "physics/thermohydraulics/models/thnet_internal.h"

#define SEC_INIT_WINDOW_S 50.0
#define SEC_INIT_MAX_S 3000.0
#define SEC_INIT_TRIM 10.0    /* kg/s per % NR */
#define SEC_INIT_CHUNK_S 10.0 /* stepping between the two constructions */
#define SEC_MAX_V (PCS_SECONDARY_MAX_SG * (PCS_SECONDARY_MAX_BUNDLE + SV_COUNT) + 3u)

static double *sg_block(const pcs_secondary *sc, double *out, uint32_t l)
{
    (void)sc;
    return out + PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l;
}

/* Feed = steam + trim towards the level target, per SG. */
static void feed(const pcs_secondary *sc, secondary_view *v, double nr)
{
    for (uint32_t l = 0; l < sc->nsg; l++) {
        const double *b = sg_block(sc, v->out, l);
        v->feed[l] =
            fmax(b[PCS_SECONDARY_OUT_STEAM] + SEC_INIT_TRIM * (nr - b[PCS_SECONDARY_OUT_NR]), 0.0);
    }
}

static pcs_status check_args(pcs_world *w, const pcs_secondary *sc, double heat_w,
                             double pressure_pa, double nr_level)
{
    if (!w || !sc)
        return pcs_error_set(PCS_E_INVAL, "pcs_secondary_init_steady: NULL argument");
    if (!(heat_w >= 0.0 && heat_w <= 1e10))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_secondary_init_steady: %s: heat %g W is outside [0, 1e10]",
                             sc->unit, heat_w);
    if (!(nr_level >= 5.0 && nr_level <= 95.0))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_secondary_init_steady: %s: level %g %% is outside [5, 95]",
                             sc->unit, nr_level);
    if (!(pressure_pa <= 16e6))
        return pcs_error_set(PCS_E_INVAL,
                             "pcs_secondary_init_steady: %s: pressure %g Pa is above 16e6 (or NaN)",
                             sc->unit, pressure_pa);
    if (pcs_world_sealed(w) && !pcs_world_amending(w))
        return pcs_error_set(
            PCS_E_STATE, "pcs_secondary_init_steady: %s: the world has already ticked", sc->unit);
    return PCS_OK;
}

/* Is the window's end steady? *dpdt: the largest dome |dp/dt|. */
static int settled(const pcs_secondary *sc, const secondary_view *v, const double *p_start,
                   double pressure_pa, double nr, double *dpdt)
{
    int ok = 1;
    *dpdt = 0.0;
    for (uint32_t l = 0; l < sc->nsg; l++) {
        const double *b = sg_block(sc, v->out, l);
        double r = fabs(b[PCS_SECONDARY_OUT_P] - p_start[l]) / SEC_INIT_WINDOW_S;
        *dpdt = fmax(*dpdt, r);
        ok = ok && r <= 2.0 && fabs(b[PCS_SECONDARY_OUT_NR] - nr) <= 0.1;
    }
    if (pressure_pa > 0.0)
        ok = ok && fabs(sg_block(sc, v->out, 0)[PCS_SECONDARY_OUT_P] - pressure_pa) <= 1e3;
    return ok;
}

/* ---- the direct construction ---------------------------------------------------- */

/* The dome void fraction whose collapsed level is @p nr % NR (bisection on
 * pcs_secondary_level, which falls monotonically with the void). */
static double void_at_level(const pcs_secondary_def *d, double nr)
{
    double z = d->nr_lower_m + 0.01 * nr * d->nr_span_m, lo = 0.0, hi = 1.0;
    for (int n = 0; n < 60; n++) {
        double mid = 0.5 * (lo + hi);
        if (pcs_secondary_level(d, mid) > z)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* The dome enthalpy at p whose void (the network's equation of state) is
 * @p alpha: the quality from IF97's saturated densities, then secant steps
 * on the network's own void (a table's differs in the last digits). */
static pcs_status dome_h(const pcs_thnet_eos *eos, double p, double alpha, double *h)
{
    double hf, hg, rf, rg;
    pcs_status st = pcs_secondary_sat(p, &hf, &hg, &rf, &rg);
    if (st != PCS_OK)
        return st;
    double x = alpha * rg / (alpha * rg + (1.0 - alpha) * rf);
    double ha = hf + x * (hg - hf), hb = ha + 100.0, fa = 0.0, fb = 0.0;
    pcs_thnet_props pa = {0}, pb = {0};
    st = eos->props(eos->ctx, p, ha, &pa);
    if (st == PCS_OK)
        st = eos->props(eos->ctx, p, hb, &pb);
    fa = pa.alpha - alpha;
    fb = pb.alpha - alpha;
    for (int n = 0; st == PCS_OK && n < 20 && fabs(fb) > 1e-12 && fb != fa; n++) {
        double hc = hb - fb * (hb - ha) / (fb - fa);
        ha = hb;
        fa = fb;
        hb = hc;
        st = eos->props(eos->ctx, p, hb, &pb);
        fb = pb.alpha - alpha;
    }
    *h = hb;
    return st;
}

/* One SG's steady enthalpies and flows at dome pressure @p pd (file
 * comment): steam W_s = Q / (h_g - h_feed), recirculation @p wr, the
 * downcomer the mix of separated liquid and feed, each bundle volume its
 * inlet plus its heat / W_r, the dome at the void of the level program, the
 * steam line saturated steam. h[] per volume of the network. */
static pcs_status sg_steady(pcs_secondary *sc, secondary_view *v, const pcs_thnet_eos *eos,
                            uint32_t l, double pd, double p_dc, double *wr_io, double alpha,
                            double *h, double *ws)
{
    double hf, hg, rf, rg, hfd, q = 0.0;
    pcs_status st = pcs_secondary_sat(pd, &hf, &hg, &rf, &rg);
    if (st == PCS_OK)
        st = pcs_water_h_pt(p_dc, sc->def.feed_t_k, &hfd);
    if (st == PCS_OK)
        st = dome_h(eos, pd, alpha, &h[sec_vol(sc, l, SV_DOME)]);
    if (st != PCS_OK)
        return st;
    const double *tq = v->tube_heat + l * sc->nt;
    for (uint32_t k = 0; k < sc->nt; k++)
        q += tq[k];
    *ws = q / (hg - hfd);
    if (!(*wr_io > 1.5 * *ws)) /* no circulation yet: the build's estimate */
        *wr_io = sc->def.initial_circulation * *ws;
    double wr = *wr_io;
    double hb = ((wr - *ws) * hf + *ws * hfd) / wr;
    h[sec_vol(sc, l, SV_DC_UPPER)] = h[sec_vol(sc, l, SV_DC_LOWER)] = hb;
    for (uint32_t k = 0; k < sc->nb; k++) {
        hb += (tq[k] + tq[sc->nt - 1u - k]) / wr;
        h[sec_bundle(sc, l, k)] = hb;
    }
    h[sec_vol(sc, l, SV_UPPER_RISER)] = hb;
    h[sec_vol(sc, l, SV_STEAM_LINE)] = hg;
    double *f = v->st.flow_kg_s;
    for (uint32_t k = 0; k <= sc->nb + SJ_SEPARATOR; k++)
        f[l * sc->per_sg_j + k] = wr;
    f[sec_jun(sc, l, SJ_DOME_DC)] = wr - *ws;
    f[sec_jun(sc, l, SJ_DC)] = wr;
    f[sec_jun(sc, l, SJ_RESTRICTOR)] = *ws;
    f[sec_jun(sc, l, SJ_MSIV)] = *ws;
    v->feed[l] = *ws;
    return PCS_OK;
}

/* The exit the steady steam leaves by: the turbine, or at no load (the
 * caller shut the turbine: its opening 0 when the settling starts) the
 * steam dumps to the condenser (refdata pwr_transients.md section 1: at hot
 * zero power the turbine is off and the dumps, in their steam-pressure
 * mode, carry the steam the pump heat boils). */
static int dumps_carry(const secondary_view *v)
{
    return *v->turbine_valve == 0.0;
}

/* ---- the steady momentum balance ------------------------------------------------ */

/* The pressure at junction @p k's `to` volume that holds flow @p w steady
 * (the network's momentum equation, pcsim/thnet.h, without inertia: p_t =
 * p_f + G - R w), given p[from] and both volumes' h; p[to] is updated in
 * place (two passes: its density depends weakly on its own pressure). The
 * loss as the network's junction_r: Haaland on the volumes' mean
 * viscosity, form loss, open valve. */
static pcs_status momentum_to(const pcs_secondary *sc, const pcs_thnet_eos *eos, uint32_t k,
                              double w, double *p, const double *h)
{
    const pcs_thnet *net = sc->net;
    const pcs_thnet_junction_def *j = &net->jun[k];
    pcs_thnet_props a, b;
    pcs_status st = eos->props(eos->ctx, p[j->from], h[j->from], &a);
    for (int it = 0; st == PCS_OK && it < 3; it++) {
        if (!(p[j->to] > 0.0))
            p[j->to] = p[j->from];
        st = eos->props(eos->ctx, p[j->to], h[j->to], &b);
        if (st != PCS_OK)
            break;
        double rho = 0.5 * (a.rho_kg_m3 + b.rho_kg_m3), d = net->diam[k], f = 0.0;
        double zf = net->vol[j->from].elevation_m, zt = net->vol[j->to].elevation_m;
        double grav = -net->g * (a.rho_kg_m3 * (net->zj[k] - zf) + b.rho_kg_m3 * (zt - net->zj[k]));
        if (j->friction_model == PCS_THNET_FRICTION_FIXED)
            f = j->friction;
        else if (j->friction_model == PCS_THNET_FRICTION_HAALAND)
            f = pcs_friction_haaland(fabs(w) * d / (j->area_m2 * 0.5 * (a.mu_pa_s + b.mu_pa_s)),
                                     j->roughness_m / d);
        double kk = f * j->length_m / d + j->form_loss;
        double r = kk * fabs(w) / (2.0 * rho * j->area_m2 * j->area_m2);
        p[j->to] = p[j->from] + grav - r * w;
        if (!(p[j->to] > 0.5 * p[j->from])) /* a loss no steady state has: loop_pressures */
            break;
    }
    return st;
}

/* SG @p l's pressures round its recirculation loop from the dome at @p pd
 * (dome -> downcomer -> bundle -> riser), flows @p wr and @p ws, and *res:
 * the separator's momentum residual (the dome pressure the riser's side
 * implies less pd; > 0: the loop drives more than its losses take). */
static pcs_status loop_pressures(const pcs_secondary *sc, const pcs_thnet_eos *eos, uint32_t l,
                                 double pd, double wr, double ws, double *p, const double *h,
                                 double *res)
{
    uint32_t dome = sec_vol(sc, l, SV_DOME), jn[PCS_SECONDARY_MAX_BUNDLE + 4];
    double w[PCS_SECONDARY_MAX_BUNDLE + 4];
    uint32_t n = 0;
    jn[n] = sec_jun(sc, l, SJ_DOME_DC);
    w[n++] = wr - ws;
    jn[n] = sec_jun(sc, l, SJ_DC);
    w[n++] = wr;
    for (uint32_t k = 0; k < sc->nb; k++) { /* into bundle k */
        jn[n] = l * sc->per_sg_j + k;
        w[n++] = wr;
    }
    jn[n] = sec_jun(sc, l, SJ_TO_UPPER);
    w[n++] = wr;
    jn[n] = sec_jun(sc, l, SJ_SEPARATOR);
    w[n++] = wr;
    p[dome] = pd;
    pcs_status st = PCS_OK;
    *res = 0.0;
    for (uint32_t i = 0; st == PCS_OK && i < n; i++) {
        const pcs_thnet_junction_def *j = &sc->net->jun[jn[i]];
        st = momentum_to(sc, eos, jn[i], w[i], p, h);
        if (st == PCS_OK && !(p[j->to] > 0.5 * p[j->from])) {
            *res = -INFINITY; /* the losses took it all: too much flow */
            break;
        }
    }
    if (*res == 0.0)
        *res = p[dome] - pd;
    p[dome] = pd;
    return st;
}

/*
 * SG @p l's steady recirculation at dome pressure @p pd: the W_r at which
 * the loop's momentum closes (loop_pressures' residual 0: the downcomer's
 * and the riser's heads against the losses), each trial with sg_steady's
 * enthalpies for that W_r; geometric bisection between 1.5 W_s (a riser of
 * nearly all steam: the loop drives) and 1e3 W_s. With the pressures of
 * that state in p[] (the loop) and the steam line's, *ws the steam.
 */
static pcs_status sg_solve(pcs_secondary *sc, secondary_view *v, const pcs_thnet_eos *eos,
                           uint32_t l, double pd, double alpha, double *h, double *p,
                           double *wr_out, double *ws)
{
    uint32_t dc = sec_vol(sc, l, SV_DC_UPPER);
    double wr = 0.0, res = 0.0;
    pcs_status st = sg_steady(sc, v, eos, l, pd, p[dc], &wr, alpha, h, ws); /* sizes W_s */
    double lo = 1.5 * *ws, hi = 1e3 * *ws;

    for (int n = 0; st == PCS_OK && n < 60 && hi / lo > 1.0 + 1e-12; n++) {
        wr = sqrt(lo * hi);
        st = sg_steady(sc, v, eos, l, pd, p[dc], &wr, alpha, h, ws);
        if (st == PCS_OK)
            st = loop_pressures(sc, eos, l, pd, wr, *ws, p, h, &res);
        if (res > 0.0)
            lo = wr;
        else
            hi = wr;
    }
    wr = sqrt(lo * hi);
    if (st == PCS_OK)
        st = sg_steady(sc, v, eos, l, pd, p[dc], &wr, alpha, h, ws);
    if (st == PCS_OK)
        st = loop_pressures(sc, eos, l, pd, wr, *ws, p, h, &res);
    if (st == PCS_OK)
        st = momentum_to(sc, eos, sec_jun(sc, l, SJ_RESTRICTOR), *ws, p, h);
    *wr_out = wr;
    return st;
}

/*
 * Put the steam side at its steady state with SG 1's dome at @p p_target
 * (file comment): each SG at the recirculation its momentum balance closes
 * with (sg_solve) and the pressures that balance gives, from the dome
 * round the loop; the header at SG 1's steam-line pressure less the line's
 * loss, every other SG's dome where its own line meets that header; the
 * header the steam's mix; the turbine the opening whose choked throat
 * passes the total steam at the header's pressure. wr_used[l]: SG l's W_r.
 */
static pcs_status construct(pcs_secondary *sc, secondary_view *v, double p_target, double nr,
                            double *wr_used)
{
    const pcs_thnet_eos eos =
        sc->def.table ? pcs_thnet_eos_table(sc->def.table) : pcs_thnet_eos_if97();
    double h[SEC_MAX_V], *p = v->st.p_pa;
    double alpha = void_at_level(&sc->def, nr), w_tot = 0.0, wh = 0.0, ws = 0.0;
    pcs_status st = PCS_OK;
    double pd = p_target;
    for (uint32_t l = 0; st == PCS_OK && l < sc->nsg; l++) {
        uint32_t sl = sec_vol(sc, l, SV_STEAM_LINE), j_msiv = sec_jun(sc, l, SJ_MSIV);
        for (int it = 0; st == PCS_OK && it < (l ? 2 : 1); it++) {
            st = sg_solve(sc, v, &eos, l, pd, alpha, h, p, &wr_used[l], &ws);
            if (st == PCS_OK && l == 0) { /* the header: SG 1's line */
                h[sc->v_header] = h[sl];
                st = momentum_to(sc, &eos, j_msiv, ws, p, h);
            } else if (st == PCS_OK) { /* this SG's dome, where its line meets it */
                double ph = p[sc->v_header];
                st = momentum_to(sc, &eos, j_msiv, ws, p, h);
                pd += ph - p[sc->v_header];
                p[sc->v_header] = ph;
            }
        }
        double hf = 0.0, hg = 0.0, rf, rg;
        if (st == PCS_OK)
            st = pcs_secondary_sat(p[sec_vol(sc, l, SV_DOME)], &hf, &hg, &rf, &rg);
        w_tot += ws;
        wh += ws * hg;
        pd = p_target;
    }
    if (st != PCS_OK)
        return st;
    h[sc->v_header] = wh / w_tot;
    for (uint32_t i = 0; st == PCS_OK && i < sc->nv; i++) {
        if (i == sc->v_condenser || i == sc->v_atmosphere)
            continue;
        pcs_thnet_props a;
        st = eos.props(eos.ctx, p[i], h[i], &a);
        v->st.mass_kg[i] = a.rho_kg_m3 * sc->vol_m3[i];
        v->st.energy_j[i] = v->st.mass_kg[i] * (h[i] - p[i] / a.rho_kg_m3);
    }
    pcs_thnet_choke c;
    if (st == PCS_OK)
        st = pcs_thnet_choke_if97(NULL, p[sc->v_header], h[sc->v_header], &c);
    if (st == PCS_OK)
        st = pcs_thnet_state_update(sc->net, &v->st);
    if (st != PCS_OK)
        return st;
    if (dumps_carry(v)) {
        *v->dump = fmin(w_tot / (sc->a_dump * c.g_kg_m2s), 1.0);
        v->st.flow_kg_s[sc->j_dump] = w_tot;
    } else {
        *v->turbine_valve = fmin(w_tot / (sc->a_turbine * c.g_kg_m2s), 1.0);
        v->st.flow_kg_s[sc->j_turbine] = w_tot;
    }
    return pcs_secondary_outputs(sc, v);
}

/* @p n steps with the level-trimmed feed. */
static pcs_status step_n(pcs_secondary *sc, secondary_view *v, double nr_level, double dt,
                         uint32_t n)
{
    pcs_status st = PCS_OK;
    for (uint32_t k = 0; k < n && st == PCS_OK; k++) {
        feed(sc, v, nr_level);
        st = pcs_secondary_advance(sc, v, dt);
    }
    return st;
}

/* Can the steady state be constructed? A pressure to put it at, and heat
 * in every SG (a cold SG has no steam flow to size the turbine with). */
static int constructible(const pcs_secondary *sc, const secondary_view *v, double pressure_pa)
{
    int ok = pressure_pa > 0.0;
    for (uint32_t l = 0; ok && l < sc->nsg; l++) {
        double q = 0.0;
        for (uint32_t k = 0; k < sc->nt; k++)
            q += v->tube_heat[l * sc->nt + k];
        ok = q > 0.0;
    }
    return ok;
}

/* Construct, step SEC_INIT_CHUNK_S (the construction's check: a state off
 * the steady one moves in it), and construct again: the construction is
 * deterministic (the recirculation solved, not taken from the stepping), so
 * a second chunk would repeat the first. *t: simulated seconds, *builds:
 * constructions made. */
static pcs_status construct_settled(pcs_secondary *sc, secondary_view *v, double pressure_pa,
                                    double nr_level, double dt, double *t, uint32_t *builds)
{
    uint32_t per_chunk = (uint32_t)ceil(SEC_INIT_CHUNK_S / dt);
    double wr[PCS_SECONDARY_MAX_SG];
    pcs_status st = construct(sc, v, pressure_pa, nr_level, wr);
    if (st == PCS_OK)
        st = step_n(sc, v, nr_level, dt, per_chunk);
    *t += per_chunk * dt;
    if (st == PCS_OK)
        st = construct(sc, v, pressure_pa, nr_level, wr);
    *builds += 2;
    return st;
}

/* The report (when asked) of a settling that ended at t s with SG 1's outputs. */
static void put_report(pcs_secondary_init_report *report, const pcs_secondary *sc,
                       const secondary_view *v, double t, double max_dpdt, uint32_t corrections)
{
    if (!report)
        return;
    const double *b = sg_block(sc, v->out, 0);
    report->seconds = t;
    report->pressure_pa = b[PCS_SECONDARY_OUT_P];
    report->steam_kg_s = b[PCS_SECONDARY_OUT_STEAM];
    report->nr_level = b[PCS_SECONDARY_OUT_NR];
    report->turbine_opening = *v->turbine_valve;
    report->max_dpdt_pa_s = max_dpdt;
    report->corrections = corrections;
}

/* Settle with the tube heats already in tube_heat (header): with a target
 * pressure and heat in every SG, construct the steady state first
 * (construct_settled); then step 50 s windows until the stop rule holds,
 * moving the turbine opening by the Newton step after each window that
 * fails it. */
static pcs_status settle(pcs_world *w, pcs_secondary *sc, double pressure_pa, double nr_level,
                         pcs_secondary_init_report *report)
{
    pcs_status st = PCS_OK;
    secondary_view v;
    pcs_secondary_view(w, sc, &v);
    double dt = pcs_world_clock(w)->dt_s, t = 0.0, dpdt = 0.0, p_start[PCS_SECONDARY_MAX_SG];
    uint32_t per_window = (uint32_t)ceil(SEC_INIT_WINDOW_S / dt), corrections = 0;
    int done = 0;
    if (constructible(sc, &v, pressure_pa))
        st = construct_settled(sc, &v, pressure_pa, nr_level, dt, &t, &corrections);
    if (st != PCS_OK)
        return pcs_error_set(st, "pcs_secondary_init_steady: %s at %.0f s: %s", sc->unit, t,
                             pcs_last_error());
    while (!done && t < SEC_INIT_MAX_S) {
        for (uint32_t l = 0; l < sc->nsg; l++)
            p_start[l] = sg_block(sc, v.out, l)[PCS_SECONDARY_OUT_P];
        st = step_n(sc, &v, nr_level, dt, per_window);
        if (st != PCS_OK)
            return pcs_error_set(st, "pcs_secondary_init_steady: %s at %.0f s: %s", sc->unit, t,
                                 pcs_last_error());
        t += per_window * dt;
        done = settled(sc, &v, p_start, pressure_pa, nr_level, &dpdt);
        if (!done && pressure_pa > 0.0) {
            int dumps = dumps_carry(&v);
            double *s = dumps ? v.dump : v.turbine_valve;
            *s = fmin(*s * sg_block(sc, v.out, 0)[PCS_SECONDARY_OUT_P] / pressure_pa, 1.0);
            corrections++;
        }
    }
    put_report(report, sc, &v, t, dpdt, corrections);
    const double *b = sg_block(sc, v.out, 0);
    if (!done)
        return pcs_error_set(PCS_E_STATE,
                             "pcs_secondary_init_steady: %s: not steady after %.0f s (SG 1 at "
                             "%.6g Pa, NR %.3f %%, largest |dp/dt| %.3g Pa/s, turbine %.4f)",
                             sc->unit, t, b[PCS_SECONDARY_OUT_P], b[PCS_SECONDARY_OUT_NR], dpdt,
                             *v.turbine_valve);
    feed(sc, &v, nr_level);
    return PCS_OK;
}

pcs_status pcs_secondary_init_steady(pcs_world *w, pcs_secondary *sc, double heat_w,
                                     double pressure_pa, double nr_level,
                                     pcs_secondary_init_report *report)
{
    pcs_status st = check_args(w, sc, heat_w, pressure_pa, nr_level);
    if (st != PCS_OK)
        return st;
    double *q = pcs_store_data(w, sc->s.tube_heat);
    for (uint32_t k = 0; k < sc->nsg * sc->nt; k++)
        q[k] = heat_w / sc->nt;
    return settle(w, sc, pressure_pa, nr_level, report);
}

/* Check @p tube_heat_w (as pcs_secondary_init_steady_tubes; @p fn names
 * the caller) and write it to tube_heat. */
static pcs_status put_tube_heats(pcs_world *w, pcs_secondary *sc, const double *tube_heat_w,
                                 double pressure_pa, double nr_level, const char *fn)
{
    if (!tube_heat_w)
        return pcs_error_set(PCS_E_INVAL, "%s: NULL tube heats", fn);
    pcs_status st = check_args(w, sc, 0.0, pressure_pa, nr_level);
    for (uint32_t l = 0; st == PCS_OK && l < sc->nsg; l++) {
        double sum = 0.0;
        for (uint32_t k = 0; k < sc->nt; k++)
            sum += tube_heat_w[l * sc->nt + k];
        if (!(sum >= 0.0 && sum <= 1e10))
            st = pcs_error_set(PCS_E_INVAL, "%s: %s: SG %u heat %g W is outside [0, 1e10]", fn,
                               sc->unit, l + 1, sum);
    }
    if (st != PCS_OK)
        return st;
    double *q = pcs_store_data(w, sc->s.tube_heat);
    for (uint32_t k = 0; k < sc->nsg * sc->nt; k++)
        q[k] = tube_heat_w[k];
    return PCS_OK;
}

pcs_status pcs_secondary_init_steady_tubes(pcs_world *w, pcs_secondary *sc,
                                           const double *tube_heat_w, double pressure_pa,
                                           double nr_level, pcs_secondary_init_report *report)
{
    pcs_status st = put_tube_heats(w, sc, tube_heat_w, pressure_pa, nr_level,
                                   "pcs_secondary_init_steady_tubes");
    if (st != PCS_OK)
        return st;
    return settle(w, sc, pressure_pa, nr_level, report);
}

pcs_status pcs_secondary_init_construct_tubes(pcs_world *w, pcs_secondary *sc,
                                              const double *tube_heat_w, double pressure_pa,
                                              double nr_level, pcs_secondary_init_report *report)
{
    const char *fn = "pcs_secondary_init_construct_tubes";
    pcs_status st = put_tube_heats(w, sc, tube_heat_w, pressure_pa, nr_level, fn);
    if (st != PCS_OK)
        return st;
    secondary_view v;
    pcs_secondary_view(w, sc, &v);
    if (!constructible(sc, &v, pressure_pa))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: %s: needs a pressure > 0 (got %g Pa) and heat in every SG", fn,
                             sc->unit, pressure_pa);
    double t = 0.0;
    uint32_t builds = 0;
    st = construct_settled(sc, &v, pressure_pa, nr_level, pcs_world_clock(w)->dt_s, &t, &builds);
    if (st != PCS_OK)
        return pcs_error_set(st, "%s: %s at %.0f s: %s", fn, sc->unit, t, pcs_last_error());
    put_report(report, sc, &v, t, NAN /* no window: not measured */, builds);
    return PCS_OK;
}
