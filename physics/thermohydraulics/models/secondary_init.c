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
 *  - every volume's pressure moved by one offset that puts SG 1's dome at
 *    the target (the heads and losses the network had stay), its mass and
 *    energy rho(p, h) V and M (h - p / rho), the flows the steady ones.
 * The recirculation is the momentum balance's outcome: construct, step
 * SEC_INIT_CHUNK_S (10 s, about one loop transit) and take the flow the
 * loop settled to, until a chunk moves no SG's W_r by more than
 * SEC_INIT_WR_TOL (1e-4) of the one constructed (3 chunks at 100 % from the
 * build's estimate, 2 from an earlier pass's state), then construct once
 * more. A construction at a W_r 1e-3 off starts a slow level-pressure swing
 * that the windows see (measured at 30 % heat: 100 Pa over 50 s, two
 * windows failed); at 1e-4 the first window ends within 0.25 Pa/s. The
 * stop rule is the stepping's (header: a 50 s window with |dp/dt| <= 2
 * Pa/s, the levels within 0.1 % NR and SG 1 within 1 kPa of the target),
 * so a construction that missed the steady state costs windows, never a
 * weaker result. Without a target pressure, or with an SG without heat (no
 * steam to size the turbine with), only the windows run, as before.
 */
#include <math.h>

#include "pcsim/water.h"
#include "physics/thermohydraulics/models/secondary_internal.h"

#define SEC_INIT_WINDOW_S 50.0
#define SEC_INIT_MAX_S 3000.0
#define SEC_INIT_TRIM 10.0    /* kg/s per % NR */
#define SEC_INIT_CHUNK_S 10.0 /* stepping between two constructions */
#define SEC_INIT_BUILDS 20    /* constructions at most */
#define SEC_INIT_WR_TOL 1e-4  /* relative recirculation change that ends them */
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
    if (pcs_world_sealed(w))
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

/*
 * Put the steam side at its steady state for the present recirculation with
 * SG 1's dome at @p p_target (file comment): every volume's pressure moves
 * by the same offset (the network's own heads and losses stay), every SG
 * takes sg_steady's enthalpies and flows, the header the steam's mix, and
 * the turbine the opening whose choked throat passes the total steam at the
 * header's new pressure. *wr_rel: the largest relative change of an SG's
 * recirculation since the last call (@p wr_last, updated).
 */
static pcs_status construct(pcs_secondary *sc, secondary_view *v, double p_target, double nr,
                            double *wr_used)
{
    const pcs_thnet_eos eos =
        sc->def.table ? pcs_thnet_eos_table(sc->def.table) : pcs_thnet_eos_if97();
    double h[SEC_MAX_V], *p = v->st.p_pa;
    double dp = p_target - p[sec_vol(sc, 0, SV_DOME)], alpha = void_at_level(&sc->def, nr);
    double w_tot = 0.0, wh = 0.0;
    pcs_status st = PCS_OK;
    for (uint32_t l = 0; st == PCS_OK && l < sc->nsg; l++) {
        double wr = v->st.flow_kg_s[l * sc->per_sg_j], ws = 0.0, hf = 0.0, hg = 0.0, rf, rg;
        double pd = p[sec_vol(sc, l, SV_DOME)] + dp;
        st = sg_steady(sc, v, &eos, l, pd, p[sec_vol(sc, l, SV_DC_UPPER)] + dp, &wr, alpha, h, &ws);
        wr_used[l] = wr;
        if (st == PCS_OK)
            st = pcs_secondary_sat(pd, &hf, &hg, &rf, &rg);
        w_tot += ws;
        wh += ws * hg;
    }
    if (st != PCS_OK)
        return st;
    h[sc->v_header] = wh / w_tot;
    for (uint32_t i = 0; st == PCS_OK && i < sc->nv; i++) {
        if (i == sc->v_condenser || i == sc->v_atmosphere)
            continue;
        pcs_thnet_props a;
        p[i] += dp;
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
    *v->turbine_valve = fmin(fmax(w_tot / (sc->a_turbine * c.g_kg_m2s), 0.01), 1.0);
    v->st.flow_kg_s[sc->j_turbine] = w_tot;
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

/* Construct, step SEC_INIT_CHUNK_S, and again until the chunk moved no
 * SG's recirculation by more than SEC_INIT_WR_TOL of the one the
 * construction used; then construct once more at that recirculation.
 * *t: simulated seconds, *builds: constructions made. */
static pcs_status construct_settled(pcs_secondary *sc, secondary_view *v, double pressure_pa,
                                    double nr_level, double dt, double *t, uint32_t *builds)
{
    uint32_t per_chunk = (uint32_t)ceil(SEC_INIT_CHUNK_S / dt);
    double wr[PCS_SECONDARY_MAX_SG], moved = INFINITY;
    pcs_status st = PCS_OK;
    for (uint32_t n = 0; st == PCS_OK && n < SEC_INIT_BUILDS && moved > SEC_INIT_WR_TOL; n++) {
        st = construct(sc, v, pressure_pa, nr_level, wr);
        if (st == PCS_OK)
            st = step_n(sc, v, nr_level, dt, per_chunk);
        *t += per_chunk * dt;
        ++*builds;
        moved = 0.0;
        for (uint32_t l = 0; l < sc->nsg; l++)
            moved =
                fmax(moved, fabs(sg_block(sc, v->out, l)[PCS_SECONDARY_OUT_RECIRC] / wr[l] - 1.0));
    }
    if (st == PCS_OK) {
        st = construct(sc, v, pressure_pa, nr_level, wr);
        ++*builds;
    }
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
            double *s = v.turbine_valve;
            *s = fmin(fmax(*s * sg_block(sc, v.out, 0)[PCS_SECONDARY_OUT_P] / pressure_pa, 0.01),
                      1.0);
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
