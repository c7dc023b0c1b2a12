/**
 * @file test_transients.c
 * @brief Issue 15's transient checks on a full steam-side station (turbine,
 *        rod control, steam dumps, feedwater, interlocks and MSIVs): the
 *        design load maneuvers, the turbine trip with and without reactor
 *        trip and the loss of normal feedwater. One station build per Test;
 *        each transient runs in a forked copy (tests/fork_child.h) for only
 *        as long as its check needs.
 *
 * Every assertion cites its row of refdata/pwr_transients.md; where a row
 * says "not found" only the direction is asserted. The measured values are
 * printed (cr_log_info) and recorded in the comments.
 *
 * Under ASan the runs keep their full length (every check needs it, and
 * the file's two tests take about 20 s of CPU there, 6 s in release).
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pcsim/channel.h"
#include "pcsim/plant.h"
#include "pcsim/protection.h"
#include "pcsim/station.h"
#include "pcsim/steam_dump.h"
#include "pcsim/system.h"
#include "pcsim/world.h"
#include "tests/fork_child.h"

#define DT 0.05
#define F_TO_K(f) (((f)-32.0) / 1.8 + 273.15)
#define DF(k) ((k)*1.8) /* a temperature difference, K to F */
#define PSIG_PA(p) ((p)*6894.757 + 101325.0)

/* refdata/pwr_transients.md section 1 and 2 */
#define T_NO_LOAD_F 557.0     /* [HRTD] 10.3, 11.2, 19.0 */
#define T_SPAN_F 27.7         /* Tref = 557 + 27.7 f F, [HRTD] 8.1, 11.2 */
#define P12_F 553.0           /* [HRTD] 11.2 */
#define PORV_PA PSIG_PA(2335) /* [HRTD] 10.2 */
#define SI_PA PSIG_PA(1807)   /* [HRTD] 12.3 */
/* [HRTD] 5.7: 2 x 440 + 880 gpm, at the feedwater model's AFW density
 * (993.0 kg/m3, pcsim/feedwater.h): 1760 gpm = 110.26 kg/s */
#define AFW_RATED_KG_S (1760.0 * 6.30901964e-5 * 993.0)

static const char scn_100[] = "{\"schema\": 1, \"world\": {\"dt_s\": 0.05, \"workers\": 0, "
                              "\"k_slow\": 1}, \"units\": [{\"name\": \"u1\", "
                              "\"sg_model\": \"steam_side\"}]}";
static const char scn_45[] = "{\"schema\": 1, \"world\": {\"dt_s\": 0.05, \"workers\": 0, "
                             "\"k_slow\": 1}, \"units\": [{\"name\": \"u1\", "
                             "\"sg_model\": \"steam_side\", \"initial_power_fraction\": 0.45}]}";

typedef struct rig {
    pcs_scenario *scn;
    pcs_world *w;
    pcs_station *st;
    pcs_protection *prot;
} rig;

static void rig_open(rig *r, const char *json)
{
    cr_assert_eq(pcs_scenario_load_string("t.json", json, strlen(json), NULL, &r->scn), PCS_OK,
                 "%s", pcs_last_error());
    pcs_world_def d = pcs_scenario_world_def(r->scn);
    cr_assert_eq(pcs_world_create(&d, &r->w), PCS_OK);
    cr_assert_eq(pcs_station_add(r->w, r->scn, &r->st), PCS_OK, "%s", pcs_last_error());
    r->prot = pcs_plant_protection(pcs_station_plant(r->st));
    for (int k = 0; k < 20; k++)
        cr_assert_eq(pcs_world_tick(r->w), PCS_OK, "%s", pcs_last_error());
}

static void rig_close(rig *r)
{
    pcs_station_destroy(r->st);
    pcs_world_destroy(r->w);
    pcs_scenario_destroy(r->scn);
}

/* What a child measures; copied into fork_child_out.msg (512 bytes). */
typedef struct meas {
    double trip_s;                         /* first reactor trip, s after the event (-1: none) */
    double dev_max_f;                      /* largest Tavg - Tref, F */
    double dev_min_f;                      /* smallest Tavg - Tref, F */
    double dev_late_max_f, dev_late_min_f; /* the same over the settling window */
    double tavg_min_k, tavg_end_k, tavg_late_max_k, tavg_late_min_k;
    double p12_max, si_max, porv_max, sg_safety_max;
    double fw_iso_s;    /* feedwater isolation, s (-1: none) */
    double afw_start_s; /* AFW start signal, s (-1: none) */
    double afw_rated_s; /* AFW total at rated, s (-1: never) */
    double afw_max;     /* kg/s */
    double pzr_p_max, pzr_p_min, pzr_l_min, pzr_l_max;
    double nr0, nr_min30, nr_max30; /* mean NR level of the 4 SGs: before, min/max in 30 s */
    double nr_trip;                 /* at the trip, the lowest SG's NR level, % */
    double nr_rate;                 /* its rate of change over the tick before, %/s */
    double nr_prev;                 /* (the lowest SG's NR level of the previous tick) */
    double tavg0_k;                 /* Tavg at the event */
    double load_end, tref_end_k, dump_ctl_end, msiv_min, power_end;
    double si_s, msli_s;           /* first SI / MSLI, s (-1: none) */
    double msiv_shut_s;            /* every MSIV shut, s (-1: not) */
    double break_max;              /* SG 1's break flow, kg/s */
    double restrictor_max;         /* SG 1's restrictor (steam) flow, kg/s */
    double tavg_msli_k, p_msli_pa; /* Tavg and the lowest SG pressure at MSLI */
    double sg_porv_max, sg_p_max;  /* SG PORVs' total flow kg/s; highest SG pressure Pa */
    char first_out[64];
} meas;

typedef struct ids {
    uint32_t brk, steam1, msli;
    /* the governor's load demand: a change of at most 10 % from it is a step
     * (pcsim/turbine.h); the first-stage load wanders around it by 1e-7, so
     * a target 0.10 below the load may be a ramp */
    uint32_t demand;
    uint32_t power, tavg, tref, p12, si, fw_iso, afw_start, afw, pzr_p, pzr_l, load, dump_ctl;
    uint32_t nr[4], safety[4], msiv[4], sgp[4], porv[4];
    const double *pzr;
} ids;

static uint32_t ch(pcs_world *w, const char *name)
{
    uint32_t id = UINT32_MAX;
    pcs_channel_find(w, name, &id);
    return id;
}

static double val(pcs_world *w, uint32_t id)
{
    return id == UINT32_MAX ? NAN : pcs_channel_value(w, id);
}

static void ids_find(pcs_world *w, ids *c)
{
    c->power = ch(w, "u1.core.relative_power");
    c->demand = ch(w, "u1.turbine.load_demand");
    c->brk = ch(w, "u1.sg1.break_flow");
    c->steam1 = ch(w, "u1.sg1.steam_flow");
    c->msli = ch(w, "u1.interlock.msli");
    c->tavg = ch(w, "u1.rcs.t_avg");
    c->tref = ch(w, "u1.rodctl.t_ref");
    c->p12 = ch(w, "u1.interlock.p12");
    c->si = ch(w, "u1.interlock.si");
    c->fw_iso = ch(w, "u1.interlock.fw_isolation");
    c->afw_start = ch(w, "u1.interlock.afw_start");
    c->afw = ch(w, "u1.afw.flow");
    c->pzr_p = ch(w, "u1.pzr.pressure");
    c->pzr_l = ch(w, "u1.pzr.level");
    c->load = ch(w, "u1.turbine.load");
    c->dump_ctl = ch(w, "u1.dumpctl.controller");
    for (int k = 0; k < 4; k++) {
        char n[48];
        snprintf(n, sizeof n, "u1.sg%d.nr_level", k + 1);
        c->nr[k] = ch(w, n);
        snprintf(n, sizeof n, "u1.sg%d.safety_flow", k + 1);
        c->safety[k] = ch(w, n);
        snprintf(n, sizeof n, "u1.sg%d.msiv", k + 1);
        c->msiv[k] = ch(w, n);
        snprintf(n, sizeof n, "u1.sg%d.pressure", k + 1);
        c->sgp[k] = ch(w, n);
        snprintf(n, sizeof n, "u1.sg%d.porv_flow", k + 1);
        c->porv[k] = ch(w, n);
    }
    uint32_t s = 0;
    c->pzr = pcs_store_find(w, "u1.pri.pzr", &s) == PCS_OK ? pcs_store_data(w, s) : NULL;
}

static double nr_mean(pcs_world *w, const ids *c)
{
    double m = 0.0;
    for (int k = 0; k < 4; k++)
        m += val(w, c->nr[k]) / 4.0;
    return m;
}

static void meas_start(pcs_world *w, const ids *c, meas *m)
{
    memset(m, 0, sizeof *m);
    m->trip_s = m->fw_iso_s = m->afw_start_s = m->afw_rated_s = -1.0;
    m->si_s = m->msli_s = m->msiv_shut_s = -1.0;
    m->dev_max_f = -1e9;
    m->dev_min_f = 1e9;
    m->dev_late_max_f = -1e9;
    m->dev_late_min_f = 1e9;
    m->tavg_min_k = m->pzr_p_min = m->pzr_l_min = m->nr_min30 = m->msiv_min = 1e9;
    m->pzr_p_max = m->pzr_l_max = m->nr_max30 = -1e9;
    m->tavg_late_max_k = -1e9;
    m->tavg_late_min_k = 1e9;
    m->nr0 = nr_mean(w, c);
    m->tavg0_k = val(w, c->tavg);
    m->nr_prev = 1e9;
    for (int k = 0; k < 4; k++)
        m->nr_prev = fmin(m->nr_prev, val(w, c->nr[k]));
    snprintf(m->first_out, sizeof m->first_out, "none");
}

/* One tick's worth of bookkeeping at time @p t s after the event; @p late
 * marks the settling window at the run's end. */
static void meas_tick(rig *r, const ids *c, meas *m, double t, int late)
{
    pcs_world *w = r->w;
    double tavg = val(w, c->tavg), tref = val(w, c->tref);
    double dev = DF(tavg - tref);
    m->dev_max_f = fmax(m->dev_max_f, dev);
    m->dev_min_f = fmin(m->dev_min_f, dev);
    m->tavg_min_k = fmin(m->tavg_min_k, tavg);
    m->tavg_end_k = tavg;
    if (late) {
        m->dev_late_max_f = fmax(m->dev_late_max_f, dev);
        m->dev_late_min_f = fmin(m->dev_late_min_f, dev);
        m->tavg_late_max_k = fmax(m->tavg_late_max_k, tavg);
        m->tavg_late_min_k = fmin(m->tavg_late_min_k, tavg);
    }
    m->p12_max = fmax(m->p12_max, val(w, c->p12));
    m->si_max = fmax(m->si_max, val(w, c->si));
    if (c->pzr)
        m->porv_max = fmax(m->porv_max, c->pzr[7]); /* porv_open (pcsim/primary.h) */
    double sf = 0.0, nr_lo = 1e9;
    for (int k = 0; k < 4; k++) {
        sf += val(w, c->safety[k]);
        nr_lo = fmin(nr_lo, val(w, c->nr[k]));
        m->msiv_min = fmin(m->msiv_min, val(w, c->msiv[k]));
    }
    m->sg_safety_max = fmax(m->sg_safety_max, sf);
    double pf = 0.0;
    for (int k = 0; k < 4; k++) {
        pf += val(w, c->porv[k]);
        m->sg_p_max = fmax(m->sg_p_max, val(w, c->sgp[k]));
    }
    m->sg_porv_max = fmax(m->sg_porv_max, pf);
    double shut = 0.0;
    for (int k = 0; k < 4; k++)
        shut = fmax(shut, val(w, c->msiv[k]));
    if (m->msiv_shut_s < 0.0 && shut == 0.0)
        m->msiv_shut_s = t;
    if (m->si_s < 0.0 && val(w, c->si) != 0.0)
        m->si_s = t;
    if (m->msli_s < 0.0 && val(w, c->msli) != 0.0) {
        m->msli_s = t;
        m->tavg_msli_k = tavg;
        m->p_msli_pa = 1e99;
        for (int k = 0; k < 4; k++)
            m->p_msli_pa = fmin(m->p_msli_pa, val(w, c->sgp[k]));
    }
    m->break_max = fmax(m->break_max, val(w, c->brk));
    m->restrictor_max = fmax(m->restrictor_max, val(w, c->steam1));
    if (m->fw_iso_s < 0.0 && val(w, c->fw_iso) != 0.0)
        m->fw_iso_s = t;
    if (m->afw_start_s < 0.0 && val(w, c->afw_start) != 0.0)
        m->afw_start_s = t;
    double afw = val(w, c->afw);
    m->afw_max = fmax(m->afw_max, afw);
    if (m->afw_rated_s < 0.0 && afw >= 0.99 * AFW_RATED_KG_S)
        m->afw_rated_s = t;
    double pp = val(w, c->pzr_p), pl = val(w, c->pzr_l);
    m->pzr_p_max = fmax(m->pzr_p_max, pp);
    m->pzr_p_min = fmin(m->pzr_p_min, pp);
    m->pzr_l_max = fmax(m->pzr_l_max, pl);
    m->pzr_l_min = fmin(m->pzr_l_min, pl);
    if (t <= 30.0) {
        double nr = nr_mean(w, c);
        m->nr_min30 = fmin(m->nr_min30, nr);
        m->nr_max30 = fmax(m->nr_max30, nr);
    }
    if (m->trip_s < 0.0 && pcs_protection_tripped(r->prot, 0)) {
        m->trip_s = t;
        m->nr_trip = nr_lo;
        m->nr_rate = (nr_lo - m->nr_prev) / DT;
        uint32_t f = pcs_protection_first_out(r->prot, 0);
        if (f != PCS_PROTECTION_TRIP_NONE)
            snprintf(m->first_out, sizeof m->first_out, "%s",
                     pcs_protection_function_name(r->prot, f));
    }
    m->nr_prev = nr_lo;
    m->load_end = val(w, c->load);
    m->tref_end_k = tref;
    m->dump_ctl_end = val(w, c->dump_ctl);
    m->power_end = val(w, c->power);
}

/* Submit station command @p name on u1 with @p value (no Criterion: a child). */
static pcs_status command(rig *r, const char *name, double value)
{
    pcs_command c;
    pcs_status st = pcs_station_command(r->st, "u1", name, value, &c);
    return st == PCS_OK ? pcs_command_submit(r->w, &c) : st;
}

/* Run @p seconds after the event, the last @p late_s as the settling window. */
static pcs_status run(rig *r, const ids *c, meas *m, double t0, double seconds, double late_s)
{
    int n = (int)lround(seconds / DT);
    for (int k = 1; k <= n; k++) {
        pcs_status st = pcs_world_tick(r->w);
        if (st != PCS_OK)
            return st;
        double t = t0 + k * DT;
        meas_tick(r, c, m, t, t > t0 + seconds - late_s);
    }
    return PCS_OK;
}

static void put(fork_child_out *out, const meas *m)
{
    _Static_assert(sizeof(meas) <= sizeof(out->msg), "meas fits the child's message");
    memcpy(out->msg, m, sizeof *m);
}

static meas get(const fork_child_out *o)
{
    meas m;
    memcpy(&m, o->msg, sizeof m);
    return m;
}

static void log_meas(const char *what, const meas *m)
{
    cr_log_info("%s: trip %.2f s (%s), Tavg-Tref %.2f..%.2f F (late %.2f..%.2f), Tavg min %.2f F "
                "end %.2f F "
                "late %.2f..%.2f F, P-12 %g, SI %g, PORV %g, SG safety %.3g kg/s, FW iso %.2f s, "
                "AFW start %.2f s rated %.2f s max %.2f kg/s, pzr p %.4f..%.4f MPa level "
                "%.2f..%.2f %%, NR %.2f -> %.2f..%.2f %% (30 s), NR at trip %.2f %% (%.2f %%/s), "
                "load %.3f, "
                "Tref %.2f F, dump controller %g, MSIV min %g, power %.4f, SI %.2f s, MSLI %.2f s "
                "(Tavg %.2f F, SG p min %.4f MPa), MSIVs shut %.2f s, "
                "break max %.1f kg/s, SG 1 restrictor max %.1f kg/s, SG PORV max %.3g kg/s, SG "
                "p max %.4f MPa",
                what, m->trip_s, m->first_out, m->dev_min_f, m->dev_max_f, m->dev_late_min_f,
                m->dev_late_max_f, DF(m->tavg_min_k - 273.15) + 32.0,
                DF(m->tavg_end_k - 273.15) + 32.0, DF(m->tavg_late_min_k - 273.15) + 32.0,
                DF(m->tavg_late_max_k - 273.15) + 32.0, m->p12_max, m->si_max, m->porv_max,
                m->sg_safety_max, m->fw_iso_s, m->afw_start_s, m->afw_rated_s, m->afw_max,
                m->pzr_p_min / 1e6, m->pzr_p_max / 1e6, m->pzr_l_min, m->pzr_l_max, m->nr0,
                m->nr_min30, m->nr_max30, m->nr_trip, m->nr_rate, m->load_end,
                DF(m->tref_end_k - 273.15) + 32.0, m->dump_ctl_end, m->msiv_min, m->power_end,
                m->si_s, m->msli_s, DF(m->tavg_msli_k - 273.15) + 32.0, m->p_msli_pa / 1e6,
                m->msiv_shut_s, m->break_max, m->restrictor_max, m->sg_porv_max, m->sg_p_max / 1e6);
}

/* ---- children ---------------------------------------------------------------- */

static void child_step_down(void *ctx, fork_child_out *out)
{
    rig *r = ctx;
    ids c;
    meas m;
    ids_find(r->w, &c);
    meas_start(r->w, &c, &m);
    out->st = command(r, "turbine_load", val(r->w, c.demand) - 0.10);
    if (out->st == PCS_OK)
        out->st = run(r, &c, &m, 0.0, 240.0, 30.0);
    put(out, &m);
}

static void child_ramp_down(void *ctx, fork_child_out *out)
{
    rig *r = ctx;
    ids c;
    meas m;
    ids_find(r->w, &c);
    meas_start(r->w, &c, &m);
    /* 15 % > the 10 % step: the governor ramps at 5 %/min, 180 s */
    out->st = command(r, "turbine_load", val(r->w, c.demand) - 0.15);
    if (out->st == PCS_OK)
        out->st = run(r, &c, &m, 0.0, 240.0, 30.0);
    put(out, &m);
}

/* 10 % down, settle, then the 10 % step up back to full load: the step up
 * is measured (a station built below full load has its rods near the top,
 * see from_45_percent). */
static void child_step_up(void *ctx, fork_child_out *out)
{
    rig *r = ctx;
    ids c;
    meas m;
    ids_find(r->w, &c);
    meas_start(r->w, &c, &m);
    double load0 = val(r->w, c.demand);
    out->st = command(r, "turbine_load", load0 - 0.10);
    if (out->st == PCS_OK)
        out->st = run(r, &c, &m, 0.0, 150.0, 1.0);
    meas_start(r->w, &c, &m);
    if (out->st == PCS_OK)
        out->st = command(r, "turbine_load", load0);
    if (out->st == PCS_OK)
        out->st = run(r, &c, &m, 0.0, 240.0, 30.0);
    put(out, &m);
}

static void child_turbine_trip(void *ctx, fork_child_out *out)
{
    rig *r = ctx;
    ids c;
    meas m;
    ids_find(r->w, &c);
    meas_start(r->w, &c, &m);
    out->st = command(r, "turbine_trip", 0.0);
    if (out->st == PCS_OK)
        out->st = run(r, &c, &m, 0.0, 300.0, 30.0);
    put(out, &m);
}

static void child_feed_loss(void *ctx, fork_child_out *out)
{
    rig *r = ctx;
    ids c;
    meas m;
    ids_find(r->w, &c);
    meas_start(r->w, &c, &m);
    out->st = command(r, "feed_pump_trip", 0.0); /* 0: every main feed pump */
    if (out->st == PCS_OK)
        out->st = run(r, &c, &m, 0.0, 200.0, 30.0);
    put(out, &m);
}

/* A small break (0.15 m2, 39 % of the line's bore) in SG 1's steam line,
 * upstream of its MSIV. (At 0.05 m2 the per-SG flows stay below the
 * post-trip high-steam-flow setpoint, 40 % = 192 kg/s: about 80 kg/s each
 * with the four SGs feeding the break through the header, so the
 * steam-line logic does not act and SI comes from pressurizer pressure
 * alone; its MSLI at 99 s before was the dome oscillation of
 * tests/test_secondary.c reading as high steam flow.) */
static void child_steam_line_break(void *ctx, fork_child_out *out)
{
    rig *r = ctx;
    ids c;
    meas m;
    ids_find(r->w, &c);
    meas_start(r->w, &c, &m);
    pcs_command cmd;
    out->st = pcs_station_command(r->st, "u1.sg1", "steam_line_break", 0.11, &cmd);
    if (out->st == PCS_OK)
        out->st = pcs_command_submit(r->w, &cmd);
    if (out->st == PCS_OK)
        out->st = run(r, &c, &m, 0.0, 110.0, 5.0);
    put(out, &m);
}

/* ---- tests ------------------------------------------------------------------- */

/* What every design maneuver keeps (pwr_transients.md section 1, "design
 * maneuvers without trip or relief lift", [HRTD] 8.1, [Salem] UFSAR 15.1;
 * section 2 "spray criterion: no PORV lift on a 10 % step load
 * reduction"): no reactor trip, no PORV (so no code safety) lift, no SG
 * safety or SG PORV lift (SG pressure peaks at 924.7 psig in
 * scenarios/load-step.json, far below the SG PORVs' 1125 psig), and Tavg
 * within +-5 F of its program. Tavg is the plant's
 * (u1.rcs.t_avg), the program the rod controller's Tref from the turbine's
 * first-stage load (u1.rodctl.t_ref = 557 + 27.7 f F, checked at the end
 * against the load). */
static void expect_maneuver(const char *what, const meas *m, int window_met)
{
    cr_expect_lt(m->trip_s, 0.0, "%s: no reactor trip (first out %s at %.2f s)", what, m->first_out,
                 m->trip_s);
    cr_expect_eq(m->porv_max, 0.0, "%s: the PORV stays shut", what);
    cr_expect_lt(m->pzr_p_max, PORV_PA, "%s: pressurizer %.4f MPa below the PORV's 16.20 MPa", what,
                 m->pzr_p_max / 1e6);
    cr_expect_eq(m->sg_safety_max, 0.0, "%s: no SG safety valve flow", what);
    cr_expect_eq(m->sg_porv_max, 0.0, "%s: no SG PORV (atmospheric relief) flow", what);
    if (window_met)
        cr_expect(m->dev_max_f <= 5.0 && m->dev_min_f >= -5.0,
                  "%s: Tavg - Tref %.2f..%.2f F, [HRTD] 8.1 window +-5 F", what, m->dev_min_f,
                  m->dev_max_f);
    cr_expect(m->dev_late_max_f <= 5.0 && m->dev_late_min_f >= -5.0,
              "%s: settled, Tavg - Tref %.2f..%.2f F over the last 30 s (+-5 F)", what,
              m->dev_late_min_f, m->dev_late_max_f);
    double tref_f = T_NO_LOAD_F + T_SPAN_F * m->load_end;
    cr_expect(fabs(DF(m->tref_end_k - 273.15) + 32.0 - tref_f) < 0.1,
              "%s: Tref %.3f F is the program at load %.4f (%.3f F)", what,
              DF(m->tref_end_k - 273.15) + 32.0, m->load_end, tref_f);
}

/*
 * Turbine trip from 100 % (reactor trip on P-9, dumps on the plant-trip
 * controller), pwr_transients.md section 3. Measured (release, 300 s,
 * with the primary's metal, pcsim/primary.h "Metal"): reactor trip 0.05 s
 * after the turbine trip (first out u1.rps.turbine_trip); feedwater
 * isolated at 13.25 s (P-4 and Tavg < 564 F); AFW start signal 9.05 s, AFW
 * at rated (110.27 kg/s) at 58.45 s; pressurizer level >= 28.86 %,
 * pressure >= 13.28 MPa; no SI, no MSLI, no SG safety valve flow, the
 * MSIVs stay open; Tavg falls from 584.7 F to a minimum of 551.96 F and is
 * back up to 555.88 F at 300 s (the dumps shut, decay heat above what the
 * AFW takes). Without the metal (the same build with metal_model
 * PCS_PRIMARY_METAL_NONE, water only): minimum 551.01 F, 555.0 F at 300 s.
 *
 * Before the dome's carry-under (pcsim/secondary.h, Separation) the level
 * leaving the narrow range dried the domes out tick by tick, the per-SG
 * steam flows swung -380..+280 kg/s, the steam-line SI and MSLI came on
 * at 21.55 s and the SG safety valves lifted (129 kg/s) behind the shut
 * MSIVs. That is gone; what is asserted below holds.
 *
 * NOT met: "P-12 (553 F) not reached": Tavg reaches 551.96 F, 1.04 F
 * below P-12 (548.11 F, 4.9 F below, when these notes were first written;
 * the later steam-side and control work brought it to 551.01 F, the
 * vessel structures and tube walls' heat capacity another 0.95 F: the
 * metal gives back heat as the water cools: 0.45 GJ/K in all (vessel
 * structures 0.35, tubes 0.10; test_primary_metal.c), of which only the
 * part the films and conduction reach in tens of seconds takes part,
 * against the water's 1.0 GJ/K). The energy the primary
 * loses to 30 s (numbers of the 548.11 F run) (core 27.2 GJ in, SGs
 * 47.7 GJ out, about 1.0 GJ per K of Tavg) goes to the dumps (13.9 t of
 * steam), to heating the main feed to saturation (28.5 t of feed at 493 K
 * until the isolation closes at 19 s, 8.7 GJ: the level controller feeds
 * up to 547 kg/s per SG against 150-290 kg/s of steam while the level
 * shrinks from 44 % to 3 % NR) and to the AFW (2.7 GJ). Two control
 * defects outside the steam side's hydraulics carry the undershoot
 * (measured by changing only that setting): the dump demand closes at its
 * 20 s modulating stroke (pcsim/steam_dump.h modulate_stroke_s, an
 * assumption), so the dumps still pass 0.23 of their capacity when Tavg
 * reaches no-load and another 1.5 t of steam after it (a 5 s stroke: min
 * 552.02 F); and the level controller's proportional term adds 12.3 t of
 * feed above the steam flow (without it: 550.15 F; both: 554.27 F).
 * Asserted for P-12: the bound that holds (measured less 3 F), a
 * regression guard.
 */
static void expect_turbine_trip_100(const meas *m)
{
    /* [HRTD] 12.2: the reactor trips with the turbine above P-9 */
    cr_expect(m->trip_s >= 0.0 && m->trip_s <= 0.2, "reactor trip %.2f s after the turbine's",
              m->trip_s);
    cr_expect_str_eq(m->first_out, "u1.rps.turbine_trip");
    /* [HRTD] 11.2: Tavg goes to the no-load value on the plant-trip
     * controller; settling time "not found": direction (down from full
     * load by more than half the program's span, and at the end back on
     * its way up to no-load from its minimum, not above it) */
    cr_expect_lt(m->tavg_end_k, m->tavg0_k - T_SPAN_F / 2 / 1.8,
                 "Tavg %.2f F -> %.2f F heads for no-load", DF(m->tavg0_k - 273.15) + 32.0,
                 DF(m->tavg_end_k - 273.15) + 32.0);
    cr_expect(m->tavg_end_k > m->tavg_min_k + 2.0 / 1.8 &&
                  m->tavg_late_max_k < F_TO_K(T_NO_LOAD_F + 1.0),
              "Tavg %.2f F at the end: back up from its minimum %.2f F towards no-load %.0f F",
              DF(m->tavg_end_k - 273.15) + 32.0, DF(m->tavg_min_k - 273.15) + 32.0, T_NO_LOAD_F);
    cr_expect_eq(m->dump_ctl_end, (double)PCS_STEAM_DUMP_CTL_PLANT_TRIP,
                 "the plant-trip controller acts");
    /* P-12 window not met (551.96 F, above): the bound that holds, as a
     * regression guard, is the measured minimum less 3 F */
    cr_expect_gt(m->tavg_min_k, F_TO_K(548.9), "Tavg min %.2f F (P-12 553 F: not met)",
                 DF(m->tavg_min_k - 273.15) + 32.0);
    /* [HRTD] 12.3: feedwater isolated (P-4 and low Tavg), AFW takes over;
     * [HRTD] 5.7: rated AFW within 1 min of the start signal */
    cr_expect_gt(m->fw_iso_s, 0.0, "feedwater isolated at %.2f s", m->fw_iso_s);
    cr_expect_geq(m->afw_start_s, 0.0, "AFW start signal at %.2f s", m->afw_start_s);
    cr_expect(m->afw_rated_s >= 0.0 && m->afw_rated_s - m->afw_start_s <= 60.0,
              "AFW at rated %.2f s after its start signal (%.2f .. %.2f s)",
              m->afw_rated_s - m->afw_start_s, m->afw_start_s, m->afw_rated_s);
    /* [HRTD] 10.3, 3.2; [Salem] 5.5.10.1.2: the pressurizer does not empty
     * and there is no SI: neither from pressurizer pressure (above 1807
     * psig) nor from the steam-line logic; a clean trip is no steam line
     * break, so no steam-line isolation either */
    cr_expect_gt(m->pzr_l_min, 0.0, "pressurizer level min %.2f %%", m->pzr_l_min);
    cr_expect_gt(m->pzr_p_min, SI_PA, "pressurizer pressure min %.4f MPa above the SI setpoint",
                 m->pzr_p_min / 1e6);
    cr_expect(m->si_s < 0.0 && m->si_max == 0.0, "no SI (SI at %.2f s)", m->si_s);
    cr_expect(m->msli_s < 0.0, "no steam-line isolation (MSLI at %.2f s)", m->msli_s);
}

/*
 * Loss of normal feedwater (both main feed pumps tripped at 100 %),
 * pwr_transients.md section 5 ([HRTD] 12.2, 5.7, 12.3). Measured (release,
 * 200 s, with the metal): AFW start signal 0.1 s (both MFPs tripped), AFW
 * at rated at 49.5 s; reactor trip at 25.50 s, first out
 * u1.rps.sg_low_low.2, the lowest SG's level then 9.45 % NR falling at
 * about 2.1 %/s (its channels lag 1 s, 0.2 % noise); pressurizer <= 15.95
 * MPa, level <= 63.95 %; Tavg min 555.58 F (554.79 F water only); no SI. The time to the
 * trip is "not found" for a 4-loop plant (Ginna's 55 s is another plant):
 * not asserted.
 */
static void expect_feed_loss(const meas *m)
{
    cr_expect_geq(m->trip_s, 0.0, "the reactor trips");
    cr_expect(strncmp(m->first_out, "u1.rps.sg_low_low.", 18) == 0, "first out %s", m->first_out);
    /* low-low 11.5 % NR, 2 of 3: not before the level is there (up to the
     * channels' noise, 3 sd = 0.6 %), and within the channels' 1 s lag at
     * the fall rate measured at the trip (plus 0.5 % for noise and the
     * tick of the logic) */
    double lag = fabs(m->nr_rate) * 1.0 + 0.5;
    cr_expect(m->nr_trip <= 11.5 + 0.6 && m->nr_trip >= 11.5 - lag,
              "lowest NR level %.2f %% at the trip (rate %.2f %%/s, window %.2f .. 12.1)",
              m->nr_trip, m->nr_rate, 11.5 - lag);
    cr_expect(m->afw_start_s >= 0.0 && m->afw_rated_s >= 0.0 &&
                  m->afw_rated_s - m->afw_start_s <= 60.0,
              "AFW at rated %.2f s after its start signal (%.2f s)",
              m->afw_rated_s - m->afw_start_s, m->afw_start_s);
    /* no water through the pressurizer safety valves ([HRTD] 5.7): here
     * neither the PORV nor the safeties lift, and the vessel never fills */
    cr_expect_lt(m->pzr_p_max, PORV_PA, "pressurizer max %.4f MPa", m->pzr_p_max / 1e6);
    cr_expect_eq(m->porv_max, 0.0, "PORV shut");
    cr_expect_lt(m->pzr_l_max, 100.0, "pressurizer level max %.2f %%", m->pzr_l_max);
}

/*
 * Turbine trip from 45 % (below P-9: no reactor trip), pwr_transients.md
 * section 6. The dumps take the loss-of-load controller (C-8 without P-4,
 * pcsim/steam_dump.h: Tavg - Tref with Tref at no-load, 5 F deadband) and
 * rod control goes on inserting below 15 % load (C-5 blocks withdrawal
 * only, pcsim/rod_control.h). Measured (release, 300 s after the trip):
 * no reactor trip; pressurizer <= 15.65 MPa (PORV shut), no SG safety or
 * SG PORV flow (SG pressure <= 1106.6 psig); Tavg - Tref up to 13.75 F,
 * Tavg 562.70..562.78 F over the last 30 s (dump controller 1, nuclear
 * power 45 % -> 5.6 %: the rods at 72 steps/min while Tavg - Tref is above
 * 5 F).
 *
 * Run on to 1820 s (scenarios/turbine-trip-45.json with --seconds 1820):
 * as the decay heat falls the SG pressure climbs to the SG PORVs' 1125
 * psig (pcsim/sg_porv.h, [HRTD] 7.1): they lift at 383-410 s (at most
 * 14.7 kg/s for the four, peak SG pressure 1127.7 psig, no safety valve
 * flow) while the dumps close, Tavg dips to 560.9 F, and from ~600 s the
 * dumps pass the decay and pump heat at a demand of 0.00-0.03 with the SG
 * pressure at 1119.8-1122.6 psig, below the PORVs' setpoint (after 600 s
 * they crack open, <= 0.44 kg/s, in 8 one-second samples). Tavg over
 * 900-1820 s: 561.98..562.34 F.
 *
 * The window "Tavg within no-load + 5 F" ([Salem] Steam Dumps: the
 * load-rejection controller holds 551 = 547 + 4-5 F; here 557 + 5 = 562 F)
 * is NOT met: by up to 0.34 F at equilibrium and 0.78 F at 300 s. The
 * loss-of-load controller opens the dumps only above its 5 F deadband
 * (proportional to 16.4 F, [HRTD] 11.2), so while the heat leaves through
 * them Tavg sits at no-load + 5 F + 11.4 F x the demand. The SG PORVs
 * cannot take that over: at their 1125 psig the dome's Tsat is 560.77 F
 * (IF97), and Tavg runs 1.9 F above the dome's Tsat at this heat (the
 * bundle's hydrostatic head and the tubes' film: measured 562.2 F against
 * 1121 psig = Tsat 560.33 F), so a PORV-held SG would put Tavg at ~562.7 F,
 * above the dumps' 562 F opening point: the dumps always act first.
 * Asserted: no reactor trip, the loss-of-load controller at the end, the
 * power falling (rods insert below 15 %), Tavg above no-load, no SG safety
 * flow, and the bound that holds (no-load + 6 F, a regression guard).
 */
static void expect_turbine_trip_45(const meas *m)
{
    cr_expect_lt(m->trip_s, 0.0, "no reactor trip below P-9 (first out %s at %.2f s)", m->first_out,
                 m->trip_s);
    cr_expect_eq(m->porv_max, 0.0, "PORV shut");
    cr_expect_lt(m->pzr_p_max, PORV_PA, "pressurizer max %.4f MPa", m->pzr_p_max / 1e6);
    cr_expect_eq(m->sg_safety_max, 0.0, "no SG safety flow");
    cr_expect_eq(m->dump_ctl_end, (double)PCS_STEAM_DUMP_CTL_LOAD_REJECTION,
                 "dumps on the loss-of-load controller (C-8, no P-4): controller %g",
                 m->dump_ctl_end);
    cr_expect_lt(m->power_end, 0.15, "rods insert below 15 %% load: power %.4f at the end",
                 m->power_end);
    cr_expect_gt(m->tavg_end_k, F_TO_K(T_NO_LOAD_F), "Tavg %.2f F held above no-load",
                 DF(m->tavg_end_k - 273.15) + 32.0);
    /* no-load + 5 F NOT met (562.70..562.78 F, see above): the 6 F guard */
    cr_expect_lt(m->tavg_late_max_k, F_TO_K(T_NO_LOAD_F + 6.0),
                 "Tavg %.2f F within no-load + 6 F over the last 30 s",
                 DF(m->tavg_late_max_k - 273.15) + 32.0);
}

/*
 * A small steam line break (0.11 m2 in SG 1's line, at 100 %; see
 * child_steam_line_break for the size), pwr_transients.md section 7.
 * Measured (release, 110 s, with the metal): the overcooling raises the
 * power to the high-flux trip at 37.30 s (first out u1.rps.high_flux); SI
 * and MSLI together at 42.70 s from the steam-line logic (per-SG steam
 * flows above the post-trip 40 % setpoint with Tavg 550.24 F, below 553 F;
 * lowest SG pressure 5.19 MPa); every MSIV shut at 48.20 s (5.50 s after
 * MSLI); break flow at most 925.8 kg/s and SG 1's restrictor flow at most
 * 1058.7 kg/s (its choked flow: 1113.8 before thnet re-checked a
 * junction's solved flow against its critical flow); Tavg 584.7 -> 497.8
 * F (493.5 F water only: the metal's heat slows the overcooling); the
 * pressurizer empties (level 0 %, pressure down to 7.24 MPa: no refdata
 * row for a steam line break's pressurizer). The cooldown rate and return
 * to power are "not found": direction only.
 */
static void expect_steam_line_break(const meas *m)
{
    /* [HRTD] 12.3: SI and steam line isolation on high steam flow with low
     * steam pressure (600 psig) or low Tavg (553 F) */
    cr_expect_geq(m->si_s, 0.0, "SI at %.2f s", m->si_s);
    cr_expect_geq(m->msli_s, 0.0, "MSLI at %.2f s", m->msli_s);
    cr_expect(m->tavg_msli_k < F_TO_K(P12_F) || m->p_msli_pa < PSIG_PA(600.0),
              "MSLI with Tavg %.2f F or lowest SG pressure %.4f MPa low",
              DF(m->tavg_msli_k - 273.15) + 32.0, m->p_msli_pa / 1e6);
    /* [HRTD] 7.1: the MSIVs close in 5 s after a 0.5 s delay (the flag and
     * the valve are a tick apart) */
    double shut = m->msiv_shut_s - m->msli_s;
    cr_expect(m->msiv_shut_s >= 0.0 && shut >= 5.5 - DT && shut <= 5.5 + 2 * DT,
              "MSIVs shut %.2f s after MSLI", shut);
    /* [HRTD] 7.1: the flow restrictor limits an SG's outflow to 1220 kg/s */
    cr_expect_leq(m->restrictor_max, 1220.0, "SG 1 outflow max %.1f kg/s", m->restrictor_max);
    cr_expect_leq(m->break_max, 1220.0, "break flow max %.1f kg/s", m->break_max);
    cr_expect_gt(m->break_max, 0.0, "the break blows down");
    /* cooldown rate "not found": direction */
    cr_expect_lt(m->tavg_end_k, m->tavg0_k - 5.0, "Tavg %.2f -> %.2f F falls",
                 DF(m->tavg0_k - 273.15) + 32.0, DF(m->tavg_end_k - 273.15) + 32.0);
}

/*
 * One station at 100 % ([HRTD] plant, Tavg 584.7 F), each transient in a
 * forked copy. Measured (release; dt 0.05 s; with the primary's metal,
 * pcsim/primary.h "Metal"; in brackets the same build water only,
 * metal_model PCS_PRIMARY_METAL_NONE):
 *  - 10 % step down (load demand 1.0 -> 0.9, a step): no trip, PORV
 *    shut, pressurizer <= 15.76 MPa, no SG safety flow; NR level 44.00 ->
 *    38.47 % (shrink); Tavg - Tref -2.09..+5.50 F (-2.04..+5.69), settled
 *    -2.09..-1.63 F over the last 30 s of 240 s.
 *  - 15 % ramp at 5 %/min: Tavg - Tref -1.04..+4.54 F (-0.99..+4.59),
 *    settled -1.04..+0.30 F; pressurizer <= 15.66 MPa.
 *  - 10 % step up (0.9 -> 1.0, after 150 s at 0.9): no trip, PORV
 *    shut, pressurizer <= 15.63 MPa, no SG safety flow; NR level 44.53 ->
 *    49.85 % (swell); Tavg - Tref -4.99..-0.29 F (-5.14..-0.41), settled
 *    -1.80..-1.41 F.
 * The load is the first-stage load calibrated to the unit's own rated
 * power (pcsim/turbine.h "Calibration": 1.0 at 100 %, Tref 584.69 F).
 * Before that calibration the unit at 100 % read 0.969 (Tref 583.84 F,
 * Tavg 0.73 F above it before any maneuver) and the steps ran 0.969 <->
 * 0.869: step down -2.02..+6.08 F (-2.00..+6.18), ramp -0.73..+4.41 F,
 * step up -4.95..-0.15 F (-5.08..-0.24).
 *
 * The [HRTD] 8.1 window (+-5 F) is met on the 10 % step up (-4.99 F: 0.01
 * F inside; -5.14 F water only) and on the 5 %/min ramp, and NOT met on the
 * 10 % step down: +5.50 F, 0.50 F outside (+5.69 F water only). The
 * metal's share is small on a step: the water's temperature moves by a
 * few F over tens of seconds, and only the steel and Inconel within the
 * films' and conduction's reach follow it. Before rod control's
 * power-mismatch channel (pcsim/rod_control.h, [HRTD] 8.1's gains, tau 30 s an assumption
 * chosen before these runs) they were +6.64 and -5.36 F. Tref is compared
 * right: it is 557 + 27.7 x the turbine's first-stage load (checked to 0.1
 * F at the end), and Tavg is the plant's (not the noisy control channel
 * that rod control reads). Cause of what is left, seen in
 * scenarios/load-step.json: the mismatch channel puts the rods at their
 * full 72 steps/min within 2 s of the step (e_p ~ 11 F), and they stay
 * there ~32 s while the power comes down the 10 %; the rods' reactivity
 * rate (bank D's worth near the top of its travel x 72 steps/min) is the
 * limit, which no gain of the channel changes; refdata has no rod worth to
 * check it against. The step is exactly 10 %, so C-7 (> 10 %) does not
 * arm the load-rejection dumps. Asserted: for the step up and the ramp
 * the window; for the step down the excursion's sign, the bound that holds
 * (7 F: a regression guard) and the settled window.
 *  - turbine trip: see expect_turbine_trip_100.
 *  - loss of normal feedwater: see expect_feed_loss.
 */
Test(transients, from_100_percent)
{
    rig r;
    rig_open(&r, scn_100);

    fork_child_out o = fork_child_run(child_step_down, &r);
    cr_expect_eq(o.st, PCS_OK, "step down: %s", pcs_status_str(o.st));
    meas m = get(&o);
    log_meas("10 % step down", &m);
    /* +-5 F NOT met (+5.50 F, see above): sign and the 7 F guard */
    expect_maneuver("10 % step down", &m, 0);
    cr_expect(m.dev_max_f > 0.0 && m.dev_max_f <= 7.0 && m.dev_min_f >= -5.0,
              "10 %% step down: Tavg - Tref %.2f..%.2f F (rises above its program)", m.dev_min_f,
              m.dev_max_f);
    /* section 9 ([HRTD] 3.2, 11.1): steam flow down -> NR level shrinks;
     * magnitude "not found": direction only */
    cr_expect_lt(m.nr_min30, m.nr0 - 0.1, "NR level shrinks: %.2f -> min %.2f %%", m.nr0,
                 m.nr_min30);

    o = fork_child_run(child_ramp_down, &r);
    cr_expect_eq(o.st, PCS_OK, "ramp down: %s", pcs_status_str(o.st));
    m = get(&o);
    log_meas("15 % ramp down at 5 %/min", &m);
    expect_maneuver("5 %/min ramp", &m, 1);

    o = fork_child_run(child_step_up, &r);
    cr_expect_eq(o.st, PCS_OK, "step up: %s", pcs_status_str(o.st));
    m = get(&o);
    log_meas("10 % step up", &m);
    /* [HRTD] 8.1 +-5 F met (-4.99 F, see above): the window, and the sign */
    expect_maneuver("10 % step up", &m, 1);
    cr_expect_lt(m.dev_min_f, 0.0,
                 "10 %% step up: Tavg - Tref %.2f..%.2f F (falls below its program)", m.dev_min_f,
                 m.dev_max_f);
    /* section 9: steam flow up -> NR level swells (direction only) */
    cr_expect_gt(m.nr_max30, m.nr0 + 0.1, "NR level swells: %.2f -> max %.2f %%", m.nr0,
                 m.nr_max30);

    o = fork_child_run(child_turbine_trip, &r);
    cr_expect_eq(o.st, PCS_OK, "turbine trip: %s", pcs_status_str(o.st));
    m = get(&o);
    log_meas("turbine trip from 100 %", &m);
    expect_turbine_trip_100(&m);

    o = fork_child_run(child_feed_loss, &r);
    cr_expect_eq(o.st, PCS_OK, "feed loss: %s", pcs_status_str(o.st));
    m = get(&o);
    log_meas("loss of normal feedwater", &m);
    expect_feed_loss(&m);

    o = fork_child_run(child_steam_line_break, &r);
    cr_expect_eq(o.st, PCS_OK, "steam line break: %s", pcs_status_str(o.st));
    m = get(&o);
    log_meas("small steam line break", &m);
    expect_steam_line_break(&m);
    rig_close(&r);
}

Test(transients, from_45_percent)
{
    rig r;
    rig_open(&r, scn_45);
    fork_child_out o = fork_child_run(child_turbine_trip, &r);
    cr_expect_eq(o.st, PCS_OK, "turbine trip at 45 %%: %s", pcs_status_str(o.st));
    meas m = get(&o);
    log_meas("turbine trip from 45 %", &m);
    expect_turbine_trip_45(&m);
    rig_close(&r);
}
