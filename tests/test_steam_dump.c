/**
 * @file test_steam_dump.c
 * @brief Steam dump control (pcsim/steam_dump.h): the load-rejection and
 *        plant-trip programs at hand-computed errors with their trip-open
 *        points, the trip-open and modulation rates, P-12's 3-of-12 cap,
 *        C-9's block, manual/auto, the steam-pressure mode converging on
 *        1092 psig, a plant trip on a steam-side station, the crafted save
 *        and 0 allocations per tick.
 *
 * References: refdata pwr_transients.md, the "dump" rows ([HRTD] 11.2):
 * loss-of-load controller Tavg - Tref, 5 F deadband, 5-16.4 F -> 0-100 %,
 * trip-open at 10.7 F (6 valves) and 16.4 F (all); turbine-trip controller
 * Tavg - no-load, 0-27.7 F -> 0-100 %, trip-open at 13.8 and 27.7 F, stroke
 * 2-3 s (the model takes 3 s); P-12 leaves 3 of 12 valves; C-9 condenser
 * available; no-load SG pressure = dump setpoint 1092 psig = 7.630 MPa.
 * Section 3 (reactor trip with turbine trip): Tavg to the no-load value on
 * the turbine-trip controller, P-12 (553 F, 4 F below no-load) not reached.
 * The modulation stroke (20 s) and the pressure-mode gains are the model's
 * assumptions. Most tests run a lone steam side (one SG, its tube heat held
 * at 852.75 MW by pcs_secondary_init_steady) with a hand-written Tavg and
 * hand-written interlock flags (no interlock logic exists yet).
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

#if defined(__SANITIZE_ADDRESS__)
#define SD_ASAN 1
#else
#define SD_ASAN 0
#endif

#define F (5.0 / 9.0)
#define DT 0.05
#define T_NL 564.817
#define T_FULL 580.206
#define MOD_STEP (DT / 20.0) /* modulation: full stroke in 20 s */
#define TRIP_STEP (DT / 3.0) /* trip-open: full stroke in 3 s */

/* ---- the programs ------------------------------------------------------------------ */

static double target(double t, double load, int c7, int trip, double *to, uint32_t *c)
{
    pcs_steam_dump_def d;
    pcs_steam_dump_default(&d);
    double e;
    return pcs_steam_dump_tavg_target(&d, t, load, c7, trip, to, c, &e);
}

Test(steam_dump, load_rejection_program_at_hand_computed_errors)
{
    const struct {
        double load, e_f, demand, trip_open;
    } pts[] = {
        {1.0, 3.0, 0.0, 0.0},            /* inside the 5 F deadband */
        {1.0, 5.0, 0.0, 0.0},            /* its edge */
        {1.0, 10.0, 5.0 / 11.4, 0.0},    /* (10 - 5) / (16.4 - 5) */
        {1.0, 10.69, 5.69 / 11.4, 0.0},  /* just below the first trip-open point */
        {1.0, 10.71, 5.71 / 11.4, 0.5},  /* half the valves trip open (10.7 F is the
                                            program's own half) */
        {1.0, 12.0, 7.0 / 11.4, 0.5},    /* modulating above the half */
        {1.0, 16.39, 11.39 / 11.4, 0.5}, /* just below the second */
        {1.0, 16.41, 1.0, 1.0},          /* all trip open */
        {0.5, 8.0, 3.0 / 11.4, 0.0},     /* Tref at 50 % load */
        {0.0, 16.0, 11.0 / 11.4, 0.5},   /* Tref at no load */
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        double to, tref = T_NL + (T_FULL - T_NL) * pts[i].load;
        uint32_t c;
        double dmd = target(tref + pts[i].e_f * F, pts[i].load, 1, 0, &to, &c);
        cr_expect(fabs(dmd - pts[i].demand) < 1e-9, "load %.1f, e %.1f F: demand %.9f, want %.9f",
                  pts[i].load, pts[i].e_f, dmd, pts[i].demand);
        cr_expect_eq(to, pts[i].trip_open, "e %.1f F: trip-open %g", pts[i].e_f, to);
        cr_expect_eq(c, PCS_STEAM_DUMP_CTL_LOAD_REJECTION);
    }
    double to;
    uint32_t c;
    cr_expect_eq(target(T_FULL + 20.0 * F, 1.0, 0, 0, &to, &c), 0.0, "not armed without C-7");
    cr_expect_eq(c, PCS_STEAM_DUMP_CTL_NONE);
}

Test(steam_dump, plant_trip_program_at_hand_computed_errors)
{
    const struct {
        double e_f, demand, trip_open;
    } pts[] = {
        {-2.0, 0.0, 0.0},       /* below no-load */
        {0.5, 0.5 / 27.7, 0.0}, /* no deadband */
        {10.0, 10.0 / 27.7, 0.0}, {13.79, 13.79 / 27.7, 0.0},
        {13.81, 0.5, 0.5}, /* trip-open half (13.81 / 27.7 = 0.4986 modulating) */
        {20.0, 20.0 / 27.7, 0.5}, {27.69, 27.69 / 27.7, 0.5},
        {27.71, 1.0, 1.0}, /* all */
        {40.0, 1.0, 1.0},
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        double to;
        uint32_t c;
        /* load and the load rejection do not matter once P-4 selects the plant-trip
         * controller */
        double dmd = target(T_NL + pts[i].e_f * F, 0.7, 1, 1, &to, &c);
        cr_expect(fabs(dmd - pts[i].demand) < 1e-9, "e %.1f F: demand %.9f, want %.9f", pts[i].e_f,
                  dmd, pts[i].demand);
        cr_expect_eq(to, pts[i].trip_open, "e %.1f F: trip-open %g", pts[i].e_f, to);
        cr_expect_eq(c, PCS_STEAM_DUMP_CTL_PLANT_TRIP);
    }
}

/* ---- a lone steam side with the dump control -------------------------------------- */

static pcs_water_ph_table *sd_table;

typedef struct fx {
    pcs_world *w;
    pcs_secondary *sc;
    pcs_steam_dump *sd;
    pcs_steam_dump_def d;
    pcs_secondary_stores ss;
    double *tavg, *tsig, *ilk, *s, *dump, *out, *turbine, *feed;
} fx;

static void fx_open(fx *f)
{
    memset(f, 0, sizeof *f);
    if (!sd_table) {
        pcs_water_ph_table_def td;
        pcs_water_ph_table_default(&td);
        cr_assert_eq(pcs_water_ph_table_create(&td, &sd_table), PCS_OK, "%s", pcs_last_error());
    }
    pcs_world_def wd;
    pcs_world_default(&wd);
    wd.check_access = 1;
    cr_assert_eq(pcs_world_create(&wd, &f->w), PCS_OK);
    pcs_secondary_def sdef;
    pcs_secondary_default(&sdef);
    sdef.table = sd_table;
    sdef.n_sg = 1;
    cr_assert_eq(pcs_secondary_add(f->w, &sdef, &f->sc), PCS_OK, "%s", pcs_last_error());
    uint32_t id_t, id_tsig, id_ilk;
    cr_assert_eq(pcs_store_register(f->w, "test.tavg", sizeof(double), 1, PCS_STORE_STATE, &id_t),
                 PCS_OK);
    pcs_steam_dump_default(&f->d);
    f->d.unit_name = "u1";
    f->d.tavg = (pcs_pzr_control_input){id_t, 0, PCS_PZR_CONTROL_NO_STATUS, 0};
    cr_assert_eq(pcs_steam_dump_add(f->w, &f->d, f->sc, &f->sd), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_plant_signals(f->w, "u1", PCS_SIGNALS_TURBINE, &id_tsig), PCS_OK);
    cr_assert_eq(pcs_plant_signals(f->w, "u1", PCS_SIGNALS_INTERLOCK, &id_ilk), PCS_OK);
    f->ss = pcs_secondary_store_ids(f->sc);
    f->tavg = pcs_store_data(f->w, id_t);
    f->tsig = pcs_store_data(f->w, id_tsig);
    f->ilk = pcs_store_data(f->w, id_ilk);
    f->s = pcs_store_data(f->w, pcs_steam_dump_state_store(f->sd));
    f->dump = pcs_store_data(f->w, f->ss.dump);
    f->out = pcs_store_data(f->w, f->ss.out);
    f->turbine = pcs_store_data(f->w, f->ss.turbine_valve);
    f->feed = pcs_store_data(f->w, f->ss.feed);
    *f->tavg = T_NL;
}

static void fx_close(fx *f)
{
    pcs_world_destroy(f->w);
}

/* n ticks; the feed follows the steam flow with a level trim (as
 * tests/test_secondary.c's st_tick: 10 kg/s per % NR below 44 %). */
static void tick(fx *f, int n)
{
    for (int i = 0; i < n; i++) {
        const double *b = f->out + PCS_SECONDARY_OUT_SG;
        f->feed[0] =
            fmax(b[PCS_SECONDARY_OUT_STEAM] + 10.0 * (44.0 - b[PCS_SECONDARY_OUT_NR]), 0.0);
        cr_assert_eq(pcs_world_tick(f->w), PCS_OK, "tick %d: %s", i, pcs_last_error());
    }
}

static double demand(const fx *f)
{
    cr_assert_eq(*f->dump, f->s[PCS_STEAM_DUMP_ST_DEMAND], "the secondary gets the demand");
    return *f->dump;
}

/* Plant trip (P-4 with C-8: reactor and turbine tripped), Tavg 28 F above
 * no-load: all valves trip open, at the 3 s stroke (20 ticks: 1/3); P-12
 * then cuts them to 3/12 at once; C-9 lost closes them at once. */
static void seq_trip_open_p12_c9(fx *fp)
{
    fx f = *fp;
    f.ilk[PCS_SIG_P4] = f.ilk[PCS_SIG_C8] = f.ilk[PCS_SIG_C9] = 1.0;
    *f.tavg = T_NL + 28.0 * F;
    tick(&f, 20);
    cr_expect(fabs(demand(&f) - 20 * TRIP_STEP) < 1e-12, "demand %.12f after 1 s", demand(&f));
    cr_expect_eq(f.s[PCS_STEAM_DUMP_ST_CONTROLLER], PCS_STEAM_DUMP_CTL_PLANT_TRIP);
    cr_expect(fabs(f.s[PCS_STEAM_DUMP_ST_ERROR] - 28.0 * F) < 1e-9);
    tick(&f, 20);
    cr_expect(fabs(demand(&f) - 40 * TRIP_STEP) < 1e-12, "demand %.12f after 2 s", demand(&f));
    f.ilk[PCS_SIG_P12] = 1.0;
    tick(&f, 1);
    cr_expect_eq(demand(&f), 0.25, "P-12: 3 of 12 valves, demand %g", demand(&f));
    tick(&f, 10);
    cr_expect_eq(demand(&f), 0.25);
    f.ilk[PCS_SIG_C9] = 0.0;
    tick(&f, 1);
    cr_expect_eq(demand(&f), 0.0, "C-9 lost: closed, demand %g", demand(&f));
    f.ilk[PCS_SIG_C9] = 1.0;
    f.ilk[PCS_SIG_P12] = 0.0;
    tick(&f, 3);
    cr_expect(fabs(demand(&f) - 3 * TRIP_STEP) < 1e-12, "reopens at the trip-open rate: %g",
              demand(&f));
}

/* Load rejection (C-7) at full load, Tavg 12 F above Tref: half the valves
 * trip open (0.5 after 30 ticks at 1/60 per tick), then the valves modulate
 * to 7/11.4 at the 20 s stroke (0.0025 per tick). Without C-9 (required)
 * nothing opens; C-8 off and C-7 off: not armed. */
static void seq_load_rejection(fx *fp)
{
    fx f = *fp;
    f.ilk[PCS_SIG_C7] = 1.0;
    f.tsig[PCS_SIG_TURBINE_LOAD] = 1.0;
    *f.tavg = T_FULL + 12.0 * F;
    tick(&f, 10);
    cr_expect_eq(demand(&f), 0.0, "no C-9: shut");
    f.ilk[PCS_SIG_C9] = 1.0;
    tick(&f, 30);
    cr_expect(fabs(demand(&f) - 0.5) < 1e-12, "half tripped open: %.12f", demand(&f));
    /* 1/60 is no binary fraction: the thirty trip-open steps may land a
     * rounding short of the half, and then one more trip-open tick lands
     * on it exactly; then the modulation */
    tick(&f, 10);
    double dm = demand(&f);
    cr_expect(fabs(dm - (0.5 + 10 * MOD_STEP)) < 1e-12 || fabs(dm - (0.5 + 9 * MOD_STEP)) < 1e-12,
              "modulating: %.12f", dm);
    tick(&f, 100);
    cr_expect(fabs(demand(&f) - 7.0 / 11.4) < 1e-12, "at the program: %.12f", demand(&f));
    f.ilk[PCS_SIG_C7] = 0.0;
    tick(&f, 20);
    cr_expect(fabs(demand(&f) - (7.0 / 11.4 - 20 * MOD_STEP)) < 1e-12, "disarmed, closing: %.12f",
              demand(&f));
    cr_expect_eq(f.s[PCS_STEAM_DUMP_ST_CONTROLLER], PCS_STEAM_DUMP_CTL_NONE);
}

/* Turbine trip without reactor trip (C-8, no P-4, as below P-9): a
 * turbine trip is the limiting load rejection, so the loss-of-load
 * controller acts on Tavg - Tref with its 5 F deadband, not the plant-trip
 * controller ([HRTD] 11.2; pwr_transients.md section 1 "dump:
 * loss-of-load controller" and "dump: turbine-trip controller", section 6
 * [Salem] generator trip at 46 %: the load-rejection controller holds
 * Tavg at no-load + 4-5 F). The turbine is tripped, load 0: Tref = no-load;
 * Tavg 12 F above it: half the valves trip open (12 >= 10.7 F), 0.5 after
 * 30 ticks (one more if 1/60's rounding lands short). The reactor then
 * trips (P-4): the plant-trip controller takes over (12 / 27.7 < 0.5, no
 * trip-open at 12 < 13.8 F) and the valves close at the modulation rate. */
static void seq_turbine_trip_without_reactor_trip(fx *fp)
{
    fx f = *fp;
    f.ilk[PCS_SIG_C8] = f.ilk[PCS_SIG_C9] = 1.0;
    f.tsig[PCS_SIG_TURBINE_LOAD] = 0.0;
    *f.tavg = T_NL + 12.0 * F;
    tick(&f, 1);
    cr_expect_eq(f.s[PCS_STEAM_DUMP_ST_CONTROLLER], PCS_STEAM_DUMP_CTL_LOAD_REJECTION,
                 "C-8 without P-4: controller %g, want the loss-of-load controller (%d)",
                 f.s[PCS_STEAM_DUMP_ST_CONTROLLER], PCS_STEAM_DUMP_CTL_LOAD_REJECTION);
    cr_expect(fabs(f.s[PCS_STEAM_DUMP_ST_ERROR] - 12.0 * F) < 1e-9, "error %.9f K",
              f.s[PCS_STEAM_DUMP_ST_ERROR]);
    tick(&f, 30);
    double dm = demand(&f);
    cr_expect(fabs(dm - 0.5) < 1e-12 || fabs(dm - 0.5 + TRIP_STEP) < 1e-12,
              "half tripped open on the loss-of-load controller: demand %.12f", dm);
    tick(&f, 1);
    double d1 = demand(&f);
    f.ilk[PCS_SIG_P4] = 1.0;
    tick(&f, 10);
    cr_expect_eq(f.s[PCS_STEAM_DUMP_ST_CONTROLLER], PCS_STEAM_DUMP_CTL_PLANT_TRIP,
                 "P-4: the plant-trip controller");
    cr_expect(d1 > 12.0 / 27.7 && fabs(demand(&f) - (d1 - 10 * MOD_STEP)) < 1e-12,
              "closing towards 12/27.7 at the modulation rate: %.12f from %.12f", demand(&f), d1);
}

/* P-4 alone (reactor tripped) selects the plant-trip controller (C-9 given).
 * 10 F: 10/27.7 target, no trip-open:
 * the modulation rate. Manual 0.02 then auto: the demand moves at the
 * modulation rate both ways (no jump). */
static void seq_reactor_trip_manual(fx *fp)
{
    fx f = *fp;
    f.ilk[PCS_SIG_C9] = 1.0;
    f.ilk[PCS_SIG_P4] = 1.0;
    *f.tavg = T_NL + 10.0 * F;
    tick(&f, 20);
    cr_expect(fabs(demand(&f) - 20 * MOD_STEP) < 1e-12, "demand %.12f", demand(&f));
    cr_expect_eq(f.s[PCS_STEAM_DUMP_ST_CONTROLLER], PCS_STEAM_DUMP_CTL_PLANT_TRIP);
    ctl_command(f.w, PCS_STEAM_DUMP_COMMANDS, PCS_STEAM_DUMP_OP_MANUAL, "u1.dumpctl", 0.02);
    tick(&f, 11);
    cr_expect(fabs(demand(&f) - (0.05 - 11 * MOD_STEP)) < 1e-12,
              "closing at the modulation rate: %.12f", demand(&f));
    tick(&f, 1);
    cr_expect(fabs(demand(&f) - 0.02) < 1e-12, "manual 0.02 reached from 0.05 in 12 steps: %.12f",
              demand(&f));
    cr_expect_eq(f.s[PCS_STEAM_DUMP_ST_CONTROLLER], PCS_STEAM_DUMP_CTL_MANUAL);
    ctl_command(f.w, PCS_STEAM_DUMP_COMMANDS, PCS_STEAM_DUMP_OP_AUTO, "u1", 0.0);
    tick(&f, 1);
    cr_expect(fabs(demand(&f) - (0.02 + MOD_STEP)) < 1e-12, "bumpless back to auto: %.12f",
              demand(&f));
}

/* Steam-pressure mode on the lone steam side at full heat with the turbine
 * shut: the dumps take the steam and the header pressure settles at the
 * 1092 psig setpoint (7.630 MPa, within 0.02 MPa after 300 s; the PI's
 * gains are the model's assumptions) without a safety-valve lift; entry is
 * bumpless (the demand starts from 0). */
static void seq_pressure_mode(fx *fp)
{
    fx f = *fp;
    f.ilk[PCS_SIG_C9] = 1.0;
    ctl_command(f.w, PCS_STEAM_DUMP_COMMANDS, PCS_STEAM_DUMP_OP_PRESSURE_MODE, "u1", 0.0);
    tick(&f, 1);
    *f.turbine = 0.0; /* nobody else writes it here */
    double p_max = 0.0, safety = 0.0;
    int n_end = (int)(300.0 / DT);
    for (int n = 0; n < n_end; n++) {
        tick(&f, 1);
        p_max = fmax(p_max, f.out[PCS_SECONDARY_OUT_HEADER_P]);
        safety = fmax(safety, f.out[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_SAFETY]);
    }
    double p = f.out[PCS_SECONDARY_OUT_HEADER_P];
    fprintf(stderr,
            "steam_dump pressure mode: header %.4f MPa after 300 s (setpoint 7.630), peak %.4f "
            "MPa, demand %.4f, dump flow %.1f kg/s, safety %.2f kg/s\n",
            p / 1e6, p_max / 1e6, demand(&f), f.out[PCS_SECONDARY_OUT_DUMP_FLOW], safety);
    cr_expect(fabs(p - 7.630e6) < 0.02e6, "header %.4f MPa", p / 1e6);
    cr_expect_eq(f.s[PCS_STEAM_DUMP_ST_CONTROLLER], PCS_STEAM_DUMP_CTL_PRESSURE);
    cr_expect(demand(&f) > 0.0 && demand(&f) < 1.0, "modulating: %g", demand(&f));
    cr_expect_eq(safety, 0.0, "no safety-valve lift");
}

static void expect_refused(fx *f, const unsigned char *image, size_t len, const char *path,
                           size_t element, double value, const char *text)
{
    save_expect_refused(f->w, image, len, path, "store:u1.dumpctl.state", element, value, text);
}

static void seq_crafted_and_alloc(fx *fp)
{
    char path[96], bad[112];
    snprintf(path, sizeof path, "/tmp/pcsim-dumpctl-crafted-%d.save", (int)getpid());
    snprintf(bad, sizeof bad, "%s.bad", path);
    fx f = *fp;
    f.ilk[PCS_SIG_C8] = f.ilk[PCS_SIG_C9] = 1.0;
    *f.tavg = T_NL + 20.0 * F;
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
    expect_refused(&f, image, len, bad, PCS_STEAM_DUMP_ST_MANUAL, 0.5, "manual flag");
    expect_refused(&f, image, len, bad, PCS_STEAM_DUMP_ST_MODE, 2.0, "mode");
    expect_refused(&f, image, len, bad, PCS_STEAM_DUMP_ST_DEMAND, 1.5, "value 1.5");
    expect_refused(&f, image, len, bad, PCS_STEAM_DUMP_ST_P_INTEGRAL, -0.1, "value -0.1");
    expect_refused(&f, image, len, bad, PCS_STEAM_DUMP_ST_CONTROLLER, 2.5, "controller");
    expect_refused(&f, image, len, bad, PCS_STEAM_DUMP_ST_P_MEASURED, NAN, "header pressure");
    free(image);
    unlink(path);
    unlink(bad);
}

/* Back to a clean controller between the sequences: auto, Tavg mode, shut,
 * every flag and the load 0, Tavg at no-load. */
static void reset(fx *f)
{
    for (uint32_t k = 0; k < PCS_SIG_INTERLOCK_COUNT; k++)
        f->ilk[k] = 0.0;
    f->tsig[PCS_SIG_TURBINE_LOAD] = 0.0;
    for (uint32_t k = 0; k < PCS_STEAM_DUMP_ST_COUNT; k++)
        if (k != PCS_STEAM_DUMP_ST_P_MEASURED)
            f->s[k] = 0.0;
    *f->dump = 0.0;
    *f->tavg = T_NL;
}

/* One lone steam side for every sequence (its build, the (p, h) table,
 * is most of the cost). */
Test(steam_dump, lone_steam_side_rates_interlocks_modes_and_saves)
{
    fx f;
    fx_open(&f);
    seq_trip_open_p12_c9(&f);
    reset(&f);
    seq_load_rejection(&f);
    reset(&f);
    seq_reactor_trip_manual(&f);
    reset(&f);
    seq_turbine_trip_without_reactor_trip(&f);
    reset(&f);
    seq_crafted_and_alloc(&f);
    reset(&f);
    seq_pressure_mode(&f);
    fx_close(&f);
}

/* ---- a steam-side station: reactor and turbine trip ------------------------------- */

/*
 * A steam-side unit at 100 % with its instruments (the dumps read the Tavg
 * control channel). Scram, the turbine valve shut at once, and the flags the
 * interlock logic would give written by hand: P-4, C-8 (turbine tripped),
 * C-9 (condenser available). The plant-trip controller's dumps take Tavg
 * down towards no-load: direction and band only ([HRTD] 11.2 and section
 * 3: to no-load on the turbine-trip controller, within its 27.7 F span,
 * P-12 at 553 F = no-load - 4 F not reached). 60 s (30 s under ASan).
 */
Test(steam_dump, plant_trip_on_a_station_takes_tavg_towards_no_load)
{
    pcs_world *w;
    pcs_world_def wd;
    pcs_world_default(&wd);
    cr_assert_eq(pcs_world_create(&wd, &w), PCS_OK);
    pcs_plant_unit_def d;
    pcs_plant_unit_default(&d);
    d.sg_model = PCS_PLANT_SG_STEAM_SIDE;
    pcs_plant *plant;
    cr_assert_eq(pcs_plant_add(w, &d, 1, &plant), PCS_OK, "%s", pcs_last_error());
    cr_assert_eq(pcs_plant_instrument(w, plant, NULL), PCS_OK, "%s", pcs_last_error());
    const pcs_plant_unit *pu = pcs_plant_unit_get(plant, 0);
    const double *pri = pcs_store_data(w, pcs_primary_store_ids(pu->primary).out);
    const double *sec = pcs_store_data(w, pcs_secondary_store_ids(pu->secondary).out);
    uint32_t id_ilk, id_dump;
    cr_assert_eq(pcs_plant_signals(w, "u1", PCS_SIGNALS_INTERLOCK, &id_ilk), PCS_OK);
    cr_assert_eq(pcs_store_find(w, "u1.dumpctl.state", &id_dump), PCS_OK);
    double *ilk = pcs_store_data(w, id_ilk);
    const double *ds = pcs_store_data(w, id_dump);
    for (int n = 0; n < 10; n++)
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
    double t0 = pri[PCS_PRIMARY_OUT_T_AVG];
    cr_expect(fabs(t0 - T_FULL) < 1.0, "starts on the full-power Tavg: %.3f K", t0);
    ctl_command(w, PCS_UNIT_COMMANDS, PCS_UNIT_OP_SCRAM, "u1", 0.0);
    ctl_command(w, PCS_TURBINE_COMMANDS, PCS_TURBINE_OP_TRIP, "u1", 0.0); /* stop valves shut */
    ilk[PCS_SIG_P4] = ilk[PCS_SIG_C8] = ilk[PCS_SIG_C9] = 1.0;
    int n_end = (int)(25.0 / DT);
    double t_min = t0, dump_max = 0.0, t_no_load = -1.0;
    for (int n = 1; n <= n_end; n++) {
        cr_assert_eq(pcs_world_tick(w), PCS_OK, "%s", pcs_last_error());
        double t = pri[PCS_PRIMARY_OUT_T_AVG];
        t_min = fmin(t_min, t);
        dump_max = fmax(dump_max, ds[PCS_STEAM_DUMP_ST_DEMAND]);
        if (t_no_load < 0.0 && t <= T_NL)
            t_no_load = n * DT;
    }
    double t = pri[PCS_PRIMARY_OUT_T_AVG];
    fprintf(stderr,
            "steam_dump plant trip: Tavg %.3f -> %.3f K in 25 s (no-load %.3f reached at %.2f "
            "s), dump demand max %.3f, now %.3f; feed %.0f kg/s, header %.4f MPa\n",
            t0, t, T_NL, t_no_load, dump_max, ds[PCS_STEAM_DUMP_ST_DEMAND],
            4.0 * sec[PCS_SECONDARY_OUT_SG + PCS_SECONDARY_OUT_FEED],
            sec[PCS_SECONDARY_OUT_HEADER_P] / 1e6);
    cr_expect_eq(ds[PCS_STEAM_DUMP_ST_CONTROLLER], PCS_STEAM_DUMP_CTL_PLANT_TRIP);
    cr_expect(dump_max >= 0.5, "at 27.6 F half the valves trip open: max demand %.3f", dump_max);
    cr_expect(t_no_load > 0.0, "Tavg came down to no-load within 25 s (now %.3f K)", t);
    cr_expect_eq(ds[PCS_STEAM_DUMP_ST_DEMAND], 0.0, "at no-load the dumps are shut");
    pcs_world_destroy(w);
}
