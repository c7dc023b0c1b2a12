/**
 * @file sg_control.c
 * @brief The feedwater controller's build (pcsim/sg_control.h):
 *        definition, stores and their start from the settled steam side,
 *        the two systems, channels, the command target and the load
 *        check.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/clock.h"
#include "pcsim/math.h"
#include "pcsim/param_range.h"
#include "pcsim/persist.h"
#include "pcsim/system.h"
#include "physics/control/models/control_common.h"
#include "physics/control/models/control_input.h"
#include "physics/control/models/sg_control_internal.h"
#include "physics/thermohydraulics/models/th_register.h"

static const pcs_sg_control_def sg_control_defaults = {
    .nr_program = 44.0,
    .nr_program_no_load = 33.0,
    .nr_program_break_frac = 0.20,
    .level_gain_kg_s_pct = 10.0,
    .level_reset_s = 120.0,
    .level_lag_s = 5.0,
    .flow_lag_s = 2.0,
    .feed_max_kg_s = 720.6,
    .power = {UINT32_MAX, 0, PCS_PZR_CONTROL_NO_STATUS, 0},
    .rated_power_w = 3.411e9,
    .bypass_power_frac = 0.20,
    .bypass_gain_kg_s_pct = 10.0 * 120.1 / 720.6, /* K_L W_byp / feed_max (header) */
    .bypass_max_kg_s = 120.1,
};

pcs_status pcs_sg_control_default(pcs_sg_control_def *d)
{
    return pcs_control_default("pcs_sg_control_default", d, &sg_control_defaults, sizeof *d);
}

double pcs_sg_control_program(const pcs_sg_control_def *d, double power_frac)
{
    if (!d)
        return NAN;
    if (!isfinite(power_frac))
        return d->nr_program;
    double f = power_frac / d->nr_program_break_frac;
    f = f < 0.0 ? 0.0 : (f > 1.0 ? 1.0 : f);
    return d->nr_program_no_load + (d->nr_program - d->nr_program_no_load) * f;
}

static pcs_status check_def(const pcs_world *w, const pcs_sg_control_def *d)
{
    const pcs_param_range r[] = {
        {"nr_program", d->nr_program, 5.0, 95.0, 0},
        {"nr_program_no_load", d->nr_program_no_load, 5.0, 95.0, 0},
        {"nr_program_break_frac", d->nr_program_break_frac, 0.0, 1.0, 1},
        {"level_gain_kg_s_pct", d->level_gain_kg_s_pct, 0.0, 1000.0, 1},
        {"level_reset_s", d->level_reset_s, 1.0, 1e5, 0},
        {"level_lag_s", d->level_lag_s, 0.05, 100.0, 0},
        {"flow_lag_s", d->flow_lag_s, 0.05, 100.0, 0},
        {"feed_max_kg_s", d->feed_max_kg_s, 0.0, 5000.0, 1},
        {"rated_power_w", d->rated_power_w, 1e6, 1e11, 0},
        {"bypass_power_frac", d->bypass_power_frac, 0.0, 1.0, 0},
        {"bypass_gain_kg_s_pct", d->bypass_gain_kg_s_pct, 0.0, 1000.0, 1},
        {"bypass_max_kg_s", d->bypass_max_kg_s, 0.0, d->feed_max_kg_s, 1},
    };
    pcs_status st = pcs_control_def_check("sg_control", d->unit_name, r, sizeof r / sizeof r[0]);
    if (st == PCS_OK && d->power.store != UINT32_MAX)
        st = pcs_control_input_check(w, "sg_control", "power", &d->power);
    return st;
}

/* ---- load check ------------------------------------------------------------- */

/* The mode flag is 0 (main valves) or 1 (bypass valves), nothing between
 * (the commands move it either way, with or without a power input). */
static pcs_status bypass_flag_check(const char *name, const double *s, size_t e)
{
    if (s[e] == 0.0 || s[e] == 1.0)
        return PCS_OK;
    return pcs_error_set(PCS_E_CORRUPT,
                         "store '%s' element %zu (bypass valves flag): value %.17g is not 0 or 1",
                         name, e, s[e]);
}

static pcs_status sgc_load_check(const pcs_world *w, const pcs_load_view *v, void *ctx)
{
    const pcs_sg_control *sc = ctx;
    const pcs_sg_control_def *d = &sc->def;
    const char *name = pcs_store_name(w, sc->base.id_state);
    const double *s = pcs_load_view_store(v, sc->base.id_state);
    /* element by element: pcs_load_check_f64_from strides from element 0,
       so a per-SG field (offset within a block) is checked one index at a
       time, each named by its own store index */
    pcs_status st = PCS_OK;
    for (uint32_t l = 0; st == PCS_OK && l < sc->base.n_sg; l++) {
        size_t e = PCS_SG_CONTROL_ST_SG + (size_t)PCS_SG_CONTROL_ST_PER_SG * l;
        st = pcs_load_check_f64_from(name, "level integral kg/s", s, e + PCS_SG_CONTROL_ST_INTEGRAL,
                                     1, 1, -d->feed_max_kg_s, d->feed_max_kg_s, 0);
        if (st == PCS_OK)
            st = pcs_load_check_f64_from(name, "feed command kg/s", s, e + PCS_SG_CONTROL_ST_FEED,
                                         1, 1, 0.0, d->feed_max_kg_s, 0);
        if (st == PCS_OK) /* the lag of a measured level: the measured values' bounds */
            st = pcs_load_check_f64_from(name, "lagged NR level %", s,
                                         e + PCS_SG_CONTROL_ST_LEVEL_LAG, 1, 1, -1e4, 1e5, 0);
        if (st == PCS_OK)
            st = bypass_flag_check(name, s, e + PCS_SG_CONTROL_ST_BYPASS);
    }
    if (st == PCS_OK)
        st = pcs_load_check_f64(pcs_store_name(w, sc->id_feed_limit), "feed limit kg/s",
                                pcs_load_view_store(v, sc->id_feed_limit), sc->base.n_sg, 1, 0.0,
                                1e5, 0);
    if (st == PCS_OK) {
        const char *mn = pcs_store_name(w, sc->id_meas);
        const double *m = pcs_load_view_store(v, sc->id_meas);
        st = pcs_load_check_f64(mn, "measured NR level, steam and feed flow, power", m,
                                PCS_SG_CONTROL_MEAS_PER_SG * sc->base.n_sg, 1, -1e4, 1e5, 0);
    }
    return st;
}

/* ---- registration --------------------------------------------------------------- */

/* The feed limit input, at feed_max_kg_s until a feedwater model writes it. */
static pcs_status make_feed_limit(pcs_world *w, pcs_sg_control *sc)
{
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.sgctl.feed_limit", sc->base.unit);
    pcs_status st = pcs_store_register(w, name, sizeof(double), sc->base.n_sg, PCS_STORE_STATE_F64,
                                       &sc->id_feed_limit);
    double *lim = st == PCS_OK ? pcs_store_data(w, sc->id_feed_limit) : NULL;
    for (uint32_t l = 0; lim && l < sc->base.n_sg; l++)
        lim[l] = sc->def.feed_max_kg_s;
    return st;
}

/* Start from the secondary as it is now (header). */
static pcs_status make_stores(pcs_world *w, void *ctl)
{
    pcs_sg_control *sc = ctl;
    double *s;
    pcs_status st = pcs_control_state(
        w, &sc->base, PCS_SG_CONTROL_ST_SG + PCS_SG_CONTROL_ST_PER_SG * sc->base.n_sg, &s);
    char name[PCS_NAME_MAX];
    snprintf(name, sizeof name, "%s.sgctl.meas", sc->base.unit);
    if (st == PCS_OK)
        st = pcs_store_register(w, name, sizeof(double), PCS_SG_CONTROL_MEAS_PER_SG * sc->base.n_sg,
                                PCS_STORE_STATE_F64, &sc->id_meas);
    if (st == PCS_OK)
        st = make_feed_limit(w, sc);
    if (st != PCS_OK)
        return st;
    const double *feed = pcs_store_data(w, sc->sec.feed);
    double *m = pcs_store_data(w, sc->id_meas);
    pcs_sgc_measure(w, sc);
    for (uint32_t l = 0; l < sc->base.n_sg; l++) {
        double *sl = s + PCS_SG_CONTROL_ST_SG + PCS_SG_CONTROL_ST_PER_SG * l;
        const double *ml = m + PCS_SG_CONTROL_MEAS_PER_SG * l;
        sl[PCS_SG_CONTROL_ST_FEED] = feed[l];
        sl[PCS_SG_CONTROL_ST_LEVEL_LAG] = ml[PCS_SG_CONTROL_MEAS_NR];
        sl[PCS_SG_CONTROL_ST_BYPASS] =
            sc->has_power && ml[PCS_SG_CONTROL_MEAS_POWER] < sc->def.bypass_power_frac;
        pcs_sgc_bumpless(sc, ml, sc->def.feed_max_kg_s, sl); /* the limit starts at it */
    }
    return PCS_OK;
}

static pcs_status register_systems(pcs_world *w, void *ctl)
{
    pcs_sg_control *sc = ctl;
    const pcs_pzr_control_input *pw = &sc->def.power;
    uint32_t m_reads[3] = {sc->sec.out, pw->store, pw->status_store}, m_writes[] = {sc->id_meas};
    uint32_t n_reads = !sc->has_power ? 1 : (pw->status_store == PCS_PZR_CONTROL_NO_STATUS ? 2 : 3);
    pcs_status st = pcs_th_system(w, sc->base.unit, "sgctl.measure", PCS_STAGE_SENSORS,
                                  pcs_sgc_measure, sc, m_reads, n_reads, m_writes, 1, NULL);
    uint32_t reads[] = {sc->id_meas, sc->id_feed_limit},
             writes[] = {sc->base.id_state, sc->sec.feed};
    if (st == PCS_OK)
        st = pcs_th_system(w, sc->base.unit, "sgctl", PCS_STAGE_ACTUATORS, pcs_sgc_system, sc,
                           reads, 2, writes, 2, sgc_load_check);
    return st;
}

static pcs_status register_channels(pcs_world *w, void *ctl)
{
    static const pcs_th_channel_row rows[] = {{"feed_demand", "kg/s", PCS_SG_CONTROL_ST_FEED},
                                              {"level_lagged", "%", PCS_SG_CONTROL_ST_LEVEL_LAG},
                                              {"feed_bypass", "", PCS_SG_CONTROL_ST_BYPASS}};
    return pcs_control_sg_channels(w, ctl, PCS_SG_CONTROL_ST_SG, PCS_SG_CONTROL_ST_PER_SG, rows,
                                   sizeof rows / sizeof rows[0]);
}

static const pcs_control_kind sgc_kind = {
    "sg_control",
    "sgctl",
    {PCS_SG_CONTROL_COMMANDS, PCS_SG_CONTROL_OP_COUNT, pcs_sgc_on_command, "sgctl", NULL},
    {make_stores, register_systems, register_channels, pcs_control_targets}};

pcs_status pcs_sg_control_add(pcs_world *w, const pcs_sg_control_def *def, pcs_secondary *sec,
                              pcs_sg_control **out)
{
    if (!w || !def || !sec || !out)
        return pcs_error_set(PCS_E_INVAL, "pcs_sg_control_add: NULL argument");
    pcs_status st = check_def(w, def);
    pcs_sg_control *sc = pcs_control_new(w, &st, &sgc_kind, sizeof *sc, def->unit_name);
    if (!sc)
        return st;
    sc->def = *def;
    sc->def.unit_name = sc->base.unit;
    sc->has_power = def->power.store != UINT32_MAX;
    sc->base.n_sg = pcs_secondary_def_get(sec)->n_sg;
    sc->sec = pcs_secondary_store_ids(sec);
    /* exact first-order lags: stable and monotone at any dt / T */
    sc->a_level = -pcs_expm1(-sc->base.dt_s / def->level_lag_s);
    sc->a_flow = -pcs_expm1(-sc->base.dt_s / def->flow_lag_s);
    return pcs_control_finish(w, st, &sc->base, out);
}

uint32_t pcs_sg_control_state_store(const pcs_sg_control *sc)
{
    return sc ? sc->base.id_state : UINT32_MAX;
}

uint32_t pcs_sg_control_feed_limit_store(const pcs_sg_control *sc)
{
    return sc ? sc->id_feed_limit : UINT32_MAX;
}
