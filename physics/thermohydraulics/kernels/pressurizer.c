/**
 * @file pressurizer.c
 * @brief The two-region pressurizer step (model, sources and every
 *        simplification in include/pcsim/pressurizer.h).
 *
 * A step is a list of transfers, each a mass rate with the energy rate it
 * takes from one place (liquid region, vapour region or outside) and gives to
 * another: surge, spray, heaters, flashing, rain-out, superheat, wall and
 * relief. Limits are applied to the list as a whole (boundary outflows stop
 * at the vessel's mass floor; no region gives more than 90 % of its mass in a
 * step), then every transfer is summed into the regions and the boundary
 * report with the same numbers, so mass and energy balance by construction;
 * pressurizer_eos.c turns the new (M, H) of both regions into the common
 * end-of-step pressure.
 */
#include "physics/thermohydraulics/kernels/pressurizer_internal.h"

#include <stddef.h>
#include <string.h>

#include "pcsim/math.h"

#define PSI_PA 6894.757293168
#define PSIG_PA(x) (((x) + 14.695948775) * PSI_PA)
#define MERGE_FRACTION 1e-6 /* a region below this fraction of the mass is merged */
#define MAX_DRAW 0.9        /* most of a region's mass one step may take */
#define P_FLOOR_PA 0.1e6    /* boundary outflows stop at saturated steam here */

enum { LIQ = 0, VAP = 1, OUT = 2 };
enum { SURGE, SPRAY, HEATER, WALL, PORV, SAFETY, FLASH, CONDENSE, SUPERHEAT };

typedef struct xfer {
    int kind, from, to;
    double m;      /* kg/s */
    double e_from; /* W taken from 'from' */
    double e_to;   /* W given to 'to' */
} xfer;

typedef struct xlist {
    xfer x[16];
    int n;
} xlist;

static void add(xlist *l, int kind, int from, int to, double m, double e_from, double e_to)
{
    l->x[l->n++] = (xfer){kind, from, to, m, e_from, e_to};
}

pcs_status pcs_pressurizer_default(pcs_pressurizer_def *def)
{
    if (def == NULL)
        return pcs_error_set(PCS_E_INVAL, "pcs_pressurizer_default: def is NULL");
    *def = (pcs_pressurizer_def){
        .volume_m3 = 50.97,
        .inner_diameter_m = 2.134,
        .heater_proportional_w = 414e3,
        .heater_backup_w = 1380e3,
        .spray_capacity_kg_s = 39.4,
        .spray_bypass_kg_s = 2.0 * 6.31e-5 * 742.5,
        .porv_capacity_kg_s = 26.46,
        .porv_count = 2,
        .porv_open_pa = PSIG_PA(2335.0),
        .porv_close_pa = PSIG_PA(2315.0),
        .safety_capacity_kg_s = 52.92,
        .safety_count = 3,
        .safety_set_pa = PSIG_PA(2485.0),
        .safety_band = 0.03,
        .tau_flash_s = 1.0,
        .tau_rainout_s = 1.0,
        .tau_superheat_s = 10.0,
        .wall_htc_w_m2k = 1000.0,
    };
    return PCS_OK;
}

static pcs_status field(const char *name, double v, double lo, double hi, int lo_open)
{
    if (pcs_isfinite(v) && (lo_open ? v > lo : v >= lo) && v <= hi)
        return PCS_OK;
    return pcs_error_set(PCS_E_INVAL, "pcs_pressurizer_validate: %s = %g, allowed %c%g, %g]", name,
                         v, lo_open ? '(' : '[', lo, hi);
}

pcs_status pcs_pressurizer_validate(const pcs_pressurizer_def *d)
{
    if (d == NULL)
        return pcs_error_set(PCS_E_INVAL, "pcs_pressurizer_validate: def is NULL");
    const double big = 1e12;
    pcs_status st = PCS_OK;
    if ((st = field("volume_m3", d->volume_m3, 0.0, 1e4, 1)) ||
        (st = field("inner_diameter_m", d->inner_diameter_m, 0.0, 100.0, 1)) ||
        (st = field("heater_proportional_w", d->heater_proportional_w, 0.0, big, 0)) ||
        (st = field("heater_backup_w", d->heater_backup_w, 0.0, big, 0)) ||
        (st = field("spray_capacity_kg_s", d->spray_capacity_kg_s, 0.0, big, 0)) ||
        (st = field("spray_bypass_kg_s", d->spray_bypass_kg_s, 0.0, big, 0)) ||
        (st = field("porv_capacity_kg_s", d->porv_capacity_kg_s, 0.0, big, 0)) ||
        (st = field("porv_count", d->porv_count, 0.0, 16.0, 0)) ||
        (st = field("porv_open_pa", d->porv_open_pa, 1e5, 21e6, 0)) ||
        (st = field("porv_close_pa", d->porv_close_pa, 1e5, d->porv_open_pa, 0)) ||
        (st = field("safety_capacity_kg_s", d->safety_capacity_kg_s, 0.0, big, 0)) ||
        (st = field("safety_count", d->safety_count, 0.0, 16.0, 0)) ||
        (st = field("safety_set_pa", d->safety_set_pa, 1e5, 20e6, 0)) ||
        (st = field("safety_band", d->safety_band, 0.0, 1.0, 1)) ||
        (st = field("tau_flash_s", d->tau_flash_s, 0.0, big, 1)) ||
        (st = field("tau_rainout_s", d->tau_rainout_s, 0.0, big, 1)) ||
        (st = field("tau_superheat_s", d->tau_superheat_s, 0.0, big, 1)) ||
        (st = field("wall_htc_w_m2k", d->wall_htc_w_m2k, 0.0, big, 0)))
        return st;
    return PCS_OK;
}

pcs_status pcs_pressurizer_init(const pcs_pressurizer_def *def, double p_pa, double level_pct,
                                pcs_pressurizer_state *state)
{
    static const char fn[] = "pcs_pressurizer_init";
    if (def == NULL || state == NULL)
        return pcs_error_set(PCS_E_INVAL, "%s: %s is NULL", fn, def == NULL ? "def" : "state");
    if (!(p_pa >= 0.1e6 && p_pa <= 21e6) || !(level_pct >= 0.0 && level_pct <= 100.0))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: p_pa = %g (allowed [1e5, 2.1e7]), level_pct = %g (allowed "
                             "[0, 100])",
                             fn, p_pa, level_pct);
    pzr_sat s;
    pcs_water_ph_state f, g;
    pcs_status st = pzr_sat_at(p_pa, &s);
    if (st == PCS_OK && (st = pzr_ph(def->table, p_pa, s.hf, &f)) == PCS_OK)
        st = pzr_ph(def->table, p_pa, s.hg, &g);
    if (st != PCS_OK)
        return st;
    const double vl = def->volume_m3 * level_pct / 100.0, vv = def->volume_m3 - vl;
    memset(state, 0, sizeof *state);
    state->m_liq_kg = f.rho_kg_m3 * vl;
    state->u_liq_j = state->m_liq_kg * f.u_j_kg;
    state->m_vap_kg = g.rho_kg_m3 * vv;
    state->u_vap_j = state->m_vap_kg * g.u_j_kg;
    state->p_pa = p_pa;
    state->h_liq_j_kg = state->m_liq_kg > 0.0 ? s.hf : 0.0;
    state->h_vap_j_kg = state->m_vap_kg > 0.0 ? s.hg : 0.0;
    return PCS_OK;
}

pcs_status pcs_pressurizer_level(const pcs_pressurizer_def *def, const pcs_pressurizer_state *state,
                                 double *level_pct)
{
    if (def == NULL || state == NULL || level_pct == NULL)
        return pcs_error_set(PCS_E_INVAL, "pcs_pressurizer_level: a NULL argument");
    if (!(state->m_liq_kg > 0.0)) {
        *level_pct = 0.0;
        return PCS_OK;
    }
    pcs_water_ph_state w;
    pcs_status st = pzr_ph(def->table, state->p_pa, state->h_liq_j_kg, &w);
    if (st == PCS_OK)
        *level_pct = 100.0 * state->m_liq_kg / w.rho_kg_m3 / def->volume_m3;
    return st;
}

/* ------------------------------------------------------------------------ */
/* The step                                                                  */
/* ------------------------------------------------------------------------ */

/** Start-of-step picture of the vessel. */
typedef struct start {
    double p, m[2], h[2], v0[2], compliance;
    int has[2];
    pcs_water_ph_state w[2];
    pzr_sat sat;
} start;

static pcs_status check_input(const pcs_pressurizer_input *in, double dt)
{
    static const char fn[] = "pcs_pressurizer_step";
    if (!(dt > 0.0 && dt <= 1.0))
        return pcs_error_set(PCS_E_INVAL, "%s: dt_s = %g, allowed (0, 1]", fn, dt);
    if (!pcs_isfinite(in->surge_kg_s) || !pcs_isfinite(in->surge_h_j_kg) ||
        !pcs_isfinite(in->spray_h_j_kg))
        return pcs_error_set(PCS_E_INVAL,
                             "%s: in.surge_kg_s = %g, in.surge_h_j_kg = %g, in.spray_h_j_kg = %g "
                             "must be finite",
                             fn, in->surge_kg_s, in->surge_h_j_kg, in->spray_h_j_kg);
    const double dm[3] = {in->spray_demand, in->heater_proportional, in->heater_backup};
    const char *names[3] = {"spray_demand", "heater_proportional", "heater_backup"};
    for (int i = 0; i < 3; i++)
        if (!(dm[i] >= 0.0 && dm[i] <= 1.0))
            return pcs_error_set(PCS_E_INVAL, "%s: in.%s = %g, allowed [0, 1]", fn, names[i],
                                 dm[i]);
    if (!(in->wall_t_k != in->wall_t_k) && !(in->wall_t_k > 0.0 && in->wall_t_k < 2000.0))
        return pcs_error_set(PCS_E_INVAL, "%s: in.wall_t_k = %g, allowed NaN or (0, 2000) K", fn,
                             in->wall_t_k);
    return PCS_OK;
}

static pcs_status load_start(const pcs_water_ph_table *table, const pcs_pressurizer_state *s,
                             start *b)
{
    memset(b, 0, sizeof *b);
    b->p = s->p_pa;
    b->m[LIQ] = s->m_liq_kg;
    b->m[VAP] = s->m_vap_kg;
    b->h[LIQ] = s->h_liq_j_kg;
    b->h[VAP] = s->h_vap_j_kg;
    pcs_status st = pzr_sat_at(b->p, &b->sat);
    for (int k = 0; k < 2 && st == PCS_OK; k++) {
        b->has[k] = b->m[k] > 0.0;
        if (!b->has[k])
            continue;
        st = pzr_ph(table, b->p, b->h[k], &b->w[k]);
        if (st == PCS_OK) {
            const double rho = b->w[k].rho_kg_m3;
            b->v0[k] = b->m[k] / rho;
            b->compliance += b->m[k] / (rho * rho) * pzr_drho_dp_s(&b->w[k]);
        }
    }
    return st;
}

/* Orifice scaling of a rated saturated-steam capacity to the top state. */
static pcs_status orifice(double p_set, double rho_top, double p, double *phi)
{
    pzr_sat s;
    pcs_status st = pzr_sat_at(p_set, &s);
    if (st == PCS_OK)
        *phi = pcs_sqrt(rho_top * p / (s.rhog * p_set));
    return st;
}

static pcs_status relief(const pcs_pressurizer_def *d, const start *b, double w_in, double dt,
                         int *porv_open, xlist *l)
{
    const int top = b->has[VAP] ? VAP : LIQ;
    const double rho_top = b->w[top].rho_kg_m3, h_top = b->h[top], p = b->p;
    const double rho_in = b->has[LIQ] ? b->w[LIQ].rho_kg_m3 : rho_top;
    const double k_out = 1.0 / (rho_top * b->compliance), k_in = 1.0 / (rho_in * b->compliance);
    pcs_status st = PCS_OK;
    *porv_open = p >= d->porv_open_pa ? 1 : (p <= d->porv_close_pa ? 0 : *porv_open);
    double w_porv = 0.0, phi = 0.0;
    if (*porv_open && d->porv_count > 0) {
        if ((st = orifice(d->porv_open_pa, rho_top, p, &phi)) != PCS_OK)
            return st;
        w_porv = d->porv_count * d->porv_capacity_kg_s * phi;
        add(l, PORV, top, OUT, w_porv, w_porv * h_top, w_porv * h_top);
    }
    /* safety valves, linear in p over the band, implicit in the end pressure:
       p' = p_pred - dt k_out w  ->  w = s (p_pred - p_set) / (1 + s dt k_out) */
    const double p_pred = p + dt * (k_in * w_in - k_out * w_porv);
    if (p_pred > d->safety_set_pa && d->safety_count > 0) {
        if ((st = orifice(d->safety_set_pa, rho_top, p, &phi)) != PCS_OK)
            return st;
        const double full = d->safety_count * d->safety_capacity_kg_s * phi;
        const double slope = full / (d->safety_band * d->safety_set_pa);
        const double w =
            pcs_clamp(slope * (p_pred - d->safety_set_pa) / (1.0 + slope * dt * k_out), 0.0, full);
        add(l, SAFETY, top, OUT, w, w * h_top, w * h_top);
    }
    return PCS_OK;
}

/* Every transfer of the step at its start-of-step rate (header comment). */
static pcs_status transfers(const pcs_pressurizer_def *d, const start *b,
                            const pcs_pressurizer_input *in, double dt, int *porv_open, xlist *l)
{
    const pzr_sat *s = &b->sat;
    const double hl = b->h[LIQ], hv = b->h[VAP], hfg = s->hg - s->hf;
    /* surge */
    if (in->surge_kg_s > 0.0) {
        const double w = in->surge_kg_s;
        add(l, SURGE, OUT, LIQ, w, w * in->surge_h_j_kg, w * in->surge_h_j_kg);
    } else if (in->surge_kg_s < 0.0) {
        /* liquid first; what half the draw limit of the liquid cannot give
           comes from the steam (a pressurizer emptying through its surge line) */
        const double w = -in->surge_kg_s;
        const double wl = b->has[LIQ] ? pcs_fmin(w, 0.5 * MAX_DRAW * b->m[LIQ] / dt) : 0.0;
        const double wv = b->has[VAP] ? w - wl : 0.0;
        if (wl > 0.0)
            add(l, SURGE, LIQ, OUT, wl, wl * hl, wl * hl);
        if (wv > 0.0)
            add(l, SURGE, VAP, OUT, wv, wv * hv, wv * hv);
    }
    /* spray, and the steam it condenses on its way to saturation */
    const double w_sp = in->spray_demand * d->spray_capacity_kg_s + d->spray_bypass_kg_s;
    if (w_sp > 0.0) {
        add(l, SPRAY, OUT, LIQ, w_sp, w_sp * in->spray_h_j_kg, w_sp * in->spray_h_j_kg);
        if (b->has[VAP] && hv > s->hf && in->spray_h_j_kg < s->hf) {
            const double c = w_sp * (s->hf - in->spray_h_j_kg) / (hv - s->hf);
            add(l, CONDENSE, VAP, LIQ, c, c * hv, c * hv);
        }
    }
    /* heaters */
    const double q =
        in->heater_proportional * d->heater_proportional_w + in->heater_backup * d->heater_backup_w;
    /* into the liquid, but no more than brings to h_g in the step the
       least liquid the step can leave (the draws take at most MAX_DRAW of
       it): a vanishing liquid region (a few kg) cannot take 1.8 MW, which
       would drive its enthalpy past the steam's within a tick; the rest
       heats the steam, as uncovered heaters do */
    const double room = (1.0 - MAX_DRAW) * b->m[LIQ] * (s->hg - hl) / dt;
    double ql = b->has[LIQ] ? q : 0.0;
    if (q > 0.0 && b->has[LIQ] && b->has[VAP])
        ql = pcs_fmin(q, pcs_fmax(room, 0.0));
    if (ql > 0.0)
        add(l, HEATER, OUT, LIQ, 0.0, ql, ql);
    if (q - ql > 0.0)
        add(l, HEATER, OUT, VAP, 0.0, q - ql, q - ql);
    /* interface relaxation */
    if (b->has[LIQ] && hl > s->hf) {
        const double f = b->m[LIQ] * (hl - s->hf) / (hfg * d->tau_flash_s);
        add(l, FLASH, LIQ, VAP, f, f * s->hg, f * s->hg);
    }
    if (b->has[VAP] && hv < s->hg) {
        const double r = b->m[VAP] * (s->hg - hv) / (hfg * d->tau_rainout_s);
        add(l, CONDENSE, VAP, LIQ, r, r * s->hf, r * s->hf);
    }
    if (b->has[VAP] && b->has[LIQ] && hv > s->hg) {
        /* capped like the heaters: what the liquid can take short of h_g */
        const double qs =
            pcs_fmin(b->m[VAP] * (hv - s->hg) / d->tau_superheat_s, pcs_fmax(room - ql, 0.0));
        if (qs > 0.0)
            add(l, SUPERHEAT, VAP, LIQ, 0.0, qs, qs);
    }
    /* wall (the steam side only; NaN: adiabatic) */
    if (b->has[VAP] && in->wall_t_k == in->wall_t_k && d->wall_htc_w_m2k > 0.0) {
        const double ax = 0.25 * PCS_PI * d->inner_diameter_m * d->inner_diameter_m;
        const double aw = PCS_PI * d->inner_diameter_m * (b->v0[VAP] / ax) + ax;
        const double qw = d->wall_htc_w_m2k * aw * (b->w[VAP].t_k - in->wall_t_k);
        if (qw > 0.0 && hv > s->hf) {
            const double c = qw / (hv - s->hf);
            add(l, WALL, VAP, LIQ, c, c * hv, c * s->hf);
        } else if (qw < 0.0) {
            add(l, WALL, OUT, VAP, 0.0, -qw, -qw);
        }
    }
    const double w_in = (in->surge_kg_s > 0.0 ? in->surge_kg_s : 0.0) + w_sp;
    return relief(d, b, w_in, dt, porv_open, l);
}

/* The mass floor on boundary outflows, then the 90 % draw limit per region. */
static pcs_status limit(const pcs_pressurizer_def *d, const start *b, double dt, xlist *l)
{
    double in = 0.0, out = 0.0;
    for (int i = 0; i < l->n; i++) {
        in += l->x[i].from == OUT ? l->x[i].m : 0.0;
        out += l->x[i].to == OUT ? l->x[i].m : 0.0;
    }
    const double mtot = b->m[LIQ] + b->m[VAP];
    if (out > 0.0) {
        pzr_sat fl;
        pcs_status st = pzr_sat_at(P_FLOOR_PA, &fl);
        if (st != PCS_OK)
            return st;
        const double floor = fl.rhog * d->volume_m3;
        if (mtot + dt * (in - out) < floor) {
            const double k = pcs_fmax(0.0, (mtot + dt * in - floor) / (dt * out));
            for (int i = 0; i < l->n; i++)
                if (l->x[i].to == OUT) {
                    l->x[i].m *= k;
                    l->x[i].e_from *= k;
                    l->x[i].e_to *= k;
                }
        }
    }
    for (int r = 0; r < 2; r++) {
        double draw = 0.0;
        for (int i = 0; i < l->n; i++)
            draw += l->x[i].from == r ? l->x[i].m : 0.0;
        if (draw * dt <= MAX_DRAW * b->m[r])
            continue;
        const double k = MAX_DRAW * b->m[r] / (draw * dt);
        for (int i = 0; i < l->n; i++)
            if (l->x[i].from == r && l->x[i].m > 0.0) {
                l->x[i].m *= k;
                l->x[i].e_from *= k;
                l->x[i].e_to *= k;
            }
    }
    return PCS_OK;
}

/* One path's report pair: its mass flow @p m and the enthalpy flow @p e it carries. */
static void add_flow(double *kg_s, double *w, double m, double e)
{
    *kg_s += m;
    *w += e;
}

static void report_flows(const xlist *l, pcs_pressurizer_report *r)
{
    for (int i = 0; i < l->n; i++) {
        const xfer *x = &l->x[i];
        const double sgn_in = x->from == OUT ? 1.0 : -1.0; /* surge: + into the vessel */
        switch (x->kind) {
        case SURGE:
            add_flow(&r->surge_kg_s, &r->surge_w, sgn_in * x->m,
                     sgn_in * (x->from == OUT ? x->e_to : x->e_from));
            break;
        case SPRAY:
            add_flow(&r->spray_kg_s, &r->spray_w, x->m, x->e_to);
            break;
        case PORV:
            add_flow(&r->porv_kg_s, &r->porv_w, x->m, x->e_from);
            break;
        case SAFETY:
            add_flow(&r->safety_kg_s, &r->safety_w, x->m, x->e_from);
            break;
        case WALL:
            r->wall_w += x->from == OUT ? -x->e_to : x->e_from - x->e_to;
            r->condense_kg_s += x->m;
            break;
        case HEATER:
            r->heater_w += x->e_to;
            break;
        case FLASH:
            r->flash_kg_s += x->m;
            break;
        case CONDENSE:
            r->condense_kg_s += x->m;
            break;
        default:
            break;
        }
    }
}

/* New region masses and enthalpies (H* of pressurizer_eos.c), merging a
   region that has become negligible into the other. */
static void regions(const start *b, const xlist *l, double dt, double volume, pzr_region out[2])
{
    double dm[3] = {0}, de[3] = {0};
    for (int i = 0; i < l->n; i++) {
        const xfer *x = &l->x[i];
        dm[x->from] -= x->m;
        dm[x->to] += x->m;
        de[x->from] -= x->e_from;
        de[x->to] += x->e_to;
    }
    /* H_n = U_n + p_n V_n = M_n h_n for a consistent state. The V dp work
       uses the volume the region's new mass had at the start-of-step density
       (a saturated phase for a region the step creates), scaled so the two
       sum to V: then the work terms cancel exactly (pressurizer_eos.c), and
       a region that loses most of its mass does not get the work of the
       volume it gave away. */
    double vsum = 0.0;
    for (int k = 0; k < 2; k++) {
        out[k].m = b->m[k] + dt * dm[k];
        out[k].h_tot = b->m[k] * b->h[k] + dt * de[k];
        const double rho = b->has[k] ? b->w[k].rho_kg_m3 : (k == LIQ ? b->sat.rhof : b->sat.rhog);
        out[k].v0 = out[k].m / rho;
        vsum += out[k].v0;
    }
    for (int k = 0; k < 2; k++)
        out[k].v0 *= volume / vsum;
    const double mt = out[LIQ].m + out[VAP].m;
    for (int k = 0; k < 2; k++) {
        pzr_region *a = &out[k], *o = &out[1 - k];
        if (a->m != 0.0 && a->m < MERGE_FRACTION * mt) {
            o->m += a->m;
            o->h_tot += a->h_tot;
            o->v0 += a->v0;
            *a = (pzr_region){0};
        }
    }
}

pcs_status pcs_pressurizer_step(const pcs_pressurizer_def *def, pcs_pressurizer_state *state,
                                const pcs_pressurizer_input *in, double dt_s,
                                pcs_pressurizer_report *report)
{
    if (def == NULL || state == NULL || in == NULL)
        return pcs_error_set(PCS_E_INVAL, "pcs_pressurizer_step: %s is NULL",
                             def == NULL ? "def" : (state == NULL ? "state" : "in"));
    pcs_status st = check_input(in, dt_s);
    start b;
    if (st == PCS_OK)
        st = load_start(def->table, state, &b);
    xlist l = {.n = 0};
    int porv = state->porv_open;
    if (st == PCS_OK)
        st = transfers(def, &b, in, dt_s, &porv, &l);
    if (st == PCS_OK)
        st = limit(def, &b, dt_s, &l);
    if (st != PCS_OK)
        return st;
    pzr_region r[2];
    regions(&b, &l, dt_s, def->volume_m3, r);
    pzr_eos e;
    if ((st = pzr_eos_solve(def->table, def->volume_m3, &r[LIQ], &r[VAP], b.p, &e)) != PCS_OK)
        return st;
    pzr_sat s_end;
    if ((st = pzr_sat_at(e.p, &s_end)) != PCS_OK)
        return st;
    state->m_liq_kg = r[LIQ].m;
    state->m_vap_kg = r[VAP].m;
    state->u_liq_j = r[LIQ].m > 0.0 ? r[LIQ].h_tot + r[LIQ].v0 * (e.p - b.p) - e.p * e.vl : 0.0;
    state->u_vap_j = r[VAP].m > 0.0 ? r[VAP].h_tot + r[VAP].v0 * (e.p - b.p) - e.p * e.vv : 0.0;
    state->p_pa = e.p;
    state->h_liq_j_kg = e.hl;
    state->h_vap_j_kg = e.hv;
    state->porv_open = porv;
    if (report != NULL) {
        memset(report, 0, sizeof *report);
        report_flows(&l, report);
        report->p_pa = e.p;
        report->level_pct = 100.0 * e.vl / def->volume_m3;
        report->t_sat_k = s_end.t_k;
        report->t_liq_k = r[LIQ].m > 0.0 ? e.l.t_k : s_end.t_k;
        report->t_vap_k = r[VAP].m > 0.0 ? e.v.t_k : s_end.t_k;
    }
    return PCS_OK;
}
