/**
 * @file test_sg_control.c
 * @brief The SG level controller (pcsim/sg_control.h) on one SG of a
 *        secondary alone: the 5 s level lag and the 2 min integral time of
 *        refdata pwr_transients.md section 1 (row "SG level controller"),
 *        hand-computed; the operator's transfer to the bypass valves and
 *        back ([HRTD] 7.2: by hand, at ~20 % power), bumpless and never on
 *        the power alone; the bypass valves' own level gain; its def
 *        checks.
 *
 * The controller's measured values (the STATE store "u1.sgctl.meas") are
 * written by the test before each tick: the controller reads them at stage
 * ACTUATORS, before its own measure system overwrites them at stage
 * SENSORS, so each tick runs on exactly the values the test gives.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "pcsim/persist.h"
#include "pcsim/secondary.h"
#include "pcsim/sg_control.h"
#include "pcsim/station.h"

#define RATED_W 3.411e9

typedef struct sgc_rig {
    pcs_world *w;
    pcs_secondary *sec;
    pcs_sg_control *sc;
    pcs_sg_control_def def;
    double *state, *meas, *power, *sec_feed;
    double dt;
} sgc_rig;

/* A one-SG steam side "u1" on the process-wide (p, h) table. */
static void add_secondary(pcs_world *w, pcs_secondary **sec)
{
    const pcs_water_ph_table *t = NULL;
    cr_assert_eq(pcs_station_water_table(&t), PCS_OK, "%s", pcs_last_error());
    pcs_secondary_def d;
    pcs_secondary_default(&d);
    d.table = t;
    d.n_sg = 1;
    d.unit_name = "u1";
    cr_assert_eq(pcs_secondary_add(w, &d, sec), PCS_OK, "%s", pcs_last_error());
}

/* One SG's secondary from its start estimate with sg_control reading the
 * test's power store "t.power" (W) if @p with_power, at world step @p dt
 * (0: the default) and level lag @p level_lag_s (0: the default). The level program is flat at 44 %
 * (nr_program_no_load = nr_program) so that the lag and the transfer are
 * seen alone; the program has its own test below. */
static void rig_open_with(sgc_rig *r, double dt, int with_power, double level_lag_s)
{
    memset(r, 0, sizeof *r);
    pcs_world_def wd;
    pcs_world_default(&wd);
    if (dt > 0.0)
        wd.dt_s = dt;
    wd.check_access = 1;
    wd.check_finite = 1;
    cr_assert_eq(pcs_world_create(&wd, &r->w), PCS_OK);
    add_secondary(r->w, &r->sec);
    uint32_t ps = 0;
    cr_assert_eq(pcs_store_register(r->w, "t.power", sizeof(double), 1, PCS_STORE_STATE_F64, &ps),
                 PCS_OK, "%s", pcs_last_error());
    r->power = pcs_store_data(r->w, ps);
    *r->power = 0.5 * RATED_W;
    pcs_sg_control_default(&r->def);
    r->def.unit_name = "u1";
    if (with_power)
        r->def.power = (pcs_pzr_control_input){ps, 0, PCS_PZR_CONTROL_NO_STATUS, 0};
    r->def.rated_power_w = RATED_W;
    r->def.nr_program_no_load = r->def.nr_program;
    if (level_lag_s > 0.0)
        r->def.level_lag_s = level_lag_s;
    cr_assert_eq(pcs_sg_control_add(r->w, &r->def, r->sec, &r->sc), PCS_OK, "%s", pcs_last_error());
    r->state = pcs_store_data(r->w, pcs_sg_control_state_store(r->sc));
    uint32_t meas = 0;
    cr_assert_eq(pcs_store_find(r->w, "u1.sgctl.meas", &meas), PCS_OK, "%s", pcs_last_error());
    r->meas = pcs_store_data(r->w, meas);
    r->sec_feed = pcs_store_data(r->w, pcs_secondary_store_ids(r->sec).feed);
    r->dt = pcs_world_clock(r->w)->dt_s;
}

/* The rig at the world's default dt, with the power input and the 5 s lag. */
static void rig_open(sgc_rig *r)
{
    rig_open_with(r, 0.0, 1, 0.0);
}

/* The measured values the next tick's controller reads. */
static void set_meas(sgc_rig *r, double nr, double steam, double feed, double power_frac)
{
    r->meas[PCS_SG_CONTROL_MEAS_NR] = nr;
    r->meas[PCS_SG_CONTROL_MEAS_STEAM] = steam;
    r->meas[PCS_SG_CONTROL_MEAS_FEED] = feed;
    r->meas[PCS_SG_CONTROL_MEAS_POWER] = power_frac;
}

static double st(const sgc_rig *r, uint32_t k)
{
    return r->state[PCS_SG_CONTROL_ST_SG + k];
}

static void tick(sgc_rig *r)
{
    cr_assert_eq(pcs_world_tick(r->w), PCS_OK, "%s", pcs_last_error());
}

/* The operator's transfer @p op (PCS_SG_CONTROL_OP_*) of SG @p sg (0: all)
 * through target @p target, applied at the next tick. */
static void submit(sgc_rig *r, const char *target, uint32_t op, double sg)
{
    pcs_command c;
    memset(&c, 0, sizeof c);
    pcs_target_id id;
    cr_assert_eq(pcs_command_kind_find(r->w, PCS_SG_CONTROL_COMMANDS, op, &c.kind), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_command_target_find(r->w, target, &id), PCS_OK, "%s", pcs_last_error());
    c.target = pcs_target_id_store(id);
    c.args[0] = sg;
    cr_assert_eq(pcs_command_submit(r->w, &c), PCS_OK, "%s", pcs_last_error());
}

/* Steady at the program on the main valves: lagged level = NR = program,
 * feed command = steam = feed = @p w, I_L = 0 (the demand is @p w). */
static void hold_steady(sgc_rig *r, double w)
{
    double *s = r->state + PCS_SG_CONTROL_ST_SG;
    s[PCS_SG_CONTROL_ST_LEVEL_LAG] = r->def.nr_program;
    s[PCS_SG_CONTROL_ST_FEED] = w;
    s[PCS_SG_CONTROL_ST_INTEGRAL] = 0.0;
    s[PCS_SG_CONTROL_ST_BYPASS] = 0.0;
}

/*
 * A step of the measured NR level from the 44 % program to 40 % with the
 * steam and feed flows held: after tick k the lagged level is
 * 40 + 4 exp(-k dt / 5 s) (first-order lag, T_F = 5 s, discretised
 * exactly: each tick moves it by a = 1 - exp(-dt / T_F) of the gap), and
 * the level integral has gained K_L dt / T_L x sum_k (44 - L_k) with
 * T_L = 120 s: sum_k (44 - L_k) = 4 n - 4 (1 - a) (1 - (1 - a)^n) / a.
 * At n = 100 (5 s at dt 0.05): L = 40 + 4 / e = 41.4715 %.
 */
Test(sg_control, level_lag_and_integral_time_hand_computed)
{
    sgc_rig r;
    rig_open(&r);
    cr_assert_float_eq(r.def.level_lag_s, 5.0, 0.0, "lag 5 s (the refdata row)");
    cr_assert_float_eq(r.def.level_reset_s, 120.0, 0.0, "integral time 2 min (the refdata row)");
    const double w = 300.0, a = 1.0 - exp(-r.dt / 5.0);
    hold_steady(&r, w);
    const int n = (int)lround(5.0 / r.dt);
    for (int k = 1; k <= n; k++) {
        set_meas(&r, 40.0, w, w, 0.5);
        tick(&r);
        double expect = 40.0 + 4.0 * exp(-k * r.dt / 5.0);
        cr_assert_float_eq(st(&r, PCS_SG_CONTROL_ST_LEVEL_LAG), expect, 1e-9,
                           "tick %d: lagged level %.9f, hand %.9f", k,
                           st(&r, PCS_SG_CONTROL_ST_LEVEL_LAG), expect);
    }
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_LEVEL_LAG), 40.0 + 4.0 * exp(-1.0), 1e-9);
    double sum_e = 4.0 * n - 4.0 * (1.0 - a) * (1.0 - pow(1.0 - a, n)) / a;
    double i_expect = r.def.level_gain_kg_s_pct * r.dt / 120.0 * sum_e;
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_INTEGRAL), i_expect, 1e-9,
                       "level integral %.9f kg/s, hand %.9f (on the lagged level)",
                       st(&r, PCS_SG_CONTROL_ST_INTEGRAL), i_expect);
    pcs_world_destroy(r.w);
}

/*
 * The transfer is the operator's ([HRTD] 7.2: level control is shifted
 * from the bypass valves to the regulating valves by hand at ~20 % on the
 * way up; the header): steady at 100 kg/s on the main valves (within the
 * bypass valve's 120.1 kg/s), the measured power falling from 0.25 to 0.05
 * (a load rejection) leaves it on the main valves. Mid-run, the BYPASS
 * command moves it to the bypass valves and MAIN back, and the feed command
 * does not move across either transfer (the integral takes the jump: I_L =
 * W_c - K_B e_L on the bypass valves, W_c - W_s - K_L e_L on the main
 * valves; e_L = 0 here). Then from 300 kg/s, above the bypass valve's
 * capacity, the command moves continuously: one tick takes it to 300 +
 * a_W (120.1 - 300) with a_W = 1 - exp(-dt / T_W) (the flow lag,
 * discretised exactly). The measure system copies the power input over
 * the rated power.
 */
Test(sg_control, operator_transfer_is_bumpless_both_ways_and_never_on_power)
{
    sgc_rig r;
    rig_open(&r);
    cr_assert_float_eq(r.def.bypass_power_frac, 0.20, 0.0, "~20 %% (the refdata row)");
    cr_expect_eq(st(&r, PCS_SG_CONTROL_ST_BYPASS), 0.0, "built at 50 %%: the main valves");
    /* the measure system: power input over rated */
    *r.power = 0.3 * RATED_W;
    tick(&r);
    cr_expect_float_eq(r.meas[PCS_SG_CONTROL_MEAS_POWER], 0.3, 1e-12, "measured power %.6f",
                       r.meas[PCS_SG_CONTROL_MEAS_POWER]);
    const double w = 100.0, steam = 80.0, nr = r.def.nr_program;
    hold_steady(&r, w);
    r.state[PCS_SG_CONTROL_ST_SG + PCS_SG_CONTROL_ST_INTEGRAL] = w - steam; /* demand = w */
    set_meas(&r, nr, steam, w, 0.25);
    tick(&r);
    cr_assert_float_eq(st(&r, PCS_SG_CONTROL_ST_FEED), w, 1e-9, "steady on the main valves");
    cr_assert_eq(st(&r, PCS_SG_CONTROL_ST_BYPASS), 0.0);
    for (double p = 0.19; p > 0.0; p -= 0.07) {
        set_meas(&r, nr, steam, w, p);
        tick(&r);
        cr_expect_eq(st(&r, PCS_SG_CONTROL_ST_BYPASS), 0.0, "power %.2f: still the main valves", p);
    }
    set_meas(&r, nr, steam, w, 0.05);
    submit(&r, "u1.sgctl", PCS_SG_CONTROL_OP_BYPASS, 0.0);
    tick(&r);
    cr_expect_eq(st(&r, PCS_SG_CONTROL_ST_BYPASS), 1.0, "BYPASS: the bypass valves");
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_FEED), w, 1e-9, "command %.9f across the transfer",
                       st(&r, PCS_SG_CONTROL_ST_FEED));
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_INTEGRAL), w, 1e-9, "I_L %.9f = W_c (e_L 0)",
                       st(&r, PCS_SG_CONTROL_ST_INTEGRAL));
    set_meas(&r, nr, steam, w, 0.30);
    tick(&r);
    cr_expect_eq(st(&r, PCS_SG_CONTROL_ST_BYPASS), 1.0, "power 0.30: still the bypass valves");
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_FEED), w, 1e-9);
    set_meas(&r, nr, steam, w, 0.30);
    submit(&r, "u1", PCS_SG_CONTROL_OP_MAIN, 1.0);
    tick(&r);
    cr_expect_eq(st(&r, PCS_SG_CONTROL_ST_BYPASS), 0.0, "MAIN for SG 1: the main valves");
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_FEED), w, 1e-9, "command %.9f back across",
                       st(&r, PCS_SG_CONTROL_ST_FEED));
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_INTEGRAL), w - steam, 1e-9, "I_L %.9f = W_c - W_s",
                       st(&r, PCS_SG_CONTROL_ST_INTEGRAL));
    /* above the bypass valve's capacity: continuous, toward it over T_W */
    const double big = 300.0;
    hold_steady(&r, big);
    r.state[PCS_SG_CONTROL_ST_SG + PCS_SG_CONTROL_ST_INTEGRAL] = big - steam;
    set_meas(&r, nr, steam, big, 0.19);
    submit(&r, "u1.sgctl", PCS_SG_CONTROL_OP_BYPASS, 0.0);
    tick(&r);
    double expect = big + (1.0 - exp(-r.dt / r.def.flow_lag_s)) * (r.def.bypass_max_kg_s - big);
    cr_expect_eq(st(&r, PCS_SG_CONTROL_ST_BYPASS), 1.0);
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_FEED), expect, 1e-9,
                       "command %.9f, hand %.9f (the main valve closes onto the bypass)",
                       st(&r, PCS_SG_CONTROL_ST_FEED), expect);
    cr_expect_float_eq(r.sec_feed[0], st(&r, PCS_SG_CONTROL_ST_FEED), 0.0,
                       "the secondary's feed is the command");
    pcs_world_destroy(r.w);
}

/*
 * The bypass valves' level gain (header): K_B = K_L W_byp / feed_max =
 * 10 x 120.1 / 720.6 = 1.6667 kg/s per % NR, the main loop's proportional
 * band in valve travel on the smaller valve. On the bypass valves at the
 * program with I_L = 50 kg/s, a lagged level 3 % NR low gives the demand
 * 50 + 3 K_B (+ the tick's integral K_B dt / T_L x 3), and the command
 * moves a_W of the way to it. A unit built below 20 % starts on them.
 */
Test(sg_control, bypass_valves_use_their_own_level_gain)
{
    sgc_rig r;
    rig_open(&r);
    const double kb = 10.0 * 120.1 / 720.6;
    cr_expect_float_eq(r.def.bypass_gain_kg_s_pct, kb, 1e-12, "K_B %.6f",
                       r.def.bypass_gain_kg_s_pct);
    double *s = r.state + PCS_SG_CONTROL_ST_SG;
    const double nr = r.def.nr_program, lag = nr - 3.0;
    s[PCS_SG_CONTROL_ST_LEVEL_LAG] = lag;
    s[PCS_SG_CONTROL_ST_FEED] = 50.0;
    s[PCS_SG_CONTROL_ST_INTEGRAL] = 50.0;
    s[PCS_SG_CONTROL_ST_BYPASS] = 1.0;
    set_meas(&r, lag, 40.0, 50.0, 0.05);
    tick(&r);
    double i_l = 50.0 + kb * r.dt / r.def.level_reset_s * 3.0, demand = kb * 3.0 + i_l;
    double expect = 50.0 + (1.0 - exp(-r.dt / r.def.flow_lag_s)) * (demand - 50.0);
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_INTEGRAL), i_l, 1e-9, "I_L %.9f, hand %.9f",
                       st(&r, PCS_SG_CONTROL_ST_INTEGRAL), i_l);
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_FEED), expect, 1e-9, "command %.9f, hand %.9f",
                       st(&r, PCS_SG_CONTROL_ST_FEED), expect);
    pcs_world_destroy(r.w);
    /* built at 10 % of measured power: on the bypass valves */
    memset(&r, 0, sizeof r);
    pcs_world_def wd;
    pcs_world_default(&wd);
    cr_assert_eq(pcs_world_create(&wd, &r.w), PCS_OK);
    add_secondary(r.w, &r.sec);
    uint32_t ps = 0;
    cr_assert_eq(pcs_store_register(r.w, "t.power", sizeof(double), 1, PCS_STORE_STATE_F64, &ps),
                 PCS_OK);
    *(double *)pcs_store_data(r.w, ps) = 0.10 * RATED_W;
    pcs_sg_control_default(&r.def);
    r.def.unit_name = "u1";
    r.def.power = (pcs_pzr_control_input){ps, 0, PCS_PZR_CONTROL_NO_STATUS, 0};
    r.def.rated_power_w = RATED_W;
    cr_assert_eq(pcs_sg_control_add(r.w, &r.def, r.sec, &r.sc), PCS_OK, "%s", pcs_last_error());
    const double *s2 = pcs_store_data(r.w, pcs_sg_control_state_store(r.sc));
    cr_expect_eq(s2[PCS_SG_CONTROL_ST_SG + PCS_SG_CONTROL_ST_BYPASS], 1.0,
                 "built at 10 %%: the bypass valves");
    pcs_world_destroy(r.w);
}

/*
 * The level lag is stable at any step: at dt 0.2 s with T_F 0.05 s (the
 * def's lowest; dt / T_F = 4), forward Euler multiplied the gap by
 * 1 - 4 = -3 each tick and the lagged level ran away (44 -> 41 -> 50 -> 23
 * ...). Discretised exactly, the gap shrinks by exp(-4) per tick, hand-
 * computed: after tick k, L = 45 - exp(-4 k).
 */
Test(sg_control, level_lag_is_exact_and_stable_when_dt_exceeds_twice_t_f)
{
    sgc_rig r;
    rig_open_with(&r, 0.2, 1, 0.05);
    hold_steady(&r, 300.0);
    r.state[PCS_SG_CONTROL_ST_SG + PCS_SG_CONTROL_ST_INTEGRAL] = 20.0;
    for (int k = 1; k <= 8; k++) {
        set_meas(&r, 45.0, 280.0, 300.0, 0.5);
        tick(&r);
        double expect = 45.0 - exp(-4.0 * k);
        cr_assert_float_eq(st(&r, PCS_SG_CONTROL_ST_LEVEL_LAG), expect, 1e-12,
                           "tick %d: lagged level %.9g, hand %.9g", k,
                           st(&r, PCS_SG_CONTROL_ST_LEVEL_LAG), expect);
    }
    pcs_world_destroy(r.w);
}

/*
 * Windup at the transfer to the bypass valves: from 300 kg/s on the main
 * valves (above the bypass valves' 120.1 kg/s), the level at its program,
 * then the level 10 % NR above the program with 20 kg/s of steam (a load
 * drop). The bypass output starts at the valve's capacity (not at 300
 * kg/s, which the PI would have to unwind at K_L / T_L x 10 % = 0.83 kg/s
 * per s: before the fix the command sat at 120.1 kg/s for about 100 s;
 * K_B 1.667 would take 600 s),
 * so the command, which falls from 300 kg/s over the flow lag T_W 2 s,
 * drops below the capacity within 10 s (the demand is 18 kg/s below it
 * after 1 s: the lagged level is 1.8 % NR up) where before it held it.
 */
Test(sg_control, transfer_to_the_bypass_valves_from_above_their_capacity_does_not_wind_up)
{
    sgc_rig r;
    rig_open(&r);
    hold_steady(&r, 300.0);
    r.state[PCS_SG_CONTROL_ST_SG + PCS_SG_CONTROL_ST_INTEGRAL] = 300.0 - 280.0;
    set_meas(&r, r.def.nr_program, 280.0, 300.0, 0.19);
    submit(&r, "u1.sgctl", PCS_SG_CONTROL_OP_BYPASS, 1.0);
    tick(&r);
    cr_assert_eq(st(&r, PCS_SG_CONTROL_ST_BYPASS), 1.0);
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_INTEGRAL), r.def.bypass_max_kg_s, 1e-9,
                       "I_L %.6f: the bypass output starts at the capacity 120.1 kg/s",
                       st(&r, PCS_SG_CONTROL_ST_INTEGRAL));
    const int n = (int)lround(10.0 / r.dt);
    int k = 1;
    for (; k <= n; k++) {
        set_meas(&r, r.def.nr_program + 10.0, 20.0, st(&r, PCS_SG_CONTROL_ST_FEED), 0.10);
        tick(&r);
        if (st(&r, PCS_SG_CONTROL_ST_FEED) < r.def.bypass_max_kg_s - 1.0)
            break;
    }
    cr_expect_leq(k, n, "command %.3f kg/s after 10 s with the level 10 %% NR high (capacity %.1f)",
                  st(&r, PCS_SG_CONTROL_ST_FEED), r.def.bypass_max_kg_s);
    pcs_world_destroy(r.w);
}

/*
 * What the controller writes loads back: on the bypass valves with the
 * feed isolated (limit 0, command 0) and the level 6 % NR above the
 * program, the MAIN transfer with 1000 kg/s of steam set
 * I_L = W_c - W_s - K_L e_L = 0 - 1000 + 60 = -940 kg/s unclamped, and the
 * load check (|I_L| <= feed_max_kg_s 720.6) refused the controller's own
 * save. The bumpless I_L is held within +-feed_max_kg_s like the
 * integration's.
 */
Test(sg_control, bumpless_integral_is_clamped_so_its_own_save_loads)
{
    sgc_rig r;
    rig_open(&r);
    double *s = r.state + PCS_SG_CONTROL_ST_SG;
    double *lim = pcs_store_data(r.w, pcs_sg_control_feed_limit_store(r.sc));
    s[PCS_SG_CONTROL_ST_LEVEL_LAG] = 50.0;
    s[PCS_SG_CONTROL_ST_FEED] = 0.0;
    s[PCS_SG_CONTROL_ST_INTEGRAL] = 60.0;
    s[PCS_SG_CONTROL_ST_BYPASS] = 1.0;
    lim[0] = 0.0;
    set_meas(&r, 50.0, 1000.0, 0.0, 0.19);
    tick(&r);
    set_meas(&r, 50.0, 1000.0, 0.0, 0.19);
    submit(&r, "u1", PCS_SG_CONTROL_OP_MAIN, 0.0);
    tick(&r);
    cr_assert_eq(st(&r, PCS_SG_CONTROL_ST_BYPASS), 0.0, "MAIN: the main valves");
    cr_expect_float_eq(st(&r, PCS_SG_CONTROL_ST_INTEGRAL), -r.def.feed_max_kg_s, 1e-9,
                       "I_L %.3f held at -feed_max_kg_s", st(&r, PCS_SG_CONTROL_ST_INTEGRAL));
    char path[] = "/tmp/pcsim-sgc-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(pcs_world_save(r.w, path), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_world_load(r.w, path), PCS_OK, "its own save: %s", pcs_last_error());
    unlink(path);
    pcs_world_destroy(r.w);
}

/*
 * The mode flag is 0 or 1 (with or without a power input: the commands
 * move it either way): a saved 0.5 is refused at load, naming the store,
 * element and value; a 1 without a power input loads, and the MAIN
 * command returns it; an SG number that is not a whole number in 0..n_sg
 * is refused (1.5 would have moved SG 1).
 */
Test(sg_control, bypass_flag_is_0_or_1_at_load_and_commands_check_the_sg)
{
    sgc_rig r;
    rig_open_with(&r, 0.0, 0, 0.0);
    char path[] = "/tmp/pcsim-sgc-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    double *flag = &r.state[PCS_SG_CONTROL_ST_SG + PCS_SG_CONTROL_ST_BYPASS];
    *flag = 0.5;
    cr_assert_eq(pcs_world_save(r.w, path), PCS_OK, "%s", pcs_last_error());
    *flag = 0.0;
    cr_expect_eq(pcs_world_load(r.w, path), PCS_E_CORRUPT, "flag 0.5");
    cr_expect(strstr(pcs_last_error(),
                     "u1.sgctl.state' element 3 (bypass valves flag): value 0.5 is not 0 or 1"),
              "%s", pcs_last_error());
    cr_expect_eq(*flag, 0.0, "a refused load changes nothing");
    *flag = 1.0;
    cr_assert_eq(pcs_world_save(r.w, path), PCS_OK, "%s", pcs_last_error());
    *flag = 0.0;
    cr_expect_eq(pcs_world_load(r.w, path), PCS_OK, "flag 1 without a power input: %s",
                 pcs_last_error());
    cr_expect_eq(*flag, 1.0);
    submit(&r, "u1.sgctl", PCS_SG_CONTROL_OP_MAIN, 0.0);
    tick(&r);
    cr_expect_eq(*flag, 0.0, "MAIN returns it");
    pcs_command c;
    memset(&c, 0, sizeof c);
    pcs_target_id id;
    cr_assert_eq(
        pcs_command_kind_find(r.w, PCS_SG_CONTROL_COMMANDS, PCS_SG_CONTROL_OP_BYPASS, &c.kind),
        PCS_OK);
    cr_assert_eq(pcs_command_target_find(r.w, "u1.sgctl", &id), PCS_OK);
    c.target = pcs_target_id_store(id);
    c.args[0] = 1.5; /* would truncate to SG 1 */
    pcs_command_submit(r.w, &c);
    tick(&r);
    cr_expect_eq(*flag, 0.0, "SG 1.5: refused, nothing moves");
    unlink(path);
    pcs_world_destroy(r.w);
}

/* The def's new fields are range-checked by name, and a power input must
 * be a float64 element of a registered store. */
Test(sg_control, def_checks_name_the_field)
{
    pcs_world_def wd;
    pcs_world_default(&wd);
    pcs_world *w = NULL;
    cr_assert_eq(pcs_world_create(&wd, &w), PCS_OK);
    pcs_secondary *sec = NULL;
    add_secondary(w, &sec);
    pcs_sg_control_def cd;
    pcs_sg_control *sc = NULL;
    pcs_sg_control_default(&cd);
    cd.unit_name = "u1";
    cd.bypass_max_kg_s = cd.feed_max_kg_s + 1.0;
    cr_expect_eq(pcs_sg_control_add(w, &cd, sec, &sc), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "bypass_max_kg_s"), "%s", pcs_last_error());
    pcs_sg_control_default(&cd);
    cd.unit_name = "u1";
    cd.level_lag_s = 0.0;
    cr_expect_eq(pcs_sg_control_add(w, &cd, sec, &sc), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "level_lag_s"), "%s", pcs_last_error());
    pcs_sg_control_default(&cd);
    cd.unit_name = "u1";
    cd.power.store = 9999;
    cr_expect_eq(pcs_sg_control_add(w, &cd, sec, &sc), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "sg_control: power"), "%s", pcs_last_error());
    pcs_world_destroy(w);
}

/*
 * The NR level program of pwr_transients.md section 1 (row "SG NR level
 * program": 33 % at 0 % power -> 44 % at 20 %, 44 % from 20 to 100 %),
 * hand-computed: 33 + 11 x P / 0.2 below the break, so 35.75 % at 5 %,
 * 38.5 % at 10 %, 44 % at 20 % and 100 %; clamped at 0 and above; a
 * non-finite power gives the 44 % program.
 */
Test(sg_control, level_program_ramps_33_to_44_percent_over_0_to_20_percent_power)
{
    pcs_sg_control_def d;
    pcs_sg_control_default(&d);
    cr_expect_float_eq(pcs_sg_control_program(&d, 0.0), 33.0, 1e-12);
    cr_expect_float_eq(pcs_sg_control_program(&d, 0.05), 35.75, 1e-12);
    cr_expect_float_eq(pcs_sg_control_program(&d, 0.10), 38.5, 1e-12);
    cr_expect_float_eq(pcs_sg_control_program(&d, 0.20), 44.0, 1e-12);
    cr_expect_float_eq(pcs_sg_control_program(&d, 1.0), 44.0, 1e-12);
    cr_expect_float_eq(pcs_sg_control_program(&d, 1.3), 44.0, 1e-12);
    cr_expect_float_eq(pcs_sg_control_program(&d, -0.1), 33.0, 1e-12);
    cr_expect_float_eq(pcs_sg_control_program(&d, NAN), 44.0, 1e-12);
    cr_expect(isnan(pcs_sg_control_program(NULL, 0.5)));
}
