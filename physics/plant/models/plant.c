/**
 * @file plant.c
 * @brief The station builder: unit + fuel + primary + coupling per unit (see plant.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/interlock.h"
#include "pcsim/math.h"
#include "pcsim/plant.h"
#include "pcsim/system.h"
#include "pcsim/thnet.h"
#include "pcsim/water.h"
#include "pcsim/water_ph.h"

#include "physics/plant/models/plant_internal.h"

pcs_status pcs_plant_unit_default(pcs_plant_unit_def *cfg)
{
    if (!cfg)
        return pcs_error_set(PCS_E_INVAL, "pcs_plant_unit_default: cfg is NULL");
    memset(cfg, 0, sizeof *cfg);
    pcs_unit_default(&cfg->core);
    cfg->core.external_heat = 1;
    pcs_fuel_default(&cfg->fuel);
    return pcs_primary_default(&cfg->primary);
}

static pcs_status check_unit(const pcs_plant_unit_def *c, uint32_t n)
{
    if (c->primary.n_loops < 1 || c->primary.n_loops > PCS_PLANT_MAX_LOOPS)
        return pcs_error_set(PCS_E_INVAL, "plant: unit %u n_loops = %u is outside [1, %u]", n,
                             c->primary.n_loops, PCS_PLANT_MAX_LOOPS);
    double most = c->primary.n_loops * PCS_PLANT_LOOP_RATING_W;
    if (!(c->core.nominal_power_w <= most))
        return pcs_error_set(PCS_E_INVAL,
                             "plant: unit %u core.nominal_power_w = %g W is above %g W, the "
                             "rating of its %u loops (PCS_PLANT_LOOP_RATING_W each)",
                             n, c->core.nominal_power_w, most, c->primary.n_loops);
    if (c->sg_model > PCS_PLANT_SG_STEAM_SIDE)
        return pcs_error_set(
            PCS_E_INVAL, "plant: unit %u sg_model = %u is outside {0 (boundary), 1 (steam side)}",
            n, c->sg_model);
    if (c->model > PCS_PLANT_MODEL_SUMMARY)
        return pcs_error_set(PCS_E_INVAL,
                             "plant: unit %u model = %u is outside {0 (full), 1 (summary)}", n,
                             c->model);
    double f = c->core.initial_power_fraction;
    if (!(f >= 0.0 && f <= 1.0))
        return pcs_error_set(PCS_E_INVAL,
                             "plant: unit %u initial_power_fraction = %g is outside [0, 1] (the "
                             "primary's steady state runs from hot zero power to full power)",
                             n, f);
    return PCS_OK;
}

/* The fuel's heat per level (q_axial: n_axial equal levels, bottom to top)
 * into the primary's n_core equal-height core volumes, each level split by
 * the length it shares with each volume: every watt lands once. */
static void core_heat_by_height(const plant_couple *c)
{
    for (uint32_t k = 0; k < c->n_core; k++)
        c->pri_heat[k] = 0.0;
    double na = c->n_axial, nc = c->n_core;
    for (uint32_t j = 0; j < c->n_axial; j++) {
        double z0 = j / na, z1 = (j + 1) / na;
        uint32_t k = (uint32_t)(z0 * nc);
        for (; k < c->n_core && k / nc < z1; k++) {
            double share = (fmin(z1, (k + 1) / nc) - fmax(z0, k / nc)) * na;
            c->pri_heat[k] += c->fuel_q[j] * share;
        }
    }
}

static pcs_status couple_system(pcs_world *w, void *ctx)
{
    (void)w;
    plant_couple *c = ctx;
    double flow = c->pri_out[PCS_PRIMARY_OUT_CORE_FLOW];
    for (uint32_t g = 0; g < c->n_channels; g++) {
        c->fuel_t_in[g] = c->pri_out[PCS_PRIMARY_OUT_T_INLET];
        c->fuel_mdot[g] = flow * c->flow_share[g];
    }
    c->fuel_p[0] = c->pri_out[PCS_PRIMARY_OUT_RCS_PRESSURE];
    core_heat_by_height(c);
    *c->unit_t_fuel = c->fuel_out[PCS_FUEL_OUT_T_AVG];
    *c->unit_t_cool = c->fuel_out[PCS_FUEL_OUT_COOLANT_T_AVG];
    *c->unit_t_max = c->fuel_out[PCS_FUEL_OUT_T_MAX];
    *c->unit_boron = c->pri_out[c->boron_out];
    return PCS_OK;
}

/* The property tables the units share, for the units that bring none (the
 * station hands in its process-wide ones, pcs_station_water_table and
 * pcs_station_coolant_table): the fuel's real-water (p, T) table in the
 * world's heap and a (p, h) table, made here and freed with the world. */
typedef struct plant_tables {
    pcs_coolant_water *water;
    const pcs_water_ph_table *ph;
} plant_tables;

static void destroy_ph_table(void *ctx)
{
    pcs_water_ph_table_destroy(ctx);
}

static pcs_status make_tables(pcs_world *w, const pcs_plant_unit_def *units, uint32_t n,
                              plant_tables *t)
{
    t->water = NULL;
    int need_water = 0;
    for (uint32_t i = 0; i < n; i++)
        need_water |= units[i].fuel.props_fn == NULL;
    if (need_water) {
        pcs_coolant_water_def wd;
        pcs_coolant_water_default(&wd);
        pcs_status st = pcs_coolant_water_add(w, &wd, &t->water);
        if (st != PCS_OK)
            return pcs_error_set(st, "plant: coolant property table: %s", pcs_last_error());
    }
    t->ph = NULL;
    int need = 0;
    for (uint32_t i = 0; i < n; i++)
        need |= units[i].primary.table == NULL;
    if (!need)
        return PCS_OK;
    pcs_water_ph_table_def pd;
    pcs_water_ph_table_default(&pd);
    pcs_water_ph_table *ph = NULL;
    pcs_status st = pcs_water_ph_table_create(&pd, &ph);
    if (st != PCS_OK)
        return pcs_error_set(st, "plant: water (p, h) table: %s", pcs_last_error());
    st = pcs_world_on_destroy(w, destroy_ph_table, ph);
    if (st != PCS_OK) {
        pcs_water_ph_table_destroy(ph);
        return st;
    }
    t->ph = ph;
    return PCS_OK;
}

#define PLANT_TURBINE_RATED_P_PA 5.378e6 /* 780 psia */

/* The steam side of unit @p pu (sg_model PCS_PLANT_SG_STEAM_SIDE): built
 * before the primary, whose system reads and writes its tube stores. */
static pcs_status build_secondary(pcs_world *w, const pcs_plant_unit_def *c,
                                  const pcs_water_ph_table *table, pcs_plant_unit *pu,
                                  pcs_primary_def *pd)
{
    pcs_secondary_def d;
    pcs_secondary_default(&d);
    char name[16];
    snprintf(name, sizeof name, "u%u", pu->index);
    d.unit_name = name;
    d.n_sg = c->primary.n_loops;
    d.n_bundle = c->primary.n_sg_tubes / 2u;
    d.table = c->primary.table ? c->primary.table : table;
    /* The governor passes rated steam at its rated opening at the lowest
     * full-load pressure of the window (pwr_transients.md section 1: 780
     * psia), so it has margin wherever in the window the primary settles
     * (assumption: a design point; the secondary's own default is 6.89 MPa,
     * above the pressure the default primary settles at). */
    d.turbine_rated_p_pa = PLANT_TURBINE_RATED_P_PA;
    pcs_status st = pcs_secondary_add(w, &d, &pu->secondary);
    if (st != PCS_OK)
        return st;
    pcs_secondary_stores s = pcs_secondary_store_ids(pu->secondary);
    pd->sg_model = PCS_PRIMARY_SG_TUBE_STORES;
    pd->sg_tube_t_store = s.tube_t;
    pd->sg_tube_heat_store = s.tube_heat;
    return PCS_OK;
}

#define PLANT_SEC_PASSES 12    /* settling passes at most */
#define PLANT_SEC_MATCH_K 0.01 /* |tube-side temperature offset| that ends them, K */
#define PLANT_SEC_MATCH_Q 1e-3 /* and sum |primary's - settled tube heat| / total heat */

typedef double plant_tube_array[PCS_PRIMARY_MAX_LOOPS * PCS_PRIMARY_MAX_SG_TUBES];

/* The primary's heat per tube volume to secondary temperatures @p t, its
 * sum, and each tube's U A (*ua_e: the same heat to t + 1 K is U A less)
 * and their sum *ua. */
static pcs_status tube_heat_at(pcs_world *w, const pcs_primary *pr, uint32_t n, const double *t,
                               double *q, double *sum, double *ua_e, double *ua)
{
    plant_tube_array t1, q1;
    for (uint32_t e = 0; e < n; e++)
        t1[e] = t[e] + 1.0;
    pcs_status st = pcs_primary_sg_tube_heat(w, pr, t, q);
    if (st == PCS_OK)
        st = pcs_primary_sg_tube_heat(w, pr, t1, q1);
    *sum = *ua = 0.0;
    for (uint32_t e = 0; st == PCS_OK && e < n; e++) {
        *sum += q[e];
        ua_e[e] = q[e] - q1[e];
        *ua += ua_e[e];
    }
    return st;
}

/*
 * The turbine's rated first-stage flow (load 1; pcsim/turbine.h
 * "Calibration"): the steam the unit makes at its rated thermal power. A
 * unit built at 100 % has it: the turbine flow it settled with (the
 * calibration point itself, as a plant calibrates its impulse channel on
 * its own steady state at rated power; the heat balance below gives it to
 * 5.6e-5), so it reads load 1 exactly and a 10 % step from it is a step
 * (the governor's rule, pcsim/turbine.h). Below 100 % (@p f) it is
 * extrapolated by the unit's own heat balance: the SGs' heat at rated
 * power is the settled heat (the tube heat: f x the core's rating plus the
 * pump heat) plus the core power still missing, (1 - f) x rated (the pump
 * heat does not move with power), over h_g - h_feed at the dome pressure
 * the unit settled at. That dome is higher below full load (7.55 MPa at
 * hot zero power, 6.05 at 100 %) and h_g lower, so such a unit is
 * calibrated up to 1.06 % high (tests/test_steam_steady.c): the full-load
 * pressure is an outcome the build does not know below full power.
 */
static pcs_status turbine_rated_flow(pcs_world *w, const pcs_plant_unit *pu, double f,
                                     double *flow_kg_s)
{
    const pcs_secondary_def *sd = pcs_secondary_def_get(pu->secondary);
    const double *o = pcs_store_data(w, pcs_secondary_store_ids(pu->secondary).out);
    if (f == 1.0 && o[PCS_SECONDARY_OUT_TURBINE_FLOW] > 0.0) {
        *flow_kg_s = o[PCS_SECONDARY_OUT_TURBINE_FLOW];
        return PCS_OK;
    }
    uint32_t id = pcs_secondary_store_ids(pu->secondary).tube_heat;
    const double *q = pcs_store_data(w, id);
    size_t n = pcs_store_bytes(w, id) / sizeof(double);
    double heat = 0.0;
    for (size_t e = 0; e < n; e++)
        heat += q[e];
    heat += (1.0 - f) * pcs_primary_def_get(pu->primary)->rated_power_w;
    double p = 0.0; /* the SGs' mean dome pressure */
    for (uint32_t l = 0; l < sd->n_sg; l++)
        p +=
            o[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l + PCS_SECONDARY_OUT_P] / sd->n_sg;
    return pcs_turbine_rated_flow_from_heat(heat, p, sd->feed_t_k, flow_kg_s);
}

/* The turbine-generator and its load control (pcsim/turbine.h, defaults,
 * calibrated on the unit's own full-power steam: turbine_rated_flow):
 * built after the steam side settled at power fraction @p f, it starts at
 * the settled opening and the load that opening passes (about f), so the
 * first tick moves nothing. */
static pcs_status build_turbine(pcs_world *w, pcs_plant_unit *pu, double f)
{
    pcs_turbine_def td;
    pcs_turbine_default(&td);
    td.unit_name = pcs_secondary_def_get(pu->secondary)->unit_name;
    pcs_status st = turbine_rated_flow(w, pu, f, &td.rated_flow_kg_s);
    return st == PCS_OK ? pcs_turbine_add(w, &td, pu->secondary, &pu->turbine) : st;
}

/*
 * How much of its own heat error each tube volume's heat takes per pass:
 * 1 / d with d = 1 + U A_b / (c_p W_r) where the tube's bundle volume b is
 * subcooled (U A_b: both tube volumes that heat it), 1 where it boils. The
 * secondary's bundle volume is its inlet plus its heat / W_r (donor cell,
 * secondary_init.c), so a subcooled one warms by dq / (c_p W_r) and the
 * primary then gives U A_b times that less: taking the whole error
 * overshoots by that factor. At hot zero power (W_r 123 kg/s, the lower
 * bundle 1 K subcooled by the feed, U A_b about 8.6 MW/K) d is about 13:
 * the undamped passes swung the primary's heat -47 to +56 MW about the 12.9
 * MW of pump heat; at full power (W_r 1575 kg/s) about 2. A boiling volume
 * sits at T_sat of its pressure whatever its heat (d = 1). The Newton step
 * of the lower-triangular tube-heat balance, diagonal part.
 */
static pcs_status tube_damping(pcs_world *w, const pcs_secondary *sec, uint32_t n_sg,
                               uint32_t n_tubes, const double *ua_e, double *d)
{
    pcs_secondary_stores s = pcs_secondary_store_ids(sec);
    const double *h = pcs_store_data(w, s.h), *p = pcs_store_data(w, s.p);
    const double *t = pcs_store_data(w, s.t), *o = pcs_store_data(w, s.out);
    const uint32_t nb = n_tubes / 2u;
    pcs_status st = PCS_OK;
    for (uint32_t l = 0; st == PCS_OK && l < n_sg; l++) {
        double wr =
            o[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l + PCS_SECONDARY_OUT_RECIRC];
        uint32_t v0 = pcs_secondary_volume(sec, PCS_SECONDARY_BUNDLE_FIRST, l);
        for (uint32_t r = 0; st == PCS_OK && r < nb; r++) {
            uint32_t e0 = l * n_tubes + r, e1 = l * n_tubes + n_tubes - 1u - r, v = v0 + r;
            pcs_thnet_sat sat;
            pcs_water_props wp;
            st = pcs_thnet_sat_if97(NULL, p[v], &sat);
            double dr = 1.0;
            if (st == PCS_OK && h[v] < sat.h_f_j_kg && wr > 0.0) {
                st = pcs_water_props_pt(p[v], t[v], &wp);
                if (st == PCS_OK && wp.cp_j_kg_k > 0.0)
                    dr += (ua_e[e0] + ua_e[e1]) / (wp.cp_j_kg_k * wr);
            }
            d[e0] = d[e1] = dr;
        }
    }
    return st;
}

/*
 * The steam side settled to the primary's steady state. The first pass
 * holds the heat the primary's tubes give to its settled T_sat (the
 * boundary's, tube by tube) at that pressure. Each later pass takes the
 * tube heats the last one settled with, q_e, moved toward the primary's
 * heat at the secondary's tube-side temperatures (tube_t), Q_e, by the
 * damped Newton step of tube_damping, and a dome T_sat moved by dT such
 * that the heats sum to the primary's settled total Q_sat:
 *   q_e' = q_e + (Q_e - q_e - U A_e dT) / d_e,
 *   dT = (sum [q_e + (Q_e - q_e) / d_e] - Q_sat) / sum U A_e / d_e,
 * and the pressure the saturation pressure of T_sat(p) + dT. Done when
 * |dT| <= PLANT_SEC_MATCH_K and sum |Q_e - q_e| <= PLANT_SEC_MATCH_Q Q_sat
 * after a settled pass. The first pass only constructs the steady state
 * (pcs_secondary_init_construct_tubes: its tube_t is what the next pass
 * needs, and a stop-rule window on a state about to be moved would be 50 s
 * of stepping for nothing); every later pass settles it
 * (pcs_secondary_init_steady_tubes), so the last one is verified steady.
 * Each pass starts from the state the last one left (the world keeps it):
 * a later pass's construction needs two 10 s chunks, not three.
 */
static pcs_status settle_passes(pcs_world *w, pcs_plant_unit *pu, double nr)
{
    const pcs_primary_def *pd = pcs_primary_def_get(pu->primary);
    const double *tube_t = pcs_store_data(w, pcs_secondary_store_ids(pu->secondary).tube_t);
    uint32_t n = pd->n_loops * pd->n_sg_tubes;
    plant_tube_array t, q, qp, ua_e, d;
    double p = pu->init.sg_pressure_pa, ts = 0.0, q_sat = 0.0, q_t = 0.0, ua = 0.0, dts = 1.0;
    double miss = 1.0;
    pcs_status st = pcs_water_tsat(p, &ts);
    for (uint32_t e = 0; e < n; e++)
        t[e] = ts;
    if (st == PCS_OK)
        st = tube_heat_at(w, pu->primary, n, t, q, &q_sat, ua_e, &ua);
    for (int pass = 0; pass < PLANT_SEC_PASSES && st == PCS_OK &&
                       (fabs(dts) > PLANT_SEC_MATCH_K || miss > PLANT_SEC_MATCH_Q || pass < 2);
         pass++) {
        st = pass == 0
                 ? pcs_secondary_init_construct_tubes(w, pu->secondary, q, p, nr,
                                                      &pu->secondary_init)
                 : pcs_secondary_init_steady_tubes(w, pu->secondary, q, p, nr, &pu->secondary_init);
        if (st == PCS_OK)
            st = tube_heat_at(w, pu->primary, n, tube_t, qp, &q_t, ua_e, &ua);
        if (st == PCS_OK)
            st = tube_damping(w, pu->secondary, pd->n_loops, pd->n_sg_tubes, ua_e, d);
        if (st == PCS_OK)
            st = pcs_water_tsat(p, &ts);
        double a = 0.0, b = 0.0;
        miss = 0.0;
        for (uint32_t e = 0; e < n; e++) {
            miss += fabs(qp[e] - q[e]);
            a += q[e] + (qp[e] - q[e]) / d[e];
            b += ua_e[e] / d[e];
        }
        miss /= fabs(q_sat);
        dts = (a - q_sat) / b;
        for (uint32_t e = 0; e < n; e++)
            q[e] += (qp[e] - q[e] - ua_e[e] * dts) / d[e];
        if (st == PCS_OK && (fabs(dts) > PLANT_SEC_MATCH_K || miss > PLANT_SEC_MATCH_Q))
            st = pcs_water_psat(ts + dts, &p);
    }
    return st;
}

/* The steam side of @p twin (an earlier steam-side unit whose primary
 * settled identically, same_steady_state): the passes are deterministic, so
 * they would end in its state; take it, store by store, with its report. */
static pcs_status copy_secondary(pcs_world *w, pcs_plant_unit *pu, const pcs_plant_unit *twin)
{
    pcs_secondary_stores a = pcs_secondary_store_ids(twin->secondary);
    pcs_secondary_stores b = pcs_secondary_store_ids(pu->secondary);
    const uint32_t from[] = {
        a.mass, a.energy,  a.flow,          a.p,         a.h,      a.t,
        a.rho,  a.quality, a.void_fraction, a.tube_heat, a.tube_t, a.turbine_valve,
        a.dump, a.feed,    a.afw,           a.msiv,      a.feed_t, a.out};
    const uint32_t to[] = {
        b.mass, b.energy,  b.flow,          b.p,         b.h,      b.t,
        b.rho,  b.quality, b.void_fraction, b.tube_heat, b.tube_t, b.turbine_valve,
        b.dump, b.feed,    b.afw,           b.msiv,      b.feed_t, b.out};
    for (size_t k = 0; k < sizeof from / sizeof from[0]; k++) {
        size_t bytes = pcs_store_bytes(w, from[k]);
        if (bytes != pcs_store_bytes(w, to[k]))
            return pcs_error_set(PCS_E_STATE, "plant: u%u's steam side differs in size from u%u's",
                                 pu->index, twin->index);
        memcpy(pcs_store_data(w, to[k]), pcs_store_data(w, from[k]), bytes);
    }
    pu->secondary_init = twin->secondary_init;
    return PCS_OK;
}

/* The steam side settled (settle_passes) at the level program of power
 * fraction @p f or, given @p twin, copied; then the primary's tubes see
 * tube_t (pcs_primary_sg_couple), and its first tick gives the heat the
 * secondary settled with. The level program is sg_control's
 * (pcs_sg_control_program: 33 % at 0 % power to the full-load program, the
 * secondary's nr_initial 44 %, at 20 %; [HRTD] 11.1), which the controller
 * follows on the core's power, so it starts at the level settled here. */
static pcs_status settle_secondary(pcs_world *w, pcs_plant_unit *pu, const pcs_plant_unit *twin,
                                   double f)
{
    const pcs_primary_def *pd = pcs_primary_def_get(pu->primary);
    pcs_sg_control_def cd;
    pcs_sg_control_default(&cd);
    cd.unit_name = pd->unit_name;
    cd.nr_program = pcs_secondary_def_get(pu->secondary)->nr_initial; /* the full-load program */
    const double nr = pcs_sg_control_program(&cd, f);
    if (f == 0.0) /* hot zero power: the turbine is off, the dumps carry the steam */
        *(double *)pcs_store_data(w, pcs_secondary_store_ids(pu->secondary).turbine_valve) = 0.0;
    pcs_status st = twin ? copy_secondary(w, pu, twin) : settle_passes(w, pu, nr);
    if (st == PCS_OK)
        st = pcs_primary_sg_couple(w, pu->primary);
    /* the level program and the bypass valves' transfer read the core's power */
    cd.power = (pcs_pzr_control_input){0, 0, PCS_PZR_CONTROL_NO_STATUS, 0};
    cd.rated_power_w = pd->rated_power_w;
    if (st == PCS_OK)
        st = pcs_unit_power_ref(pu->core, &cd.power.store, &cd.power.index);
    if (st == PCS_OK)
        st = pcs_sg_control_add(w, &cd, pu->secondary, &pu->sg_control);
    if (st == PCS_OK)
        st = build_turbine(w, pu, f);
    return st;
}

/*
 * Hot zero power (refdata pwr_transients.md section 1: the reactor
 * critical at ~0 % power, the turbine off, Tavg at the no-load 557 F): the
 * steam dumps in their steam-pressure mode carry the steam the pump heat
 * boils ([HRTD] 11.2: "steam pressure mode ... startup, hot standby"; a PI
 * on the header pressure at an OPERATOR-SELECTED setpoint, "typically 1092
 * psig -> maintains Tavg at ~557 F"). The operator's purpose is the no-load
 * Tavg, which rod control's Tref, the pressurizer level program, P-12 and
 * the turbine-trip controller all key on; so the setpoint is the header
 * pressure the unit settled at with its primary on 557 F. In this model
 * that is about 11 psi below 1092 psig: the dome's T_sat sits about 1.1 F
 * below Tavg where the HRTD's pair has it 0.1 F above (the pump heat's
 * U A difference, and the bundle boiling at its own hydrostatic head above
 * the dome's pressure while its lower part is subcooled by the feed:
 * tests/test_steam_steady.c reports the number).
 */
double plant_hzp_setpoint(pcs_world *w, const pcs_plant_unit *pu)
{
    const double *o = pcs_store_data(w, pcs_secondary_store_ids(pu->secondary).out);
    return o[PCS_SECONDARY_OUT_HEADER_P];
}

/* The dumps in their steam-pressure mode at the settled demand: with the
 * setpoint at the header pressure the error is 0, so the integral is the
 * demand (pcsim/steam_dump.h's bumpless entry, K_p e_p + I = demand). */
void plant_hzp_dumps(pcs_world *w, const pcs_steam_dump *sd)
{
    double *s = pcs_store_data(w, pcs_steam_dump_state_store(sd));
    s[PCS_STEAM_DUMP_ST_MODE] = 1.0;
    s[PCS_STEAM_DUMP_ST_P_INTEGRAL] = s[PCS_STEAM_DUMP_ST_DEMAND];
}

/* 1: the heater train's feed temperature falls with load in a station; 0:
 * it holds the rated feed_t_k at every load (the line is flat). 0 for now:
 * with the feed 35 K colder at 50 % (458 K) the steam side and its level
 * control oscillate (NR 33-54 % from about 540 s) where at 493.43 K they
 * hold 44.00 %, and pcs_secondary_init_steady does not settle at 50 % with
 * 460 K feed. The secondary alone at 50 % heat and 458 K feed is steady
 * with no level loop and with a proportional level trim of 2 kg/s per %,
 * and limit-cycles (NR 39.6-48.2 %) with the 10 kg/s per % of both the
 * settling's trim and sg_control's K_L: the level loops' gain, not the
 * model, is what colder feed destabilises. The model's line
 * (pcs_feedwater_heater_t) is tested on its own. Set 1 once the level
 * loops are stable with subcooled feed. */
#define PLANT_FEED_HEATER_LINE 0

/* The feedwater plant's definition for unit @p pu (defaults, scaled to its
 * SGs: the pumps' ratings are for 4 SGs of 480.4 kg/s rated steam). */
static void feedwater_def(const pcs_plant_unit *pu, pcs_feedwater_def *fd)
{
    const pcs_secondary_def *sd = pcs_secondary_def_get(pu->secondary);
    pcs_feedwater_default(fd);
    fd->unit_name = sd->unit_name;
    fd->feed_t_rated_k = sd->feed_t_k;
    if (!PLANT_FEED_HEATER_LINE)
        fd->feed_t_no_load_k = sd->feed_t_k;
    fd->mfp_rated_kg_s *= sd->n_sg / 4.0;
    fd->mfp_runout_kg_s *= sd->n_sg / 4.0;
    fd->rated_steam_kg_s = sd->n_sg * sd->rated_steam_kg_s;
}

/* The feedwater plant (pcsim/feedwater.h) after sg_control, whose feed
 * command it limits. Its rated steam flow is the turbine flow the unit
 * settled at over its power fraction, so that at 100 % the heater train's
 * load is 1 and its temperature the feed_t_k the steam side settled with
 * (below 5 % power the secondary's rating: no flow to scale from). At part
 * power, with PLANT_FEED_HEATER_LINE, the feed temperature would move from
 * feed_t_k to the line over minutes after the start. */
static pcs_status build_feedwater(pcs_world *w, const pcs_plant_unit_def *c, pcs_plant_unit *pu)
{
    pcs_feedwater_def fd;
    feedwater_def(pu, &fd);
    const double *o = pcs_store_data(w, pcs_secondary_store_ids(pu->secondary).out);
    double f = c->core.initial_power_fraction;
    if (f >= 0.05)
        fd.rated_steam_kg_s = o[PCS_SECONDARY_OUT_TURBINE_FLOW] / f;
    return pcs_feedwater_add(w, &fd, pu->secondary, pu->sg_control, &pu->feedwater);
}

/* The MSIV actuation of steam-side unit @p pu (pcsim/interlock.h): the only
 * writer of its MSIV store, closing them on the interlocks' MSLI. */
static pcs_status build_msiv(pcs_world *w, pcs_plant_unit *pu)
{
    pcs_interlock_def d;
    pcs_interlock_default(&d);
    char name[16];
    snprintf(name, sizeof name, "u%u", pu->index);
    d.unit_name = name;
    d.n_sg = pcs_secondary_def_get(pu->secondary)->n_sg;
    return pcs_msiv_add(w, &d, pcs_secondary_store_ids(pu->secondary).msiv, &pu->msiv);
}

/* The primary of unit @p pu, settled at the unit's initial power, or given
 * the state of @p twin (an earlier unit that settles identically). */
static pcs_status build_primary(pcs_world *w, const pcs_plant_unit_def *c,
                                const pcs_water_ph_table *table, const pcs_plant_unit *twin,
                                pcs_plant_unit *pu)
{
    pcs_primary_def d = c->primary;
    if (c->sg_model == PCS_PLANT_SG_STEAM_SIDE) {
        pcs_status sst = build_secondary(w, c, table, pu, &d);
        if (sst != PCS_OK)
            return sst;
    }
    char name[16];
    snprintf(name, sizeof name, "u%u", pu->index);
    d.unit_name = name;
    d.unit_index = pu->index - 1;
    d.rated_power_w = c->core.nominal_power_w;
    d.boron_ppm = c->core.boron_ppm; /* the coolant carries the unit's boron */
    if (!d.table)
        d.table = table;
    pcs_status st = pcs_primary_add(w, &d, &pu->primary);
    if (st == PCS_OK && twin) { /* settles to the same state: take it */
        st = pcs_primary_copy_steady(w, pu->primary, twin->primary);
        pu->init = twin->init;
    } else if (st == PCS_OK) {
        st = pcs_primary_init_steady(w, pu->primary, c->core.initial_power_fraction, &pu->init);
    }
    pu->rated_loop_flow_kg_s = pu->init.loop_flow_kg_s;
    if (st == PCS_OK && pu->secondary)
        st = settle_secondary(w, pu, twin, c->core.initial_power_fraction);
    if (st == PCS_OK && pu->secondary)
        st = build_feedwater(w, c, pu);
    if (st == PCS_OK && pu->secondary)
        st = build_msiv(w, pu);
    return st;
}

static pcs_status bind_couple(pcs_world *w, const pcs_plant_unit_def *c, pcs_plant_unit *pu,
                              plant_couple *cp)
{
    pcs_primary_stores ps = pcs_primary_store_ids(pu->primary);
    uint32_t tf, tc, tm, boron;
    pcs_status st = pcs_unit_temperature_stores(pu->core, &tf, &tc, &tm);
    if (st == PCS_OK)
        st = pcs_unit_boron_store(pu->core, &boron);
    if (st != PCS_OK)
        return st;
    cp->unit_boron = pcs_store_data(w, boron);
    cp->boron_out = PCS_PRIMARY_OUT_TAIL(c->primary.n_loops) + PCS_PRIMARY_OUT_CORE_BORON;
    cp->pri_out = pcs_store_data(w, ps.out);
    cp->pri_heat = pcs_store_data(w, ps.core_heat);
    cp->fuel_out = pcs_store_data(w, pu->fuel.store_out);
    cp->fuel_t_in = pcs_store_data(w, pu->fuel.store_t_inlet);
    cp->fuel_mdot = pcs_store_data(w, pu->fuel.store_mass_flow);
    cp->fuel_p = pcs_store_data(w, pu->fuel.store_pressure);
    cp->unit_t_fuel = pcs_store_data(w, tf);
    cp->unit_t_cool = pcs_store_data(w, tc);
    cp->unit_t_max = pcs_store_data(w, tm);
    cp->n_channels = c->fuel.n_channels;
    cp->n_core = c->primary.n_core;
    cp->n_axial = c->fuel.n_axial;
    cp->fuel_q = pcs_store_data(w, pu->fuel.store_q_axial);
    double rods = 0.0;
    for (uint32_t g = 0; g < cp->n_channels; g++)
        rods += c->fuel.n_rods[g];
    for (uint32_t g = 0; g < cp->n_channels; g++)
        cp->flow_share[g] = c->fuel.n_rods[g] / rods;
    uint32_t reads[] = {ps.out, pu->fuel.store_out, pu->fuel.store_q_axial};
    uint32_t writes[] = {pu->fuel.store_t_inlet,
                         pu->fuel.store_mass_flow,
                         pu->fuel.store_pressure,
                         ps.core_heat,
                         tf,
                         tc,
                         tm,
                         boron};
    char name[32];
    snprintf(name, sizeof name, "u%u.plant.couple", pu->index);
    pcs_system_desc d = {.name = name,
                         .stage = PCS_STAGE_MACHINES,
                         .fn = couple_system,
                         .ctx = cp,
                         .reads = reads,
                         .n_reads = 3,
                         .writes = writes,
                         .n_writes = 8};
    return pcs_system_register(w, &d, NULL);
}

/* Start steady: fuel at the settled boundary, kinetics balanced for it,
 * the primary's core heat split as the couple will split it. */
static pcs_status start_steady(pcs_world *w, pcs_plant_unit *pu, plant_couple *cp)
{
    couple_system(w, cp);
    uint32_t ps, pi;
    pcs_status st = pcs_unit_power_ref(pu->core, &ps, &pi);
    if (st != PCS_OK)
        return st;
    double power = ((const double *)pcs_store_data(w, ps))[pi];
    st = pcs_fuel_solve_steady(w, &pu->fuel, power);
    if (st == PCS_OK)
        st = pcs_unit_set_temperatures(w, pu->core, cp->fuel_out[PCS_FUEL_OUT_T_AVG],
                                       cp->fuel_out[PCS_FUEL_OUT_COOLANT_T_AVG],
                                       cp->fuel_out[PCS_FUEL_OUT_T_MAX]);
    if (st == PCS_OK)
        couple_system(w, cp);
    return st;
}

/* Does unit @p b's primary settle exactly as unit @p a's? The same primary
 * definition (but for the names the builder gives and the table, the same
 * one for both), rated power, boron and initial power: the settling is
 * deterministic, so its end state is too. Compared field by field through
 * normalised copies (the structs start zeroed by their _default). Two
 * steam-side units qualify as well: their steam sides are built from the
 * same primary fields and settle to the primary's state (copy_secondary). */
static int same_steady_state(const pcs_plant_unit_def *a, const pcs_plant_unit_def *b)
{
    pcs_primary_def x = a->primary, y = b->primary;
    x.unit_name = y.unit_name = NULL;
    x.unit_index = y.unit_index = 0;
    x.table = y.table = NULL;
    return memcmp(&x, &y, sizeof x) == 0 && a->sg_model == b->sg_model &&
           a->model == PCS_PLANT_MODEL_FULL && b->model == PCS_PLANT_MODEL_FULL &&
           (a->sg_model == PCS_PLANT_SG_BOUNDARY || a->sg_model == PCS_PLANT_SG_STEAM_SIDE) &&
           a->core.nominal_power_w == b->core.nominal_power_w &&
           a->core.boron_ppm == b->core.boron_ppm &&
           a->core.initial_power_fraction == b->core.initial_power_fraction;
}

static pcs_status build_unit(pcs_world *w, const pcs_plant_unit_def *cfg, uint32_t n,
                             const plant_tables *tables, const pcs_plant_unit *twin,
                             pcs_plant_unit *pu, plant_couple *cp)
{
    pcs_plant_unit_def c = *cfg;
    c.core.external_heat = 1;
    c.core.external_boron = 1;
    /* a steam-side unit's control banks take rod control's demand (rod_control.h) */
    c.core.auto_rods = c.sg_model == PCS_PLANT_SG_STEAM_SIDE;
    if (!c.fuel.props_fn) { /* real water unless the def brings its own properties */
        c.fuel.props_fn = pcs_coolant_props_water;
        c.fuel.props_ctx = tables->water;
    }
    pcs_status st = check_unit(&c, n);
    if (st != PCS_OK)
        return st;
    if (c.model == PCS_PLANT_MODEL_SUMMARY) /* the reduced model (plant_summary.c) */
        return plant_summary_build(w, cfg, n, pu);
    pu->index = n;
    pu->n_loops = c.primary.n_loops;
    st = pcs_unit_add(w, n, &c.core, &pu->core);
    uint32_t ps = 0, pi = 0;
    if (st == PCS_OK)
        st = pcs_unit_power_ref(pu->core, &ps, &pi);
    if (st == PCS_OK)
        st = pcs_fuel_add(w, n - 1, &c.fuel, ps, pi, &pu->fuel);
    if (st == PCS_OK)
        st = build_primary(w, &c, tables->ph, twin, pu);
    if (st == PCS_OK)
        st = bind_couple(w, &c, pu, cp);
    if (st == PCS_OK)
        st = start_steady(w, pu, cp);
    if (st == PCS_OK)
        st = plant_commands_register(w, pu);
    return st;
}

/* The plant and its per-unit arrays, n long, zeroed, from the world heap. */
static pcs_plant *plant_alloc(pcs_world *w, uint32_t n)
{
    pcs_plant *p = pcs_world_alloc(w, sizeof *p);
    if (!p)
        return NULL;
    p->units = pcs_world_alloc(w, n * sizeof *p->units);
    p->cfg = pcs_world_alloc(w, n * sizeof *p->cfg);
    p->couple = pcs_world_alloc(w, n * sizeof *p->couple);
    p->pzr_control = pcs_world_alloc(w, n * sizeof *p->pzr_control);
    p->rod_control = pcs_world_alloc(w, n * sizeof *p->rod_control);
    p->steam_dump = pcs_world_alloc(w, n * sizeof *p->steam_dump);
    p->interlock = pcs_world_alloc(w, n * sizeof *p->interlock);
    p->added = pcs_world_alloc(w, n * sizeof *p->added);
    int ok = p->units && p->cfg && p->couple && p->pzr_control && p->rod_control && p->steam_dump &&
             p->interlock && p->added;
    return ok ? p : NULL;
}

pcs_status pcs_plant_add(pcs_world *w, const pcs_plant_unit_def *units, uint32_t n_units,
                         pcs_plant **out)
{
    return pcs_plant_add_staged(w, units, n_units, n_units, out);
}

pcs_status pcs_plant_add_staged(pcs_world *w, const pcs_plant_unit_def *units, uint32_t n_units,
                                uint32_t n_start, pcs_plant **out)
{
    if (!w || !units || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_plant_add: NULL argument");
    if (n_units < 1 || n_units > PCS_PLANT_MAX_UNITS)
        return pcs_error_set(PCS_E_INVAL, "plant: n_units = %u is outside [1, %u]", n_units,
                             PCS_PLANT_MAX_UNITS);
    if (n_start < 1 || n_start > n_units)
        return pcs_error_set(PCS_E_INVAL,
                             "plant: n_start = %u is outside [1, %u] (the units built now, of "
                             "n_units)",
                             n_start, n_units);
    pcs_plant *p = plant_alloc(w, n_units);
    if (!p)
        return pcs_error_set(PCS_E_STATE, "pcs_plant_add: %s", pcs_last_error());
    plant_tables tables;
    pcs_status tst = make_tables(w, units, n_units, &tables);
    if (tst != PCS_OK)
        return tst;
    p->water = tables.water;
    p->ph = tables.ph;
    p->n_room = n_units;
    memcpy(p->cfg, units, n_units * sizeof *p->cfg); /* the later ones wait here */
    for (uint32_t i = 0; i < n_start; i++) {
        const pcs_plant_unit *twin = NULL;
        for (uint32_t k = 0; k < i && !twin; k++)
            if (same_steady_state(&units[k], &units[i]))
                twin = &p->units[k];
        pcs_status st = build_unit(w, &units[i], i + 1, &tables, twin, &p->units[i], &p->couple[i]);
        if (st != PCS_OK)
            return pcs_error_set(st, "plant unit %u: %s", i + 1, pcs_last_error());
        p->n_units = i + 1;
    }
    p->n_start = n_start;
    *out = p;
    return PCS_OK;
}

/*
 * Unit n_units + 1 from the definition pcs_plant_add_staged kept. Its
 * steady state is settled here as at the start (never copied from a twin:
 * a running twin is not at its build state any more), its systems join the
 * run order at the commit, and, when the plant is instrumented, it gets its
 * own instrumentation (plant_instrument_added).
 */
pcs_status pcs_plant_unit_add(pcs_world *w, pcs_plant *p)
{
    if (!w || !p)
        return pcs_error_set(PCS_E_INVAL, "pcs_plant_unit_add: NULL argument");
    if (p->n_units >= p->n_room)
        return pcs_error_set(PCS_E_STATE,
                             "pcs_plant_unit_add: every unit is built (%u of %u: "
                             "pcs_plant_add_staged kept no more)",
                             p->n_units, p->n_room);
    uint32_t u = p->n_units;
    plant_tables tables = {.water = p->water, .ph = p->ph};
    pcs_status st = build_unit(w, &p->cfg[u], u + 1, &tables, NULL, &p->units[u], &p->couple[u]);
    if (st != PCS_OK)
        return pcs_error_set(st, "plant unit %u: %s", u + 1, pcs_last_error());
    p->n_units = u + 1;
    if (p->instrumented)
        st = plant_instrument_added(w, p, u);
    return st == PCS_OK ? st : pcs_error_set(st, "plant unit %u: %s", u + 1, pcs_last_error());
}

uint32_t pcs_plant_unit_room(const pcs_plant *p)
{
    return p ? p->n_room : 0;
}

uint32_t pcs_plant_unit_count(const pcs_plant *p)
{
    return p ? p->n_units : 0;
}

const pcs_plant_unit *pcs_plant_unit_get(const pcs_plant *p, uint32_t i)
{
    return (p && i < p->n_units) ? &p->units[i] : NULL;
}
