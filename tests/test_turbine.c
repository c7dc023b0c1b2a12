/**
 * @file test_turbine.c
 * @brief The turbine-generator and its load control (pcsim/turbine.h,
 *        issue 15) on a full steam-side unit (the fixture of
 *        tests/test_steam_side.c): the energy balance of MWe, steady
 *        output before any command, a 10 % step and a 5 %/min ramp, the
 *        turbine trip and its latch, an islanded load rejection to the
 *        overspeed trip, the load check and no allocation per tick.
 *
 * References: issue 15 ("MWe is checked through the energy balance (MWe =
 * eta x turbine power), not against a plant number"; "before the first
 * command MWe is steady within 1 %"; overspeed trip at 110 %);
 * refdata pwr_transients.md section 1 row "design maneuvers without trip or
 * relief lift": +-10 % step and +-5 %/min ramp ([HRTD] 8.1), which the
 * governor's step_max and ramp_per_min are; IF97 (pcsim/water.h) for the
 * hand-computed expansion. The direction of MWe after a load decrease has
 * no magnitude in refdata (direction only).
 *
 * Cost: two station builds. The second is forked (tests/fork_child.h) for
 * the load, trip, islanded, droop and manual/auto checks, so each starts
 * from the same fresh steady unit.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "pcsim/plant.h"
#include "pcsim/plant_signals.h"
#include "pcsim/secondary.h"
#include "pcsim/station.h"
#include "pcsim/turbine.h"
#include "pcsim/water.h"
#include "physics/machines/kernels/turbine_expansion.h"
#include "tests/alloc_count.h"
#include "tests/fork_child.h"
#include "tests/save_craft.h"

#if defined(__SANITIZE_ADDRESS__)
#define TB_ASAN 1
#else
#define TB_ASAN 0
#endif
/* Seconds of the steady run and of the step and ramp: under ASan 20 s (the
 * sanitizer checks memory, not the physics' length; the 60 s checks of
 * the issue and the load following the step are the release suite's),
 * and the droop part is skipped. */
#define TB_RUN_S (TB_ASAN ? 20.0 : 60.0)

#define TB_ETA_T 0.85 /* the defaults (pcsim/turbine.h) the hand check uses */
#define TB_ETA_G 0.985
#define TB_P_COND 5.0e3 /* the secondary's condenser_p_pa default */

typedef struct tb_unit {
    pcs_world *w;
    pcs_plant *plant;
    const pcs_plant_unit *pu;
    const double *sec_out, *sec_h, *sec_valve, *gov, *gen, *sig;
    double *ilk;
    uint32_t v_header;
    double dt;
} tb_unit;

/* The fixture's pointers into a built unit 1. */
static void tb_bind(tb_unit *u)
{
    u->pu = pcs_plant_unit_get(u->plant, 0);
    cr_assert_not_null(u->pu->turbine);
    pcs_secondary_stores s = pcs_secondary_store_ids(u->pu->secondary);
    u->sec_out = pcs_store_data(u->w, s.out);
    u->sec_h = pcs_store_data(u->w, s.h);
    u->sec_valve = pcs_store_data(u->w, s.turbine_valve);
    u->v_header = pcs_secondary_volume(u->pu->secondary, PCS_SECONDARY_HEADER, 0);
    u->gov = pcs_store_data(u->w, pcs_turbine_governor_store(u->pu->turbine));
    u->gen = pcs_store_data(u->w, pcs_turbine_generator_store(u->pu->turbine));
    uint32_t id;
    cr_assert_eq(pcs_plant_signals(u->w, "u1", PCS_SIGNALS_TURBINE, &id), PCS_OK);
    u->sig = pcs_store_data(u->w, id);
    cr_assert_eq(pcs_plant_signals(u->w, "u1", PCS_SIGNALS_INTERLOCK, &id), PCS_OK);
    u->ilk = pcs_store_data(u->w, id);
    u->dt = pcs_world_clock(u->w)->dt_s;
}

static void tb_world(pcs_world_def *wd)
{
    wd->check_finite = 1;
    wd->workers = 0; /* forked children: no threads of its own */
    wd->k_slow = 1.0;
    wd->check_access = 2; /* every store the two systems touch is declared */
}

/* A plant of one steam-side unit (pcs_plant_add). */
static void tb_open(tb_unit *u)
{
    memset(u, 0, sizeof *u);
    pcs_world_def wd;
    pcs_world_default(&wd);
    tb_world(&wd);
    cr_assert_eq(pcs_world_create(&wd, &u->w), PCS_OK);
    pcs_plant_unit_def d;
    pcs_plant_unit_default(&d);
    d.sg_model = PCS_PLANT_SG_STEAM_SIDE;
    cr_assert_eq(pcs_plant_add(u->w, &d, 1, &u->plant), PCS_OK, "%s", pcs_last_error());
    tb_bind(u);
}

/* The same unit through the station and a scenario ("sg_model":
 * "steam_side"), with its instrumentation and command table. */
static void tb_open_station(tb_unit *u, pcs_scenario **scn, pcs_station **st)
{
    memset(u, 0, sizeof *u);
    const char *text = "{\"schema\": 1, \"world\": {\"dt_s\": 0.05}, \"units\": [{\"name\": "
                       "\"u1\", \"sg_model\": \"steam_side\"}]}";
    cr_assert_eq(pcs_scenario_load_string("tb.json", text, strlen(text), NULL, scn), PCS_OK, "%s",
                 pcs_last_error());
    pcs_world_def wd = pcs_scenario_world_def(*scn);
    tb_world(&wd);
    cr_assert_eq(pcs_world_create(&wd, &u->w), PCS_OK);
    cr_assert_eq(pcs_station_add(u->w, *scn, st), PCS_OK, "%s", pcs_last_error());
    u->plant = (pcs_plant *)pcs_station_plant(*st);
    tb_bind(u);
}

/* MWe by hand from the header state and the turbine flow now: IF97 s(p, h),
 * the lever rule at the condenser's saturation, h_out = h - eta_t (h - h_s). */
static double mwe_by_hand(const tb_unit *u, double *shaft_w)
{
    double p = u->sec_out[PCS_SECONDARY_OUT_HEADER_P], h = u->sec_h[u->v_header];
    double flow = u->sec_out[PCS_SECONDARY_OUT_TURBINE_FLOW], ts;
    pcs_water_props in, f, g;
    cr_assert_eq(pcs_water_props_ph(p, h, &in), PCS_OK);
    cr_assert_eq(pcs_water_tsat(TB_P_COND, &ts), PCS_OK);
    cr_assert_eq(pcs_if97_region1(TB_P_COND, ts, &f), PCS_OK);
    cr_assert_eq(pcs_if97_region2(TB_P_COND, ts, &g), PCS_OK);
    double x = (in.s_j_kg_k - f.s_j_kg_k) / (g.s_j_kg_k - f.s_j_kg_k);
    cr_assert(x > 0.0 && x < 1.0, "isentropic exhaust quality %g", x);
    double h_s = f.h_j_kg + x * (g.h_j_kg - f.h_j_kg);
    double h_out = h - TB_ETA_T * (h - h_s);
    *shaft_w = flow * (h - h_out);
    return TB_ETA_G * *shaft_w / 1e6;
}

/* The station's turbine commands resolve to the turbine family on u1 (the
 * op each names), and generator_mode takes 0 or 1 only, refused naming the
 * value (nothing is submitted). */
static void station_commands(const pcs_station *st, pcs_world *w)
{
    static const struct {
        const char *name;
        uint32_t op;
        double value;
    } rows[] = {{"turbine_valve", PCS_TURBINE_OP_VALVE, 0.5},
                {"turbine_load", PCS_TURBINE_OP_LOAD, 1.1},
                {"turbine_runback", PCS_TURBINE_OP_RUNBACK, 0.3},
                {"turbine_trip", PCS_TURBINE_OP_TRIP, 0.0},
                {"turbine_reset", PCS_TURBINE_OP_RESET, 0.0},
                {"generator_mode", PCS_TURBINE_OP_GENERATOR_MODE, 1.0},
                {"generator_load_torque", PCS_TURBINE_OP_LOAD_TORQUE, 6e6},
                {"generator_load_power", PCS_TURBINE_OP_LOAD_POWER, 1.2e9}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        pcs_command c;
        uint32_t kind;
        cr_assert_eq(pcs_station_command(st, "u1", rows[i].name, rows[i].value, &c), PCS_OK,
                     "%s: %s", rows[i].name, pcs_last_error());
        cr_assert_eq(pcs_command_kind_find(w, PCS_TURBINE_COMMANDS, rows[i].op, &kind), PCS_OK);
        cr_expect_eq(c.kind, kind, "%s", rows[i].name);
        cr_expect_eq(c.args[0], rows[i].value, "%s", rows[i].name);
    }
    pcs_command c;
    cr_assert_eq(pcs_station_command(st, "u1", "generator_mode", 0.5, &c), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "0.5") && strstr(pcs_last_error(), "generator_mode"), "%s",
              pcs_last_error());
    cr_assert_eq(pcs_station_command(st, "u1", "turbine_load", 1.2, &c), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "[0, 1.1]"), "%s", pcs_last_error());
    /* the feedwater's pump commands take a pump number, not a fraction */
    cr_assert_eq(pcs_station_command(st, "u1", "feed_pump_trip", 1.5, &c), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "1.5 is not a whole number (feed_pump_trip: pump)") &&
                  strstr(pcs_last_error(), "feed_pump_trip"),
              "%s", pcs_last_error());
    cr_assert_eq(pcs_station_command(st, "u1", "feed_pump_start", 2.0, &c), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_station_command(st, "u1", "condenser_available", 0.5, &c), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "0.5 is neither 0 nor 1 (condenser_available"), "%s",
              pcs_last_error());
    /* a script action that leaves out the value of a steam-side command
       would have run as 0 (a turbine load of 0): refused naming the action */
    const char *no_value = "{\"schema\": 1, \"units\": [{\"name\": \"u1\", \"sg_model\": "
                           "\"steam_side\"}], \"script\": [{\"t_s\": 1, \"command\": "
                           "\"turbine_load\", \"target\": \"u1\"}, {\"t_s\": 2, \"command\": "
                           "\"turbine_trip\", \"target\": \"u1\"}]}";
    pcs_scenario *nv = NULL;
    cr_assert_eq(pcs_scenario_load_string("nv.json", no_value, strlen(no_value), NULL, &nv), PCS_OK,
                 "%s", pcs_last_error());
    cr_assert_eq(pcs_station_script_command(st, nv, 0, &c), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "nv.json") && strstr(pcs_last_error(), "$.script[0]") &&
                  strstr(pcs_last_error(), "turbine_load of 'u1' needs a value"),
              "%s", pcs_last_error());
    cr_expect_eq(pcs_station_script_command(st, nv, 1, &c), PCS_OK, "a trip takes no value: %s",
                 pcs_last_error());
    pcs_scenario_destroy(nv);
}

/*
 * (1) Energy balance and steady output, (6) no allocation per tick, (5)
 * the load check, on one build:
 *  - at the start and after 60 s: MWe = eta_gen x W (h_in - h_out), W the
 *    turbine flow and h_out recomputed by hand from IF97 (mwe_by_hand),
 *    to 1e-12 relative; the shaft power likewise;
 *  - the turbine starts at the settled opening (the secondary's valve
 *    unchanged by the first tick) and the load its flow gives;
 *  - over 60 s with no command MWe stays within 1 % of its start (issue
 *    15's "Done when"); the valve within 1e-3;
 *  - 0 allocations over 20 ticks;
 *  - built through the station (scenario "sg_model": "steam_side"): its
 *    turbine commands resolve (station_commands above);
 *  - a save whose governor load demand is 2.5 (range [0, 1.1]) or whose
 *    tripped flag is 0.5 is refused naming store, field, value and range.
 */
Test(turbine, energy_balance_steady_output_no_allocation_and_load_check)
{
    tb_unit u;
    pcs_scenario *scn = NULL;
    pcs_station *sta = NULL;
    tb_open_station(&u, &scn, &sta);
    station_commands(sta, u.w);
    double shaft, v0 = *u.sec_valve, mwe0 = u.gen[PCS_TURBINE_GEN_MWE];
    double hand0 = mwe_by_hand(&u, &shaft);
    double load0 =
        u.sec_out[PCS_SECONDARY_OUT_TURBINE_FLOW] / pcs_turbine_rated_flow(u.pu->turbine);
    cr_log_info("start: MWe %.4f (hand %.4f), shaft %.6g W, load %.5f, valve %.5f, header %.6g Pa",
                mwe0, hand0, shaft, load0, v0, u.sec_out[PCS_SECONDARY_OUT_HEADER_P]);
    cr_expect_lt(fabs(mwe0 / hand0 - 1.0), 1e-12, "MWe %.9g vs by hand %.9g", mwe0, hand0);
    cr_expect_lt(fabs(u.sig[PCS_SIG_TURBINE_SHAFT_W] / shaft - 1.0), 1e-12);
    cr_expect_eq(u.gov[PCS_TURBINE_GOV_DEMAND], u.sig[PCS_SIG_TURBINE_LOAD]);
    cr_expect_lt(fabs(u.sig[PCS_SIG_TURBINE_LOAD] - load0), 1e-15);
    cr_expect_eq(u.gov[PCS_TURBINE_GOV_VALVE], v0);
    cr_assert_eq(pcs_world_tick(u.w), PCS_OK, "%s", pcs_last_error());
    cr_expect_lt(fabs(*u.sec_valve - v0), 1e-9, "first tick moved the valve %.9g -> %.9g", v0,
                 *u.sec_valve);
    pcs_test_alloc_begin();
    for (int i = 0; i < 20; i++)
        cr_assert_eq(pcs_world_tick(u.w), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_test_alloc_end(), 0, "allocations during ticks");
    double worst = 0.0, worst_v = 0.0;
    int n = (int)llround(TB_RUN_S / u.dt) - 21;
    for (int i = 0; i < n; i++) {
        cr_assert_eq(pcs_world_tick(u.w), PCS_OK, "%s", pcs_last_error());
        worst = fmax(worst, fabs(u.gen[PCS_TURBINE_GEN_MWE] / mwe0 - 1.0));
        worst_v = fmax(worst_v, fabs(*u.sec_valve - v0));
    }
    double hand1 = mwe_by_hand(&u, &shaft), mwe1 = u.gen[PCS_TURBINE_GEN_MWE];
    cr_log_info("end: MWe %.4f (hand %.4f), worst |MWe/MWe0 - 1| %.3g, worst valve move %.3g", mwe1,
                hand1, worst, worst_v);
    cr_expect_lt(fabs(mwe1 / hand1 - 1.0), 1e-12, "MWe %.9g vs by hand %.9g", mwe1, hand1);
    cr_expect_lt(worst, 0.01, "MWe left its start by %.3g", worst);
    cr_expect_lt(worst_v, 1e-3, "valve moved by %.3g", worst_v);

    char path[] = "/tmp/pcsim-turbine-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(pcs_world_save(u.w, path), PCS_OK, "%s", pcs_last_error());
    size_t len;
    unsigned char *img = save_craft_read(path, &len);
    cr_assert_not_null(img);
    double bad = 2.5, half = 0.5;
    cr_assert(save_craft_patch(img, len, "store:u1.turbine.gov",
                               PCS_TURBINE_GOV_DEMAND * sizeof(double), &bad, sizeof bad));
    cr_assert(save_craft_write(path, img, len));
    cr_assert_eq(pcs_world_load(u.w, path), PCS_E_CORRUPT);
    const char *e = pcs_last_error();
    cr_expect(strstr(e, "u1.turbine.gov") && strstr(e, "load demand") && strstr(e, "2.5") &&
                  strstr(e, "1.1"),
              "%s", e);
    double ok = 0.5;
    cr_assert(save_craft_patch(img, len, "store:u1.turbine.gov",
                               PCS_TURBINE_GOV_DEMAND * sizeof(double), &ok, sizeof ok));
    cr_assert(save_craft_patch(img, len, "store:u1.turbine.gov",
                               PCS_TURBINE_GOV_TRIPPED * sizeof(double), &half, sizeof half));
    cr_assert(save_craft_write(path, img, len));
    cr_assert_eq(pcs_world_load(u.w, path), PCS_E_CORRUPT);
    e = pcs_last_error();
    cr_expect(strstr(e, "u1.turbine.gov") && strstr(e, "tripped flag") && strstr(e, "0.5"), "%s",
              e);
    free(img);
    unlink(path);
    pcs_station_destroy(sta);
    pcs_world_destroy(u.w);
    pcs_scenario_destroy(scn);
}

/* ---- forked parts ---------------------------------------------------------------- */

/* A child's failed check: the first one is reported. */
static void fail(fork_child_out *out, const char *fmt, ...)
{
    if (out->st != PCS_OK)
        return;
    out->st = PCS_E_STATE;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->msg, sizeof out->msg, fmt, ap);
    va_end(ap);
}

/* Fail and leave the part. */
#define BAIL(...)                                                                                  \
    do {                                                                                           \
        fail(__VA_ARGS__);                                                                         \
        return;                                                                                    \
    } while (0)

static int ticks(tb_unit *u, int n, fork_child_out *out)
{
    for (int i = 0; i < n; i++) {
        pcs_status st = pcs_world_tick(u->w);
        if (st != PCS_OK) {
            fail(out, "tick: %s", pcs_last_error());
            return 0;
        }
    }
    return 1;
}

/* Submit turbine op @p op with @p value to u1. */
static pcs_status submit(tb_unit *u, uint32_t op, double value)
{
    uint32_t kind;
    pcs_target_id id;
    pcs_status st = pcs_command_kind_find(u->w, PCS_TURBINE_COMMANDS, op, &kind);
    if (st == PCS_OK)
        st = pcs_command_target_find(u->w, "u1", &id);
    if (st != PCS_OK)
        return st;
    pcs_command c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.target = pcs_target_id_store(id);
    c.args[0] = value;
    return pcs_command_submit(u->w, &c);
}

static uint64_t rejected(const tb_unit *u)
{
    pcs_command_stats cs;
    pcs_command_stats_get(u->w, &cs);
    return cs.rejected;
}

/*
 * (2) A 10 % step down then a 5 %/min ramp ([HRTD] 8.1 design maneuvers):
 * the step is taken by the demand at once (one tick later it is exactly
 * L0 - 0.1); after 60 s MWe is lower (direction) and the first-stage load
 * within 0.002 of the demand (the pressure feedforward: pcsim/turbine.h); then a target 0.2 further
 * down (more than a step) ramps: after k ticks the demand is exactly d1 - k dt 0.05/60 (to 1e-12),
 * 60 s later d1 - 0.05, and MWe lower again (under ASan 20 s each).
 */
static void step_and_ramp(void *ctx, fork_child_out *out)
{
    tb_unit *u = ctx;
    double d0 = u->gov[PCS_TURBINE_GOV_DEMAND], mwe0 = u->gen[PCS_TURBINE_GEN_MWE];
    if (submit(u, PCS_TURBINE_OP_LOAD, d0 - 0.1) != PCS_OK || !ticks(u, 1, out))
        BAIL(out, "step: %s", pcs_last_error());
    double d1 = u->gov[PCS_TURBINE_GOV_DEMAND];
    if (fabs(d1 - (d0 - 0.1)) > 1e-15)
        fail(out, "a 10 %% step: demand %.15g, want %.15g", d1, d0 - 0.1);
    int n60 = (int)llround(TB_RUN_S / u->dt);
    if (!ticks(u, n60 - 1, out))
        return;
    double mwe1 = u->gen[PCS_TURBINE_GEN_MWE], l1 = u->sig[PCS_SIG_TURBINE_LOAD];
    if (!(mwe1 < mwe0))
        fail(out, "MWe %.3f -> %.3f after a 10 %% step down", mwe0, mwe1);
    if (!TB_ASAN && fabs(l1 - d1) > 0.002)
        fail(out, "first-stage load %.5f, demand %.5f after 60 s", l1, d1);
    if (submit(u, PCS_TURBINE_OP_LOAD, d1 - 0.2) != PCS_OK)
        BAIL(out, "ramp: %s", pcs_last_error());
    double rate = 0.05 / 60.0, worst = 0.0;
    for (int k = 1; k <= n60; k++) {
        if (!ticks(u, 1, out))
            return;
        worst = fmax(worst, fabs(u->gov[PCS_TURBINE_GOV_DEMAND] - (d1 - k * u->dt * rate)));
    }
    double d2 = u->gov[PCS_TURBINE_GOV_DEMAND], mwe2 = u->gen[PCS_TURBINE_GEN_MWE];
    if (worst > 1e-12)
        fail(out, "ramp: demand off the 5 %%/min line by %.3g", worst);
    if (fabs(d2 - (d1 - TB_RUN_S * rate)) > 1e-12)
        fail(out, "ramp: demand %.15g after %g s, want %.15g", d2, TB_RUN_S, d1 - TB_RUN_S * rate);
    if (!(mwe2 < mwe1))
        fail(out, "MWe %.3f -> %.3f on the ramp down", mwe1, mwe2);
    if (out->st == PCS_OK)
        snprintf(out->msg, sizeof out->msg,
                 "demand %.5f -> %.5f (step) -> %.5f (ramp); MWe %.2f -> %.2f -> %.2f; "
                 "load %.5f after the step",
                 d0, d1, d2, mwe0, mwe1, mwe2, l1);
}

/*
 * (3) Turbine trip on the interlocks' demand (the test writes
 * PCS_SIG_TURBINE_TRIP itself, the producer is not built): the valve sent
 * to the secondary is 0 within the 0.2 s closure time (4 ticks of 0.05 s)
 * and not before the first tick; MWe is 0 then; TRIPPED is latched (the
 * governor's and turbine.sig's); a reset is refused while the demand
 * stands and accepted once it is gone (auto at demand 0); the trip
 * command trips it again.
 */
static void trip(void *ctx, fork_child_out *out)
{
    tb_unit *u = ctx;
    double mwe0 = u->gen[PCS_TURBINE_GEN_MWE], v0 = *u->sec_valve;
    u->ilk[PCS_SIG_TURBINE_TRIP] = 1.0;
    if (!ticks(u, 1, out))
        return;
    double v1 = *u->sec_valve;
    if (!(v1 > 0.0 && v1 < v0))
        fail(out, "valve %.5f -> %.5f after one tick of the trip", v0, v1);
    int n_close = (int)ceil(0.2 / u->dt - 1e-9);
    if (!ticks(u, n_close - 1, out))
        return;
    double v2 = *u->sec_valve, mwe2 = u->gen[PCS_TURBINE_GEN_MWE];
    if (v2 != 0.0)
        fail(out, "valve %.5f %d ticks after the trip demand", v2, n_close);
    if (mwe2 != 0.0)
        fail(out, "MWe %.4f with the valves shut", mwe2);
    if (u->gov[PCS_TURBINE_GOV_TRIPPED] != 1.0 || u->sig[PCS_SIG_TURBINE_TRIPPED] != 1.0)
        fail(out, "not latched: gov %g sig %g", u->gov[PCS_TURBINE_GOV_TRIPPED],
             u->sig[PCS_SIG_TURBINE_TRIPPED]);
    uint64_t r0 = rejected(u);
    if (submit(u, PCS_TURBINE_OP_RESET, 0.0) != PCS_OK ||
        submit(u, PCS_TURBINE_OP_LOAD, 0.5) != PCS_OK || !ticks(u, 1, out))
        BAIL(out, "reset: %s", pcs_last_error());
    if (rejected(u) != r0 + 2 || u->gov[PCS_TURBINE_GOV_TRIPPED] != 1.0 ||
        u->gov[PCS_TURBINE_GOV_DEMAND] != 0.0)
        fail(out, "reset or load accepted while the trip demand stands");
    r0 += 1; /* the load's rejection */
    u->ilk[PCS_SIG_TURBINE_TRIP] = 0.0;
    if (!ticks(u, 2, out))
        return;
    if (u->gov[PCS_TURBINE_GOV_TRIPPED] != 1.0)
        fail(out, "the latch dropped without a reset");
    if (submit(u, PCS_TURBINE_OP_RESET, 0.0) != PCS_OK || !ticks(u, 1, out))
        BAIL(out, "reset: %s", pcs_last_error());
    if (rejected(u) != r0 + 1 || u->gov[PCS_TURBINE_GOV_TRIPPED] != 0.0 ||
        u->gov[PCS_TURBINE_GOV_DEMAND] != 0.0 || u->gov[PCS_TURBINE_GOV_MANUAL] != 0.0)
        fail(out, "after reset: rejected %llu, tripped %g, demand %g, manual %g",
             (unsigned long long)(rejected(u) - r0), u->gov[PCS_TURBINE_GOV_TRIPPED],
             u->gov[PCS_TURBINE_GOV_DEMAND], u->gov[PCS_TURBINE_GOV_MANUAL]);
    if (submit(u, PCS_TURBINE_OP_TRIP, 0.0) != PCS_OK || !ticks(u, 1, out))
        BAIL(out, "trip command: %s", pcs_last_error());
    if (u->gov[PCS_TURBINE_GOV_TRIPPED] != 1.0)
        fail(out, "the trip command did not trip");
    if (out->st == PCS_OK)
        snprintf(out->msg, sizeof out->msg,
                 "valve %.5f -> %.5f (1 tick) -> %g (%d ticks); MWe %.2f -> %g", v0, v1, v2,
                 n_close, mwe0, mwe2);
}

/*
 * (4) Islanded load rejection: generator_mode islanded takes the output
 * of the moment as the load (speed within 1e-4 of 1 over 1 s); the load
 * torque to 0: the speed rises; the overspeed flag is set at 110 % and
 * the governor trips the turbine on the next tick. With the shaft power
 * P nearly constant over the rise (the valve moves at most 0.02 per s),
 * the time to 110 % is by energy t = J w_s^2 (1.1^2 - 1) / (2 P): within
 * 10 % of that. After the trip the speed stays under 1.12 and a reset is
 * refused (the shaft is still above the overspeed setpoint).
 */
static void islanded(void *ctx, fork_child_out *out)
{
    tb_unit *u = ctx;
    if (submit(u, PCS_TURBINE_OP_GENERATOR_MODE, 1.0) != PCS_OK)
        BAIL(out, "mode: %s", pcs_last_error());
    double dev = 0.0;
    int n1 = (int)llround(1.0 / u->dt);
    for (int i = 0; i < n1 && ticks(u, 1, out); i++)
        dev = fmax(dev, fabs(u->sig[PCS_SIG_TURBINE_SPEED] - 1.0));
    if (dev > 1e-4)
        fail(out, "islanded at the same load: speed off 1 by %.3g", dev);
    double p = u->sig[PCS_SIG_TURBINE_SHAFT_W];
    double t_hand = 2.7e5 * 188.496 * 188.496 * (1.1 * 1.1 - 1.0) / (2.0 * p);
    if (submit(u, PCS_TURBINE_OP_LOAD_TORQUE, 0.0) != PCS_OK)
        BAIL(out, "load torque: %s", pcs_last_error());
    int k = 0, k_trip = -1, k_over = -1;
    double s_max = 0.0;
    for (k = 1; k <= 200 && k_trip < 0; k++) {
        if (!ticks(u, 1, out))
            return;
        s_max = fmax(s_max, u->sig[PCS_SIG_TURBINE_SPEED]);
        if (k_over < 0 && u->gen[PCS_TURBINE_GEN_OVERSPEED] == 1.0)
            k_over = k;
        if (u->gov[PCS_TURBINE_GOV_TRIPPED] == 1.0)
            k_trip = k;
    }
    if (k_over < 0 || k_trip != k_over + 1)
        BAIL(out, "overspeed at tick %d, trip at tick %d (speed max %.4f)", k_over, k_trip, s_max);
    double t_over = k_over * u->dt;
    if (fabs(t_over / t_hand - 1.0) > 0.1)
        fail(out, "110 %% speed at %.3f s, by energy %.3f s", t_over, t_hand);
    if (!ticks(u, 40, out))
        return;
    s_max = fmax(s_max, u->sig[PCS_SIG_TURBINE_SPEED]);
    if (s_max < 1.1 || s_max > 1.12)
        fail(out, "speed max %.4f", s_max);
    if (*u->sec_valve != 0.0)
        fail(out, "valve %g after the overspeed trip", *u->sec_valve);
    uint64_t r0 = rejected(u);
    if (submit(u, PCS_TURBINE_OP_RESET, 0.0) != PCS_OK || !ticks(u, 1, out))
        BAIL(out, "reset: %s", pcs_last_error());
    if (rejected(u) != r0 + 1)
        fail(out, "reset accepted at speed %.4f", u->sig[PCS_SIG_TURBINE_SPEED]);
    if (out->st == PCS_OK)
        snprintf(out->msg, sizeof out->msg,
                 "shaft %.6g W; 110 %% at %.3f s (by energy %.3f s), trip next tick; speed max "
                 "%.4f",
                 p, t_over, t_hand, s_max);
}

/*
 * Manual and back to auto mid-transient, then a runback: turbine_valve 0.8
 * x v0 puts the governor in manual (the valve moves at 0.02 per s, so 5 s
 * later it is still moving, 0.001 per tick); turbine_load at the load
 * measured then returns it to auto, bumpless: the demand is that load,
 * and over the next 2 s the valve does not open (by 1e-4 at most) and
 * stays within 0.01 of where it was (it closes a little: the SG pressure
 * rises after the closure and auto holds the load).
 * Without the tracking in manual the demand would still be the old load,
 * more than a step away, and the valve would run back towards v0 at the
 * full rate (0.04 in 2 s). A runback to 0.3 below the demand
 * moves it at 0.5 per min exactly (2 s: 40 ticks). Out-of-range commands
 * are rejected by the handler: generator mode 0.5, load 1.2.
 */
static void manual_auto_runback(void *ctx, fork_child_out *out)
{
    tb_unit *u = ctx;
    double v0 = *u->sec_valve;
    if (submit(u, PCS_TURBINE_OP_VALVE, 0.8 * v0) != PCS_OK)
        BAIL(out, "valve: %s", pcs_last_error());
    if (!ticks(u, (int)llround(5.0 / u->dt), out))
        return;
    double v1 = *u->sec_valve, l1 = u->sig[PCS_SIG_TURBINE_LOAD];
    if (u->gov[PCS_TURBINE_GOV_MANUAL] != 1.0 || !(v1 < v0 - 0.09 && v1 > 0.8 * v0 + 0.01))
        fail(out, "manual: flag %g, valve %.5f -> %.5f (target %.5f)",
             u->gov[PCS_TURBINE_GOV_MANUAL], v0, v1, 0.8 * v0);
    if (submit(u, PCS_TURBINE_OP_LOAD, l1) != PCS_OK || !ticks(u, 1, out))
        BAIL(out, "auto: %s", pcs_last_error());
    double d1 = u->gov[PCS_TURBINE_GOV_DEMAND], worst = 0.0;
    if (u->gov[PCS_TURBINE_GOV_MANUAL] != 0.0 || d1 != l1)
        fail(out, "auto: manual %g, demand %.9g, load then %.9g", u->gov[PCS_TURBINE_GOV_MANUAL],
             d1, l1);
    double opened = 0.0;
    for (int k = 0; k < (int)llround(2.0 / u->dt) && ticks(u, 1, out); k++) {
        worst = fmax(worst, fabs(*u->sec_valve - v1));
        opened = fmax(opened, *u->sec_valve - v1);
    }
    if (worst > 0.01 || opened > 1e-4)
        fail(out, "back to auto moved the valve by %.5f (opened by %.5f) in 2 s", worst, opened);
    uint64_t r0 = rejected(u);
    if (submit(u, PCS_TURBINE_OP_GENERATOR_MODE, 0.5) != PCS_OK ||
        submit(u, PCS_TURBINE_OP_LOAD, 1.2) != PCS_OK || !ticks(u, 1, out))
        BAIL(out, "bad commands: %s", pcs_last_error());
    if (rejected(u) != r0 + 2 || u->gov[PCS_TURBINE_GOV_ISLANDED] != 0.0)
        fail(out, "bad commands: %llu rejected of 2", (unsigned long long)(rejected(u) - r0));
    double d2 = u->gov[PCS_TURBINE_GOV_DEMAND];
    if (submit(u, PCS_TURBINE_OP_RUNBACK, d2 - 0.3) != PCS_OK)
        BAIL(out, "runback: %s", pcs_last_error());
    if (!ticks(u, 40, out))
        return;
    double d3 = u->gov[PCS_TURBINE_GOV_DEMAND], want = d2 - 40 * u->dt * 0.5 / 60.0;
    if (fabs(d3 - want) > 1e-12)
        fail(out, "runback: demand %.15g after 40 ticks, want %.15g", d3, want);
    if (out->st == PCS_OK)
        snprintf(out->msg, sizeof out->msg,
                 "manual: valve %.5f -> %.5f in 5 s; auto at load %.5f: valve moved %.5f in 2 s; "
                 "runback %.5f -> %.5f in 2 s",
                 v0, v1, l1, worst, d2, d3);
}

/*
 * Islanded speed droop: with the host's power demand cut to 95 % of the
 * output, the shaft speeds up until the droop has closed the valve to the
 * new load; 30 s later the speed is steady (< 1e-4 per 5 s) and on the
 * droop line speed = 1 + droop (D - L) with D the load demand and L the
 * first-stage load (the load controller's error at 0: to 2e-5), about
 * 1 + 0.05 x 0.05 (5 % droop, pcsim/turbine.h); the electrical output is
 * the demand (to 1e-9).
 */
static void droop(void *ctx, fork_child_out *out)
{
    tb_unit *u = ctx;
    double p_e = u->sig[PCS_SIG_TURBINE_ELECTRIC_W];
    if (submit(u, PCS_TURBINE_OP_GENERATOR_MODE, 1.0) != PCS_OK ||
        submit(u, PCS_TURBINE_OP_LOAD_POWER, 0.95 * p_e) != PCS_OK)
        BAIL(out, "islanded: %s", pcs_last_error());
    if (!ticks(u, (int)llround(25.0 / u->dt), out))
        return;
    double s25 = u->sig[PCS_SIG_TURBINE_SPEED];
    if (!ticks(u, (int)llround(5.0 / u->dt), out))
        return;
    double s = u->sig[PCS_SIG_TURBINE_SPEED], d = u->gov[PCS_TURBINE_GOV_DEMAND];
    double l = u->sig[PCS_SIG_TURBINE_LOAD], line = 1.0 + 0.05 * (d - l);
    if (fabs(s - s25) > 1e-4)
        fail(out, "speed still moving: %.6f -> %.6f in 5 s", s25, s);
    if (fabs(s - line) > 2e-5)
        fail(out, "speed %.6f off the droop line 1 + 0.05 (%.5f - %.5f) = %.6f", s, d, l, line);
    if (!(s > 1.001 && s < 1.005))
        fail(out, "speed %.6f after a 5 %% load cut", s);
    if (fabs(u->sig[PCS_SIG_TURBINE_ELECTRIC_W] / (0.95 * p_e) - 1.0) > 1e-9)
        fail(out, "electrical %.6g W, demand %.6g W", u->sig[PCS_SIG_TURBINE_ELECTRIC_W],
             0.95 * p_e);
    if (out->st == PCS_OK)
        snprintf(out->msg, sizeof out->msg,
                 "speed %.6f (25 s) -> %.6f (30 s), droop line %.6f (D %.5f, L %.5f)", s25, s, line,
                 d, l);
}

Test(turbine, load_control_trip_runback_and_islanded_generator)
{
    tb_unit u;
    tb_open(&u);
    static const struct {
        const char *what;
        void (*fn)(void *, fork_child_out *);
    } parts[] = {{"10 % step and 5 %/min ramp", step_and_ramp},
                 {"turbine trip", trip},
                 {"islanded load rejection", islanded},
                 {"manual, bumpless auto, runback", manual_auto_runback},
                 {"islanded droop", TB_ASAN ? NULL : droop}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!parts[i].fn)
            continue;
        fork_child_out out = fork_child_run(parts[i].fn, &u);
        cr_expect_eq(out.st, PCS_OK, "%s: %s", parts[i].what, out.msg);
        cr_log_info("%s: %s", parts[i].what, out.msg);
    }
    pcs_world_destroy(u.w);
}

/* Bad settings are refused naming the field, value and range (a bare
 * secondary: nothing is ticked). */
Test(turbine, bad_settings_are_refused_with_their_field)
{
    pcs_world_def wd;
    pcs_world_default(&wd);
    wd.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wd, &w), PCS_OK);
    pcs_secondary_def sd;
    pcs_secondary_default(&sd);
    sd.unit_name = "u1";
    pcs_secondary *sec = NULL;
    cr_assert_eq(pcs_secondary_add(w, &sd, &sec), PCS_OK, "%s", pcs_last_error());
    pcs_turbine_def d;
    pcs_turbine_default(&d);
    d.unit_name = "u1";
    pcs_turbine *t = NULL;
    d.eta_turbine = 1.5;
    cr_assert_eq(pcs_turbine_add(w, &d, sec, &t), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "eta_turbine") && strstr(pcs_last_error(), "1.5"), "%s",
              pcs_last_error());
    d.eta_turbine = 0.85;
    d.overspeed_trip = 1.0;
    cr_assert_eq(pcs_turbine_add(w, &d, sec, &t), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "overspeed_trip") && strstr(pcs_last_error(), "1.01"), "%s",
              pcs_last_error());
    d.overspeed_trip = 1.10;
    d.rated_flow_kg_s = -1.0;
    cr_assert_eq(pcs_turbine_add(w, &d, sec, &t), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "rated_flow_kg_s") && strstr(pcs_last_error(), "-1"), "%s",
              pcs_last_error());
    cr_expect_null(t);
    cr_expect_eq(pcs_turbine_add(w, NULL, sec, &t), PCS_E_INVAL);
    cr_expect_eq(pcs_turbine_default(NULL), PCS_E_INVAL);
    pcs_world_destroy(w);
}

/*
 * The calibration (pcsim/turbine.h): load 1 is the def's rated_flow_kg_s,
 * or without one n_sg x the secondary's rated_steam_kg_s (4 x 480.4 [W84]);
 * and the heat balance the plant calibrates with, by hand: 3411 MW core +
 * 12.9 MW pump heat (tests/test_steam_steady.c) at 6.0526 MPa (the 100 %
 * unit's dome) with 493.43 K feed: IF97 h_g 2783.98 kJ/kg, h(p, 493.43 K)
 * 945.97 kJ/kg, W = 3423.9e6 / 1838.01e3 = 1862.8 kg/s (465.7 per SG, not
 * [W84]'s 480.4: its feed is about 500.6 K).
 */
Test(turbine, load_one_is_the_rated_flow_the_plant_calibrates)
{
    double wr = 0.0;
    cr_assert_eq(pcs_turbine_rated_flow_from_heat(3.4239e9, 6.0526e6, 493.43, &wr), PCS_OK, "%s",
                 pcs_last_error());
    cr_expect_leq(fabs(wr - 1862.8), 0.1, "W = Q / (h_g - h_feed) %.4f kg/s, by hand 1862.8", wr);
    /* at the same heat the enthalpy rise falls with pressure: more steam */
    double w_hi = 0.0;
    cr_assert_eq(pcs_turbine_rated_flow_from_heat(3.4239e9, 7.5529e6, 493.43, &w_hi), PCS_OK);
    cr_expect(w_hi > wr, "at 7.55 MPa %.3f kg/s, above 6.05 MPa's %.3f", w_hi, wr);
    cr_expect_eq(pcs_turbine_rated_flow_from_heat(0.0, 6e6, 493.43, &wr), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "heat_w"), "%s", pcs_last_error());
    cr_expect_eq(pcs_turbine_rated_flow_from_heat(1e9, 3e7, 493.43, &wr), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "p_pa"), "%s", pcs_last_error());
    cr_expect_eq(pcs_turbine_rated_flow_from_heat(1e9, 6e6, 560.0, &wr), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "feed_t_k") && strstr(pcs_last_error(), "560"), "%s",
              pcs_last_error());
    cr_expect_eq(pcs_turbine_rated_flow_from_heat(1e9, 6e6, 493.43, NULL), PCS_E_INVAL);

    pcs_world_def wd;
    pcs_world_default(&wd);
    wd.workers = 0;
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wd, &w), PCS_OK);
    pcs_secondary_def sd;
    pcs_secondary_default(&sd);
    sd.unit_name = "u1";
    pcs_secondary *sec = NULL;
    cr_assert_eq(pcs_secondary_add(w, &sd, &sec), PCS_OK, "%s", pcs_last_error());
    pcs_turbine_def d;
    pcs_turbine_default(&d);
    cr_expect_eq(d.rated_flow_kg_s, 0.0, "default: the secondary's rating");
    d.unit_name = "u1";
    pcs_turbine *t = NULL;
    cr_assert_eq(pcs_turbine_add(w, &d, sec, &t), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_turbine_rated_flow(t), 4 * 480.4, "bare turbine: %.6f kg/s",
                 pcs_turbine_rated_flow(t));
    cr_expect_eq(pcs_turbine_rated_flow(NULL), 0.0);
    pcs_world_destroy(w);
    cr_assert_eq(pcs_world_create(&wd, &w), PCS_OK);
    cr_assert_eq(pcs_secondary_add(w, &sd, &sec), PCS_OK, "%s", pcs_last_error());
    d.rated_flow_kg_s = 1862.8;
    cr_assert_eq(pcs_turbine_add(w, &d, sec, &t), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_turbine_rated_flow(t), 1862.8);
    pcs_world_destroy(w);
}

/* The expansion kernel on its own: the end state at the exhaust pressure
 * has the throttle's entropy (IF97 s(p_c, h_s) = s_in to 1e-9 relative),
 * inside the dome (saturated steam at 6 MPa) and beyond it (steam at 0.2
 * MPa, 800 K, whose entropy is above s_g at 5 kPa: the T(p, s) branch);
 * eta 1 ends at h_s, eta 0 at h_in. */
Test(turbine, expansion_kernel_is_isentropic_in_and_beyond_the_dome)
{
    pcs_turbine_exhaust ex;
    cr_assert_eq(pcs_turbine_exhaust_init(TB_P_COND, &ex), PCS_OK, "%s", pcs_last_error());
    double ts, h_sat, h_hot;
    cr_assert_eq(pcs_water_tsat(6e6, &ts), PCS_OK);
    pcs_water_props g;
    cr_assert_eq(pcs_if97_region2(6e6, ts, &g), PCS_OK);
    h_sat = g.h_j_kg;
    cr_assert_eq(pcs_water_h_pt(0.2e6, 800.0, &h_hot), PCS_OK);
    const double p_in[] = {6e6, 0.2e6}, h_in[] = {h_sat, h_hot};
    for (int k = 0; k < 2; k++) {
        pcs_turbine_stage one, none, st;
        cr_assert_eq(pcs_turbine_expand(&ex, p_in[k], h_in[k], 1.0, &one), PCS_OK, "%s",
                     pcs_last_error());
        cr_assert_eq(pcs_turbine_expand(&ex, p_in[k], h_in[k], 0.0, &none), PCS_OK);
        cr_assert_eq(pcs_turbine_expand(&ex, p_in[k], h_in[k], 0.85, &st), PCS_OK);
        pcs_water_props end;
        cr_assert_eq(pcs_water_props_ph(TB_P_COND, one.h_s, &end), PCS_OK);
        cr_log_info("p_in %g Pa: s_in %.6f, h_s %.6g J/kg (region %d), h_out %.6g", p_in[k],
                    one.s_in, one.h_s, end.region, st.h_out);
        cr_expect_lt(fabs(end.s_j_kg_k / one.s_in - 1.0), 1e-9, "s %.9g vs %.9g", end.s_j_kg_k,
                     one.s_in);
        cr_expect_eq(end.region, k == 0 ? 4 : 2);
        cr_expect_eq(one.h_out, one.h_s);
        cr_expect_eq(none.h_out, h_in[k]);
        cr_expect_lt(fabs(st.h_out - (h_in[k] - 0.85 * (h_in[k] - one.h_s))), 1e-6);
    }
    cr_expect_eq(pcs_turbine_exhaust_init(-1.0, &ex), PCS_E_INVAL);
}
