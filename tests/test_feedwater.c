/**
 * @file test_feedwater.c
 * @brief The feedwater plant (pcsim/feedwater.h, issue 15): main feed pump
 *        curve and coast-down, feedwater isolation with sg_control's
 *        anti-windup, auxiliary feedwater start and rated flow, the AFW's
 *        enthalpy in the secondary's energy balance, the heater train's
 *        feed temperature with load, crafted saves, no allocation per tick,
 *        and the plant builder's wiring on a steam-side unit.
 *
 * References: refdata pwr_transients.md section 4 "AFW" row ([HRTD] 5.7:
 * 2 x 440 gpm motor-driven + 1 x 880 gpm turbine-driven pumps, rated flow
 * within 1 min of the start signal) and section 5 ("starts on low-low level
 * or trip of both main feed pumps", [HRTD] 5.7, 12.3); section 4 "main
 * feedwater" (isolated on P-4 + low Tavg, [HRTD] 12.3: the isolation signal
 * is written by hand here, as the interlock logic would). The pump curve,
 * coast-down, closure time and heater train are the model's stated
 * assumptions (pcsim/feedwater.h): the tests check the model does what its
 * header says, with values computed by hand from the definition and IF97
 * (pcsim/water.h) densities and enthalpies. Feed temperature at 100 % load
 * 493.43 K is [TYP] typpwr2.i card 2820201 (the secondary's feed_t_k).
 *
 * Cost: most tests use a secondary-only unit of 1 or 2 SGs from its
 * start estimate (no settling; about 1 ms per simulated second per SG); one
 * test builds a full steam-side station unit.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "tests/alloc_count.h"
#include "tests/save_craft.h"
#include "tests/save_refused.h"

#define FW_G 9.80665
#define FW_GPM 6.30901964e-5 /* m3/s per US gpm */

/* The process-wide (p, h) table the station's units share. */
static const pcs_water_ph_table *table(void)
{
    const pcs_water_ph_table *t = NULL;
    cr_assert_eq(pcs_station_water_table(&t), PCS_OK, "%s", pcs_last_error());
    return t;
}

typedef struct fw_unit {
    pcs_world *w;
    pcs_secondary *sec;
    pcs_sg_control *sgc;
    pcs_feedwater *fw;
    pcs_feedwater_def def;
    pcs_secondary_stores s;
    double *out, *feed, *afw, *feed_t, *ilk, *sig, *state, *limit, *sgc_state;
    uint32_t n_sg;
} fw_unit;

/* A secondary of @p n_sg SGs from its start estimate, with sg_control if
 * @p with_sgc, and the feedwater plant scaled to n_sg as the plant builder
 * scales it (ratings for 4 SGs x n_sg / 4). @p tweak edits the def. */
static void fw_open(fw_unit *u, uint32_t n_sg, int with_sgc, void (*tweak)(pcs_feedwater_def *))
{
    memset(u, 0, sizeof *u);
    pcs_world_def wd;
    pcs_world_default(&wd);
    wd.check_access = 1;
    wd.check_finite = 1;
    cr_assert_eq(pcs_world_create(&wd, &u->w), PCS_OK);
    pcs_secondary_def d;
    pcs_secondary_default(&d);
    d.table = table();
    d.n_sg = n_sg;
    d.unit_name = "u1";
    cr_assert_eq(pcs_secondary_add(u->w, &d, &u->sec), PCS_OK, "%s", pcs_last_error());
    if (with_sgc) {
        pcs_sg_control_def cd;
        pcs_sg_control_default(&cd);
        cd.unit_name = "u1";
        cr_assert_eq(pcs_sg_control_add(u->w, &cd, u->sec, &u->sgc), PCS_OK, "%s",
                     pcs_last_error());
        u->limit = pcs_store_data(u->w, pcs_sg_control_feed_limit_store(u->sgc));
        u->sgc_state = pcs_store_data(u->w, pcs_sg_control_state_store(u->sgc));
    }
    pcs_feedwater_default(&u->def);
    u->def.unit_name = "u1";
    u->def.mfp_rated_kg_s *= n_sg / 4.0;
    u->def.mfp_runout_kg_s *= n_sg / 4.0;
    u->def.rated_steam_kg_s = n_sg * d.rated_steam_kg_s;
    if (tweak)
        tweak(&u->def);
    cr_assert_eq(pcs_feedwater_add(u->w, &u->def, u->sec, u->sgc, &u->fw), PCS_OK, "%s",
                 pcs_last_error());
    u->s = pcs_secondary_store_ids(u->sec);
    u->out = pcs_store_data(u->w, u->s.out);
    u->feed = pcs_store_data(u->w, u->s.feed);
    u->afw = pcs_store_data(u->w, u->s.afw);
    u->feed_t = pcs_store_data(u->w, u->s.feed_t);
    pcs_feedwater_stores fs = pcs_feedwater_store_ids(u->fw);
    u->state = pcs_store_data(u->w, fs.state);
    u->sig = pcs_store_data(u->w, fs.sig);
    uint32_t ilk;
    cr_assert_eq(pcs_plant_signals(u->w, "u1", PCS_SIGNALS_INTERLOCK, &ilk), PCS_OK, "%s",
                 pcs_last_error());
    u->ilk = pcs_store_data(u->w, ilk);
    u->n_sg = n_sg;
}

static void fw_close(fw_unit *u)
{
    pcs_world_destroy(u->w);
    u->w = NULL;
}

static double sg_out(const fw_unit *u, uint32_t l, uint32_t what)
{
    return u->out[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l + what];
}

/* n ticks; without sg_control each SG's feed follows its steam flow. */
static void fw_tick(fw_unit *u, int n)
{
    for (int i = 0; i < n; i++) {
        for (uint32_t l = 0; !u->sgc && l < u->n_sg; l++)
            u->feed[l] = sg_out(u, l, PCS_SECONDARY_OUT_STEAM);
        cr_assert_eq(pcs_world_tick(u->w), PCS_OK, "tick %d: %s", i, pcs_last_error());
    }
}

static double dt(const fw_unit *u)
{
    return pcs_world_clock(u->w)->dt_s;
}

static void submit(fw_unit *u, uint32_t op, double value)
{
    pcs_command c;
    memset(&c, 0, sizeof c);
    pcs_target_id id;
    cr_assert_eq(pcs_command_kind_find(u->w, PCS_FEEDWATER_COMMANDS, op, &c.kind), PCS_OK, "%s",
                 pcs_last_error());
    cr_assert_eq(pcs_command_target_find(u->w, "u1.feed", &id), PCS_OK, "%s", pcs_last_error());
    c.target = pcs_target_id_store(id);
    c.args[0] = value;
    cr_assert_eq(pcs_command_submit(u->w, &c), PCS_OK, "%s", pcs_last_error());
}

static double mfp_speed(const fw_unit *u, uint32_t i)
{
    return u->state[PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * i + PCS_FEEDWATER_ST_SPEED];
}

static double rho_pt(double p, double t)
{
    double rho;
    cr_assert_eq(pcs_water_rho_pt(p, t, &rho), PCS_OK);
    return rho;
}

/* ---- pump curve ----------------------------------------------------------------------- */

/*
 * One pump at rated speed on H(W) = H0 (1 - (W/W_ro)^2), H0 1270 m, W_ro
 * 1441.2 kg/s, suction 2.4 MPa, feed at 493.43 K: rho = IF97(2.4 MPa,
 * 493.43 K) = 839.93 kg/m3, rho g H0 = 10.461 MPa. Against 6.0 MPa:
 * W = 1441.2 sqrt(1 - 3.6/10.461) = 1167.16 kg/s; against 7.6 MPa (no-load
 * SG pressure, [HRTD] 11.2): W = 1441.2 sqrt(1 - 5.2/10.461) = 1022.05 kg/s.
 * At 80 % speed (affinity: s^2 - x) against 6.0 MPa: 1441.2 sqrt(0.64 -
 * 0.34413) = 783.91 kg/s. (The model's feed limit on this curve at a
 * unit's SG pressure: the loss-of-feedwater test below.)
 */
Test(feedwater, pump_curve_gives_the_hand_computed_flow_at_two_sg_pressures)
{
    pcs_feedwater_def d;
    pcs_feedwater_default(&d);
    double rho = rho_pt(2.4e6, 493.43);
    cr_expect(fabs(rho - 839.93) < 0.01, "feed density %.4f kg/m3", rho);
    double dp0 = rho * FW_G * 1270.0;
    cr_expect(fabs(dp0 - 10.461e6) < 1e3, "rho g H0 = %.6g Pa", dp0);
    double w60 = pcs_feedwater_pump_flow(&d, rho, 1.0, 6.0e6);
    double w76 = pcs_feedwater_pump_flow(&d, rho, 1.0, 7.6e6);
    double w60s = pcs_feedwater_pump_flow(&d, rho, 0.8, 6.0e6);
    cr_expect(fabs(w60 - 1441.2 * sqrt(1.0 - 3.6e6 / dp0)) < 1e-9, "%.9g", w60);
    cr_expect(fabs(w60 - 1167.16) < 0.01, "6.0 MPa: %.4f kg/s", w60);
    cr_expect(fabs(w76 - 1022.05) < 0.01, "7.6 MPa: %.4f kg/s", w76);
    cr_expect(fabs(w60s - 783.91) < 0.01, "6.0 MPa at 80 %% speed: %.4f kg/s", w60s);
    cr_expect(w76 < w60, "less flow against more pressure");
    /* shut-off: no flow once the back-pressure exceeds suction + rho g H0 s^2 */
    cr_expect_eq(pcs_feedwater_pump_flow(&d, rho, 1.0, 2.4e6 + dp0 + 1.0), 0.0);
    cr_expect_eq(pcs_feedwater_pump_flow(&d, rho, 0.5, 2.4e6 + 0.25 * dp0 + 1.0), 0.0);
    fprintf(stderr,
            "feed pump curve: rho %.3f kg/m3, 6.0 MPa %.2f kg/s, 7.6 MPa %.2f kg/s, "
            "6.0 MPa at 0.8 speed %.2f kg/s\n",
            rho, w60, w76, w60s);
}

/* ---- loss of normal feedwater ---------------------------------------------------------- */

/*
 * At rated speed each SG's feed limit is the pump curve against its
 * pressure (by hand, 1e-9). Both main feed pumps tripped by command: feed.sig MFP_TRIPPED = 1 from
 * the next tick; the speed coasts down as exp(-t / 10 s); each SG's feed
 * limit is the pump curve at that speed (1e-9); the applied feed stays at
 * or under the limit and reaches 0 once s^2 < (p - p_s) / (rho g H0), i.e.
 * after t0 = -5 s ln x (about 4.3 s at 6.8 MPa); it is 0 at t0 + 0.5 s.
 * "feed_pump_start" then runs the pumps up again.
 */
Test(feedwater, both_main_feed_pumps_tripped_coast_the_feed_down_to_zero)
{
    fw_unit u;
    fw_open(&u, 1, 1, NULL);
    fw_tick(&u, 20);
    cr_expect_eq(u.sig[PCS_SIG_FEED_MFP_TRIPPED], 0.0);
    double rho = pcs_feedwater_rho_feed(u.fw), h = dt(&u), tau = 10.0;
    cr_expect(fabs(rho - rho_pt(2.4e6, 493.43)) < 1e-9, "feed density %.9g", rho);
    { /* both pumps at rated speed: 2 x 360.3 sqrt(1 - (p - 2.4 MPa) / (rho g H0)) (the
         pumps' runout scaled to one SG) */
        double p = sg_out(&u, 0, PCS_SECONDARY_OUT_P);
        double hand = 2.0 * 360.3 * sqrt(1.0 - (p - 2.4e6) / (rho * FW_G * 1270.0));
        cr_expect(fabs(u.limit[0] - hand) <= 1e-9 * hand, "limit %.9g at %.6g Pa, by hand %.9g",
                  u.limit[0], p, hand);
        fprintf(stderr, "feed limit at %.4f MPa: %.2f kg/s (both pumps, one SG)\n", p * 1e-6,
                u.limit[0]);
    }
    double feed0 = sg_out(&u, 0, PCS_SECONDARY_OUT_FEED);
    cr_expect(feed0 > 100.0, "feeding %.1f kg/s before the trip", feed0);
    submit(&u, PCS_FEEDWATER_OP_MFP_TRIP, 1.0);
    fw_tick(&u, 1);
    cr_expect_eq(u.sig[PCS_SIG_FEED_MFP_TRIPPED], 0.0, "one pump tripped is not both");
    submit(&u, PCS_FEEDWATER_OP_MFP_TRIP, 0.0); /* 0: all */
    fw_tick(&u, 1);
    cr_expect_eq(u.sig[PCS_SIG_FEED_MFP_TRIPPED], 1.0);
    /* pump 2 tripped one tick after pump 1 */
    double s1 = exp(-2.0 * h / tau), s2 = exp(-h / tau);
    cr_expect(fabs(mfp_speed(&u, 0) - s1) < 1e-12, "speed 1 %.15g, want %.15g", mfp_speed(&u, 0),
              s1);
    cr_expect(fabs(mfp_speed(&u, 1) - s2) < 1e-12, "speed 2 %.15g, want %.15g", mfp_speed(&u, 1),
              s2);
    double t0 = 0.0;
    for (int k = 1; k <= 130; k++) { /* 6.5 s */
        double lim_before = u.limit[0];
        fw_tick(&u, 1);
        double p = sg_out(&u, 0, PCS_SECONDARY_OUT_P), x = (p - 2.4e6) / (rho * FW_G * 1270.0);
        double a = mfp_speed(&u, 0), b = mfp_speed(&u, 1);
        double want =
            pcs_feedwater_pump_flow(&u.def, rho, a, p) + pcs_feedwater_pump_flow(&u.def, rho, b, p);
        cr_assert(fabs(u.limit[0] - want) <= 1e-9 * fmax(want, 1.0), "t %.2f: limit %.9g want %.9g",
                  k * h, u.limit[0], want);
        cr_assert(sg_out(&u, 0, PCS_SECONDARY_OUT_FEED) <= lim_before + 1e-9,
                  "t %.2f: feed %.3f above the limit %.3f", k * h,
                  sg_out(&u, 0, PCS_SECONDARY_OUT_FEED), lim_before);
        if (k == 1)
            t0 = -0.5 * tau * log(x);
    }
    cr_expect(t0 > 3.0 && t0 < 6.0, "t0 %.3f s", t0);
    cr_expect_eq(sg_out(&u, 0, PCS_SECONDARY_OUT_FEED), 0.0, "feed after 6.5 s");
    cr_expect_eq(u.sig[PCS_SIG_FEED_MAIN_KG_S], 0.0);
    fprintf(stderr, "loss of feed: %.1f kg/s before, 0 after %.2f s (t0 by hand %.2f s)\n", feed0,
            6.5, t0);
    submit(&u, PCS_FEEDWATER_OP_MFP_START, 0.0);
    double s_before = mfp_speed(&u, 0);
    fw_tick(&u, 20);
    cr_expect_eq(u.sig[PCS_SIG_FEED_MFP_TRIPPED], 0.0);
    cr_expect(fabs(mfp_speed(&u, 0) - (s_before + 20 * h / 30.0)) < 1e-12, "run-up 1 s / 30 s");
    fw_close(&u);
}

/* ---- feedwater isolation ---------------------------------------------------------------- */

/*
 * FW_ISOLATION written by hand: the isolation valves stroke shut at 1 / 5 s
 * (half open after 2.5 s), main feed is 0 from the tick after they are shut
 * (5 s + one tick for sg_control to see the limit); then 60 s with the level
 * falling below its program: sg_control's level integral does not move
 * (conditional integration against a top of 0) and stays within
 * [-feed_max, feed_max]. Clearing the signal strokes them open again.
 */
Test(feedwater, isolation_shuts_the_feed_within_the_closure_time_without_windup)
{
    fw_unit u;
    fw_open(&u, 1, 1, NULL);
    fw_tick(&u, 20);
    u.ilk[PCS_SIG_FW_ISOLATION] = 1.0;
    fw_tick(&u, 50);
    cr_expect(fabs(u.state[PCS_FEEDWATER_ST_ISO_VALVE] - 0.5) < 1e-12, "valve %.15g at 2.5 s",
              u.state[PCS_FEEDWATER_ST_ISO_VALVE]);
    fw_tick(&u, 51);
    cr_expect_eq(u.state[PCS_FEEDWATER_ST_ISO_VALVE], 0.0);
    cr_expect_eq(u.limit[0], 0.0);
    fw_tick(&u, 1);
    cr_expect_eq(sg_out(&u, 0, PCS_SECONDARY_OUT_FEED), 0.0, "feed 5.1 s after isolation");
    double *sl = u.sgc_state + PCS_SG_CONTROL_ST_SG;
    double i0 = sl[PCS_SG_CONTROL_ST_INTEGRAL], nr0 = sg_out(&u, 0, PCS_SECONDARY_OUT_NR);
    fw_tick(&u, 1200);
    double i1 = sl[PCS_SG_CONTROL_ST_INTEGRAL], nr1 = sg_out(&u, 0, PCS_SECONDARY_OUT_NR);
    cr_expect_eq(sg_out(&u, 0, PCS_SECONDARY_OUT_FEED), 0.0);
    cr_expect_eq(sl[PCS_SG_CONTROL_ST_FEED], 0.0);
    cr_expect(nr1 < 44.0 && nr1 < nr0, "level falls below the program: %.2f -> %.2f %%", nr0, nr1);
    cr_expect_eq(i1, i0, "integral moved %.9g -> %.9g while isolated", i0, i1);
    cr_expect(fabs(i1) <= 720.6, "integral %.3f within feed_max", i1);
    fprintf(stderr, "isolation: NR %.2f -> %.2f %% over 60 s, level integral held at %.3f kg/s\n",
            nr0, nr1, i1);
    u.ilk[PCS_SIG_FW_ISOLATION] = 0.0;
    fw_tick(&u, 100);
    cr_expect_eq(u.state[PCS_FEEDWATER_ST_ISO_VALVE], 1.0, "open again 5 s after the reset");
    cr_expect(sg_out(&u, 0, PCS_SECONDARY_OUT_FEED) > 0.0, "feeding again");
    fw_close(&u);
}

/*
 * The isolation closes the bypass feed regulating valves too ([HRTD] 12.3:
 * every feedwater isolation signal closes the 4 main and the 4 bypass
 * regulating valves and the 8 isolation valves): with the level control
 * on the bypass valves and their PI asking for feed (I_L 100 kg/s, output
 * K_B (44 - NR) + I_L, tens of kg/s above 0 at the rig's ~60 % NR), the
 * applied feed is 0 from 5 s + one tick after FW_ISOLATION and stays 0 for
 * 60 s, with no auxiliary feed (no AFW start). The 45 % turbine trip's
 * level rise under P-14's isolation (72 -> 79 % NR in 300 s) is not a feed
 * path: the secondary's mass falls over it (scenarios/README.md).
 */
Test(feedwater, isolation_closes_the_bypass_valves_as_well)
{
    fw_unit u;
    fw_open(&u, 1, 1, NULL);
    double *sl = u.sgc_state + PCS_SG_CONTROL_ST_SG;
    sl[PCS_SG_CONTROL_ST_BYPASS] = 1.0;
    sl[PCS_SG_CONTROL_ST_INTEGRAL] = 100.0;
    /* 1 s: the command is on its way from the rig's feed (its steam flow)
       down to the bypass valves' 120.1 kg/s (lag T_W 2 s); longer, the
       start estimate's dome runs dry with the turbine taking 480 kg/s */
    fw_tick(&u, 20);
    double before = sg_out(&u, 0, PCS_SECONDARY_OUT_FEED);
    cr_expect(before > 10.0, "the bypass valves feed before the isolation: %.3f kg/s", before);
    u.ilk[PCS_SIG_FW_ISOLATION] = 1.0;
    fw_tick(&u, 102);
    double most = 0.0, afw = 0.0;
    for (int k = 0; k < 1200; k++) {
        fw_tick(&u, 1);
        most = fmax(most, sg_out(&u, 0, PCS_SECONDARY_OUT_FEED));
        afw = fmax(afw, sg_out(&u, 0, PCS_SECONDARY_OUT_AFW));
    }
    cr_expect_eq(sl[PCS_SG_CONTROL_ST_BYPASS], 1.0, "still on the bypass valves");
    cr_expect_eq(most, 0.0, "bypass feed while isolated: up to %.6g kg/s", most);
    cr_expect_eq(afw, 0.0, "no auxiliary feed: up to %.6g kg/s", afw);
    fprintf(stderr, "isolation on the bypass valves: feed %.3f kg/s before, %.3g after\n", before,
            most);
    fw_close(&u);
}

/* ---- auxiliary feedwater ------------------------------------------------------------------ */

/*
 * AFW_START written by hand on a 2-SG unit: no AFW before the motor-driven
 * pumps' 10 s start delay; at 60 s the applied AFW is the rated 2 x 440 +
 * 880 gpm = 1760 gpm x 6.30902e-5 m3/s x rho(101325 Pa, 310.93 K) (993.05
 * kg/m3) = 110.27 kg/s, split equally (55.13 kg/s per SG); feed.sig's AFW
 * total is the same; its enthalpy closes the secondary's energy balance
 * (afw_energy above). From afw_throttle_after_s (61 s here) each SG's share
 * is throttled by its NR level (a band of 9-100 % here, so that the start
 * state's level sits inside it; the default is Salem's 9-33 %). The signal
 * held on after afw_stop does not restart the pumps; "afw_start" does. 0
 * bytes allocated by these ticks.
 */
/* The AFW's enthalpy in the secondary's balance (test below): turbine shut
 * (no boundary flow), one tick: mass in = dt sum (W_feed + W_afw), the
 * sources' energy = dt sum (W_feed h(p, T_feed) + W_afw h(p, 310.93 K)) at
 * each upper downcomer's start-of-tick pressure (1e-9), and mass and energy
 * close to 1e-14 of the content. */
static void afw_energy(fw_unit *u)
{
    double *turbine = pcs_store_data(u->w, u->s.turbine_valve);
    *turbine = 0.0;
    fw_tick(u, 2);
    const double *pv = pcs_store_data(u->w, u->s.p);
    double p_dc[2], t_feed = *u->feed_t, m0, e0, m1, e1, h = dt(u), mass = 0.0, want = 0.0;
    for (uint32_t l = 0; l < u->n_sg; l++)
        p_dc[l] = pv[pcs_secondary_volume(u->sec, PCS_SECONDARY_DC_UPPER, l)];
    pcs_secondary_totals(u->w, u->sec, &m0, &e0);
    fw_tick(u, 1);
    pcs_secondary_totals(u->w, u->sec, &m1, &e1);
    pcs_secondary_balance b = pcs_secondary_last_balance(u->sec);
    for (uint32_t l = 0; l < u->n_sg; l++) {
        double wf = sg_out(u, l, PCS_SECONDARY_OUT_FEED), wa = sg_out(u, l, PCS_SECONDARY_OUT_AFW);
        double hf, ha;
        cr_assert_eq(pcs_water_h_pt(p_dc[l], t_feed, &hf), PCS_OK);
        cr_assert_eq(pcs_water_h_pt(p_dc[l], 310.93, &ha), PCS_OK);
        cr_expect(wa > 55.0, "SG %u AFW on: %.3f kg/s", l + 1, wa);
        cr_expect(sg_out(u, l, PCS_SECONDARY_OUT_SAFETY) == 0.0, "safety valves shut");
        mass += h * (wf + wa);
        want += h * (wf * hf + wa * ha);
    }
    double src = b.energy_in_j - b.heat_in_j;
    cr_expect(fabs(b.mass_in_kg - mass) <= 1e-12 * mass, "mass in %.12g, want %.12g", b.mass_in_kg,
              mass);
    cr_expect(fabs(src - want) <= 1e-9 * fabs(want), "source energy %.12g J, by hand %.12g J", src,
              want);
    cr_expect(fabs(m1 - m0 - b.mass_in_kg) <= 1e-14 * m1, "mass closes");
    cr_expect(fabs(e1 - e0 - b.energy_in_j) <= 1e-14 * e1, "energy closes: %.3g",
              fabs(e1 - e0 - b.energy_in_j) / e1);
    fprintf(stderr, "AFW enthalpy: feed at %.2f K, AFW at 310.93 K, sources %.6g J (hand %.6g J)\n",
            t_feed, src, want);
}

static void throttle_at_61_s(pcs_feedwater_def *d)
{
    d->afw_throttle_after_s = 61.0;
    d->afw_level_high_pct = 100.0; /* a band the start state's level (about 60 %) is inside */
}

Test(feedwater, afw_reaches_rated_flow_within_60_s_and_its_enthalpy_closes_the_balance)
{
    fw_unit u;
    fw_open(&u, 2, 0, throttle_at_61_s);
    fw_tick(&u, 4);
    double rho = rho_pt(101325.0, 310.93);
    cr_expect(fabs(rho - 993.05) < 0.01, "CST water %.4f kg/m3", rho);
    cr_expect(fabs(pcs_feedwater_rho_afw(u.fw) - rho) < 1e-9);
    double rated = 1760.0 * FW_GPM * rho;
    cr_expect(fabs(rated - 110.27) < 0.01, "rated AFW %.4f kg/s", rated);
    u.ilk[PCS_SIG_AFW_START] = 1.0;
    pcs_test_alloc_begin();
    uint64_t arena = pcs_world_alloc_count(u.w);
    double first = -1.0, h = dt(&u);
    for (int k = 1; k <= 1200; k++) {
        fw_tick(&u, 1);
        double a = sg_out(&u, 0, PCS_SECONDARY_OUT_AFW) + sg_out(&u, 1, PCS_SECONDARY_OUT_AFW);
        if (k * h < 10.0)
            cr_assert_eq(a, 0.0, "t %.2f s: AFW %.3f kg/s before the start delay", k * h, a);
        if (a > 0.0 && first < 0.0)
            first = k * h;
    }
    cr_expect_eq(pcs_test_alloc_end(), 0, "the ticks allocated");
    cr_expect_eq(pcs_world_alloc_count(u.w), arena);
    for (uint32_t l = 0; l < 2; l++)
        cr_expect(fabs(sg_out(&u, l, PCS_SECONDARY_OUT_AFW) - rated / 2.0) <= 1e-12 * rated,
                  "SG %u AFW %.9g kg/s, want %.9g", l + 1, sg_out(&u, l, PCS_SECONDARY_OUT_AFW),
                  rated / 2.0);
    cr_expect(fabs(u.sig[PCS_SIG_FEED_AFW_KG_S] - rated) <= 1e-12 * rated, "feed.sig AFW %.9g",
              u.sig[PCS_SIG_FEED_AFW_KG_S]);
    fprintf(stderr, "AFW: first flow at %.2f s, %.3f kg/s per SG at 60 s (rated %.3f total)\n",
            first, sg_out(&u, 0, PCS_SECONDARY_OUT_AFW), rated);
    afw_energy(&u);
    /* the level throttle from 61 s: share x clamp((100 - NR) / (100 - 9), 0, 1) */
    fw_tick(&u, 20);
    for (uint32_t l = 0; l < 2; l++) {
        double nr = sg_out(&u, l, PCS_SECONDARY_OUT_NR), open = (100.0 - nr) / 91.0;
        cr_expect(open > 0.1 && open < 0.9, "SG %u NR %.2f %% inside the band", l + 1, nr);
        cr_expect(fabs(u.afw[l] - open * rated / 2.0) <= 1e-12 * rated,
                  "SG %u throttled AFW %.9g kg/s, want %.9g", l + 1, u.afw[l], open * rated / 2.0);
    }
    submit(&u, PCS_FEEDWATER_OP_AFW_STOP, 0.0);
    fw_tick(&u, 3);
    cr_expect_eq(u.afw[0], 0.0, "stopped with the signal still on");
    submit(&u, PCS_FEEDWATER_OP_AFW_START, 0.0);
    fw_tick(&u, 2);
    cr_expect_eq(u.afw[0], 0.0, "in its start delay");
    fw_close(&u);
}

/* ---- heater train ------------------------------------------------------------------------- */

static void fast_heaters(pcs_feedwater_def *d)
{
    d->heater_lag_s = 1.0;
}

/*
 * The steady line, the extraction steam's saturation temperature at a
 * pressure proportional to the load (IF97): p_sat(493.43 K) = 2.3317 MPa;
 * 493.43 K at load 1 (and above), T_sat(1.1659 MPa) = 459.81 K at 0.5,
 * T_sat(0.23317 MPa) = 398.28 K at 0.1, and the no-load 306.03 K (the 5 kPa
 * condensate) at 0 and wherever the extraction pressure falls below 5 kPa.
 * One tick of the lag by hand: T1 = T0 + (1 - exp(-dt / tau)) (T* - T0).
 * Then the turbine valve at 40 % of its opening cuts the steam flow: the
 * feed temperature falls, and after 30 lag constants sits at the steady
 * line's value for the turbine flow now (within 0.05 K: the flow still
 * drifts).
 */
Test(feedwater, feed_temperature_falls_with_load_to_the_heater_line)
{
    pcs_feedwater_def d;
    pcs_feedwater_default(&d);
    cr_expect_eq(pcs_feedwater_heater_t(&d, 1.0), 493.43);
    cr_expect_eq(pcs_feedwater_heater_t(&d, 1.2), 493.43);
    cr_expect(fabs(pcs_feedwater_heater_t(&d, 0.0) - 306.03) < 1e-12);
    cr_expect(fabs(pcs_feedwater_heater_t(&d, 0.002) - 306.03) < 1e-12);
    double p_r, t_half, t_tenth;
    cr_assert_eq(pcs_water_psat(493.43, &p_r), PCS_OK);
    cr_expect(fabs(p_r - 2.3317e6) < 100.0, "p_sat(493.43 K) %.6g Pa", p_r);
    cr_assert_eq(pcs_water_tsat(0.5 * p_r, &t_half), PCS_OK);
    cr_assert_eq(pcs_water_tsat(0.1 * p_r, &t_tenth), PCS_OK);
    cr_expect_eq(pcs_feedwater_heater_t(&d, 0.5), t_half);
    cr_expect(fabs(t_half - 459.81) < 0.01, "%.4f K at 0.5", t_half);
    cr_expect(fabs(pcs_feedwater_heater_t(&d, 0.1) - 398.28) < 0.01, "%.4f K at 0.1",
              pcs_feedwater_heater_t(&d, 0.1));
    cr_expect(pcs_feedwater_heater_t(&d, 0.99) < 493.43 && pcs_feedwater_heater_t(&d, 0.99) > 492.8,
              "continuous below 1: %.4f K", pcs_feedwater_heater_t(&d, 0.99));

    fw_unit u;
    fw_open(&u, 1, 0, fast_heaters);
    double t0 = *u.feed_t;
    cr_expect_eq(t0, 493.43, "starts at the secondary's feed_t_k");
    fw_tick(&u, 1);
    double f = u.out[PCS_SECONDARY_OUT_TURBINE_FLOW] / 480.4;
    double target = pcs_feedwater_heater_t(&u.def, f);
    double t1 = t0 + (1.0 - exp(-dt(&u) / 1.0)) * (target - t0);
    cr_expect(fabs(*u.feed_t - t1) < 1e-12, "one lag step %.15g, by hand %.15g", *u.feed_t, t1);
    fw_tick(&u, 200);
    double before = *u.feed_t;
    double *turbine = pcs_store_data(u.w, u.s.turbine_valve);
    *turbine *= 0.4;
    fw_tick(&u, 600);
    double after = *u.feed_t;
    double load = u.out[PCS_SECONDARY_OUT_TURBINE_FLOW] / 480.4;
    double line = pcs_feedwater_heater_t(&u.def, load);
    cr_expect(after < before - 20.0, "feed temperature %.2f -> %.2f K", before, after);
    cr_expect(fabs(after - line) < 0.05, "at load %.4f: %.3f K, the line %.3f K", load, after,
              line);
    fprintf(stderr, "heaters: %.2f K -> %.2f K at load %.3f (line %.3f K)\n", before, after, load,
            line);
    fw_close(&u);
}

/* ---- saves, definitions -------------------------------------------------------------------- */

static void expect_refused(fw_unit *u, const unsigned char *image, size_t len, const char *path,
                           const char *section, size_t element, double value, const char *text)
{
    save_expect_refused(u->w, image, len, path, section, element, value, text);
}

Test(feedwater, crafted_saves_are_refused_and_bad_definitions_named)
{
    char path[96], bad[112];
    snprintf(path, sizeof path, "/tmp/pcsim-feedwater-crafted-%d.save", (int)getpid());
    snprintf(bad, sizeof bad, "%s.bad", path);
    fw_unit u;
    fw_open(&u, 1, 1, NULL);
    fw_tick(&u, 10);
    /* mid-transient: pumps coasting, AFW in its start delay, valves closing */
    submit(&u, PCS_FEEDWATER_OP_MFP_TRIP, 2.0);
    u.ilk[PCS_SIG_AFW_START] = 1.0;
    u.ilk[PCS_SIG_FW_ISOLATION] = 1.0;
    fw_tick(&u, 30);
    cr_assert_eq(pcs_world_save(u.w, path), PCS_OK, "%s", pcs_last_error());
    fw_tick(&u, 300);
    uint64_t run_on = pcs_world_state_hash(u.w);
    size_t len;
    unsigned char *image = save_craft_read(path, &len);
    cr_assert_not_null(image);
    /* the unmodified save loads and runs on to the same state (everything
       the feedwater carries between ticks is saved) */
    cr_assert_eq(pcs_world_load(u.w, path), PCS_OK, "%s", pcs_last_error());
    fw_tick(&u, 300);
    cr_expect_eq(pcs_world_state_hash(u.w), run_on, "the loaded run differs");
    cr_assert_eq(pcs_world_load(u.w, path), PCS_OK, "%s", pcs_last_error());
    expect_refused(&u, image, len, bad, "store:u1.feed.state", PCS_FEEDWATER_ST_ISO_VALVE, 1.5,
                   "isolation valve opening");
    expect_refused(&u, image, len, bad, "store:u1.feed.state", PCS_FEEDWATER_ST_AFW_SIGNAL, 0.5,
                   "value 0.5 is not 0 or 1");
    expect_refused(&u, image, len, bad, "store:u1.feed.state",
                   PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_RUNNING, 0.25,
                   "main feed pump running flag");
    expect_refused(&u, image, len, bad, "store:u1.feed.state",
                   PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_SPEED, 1.1, "main feed pump speed");
    expect_refused(&u, image, len, bad, "store:u1.feed.state",
                   PCS_FEEDWATER_ST_MFP + PCS_FEEDWATER_ST_PER_PUMP * 2 + PCS_FEEDWATER_ST_SPEED,
                   -1.0, "AFW pump time since start");
    expect_refused(&u, image, len, bad, "store:u1.sec.feed_t", 0, 700.0, "main feed temperature K");
    expect_refused(&u, image, len, bad, "store:u1.sgctl.feed_limit", 0, -1.0, "feed limit kg/s");
    expect_refused(&u, image, len, bad, "store:u1.feed.sig", PCS_SIG_FEED_MFP_TRIPPED, 0.5,
                   "not 0 or 1");
    free(image);
    fw_close(&u);
    unlink(path);
    unlink(bad);

    pcs_feedwater_def d;
    pcs_feedwater_default(&d);
    d.unit_name = "u1";
    d.afw_start_delay_s[2] = 40.0; /* + 30 s ramp: over [HRTD] 5.7's minute */
    pcs_world *w;
    pcs_world_def wd;
    pcs_world_default(&wd);
    cr_assert_eq(pcs_world_create(&wd, &w), PCS_OK);
    pcs_secondary_def sd;
    pcs_secondary_default(&sd);
    sd.table = table();
    sd.n_sg = 1;
    sd.unit_name = "u1";
    pcs_secondary *sec;
    cr_assert_eq(pcs_secondary_add(w, &sd, &sec), PCS_OK, "%s", pcs_last_error());
    pcs_feedwater *fw;
    cr_expect_eq(pcs_feedwater_add(w, &d, sec, NULL, &fw), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(),
                     "AFW pump 3: afw_start_delay_s + afw_ramp_s = 70 is outside [0, 60]") != NULL,
              "%s", pcs_last_error());
    pcs_feedwater_default(&d);
    d.unit_name = "u1";
    d.mfp_runout_kg_s = 900.0;
    cr_expect_eq(pcs_feedwater_add(w, &d, sec, NULL, &fw), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "mfp_runout_kg_s = 900 is outside (960.8, 10000]") != NULL,
              "%s", pcs_last_error());
    pcs_feedwater_default(&d);
    d.unit_name = "u2";
    cr_expect_eq(pcs_feedwater_add(w, &d, sec, NULL, &fw), PCS_E_INVAL);
    cr_expect(strstr(pcs_last_error(), "'u2' is not the secondary's 'u1'") != NULL, "%s",
              pcs_last_error());
    pcs_world_destroy(w);
}

/* ---- the plant builder --------------------------------------------------------------------- */

/*
 * A steam-side station unit at 100 % has its feedwater plant: the feed
 * temperature it settled with is the rated 493.43 K and stays within 0.01 K
 * over 5 s (the heater train's load is the settled turbine flow over
 * itself), each SG's feed limit is above its feed (the pumps do not disturb
 * the steady state), no MFP tripped, no AFW; the ticks allocate nothing.
 */
Test(feedwater, a_steam_side_unit_is_built_with_its_feedwater_plant)
{
    pcs_world *w;
    pcs_world_def wd;
    pcs_world_default(&wd);
    wd.check_finite = 1;
    cr_assert_eq(pcs_world_create(&wd, &w), PCS_OK);
    pcs_plant_unit_def d;
    pcs_plant_unit_default(&d);
    d.sg_model = PCS_PLANT_SG_STEAM_SIDE;
    pcs_plant *plant;
    cr_assert_eq(pcs_plant_add(w, &d, 1, &plant), PCS_OK, "%s", pcs_last_error());
    const pcs_plant_unit *pu = pcs_plant_unit_get(plant, 0);
    cr_assert_not_null(pu->feedwater);
    pcs_secondary_stores s = pcs_secondary_store_ids(pu->secondary);
    const double *feed_t = pcs_store_data(w, s.feed_t), *out = pcs_store_data(w, s.out);
    const double *limit = pcs_store_data(w, pcs_sg_control_feed_limit_store(pu->sg_control));
    const double *sig = pcs_store_data(w, pcs_feedwater_store_ids(pu->feedwater).sig);
    cr_expect_eq(*feed_t, 493.43);
    pcs_test_alloc_begin();
    for (int k = 0; k < 100; k++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    cr_expect_eq(pcs_test_alloc_end(), 0, "the ticks allocated");
    cr_expect(fabs(*feed_t - 493.43) < 0.01, "feed temperature %.4f K", *feed_t);
    for (uint32_t l = 0; l < d.primary.n_loops; l++) {
        double f =
            out[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l + PCS_SECONDARY_OUT_FEED];
        cr_expect(limit[l] > 1.1 * f, "SG %u: limit %.1f kg/s, feed %.1f kg/s", l + 1, limit[l], f);
        cr_expect_eq(
            out[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PER_SG * l + PCS_SECONDARY_OUT_AFW], 0.0);
    }
    cr_expect_eq(sig[PCS_SIG_FEED_MFP_TRIPPED], 0.0);
    cr_expect(sig[PCS_SIG_FEED_MAIN_KG_S] > 1800.0, "main feed %.1f kg/s",
              sig[PCS_SIG_FEED_MAIN_KG_S]);
    fprintf(stderr, "station unit: feed %.4f K, limit %.1f kg/s per SG, main feed %.1f kg/s\n",
            *feed_t, limit[0], sig[PCS_SIG_FEED_MAIN_KG_S]);
    pcs_world_destroy(w);
}
