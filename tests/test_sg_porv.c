/**
 * @file test_sg_porv.c
 * @brief The SG atmospheric relief valves (pcsim/secondary.h's porv
 *        junction) and their pressure control (pcsim/sg_porv.h): the valve's
 *        full-open flow against a hand-computed choked flow, the PI at
 *        hand-computed errors, its anti-windup, the stroke-rate limit,
 *        manual/auto with bumpless transfer, a failed input holding the
 *        valve, the closed loop holding 1125 psig, crafted saves refused
 *        and 0 allocations per tick.
 *
 * References: refdata pwr_transients.md section 6 "SG PORV 1125 psig"
 * ([HRTD] 7.1); [HRTD] 7.1 (the transcription refdata cites): one 6-inch
 * PORV per steam line, "~10 % of rated steam flow per SG at no-load
 * pressure" (1092 psig, [HRTD] 11.2), lowest safety valve 1170 psig. The
 * controller's band (45 psi: full open at 1170 psig), integral time (60 s)
 * and stroke (20 s) are the model's assumptions (pcsim/sg_porv.h).
 *
 * One lone steam side (one SG; the (p, h) table's build is most of the
 * cost) for every sequence. The controller reads a test store the test
 * writes (the measured pressure, so the PI's numbers are hand-computed),
 * except the closed loop, where the test copies the dome's pressure into it
 * each tick (as the PORV's transmitter would).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcsim/pcsim.h"
#include "tests/alloc_count.h"
#include "tests/control_fixture.h"
#include "tests/save_craft.h"
#include "tests/save_refused.h"

#define DT 0.05
#define PSI 6894.757293168
#define PSIG_PA(x) ((x)*PSI + 101325.0)
#define P_SET PSIG_PA(1125.0)    /* [HRTD] 7.1 */
#define BAND (45.0 * PSI)        /* 1170 - 1125 psig: the model's band */
#define TI 60.0                  /* the model's integral time */
#define STEP (DT / 20.0)         /* stroke 20 s */
#define RATED 480.4              /* kg/s per SG, pcs_secondary_def rated_steam_kg_s ([W84]) */
#define P_RATING PSIG_PA(1092.0) /* no-load pressure, [HRTD] 7.1, 11.2 */

static pcs_water_ph_table *table;

typedef struct fx {
    pcs_world *w;
    pcs_secondary *sc;
    pcs_sg_porv *pv;
    double *p_meas; /* the controller's input */
    double *s;      /* its state (one SG) */
    double *porv, *out, *turbine, *feed, *tube_heat, *line_p, *line_rho;
} fx;

static void fx_open(fx *f)
{
    memset(f, 0, sizeof *f);
    if (!table) {
        pcs_water_ph_table_def td;
        pcs_water_ph_table_default(&td);
        cr_assert_eq(pcs_water_ph_table_create(&td, &table), PCS_OK, "%s", pcs_last_error());
    }
    pcs_world_def wd;
    pcs_world_default(&wd);
    wd.check_access = 1;
    cr_assert_eq(pcs_world_create(&wd, &f->w), PCS_OK);
    pcs_secondary_def sdef;
    pcs_secondary_default(&sdef);
    sdef.table = table;
    sdef.n_sg = 1;
    sdef.initial_p_pa = P_RATING; /* starts near the valve's rating pressure */
    cr_assert_eq(pcs_secondary_add(f->w, &sdef, &f->sc), PCS_OK, "%s", pcs_last_error());
    uint32_t id_p;
    cr_assert_eq(pcs_store_register(f->w, "test.p", sizeof(double), 1, PCS_STORE_STATE, &id_p),
                 PCS_OK);
    pcs_sg_porv_def d;
    pcs_sg_porv_default(&d);
    d.unit_name = "u1";
    d.pressure[0] = (pcs_pzr_control_input){id_p, 0, PCS_PZR_CONTROL_NO_STATUS, 0};
    cr_assert_eq(pcs_sg_porv_add(f->w, &d, f->sc, &f->pv), PCS_OK, "%s", pcs_last_error());
    pcs_secondary_stores ss = pcs_secondary_store_ids(f->sc);
    f->p_meas = pcs_store_data(f->w, id_p);
    f->s = pcs_store_data(f->w, pcs_sg_porv_state_store(f->pv));
    f->porv = pcs_store_data(f->w, ss.porv);
    f->out = pcs_store_data(f->w, ss.out);
    f->turbine = pcs_store_data(f->w, ss.turbine_valve);
    f->feed = pcs_store_data(f->w, ss.feed);
    f->tube_heat = pcs_store_data(f->w, ss.tube_heat);
    uint32_t line = pcs_secondary_volume(f->sc, PCS_SECONDARY_STEAM_LINE, 0);
    f->line_p = (double *)pcs_store_data(f->w, ss.p) + line;
    f->line_rho = (double *)pcs_store_data(f->w, ss.rho) + line;
    *f->p_meas = P_SET - 50.0 * PSI;
}

/* n ticks; the feed follows the steam flow with a level trim (as
 * tests/test_steam_dump.c's tick). */
static void tick(fx *f, int n)
{
    for (int i = 0; i < n; i++) {
        const double *b = f->out + PCS_SECONDARY_OUT_SG;
        f->feed[0] =
            fmax(b[PCS_SECONDARY_OUT_STEAM] + 10.0 * (44.0 - b[PCS_SECONDARY_OUT_NR]), 0.0);
        cr_assert_eq(pcs_world_tick(f->w), PCS_OK, "tick %d: %s", i, pcs_last_error());
    }
}

static double opening(const fx *f)
{
    cr_assert_eq(*f->porv, f->s[PCS_SG_PORV_ST_OPENING], "the secondary gets the opening");
    return *f->porv;
}

/* Back to auto, shut, I = 0, the input 50 psi below the setpoint. */
static void reset(fx *f)
{
    for (uint32_t k = 0; k < PCS_SG_PORV_ST_COUNT; k++)
        if (k != PCS_SG_PORV_ST_P_MEASURED)
            f->s[k] = 0.0;
    *f->porv = 0.0;
    *f->p_meas = P_SET - 50.0 * PSI;
}

/*
 * Full-open flow. Hand computation: [HRTD] 7.1 "~10 % of rated steam flow
 * per SG at no-load pressure": 0.10 x 480.4 = 48.04 kg/s (381,300 lb/h) at
 * 1092 psig (1106.7 psia). Saturated steam's choked flow is proportional
 * to its pressure (Napier's rule, W = 51.45 A P lb/h with A in in2 and P in
 * psia: here a 6.70 in2 throat, which a 6-inch valve holds), so at the
 * steam line's pressure p the valve passes 48.04 p / 7.6304 MPa. The model's
 * throat is HEM with IF97 (pcsim/thnet.h), whose flux over pressure drifts
 * by ~0.2 % per 0.1 MPa from Napier's constant: within 1 % near the
 * rating. Half open passes half (the opening scales the throat).
 */
static void seq_full_open_flow(fx *fp)
{
    fx f = *fp;
    ctl_command(f.w, PCS_SG_PORV_COMMANDS, PCS_SG_PORV_OP_MANUAL, "u1.porv1", 1.0);
    tick(&f, 400);
    cr_expect_lt(opening(&f), 1.0, "20 s stroke: not open after 400 - 1 rate steps");
    tick(&f, 1);
    cr_expect_eq(opening(&f), 1.0, "open after 20 s: %.12f", opening(&f));
    tick(&f, 1);
    double p = *f.line_p, w = f.out[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PORV];
    double hand = 0.10 * RATED * p / P_RATING;
    cr_log_info("SG PORV full open: %.3f kg/s at %.4f MPa (steam line), hand %.3f kg/s", w, p / 1e6,
                hand);
    /* the lone SG's start state drains through the turbine (at its rated
     * opening) towards ~7 MPa meanwhile: still within 1 % */
    cr_expect(fabs(p - P_RATING) < 0.8e6, "the line near the rating pressure: %.4f MPa", p / 1e6);
    cr_expect(fabs(w / hand - 1.0) < 0.01, "full open %.3f kg/s vs hand %.3f kg/s", w, hand);
    ctl_command(f.w, PCS_SG_PORV_COMMANDS, PCS_SG_PORV_OP_MANUAL, "u1", 0.5);
    tick(&f, 201);
    cr_expect_eq(opening(&f), 0.5, "half open: %.12f", opening(&f));
    double w2 = f.out[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PORV];
    double hand2 = 0.5 * 0.10 * RATED * *f.line_p / P_RATING;
    cr_expect(fabs(w2 / hand2 - 1.0) < 0.01, "half open %.3f kg/s vs hand %.3f kg/s", w2, hand2);
    ctl_command(f.w, PCS_SG_PORV_COMMANDS, PCS_SG_PORV_OP_AUTO, "u1", 0.0);
    tick(&f, 201); /* the input is 50 psi low: auto shuts it at the stroke rate */
    cr_expect_eq(opening(&f), 0.0, "auto, 50 psi below the setpoint: shut (%.12f)", opening(&f));
    tick(&f, 2);
    cr_expect_eq(f.out[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_PORV], 0.0, "no flow shut");
}

/*
 * The PI at a hand-written pressure 9 psi above the setpoint: K_p e =
 * 9 / 45 = 0.2; I grows by (0.05 / 60) 0.2 per tick; the opening climbs at
 * 0.0025 per tick (20 s stroke) towards 0.2 + I. Below the setpoint the
 * integral falls back to 0 and the valve shuts.
 */
static void seq_pi(fx *fp)
{
    fx f = *fp;
    tick(&f, 10);
    cr_expect_eq(opening(&f), 0.0, "below the setpoint: shut");
    cr_expect_eq(f.s[PCS_SG_PORV_ST_INTEGRAL], 0.0, "I stays 0");
    cr_expect(fabs(f.s[PCS_SG_PORV_ST_ERROR] + 50.0 * PSI) < 1e-6, "error %.3f Pa",
              f.s[PCS_SG_PORV_ST_ERROR]);
    *f.p_meas = P_SET + 9.0 * PSI;
    tick(&f, 40);
    double di = DT / TI * 0.2;
    cr_expect(fabs(f.s[PCS_SG_PORV_ST_INTEGRAL] - 40 * di) < 1e-12, "I %.12f, want %.12f",
              f.s[PCS_SG_PORV_ST_INTEGRAL], 40 * di);
    cr_expect(fabs(opening(&f) - 40 * STEP) < 1e-12, "rate-limited: %.12f", opening(&f));
    tick(&f, 60); /* 100 ticks: 0.25 > 0.2 + I = 0.2033: at the target */
    cr_expect(fabs(opening(&f) - (0.2 + 100 * di)) < 1e-12, "at K_p e + I: %.12f, want %.12f",
              opening(&f), 0.2 + 100 * di);
    *f.p_meas = P_SET - 1.0 * PSI; /* K_p e = -1/45: I falls by (0.05/60)/45 per tick */
    tick(&f, 1);
    double i1 = 100 * di - DT / TI / 45.0;
    cr_expect(fabs(f.s[PCS_SG_PORV_ST_INTEGRAL] - i1) < 1e-12, "I %.12f, want %.12f",
              f.s[PCS_SG_PORV_ST_INTEGRAL], i1);
    cr_expect(fabs(opening(&f) - (0.2 + 100 * di - STEP)) < 1e-12, "closing at the rate: %.12f",
              opening(&f));
    tick(&f, 200);
    cr_expect_eq(opening(&f), 0.0, "shut below the setpoint once I is spent: %.12f", opening(&f));
}

/*
 * Anti-windup: 30 psi above the setpoint (K_p e = 2/3) the integral grows
 * only until K_p e + I reaches 1 (I = 1/3 within one step), not on to its
 * clamp of 1, however long the pressure stays high; back at the setpoint
 * the target is that I (1/3), not a wound-up 1.
 */
static void seq_anti_windup(fx *fp)
{
    fx f = *fp;
    *f.p_meas = P_SET + 30.0 * PSI;
    tick(&f, 2000); /* 100 s > the 40 s I needs to reach 1/3 */
    double i = f.s[PCS_SG_PORV_ST_INTEGRAL], di = DT / TI * (2.0 / 3.0);
    cr_expect(i >= 1.0 / 3.0 - 1e-12 && i < 1.0 / 3.0 + di + 1e-12, "I %.12f held at 1 - K_p e", i);
    cr_expect_eq(opening(&f), 1.0, "full open");
    *f.p_meas = P_SET;
    tick(&f, 1);
    cr_expect(fabs(f.s[PCS_SG_PORV_ST_INTEGRAL] - i) < 1e-15, "e = 0: I unchanged");
    tick(&f, 400);
    cr_expect(fabs(opening(&f) - i) < 1e-12, "at the setpoint the opening is I = %.12f: %.12f", i,
              opening(&f));
}

/*
 * Manual and bumpless return: manual 0.3 (reached at the stroke rate);
 * with the input 9 psi above the setpoint (K_p e = 0.2), AUTO sets I = 0.3 -
 * 0.2 = 0.1 so the next tick's target is 0.3 + (0.05/60) 0.2: the valve
 * moves by that integral step only. A failed (NaN) input then holds the
 * opening and freezes I.
 */
static void seq_manual_bumpless_failed_input(fx *fp)
{
    fx f = *fp;
    ctl_command(f.w, PCS_SG_PORV_COMMANDS, PCS_SG_PORV_OP_MANUAL, "u1.porvctl", 0.3);
    tick(&f, 119);
    cr_expect(fabs(opening(&f) - 119 * STEP) < 1e-12, "manual, at the rate: %.12f", opening(&f));
    tick(&f, 1);
    cr_expect(fabs(opening(&f) - 0.3) < 1e-12, "manual 0.3: %.12f", opening(&f));
    cr_expect_eq(f.s[PCS_SG_PORV_ST_MANUAL], 1.0);
    *f.p_meas = P_SET + 9.0 * PSI;
    tick(&f, 1); /* the controller measures the pressure it returns at */
    ctl_command(f.w, PCS_SG_PORV_COMMANDS, PCS_SG_PORV_OP_AUTO, "u1.porv1", 0.0);
    tick(&f, 1);
    double di = DT / TI * 0.2;
    cr_expect(fabs(f.s[PCS_SG_PORV_ST_INTEGRAL] - (0.1 + di)) < 1e-12, "I %.12f, want 0.1 + di",
              f.s[PCS_SG_PORV_ST_INTEGRAL]);
    cr_expect(fabs(opening(&f) - (0.3 + di)) < 1e-12, "bumpless: %.12f", opening(&f));
    double o = opening(&f), i = f.s[PCS_SG_PORV_ST_INTEGRAL];
    *f.p_meas = NAN;
    tick(&f, 50);
    cr_expect_eq(opening(&f), o, "a failed input holds the opening");
    cr_expect_eq(f.s[PCS_SG_PORV_ST_INTEGRAL], i, "and freezes I");
    cr_expect(fabs(f.s[PCS_SG_PORV_ST_P_MEASURED] - (P_SET + 9.0 * PSI)) < 1e-6,
              "the last valid pressure kept");
}

/*
 * The closed loop: the turbine shut, the tubes giving 35 kg/s worth of
 * steam (64 MW at h_g(1125 psig) - h_feed(428.5 F) = 2.767 - 0.939 MJ/kg:
 * below the valve's 48 kg/s), the controller on the dome's pressure: the
 * pressure rises to the setpoint (overshooting to 1145 psig while the
 * valve strokes and the integral builds) and the PI holds it there within
 * 1 psi, the valve passing the steam (34.9 kg/s at 900 s, the level still
 * recovering); the safety valves (1170 psig) never lift. 900 s of a lone
 * SG.
 */
static void seq_closed_loop(fx *fp)
{
    fx f = *fp;
    *f.turbine = 0.0; /* nobody else writes it here */
    for (int k = 0; k < 8; k++)
        f.tube_heat[k] = 35.0 * (2.767e6 - 0.939e6) / 8.0;
    double p_max = 0.0, safety = 0.0;
    int n_end = (int)(900.0 / DT);
    for (int n = 0; n < n_end; n++) {
        const double *o = f.out + PCS_SECONDARY_OUT_SG;
        *f.p_meas = o[PCS_SECONDARY_OUT_P];
        /* a gentle level trim (1 kg/s per %): the loop, not the feed, is
         * under test */
        f.feed[0] = fmax(o[PCS_SECONDARY_OUT_STEAM] + (44.0 - o[PCS_SECONDARY_OUT_NR]), 0.0);
        cr_assert_eq(pcs_world_tick(f.w), PCS_OK, "%s", pcs_last_error());
        p_max = fmax(p_max, f.out[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_P]);
        safety = fmax(safety, f.out[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_SAFETY]);
    }
    const double *b = f.out + PCS_SECONDARY_OUT_SG;
    double p = b[PCS_SECONDARY_OUT_P];
    cr_log_info("SG PORV closed loop: dome %.1f psig after 900 s (peak %.1f), opening %.4f, "
                "PORV %.2f kg/s, steam %.2f kg/s, safety max %.3f kg/s",
                (p - 101325.0) / PSI, (p_max - 101325.0) / PSI, opening(&f),
                b[PCS_SECONDARY_OUT_PORV], b[PCS_SECONDARY_OUT_STEAM], safety);
    cr_expect(fabs(p - P_SET) < 1.0 * PSI, "held at 1125 psig: %.2f psig", (p - 101325.0) / PSI);
    cr_expect(opening(&f) > 0.0 && opening(&f) < 1.0, "modulating: %.4f", opening(&f));
    cr_expect(fabs(b[PCS_SECONDARY_OUT_PORV] - b[PCS_SECONDARY_OUT_STEAM]) < 1.0,
              "the PORV passes the steam: %.2f vs %.2f kg/s", b[PCS_SECONDARY_OUT_PORV],
              b[PCS_SECONDARY_OUT_STEAM]);
    cr_expect_eq(safety, 0.0, "no safety valve lift");
    cr_expect_lt(p_max, PSIG_PA(1170.0), "below the lowest safety valve: %.1f psig",
                 (p_max - 101325.0) / PSI);
}

static void seq_crafted_and_alloc(fx *fp)
{
    char path[96], bad[112];
    snprintf(path, sizeof path, "/tmp/pcsim-porvctl-crafted-%d.save", (int)getpid());
    snprintf(bad, sizeof bad, "%s.bad", path);
    fx f = *fp;
    *f.p_meas = P_SET + 5.0 * PSI;
    tick(&f, 1);
    pcs_test_alloc_begin();
    tick(&f, 200);
    uint64_t mallocs = pcs_test_alloc_end();
    cr_expect_eq(mallocs, 0u, "%llu allocations in 200 ticks", (unsigned long long)mallocs);
    cr_assert_eq(pcs_world_save(f.w, path), PCS_OK, "%s", pcs_last_error());
    size_t len;
    unsigned char *image = save_craft_read(path, &len);
    cr_assert_not_null(image);
    cr_assert_eq(pcs_world_load(f.w, path), PCS_OK, "%s", pcs_last_error());
    const char *st = "store:u1.porvctl.state";
    save_expect_refused(f.w, image, len, bad, st, PCS_SG_PORV_ST_MANUAL, 0.5, "manual flag");
    save_expect_refused(f.w, image, len, bad, st, PCS_SG_PORV_ST_MANUAL_OPENING, 2.0,
                        "manual opening");
    save_expect_refused(f.w, image, len, bad, st, PCS_SG_PORV_ST_OPENING, -0.5, "SG 1 opening");
    save_expect_refused(f.w, image, len, bad, st, PCS_SG_PORV_ST_INTEGRAL, 1.5, "integral");
    save_expect_refused(f.w, image, len, bad, st, PCS_SG_PORV_ST_P_MEASURED, NAN,
                        "measured steam pressure");
    save_expect_refused(f.w, image, len, bad, st, PCS_SG_PORV_ST_ERROR, 1e9, "pressure error");
    save_expect_refused(f.w, image, len, bad, "store:u1.sec.porv", 0, 1.5,
                        "atmospheric relief valve");
    free(image);
    unlink(path);
    unlink(bad);
}

Test(sg_porv, lone_steam_side_flow_pi_modes_loop_and_saves)
{
    fx f;
    fx_open(&f);
    seq_full_open_flow(&f);
    reset(&f);
    seq_pi(&f);
    reset(&f);
    seq_anti_windup(&f);
    reset(&f);
    seq_manual_bumpless_failed_input(&f);
    reset(&f);
    seq_crafted_and_alloc(&f);
    reset(&f);
    seq_closed_loop(&f);
    pcs_world_destroy(f.w);
}

/* Settings out of range are refused naming the field, value and range:
 * the secondary's porv_capacity, the controller's band and stroke, an
 * unset pressure input (by SG). */
Test(sg_porv, bad_settings_refused_by_name)
{
    pcs_world_def wd;
    pcs_world_default(&wd);
    pcs_world *w;
    cr_assert_eq(pcs_world_create(&wd, &w), PCS_OK);
    pcs_secondary_def sdef;
    pcs_secondary_default(&sdef);
    sdef.n_sg = 1;
    sdef.porv_capacity = 1.5;
    pcs_secondary *sc;
    cr_expect_eq(pcs_secondary_add(w, &sdef, &sc), PCS_E_INVAL);
    ctl_expect_message("porv_capacity", "1.5", "[0, 1]", NULL);
    sdef.porv_capacity = 0.10;
    cr_assert_eq(pcs_secondary_add(w, &sdef, &sc), PCS_OK, "%s", pcs_last_error());
    pcs_secondary_stores ss = pcs_secondary_store_ids(sc);

    pcs_sg_porv_def d;
    pcs_sg_porv *pv;
    cr_expect_eq(pcs_sg_porv_default(NULL), PCS_E_INVAL);
    pcs_sg_porv_default(&d);
    cr_expect(fabs(d.p_setpoint_pa - 7.857927e6) < 1.0, "1125 psig = %.1f Pa", d.p_setpoint_pa);
    cr_expect(fabs(d.p_band_pa - 310264.08) < 0.01, "45 psi = %.2f Pa", d.p_band_pa);
    d.unit_name = "u1";
    cr_expect_eq(pcs_sg_porv_add(w, &d, sc, &pv), PCS_E_INVAL);
    ctl_expect_message("sg_porv", "pressure[0] (SG 1)", NULL);
    d.pressure[0] = (pcs_pzr_control_input){ss.out, PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_P,
                                            PCS_PZR_CONTROL_NO_STATUS, 0};
    d.p_band_pa = 0.0;
    cr_expect_eq(pcs_sg_porv_add(w, &d, sc, &pv), PCS_E_INVAL);
    ctl_expect_message("p_band_pa", "= 0", "[1000, 1e+07]", NULL);
    d.p_band_pa = BAND;
    d.stroke_s = 1000.0;
    cr_expect_eq(pcs_sg_porv_add(w, &d, sc, &pv), PCS_E_INVAL);
    ctl_expect_message("stroke_s", "1000", "600", NULL);
    d.stroke_s = 20.0;
    cr_expect_eq(pcs_sg_porv_add(w, &d, sc, &pv), PCS_OK, "%s", pcs_last_error());
    pcs_world_destroy(w);
}

/* ---- on a station: the wiring ------------------------------------------------------ */

static pcs_status station_cmd(pcs_world *w, pcs_station *st, const char *target, const char *name,
                              double value)
{
    pcs_command c;
    pcs_status s = pcs_station_command(st, target, name, value, &c);
    return s == PCS_OK ? pcs_command_submit(w, &c) : s;
}

static double chan(pcs_world *w, const char *name)
{
    uint32_t id = UINT32_MAX;
    cr_assert_eq(pcs_channel_find(w, name, &id), PCS_OK, "channel %s", name);
    return pcs_channel_value(w, id);
}

/*
 * A steam-side unit at 100 % (pcs_plant_instrument builds the PORV control
 * on the per-SG channels u1.sgK.steam_pressure.porv): in auto at the
 * full-load SG pressure (6.05 MPa here; refdata section 1's window
 * 780-1000 psia, all below 1125 psig) every valve is shut and its error
 * is the measured pressure less 1125 psig (-1.80 MPa);
 * the station commands put SG 2's valve alone in manual (target
 * u1.porv2), which opens at the stroke rate and passes steam, refuse an
 * opening outside [0, 1] naming the range, and return every valve to
 * auto (target u1), which shuts SG 2's again at the stroke rate.
 */
Test(sg_porv, station_commands_and_channels)
{
    static const char scn[] = "{\"schema\": 1, \"world\": {\"dt_s\": 0.05, \"workers\": 0}, "
                              "\"units\": [{\"name\": \"u1\", \"sg_model\": \"steam_side\"}]}";
    pcs_scenario *s;
    cr_assert_eq(pcs_scenario_load_string("p.json", scn, strlen(scn), NULL, &s), PCS_OK, "%s",
                 pcs_last_error());
    pcs_world_def d = pcs_scenario_world_def(s);
    pcs_world *w;
    pcs_station *st;
    cr_assert_eq(pcs_world_create(&d, &w), PCS_OK);
    cr_assert_eq(pcs_station_add(w, s, &st), PCS_OK, "%s", pcs_last_error());
    ctl_tick(w, 10);
    for (int k = 1; k <= 4; k++) {
        char n[48];
        snprintf(n, sizeof n, "u1.sg%d.porv_opening", k);
        cr_expect_eq(chan(w, n), 0.0, "SG %d's PORV shut at full load", k);
        snprintf(n, sizeof n, "u1.sg%d.porv_error", k);
        double e = chan(w, n);
        /* refdata section 1: full-load SG pressure 780-1000 psia */
        cr_expect(e > 780.0 * PSI - P_SET && e < 1000.0 * PSI - P_SET,
                  "SG %d's error %.0f Pa (p - 1125 psig)", k, e);
    }
    cr_assert_eq(station_cmd(w, st, "u1.porv2", "sg_porv_manual", 0.5), PCS_OK, "%s",
                 pcs_last_error());
    ctl_tick(w, 40);
    cr_expect(fabs(chan(w, "u1.sg2.porv_opening") - 39 * STEP) < 1e-12 ||
                  fabs(chan(w, "u1.sg2.porv_opening") - 40 * STEP) < 1e-12,
              "SG 2 opening at the stroke rate: %.12f", chan(w, "u1.sg2.porv_opening"));
    cr_expect_eq(chan(w, "u1.sg2.porv_manual"), 1.0);
    cr_expect_gt(chan(w, "u1.sg2.porv_flow"), 1.0, "SG 2's PORV passes steam: %.2f kg/s",
                 chan(w, "u1.sg2.porv_flow"));
    cr_expect_eq(chan(w, "u1.sg1.porv_flow"), 0.0, "SG 1's stays shut");
    pcs_command c;
    cr_expect_eq(pcs_station_command(st, "u1", "sg_porv_manual", 1.5, &c), PCS_E_INVAL);
    ctl_expect_message("value 1.5", "[0, 1]", "sg_porv_manual", NULL);
    cr_assert_eq(station_cmd(w, st, "u1", "sg_porv_auto", 0.0), PCS_OK, "%s", pcs_last_error());
    double o = chan(w, "u1.sg2.porv_opening");
    ctl_tick(w, 2);
    cr_expect_eq(chan(w, "u1.sg2.porv_manual"), 0.0, "back in auto");
    cr_expect(chan(w, "u1.sg2.porv_opening") < o, "closing: %.6f from %.6f",
              chan(w, "u1.sg2.porv_opening"), o);
    pcs_station_destroy(st);
    pcs_world_destroy(w);
    pcs_scenario_destroy(s);
}
